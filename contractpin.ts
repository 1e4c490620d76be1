/**
 * contractpin — pin the contracts of MCP tools (the description, schemas and annotations a
 * model reads) in `contractpin.lock`, and verify live servers against it
 * (`specs/contractpin-spec.md`).
 *
 * - §2 contract projection: {@linkcode projectContract}
 * - §3–§4 digests: {@linkcode toolDigest}, {@linkcode fieldDigests}, {@linkcode serverDigest},
 *   {@linkcode digestToolList}
 * - §5 lock file: {@linkcode parseLock}, {@linkcode serializeLock}, {@linkcode buildLock}
 * - §6 verification: {@linkcode compareTools}, and over live servers {@linkcode pinServers} /
 *   {@linkcode verifyLock} (report formats: {@linkcode formatHuman}, {@linkcode formatSarif},
 *   {@linkcode formatGithub})
 * - a small strict MCP client: {@linkcode spawnStdio}, {@linkcode connectHttp},
 *   {@linkcode readToolsDump}, {@linkcode listTools}
 * - MCP client configs (JSONC, each client's variable forms): {@linkcode parseMcpConfig},
 *   {@linkcode parseClientConfig}, and where each client keeps them:
 *   {@linkcode clientConfigLocations}
 *
 * @example Digest a saved tools/list result
 * ```ts
 * import { digestToolList } from "@schemapin/schemapin/contractpin";
 * const list = digestToolList([{ name: "echo", description: "Echo back", inputSchema: { type: "object" } }]);
 * console.log(list.digest, list.tools.get("echo")?.digest);
 * ```
 *
 * @example Verify a lock against live servers
 * ```ts ignore
 * import { parseLock, verifyLock, formatHuman } from "@schemapin/schemapin/contractpin";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const report = await verifyLock({ lock, lockPath: "contractpin.lock" });
 * console.log(formatHuman(report));
 * Deno.exit(report.exit_code); // §6: 0 match, 1 drift or unreachable
 * ```
 *
 * @module
 */

export {
  CONTRACT_FIELDS,
  OPTIONAL_CONTRACT_FIELDS,
  projectContract,
  REQUIRED_CONTRACT_FIELDS,
} from "./lib/contractpin/contract.ts";
export {
  DIGEST_PATTERN,
  type DigestedTool,
  type DigestedToolList,
  digestJson,
  digestToolList,
  fieldDigests,
  serverDigest,
  toolDigest,
} from "./lib/contractpin/digest.ts";
export {
  buildLock,
  type ContractLock,
  DEFAULT_LOCK_FILE,
  formatGeneratedAt,
  identityOf,
  LOCK_ALGORITHM,
  LOCK_VERSION,
  type LockServer,
  lockServerEntry,
  type LockTool,
  parseLock,
  recomputeServerDigest,
  serializeLock,
  type ServerIdentity,
  type TransportKind,
} from "./lib/contractpin/lock.ts";
export {
  compareTools,
  displayNotices,
  type DriftedTool,
  LONG_META_TEXT,
  metaTextNotices,
  type Notice,
  sameIdentity,
  serverPasses,
  type ToolComparison,
  type ToolDiff,
} from "./lib/contractpin/verify.ts";
export {
  contractDiff,
  type ContractSnapshot,
  defaultSnapshotPath,
  parseSnapshot,
  renderContract,
  serializeSnapshot,
  SNAPSHOT_VERSION,
  snapshotServer,
  type SnapshotTool,
} from "./lib/contractpin/snapshot.ts";
export { type DiffLine, diffLines, unifiedDiff } from "./lib/contractpin/diff.ts";
export {
  type Finding,
  findings,
  finishReport,
  formatGithub,
  formatHuman,
  formatSarif,
  type ServerReport,
  type ServerStatus,
  VERIFY_REPORT_FORMAT,
  type VerifyReport,
} from "./lib/contractpin/report.ts";
export {
  DEFAULT_CONCURRENCY,
  fetchLive,
  type LiveResult,
  type PinOutcome,
  pinServers,
  type RunOptions,
  verifyLock,
  type VerifyRequest,
} from "./lib/contractpin/run.ts";
export {
  enumerateTarget,
  type PreparedTarget,
  prepareTarget,
  type ServerTarget,
} from "./lib/contractpin/live.ts";
export {
  type ConfigContext,
  type ConfigEntry,
  parseClientConfig,
  parseMcpConfig,
} from "./lib/contractpin/config.ts";
export {
  type ClientConfigLocation,
  clientConfigLocations,
  type DiscoveryEnvironment,
  type McpClient,
} from "./lib/contractpin/discover.ts";
export {
  type EnvLookup,
  expandVariables,
  findSecretArguments,
  type HeaderTemplate,
  parseHeader,
  redactCommand,
  sanitizeEnv,
  sanitizeIdentity,
  sanitizeUrl,
  type SecretArgument,
  type SecretWarning,
} from "./lib/contractpin/secrets.ts";
export { ServerFailure, type ServerFailureKind } from "./lib/contractpin/mcp/errors.ts";
export {
  CLIENT_PROTOCOL_VERSION,
  collectPages,
  DEFAULT_MAX_PAGES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
  type ListOptions,
  listTools,
  type McpTransport,
  type ToolListing,
} from "./lib/contractpin/mcp/session.ts";
export { spawnStdio, type StdioOptions, StdioTransport } from "./lib/contractpin/mcp/stdio.ts";
export { connectHttp, type HttpOptions, HttpTransport } from "./lib/contractpin/mcp/http.ts";
export { listingFromDump, readToolsDump } from "./lib/contractpin/mcp/file.ts";
export type { JsonObject, JsonValue } from "./lib/json/types.ts";
export { type ErrorCode, type ErrorDetails, SchemaPinError } from "./lib/errors.ts";
