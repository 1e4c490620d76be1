/**
 * The contract snapshot: a readable copy of every pinned contract, kept next to the lock so
 * `verify` can show *what* changed (a unified diff of the description text and schemas), not
 * only that a digest differs. The lock format stays exactly as §5 says; the snapshot is an
 * extra file, and verify trusts a snapshot entry only when its contract still hashes to the
 * digest in the lock.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { CONTRACTPIN_CANONICAL_JSON_1 } from "../json/canonical_jcs.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { CONTRACT_FIELDS, isJsonObject } from "./contract.ts";
import { type DigestedToolList, digestJson } from "./digest.ts";
import { unifiedDiff } from "./diff.ts";
import { prettyJson, prettyJsonFile } from "./pretty.ts";
import { checkArg } from "../arguments.ts";
import type { ContractFiles } from "./files.ts";

/** Snapshot format version. */
export const SNAPSHOT_VERSION = "1";

/** One tool in a snapshot. */
export interface SnapshotTool {
  /** Tool digest at pinning time. */
  digest: string;
  /** The contract object (§2). */
  contract: JsonObject;
  /** The tool's `title` at pinning time, when it had one (not part of the contract). */
  title?: JsonValue;
  /** Digest of the tool's `_meta` at pinning time, when it had one (not part of the contract). */
  meta_digest?: string;
}

/**
 * One skill in a snapshot (docs/contractpin-skills.md, "Diffs"): its item digest, the
 * frontmatter as JSON, and the text of each UTF-8 file with its digest (binary files are left
 * out), so verify can print a line diff of a changed file.
 */
export interface SnapshotSkill {
  /** The skill's item digest at pinning time. */
  digest: string;
  /** The frontmatter, as JSON. */
  frontmatter: JsonObject;
  /** UTF-8 files by URI: their digest and text. */
  files: Record<string, { digest: string; text: string }>;
}

/** A snapshot file. */
export interface ContractSnapshot {
  /** Format version, `"1"`. */
  contractpin_snapshot: string;
  /** The canonicalization the digests use. */
  canonicalization: string;
  /** Per server, tools by name (and skills by `SKILL.md` URI, when the server serves some). */
  servers: Record<
    string,
    { tools: Record<string, SnapshotTool>; skills?: Record<string, SnapshotSkill> }
  >;
}

/**
 * The default snapshot path for a lock: `contractpin.lock` → `contractpin.snapshot.json`.
 *
 * @example
 * ```ts
 * import { defaultSnapshotPath } from "./snapshot.ts";
 * defaultSnapshotPath("ci/contractpin.lock"); // "ci/contractpin.snapshot.json"
 * ```
 */
export function defaultSnapshotPath(lockPath: string): string {
  checkArg("defaultSnapshotPath", "lockPath", lockPath, "string");
  return lockPath.endsWith(".lock")
    ? lockPath.slice(0, -".lock".length) + ".snapshot.json"
    : lockPath + ".snapshot.json";
}

/**
 * Reads a snapshot. An explicit one (`explicit`: the user named it) must exist and parse; the
 * default one is optional — absent, it is `undefined`; unreadable or malformed, it is ignored
 * with `onIgnored` told why (never a silent fallback).
 *
 * @throws {SchemaPinError} for an explicit snapshot that cannot be read or parsed
 *
 * @example
 * ```ts ignore
 * import { readSnapshot } from "./snapshot.ts";
 * const snapshot = await readSnapshot("contractpin.snapshot.json", false, files, (why) =>
 *   console.error(`snapshot ignored: ${why}`));
 * ```
 */
export async function readSnapshot(
  path: string,
  explicit: boolean,
  files: Pick<ContractFiles, "read" | "exists">,
  onIgnored: (message: string) => void | Promise<void> = () => {},
): Promise<ContractSnapshot | undefined> {
  if (!explicit && !(await files.exists(path))) return undefined;
  try {
    return parseSnapshot(await files.read(path), path);
  } catch (e) {
    if (explicit) throw e;
    await onIgnored(e instanceof SchemaPinError ? e.message : String(e));
    return undefined;
  }
}

/**
 * The snapshot entry of one server.
 *
 * @example
 * ```ts
 * import { digestToolList } from "jsr:@schemapin/schemapin/contractpin";
 * import { snapshotServer } from "./snapshot.ts";
 * Object.keys(snapshotServer(digestToolList([{ name: "a", title: "A" }])).tools); // ["a"]
 * ```
 */
export function snapshotServer(list: DigestedToolList): { tools: Record<string, SnapshotTool> } {
  checkArg("snapshotServer", "list", list, "object");
  checkArg("snapshotServer", "list.tools", list.tools, "map");
  const tools: Record<string, SnapshotTool> = Object.create(null);
  for (const tool of list.tools.values()) {
    const entry: SnapshotTool = { digest: tool.digest, contract: tool.contract };
    if (Object.hasOwn(tool.raw, "title")) entry.title = tool.raw.title;
    if (Object.hasOwn(tool.raw, "_meta")) entry.meta_digest = digestJson(tool.raw._meta);
    tools[tool.name] = entry;
  }
  return { tools };
}

/**
 * Serialises a snapshot (same readable format as the lock).
 *
 * @example
 * ```ts
 * import { serializeSnapshot } from "./snapshot.ts";
 * serializeSnapshot({ servers: {} }).startsWith("{\n"); // true
 * ```
 */
export function serializeSnapshot(
  snapshot: Pick<ContractSnapshot, "servers">,
): string {
  checkArg("serializeSnapshot", "snapshot", snapshot, "object");
  checkArg("serializeSnapshot", "snapshot.servers", snapshot.servers, "object");
  return prettyJsonFile({
    contractpin_snapshot: SNAPSHOT_VERSION,
    canonicalization: CONTRACTPIN_CANONICAL_JSON_1,
    servers: snapshot.servers,
  });
}

function bad(source: string, message: string): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", `${source}: ${message}`, { source });
}

/**
 * Parses a snapshot strictly. Entries are validated for shape only; whether a contract still
 * matches its lock digest is checked where it is used ({@linkcode snapshotContractFor}).
 *
 * @throws {SchemaPinError} `JSON_INVALID` or `INPUT_INVALID`
 *
 * @example
 * ```ts
 * import { parseSnapshot, serializeSnapshot } from "./snapshot.ts";
 * const text = serializeSnapshot({ servers: {} });
 * parseSnapshot(new TextEncoder().encode(text), "s.json").servers; // {}
 * ```
 */
export function parseSnapshot(bytes: Uint8Array, source: string): ContractSnapshot {
  checkArg("parseSnapshot", "bytes", bytes, "bytes");
  checkArg("parseSnapshot", "source", source, "string");
  const doc = parseJson(bytes, source);
  if (!isJsonObject(doc)) throw bad(source, "a snapshot must be a JSON object");
  if (doc.contractpin_snapshot !== SNAPSHOT_VERSION) {
    throw bad(
      source,
      `unsupported snapshot version ${JSON.stringify(doc.contractpin_snapshot ?? null)}`,
    );
  }
  if (doc.canonicalization !== CONTRACTPIN_CANONICAL_JSON_1) {
    throw bad(
      source,
      `unsupported canonicalization ${JSON.stringify(doc.canonicalization ?? null)}`,
    );
  }
  if (!isJsonObject(doc.servers)) throw bad(source, "/servers must be an object");
  const servers: ContractSnapshot["servers"] = Object.create(null);
  for (const [name, server] of Object.entries(doc.servers)) {
    if (!isJsonObject(server) || !isJsonObject(server.tools)) {
      throw bad(source, `/servers/${name} must be an object with a "tools" object`);
    }
    const tools: Record<string, SnapshotTool> = Object.create(null);
    for (const [tool, entry] of Object.entries(server.tools)) {
      if (
        !isJsonObject(entry) || typeof entry.digest !== "string" || !isJsonObject(entry.contract)
      ) {
        throw bad(source, `/servers/${name}/tools/${tool} must have "digest" and "contract"`);
      }
      const t: SnapshotTool = { digest: entry.digest, contract: entry.contract };
      if (Object.hasOwn(entry, "title")) t.title = entry.title;
      if (typeof entry.meta_digest === "string") t.meta_digest = entry.meta_digest;
      tools[tool] = t;
    }
    servers[name] = { tools };
    if (Object.hasOwn(server, "skills")) servers[name].skills = parseSnapshotSkills(server.skills);
  }
  return {
    contractpin_snapshot: SNAPSHOT_VERSION,
    canonicalization: doc.canonicalization,
    servers,
  };
}

/**
 * The skills of a snapshot server entry; an entry not of the shape is left out (the snapshot
 * only ever feeds diffs, and each file is trusted only when its text hashes to the lock).
 */
function parseSnapshotSkills(value: JsonValue): Record<string, SnapshotSkill> {
  const out: Record<string, SnapshotSkill> = Object.create(null);
  if (!isJsonObject(value)) return out;
  for (const [uri, skill] of Object.entries(value)) {
    if (
      !isJsonObject(skill) || typeof skill.digest !== "string" ||
      !isJsonObject(skill.frontmatter) || !isJsonObject(skill.files)
    ) continue;
    const files: SnapshotSkill["files"] = Object.create(null);
    for (const [f, e] of Object.entries(skill.files)) {
      if (isJsonObject(e) && typeof e.digest === "string" && typeof e.text === "string") {
        files[f] = { digest: e.digest, text: e.text };
      }
    }
    out[uri] = { digest: skill.digest, frontmatter: skill.frontmatter, files };
  }
  return out;
}

/**
 * The snapshot entry for a locked tool, only when its contract hashes to `lockedDigest` (a stale
 * or edited snapshot must not produce a misleading diff).
 *
 * @example
 * ```ts
 * import { snapshotContractFor } from "./snapshot.ts";
 * snapshotContractFor(undefined, "s", "t", "sha256:00"); // undefined
 * ```
 */
export function snapshotContractFor(
  snapshot: ContractSnapshot | undefined,
  server: string,
  tool: string,
  lockedDigest: string,
): SnapshotTool | undefined {
  const servers = snapshot?.servers;
  const entry = servers && Object.hasOwn(servers, server) &&
      Object.hasOwn(servers[server].tools, tool)
    ? servers[server].tools[tool]
    : undefined;
  if (!entry) return undefined;
  let digest: string;
  try {
    digest = digestJson(entry.contract);
  } catch {
    return undefined;
  }
  return digest === lockedDigest && entry.digest === lockedDigest ? entry : undefined;
}

/**
 * Renders a contract as lines for reviewing and diffing: each member in §2 order; string
 * values as their text lines (so a rewritten description diffs line by line), other values as
 * indented JSON with sorted names.
 *
 * @example
 * ```ts
 * import { renderContract } from "./snapshot.ts";
 * renderContract({ name: "echo", description: "Echo.\nTwice.", inputSchema: null });
 * // ["name: echo", "description: |", "  Echo.", "  Twice.", "inputSchema: null"]
 * ```
 */
export function renderContract(contract: JsonObject): string[] {
  checkArg("renderContract", "contract", contract, "object");
  const lines: string[] = [];
  const keys = [
    ...CONTRACT_FIELDS.filter((k) => Object.hasOwn(contract, k)),
    ...Object.keys(contract).filter((k) => !CONTRACT_FIELDS.includes(k)).sort(),
  ];
  for (const key of keys) {
    const value = contract[key];
    if (key === "name" && typeof value === "string" && !value.includes("\n")) {
      lines.push(`name: ${value}`);
    } else if (typeof value === "string") {
      lines.push(`${key}: |`);
      for (const line of value.split(/\r\n|\r|\n/)) lines.push("  " + line);
    } else if (value === null || typeof value !== "object") {
      lines.push(`${key}: ${JSON.stringify(value)}`);
    } else {
      lines.push(`${key}:`);
      for (const line of prettyJson(value).split("\n")) lines.push("  " + line);
    }
  }
  return lines;
}

/**
 * A unified diff between a pinned contract and a live one (either may be absent, for
 * removed and added tools).
 *
 * @example
 * ```ts
 * import { contractDiff } from "./snapshot.ts";
 * contractDiff("srv", "echo", { name: "echo", description: "a", inputSchema: null },
 *   { name: "echo", description: "b", inputSchema: null });
 * ```
 */
export function contractDiff(
  server: string,
  tool: string,
  locked: JsonObject | undefined,
  live: JsonObject | undefined,
): string {
  checkArg("contractDiff", "server", server, "string");
  checkArg("contractDiff", "tool", tool, "string");
  checkArg("contractDiff", "locked", locked, "object", true);
  checkArg("contractDiff", "live", live, "object", true);
  return unifiedDiff(
    locked ? renderContract(locked) : [],
    live ? renderContract(live) : [],
    `locked/${server}/${tool}`,
    `live/${server}/${tool}`,
  );
}
