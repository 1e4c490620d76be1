/**
 * `schemapin verify-schema`: verification of a tool schema signature (§15.1) against a
 * discovery document, a trust bundle, a resolver folder or `.well-known` over HTTPS (§14, a
 * chain when several are given), with TOFU pins, revocation, expiry and the optional DNS TXT
 * cross-check (§17) before any pin is written.
 *
 * @module
 */
import { messageInCliWords } from "../library_words.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import type { BatchListing } from "../../lib/schema/batch_list.ts";
import { readSchemaSignature, schemaToolId } from "../../lib/schema/schema_file.ts";
import { sourceName } from "../../lib/schema/input.ts";
import {
  checkSchemaVerifyRequest,
  inlineSignature,
  listVerifyBatch,
} from "../schema/verify_request.ts";
import { signedDocumentDomain } from "../../lib/skill/signed_domain.ts";
import type { TrustedVerifier } from "../../lib/trust/verify.ts";
import { resultExitCode } from "../exit_codes.ts";
import type { VerifyFolderInput } from "../trust/verify_folder.ts";
import {
  asUsage,
  type CliIO,
  type Command,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { checkPatternFlag, confirmFirstUseWith, readJsonFile } from "./schema_inputs.ts";
import { finishBatch, openVerification, printVerdict } from "./schema_report.ts";
import { readInput } from "./io.ts";
import type { Progress } from "./progress.ts";
import type { VerifyCommandDeps } from "./prompt.ts";
import { type FlagTable, optionList, valueFlag } from "../args/flags.ts";
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
      const batch = values.batch;
      const pattern = values.pattern ?? "*.json";
      let file: string | undefined;
      let threadsSetting: number | undefined;
      if (batch !== undefined) {
        if (positionals.length > 0) throw new UsageError("verify-schema: --batch takes no SCHEMA");
      } else {
        if (values.pattern !== undefined || values["signature-dir"] !== undefined) {
          throw new UsageError("verify-schema: --pattern and --signature-dir go with --batch");
        }
        [file] = requirePositionals("verify-schema", positionals, 1, "one SCHEMA.json (or -)");
      }
      asUsage("verify-schema", () => checkSchemaVerifyRequest({ ...values, schema: file }));
      if (batch !== undefined) {
        checkPatternFlag(pattern);
        // Read when the batch starts, before anything is read (lib/schema/batch_pool.ts).
        threadsSetting = (await import("../../lib/schema/batch_pool.ts")).batchThreadsSetting();
      }
      // An inline Base64 signature: --signature-base64, or (one release) --signature B64.
      const { value: inline, deprecated } = await asUsage(
        "verify-schema",
        () => inlineSignature(values["signature-base64"], values.signature),
      );
      if (deprecated) {
        await io.stderr(
          "note: verify-schema: --signature with a Base64 value is deprecated; use " +
            "--signature-base64\n",
        );
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
            listing = await listVerifyBatch(batch!, pattern, values["signature-dir"]);
            return;
          }
          schema = await readJsonFile(file, io, "schema");
          signature ??= await readSchemaSignature(values.signature!, read);
          checkNamed(signedDocumentDomain(signature));
          toolId = values["tool-id"] ?? await namedToolId(schema, sourceName(file));
        },
      });
      if (typeof opened === "number") return opened;
      const { domain, verifier } = opened;
      const quiet = values.quiet === true;
      // A batch's progress line; one schema has none.
      const progress = file === undefined
        ? (await import("./progress.ts")).progressLine(io, quiet)
        : undefined;
      const confirmFirstUse = confirmFirstUseWith((q) => {
        progress?.clear(); // the question starts on a clean line
        return deps.prompt(q, io);
      });

      if (file === undefined) {
        // A batch reads the store once and writes its first-use pins together (lib/pins/batch.ts).
        const input = { dir: batch!, listing: listing!, read, confirmFirstUse };
        const sigDir = values["signature-dir"] ?? batch!;
        const ctx = { ...values, pattern, progress: progress! };
        return await verifyBatch(verifier, { ...input, sigDir, threads: threadsSetting }, ctx, io);
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
        // The --json shapes are loaded only for --json (start-up of the text verdict).
        const [{ jsonOutput }, { trustedSchemaJson }] = await Promise.all([
          import("./json_output.ts"),
          import("../trust/result_json.ts"),
        ]);
        await io.stdout(jsonOutput("verify-schema", trustedSchemaJson(result)));
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

/**
 * The `verify-schema` command (asks on the terminal on first use; the prompt is loaded when a
 * first-use key is asked about).
 */
export const verifySchemaCommand: Command = makeVerifySchemaCommand({
  prompt: async (question, io) => (await import("./prompt.ts")).terminalPrompt(question, io),
});

/** `--batch`: each schema reported as it is verified, then the summary. */
async function verifyBatch(
  verifier: TrustedVerifier,
  input: Omit<VerifyFolderInput, "onItem" | "onProgress" | "onWarning">,
  ctx: { pattern: string; json?: boolean; quiet?: boolean; progress: Progress },
  io: CliIO,
): Promise<number> {
  const { progress } = ctx;
  // The batch's own code, loaded for a batch only (start-up of one verification).
  const { verifySchemaFolder } = await import("../trust/verify_folder.ts");
  const { describeVerifyWarning } = await import("../schema/verify_notes.ts");
  const { batchProgress } = await import("./progress.ts");
  const outcome = await verifySchemaFolder(verifier, {
    ...input,
    onItem: async ({ path, result, error }) => {
      progress.clear();
      if (ctx.json) return;
      if (result === undefined) {
        await io.stdout(`FAIL ${path}: ${error!.code}: ${error!.message}\n`);
        return;
      }
      if (!result.valid) {
        const message = messageInCliWords(result.errorMessage ?? "");
        await io.stdout(`FAIL ${path}: ${result.errorCode}: ${message}\n`);
      } else if (!ctx.quiet) {
        await io.stdout(`OK   ${path} (${result.toolId}@${result.domain})\n`);
      }
      for (const w of result.warnings) {
        await io.stderr(
          `warning: ${path}: ${describeVerifyWarning(w, result.unprotectedFields)}\n`,
        );
      }
    },
    onProgress: batchProgress("verify-schema", progress),
    onWarning: (line) => (progress.clear(), io.stderr(line)),
  });
  progress.clear();
  const { total, failed } = outcome;
  return await finishBatch({
    command: "verify-schema",
    verb: "verified",
    dir: input.dir,
    pattern: ctx.pattern,
    outcome,
    json: ctx.json === true,
    line: `${total - failed} of ${total} schema(s) verified, ${failed} failed\n`,
  }, io);
}

/** The schema's own tool id (`schemaToolId`), or the error saying to give `--tool-id`. */
async function namedToolId(schema: unknown, file: string): Promise<string> {
  try {
    return schemaToolId(schema, file);
  } catch (e) {
    if (!(e instanceof SchemaPinError)) throw e;
    throw (await import("../schema/tool_id.ts")).withToolIdRemedy(e); // the remedy's text
  }
}
