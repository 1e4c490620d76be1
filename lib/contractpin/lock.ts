/**
 * The lock file, `contractpin.lock` (contractpin spec §5): reading it strictly (an unknown
 * version, algorithm or canonicalization is refused — never a best-effort compare, §8) and
 * writing it in the one readable format §5 asks for.
 *
 * @module
 */
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { SchemaPinError } from "../errors.ts";
import type { ReadInput } from "../schema/input.ts";
import { CONTRACTPIN_CANONICAL_JSON_1 } from "../json/canonical_jcs.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { CONTRACT_FIELDS, isJsonObject } from "./contract.ts";
import { DIGEST_PATTERN, type DigestedToolList, serverDigest } from "./digest.ts";
import { prettyJsonFile } from "./pretty.ts";
import { checkArg } from "../arguments.ts";
import {
  checkKeys,
  digestAt,
  invalid,
  LOCK_VERSION,
  ptr,
  str,
  stringRecord,
} from "./lock_fields.ts";
import { type LockSurface, type LockSurfaceItem, parseSurface } from "./lock_surface.ts";
import { type DigestedSurface, SURFACE_KINDS } from "./surface.ts";
import { LOCK_INCONSISTENT, UNSUPPORTED_LOCK_VERSION } from "../option_hints.ts";

export type { LockSkill, LockSkills } from "./skills_lock.ts";
export type { LockSurface, LockSurfaceItem, LockSurfaceKind } from "./lock_surface.ts";
export { LOCK_VERSION } from "./lock_fields.ts";

/**
 * The only digest algorithm of lock format 1.
 *
 * @example
 * ```ts
 * import { LOCK_ALGORITHM } from "./lock.ts";
 * console.log(LOCK_ALGORITHM); // "sha256"
 * ```
 */
export const LOCK_ALGORITHM = "sha256";
/**
 * The default lock file name (§5).
 *
 * @example
 * ```ts
 * import { DEFAULT_LOCK_FILE } from "./lock.ts";
 * console.log(DEFAULT_LOCK_FILE); // "contractpin.lock"
 * ```
 */
export const DEFAULT_LOCK_FILE = "contractpin.lock";

/** How a server is reached (§5 `transport`). */
export type TransportKind = "stdio" | "http" | "file";

/**
 * Where a pinned server lives, as recorded in the lock: no credentials, ever (§5 "Secrets").
 * `env` values are `${VAR}` references or non-secret literals; `url` has no userinfo and no
 * literal credential-looking query parameters.
 */
export type ServerIdentity =
  | { transport: "stdio"; command: string[]; env?: Record<string, string>; cwd?: string }
  | { transport: "http"; url: string }
  | { transport: "file"; path: string };

/** One tool entry of a lock. */
export interface LockTool {
  /** Tool digest (§4.1). */
  digest: string;
  /** Advisory field digests (§4.2); optional in the format. */
  fields?: Record<string, string>;
}

/** One server entry of a lock: its identity plus the pinned contract digests. */
export type LockServer = ServerIdentity & LockSurface & {
  /** Length of `tools` (§5: a cheap consistency check). */
  tool_count: number;
  /** Server digest (§4.3). */
  digest: string;
  /** Tools by name. */
  tools: Record<string, LockTool>;
  /**
   * The client capabilities announced in `initialize` when this entry was pinned (sorted
   * names, e.g. `["elicitation", "roots", "sampling"]`). Servers may offer other tools to
   * clients with other capabilities; verify asks the same way, and the guard checks a client
   * against the entry pinned for its capabilities. Absent: none announced. An extension of
   * this implementation (contractpin §5 is silent on client capabilities).
   */
  client_capabilities?: string[];
};

/** A client capability name as the lock records it (a top-level key of `capabilities`). */
export const CLIENT_CAPABILITY = /^[a-z][A-Za-z0-9_]*$/;

/**
 * Normalizes client capability names: validated, duplicates removed, sorted.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a name that is not a capability name
 *
 * @example
 * ```ts
 * import { normalizeClientCapabilities } from "./lock.ts";
 * normalizeClientCapabilities(["sampling", "roots", "roots"]); // ["roots", "sampling"]
 * ```
 */
export function normalizeClientCapabilities(names: readonly string[]): string[] {
  for (const n of names) {
    if (!CLIENT_CAPABILITY.test(n) || n === "experimental") {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${JSON.stringify(n)} is not a client capability name (e.g. roots, sampling, elicitation)`,
        { field: "client_capabilities" },
      );
    }
  }
  return [...new Set(names)].sort();
}

/** A parsed lock file. */
export interface ContractLock {
  /** Lock format version, `"1"`. */
  contractpin: string;
  /** `"sha256"`. */
  algorithm: string;
  /** `"contractpin-canonical-json/1"`. */
  canonicalization: string;
  /** `YYYY-MM-DDTHH:MM:SSZ`, informational. */
  generated_at: string;
  /** Servers by the adopter's local name. */
  servers: Record<string, LockServer>;
}

const TOP_KEYS = ["contractpin", "algorithm", "canonicalization", "generated_at", "servers"];
const SERVER_KEYS: Record<TransportKind, string[]> = {
  stdio: ["command", "env", "cwd", "client_capabilities", "protocol"],
  http: ["url", "client_capabilities", "protocol"],
  file: ["path"],
};
/** The surface members (docs/contractpin-surface.md §4), allowed for every transport. */
const SURFACE_SERVER_KEYS = ["instructions", ...SURFACE_KINDS, "skills"];
const COMMON_SERVER_KEYS = ["transport", "tool_count", "digest", "tools", ...SURFACE_SERVER_KEYS];
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/**
 * Checks the three format identifiers of a lock (§5, §8). Refuses — rather than compares
 * best-effort — a version, algorithm or canonicalization this implementation does not know.
 */
function checkFormat(doc: JsonObject, source: string): void {
  const version = doc.contractpin;
  if (version !== LOCK_VERSION) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${source}: unsupported lock format version ${JSON.stringify(version ?? null)}; this ` +
        `schemapin reads contractpin "${LOCK_VERSION}" only (${UNSUPPORTED_LOCK_VERSION})`,
      { source, field: "/contractpin", reason: "unsupported_version" },
    );
  }
  if (doc.algorithm !== LOCK_ALGORITHM) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${source}: unsupported digest algorithm ${JSON.stringify(doc.algorithm ?? null)} ` +
        `(expected "${LOCK_ALGORITHM}")`,
      { source, field: "/algorithm", reason: "unsupported_algorithm" },
    );
  }
  if (doc.canonicalization !== CONTRACTPIN_CANONICAL_JSON_1) {
    // §8: an unknown canonicalization is refused, never compared best-effort.
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${source}: unsupported canonicalization ${JSON.stringify(doc.canonicalization ?? null)} ` +
        `(expected "${CONTRACTPIN_CANONICAL_JSON_1}")`,
      { source, field: "/canonicalization", reason: "unsupported_canonicalization" },
    );
  }
}

function parseServer(name: string, v: JsonValue, source: string): LockServer {
  const at = ptr("servers", name);
  if (!isJsonObject(v)) throw invalid(source, `${at} must be an object`, at);
  const transport = v.transport;
  if (transport !== "stdio" && transport !== "http" && transport !== "file") {
    throw invalid(
      source,
      `${at}/transport must be "stdio", "http" or "file" (got ${
        JSON.stringify(transport ?? null)
      })`,
      `${at}/transport`,
    );
  }
  checkKeys(v, [...COMMON_SERVER_KEYS, ...SERVER_KEYS[transport]], source, at);
  let identity: ServerIdentity;
  if (transport === "stdio") {
    const command = v.command;
    if (
      !Array.isArray(command) || command.length === 0 ||
      !command.every((c) => typeof c === "string") || command[0] === ""
    ) {
      throw invalid(source, `${at}/command must be a non-empty array of strings`, `${at}/command`);
    }
    identity = { transport, command: command as string[] };
    if (Object.hasOwn(v, "env")) identity.env = stringRecord(v.env, source, `${at}/env`);
    if (Object.hasOwn(v, "cwd")) identity.cwd = str(v, "cwd", source, at);
  } else if (transport === "http") {
    identity = { transport, url: str(v, "url", source, at) };
  } else {
    identity = { transport, path: str(v, "path", source, at) };
  }
  const toolsValue = v.tools;
  if (!isJsonObject(toolsValue)) throw invalid(source, `${at}/tools must be an object`, at);
  const tools: Record<string, LockTool> = Object.create(null);
  for (const [toolName, entry] of Object.entries(toolsValue)) {
    const tat = `${at}/tools${ptr(toolName)}`;
    if (!isJsonObject(entry)) throw invalid(source, `${tat} must be an object`, tat);
    checkKeys(entry, ["digest", "fields"], source, tat);
    const tool: LockTool = { digest: digestAt(entry, "digest", source, tat) };
    if (Object.hasOwn(entry, "fields")) {
      const fields = stringRecord(entry.fields, source, `${tat}/fields`);
      for (const [f, d] of Object.entries(fields)) {
        if (!CONTRACT_FIELDS.includes(f)) {
          throw invalid(source, `${tat}/fields has unknown contract field ${JSON.stringify(f)}`);
        }
        if (!DIGEST_PATTERN.test(d)) throw invalid(source, `${tat}/fields/${f} is not a digest`);
      }
      tool.fields = fields;
    }
    tools[toolName] = tool;
  }
  const count = v.tool_count;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0) {
    throw invalid(source, `${at}/tool_count must be a non-negative integer`, `${at}/tool_count`);
  }
  if (count !== Object.keys(tools).length) {
    // §5: tool_count is the consistency check; a lock that fails it is corrupt.
    throw invalid(
      source,
      `${at}/tool_count is ${count} but ${Object.keys(tools).length} tools are listed ` +
        `(${LOCK_INCONSISTENT})`,
      `${at}/tool_count`,
    );
  }
  const entry: LockServer = {
    ...identity,
    tool_count: count,
    digest: digestAt(v, "digest", source, at),
    tools,
  };
  if (Object.hasOwn(v, "client_capabilities")) {
    const caps = v.client_capabilities;
    const cat = `${at}/client_capabilities`;
    if (!Array.isArray(caps) || !caps.every((c) => typeof c === "string")) {
      throw invalid(source, `${cat} must be an array of strings`, cat);
    }
    let normal: string[];
    try {
      normal = normalizeClientCapabilities(caps as string[]);
    } catch (e) {
      throw invalid(source, `${cat}: ${(e as Error).message}`, cat);
    }
    if (normal.join() !== caps.join()) {
      throw invalid(source, `${cat} must be sorted names without duplicates`, cat);
    }
    if (normal.length > 0) entry.client_capabilities = normal;
  }
  parseSurface(v, entry, source, at);
  return entry;
}

/**
 * Parses and validates lock bytes. The bytes go through the strict JSON parser (duplicate
 * names, invalid UTF-8 … are errors); the format identifiers must be the known ones; every
 * member must have its §5 type; unknown members are refused (a misspelt key would otherwise
 * be ignored silently).
 *
 * @param bytes the lock file's contents
 * @param source the file name for messages
 * @throws {SchemaPinError} `JSON_INVALID` (not strict JSON) or `INPUT_INVALID` (`details.field`
 * is the JSON Pointer of the offending member; `details.reason` is `unsupported_version`,
 * `unsupported_algorithm` or `unsupported_canonicalization` for the format checks)
 *
 * @example
 * ```ts
 * import { parseLock } from "jsr:@schemapin/schemapin/contractpin";
 * const text = '{"contractpin":"1","algorithm":"sha256","canonicalization":' +
 *   '"contractpin-canonical-json/1","generated_at":"2026-01-01T00:00:00Z","servers":{}}';
 * parseLock(new TextEncoder().encode(text)).servers; // {}
 * ```
 */
export function parseLock(bytes: Uint8Array, source = DEFAULT_LOCK_FILE): ContractLock {
  checkArg("parseLock", "bytes", bytes, "bytes");
  checkArg("parseLock", "source", source, "string");
  const doc = parseJson(bytes, source);
  if (!isJsonObject(doc)) throw invalid(source, "a lock file must be a JSON object");
  checkFormat(doc, source);
  checkKeys(doc, TOP_KEYS, source, "");
  const generatedAt = str(doc, "generated_at", source, "");
  if (!TIMESTAMP.test(generatedAt)) {
    throw invalid(source, `/generated_at must be YYYY-MM-DDTHH:MM:SSZ (got ${generatedAt})`);
  }
  if (!isJsonObject(doc.servers)) throw invalid(source, "/servers must be an object", "/servers");
  const servers: Record<string, LockServer> = Object.create(null);
  for (const [name, server] of Object.entries(doc.servers)) {
    servers[name] = parseServer(name, server, source);
  }
  return {
    contractpin: LOCK_VERSION,
    algorithm: LOCK_ALGORITHM,
    canonicalization: CONTRACTPIN_CANONICAL_JSON_1,
    generated_at: generatedAt,
    servers,
  };
}

/**
 * Reads and parses the lock at `path` with `read` (`-` may be stdin): a missing, unreadable or
 * malformed lock throws, naming the file.
 *
 * @throws {SchemaPinError} what `read` throws (`IO_FAILED`), and as {@linkcode parseLock}
 *
 * @example
 * ```ts ignore
 * import { readLock } from "./lock.ts";
 * const lock = await readLock("contractpin.lock", (p) => Deno.readFile(p));
 * ```
 */
export async function readLock(path: string, read: ReadInput): Promise<ContractLock> {
  return parseLock(await read(path), path);
}

/**
 * A path as the lock stores it: relative to the lock's folder (so the lock works from any
 * working directory), absolute paths and `${VAR}` templates kept as given. `path` is relative
 * to `from` (default: the working directory).
 *
 * @example
 * ```ts
 * import { lockRelative } from "./lock.ts";
 * lockRelative("servers/tools.json", "ci/contractpin.lock"); // "../servers/tools.json"
 * lockRelative("${HOME}/tools.json", "ci/contractpin.lock"); // "${HOME}/tools.json"
 * ```
 */
export function lockRelative(path: string, lockPath: string, from = "."): string {
  if (isAbsolute(path) || path.includes("${")) return path;
  return relative(dirname(resolve(lockPath)), resolve(from, path)) || ".";
}

/**
 * Formats a time as the lock's `generated_at`: UTC, `YYYY-MM-DDTHH:MM:SSZ` (no fraction).
 *
 * @example
 * ```ts
 * import { formatGeneratedAt } from "./lock.ts";
 * formatGeneratedAt(new Date(Date.UTC(2026, 7, 14, 9, 31, 7, 250))); // "2026-08-14T09:31:07Z"
 * ```
 */
export function formatGeneratedAt(date: Date): string {
  checkArg("formatGeneratedAt", "date", date, "date");
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Builds one lock server entry from an identity and a digested tool list. The identity must
 * already be free of credentials (see `sanitizeIdentity` in `secrets.ts`).
 *
 * @example
 * ```ts
 * import { digestToolList } from "./digest.ts";
 * import { lockServerEntry } from "./lock.ts";
 * const entry = lockServerEntry({ transport: "file", path: "tools.json" }, digestToolList([]));
 * console.log(entry.tool_count); // 0
 * ```
 */
export function lockServerEntry(
  identity: ServerIdentity,
  list: DigestedToolList,
  clientCapabilities: readonly string[] = [],
  surface: DigestedSurface = {},
): LockServer {
  checkArg("lockServerEntry", "identity", identity, "object");
  checkArg("lockServerEntry", "list", list, "object");
  checkArg("lockServerEntry", "list.tools", list.tools, "map");
  checkArg("lockServerEntry", "clientCapabilities", clientCapabilities, "array");
  const tools: Record<string, LockTool> = Object.create(null);
  for (const tool of list.tools.values()) {
    tools[tool.name] = { digest: tool.digest, fields: tool.fields };
  }
  const entry: LockServer = {
    ...identity,
    tool_count: list.tools.size,
    digest: list.digest,
    tools,
  };
  const caps = normalizeClientCapabilities(clientCapabilities);
  if (caps.length > 0 && identity.transport !== "file") entry.client_capabilities = caps;
  Object.assign(entry, lockSurfaceMembers(surface, identity.transport));
  return entry;
}

/**
 * The lock members of a digested surface (docs/contractpin-surface.md §4): every kind the
 * listing enumerated, the instructions when known, and `protocol` for live transports.
 *
 * @example
 * ```ts
 * import { digestSurface } from "./surface.ts";
 * import { lockSurfaceMembers } from "./lock.ts";
 * lockSurfaceMembers(digestSurface({ prompts: [] }), "file").prompts?.count; // 0
 * ```
 */
export function lockSurfaceMembers(
  surface: DigestedSurface,
  transport: TransportKind,
): LockSurface {
  checkArg("lockSurfaceMembers", "surface", surface, "object");
  const out: LockSurface = {};
  if (surface.protocol && transport !== "file") {
    out.protocol = { era: surface.protocol.era, version: surface.protocol.version };
  }
  if (surface.instructions) out.instructions = { digest: surface.instructions.digest };
  for (const kind of SURFACE_KINDS) {
    const list = surface[kind];
    if (!list) continue;
    const items: Record<string, LockSurfaceItem> = Object.create(null);
    for (const item of list.items.values()) {
      items[item.key] = { digest: item.digest, fields: item.fields };
    }
    out[kind] = { count: list.items.size, digest: list.digest, items };
  }
  return out;
}

/**
 * Builds a whole lock from server entries.
 *
 * @example
 * ```ts
 * import { buildLock } from "./lock.ts";
 * buildLock({}, new Date(0)).generated_at; // "1970-01-01T00:00:00Z"
 * ```
 */
export function buildLock(
  servers: Record<string, LockServer>,
  now: Date = new Date(),
): ContractLock {
  checkArg("buildLock", "servers", servers, "object");
  checkArg("buildLock", "now", now, "date");
  return {
    contractpin: LOCK_VERSION,
    algorithm: LOCK_ALGORITHM,
    canonicalization: CONTRACTPIN_CANONICAL_JSON_1,
    generated_at: formatGeneratedAt(now),
    servers,
  };
}

/**
 * The lock file text (§5 "Formatting"): pretty-printed, names sorted, two-space indent, LF,
 * trailing newline. The formatting is not part of any digest.
 *
 * @example
 * ```ts
 * import { buildLock, serializeLock } from "./lock.ts";
 * serializeLock(buildLock({}, new Date(0))).endsWith("}\n"); // true
 * ```
 */
export function serializeLock(lock: ContractLock): string {
  checkArg("serializeLock", "lock", lock, "object");
  return prettyJsonFile(lock);
}

/**
 * The server digest recomputed from a lock entry's tool digests. When it differs from the
 * entry's `digest`, the lock was edited by hand (verify reports that as drift).
 *
 * @example
 * ```ts
 * import { recomputeServerDigest } from "./lock.ts";
 * recomputeServerDigest({ transport: "file", path: "x", tool_count: 0, digest: "", tools: {} });
 * ```
 */
export function recomputeServerDigest(server: LockServer): string {
  checkArg("recomputeServerDigest", "server", server, "object");
  checkArg("recomputeServerDigest", "server.tools", server.tools, "object");
  return serverDigest(new Map(Object.entries(server.tools).map(([n, t]) => [n, t.digest])));
}

/**
 * The identity part of a lock server entry (what to run or fetch).
 *
 * @example
 * ```ts
 * import { identityOf } from "./lock.ts";
 * identityOf({ transport: "http", url: "https://x/mcp", tool_count: 0, digest: "", tools: {} });
 * // { transport: "http", url: "https://x/mcp" }
 * ```
 */
export function identityOf(server: LockServer): ServerIdentity {
  checkArg("identityOf", "server", server, "object");
  switch (server.transport) {
    case "stdio": {
      const id: ServerIdentity = { transport: "stdio", command: [...server.command] };
      if (server.env) id.env = { ...server.env };
      if (server.cwd !== undefined) id.cwd = server.cwd;
      return id;
    }
    case "http":
      return { transport: "http", url: server.url };
    case "file":
      return { transport: "file", path: server.path };
  }
}
