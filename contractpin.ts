/**
 * contractpin — the contracts of MCP tools (the description, schemas and annotations a model
 * reads) pinned in `contractpin.lock`, and live servers verified against it
 * (`specs/contractpin-spec.md`).
 *
 * - §2–§4 contract digests of a tool list: {@linkcode digestToolList}
 * - §5 the lock file: {@linkcode parseLock}
 * - §6 verify live servers against it: {@linkcode verifyLock} — each server of the lock (a
 *   stdio command, a Streamable HTTP URL or a saved `tools/list` file), run as the lock records
 *   it or as a {@linkcode ServerTarget} you give (`configured`: its credentials, headers, env)
 *
 * The report of {@linkcode verifyLock} is data ({@linkcode VerifyReport}, snake_case as in
 * `schemapin contract verify --json`); the text, SARIF and GitHub renderings are the CLI's.
 * Locks are written, approved and signed with `schemapin contract init|approve|sign`.
 *
 * @example Digest a saved tools/list result
 * ```ts
 * import { digestToolList } from "jsr:@schemapin/schemapin/contractpin";
 * const list = digestToolList([{
 *   name: "echo",
 *   description: "Echo back",
 *   inputSchema: { type: "object" },
 * }]);
 * console.log(list.digest, list.tools.get("echo")?.digest);
 * ```
 *
 * @example Verify a lock against live servers
 * ```ts
 * import { parseLock, verifyLock } from "jsr:@schemapin/schemapin/contractpin";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const report = await verifyLock({ lock, lockPath: "contractpin.lock" });
 * for (const server of report.servers) console.log(server.name, server.status);
 * Deno.exit(report.exit_code); // §6: 0 match, 1 drift or unreachable
 * ```
 *
 * @module
 */

// Contract digests (§2–§4)
export {
  type DigestedTool,
  type DigestedToolList,
  digestToolList,
} from "./lib/contractpin/digest.ts";
export type { SnapshotSkill, SnapshotTool } from "./lib/contractpin/snapshot.ts";

// The lock file (§5)
export {
  type ContractLock,
  type LockServer,
  type LockSkill,
  type LockSkills,
  type LockSurface,
  type LockSurfaceItem,
  type LockSurfaceKind,
  type LockTool,
  parseLock,
  type ServerIdentity,
  type TransportKind,
} from "./lib/contractpin/lock.ts";

// Verify live servers (§6)
export { type RunOptions, verifyLock, type VerifyRequest } from "./lib/contractpin/run.ts";
export type { ServerTarget } from "./lib/contractpin/live.ts";
export type { EnvLookup, HeaderTemplate } from "./lib/contractpin/secrets.ts";
export type { ListedSession, ListOptions, ProtocolEra } from "./lib/mcp/session.ts";

// Skills served over MCP, as the lock, the run options and the report carry them
export type { SkillRunOptions } from "./lib/contractpin/skills_live.ts";
export type { SkillFetchOptions } from "./lib/skill/served_fetch.ts";
export type {
  DriftedSkill,
  SkillContradiction,
  SkillsReport,
} from "./lib/contractpin/skills_verify.ts";
export type { ContractSnapshot } from "./lib/contractpin/snapshot.ts";
export type { ItemKind, PinnedProtocol, SurfaceKind } from "./lib/contractpin/surface.ts";
export type { Notice, SurfaceMember, ToolDiff } from "./lib/contractpin/verify.ts";
export {
  type ServerReport,
  type ServerStatus,
  type SurfaceKindReport,
  type SurfaceReport,
  type VerifyReport,
} from "./lib/contractpin/report.ts";

// Hidden text in tool definitions, as reports carry it
export type {
  HiddenTextFinding,
  HiddenTextKind,
  ToolHiddenTextFinding,
} from "./lib/contractpin/hidden_text.ts";
