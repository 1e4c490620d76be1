// deno-lint-ignore-file no-import-prefix -- the SDK is a test peer and example dependency, pinned here, not a library dependency
/**
 * Shared helpers for the guard tests: fixture server commands, locks and trust documents
 * built with the library, the guard launched as a real `deno run` process with the
 * `schemapin` task's permission flags, an SDK client connected through it, and a raw
 * line-level peer for byte comparisons.
 */
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import {
  type JSONRPCMessage,
  ListRootsRequestSchema,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import { buildLock, lockServerEntry, serializeLock } from "../../lib/contractpin/lock.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import { generateKeyPair, type PrivateKey, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { schemapinTaskFlags } from "../cli/run.ts";
import { childCommand } from "../process.ts";
import { EVERYTHING_PACKAGE } from "../contractpin/helpers.ts";

export { runCliProcess, runInProcess, withTempDir } from "../cli/run.ts";

const here = new URL("./fixtures/", import.meta.url);
const repo = new URL("../../", import.meta.url);
/** The SDK fixture server. */
export const SDK_SERVER = new URL("sdk_server.ts", here).pathname;
/** The raw fixture server. */
export const RAW_SERVER = new URL("raw_server.ts", here).pathname;
/** The example signed server. */
export const EXAMPLE_SERVER = new URL("examples/signed_server.ts", repo).pathname;
/** The CLI entry point. */
export const CLI = new URL("cli.ts", repo).pathname;

const deno = Deno.execPath();

/** argv of the SDK fixture. */
export function sdkCommand(): string[] {
  return [deno, "run", "--quiet", "--allow-read", "--allow-env", SDK_SERVER];
}

/** argv of the raw fixture in `mode` (writing its pid to `pidFile`). */
export function rawCommand(mode: string, pidFile?: string): string[] {
  return [deno, "run", "--quiet", "--allow-write", RAW_SERVER, mode, ...(pidFile ? [pidFile] : [])];
}

/** A tool definition as served. */
export type Tool = Record<string, unknown>;

/** The tools of the SDK fixture tests. */
export function baseTools(): Tool[] {
  return [
    {
      name: "echo",
      title: "Echo",
      description: "Echo back the text.",
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
      outputSchema: {
        type: "object",
        properties: { sum: { type: "number" } },
        required: ["sum"],
      },
    },
    {
      name: "read_file",
      description: "Read a file inside the workspace",
      inputSchema: {
        type: "object",
        properties: { path: { type: "string", pattern: "^[a-z/]+$" } },
      },
      annotations: { readOnlyHint: true, destructiveHint: false },
    },
  ];
}

/** The tools of the raw fixture (modes that list). */
export function rawTools(): Tool[] {
  return [
    { name: "a", description: "tool a", inputSchema: { type: "object" } },
    { name: "b", description: "tool b", inputSchema: { type: "object" } },
    { name: "ask", description: "asks the client", inputSchema: { type: "object" } },
  ];
}

/** True while a process with this pid exists and is not a zombie (Linux /proc). */
export { processAlive } from "../contractpin/helpers.ts";

/**
 * Writes the SDK fixture's tool file, atomically: the fixture polls it every 25 ms, and a
 * half-written file made it exit 1 on a busy machine.
 */
export async function writeTools(
  path: string,
  tools: Tool[],
  extra: { pageSize?: number; silent?: boolean } = {},
): Promise<void> {
  await Deno.writeTextFile(`${path}.tmp`, JSON.stringify({ tools, ...extra }));
  await Deno.rename(`${path}.tmp`, path);
}

/** Writes a lock pinning `tools` for server `name`. */
export async function writeLock(path: string, name: string, tools: Tool[]): Promise<void> {
  const entry = lockServerEntry(
    { transport: "stdio", command: ["fixture"] },
    digestToolList(tools as JsonValue[]),
  );
  await Deno.writeTextFile(path, serializeLock(buildLock({ [name]: entry })));
}

/** A publisher: key pair and discovery document, written to `dir`. */
export interface Publisher {
  readonly key: PrivateKey;
  readonly keyFile: string;
  readonly discoveryFile: string;
}

/** Creates a publisher key, its private key file and discovery document. */
export async function makePublisher(
  dir: string,
  name = "pub",
  options: { revoked?: string[]; key?: PrivateKey } = {},
): Promise<Publisher> {
  const key = options.key ?? generateKeyPair();
  const keyFile = `${dir}/${name}.pem`;
  await Deno.writeTextFile(keyFile, privateKeyToPem(key), { mode: 0o600 });
  const discoveryFile = `${dir}/${name}-schemapin.json`;
  const doc = buildDiscoveryDocument({
    publicKey: key.publicKey,
    developerName: "Guard Test Publisher",
    ...(options.revoked ? { revokedKeys: options.revoked } : {}),
  });
  await Deno.writeTextFile(discoveryFile, JSON.stringify(doc));
  return { key, keyFile, discoveryFile };
}

/** argv of the guard as a real process: `deno run <task flags> cli.ts guard args…`. */
export async function guardArgv(args: string[]): Promise<string[]> {
  return ["run", "--quiet", ...(await schemapinTaskFlags()), CLI, "guard", ...args];
}

/** An SDK client connected through a guard process. */
export interface GuardedClient {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** Everything the guard (and the server) wrote on stderr so far. */
  stderr(): string;
  /** Closes the client (the guard then stops the server and exits). */
  close(): Promise<void>;
}

/** Connects the official SDK client to `argv` (a guard or a server) over stdio. */
export async function connectSdk(
  command: string,
  args: string[],
  options: {
    env?: Record<string, string>;
    roots?: { uri: string; name: string }[];
    cwd?: string;
  } = {},
): Promise<GuardedClient> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...Deno.env.toObject(), NO_COLOR: "1", ...options.env },
    stderr: "pipe",
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let err = "";
  transport.stderr?.on("data", (d: Uint8Array) => err += new TextDecoder().decode(d));
  const client = new Client(
    { name: "guard-test", version: "1.0.0" },
    { capabilities: options.roots ? { roots: { listChanged: false } } : {} },
  );
  if (options.roots) {
    const roots = options.roots;
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }) as never);
  }
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => err,
    close: () => client.close(),
  };
}

/** Connects the SDK client through `schemapin guard args… -- server…`. */
export async function connectGuarded(
  args: string[],
  server: string[],
  options: { env?: Record<string, string>; roots?: { uri: string; name: string }[] } = {},
): Promise<GuardedClient> {
  return await connectSdk(deno, [...(await guardArgv(args)), "--", ...server], options);
}

/** Reads a JSON-lines audit log. */
export async function readLog(path: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path).catch(() => "");
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** Polls `check` until it returns true (or fails the test after `ms`). */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("condition not met in time");
}

/** A process spoken to line by line (raw bytes), for exact comparisons. */
export class RawPeer {
  readonly child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer = new Uint8Array(0);
  #stderr = "";
  readonly #stderrDone: Promise<void>;

  /** Spawns `argv` with piped stdio. */
  constructor(argv: string[], env?: Record<string, string>) {
    const child = childCommand(argv[0], {
      args: argv.slice(1),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1", ...env },
    }).spawn();
    this.child = child;
    this.#writer = child.stdin.getWriter();
    this.#reader = child.stdout.getReader();
    this.#stderrDone = (async () => {
      for await (const c of child.stderr) this.#stderr += new TextDecoder().decode(c);
    })();
  }

  /** A guard process (`deno run … cli.ts guard args -- server…`). */
  static async guard(args: string[], server: string[]): Promise<RawPeer> {
    return new RawPeer([deno, ...(await guardArgv(args)), "--", ...server]);
  }

  /** Sends one line (a value is serialised; a string is sent as is) plus LF. */
  async send(message: unknown): Promise<void> {
    const text = typeof message === "string" ? message : JSON.stringify(message);
    await this.#writer.write(new TextEncoder().encode(text + "\n"));
  }

  /** The next line's bytes (without LF); fails after `ms`; undefined at end of stream. */
  async nextBytes(ms = 15_000): Promise<Uint8Array | undefined> {
    const deadline = Date.now() + ms;
    while (true) {
      const nl = this.#buffer.indexOf(0x0a);
      if (nl >= 0) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        return line;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no line within ${ms} ms; stderr: ${this.#stderr}`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const r = await Promise.race([
        this.#reader.read(),
        new Promise<"timeout">((res) => timer = setTimeout(() => res("timeout"), left)),
      ]);
      clearTimeout(timer);
      if (r === "timeout") continue;
      if (r.done) return undefined;
      const joined = new Uint8Array(this.#buffer.length + r.value.length);
      joined.set(this.#buffer);
      joined.set(r.value, this.#buffer.length);
      this.#buffer = joined;
    }
  }

  /** The next line parsed as JSON. */
  async next(ms?: number): Promise<Record<string, unknown> & { [k: string]: unknown }> {
    const bytes = await this.nextBytes(ms);
    if (bytes === undefined) throw new Error(`stream ended; stderr: ${this.#stderr}`);
    return JSON.parse(new TextDecoder().decode(bytes));
  }

  /** Closes stdin (the client going away). */
  async closeInput(): Promise<void> {
    await this.#writer.close().catch(() => {});
  }

  /** Waits for the exit status (failing after `ms`), then releases everything. */
  async exit(ms = 20_000): Promise<Deno.CommandStatus> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const status = await Promise.race([
      this.child.status,
      new Promise<never>((_, rej) =>
        timer = setTimeout(() => rej(new Error(`no exit within ${ms} ms: ${this.#stderr}`)), ms)
      ),
    ]).finally(() => clearTimeout(timer));
    await this.#writer.close().catch(() => {});
    await this.#reader.cancel().catch(() => {});
    await this.#stderrDone.catch(() => {});
    return status;
  }

  /** Kills the process (cleanup after a failed assertion). */
  kill(): void {
    try {
      this.child.kill("SIGKILL");
    } catch { /* gone */ }
  }

  /** stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }
}

/** A process started by {@linkcode startListening}. */
export interface ListeningProcess {
  readonly url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `program args…` in a process group of its own (`setsid`: npx runs the server as a
 * grandchild, which must be stopped with it) and waits until `pattern` shows on stdout or
 * stderr.
 */
export async function startListening(
  program: string,
  args: string[],
  pattern: RegExp,
  env: Record<string, string>,
  url: (m: RegExpExecArray) => string,
  waitMs: number,
): Promise<ListeningProcess> {
  const child = childCommand("setsid", {
    args: [program, ...args],
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  const pumps = [child.stdout, child.stderr].map((s) =>
    (async () => {
      for await (const c of s) out += new TextDecoder().decode(c);
    })()
  );
  let exited = false;
  child.status.then(() => exited = true);
  const deadline = Date.now() + waitMs;
  let m: RegExpExecArray | null;
  while (!(m = pattern.exec(out))) {
    if (exited || Date.now() > deadline) {
      if (!exited) Deno.kill(-child.pid, "SIGKILL");
      await child.status;
      await Promise.all(pumps);
      throw new Error(`${program} ${args.join(" ")} did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url: url(m),
    output: () => out,
    async stop() {
      try {
        Deno.kill(-child.pid, "SIGTERM"); // the whole group
      } catch { /* already gone */ }
      await child.status;
      await Promise.all(pumps);
    },
  };
}

/**
 * The published server-everything over HTTP (`streamableHttp`: `…/mcp`; `sse`: the legacy
 * transport, `…/sse`), in a process group of its own. It takes its port from PORT: a port that
 * was free a moment ago, tried again (up to 3 times) if another process took it first.
 */
export async function startEverythingHttp(
  mode: "streamableHttp" | "sse",
): Promise<ListeningProcess> {
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (l.addr as Deno.NetAddr).port;
    l.close();
    try {
      return await startListening(
        "npx",
        ["-y", EVERYTHING_PACKAGE, mode],
        mode === "sse" ? /running on port (\d+)/ : /listening on port (\d+)/,
        { PORT: String(port) },
        (m) => `http://127.0.0.1:${m[1]}/${mode === "sse" ? "sse" : "mcp"}`,
        240_000, // the first run downloads the package
      );
    } catch (e) {
      last = e;
    }
  }
  throw last;
}

/** The SDK protocol versions the guard is tested with (newest first). */
export const PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"];

/**
 * Makes an SDK client transport ask for `version` in `initialize` (the SDK always asks for its
 * newest; a server answers with the version asked for when it supports it).
 */
export function askProtocolVersion(
  transport: { send(message: JSONRPCMessage, options?: unknown): Promise<void> },
  version: string,
): void {
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options?: unknown) => {
    if ("method" in message && message.method === "initialize") {
      message = { ...message, params: { ...message.params, protocolVersion: version } };
    }
    return send(message, options);
  };
}
