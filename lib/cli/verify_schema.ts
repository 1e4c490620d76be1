/**
 * `schemapin verify-schema`: verification of a tool schema signature (§15.1) against a
 * discovery document, a trust bundle, a resolver folder or `.well-known` over HTTPS (§14, a
 * chain when several are given), with TOFU pins, revocation, expiry and the optional DNS TXT
 * cross-check (§17) before any pin is written.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { JsonValue } from "../json/types.ts";
import { isJsonObject, ownField } from "../json/object.ts";
import { parseSchemaSignatureDocument } from "../schema/document.ts";
import { checkToolId, defaultPinStorePath, FilePinStore, pinKey } from "../pins/store.ts";
import { BatchPinStore } from "../pins/batch.ts";
import {
  acceptPrecheckedSignature,
  type SchemaVerificationResult,
  verifySchemaOfflineWithHook,
} from "../schema/verify.ts";
import type { PublicKey } from "../crypto/keys.ts";
import { loadDiscoveryKey, parseDiscoveryDocument } from "../discovery/document.ts";
import {
  BATCH_CHUNK,
  batchThreads,
  batchThreadsSetting,
  BatchWorkers,
  chunksAhead,
} from "./batch_pool.ts";
import type { DnsCrossCheck } from "../dns/check.ts";
import { type BeforePinHook, messageOf, settlePinConflict } from "../schema/flow.ts";
import {
  type CliIO,
  type Command,
  EXIT_OK,
  EXIT_USAGE,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import {
  batchFailure,
  developerNameJson,
  failureFields,
  jsonError,
  jsonOutput,
  type JsonOutputFields,
  verificationFields,
} from "./json_output.ts";
import {
  checkTrustFlags,
  confirmFirstUseWith,
  describeVerifyWarning,
  explicitKeyPinStore,
  failureHint,
  globToRegExp,
  joinPath,
  listBatch,
  loadTrustAndDnsHook,
  printVerifyNotes,
  readJsonFile,
  readSignatureFile,
  reportInputFailure,
  requireDomainFlag,
  resultExitCode,
  sourceName,
  type TrustInputs,
} from "./schema_inputs.ts";
import { exitCodeOfError } from "./exit_codes.ts";
import { describeFsError } from "./io.ts";
import { scanBase64 } from "../crypto/base64.ts";
import { decodeEcdsaDer } from "../crypto/der.ts";
import { count, type Progress, progressLine } from "./progress.ts";
import { type FlagTable, optionList } from "./flags.ts";
import {
  DNS_FLAGS,
  EXPIRY_FLAGS,
  jsonFlag,
  KEY_SOURCE_FLAGS,
  LINEAGE_FLAGS,
  NETWORK_TIMEOUT_FLAGS,
  PIN_FLAGS,
  QUIET_FLAGS,
  VERIFY_DOMAIN_FLAGS,
} from "./flag_groups.ts";
import { resolveSignedDomain, signedDocumentDomain } from "./signed_domain.ts";
import {
  advanceLineage,
  lineageBeforePinHook,
  type LineageReport,
} from "../schema/lineage_verify.ts";
import { lineageJson, lineageStoreFromFlags, printLineage } from "./lineage_store.ts";

const FLAGS = {
  signature: {
    type: "string",
    value: "FILE",
    help: "the signature: a file holding the bare Base64 signature or the 1.4 signature " +
      "document (- for stdin)",
  },
  "signature-base64": {
    type: "string",
    value: "B64",
    help: "the bare Base64 signature itself, inline (text that is not Base64, or names a " +
      "file, is a usage error, exit 2)",
  },
  ...VERIFY_DOMAIN_FLAGS,
  "tool-id": {
    type: "string",
    value: "ID",
    help: 'tool id for the pin (default: the schema\'s "name")',
  },
  ...KEY_SOURCE_FLAGS,
  ...NETWORK_TIMEOUT_FLAGS,
  ...DNS_FLAGS,
  ...PIN_FLAGS,
  ...LINEAGE_FLAGS,
  ...EXPIRY_FLAGS,
  batch: {
    type: "string",
    value: "DIR",
    help: "verify every file in DIR matching --pattern (default *.json), each against " +
      "SIGDIR/<name>.sig; needs --domain (one domain for the batch)",
  },
  pattern: { type: "string", value: "GLOB", help: "file-name pattern for --batch (* and ?)" },
  "signature-dir": {
    type: "string",
    value: "DIR",
    help: "where --batch finds <name>.sig (default: DIR)",
  },
  ...jsonFlag(
    "schemapin.verify-schema/1: ok, error, tool_id, key_pinning, …; batch: " +
      "schemapin.verify-schema.batch/1",
  ),
  quiet: {
    ...QUIET_FLAGS.quiet,
    help: "print only failures (and warnings) and the batch summary; no progress line",
  },
  // Old spelling, kept for one release (docs/cli-vocabulary.md).
  "signature-file": { type: "string", help: "", deprecated: "signature" },
} as const satisfies FlagTable;

const HELP = `schemapin verify-schema — verify a tool schema's signature

Usage:
  schemapin verify-schema SCHEMA.json|- (--signature FILE | --signature-base64 B64) [--domain D]
      [--tool-id ID] (--discovery FILE [--revocation FILE] | SOURCE…)
      [--dns [--dns-server IP[:PORT]]] [--pin-store FILE] [--trust-first-use]
      [--lineage | --lineage-store FILE]
      [--allow-expired] [--allow-missing-revocation] [--json] [-q]
  schemapin verify-schema SCHEMA.json|- (--signature FILE | --signature-base64 B64) [--domain D]
      [--tool-id ID] --public-key PUBLIC.pem [--revocation FILE]
      [--dns [--dns-server IP[:PORT]]] [--allow-expired] [--allow-missing-revocation]
      [--json] [-q]
  schemapin verify-schema --batch DIR [--pattern GLOB] [--signature-dir DIR] --domain D
      (--discovery FILE | SOURCE…) [options above]
  SOURCE: --bundle FILE | --resolver-dir DIR | --well-known [--ca-file FILE] [--timeout S]

Runs the seven steps of SchemaPin §15.1 in order: discovery document, key and fingerprint,
revocation (the discovery revoked_keys and the --revocation document: either revokes), the
pin of TOOL_ID@DOMAIN (read only), canonicalization, the signature, and — only after all of
that succeeded — pinning on first use. A failed verification never writes a pin.

The signature is a bare Base64 signature (v1.3) or a 1.4 schema signature document (JSON);
a document's canonicalization, schema_hash, domain and expires_at are checked (expiry fails
closed 300 s after expires_at). A 1.4 document that names its domain needs no --domain: that
domain is the pin key, selects the key and is reported; a --domain that differs from it is a
usage error (exit 2). A bare Base64 signature, or a document without a domain, needs
--domain D. --signature-file FILE is the old spelling of --signature FILE, and --signature
with an inline Base64 value still works for one release (both with a note on stderr).

First use (no pin yet for TOOL_ID@DOMAIN): on a terminal you are shown the key fingerprint
and asked to confirm; otherwise verification fails with KEY_NOT_FOUND unless
--trust-first-use is given, or the fingerprint was seeded with \`schemapin pins add\`.
A changed key fails with KEY_PIN_MISMATCH until you run \`schemapin pins rotate\`.

Lineage (§18.4), with --lineage or --lineage-store FILE: after the signature verified and
before anything is pinned, the release is compared with the latest known hash of
TOOL_ID@DOMAIN in the lineage store (default lineage.json beside the pin store). A first
sighting anchors the lineage; the same hash is unchanged; a release whose previous_hash names
the latest hash (and whose schema_version, when both carry one, is higher) moves it forward,
atomically under the store's lock. Anything else is LINEAGE_REJECTED (exit 1), naming both
hashes: a fork, a rollback, a release with no previous_hash. A signature that carries no
signed hashes (a bare Base64 signature, a legacy 1.3 document) can neither anchor nor extend
a lineage, so with --lineage it is refused too. A failed verification never moves the
store; \`schemapin lineage reset TOOL_ID@DOMAIN\` is the operator's override.

Options:
${optionList(FLAGS)}

A batch shows a progress line on stderr when stderr is a terminal (never in a pipe). It
reads the pin store once and writes the pins of first use together, under the store's lock,
about once a second and at the end; a result is printed only once its pin is written, so a
batch that is interrupted has written every pin it reported. A pin another verifier wrote
meanwhile is never overwritten: a different key for the same tool then fails that schema
with KEY_PIN_MISMATCH.

Exit codes: 0 valid; 1 invalid (bad signature, revoked, expired, pin mismatch, first use not
confirmed, discovery unreachable or malformed over the network, DNS mismatch, …); 2 bad
arguments or an unreadable or malformed local input (the message names the file).

Examples:
  schemapin verify-schema tool.json --signature tool.json.sig --domain example.com \\
      --discovery schemapin.json --trust-first-use
  schemapin verify-schema --batch schemas/ --domain example.com --bundle bundle.json --json
  schemapin verify-schema tool.json --signature tool.json.sig --public-key keys/public.pem
  schemapin verify-schema tool.json --signature tool.json.sig --domain example.com \\
      --resolver-dir ./trust --well-known --dns --trust-first-use
  schemapin verify-schema tool.json --signature tool.json.sig --discovery schemapin.json \\
      --trust-first-use --lineage
`;

/** Reads one answer line from the user, or `undefined` when there is no terminal to ask. */
export type PromptLine = (question: string, io: CliIO) => Promise<string | undefined>;

/** Asks on the process terminal (stdin and stderr both TTYs); otherwise no prompt. */
export const terminalPrompt: PromptLine = async (question, io) => {
  if (!Deno.stdin.isTerminal() || !io.stderrIsTerminal) return undefined;
  await io.stderr(question);
  const buf = new Uint8Array(1);
  const bytes: number[] = [];
  while (bytes.length < 1024) {
    const n = await Deno.stdin.read(buf);
    if (n === null || buf[0] === 0x0a) break;
    bytes.push(buf[0]);
  }
  return new TextDecoder().decode(new Uint8Array(bytes)).trim();
};

/** A schema result, with the DNS cross-check when `--dns` was given. */
type Result = SchemaVerificationResult & {
  dns?: DnsCrossCheck;
  discoverySource?: string;
  lineage?: LineageReport;
};

/**
 * Reads a signature file and, for a document, checks its structure now, so that a malformed
 * file is reported as such (exit 2, naming the file) rather than as a failed verification.
 */
async function loadSignature(
  path: string,
  io: CliIO,
): Promise<string | Record<string, unknown>> {
  const signature = await readSignatureFile(path, io);
  if (typeof signature !== "string") parseSchemaSignatureDocument(signature, sourceName(path));
  return signature;
}

/**
 * `--signature-base64` takes the Base64 text itself; a value naming an existing file is the
 * usual mistake for `--signature FILE` — a usage error (exit 2), not `SIGNATURE_INVALID`
 * (exit 1).
 */
async function refuseFileAsSignature(value: string): Promise<void> {
  if (value.trim() === "") throw new UsageError("verify-schema: --signature-base64 is empty");
  const isFile = await Deno.stat(value).then((i) => i.isFile, () => false);
  if (isFile) {
    throw new UsageError(
      `verify-schema: --signature-base64 takes the Base64 signature itself, and ${value} is a ` +
        `file; give --signature ${value}`,
    );
  }
  // The value is the user's argument, not a publisher's file: text that is not Base64 at all
  // is a bad argument (exit 2); a well-formed signature that does not verify stays exit 1.
  const scanned = scanBase64(value.trim());
  if (!(scanned instanceof Uint8Array)) {
    throw new UsageError(
      `verify-schema: --signature-base64 is not Base64 (${scanned.problem} at offset ` +
        `${scanned.offset}); give the Base64 signature, or --signature FILE for a file`,
    );
  }
}

/**
 * Whether `--signature VALUE` is the old inline Base64 form (kept for one release): VALUE is
 * not an existing path and is Base64 that decodes to a DER ECDSA signature. Anything else is a
 * file name (a missing one is exit 2, naming it).
 */
async function isInlineBase64(value: string): Promise<boolean> {
  if (value === "-" || await Deno.stat(value).then(() => true, () => false)) return false;
  const bytes = scanBase64(value.trim());
  if (!(bytes instanceof Uint8Array)) return false;
  try {
    decodeEcdsaDer(bytes);
    return true;
  } catch {
    return false;
  }
}

/** `--signature-dir` of a batch must be a readable folder. */
async function checkSignatureDir(dir: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `--signature-dir ${dir}: ${describeFsError(e)}`, {
      path: dir,
    });
  }
  if (!info.isDirectory) {
    throw new SchemaPinError("IO_FAILED", `--signature-dir ${dir} is not a directory`, {
      path: dir,
    });
  }
}

/** The fields of a result printed by `--json` (the parsed document is left out). */
const RESULT_KEYS = [
  "domain",
  "toolId",
  "developerName",
  "keyFingerprint",
  "keyPinning",
  "pinnedFingerprint",
  "signatureFormat",
  "schemaHash",
  "signedAt",
  "signerKid",
  "expired",
  "expiresAt",
  "schemaVersion",
  "previousHash",
  "warnings",
  "unprotectedFields",
  "discoverySource",
  "dns",
] as const satisfies readonly (keyof Result)[];

/** A result as printed by `--json`. */
function resultJson(result: Result): JsonOutputFields {
  const fields = verificationFields(result, RESULT_KEYS) as Record<string, unknown>;
  if ("developer_name" in fields) fields.developer_name = developerNameJson(result);
  if (result.lineage !== undefined) fields.lineage = lineageJson(result.lineage);
  return fields as JsonOutputFields;
}

function toolIdFor(explicit: string | undefined, schema: JsonValue, file: string): string {
  if (explicit !== undefined) {
    const problem = checkToolId(explicit);
    if (problem) throw new UsageError(`verify-schema: --tool-id: ${problem}`);
    return explicit;
  }
  const name = isJsonObject(schema) ? ownField(schema, "name") : undefined;
  if (typeof name !== "string" || checkToolId(name) !== undefined) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${file} has no usable "name" to use as the tool id; give --tool-id`,
      { path: file },
    );
  }
  return name;
}

/** What the command needs from its environment (tests replace the prompt). */
export interface VerifySchemaDeps {
  /** How to ask the user to confirm a first-use key. */
  prompt: PromptLine;
}

/**
 * Builds the `verify-schema` command with the given prompt (the real CLI asks on the
 * terminal).
 */
export function makeVerifySchemaCommand(deps: VerifySchemaDeps): Command {
  return {
    name: "verify-schema",
    summary: "verify a schema signature (discovery file, bundle, folder or HTTPS; pins, DNS)",
    help: HELP,
    flags: FLAGS,
    async run(args, io) {
      const { values, positionals } = parseCommandArgs("verify-schema", args, FLAGS);
      const json = values.json === true;
      const batch = values.batch;
      let file: string | undefined;
      let threadsSetting: number | undefined;
      if (batch !== undefined) {
        if (positionals.length > 0) throw new UsageError("verify-schema: --batch takes no SCHEMA");
        for (const k of ["signature", "signature-base64", "tool-id"] as const) {
          if (values[k] !== undefined) {
            throw new UsageError(`verify-schema: --${k} does not go with --batch`);
          }
        }
        globToRegExp(values.pattern ?? "*.json");
        threadsSetting = batchThreadsSetting();
      } else {
        if (values.pattern !== undefined || values["signature-dir"] !== undefined) {
          throw new UsageError("verify-schema: --pattern and --signature-dir go with --batch");
        }
        [file] = requirePositionals("verify-schema", positionals, 1, "one SCHEMA.json (or -)");
        if ((values.signature === undefined) === (values["signature-base64"] === undefined)) {
          throw new UsageError(
            "verify-schema: give exactly one of --signature FILE and --signature-base64 B64",
          );
        }
        if (file === "-" && values.signature === "-") {
          throw new UsageError("verify-schema: the schema and the signature cannot both be stdin");
        }
        if (values["tool-id"] !== undefined) {
          const problem = checkToolId(values["tool-id"]);
          if (problem) throw new UsageError(`verify-schema: --tool-id: ${problem}`);
        }
      }
      // An inline Base64 signature: --signature-base64, or (one release) --signature B64.
      let inline: string | undefined;
      if (values["signature-base64"] !== undefined) {
        await refuseFileAsSignature(values["signature-base64"]);
        inline = values["signature-base64"];
      } else if (values.signature !== undefined && await isInlineBase64(values.signature)) {
        await io.stderr(
          "note: verify-schema: --signature with a Base64 value is deprecated; use " +
            "--signature-base64\n",
        );
        inline = values.signature;
      }

      // The local inputs, then the trust documents (the only step that may use the network).
      let schema: JsonValue = null;
      let signature: string | Record<string, unknown> | undefined = inline;
      let toolId = "";
      let listing: { files: string[]; skipped: string[] } | undefined;
      let trust: TrustInputs;
      let dnsHook: BeforePinHook<SchemaVerificationResult> | undefined;
      // Without --domain, the domain is the one the signature document names: the signature
      // (a local input) is read before the trust flags that need the domain are checked.
      let domain: string;
      if (file !== undefined && values.domain === undefined) {
        try {
          signature ??= await loadSignature(values.signature!, io);
        } catch (e) {
          if (e instanceof UsageError) throw e;
          return await reportInputFailure(e, json, io);
        }
        domain = resolveSignedDomain("verify-schema", undefined, signedDocumentDomain(signature));
      } else {
        domain = requireDomainFlag("verify-schema", values.domain);
      }
      // Every argument is checked before anything else is read, fetched or written.
      const plan = checkTrustFlags("verify-schema", values, domain, args);
      try {
        if (file === undefined) {
          listing = await listBatch(batch!, values.pattern ?? "*.json");
          // A mistyped --signature-dir is the user's input error (exit 2), not every schema
          // of the batch "unsigned" (exit 1).
          if (values["signature-dir"] !== undefined) {
            await checkSignatureDir(values["signature-dir"]);
          }
        } else {
          schema = await readJsonFile(file, io, "schema");
          signature ??= await loadSignature(values.signature!, io);
          // A --domain that differs from the document's own is a usage error (exit 2).
          resolveSignedDomain("verify-schema", values.domain, signedDocumentDomain(signature));
          toolId = toolIdFor(values["tool-id"], schema, sourceName(file));
        }
        ({ trust, dnsHook } = await loadTrustAndDnsHook<SchemaVerificationResult>(plan, io));
      } catch (e) {
        if (e instanceof UsageError) throw e;
        return await reportInputFailure(e, json, io);
      }
      // --lineage: checked before any pin is written, moved forward once verification passed.
      const lineage = lineageStoreFromFlags(values);
      const hook = lineage ? lineageBeforePinHook(lineage, dnsHook) : dnsHook;
      const verify = async (
        options: Parameters<typeof verifySchemaOfflineWithHook>[0],
      ): Promise<Result> => {
        const result: Result = await verifySchemaOfflineWithHook(options, hook);
        if (lineage) await advanceLineage(lineage, result);
        result.discoverySource = trust.discoverySource;
        result.warnings.push(...(trust.warnings ?? []));
        // --public-key: no pin was consulted or written (the store only names the key).
        if (trust.explicitKey !== undefined) result.keyPinning = "not_checked";
        return result;
      };
      // --public-key: the key is the anchor; nothing is pinned, the pin file is not opened.
      const explicitPins = trust.explicitKey !== undefined
        ? explicitKeyPinStore(trust.explicitKey)
        : undefined;
      const filePins = explicitPins ??
        new FilePinStore(values["pin-store"] ?? defaultPinStorePath());
      // A batch reads the store once and writes its first-use pins together (lib/pins/batch.ts).
      const batchPins = file === undefined ? new BatchPinStore(filePins) : undefined;
      const pinStore = explicitPins ?? batchPins ?? filePins;
      const quiet = values.quiet === true;
      const progress = file === undefined ? progressLine(io, quiet) : undefined;
      const confirmFirstUse = confirmFirstUseWith((q) => {
        progress?.clear(); // the question starts on a clean line
        return deps.prompt(q, io);
      });
      const common = {
        domain,
        discovery: trust.discovery,
        revocation: trust.revocation,
        pinStore,
        trustFirstUse: values["trust-first-use"] === true,
        allowExpired: values["allow-expired"] === true,
        allowMissingRevocation: values["allow-missing-revocation"] === true,
      };

      if (file === undefined) {
        return await verifyBatch(batch!, values.pattern ?? "*.json", listing!, {
          sigDir: values["signature-dir"] ?? batch!,
          json,
          quiet,
          io,
          progress: progress!,
          pins: batchPins!,
          precheckKey: discoveryKey(trust.discovery),
          threads: threadsSetting,
          verify: async (schema, signature, toolId, sigSource) =>
            await verify({
              ...common,
              schema,
              signature,
              toolId,
              confirmFirstUse,
              sources: {
                discovery: trust.discoverySource,
                revocation: trust.revocationSource,
                signature: sigSource,
              },
            }),
        });
      }
      const result = await verify({
        ...common,
        schema,
        signature: signature!,
        toolId,
        // Never prompt while stdin carries the schema.
        confirmFirstUse: file === "-" ? undefined : confirmFirstUse,
        sources: {
          discovery: trust.discoverySource,
          revocation: trust.revocationSource,
          signature: inline === undefined ? sourceName(values.signature!) : "--signature-base64",
        },
      });
      if (values.json) {
        await io.stdout(jsonOutput("verify-schema", resultJson(result)));
      } else {
        await printVerifyNotes(result, io);
        if (result.valid) {
          if (quiet) return resultExitCode(result);
          await printLineage(result.lineage, io);
          const pin = trust.explicitKey !== undefined
            ? "key from --public-key, not pinned"
            : result.keyPinning === "first_use"
            ? "pinned on first use"
            : "pin matches";
          await io.stdout(
            `OK ${toolId}@${domain}: valid signature by ${result.keyFingerprint} (${pin})\n`,
          );
        } else {
          await io.stdout(`FAIL ${toolId}@${domain}: ${result.errorCode}\n`);
          await io.stderr(
            `error: ${result.errorCode}: ${result.errorMessage}${failureHint(result)}\n`,
          );
        }
      }
      return resultExitCode(result);
    },
  };
}

/** The `verify-schema` command (asks on the terminal on first use). */
export const verifySchemaCommand: Command = makeVerifySchemaCommand({ prompt: terminalPrompt });

/** How often a batch writes the pins of first use it has collected, in milliseconds. */
export const PIN_FLUSH_INTERVAL_MS = 1000;

/** One schema of a batch, verified, waiting for its pins to be written before it is reported. */
interface BatchItem {
  path: string;
  sigPath: string;
  result?: Result;
  error?: SchemaPinError;
}

/**
 * The key the verification flow will take from the discovery document (the same
 * `parseDiscoveryDocument` + `loadDiscoveryKey`, §15.1 step 2), if the document is valid: what
 * a batch prechecks signatures with. The flow reads the document itself and decides; a missing
 * key here only means no threads.
 */
function discoveryKey(discovery: unknown): PublicKey | undefined {
  try {
    return loadDiscoveryKey(parseDiscoveryDocument(discovery).document);
  } catch {
    return undefined;
  }
}

/** One schema of a batch as read: what to verify, or why it cannot be. */
interface Loaded {
  path: string;
  sigPath: string;
  schema?: JsonValue;
  signature?: string | Record<string, unknown>;
  toolId?: string;
  error?: SchemaPinError;
}

async function loadBatchItem(
  dir: string,
  name: string,
  sigDir: string,
  io: CliIO,
): Promise<Loaded> {
  const path = joinPath(dir, name);
  const sigPath = joinPath(sigDir, `${name}.sig`);
  try {
    const schema = await readJsonFile(path, io, "schema");
    let signature: string | Record<string, unknown>;
    try {
      signature = await loadSignature(sigPath, io);
    } catch (e) {
      if (e instanceof SchemaPinError && e.code === "IO_FAILED") {
        // An unsigned schema is a verification failure, not a tool error (§10).
        throw new SchemaPinError("SIGNATURE_INVALID", `unsigned: ${e.message}`, { path });
      }
      throw e;
    }
    return { path, sigPath, schema, signature, toolId: toolIdFor(undefined, schema, path) };
  } catch (e) {
    if (!(e instanceof SchemaPinError)) throw e;
    return { path, sigPath, error: e };
  }
}

async function verifyBatch(
  dir: string,
  pattern: string,
  { files, skipped }: { files: string[]; skipped: string[] },
  ctx: {
    sigDir: string;
    json: boolean;
    quiet: boolean;
    io: CliIO;
    progress: Progress;
    pins: BatchPinStore;
    /** The key the flow will check signatures with, when known: prechecked on threads. */
    precheckKey?: PublicKey;
    /** `SCHEMAPIN_BATCH_THREADS`, read when the command started. */
    threads: number | undefined;
    verify: (
      schema: unknown,
      signature: string | Record<string, unknown>,
      toolId: string,
      sigSource: string,
    ) => Promise<Result>;
  },
): Promise<number> {
  const { io } = ctx;
  const results: Record<string, unknown>[] = [];
  let worst = EXIT_OK;
  let verified = 0;
  let failed = 0;
  const { progress } = ctx;
  let waiting: BatchItem[] = [];
  let lastFlush = performance.now();

  // Writes the pins of the waiting results (one locked transaction), settles the results a
  // concurrent writer overtook, then reports them in order.
  const settle = async () => {
    const items = waiting;
    waiting = [];
    const pendingKeys = ctx.pins.pendingKeys();
    let conflicts: ReadonlyMap<string, { current?: { fingerprint: string } }> = new Map();
    let writeError: unknown;
    try {
      ({ conflicts } = await ctx.pins.flush());
    } catch (e) {
      writeError = e;
    }
    lastFlush = performance.now();
    progress.clear();
    for (const item of items) {
      const r = item.result;
      if (r?.valid) {
        const key = pinKey(r.toolId, r.domain!);
        if (writeError !== undefined && pendingKeys.has(key)) {
          r.valid = false;
          r.errorCode = writeError instanceof SchemaPinError ? writeError.code : "IO_FAILED";
          r.errorMessage = `could not write the pin: ${messageOf(writeError)}`;
          if (r.keyPinning === "first_use") r.keyPinning = "not_pinned";
        } else if (conflicts.has(key)) {
          settlePinConflict(r, conflicts.get(key)!.current);
        }
      }
      await report(item);
    }
  };

  const report = async ({ path, sigPath, result, error }: BatchItem) => {
    let entry: Record<string, unknown>;
    let code: number;
    if (result !== undefined) {
      entry = { file: path, signature_file: sigPath, ...resultJson(result) };
      code = resultExitCode(result);
      if (!ctx.json) {
        if (!result.valid) {
          await io.stdout(`FAIL ${path}: ${result.errorCode}: ${result.errorMessage}\n`);
        } else if (!ctx.quiet) {
          await io.stdout(`OK   ${path} (${result.toolId}@${result.domain})\n`);
        }
        for (const w of result.warnings) {
          await io.stderr(
            `warning: ${path}: ${describeVerifyWarning(w, result.unprotectedFields)}\n`,
          );
        }
      }
    } else {
      const e = error!;
      code = exitCodeOfError(e);
      entry = { file: path, ...failureFields(e.code, e.message) };
      if (!ctx.json) await io.stdout(`FAIL ${path}: ${e.code}: ${e.message}\n`);
    }
    if (code === EXIT_OK) verified++;
    worst = Math.max(worst, code);
    results.push(entry);
  };

  // Reads (and, on worker threads, the elliptic-curve checks: batch_pool.ts) run a few chunks
  // ahead of the verification flow, which stays here and in order.
  const key = ctx.precheckKey;
  const workers = new BatchWorkers(
    key === undefined ? 0 : batchThreads(files.length, ctx.threads),
    "checking signatures",
    (line) => (progress.clear(), io.stderr(line)),
  );
  const prepare = async (from: number) => {
    const items: Loaded[] = [];
    for (const name of files.slice(from, from + BATCH_CHUNK)) {
      items.push(await loadBatchItem(dir, name, ctx.sigDir, io));
    }
    const ready = items.filter((it) => it.schema !== undefined);
    const batch = ready.map((it) => ({ schema: it.schema, signature: it.signature! }));
    // Without threads (any more), the flow makes every check itself: the same result.
    const prechecked = workers.use((pool) => pool.precheck(key!, batch)).then((ids) => {
      for (const id of ids ?? []) if (id !== undefined) acceptPrecheckedSignature(id);
    });
    return { items, prechecked };
  };
  let done = 0;
  try {
    for await (const chunk of chunksAhead(files.length, prepare)) {
      await chunk.prechecked;
      for (const loaded of chunk.items) {
        done++;
        const item: BatchItem = { path: loaded.path, sigPath: loaded.sigPath };
        if (loaded.error !== undefined) {
          item.error = loaded.error;
          failed++;
        } else {
          try {
            item.result = await ctx.verify(
              loaded.schema,
              loaded.signature!,
              loaded.toolId!,
              loaded.sigPath,
            );
            if (!item.result.valid) failed++;
          } catch (e) {
            if (!(e instanceof SchemaPinError)) throw e;
            item.error = e; // this schema's failure, not the batch's
            failed++;
          }
        }
        waiting.push(item);
        if (performance.now() - lastFlush >= PIN_FLUSH_INTERVAL_MS) await settle();
        progress.update(() =>
          `verify-schema: ${count(done)}/${count(files.length)} schemas` +
          (failed > 0 ? `, ${count(failed)} failed` : "")
        );
      }
    }
  } finally {
    workers.stop();
  }
  await settle();
  progress.clear();
  for (const name of skipped) {
    await io.stderr(`warning: skipped ${joinPath(dir, name)} (not a regular file)\n`);
  }
  const summary = { total: files.length, verified, failed: files.length - verified };
  if (files.length === 0) {
    const message = `no file in ${dir} matches ${JSON.stringify(pattern)}`;
    if (ctx.json) await io.stdout(jsonError("INPUT_INVALID", message));
    await io.stderr(`error: ${message}\n`);
    return EXIT_USAGE;
  }
  if (ctx.json) {
    await io.stdout(
      jsonOutput("verify-schema.batch", {
        ok: worst === EXIT_OK,
        ...(worst === EXIT_OK ? {} : batchFailure(summary.failed, summary.total, "verified")),
        summary,
        results,
      }),
    );
  } else {
    await io.stdout(
      `${summary.verified} of ${summary.total} schema(s) verified, ${summary.failed} failed\n`,
    );
  }
  return worst;
}
