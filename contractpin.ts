/**
 * contractpin — pin the contracts of MCP tools (the description, schemas and annotations a
 * model reads) in `contractpin.lock`, and verify live servers against it
 * (`specs/contractpin-spec.md`).
 *
 * - §2 contract projection: {@linkcode projectContract}
 * - §3 canonical JSON (RFC 8785 JCS): {@linkcode canonicalizeJcs}
 * - §3–§4 digests: {@linkcode toolDigest}, {@linkcode fieldDigests}, {@linkcode serverDigest},
 *   {@linkcode digestToolList}
 * - §5 lock file: {@linkcode parseLock}, {@linkcode serializeLock}, {@linkcode buildLock}
 * - signed locks (a SchemaPin 1.4 signature in `contractpin.lock.sig`): {@linkcode signLock},
 *   {@linkcode verifyLockSignature}, {@linkcode lockHash}
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
 * import { formatHuman, parseLock, verifyLock } from "jsr:@schemapin/schemapin/contractpin";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const report = await verifyLock({ lock, lockPath: "contractpin.lock" });
 * console.log(formatHuman(report));
 * Deno.exit(report.exit_code); // §6: 0 match, 1 drift or unreachable
 * ```
 *
 * @module
 */

export {
  canonicalizeJcs,
  canonicalizeJcsBytes,
  CONTRACTPIN_CANONICAL_JSON_1,
} from "./lib/json/canonical_jcs.ts";
export { CONTRACT_FIELDS, projectContract } from "./lib/contractpin/contract.ts";
export {
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
  LOCK_ALGORITHM,
  LOCK_VERSION,
  type LockServer,
  type LockSurface,
  type LockSurfaceItem,
  type LockSurfaceKind,
  type LockTool,
  parseLock,
  serializeLock,
  type ServerIdentity,
  type TransportKind,
} from "./lib/contractpin/lock.ts";
export {
  compareTools,
  type DriftedTool,
  type Notice,
  type SurfaceMember,
  type ToolComparison,
  type ToolDiff,
} from "./lib/contractpin/verify.ts";
export {
  contractDiff,
  type ContractSnapshot,
  parseSnapshot,
  serializeSnapshot,
  snapshotServer,
  type SnapshotTool,
} from "./lib/contractpin/snapshot.ts";
export {
  type FileFinding,
  type Finding,
  formatGithub,
  formatHuman,
  formatSarif,
  type ServerReport,
  type ServerStatus,
  type SurfaceKindReport,
  type SurfaceReport,
  VERIFY_REPORT_FORMAT,
  type VerifyReport,
} from "./lib/contractpin/report.ts";
export {
  type LiveResult,
  type PinOutcome,
  pinServers,
  type RunOptions,
  verifyLock,
  type VerifyRequest,
} from "./lib/contractpin/run.ts";
export type { ServerTarget } from "./lib/contractpin/live.ts";
export type { EnvLookup, HeaderTemplate, SecretWarning } from "./lib/contractpin/secrets.ts";
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
export { ServerFailure, type ServerFailureKind } from "./lib/mcp/errors.ts";
export {
  type ListOptions,
  listTools,
  type McpTransport,
  type ProtocolEra,
  type RequestOptions,
  type ToolListing,
} from "./lib/mcp/session.ts";
export { spawnStdio, type StdioOptions, StdioTransport } from "./lib/mcp/stdio.ts";
export { connectHttp, type HttpOptions, HttpTransport } from "./lib/mcp/http.ts";
export { readToolsDump } from "./lib/mcp/file.ts";
export {
  type DigestedSurface,
  type DigestedSurfaceItem,
  type DigestedSurfaceList,
  digestSurfaceList,
  instructionsDigest,
  type ItemKind,
  type PinnedProtocol,
  type SurfaceKind,
} from "./lib/contractpin/surface.ts";
export type { JsonObject, JsonValue } from "./lib/json/types.ts";
export {
  type ErrorCode,
  type ErrorDetails,
  isSchemaPinError,
  SchemaPinError,
} from "./lib/errors.ts";
export {
  describeHiddenText,
  findHiddenText,
  findToolsHiddenText,
  type HiddenTextFinding,
  type HiddenTextKind,
  type ToolHiddenTextFinding,
} from "./lib/contractpin/hidden_text.ts";
export {
  LOCK_SIGNATURE_TOOL_ID,
  lockHash,
  type LockSignatureResult,
  type LockSignOptions,
  signLock,
  signLockWithSigner,
  verifyLockSignature,
  type VerifyLockSignatureOptions,
} from "./lib/contractpin/lock_signature.ts";
