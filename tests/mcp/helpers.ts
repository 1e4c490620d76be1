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

const deno = Deno.execPath();
/** The Python SDK fixture server. */
export const PYTHON_SERVER =
  new URL("../fixtures/python_mcp/era_server.py", import.meta.url).pathname;
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

/** `ignore` for the tests that need the Python SDK peer. */
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

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** A running Python fixture over Streamable HTTP (stateless). */
export async function startPythonHttp(
  json = false,
  env: Record<string, string> = {},
): Promise<{ url: string; stop(): Promise<void> }> {
  const port = freePort();
  const child = childCommand(python!, {
    args: [PYTHON_SERVER, "http", String(port), ...(json ? ["--json"] : [])],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}/mcp`;
  const deadline = Date.now() + 60_000;
  while (true) {
    try {
      const c = await Deno.connect({ hostname: "127.0.0.1", port });
      c.close();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        await child.status;
        throw new Error("the Python HTTP fixture did not start listening");
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
    },
  };
}
