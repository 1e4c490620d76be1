import { childCommand } from "../process.ts";
/**
 * Shared helpers for the contractpin tests: fixture server commands, tool files, an SDK HTTP
 * fixture started as a real process on 127.0.0.1, and small file utilities.
 */
export { runCliProcess, runInProcess, withTempDir } from "../cli/run.ts";

const fixtures = new URL("../fixtures/contractpin/", import.meta.url);
/** The SDK-built fixture server. */
export const SDK_SERVER = new URL("sdk_server.ts", fixtures).pathname;
/** The misbehaving raw fixture server. */
export const RAW_SERVER = new URL("raw_server.ts", fixtures).pathname;
/** The published server package the tests run through npx (pinned). */
export const EVERYTHING_PACKAGE = "@modelcontextprotocol/server-everything@2026.1.26";

const deno = Deno.execPath();

/** argv of the SDK fixture over stdio. */
export function sdkStdioCommand(): string[] {
  return [deno, "run", "--quiet", "--allow-read", "--allow-env", SDK_SERVER, "stdio"];
}

/** argv of the raw fixture in `mode`. */
export function rawCommand(mode: string, pidFile?: string): string[] {
  return [
    deno,
    "run",
    "--quiet",
    "--allow-read",
    "--allow-write",
    "--allow-run",
    RAW_SERVER,
    mode,
    ...(pidFile ? [pidFile] : []),
  ];
}

/** A tool definition as served (anything goes: it is served verbatim). */
export type Tool = Record<string, unknown>;

/** The baseline tool set of the stdio/HTTP fixture tests. */
export function baseTools(): Tool[] {
  return [
    {
      name: "echo",
      title: "Echo",
      description: "Echo back the text.\nUse it for testing.",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: "add",
      description: "Add two numbers",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
      },
      outputSchema: { type: "object", properties: { sum: { type: "number" } } },
    },
    {
      name: "read_file",
      description: "Read a file inside the workspace",
      inputSchema: {
        type: "object",
        properties: { path: { type: "string", pattern: "^[a-z/]+$" } },
      },
      annotations: { readOnlyHint: true, destructiveHint: false },
      _meta: { "vendor/docs": "https://example.invalid/docs" },
    },
    { name: "ping" },
  ];
}

/** Writes the fixture's tool file. */
export async function writeTools(path: string, tools: Tool[], pageSize?: number): Promise<void> {
  await Deno.writeTextFile(path, JSON.stringify(pageSize ? { tools, pageSize } : { tools }));
}

/** A running SDK HTTP fixture. */
export interface HttpFixture {
  /** Endpoint URL. */
  readonly url: string;
  /** Stops the server and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts the SDK fixture over Streamable HTTP on 127.0.0.1 (port chosen by the OS). */
export async function startSdkHttp(options: {
  toolsFile: string;
  json?: boolean;
  /** Event store, and every tools/list stream ended before its answer (resume with GET). */
  poll?: boolean;
  log?: string;
  auth?: string;
}): Promise<HttpFixture> {
  const env: Record<string, string> = { FIXTURE_TOOLS: options.toolsFile };
  if (options.log) env.FIXTURE_LOG = options.log;
  if (options.auth) env.FIXTURE_AUTH = options.auth;
  const child = childCommand(deno, {
    args: [
      "run",
      "--quiet",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net=127.0.0.1",
      SDK_SERVER,
      "http",
      ...(options.json ? ["json"] : options.poll ? ["poll"] : []),
    ],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const deadline = setTimeout(() => child.kill("SIGKILL"), 60_000);
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`HTTP fixture exited before listening: ${text}`);
    text += value;
  }
  clearTimeout(deadline);
  const match = /listening (\S+)/.exec(text);
  if (!match) throw new Error(`unexpected HTTP fixture output: ${text}`);
  const drain = (async () => {
    while (!(await reader.read()).done) { /* keep the pipe empty */ }
  })();
  return {
    url: match[1],
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await drain.catch(() => {});
    },
  };
}

/** True while a process with this pid exists (Linux /proc). */
export async function processAlive(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // A zombie (state Z) has exited; it only waits to be reaped.
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** Names of the entries of a directory, sorted. */
export async function listDir(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) names.push(e.name);
  return names.sort();
}

/** Reads a JSON file. */
export async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(path));
}
