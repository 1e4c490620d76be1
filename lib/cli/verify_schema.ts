/**
 * `schemapin verify-schema`: verification of a tool schema signature (§15.1) against a
 * discovery document, a trust bundle, a resolver folder or `.well-known` over HTTPS (§14, a
 * chain when several are given), with TOFU pins, revocation, expiry and the optional DNS TXT
 * cross-check (§17) before any pin is written.
 *
 * @module
 */
import type { JsonValue } from "../json/types.ts";
import { checkToolId } from "../pins/store.ts";
import {
  type BatchListing,
  listBatch,
  readSchemaSignature,
  schemaToolId,
  type VerifiedBatchItem,
} from "../schema/batch.ts";
import { inspectInlineSignature, requireDirectory, sourceName } from "../schema/input.ts";
import { batchThreadsSetting } from "../schema/batch_pool.ts";
import { signedDocumentDomain } from "../skill/document.ts";
import type { TrustedBatchInput, TrustedSchemaResult, TrustedVerifier } from "../trust/verify.ts";
import {
  type CliIO,
  type Command,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { failureFields, jsonOutput } from "./json_output.ts";
import {
  checkPatternFlag,
  confirmFirstUseWith,
  describeVerifyWarning,
  readJsonFile,
  resultExitCode,
} from "./schema_inputs.ts";
import {
  batchProgress,
  finishBatch,
  openVerification,
  printVerdict,
  trustedResultJson,
} from "./schema_report.ts";
import { exitCodeOfError } from "../exit_codes.ts";
import { readInput } from "./io.ts";
import { type Progress, progressLine } from "./progress.ts";
import { terminalPrompt, type VerifyCommandDeps } from "./prompt.ts";
import { type FlagTable, optionList, valueFlag } from "./flags.ts";
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

const FLAGS = {
  signature: valueFlag(
    "FILE",
    "the signature: a file holding the bare Base64 signature or the 1.4 signature " +
      "document (- for stdin)",
  ),
  "signature-base64": valueFlag(
    "B64",
    "the bare Base64 signature itself, inline (text that is not Base64, or names a " +
      "file, is a usage error, exit 2)",
  ),
  ...VERIFY_DOMAIN_FLAGS,
  "tool-id": valueFlag("ID", 'tool id for the pin (default: the schema\'s "name")'),
  ...KEY_SOURCE_FLAGS,
  ...NETWORK_TIMEOUT_FLAGS,
  ...DNS_FLAGS,
  ...PIN_FLAGS,
  ...LINEAGE_FLAGS,
  ...EXPIRY_FLAGS,
  batch: valueFlag(
    "DIR",
    "verify every file in DIR matching --pattern (default *.json), each against " +
      "SIGDIR/<name>.sig; needs --domain (one domain for the batch)",
  ),
  pattern: valueFlag("GLOB", "file-name pattern for --batch (* and ?)"),
  "signature-dir": valueFlag("DIR", "where --batch finds <name>.sig (default: DIR)"),
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

Runs the seven steps of SchemaPin §15.1 in order and writes a pin only after all of them
succeeded, a batch's pins together (docs/signing.md, "Schema signing and offline
verification"). A 1.4 signature document that names its domain needs no --domain (one that
differs is exit 2); a bare signature, or a document without a domain, needs --domain D.

First use (no pin yet for TOOL_ID@DOMAIN) asks on a terminal, shows the fingerprint, and
otherwise fails with KEY_NOT_FOUND unless --trust-first-use is given or the pin was seeded
with \`schemapin pins add\`; a changed key fails with KEY_PIN_MISMATCH until
\`schemapin pins rotate\`. Lineage (--lineage): docs/keys.md, "Lineage on the verifier's
side". Old spellings (--signature-file, --signature B64): docs/cli-vocabulary.md.

Options:
${optionList(FLAGS)}

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

/**
 * `--signature-base64` takes the Base64 text itself; a value naming an existing file is the
 * usual mistake for `--signature FILE` — a usage error (exit 2), not `SIGNATURE_INVALID`
 * (exit 1).
 */
async function refuseFileAsSignature(value: string): Promise<void> {
  if (value.trim() === "") throw new UsageError("verify-schema: --signature-base64 is empty");
  const inline = await inspectInlineSignature(value);
  if (inline.path === "file") {
    throw new UsageError(
      `verify-schema: --signature-base64 takes the Base64 signature itself, and ${value} is a ` +
        `file; give --signature ${value}`,
    );
  }
  // The value is the user's argument, not a publisher's file: text that is not Base64 at all
  // is a bad argument (exit 2); a well-formed signature that does not verify stays exit 1.
  const scanned = inline.base64Problem;
  if (scanned !== undefined) {
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
  const inline = await inspectInlineSignature(value);
  return inline.path === "none" && inline.derSignature;
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
] as const satisfies readonly (keyof TrustedSchemaResult)[];

/**
 * Builds the `verify-schema` command with the given prompt (the real CLI asks on the
 * terminal).
 */
export function makeVerifySchemaCommand(deps: VerifyCommandDeps): Command {
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
        checkPatternFlag(values.pattern ?? "*.json");
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
      const read = (path: string) => readInput(path, io);
      let schema: JsonValue = null;
      let signature: string | Record<string, unknown> | undefined = inline;
      let toolId = "";
      let listing: BatchListing | undefined;
      const opened = await openVerification("verify-schema", values, args, io, {
        named: file === undefined ? undefined : async () => {
          signature ??= await readSchemaSignature(values.signature!, read);
          return signedDocumentDomain(signature);
        },
        rest: async (checkNamed) => {
          if (file === undefined) {
            listing = listBatch(batch!, values.pattern ?? "*.json");
            // A mistyped --signature-dir is the user's input error (exit 2), not every schema
            // of the batch "unsigned" (exit 1).
            if (values["signature-dir"] !== undefined) {
              await requireDirectory("--signature-dir", values["signature-dir"]);
            }
            return;
          }
          schema = await readJsonFile(file, io, "schema");
          signature ??= await readSchemaSignature(values.signature!, read);
          checkNamed(signedDocumentDomain(signature));
          toolId = values["tool-id"] ?? schemaToolId(schema, sourceName(file));
        },
      });
      if (typeof opened === "number") return opened;
      const { domain, verifier } = opened;
      const quiet = values.quiet === true;
      const progress = file === undefined ? progressLine(io, quiet) : undefined;
      const confirmFirstUse = confirmFirstUseWith((q) => {
        progress?.clear(); // the question starts on a clean line
        return deps.prompt(q, io);
      });

      if (file === undefined) {
        // A batch reads the store once and writes its first-use pins together (lib/pins/batch.ts).
        return await verifyBatch(batch!, values.pattern ?? "*.json", listing!, verifier, {
          json,
          quiet,
          io,
          progress: progress!,
          options: {
            sigDir: values["signature-dir"] ?? batch!,
            read,
            confirmFirstUse,
            threads: threadsSetting,
          },
        });
      }
      const result = await verifier.verifySchema({
        schema,
        signature: signature!,
        toolId,
        // Never prompt while stdin carries the schema.
        confirmFirstUse: file === "-" ? undefined : confirmFirstUse,
        signatureSource: inline === undefined
          ? sourceName(values.signature!)
          : "--signature-base64",
      });
      if (values.json) {
        await io.stdout(jsonOutput("verify-schema", trustedResultJson(result, RESULT_KEYS)));
        return resultExitCode(result);
      }
      return await printVerdict(result, {
        command: "verify-schema",
        args,
        who: `${toolId}@${domain}`,
        quiet,
        verifier,
        pinStore: values["pin-store"],
        ok: (pin) => `valid signature by ${result.keyFingerprint} (${pin})`,
      }, io);
    },
  };
}

/** The `verify-schema` command (asks on the terminal on first use). */
export const verifySchemaCommand: Command = makeVerifySchemaCommand({ prompt: terminalPrompt });

async function verifyBatch(
  dir: string,
  pattern: string,
  { files, skipped }: BatchListing,
  verifier: TrustedVerifier,
  ctx: {
    json: boolean;
    quiet: boolean;
    io: CliIO;
    progress: Progress;
    options: Omit<TrustedBatchInput, "dir" | "files" | "onResults" | "onProgress" | "onWarning">;
  },
): Promise<number> {
  const { io, progress } = ctx;
  const results: Record<string, unknown>[] = [];
  let worst = EXIT_OK;
  let verified = 0;

  const report = async ({ path, sigPath, result: verifiedResult, error }: VerifiedBatchItem) => {
    const result = verifiedResult as TrustedSchemaResult | undefined;
    let entry: Record<string, unknown>;
    let code: number;
    if (result !== undefined) {
      entry = { file: path, signature_file: sigPath, ...trustedResultJson(result, RESULT_KEYS) };
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

  await verifier.verifySchemaBatch({
    ...ctx.options,
    dir,
    files,
    onResults: async (items) => {
      progress.clear();
      for (const item of items) await report(item);
    },
    onProgress: batchProgress("verify-schema", progress),
    onWarning: (line) => (progress.clear(), io.stderr(line)),
  });
  progress.clear();
  const failed = files.length - verified;
  return await finishBatch({
    command: "verify-schema",
    verb: "verified",
    dir,
    pattern,
    total: files.length,
    failed,
    worst,
    skipped,
    results,
    json: ctx.json,
    line: `${verified} of ${files.length} schema(s) verified, ${failed} failed\n`,
  }, io);
}
