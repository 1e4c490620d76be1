/**
 * The live guard between an MCP client and server, and tool signatures in `_meta`: the guard
 * lists the server's tools itself, checks each against a `contractpin.lock` entry and/or a
 * SchemaPin signature the tool carries, and — by mode — refuses the list (`enforce`), removes
 * the failing tools (`filter`) or only records them (`audit`), and refuses calls to tools that
 * did not pass. Transports: stdio (the guard spawns the server) and Streamable HTTP (the guard
 * is a local endpoint in front of the upstream URL). Every decision goes to an audit log.
 *
 * A publisher signs its tool list with {@linkcode signToolList}: each tool gets a SchemaPin
 * 1.4 signature document over its contract in `_meta["dev.schemapin/signature"]`.
 *
 * @example Guard a stdio server against its lock entry
 * ```ts
 * import {
 *   AuditLog,
 *   GuardCore,
 *   GuardPolicy,
 *   openAuditSink,
 *   runStdioGuard,
 * } from "jsr:@schemapin/schemapin/guard";
 * import { parseLock } from "jsr:@schemapin/schemapin/contractpin";
 *
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const entry = lock.servers["files"];
 * const core = new GuardCore({
 *   policy: new GuardPolicy({ lock: { serverName: "files", entry } }),
 *   mode: "enforce",
 *   log: new AuditLog("files", "enforce", openAuditSink("guard.jsonl")),
 *   serverName: "files",
 * });
 * Deno.exit(await runStdioGuard({ command: ["node", "server.js"], core, serverName: "files" }));
 * ```
 *
 * @module
 */

export {
  type AuditDecision,
  type AuditEntry,
  AuditLog,
  type AuditSink,
  openAuditSink,
} from "./lib/guard/audit.ts";
export {
  type GuardMode,
  GuardPolicy,
  type GuardPolicyOptions,
  type LockPolicy,
  type SeenTools,
  type ToolProblem,
  type ToolVerdict,
} from "./lib/guard/policy.ts";
export {
  type ClientDecision,
  type ClientProtocol,
  type FetchedTools,
  type FetchTools,
  GUARD_REFUSED,
  GUARD_SERVER_FAILED,
  GuardCore,
  type GuardCoreOptions,
  type GuardListing,
  GuardSession,
  type PendingRequest,
  type PendingRequests,
  type ServerDecision,
} from "./lib/guard/core.ts";
export { runStdioGuard, type StdioGuardOptions } from "./lib/guard/stdio.ts";
export type { PendingSurfaceList, SurfaceListing } from "./lib/guard/surface.ts";
export { type HttpGuard, type HttpGuardOptions, startHttpGuard } from "./lib/guard/http.ts";
export {
  DOMAIN_META_KEY,
  MANIFEST_META_KEY,
  readToolSignature,
  SIGNATURE_META_KEY,
  type SignedToolList,
  signToolList,
  type SignToolListOptions,
  signToolListWithSigner,
  SnapshotPinStore,
  type ToolSignatureCheck,
  type ToolSignatureEntry,
  type ToolSignatureField,
  type ToolSignatureManifest,
  type ToolTrust,
  verifyToolSignature,
} from "./lib/guard/signatures.ts";
export type { BeforePinHook, OfflineVerificationResult } from "./lib/schema/flow.ts";
