/**
 * Shared helpers for the MCP era tests: the Python MCP SDK 2.x peer (its python comes from
 * SCHEMAPIN_PYTHON_MCP, a python with mcp==2.3.0 installed by .ci/run), the scripted modern
 * stdio server, and listing over a transport that is always closed.
 */
import { childCommand } from "../process.ts";
import { type ListOptions, listTools, type ToolListing } from "../../lib/mcp/session.ts";
import { spawnStdio } from "../../lib/mcp/stdio.ts";
import { connectHttp } from "../../lib/mcp/http.ts";
import type { McpTransport } from "../../lib/mcp/session.ts";
import { type ListeningProcess, startListening } from "../guard/helpers.ts";

const deno = Deno.execPath();
/** The Python SDK fixture server (also the peer of tests/peers/python_sdk_test.ts). */
export const PYTHON_SERVER = new URL("../fixtures/python_mcp/server.py", import.meta.url).pathname;
/** The scripted modern stdio server. */
export const RAW_MODERN = new URL("../fixtures/mcp/raw_modern_server.ts", import.meta.url)
  .pathname;
/** The TS SDK 1.32.2 fixture server (legacy only). */
export const SDK_SERVER = new URL("../fixtures/contractpin/sdk_server.ts", import.meta.url)
  .pathname;

/** The python that has mcp==2.3.0, or undefined. */
export const python = Deno.env.get("SCHEMAPIN_PYTHON_MCP");

async function pythonHasMcp(): Promise<boolean> {
  if (!python) return false;
  try {
    const r = await childCommand(python, {
      args: ["-c", "import mcp.server.mcpserver, importlib.metadata as m; print(m.version('mcp'))"],
      stdout: "piped",
      stderr: "null",
    }).output();
    return r.success && new TextDecoder().decode(r.stdout).trim().startsWith("2.");
  } catch {
    return false;
  }
}

/** True when the Python MCP SDK 2.x peer is there (see `ignoreWithout` in the test files). */
export const PYTHON_PRESENT: boolean = await pythonHasMcp();

/** argv of the Python fixture over stdio. */
export function pythonStdioCommand(): string[] {
  return [python ?? "python3", PYTHON_SERVER, "stdio"];
}

/** argv of the scripted modern server in `mode`. */
export function rawModernCommand(mode: string): string[] {
  return [deno, "run", "--quiet", RAW_MODERN, mode];
}

/** argv of the TS SDK fixture over stdio (FIXTURE_TOOLS must name a tools file). */
export function sdkStdioCommand(): string[] {
  return [deno, "run", "--quiet", "--allow-read", "--allow-env", SDK_SERVER, "stdio"];
}

/** Lists over `transport` and always closes it. */
export async function listAndClose(
  transport: McpTransport,
  options: ListOptions = {},
): Promise<ToolListing> {
  try {
    return await listTools(transport, { requestTimeoutMs: 20_000, ...options }, "test server");
  } finally {
    await transport.close();
  }
}

/** Lists a stdio command. */
export async function listStdio(
  command: string[],
  options: ListOptions = {},
  env?: Record<string, string>,
): Promise<ToolListing> {
  return await listAndClose(spawnStdio({ command, env, source: "test server" }), options);
}

/** Lists a Streamable HTTP URL. */
export function listHttp(url: string, options: ListOptions = {}): Promise<ToolListing> {
  return listAndClose(connectHttp({ url, source: "test server" }), options);
}

/** A running Python fixture over Streamable HTTP (stateless), on the port it announces. */
export function startPythonHttp(json = false): Promise<ListeningProcess> {
  return startListening(
    python!,
    [PYTHON_SERVER, "http", "0", "--stateless", ...(json ? ["--json"] : [])],
    /listening (http:\S+)/,
    {},
    (m) => m[1],
    60_000,
  );
}
