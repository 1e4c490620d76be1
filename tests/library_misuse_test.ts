// Library misuse (issue 15 item 7): a caller passing undefined, null, a number or a string
// where an object, bytes or a key is expected gets a SchemaPinError INPUT_INVALID naming the
// function and the argument, never a raw TypeError from deep inside. A table calls each
// export with a bad argument (the others valid, so the check of that argument is what
// answers); a sweep calls every function and class exported by the entry points (deno.json
// "exports") — and the functions they exported before issues 16 and 25, internal now — with
// nothing, undefined, null, a number and an empty object.
import assert from "node:assert/strict";
import * as root from "../mod.ts";
import * as schema from "../schema.ts";
import * as skill from "../skill.ts";
import * as discovery from "../discovery.ts";
import * as pins from "../pins.ts";
import * as keys from "../keys.ts";
import * as bundle from "../bundle.ts";
import * as contractpin from "../contractpin.ts";
import * as guard from "../guard.ts";
import * as a2a from "../a2a.ts";
import {
  addAuthorityIfAbsent,
  defaultBundleAuthorityStorePath,
  makeAuthorityRecord,
  removeBundleAuthority,
  seedBundleAuthorityFromPem,
} from "../lib/bundle/authority.ts";
import {
  addDiscoveryToBundle,
  addRevocationToBundle,
  checkKid,
  createTrustBundle,
  findInTrustBundle,
  isSignedTrustBundle,
  parseTrustBundle,
  parseTrustBundleFields,
  trustBundleSigningInput,
} from "../lib/bundle/bundle.ts";
import { diffLines, unifiedDiff } from "../lib/contractpin/diff.ts";
import { prepareTarget } from "../lib/contractpin/live.ts";
import {
  buildLock,
  formatGeneratedAt,
  identityOf,
  lockServerEntry,
  recomputeServerDigest,
  serializeLock,
} from "../lib/contractpin/lock.ts";
import { finishReport } from "../lib/contractpin/report.ts";
import { findings } from "../cli/contractpin/report_findings.ts";
import { formatGithub } from "../cli/contractpin/report_github.ts";
import { formatHuman } from "../cli/contractpin/report_human.ts";
import { formatSarif } from "../cli/contractpin/report_sarif.ts";
import {
  expandVariables,
  findSecretArguments,
  redactCommand,
  sanitizeEnv,
  sanitizeIdentity,
  sanitizeUrl,
} from "../lib/contractpin/secrets.ts";
import { parseHeader } from "../cli/mcp/header_option.ts";
import {
  contractDiff,
  defaultSnapshotPath,
  parseSnapshot,
  renderContract,
  serializeSnapshot,
  snapshotServer,
} from "../lib/contractpin/snapshot.ts";
import {
  compareTools,
  displayNotices,
  metaTextNotices,
  sameIdentity,
  serverPasses,
} from "../lib/contractpin/verify.ts";
import { collectPages, listTools } from "../lib/mcp/session.ts";
import { listingFromDump, readToolsDump } from "../lib/mcp/file.ts";
import { decodeBase64Strict, encodeBase64 } from "../lib/crypto/base64.ts";
import { sha256, sha256Hex } from "../lib/crypto/hash.ts";
import { checkFetchUrl, fetchHttpsJson } from "../lib/discovery/http.ts";
import { lookupTxt, parseDnsServer } from "../lib/dns/resolve.ts";
import {
  checkDnsKid,
  dnsLookupName,
  formatDnsTxtRecord,
  isSchemapinRecord,
  parseDnsTxtRecord,
  selectDnsTxtRecord,
} from "../lib/dns/txt.ts";
import { formatAuditEntry } from "../lib/guard/audit.ts";
import { errorResponse, GuardSession, idKey } from "../lib/guard/core.ts";
import { isLoopbackHost } from "../lib/guard/http_headers.ts";
import { describeProblems } from "../lib/guard/policy.ts";
import { parseJsonText } from "../lib/json/parse.ts";
import {
  addRevokedKey,
  buildRevocationDocument,
  checkRevocation,
  findRevokedKey,
  isRevocationReason,
  isRevokedInList,
  parseRevocationDocument,
} from "../lib/revocation/document.ts";
import {
  parseSchemaSignatureDocument,
  schemaHash,
  schemaSignatureSigningInput,
  signSchemaBase64,
} from "../lib/schema/document.ts";
import { dnsBeforePinHook, verifySchemaWithResolver } from "../lib/schema/resolver_verify.ts";
import { clearSignatureCheckCache } from "../lib/schema/verify.ts";
import {
  parseSkillSignatureDocument,
  signSkillDocument,
  skillAlgorithmFor,
  skillSigningInput,
} from "../lib/skill/document.ts";
import { skillNameFromFrontMatter } from "../lib/skill/front_matter.ts";
import { checkSkillPath, hashSkillDir, hashSkillFiles } from "../lib/skill/hash.ts";
import { readSkillName } from "../lib/skill/sign.ts";
import { verifySkillOfflineWithHook } from "../lib/skill/verify.ts";
import { walkSkillDir } from "../lib/skill/walk.ts";
import { fetchLive, pinServers } from "../lib/contractpin/run.ts";
import { formatRfc3339, parseDuration, parseRfc3339 } from "../lib/time/rfc3339.ts";
import { allows, intersect, isUnrestricted, verifySchemaForA2a } from "../lib/a2a/context.ts";
import {
  buildTrustBundleErrorResponse,
  buildTrustBundleRequest,
  buildTrustBundleResponse,
  parseTrustBundleRequest,
  parseTrustBundleResponse,
} from "../lib/bundle/jsonrpc.ts";
import { mergeTrustBundles } from "../lib/bundle/merge.ts";
import { loadTrustBundle } from "../lib/bundle/resolver.ts";
import { signTrustBundle } from "../lib/bundle/sign.ts";
import { parseClientConfig, parseMcpConfig } from "../cli/mcp_config/read.ts";
import { projectContract } from "../lib/contractpin/contract.ts";
import { digestJson, fieldDigests, serverDigest, toolDigest } from "../lib/contractpin/digest.ts";
import { clientConfigLocations } from "../cli/mcp_config/formats.ts";
import {
  describeHiddenText,
  findHiddenText,
  findToolsHiddenText,
} from "../lib/contractpin/hidden_text.ts";
import { lockHash, signLock, verifyLockSignature } from "../cli/contractpin/lock_signature.ts";
import { digestSurfaceList, instructionsDigest } from "../lib/contractpin/surface.ts";
import {
  derToP1363,
  p1363ToDer,
  signDocument,
  verifyDocumentSignature,
} from "../lib/crypto/ecdsa.ts";
import {
  encryptedPrivateKeyParameters,
  isEncryptedPrivateKeyPem,
} from "../lib/crypto/encrypted_key.ts";
import {
  fingerprintPublicKey,
  privateKeyFromPkcs8Der,
  privateKeyToPkcs8Der,
  publicKeyFromDer,
} from "../lib/crypto/keys.ts";
import { loadDiscoveryKey, parseDiscoveryDocument } from "../lib/discovery/document.ts";
import { ChainResolver, LocalFileResolver } from "../lib/discovery/resolvers.ts";
import { wellKnownUrl } from "../lib/discovery/well_known.ts";
import { crossCheckDnsTxt, lookupDnsTxt } from "../lib/dns/check.ts";
import { checkDomain, validateDomain } from "../lib/dns/domain.ts";
import { readToolSignature, signToolList, verifyToolSignature } from "../lib/guard/signatures.ts";
import { canonicalizeJcs, canonicalizeJcsBytes } from "../lib/json/canonical_jcs.ts";
import { canonicalizeSchemapinV1 } from "../lib/json/canonical_schemapin.ts";
import { ServerFailure } from "../lib/mcp/errors.ts";
import { connectHttp, HttpTransport } from "../lib/mcp/http.ts";
import { spawnStdio, StdioTransport } from "../lib/mcp/stdio.ts";
import { defaultLineageStorePath, LineageStore } from "../lib/pins/lineage.ts";
import { compareVersions, verifyChain } from "../lib/pins/chain.ts";
import { addPinIfAbsent, defaultPinStorePath, parsePinKey, pinKey } from "../lib/pins/store.ts";
import { importPins } from "../cli/pins/pin_export.ts";
import { compareManifests } from "../lib/skill/manifest.ts";
import { isSchemaPinError, SchemaPinError } from "../lib/errors.ts";
import {
  argumentError,
  checkArg,
  checkKeyArg,
  checkMethods,
  describeValue,
} from "../lib/arguments.ts";

/** The entry points (deno.json "exports"). */
const ENTRIES = { root, schema, skill, discovery, pins, keys, bundle, contractpin, guard, a2a };

/** Functions mod.ts or contractpin.ts exported before the split (issue 16), internal now. */
const FORMERLY_PUBLIC = {
  addAuthorityIfAbsent,
  checkDnsKid,
  checkFetchUrl,
  checkKid,
  checkSkillPath,
  clearSignatureCheckCache,
  collectPages,
  decodeBase64Strict,
  defaultSnapshotPath,
  describeProblems,
  diffLines,
  displayNotices,
  dnsBeforePinHook,
  encodeBase64,
  errorResponse,
  expandVariables,
  fetchHttpsJson,
  fetchLive,
  findings,
  findRevokedKey,
  findSecretArguments,
  finishReport,
  formatAuditEntry,
  formatGeneratedAt,
  formatRfc3339,
  identityOf,
  idKey,
  isLoopbackHost,
  isRevocationReason,
  isRevokedInList,
  isSchemapinRecord,
  listingFromDump,
  lockServerEntry,
  lookupTxt,
  makeAuthorityRecord,
  metaTextNotices,
  parseDnsServer,
  parseDuration,
  parseHeader,
  parseJsonText,
  parseRfc3339,
  parseTrustBundleFields,
  prepareTarget,
  readSkillName,
  recomputeServerDigest,
  redactCommand,
  renderContract,
  sameIdentity,
  sanitizeEnv,
  sanitizeIdentity,
  sanitizeUrl,
  selectDnsTxtRecord,
  serverPasses,
  sha256,
  sha256Hex,
  signSchemaBase64,
  skillAlgorithmFor,
  skillNameFromFrontMatter,
  unifiedDiff,
  verifySkillOfflineWithHook,
  walkSkillDir,
};

/**
 * Functions and classes the entry points exported in 0.1 and no longer do (issue 25 item 5,
 * docs/migration-0.2.md): still swept, as internals now.
 */
const REMOVED_IN_0_2 = {
  addDiscoveryToBundle,
  addPinIfAbsent,
  addRevocationToBundle,
  addRevokedKey,
  allows,
  buildLock,
  buildRevocationDocument,
  buildTrustBundleErrorResponse,
  buildTrustBundleRequest,
  buildTrustBundleResponse,
  canonicalizeJcs,
  canonicalizeJcsBytes,
  canonicalizeSchemapinV1,
  ChainResolver,
  checkDomain,
  checkRevocation,
  clientConfigLocations,
  compareManifests,
  compareTools,
  compareVersions,
  connectHttp,
  contractDiff,
  createTrustBundle,
  crossCheckDnsTxt,
  defaultBundleAuthorityStorePath,
  defaultLineageStorePath,
  defaultPinStorePath,
  derToP1363,
  describeHiddenText,
  digestJson,
  digestSurfaceList,
  dnsLookupName,
  encryptedPrivateKeyParameters,
  fieldDigests,
  findHiddenText,
  findInTrustBundle,
  findToolsHiddenText,
  fingerprintPublicKey,
  formatDnsTxtRecord,
  formatGithub,
  formatHuman,
  formatSarif,
  GuardSession,
  hashSkillDir,
  hashSkillFiles,
  HttpTransport,
  importPins,
  instructionsDigest,
  intersect,
  isEncryptedPrivateKeyPem,
  isSchemaPinError,
  isSignedTrustBundle,
  isUnrestricted,
  LineageStore,
  listTools,
  loadDiscoveryKey,
  loadTrustBundle,
  LocalFileResolver,
  lockHash,
  lookupDnsTxt,
  mergeTrustBundles,
  p1363ToDer,
  parseClientConfig,
  parseDiscoveryDocument,
  parseDnsTxtRecord,
  parseMcpConfig,
  parsePinKey,
  parseRevocationDocument,
  parseSchemaSignatureDocument,
  parseSkillSignatureDocument,
  parseSnapshot,
  parseTrustBundle,
  parseTrustBundleRequest,
  parseTrustBundleResponse,
  pinKey,
  pinServers,
  privateKeyFromPkcs8Der,
  privateKeyToPkcs8Der,
  projectContract,
  publicKeyFromDer,
  readToolsDump,
  readToolSignature,
  removeBundleAuthority,
  schemaHash,
  schemaSignatureSigningInput,
  seedBundleAuthorityFromPem,
  serializeLock,
  serializeSnapshot,
  serverDigest,
  ServerFailure,
  signDocument,
  signLock,
  signSkillDocument,
  signToolList,
  signTrustBundle,
  skillSigningInput,
  snapshotServer,
  spawnStdio,
  StdioTransport,
  toolDigest,
  trustBundleSigningInput,
  validateDomain,
  verifyChain,
  verifyDocumentSignature,
  verifyLockSignature,
  verifySchemaForA2a,
  verifySchemaWithResolver,
  verifyToolSignature,
  wellKnownUrl,
};

const mod = {
  ...root,
  ...schema,
  ...skill,
  ...discovery,
  ...pins,
  ...keys,
  ...bundle,
  ...contractpin,
  ...guard,
  ...a2a,
  ...FORMERLY_PUBLIC,
  ...REMOVED_IN_0_2,
};

const sk = mod.generateKeyPair();
const pk = sk.publicKey;
const bytes = new TextEncoder().encode('{"a":1}');
const store = new mod.MemoryPinStore();

/** [call, function name, argument name as the message says it, what was passed]. */
type Row = [() => unknown, string, string, string];

const TABLE: Row[] = [
  // keys and signatures
  [() => mod.signSchema(bytes, undefined as never), "signSchema", "privateKey", "undefined"],
  [
    () => mod.signSchema(bytes, "-----BEGIN PRIVATE KEY-----" as never),
    "signSchema",
    "privateKey",
    "a string",
  ],
  [() => mod.signSchema(bytes, pk as never), "signSchema", "privateKey", "an object"], // public
  [() => mod.signSchema("text" as never, sk), "signSchema", "canonical", "a string"],
  [() => mod.signDocument(null as never, sk), "signDocument", "canonical", "null"],
  [
    () => mod.verifySchemaSignature(bytes, "AA==", sk as never),
    "verifySchemaSignature",
    "publicKey",
    "an object",
  ],
  [
    () => mod.verifySchemaSignature(bytes, 42 as never, pk),
    "verifySchemaSignature",
    "signature",
    "a number (42)",
  ],
  [
    () => mod.verifyDocumentSignature([1, 2] as never, "AA==", pk),
    "verifyDocumentSignature",
    "canonical",
    "an array",
  ],
  [
    () => mod.signSchemaBase64({ name: "t" }, undefined as never),
    "signSchemaBase64",
    "privateKey",
    "undefined",
  ],
  [
    () => mod.signSchemaDocument({ name: "t" }, sk, null as never),
    "signSchemaDocument",
    "options",
    "null",
  ],
  [() => mod.parsePublicKeyPem(undefined as never), "parsePublicKeyPem", "pem", "undefined"],
  [() => mod.parsePublicKeyPem(bytes as never), "parsePublicKeyPem", "pem", "a Uint8Array"],
  [() => mod.parsePrivateKeyPem(null as never), "parsePrivateKeyPem", "pem", "null"],
  [
    () => mod.parsePrivateKeyPem(mod.privateKeyToPem(sk), 7 as never),
    "parsePrivateKeyPem",
    "source",
    "a number (7)",
  ],
  [() => mod.publicKeyFromDer("MFkw" as never), "publicKeyFromDer", "spki", "a string"],
  [
    () => mod.privateKeyFromPkcs8Der(undefined as never),
    "privateKeyFromPkcs8Der",
    "der",
    "undefined",
  ],
  [() => mod.publicKeyToPem({} as never), "publicKeyToPem", "pk", "an object"],
  [() => mod.privateKeyToPem(pk as never), "privateKeyToPem", "sk", "an object"],
  [() => mod.privateKeyToPkcs8Der(undefined as never), "privateKeyToPkcs8Der", "sk", "undefined"],
  [() => mod.fingerprintPublicKey(42 as never), "fingerprintPublicKey", "key", "a number (42)"],
  [
    () => mod.encryptPrivateKeyPem(undefined as never, "pw"),
    "encryptPrivateKeyPem",
    "key",
    "undefined",
  ],
  [
    () => mod.encryptPrivateKeyPem(sk, 42 as never),
    "encryptPrivateKeyPem",
    "passphrase",
    "a number (42)",
  ],
  [
    () => mod.decryptPrivateKeyPem(mod.privateKeyToPem(sk), undefined as never),
    "decryptPrivateKeyPem",
    "passphrase",
    "undefined",
  ],
  [
    () => mod.encryptedPrivateKeyParameters(null as never),
    "encryptedPrivateKeyParameters",
    "pem",
    "null",
  ],
  [() => mod.derToP1363(undefined as never), "derToP1363", "der", "undefined"],
  [() => mod.p1363ToDer("ab" as never), "p1363ToDer", "raw", "a string"],
  [() => mod.sha256("abc" as never), "sha256", "bytes", "a string"],
  [() => mod.sha256Hex(null as never), "sha256Hex", "bytes", "null"],
  [() => mod.encodeBase64(undefined as never), "encodeBase64", "bytes", "undefined"],
  [() => mod.decodeBase64Strict(null as never, "signature"), "decodeBase64Strict", "text", "null"],
  // JSON and canonical forms
  [() => mod.parseJson(null as never), "parseJson", "bytes", "null"],
  [() => mod.parseJson('{"a":1}' as never), "parseJson", "bytes", "a string"],
  [() => mod.parseJsonText(bytes as never), "parseJsonText", "text", "a Uint8Array"],
  [() => mod.formatRfc3339("2026-01-01" as never), "formatRfc3339", "time", "a string"],
  // schema and skill flows
  [
    () => mod.verifySchemaOffline(undefined as never),
    "verifySchemaOffline",
    "options",
    "undefined",
  ],
  [
    () =>
      mod.verifySchemaOffline(
        {
          schema: {},
          signature: "AA==",
          toolId: "t",
          domain: "example.com",
          discovery: {},
          pinStore: {},
        } as never,
      ),
    "verifySchemaOffline",
    "options.pinStore",
    "an object",
  ],
  [
    () =>
      mod.verifySchemaOffline(
        {
          schema: {},
          signature: 5,
          toolId: "t",
          domain: "example.com",
          discovery: {},
          pinStore: store,
        } as never,
      ),
    "verifySchemaOffline",
    "options.signature",
    "a number (5)",
  ],
  [() => mod.verifySkillOffline(null as never), "verifySkillOffline", "options", "null"],
  [
    () =>
      mod.verifySkillOffline(
        { dir: 42, domain: "example.com", discovery: {}, pinStore: store } as never,
      ),
    "verifySkillOffline",
    "options.dir",
    "a number (42)",
  ],
  [() => mod.hashSkillDir(undefined as never), "hashSkillDir", "", "undefined"],
  [() => mod.hashSkillFiles(undefined as never), "hashSkillFiles", "files", "undefined"],
  [
    () => mod.signSkillDir("/nonexistent", undefined as never, {} as never),
    "signSkillDir",
    "privateKey",
    "undefined",
  ],
  [
    () => mod.signSkillDir("/nonexistent", sk, undefined as never),
    "signSkillDir",
    "options",
    "undefined",
  ],
  [
    () => mod.signSkillDocument(undefined as never, sk, {} as never),
    "signSkillDocument",
    "hash",
    "undefined",
  ],
  [() => mod.compareManifests({}, null as never), "compareManifests", "current", "null"],
  [
    () => mod.skillNameFromFrontMatter(undefined as never),
    "skillNameFromFrontMatter",
    "text",
    "undefined",
  ],
  [
    () => mod.formatSchemaSignatureDocument(undefined as never),
    "formatSchemaSignatureDocument",
    "document",
    "undefined",
  ],
  [() => mod.skillSigningInput(null as never), "skillSigningInput", "document", "null"],
  [
    () => mod.verifySchemaWithResolver({ pinStore: store } as never),
    "verifySchemaWithResolver",
    "options.resolver",
    "undefined",
  ],
  // pins and stores
  [() => new mod.MemoryPinStore(null as never), "MemoryPinStore", "records", "null"],
  [() => new mod.FilePinStore(42 as never), "FilePinStore", "", "a number"],
  [() => new mod.LineageStore(null as never), "LineageStore", "options", "null"],
  [
    () => mod.addPinIfAbsent(undefined as never, {} as never),
    "addPinIfAbsent",
    "store",
    "undefined",
  ],
  [() => mod.addPinIfAbsent(store, null as never), "addPinIfAbsent", "record", "null"],
  [() => mod.removePin({} as never, "t", "example.com"), "removePin", "store", "an object"],
  [() => mod.importPins(store, "[]" as never), "importPins", "records", "a string"],
  [() => mod.pinKey(undefined as never, "example.com"), "pinKey", "toolId", "undefined"],
  [() => mod.parsePinKey(42 as never), "parsePinKey", "key", "a number (42)"],
  [() => mod.compareVersions("1.0", undefined as never), "compareVersions", "b", "undefined"],
  [() => mod.verifyChain(undefined as never, {} as never), "verifyChain", "current", "undefined"],
  // discovery, revocation, DNS, A2A
  [
    () => mod.buildDiscoveryDocument(undefined as never),
    "buildDiscoveryDocument",
    "options",
    "undefined",
  ],
  [() => mod.loadDiscoveryKey(null as never), "loadDiscoveryKey", "document", "null"],
  [
    () => mod.findRevokedKey(undefined as never, "sha256:00"),
    "findRevokedKey",
    "document",
    "undefined",
  ],
  [
    () => mod.checkRevocation(42 as never, undefined),
    "checkRevocation",
    "fingerprint",
    "a number (42)",
  ],
  [() => mod.parseDnsTxtRecord(undefined as never), "parseDnsTxtRecord", "text", "undefined"],
  [
    () => mod.selectDnsTxtRecord("v=schemapin1" as never),
    "selectDnsTxtRecord",
    "records",
    "a string",
  ],
  [() => mod.parseDnsServer(53 as never), "parseDnsServer", "text", "a number (53)"],
  [
    () => mod.crossCheckDnsTxt(undefined as never, "sha256:00"),
    "crossCheckDnsTxt",
    "lookup",
    "undefined",
  ],
  [() => mod.lookupTxt(undefined as never), "lookupTxt", "name", "undefined"],
  [() => mod.dnsTxtResolver(null as never), "dnsTxtResolver", "options", "null"],
  [
    () => mod.verifySchemaOfflineWithDns(undefined as never),
    "verifySchemaOfflineWithDns",
    "options",
    "undefined",
  ],
  [
    () => mod.verifySchemaOfflineWithDns({} as never, { resolveTxt: "1.1.1.1" as never }),
    "verifySchemaOfflineWithDns",
    "dns.resolveTxt",
    "a string",
  ],
  [() => mod.allows("example.com" as never, "example.com"), "allows", "list", "a string"],
  [() => mod.intersect([], null as never), "intersect", "rhs", "null"],
  [
    () => mod.verifySchemaForA2a(undefined as never, {} as never),
    "verifySchemaForA2a",
    "context",
    "undefined",
  ],
  [() => new mod.WellKnownResolver(null as never), "WellKnownResolver", "options", "null"],
  [() => mod.checkFetchUrl(undefined as never), "checkFetchUrl", "url", "undefined"],
  // bundles
  [
    () => mod.addDiscoveryToBundle(undefined as never, "example.com", {}),
    "addDiscoveryToBundle",
    "bundle",
    "undefined",
  ],
  [() => mod.createTrustBundle(null as never), "createTrustBundle", "createdAt", "null"],
  [
    () => mod.trustBundleSigningInput({} as never),
    "trustBundleSigningInput",
    "bundle.documents",
    "undefined",
  ],
  [
    () => mod.addAuthorityIfAbsent(undefined as never, {} as never),
    "addAuthorityIfAbsent",
    "store",
    "undefined",
  ],
  [
    () => new mod.MemoryBundleAuthorityStore(null as never),
    "MemoryBundleAuthorityStore",
    "records",
    "null",
  ],
  [
    () => Reflect.construct(mod.TrustBundleResolver, [undefined]),
    "TrustBundleResolver",
    "bundle",
    "undefined",
  ],
  // contractpin (also through the ./contractpin entry point)
  [() => contractpin.digestToolList(undefined as never), "digestToolList", "tools", "undefined"],
  [
    () => contractpin.digestToolList({ tools: [] } as never),
    "digestToolList",
    "tools",
    "an object",
  ],
  [() => mod.serverDigest([] as never), "serverDigest", "toolDigests", "an array"],
  [() => contractpin.parseLock("{}" as never), "parseLock", "bytes", "a string"],
  [() => mod.serializeLock(undefined as never), "serializeLock", "lock", "undefined"],
  [() => contractpin.verifyLock(undefined as never), "verifyLock", "request", "undefined"],
  [() => mod.pinServers(null as never), "pinServers", "targets", "null"],
  [() => mod.buildLock(undefined as never), "buildLock", "servers", "undefined"],
  [() => mod.fieldDigests(null as never), "fieldDigests", "contract", "null"],
  [
    () => mod.compareTools({ tools: {} } as never, { tools: [] } as never),
    "compareTools",
    "live.tools",
    "an array",
  ],
  [
    () => mod.parseMcpConfig(undefined as never, "mcp.json"),
    "parseMcpConfig",
    "bytes",
    "undefined",
  ],
  [
    () => mod.parseSnapshot(bytes, undefined as never),
    "parseSnapshot",
    "source",
    "undefined",
  ],
  [
    () => mod.formatSarif({} as never, "", "1"),
    "formatSarif",
    "report.servers",
    "undefined",
  ],
  [() => mod.redactCommand("npx server" as never), "redactCommand", "command", "a string"],
  [
    () => mod.expandVariables("${A}", undefined as never, "env"),
    "expandVariables",
    "env",
    "undefined",
  ],
  [
    () => mod.unifiedDiff([], [], "a", undefined as never),
    "unifiedDiff",
    "toLabel",
    "undefined",
  ],
  [
    () => mod.spawnStdio({ command: "npx" } as never),
    "spawnStdio",
    "options.command",
    "a string",
  ],
  [() => mod.connectHttp({} as never), "connectHttp", "options.url", "undefined"],
  [() => mod.listTools(undefined as never), "listTools", "transport", "undefined"],
  [() => mod.readToolsDump(undefined as never), "readToolsDump", "path", "undefined"],
  // guard
  [() => new mod.GuardPolicy(undefined as never), "GuardPolicy", "options", "undefined"],
  [() => new mod.GuardCore(null as never), "GuardCore", "options", "null"],
  [() => new mod.AuditLog("srv", "enforce", "log.txt" as never), "AuditLog", "sink", "a string"],
  [() => mod.openAuditSink(42 as never), "openAuditSink", "path", "a number (42)"],
  [
    () => mod.runStdioGuard({ command: ["x"] } as never),
    "runStdioGuard",
    "options.core",
    "undefined",
  ],
  [
    () => mod.verifyToolSignature(undefined as never, {} as never),
    "verifyToolSignature",
    "tool",
    "undefined",
  ],
];

/** Runs `call` (sync or async) and returns what it threw. */
async function thrown(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (e) {
    return e;
  }
  return undefined;
}

Deno.test("library misuse: SchemaPinError INPUT_INVALID naming the function and the argument", async () => {
  assert.ok(TABLE.length >= 100, `only ${TABLE.length} rows`);
  for (const [call, fn, name, got] of TABLE) {
    const e = await thrown(call);
    const where = `${fn}(${name})`;
    assert.ok(e instanceof SchemaPinError, `${where}: threw ${e}`);
    assert.equal(e.code, "INPUT_INVALID", `${where}: ${e.message}`);
    assert.ok(e.message.startsWith(`${fn}: `) || e.message.includes(fn) || name === "", where);
    if (name !== "") {
      assert.ok(e.message.startsWith(`${fn}: ${name} must be `), `${where}: ${e.message}`);
      assert.ok(e.message.endsWith(`got ${got}`), `${where}: ${e.message}`);
      assert.deepEqual(e.details, { function: fn, argument: name }, where);
    }
  }
});

/** Every function and class exported by the two entry points, by name. */
function exportedFunctions(): [string, (...args: unknown[]) => unknown][] {
  const all: Record<string, unknown> = mod;
  return Object.keys(all).sort().filter((k) => typeof all[k] === "function").map((k) => [
    k,
    all[k] as (...args: unknown[]) => unknown,
  ]);
}

/**
 * Exports that by design accept anything or nothing (predicates, canonicalizers of any JSON
 * value, error constructors, default paths, key generation): they return a value for every
 * input of the sweep. Others must throw SchemaPinError for at least the undefined input.
 */
const ANY_INPUT = new Set([
  "SchemaPinError",
  "ServerFailure",
  "isSchemaPinError",
  "checkDomain",
  "checkKid",
  "checkSkillPath",
  "clearSignatureCheckCache",
  "defaultBundleAuthorityStorePath",
  "defaultLineageStorePath",
  "defaultPinStorePath",
  "generateKeyPair",
  "errorResponse",
  "idKey",
  "isEncryptedPrivateKeyPem",
  "isRevocationReason",
  "isSignedTrustBundle",
  "parseDuration",
  "parseRfc3339",
  "skillAlgorithmFor",
  "FilePinStore", // default path
  "FileBundleAuthorityStore", // default path
  "LineageStore", // default options
  "dnsTxtResolver", // default options: the name servers of /etc/resolv.conf
  "MemoryPinStore", // empty
  "MemoryBundleAuthorityStore", // empty
  "WellKnownResolver", // default options
  "createTrustBundle", // now
  "canonicalizeJcs",
  "canonicalizeJcsBytes",
  "canonicalizeSchemapinV1",
  "canonicalizeSchemapinV1Bytes",
  "digestJson",
  "schemaHash",
  "toolDigest",
  "openAuditSink", // stderr
  "GuardSession", // takes no arguments
]);

const SWEEP: [string, unknown[]][] = [
  ["no arguments", []],
  ["undefined", [undefined]],
  ["null", [null, null, null]],
  ["a number", [42, 42, 42]],
  ["an empty object", [{}, {}, {}]],
];

Deno.test("every export of every entry point: bad arguments never throw a raw error", async () => {
  const cwd = Deno.cwd();
  const dir = await Deno.makeTempDir({ prefix: "schemapin-misuse-" });
  Deno.chdir(dir); // nothing of the sweep may write, but if it did, not into the checkout
  try {
    const exports = exportedFunctions();
    const entryFunctions = Object.values(ENTRIES).flatMap((e) =>
      Object.values(e).filter((v) => typeof v === "function")
    );
    // The entry points export ~40 functions and classes since issue 25 (api/exported-names.txt);
    // the sweep covers them and the ~180 they exported before, internal now.
    assert.ok(
      new Set(entryFunctions).size >= 35,
      `only ${new Set(entryFunctions).size} functions`,
    );
    assert.ok(exports.length >= 200, `only ${exports.length} exports`);
    const raw: string[] = [];
    const silent: string[] = [];
    for (const [name, f] of exports) {
      const isClass = /^class[\s{]/.test(Function.prototype.toString.call(f));
      for (const [label, args] of SWEEP) {
        const e = await thrown(() => isClass ? Reflect.construct(f, args) : f(...args));
        if (e !== undefined && !(e instanceof SchemaPinError) && name !== "readToolsDump") {
          raw.push(`${name}(${label}): ${(e as Error)?.name}: ${(e as Error)?.message}`);
        }
        if (e === undefined && label === "undefined" && !ANY_INPUT.has(name)) {
          silent.push(name);
        }
      }
    }
    assert.deepEqual(raw, [], "raw errors:\n" + raw.join("\n"));
    assert.deepEqual(silent, [], "accepted undefined without a word:\n" + silent.join("\n"));
    assert.deepEqual([...Deno.readDirSync(dir)], [], "the sweep wrote files");
  } finally {
    Deno.chdir(cwd);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("describeValue and checkArg: the words of the messages", () => {
  assert.equal(describeValue(undefined), "undefined");
  assert.equal(describeValue(null), "null");
  assert.equal(describeValue(42), "a number (42)");
  assert.equal(describeValue("x"), "a string");
  assert.equal(describeValue([]), "an array");
  assert.equal(describeValue(new Uint8Array()), "a Uint8Array");
  assert.equal(describeValue(new Uint16Array()), "a Uint16Array");
  assert.equal(describeValue(new Date(0)), "a Date");
  assert.equal(describeValue(new Map()), "a Map");
  assert.equal(describeValue(() => 1), "a function");
  assert.equal(describeValue({}), "an object");
  assert.equal(describeValue(true), "a boolean (true)");
  assert.equal(describeValue(1n), "a bigint");
  // Accepted: nothing thrown.
  checkArg("f", "a", "x", "string");
  checkArg("f", "a", new Uint8Array(), "bytes");
  checkArg("f", "a", {}, "object");
  checkArg("f", "a", [], "array");
  checkArg("f", "a", new Set(), "iterable");
  checkArg("f", "a", undefined, "string", true);
  checkArg("f", "a", 1, ["string", "number"]);
  checkMethods("f", "s", { transact() {} }, ["transact"], "a PinStore");
  checkKeyArg("f", "k", sk, "private");
  checkKeyArg("f", "k", pk, "public");
  // Refused, with the expected words.
  const cases: [() => void, string][] = [
    [() => checkArg("f", "a", [], "object"), "f: a must be an object, got an array"],
    [() => checkArg("f", "a", null, "object"), "f: a must be an object, got null"],
    [() => checkArg("f", "a", "x", "bytes"), "f: a must be a Uint8Array, got a string"],
    [
      () => checkArg("f", "a", new Uint16Array(), "bytes"),
      "f: a must be a Uint8Array, got a Uint16Array",
    ],
    [
      () => checkArg("f", "a", null, "string", true),
      "f: a must be a string (or undefined), got null",
    ],
    [
      () => checkArg("f", "a", {}, ["string", "bytes", "number"]),
      "f: a must be a string, a Uint8Array or a number, got an object",
    ],
    [
      () => checkArg("f", "a", "x", "iterable"),
      "f: a must be an iterable (array, Set, Map keys …), got a string",
    ],
    [
      () => checkMethods("f", "s", { transact: 1 }, ["transact"], "a PinStore"),
      "f: s must be a PinStore (with transact()), got an object",
    ],
    [
      () => checkKeyArg("f", "k", pk, "private"),
      "f: k must be a private key (parsePrivateKeyPem, generateKeyPair), got an object",
    ],
    [
      () => checkKeyArg("f", "k", { spki: "MFkw" }, "public"),
      "f: k must be a public key (parsePublicKeyPem, publicKeyFromDer), got an object",
    ],
  ];
  for (const [call, message] of cases) {
    assert.throws(call, (e: unknown) => {
      assert.ok(e instanceof SchemaPinError);
      assert.equal(e.code, "INPUT_INVALID");
      assert.equal(e.message, message);
      return true;
    });
  }
  const e = argumentError("g", "b", "a thing", 1);
  assert.equal(e.message, "g: b must be a thing, got a number (1)");
  assert.deepEqual(e.details, { function: "g", argument: "b" });
});
