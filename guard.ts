/**
 * The live guard between an MCP client and server, and tool signatures in `_meta`: the guard
 * lists the server's tools itself, checks each against a `contractpin.lock` entry and/or a
 * SchemaPin signature the tool carries, and — by mode — refuses the list (`enforce`), removes
 * the failing tools (`filter`) or only records them (`audit`), and refuses calls to tools that
 * did not pass. Transports: stdio (the guard spawns the server) and Streamable HTTP (the guard
 * is a local endpoint in front of the upstream URL). Every decision goes to an audit log.
 *
 * Tool signatures are SchemaPin 1.4 signature documents over each tool's contract in
 * `_meta["dev.schemapin/signature"]` (what `schemapin sign-tools` writes); the guard checks
 * them with the trust inputs of {@linkcode ToolTrust}.
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

// Run a guard: what it checks (a lock entry, tool signatures), what it does (the mode), where
// it records (the audit log), and the two transports
export {
  type GuardMode,
  GuardPolicy,
  type GuardPolicyOptions,
  type LockPolicy,
} from "./lib/guard/policy.ts";
export { GuardCore, type GuardCoreOptions } from "./lib/guard/core.ts";
export { AuditLog, type AuditSink, openAuditSink } from "./lib/guard/audit.ts";
export { runStdioGuard, type StdioGuardOptions } from "./lib/guard/stdio.ts";
export { type HttpGuard, type HttpGuardOptions, startHttpGuard } from "./lib/guard/http.ts";

// What tool signatures in `_meta` are checked with (`GuardPolicyOptions.signatures`)
export type { ToolTrust } from "./lib/guard/signatures.ts";
