/**
 * `schemapin sign-schema`: sign a tool schema — a bare Base64 signature (v1.3, §4.1) or a 1.4
 * schema signature document, chosen with `--format` (inferred from the metadata flags, with a
 * note, when it is not given).
 *
 * @module
 */
import { sourceName } from "../../lib/schema/input.ts";
import {
  asUsage,
  type CliIO,
  type Command,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { isSshAgentKey } from "../keys/signer.ts";
import { jsonOutput } from "./json_output.ts";
import { readInput, writeFileAtomic } from "./io.ts";
import { batchProgress, progressLine } from "./progress.ts";
import { checkPatternFlag, readJsonFile } from "./schema_inputs.ts";
import { loadSigner } from "./private_key.ts";
import { finishBatch } from "./schema_report.ts";
import { signatureMetadata } from "./signature_options.ts";
import { signOneWithSigner } from "../../lib/schema/sign_one.ts";
import { type SignFolderOptions, signSchemaFolder } from "../schema/sign_folder.ts";
import {
  chooseSignatureFormat,
  refuseFormatSwitch,
  schemaDocumentOptions,
} from "../schema/sign_output.ts";
import { batchThreadsSetting } from "../../lib/schema/batch_pool.ts";
import { type FlagTable, optionList, valueFlag } from "../args/flags.ts";
import {
  FORCE_FLAGS,
  jsonFlag,
  KEY_FLAGS,
  QUIET_FLAGS,
  SIGNATURE_METADATA_FLAGS,
} from "./flag_groups.ts";

/** The metadata flags: each asks for a 1.4 document (`--format document`). */
const METADATA_FLAGS = {
  "expires-in": SIGNATURE_METADATA_FLAGS["expires-in"],
  "expires-at": SIGNATURE_METADATA_FLAGS["expires-at"],
  "schema-version": valueFlag("V", "version tag of this schema (e.g. 2.1.0)"),
  "previous-hash": valueFlag("H", "schema_hash (sha256:…) of the previous signed version"),
  domain: SIGNATURE_METADATA_FLAGS.domain,
  "signer-kid": SIGNATURE_METADATA_FLAGS["signer-kid"],
} as const satisfies FlagTable;

const FLAGS = {
  ...KEY_FLAGS,
  format: valueFlag(
    "bare|document",
    "bare: a bare Base64 signature (v1.3); document: a 1.4 signature document. " +
      "Default: document when a metadata flag is given (with a note on stderr), else bare",
  ),
  out: valueFlag(
    "FILE",
    "write the signature to FILE (default stdout); an existing FILE is replaced only " +
      "with --force",
  ),
  "out-dir": valueFlag(
    "DIR",
    "with --batch: the folder the signatures go to, DIR/<name>.sig (required)",
  ),
  ...FORCE_FLAGS,
  batch: valueFlag("DIR", "sign every file in DIR matching --pattern (default *.json)"),
  pattern: valueFlag("GLOB", "file-name pattern for --batch (* and ?)"),
  ...jsonFlag(
    "schemapin.sign-schema/1: ok, file, signature | document; batch: " +
      "schemapin.sign-schema.batch/1, a summary and a list",
  ),
  quiet: {
    ...QUIET_FLAGS.quiet,
    help: "print only failures and the batch summary; no progress line",
  },
} as const satisfies FlagTable;

/** Every flag sign-schema parses: {@linkcode FLAGS} and the metadata. */
const ALL_FLAGS = { ...FLAGS, ...METADATA_FLAGS } as const satisfies FlagTable;

const HELP = `schemapin sign-schema — sign a tool schema

Usage:
  schemapin sign-schema SCHEMA.json|- --key PRIVATE.pem|ssh-agent:PUBFILE
      [--format bare|document] [--out FILE [-f]] [metadata…]
  schemapin sign-schema --batch DIR [--pattern GLOB] --out-dir DIR
      --key PRIVATE.pem|ssh-agent:PUBFILE [-f] [-q] [--format bare|document] [metadata…]

--format bare writes a bare Base64 signature (v1.3), --format document a 1.4 signature
document; without --format, a metadata flag selects document (docs/signing.md). --document
is the old spelling of --format document, --out DIR with --batch of --out-dir DIR.

Metadata (a 1.4 document only):
${optionList(METADATA_FLAGS)}

Options:
${optionList(FLAGS)}

--key ssh-agent:PUBFILE signs with a key the SSH agent holds (docs/ssh-agent.md).

Exit codes: 0 signed; 2 bad arguments, unreadable or malformed schema or key (the message
names the file), a schema with no canonical form, or an SSH agent that is missing, does not
hold the key or refuses to sign (the message names the --key value).

Examples:
  schemapin sign-schema tool.json --key keys/private.pem > tool.json.sig
  schemapin sign-schema tool.json --key keys/private.pem --expires-in 180d \\
      --schema-version 2.1.0 --domain example.com --format document --out tool.json.sig
  schemapin sign-schema --batch schemas/ --out-dir sigs/ -k keys/private.pem
  schemapin sign-schema tool.json --key ssh-agent:$HOME/.ssh/id_ecdsa.pub --out tool.json.sig
`;

/** The flags that only a 1.4 document carries. */
const DOCUMENT_ONLY_FLAGS = Object.keys(METADATA_FLAGS) as (keyof typeof METADATA_FLAGS)[];

/** The `sign-schema` command. */
export const signSchemaCommand: Command = {
  name: "sign-schema",
  summary: "sign a tool schema (bare Base64, or a 1.4 signature document with metadata)",
  help: HELP,
  flags: ALL_FLAGS,
  async run(args, io) {
    // --document, the old spelling of --format document (one release).
    const ended = args.indexOf("--");
    const old = (a: string, i: number) => a === "--document" && (ended < 0 || i < ended);
    if (args.some(old)) {
      await io.stderr("note: sign-schema: --document is deprecated; use --format document\n");
      args = args.map((a, i) => old(a, i) ? "--format=document" : a);
    }
    const { values, positionals } = parseCommandArgs("sign-schema", args, ALL_FLAGS);
    if (!values.key) {
      throw new UsageError("sign-schema: --key PRIVATE.pem is required (or ssh-agent:PUBFILE)");
    }
    const loadKey = () =>
      loadSigner(values.key!, io, {
        command: "sign-schema",
        passphraseFile: values["passphrase-file"],
      });
    const given = DOCUMENT_ONLY_FLAGS.filter((k) => values[k] !== undefined).map((k) => `--${k}`);
    const { format, inferred } = asUsage(
      "sign-schema",
      () => chooseSignatureFormat(values.format, given),
    );
    const now = Math.floor(Date.now() / 1000) * 1000; // whole seconds in signed_at
    const docOptions = format === "bare"
      ? undefined
      : asUsage("sign-schema", () =>
        schemaDocumentOptions(
          signatureMetadata("sign-schema", values, now),
          values["schema-version"],
          values["previous-hash"],
        ));
    // Said once the inputs were read and signing succeeded: never before a failure.
    const inferredNote = async () => {
      if (!inferred) return;
      await io.stderr(
        "note: sign-schema: writing a 1.4 signature document (--format document); pass " +
          "--format to choose\n",
      );
    };
    if (values.batch !== undefined) {
      if (positionals.length > 0) {
        throw new UsageError("sign-schema: --batch takes no SCHEMA argument");
      }
      let outDir = values["out-dir"];
      if (values.out !== undefined) {
        // --out/-o DIR with --batch: the old spelling of --out-dir (one release).
        if (outDir !== undefined) {
          throw new UsageError("sign-schema: give --out-dir DIR (not also --out) with --batch");
        }
        await io.stderr(
          "note: sign-schema: --out with --batch is deprecated; use --out-dir DIR\n",
        );
        outDir = values.out;
      }
      if (!outDir) throw new UsageError("sign-schema: --batch needs --out-dir DIR");
      const threads = batchThreadsSetting(); // refused before the key is even read
      const signer = await loadKey();
      if (isSshAgentKey(values.key) && threads !== undefined && threads > 0) {
        await io.stderr(
          "note: sign-schema: a key held by the SSH agent signs on the main thread; " +
            "SCHEMAPIN_BATCH_THREADS is not used\n",
        );
      }
      return await signBatch(
        {
          dir: values.batch,
          pattern: values.pattern ?? "*.json",
          outDir,
          format,
          force: values.force === true,
          signer,
          docOptions,
          threads,
        },
        { ...values, note: inferredNote },
        io,
      );
    }
    if (values["out-dir"] !== undefined) {
      throw new UsageError(
        "sign-schema: --out-dir goes with --batch; a single schema takes --out FILE",
      );
    }
    if (values.pattern !== undefined) {
      throw new UsageError("sign-schema: --pattern goes with --batch");
    }
    const [file] = requirePositionals("sign-schema", positionals, 1, "one SCHEMA.json (or -)");
    if (values.out !== undefined && values.force !== true) {
      await refuseFormatSwitch(values.out, format);
    }
    const signer = await loadKey();
    const schema = await readJsonFile(file, io, "schema");
    const signed = await signOneWithSigner(schema, signer, docOptions, sourceName(file));
    await inferredNote();
    if (values.out !== undefined) {
      await writeFileAtomic(values.out, signed.text, { overwrite: values.force === true });
      if (values.json) {
        await io.stdout(jsonOutput("sign-schema", { ok: true, ...signed.json, out: values.out }));
      } else if (!values.quiet) await io.stdout(`wrote ${values.out}\n`);
    } else {
      await io.stdout(
        values.json ? jsonOutput("sign-schema", { ok: true, ...signed.json }) : signed.text,
      );
    }
    return EXIT_OK;
  },
};

/** `--batch`: the folder signed, each file reported as it is written, then the summary. */
async function signBatch(
  target: Omit<SignFolderOptions, "read" | "onItem" | "onProgress" | "onWarning">,
  ctx: { json?: boolean; quiet?: boolean; note?: () => Promise<void> },
  io: CliIO,
): Promise<number> {
  const progress = progressLine(io, ctx.quiet);
  let noted = false;
  let outcome;
  try {
    // Results in order; a signed file is reported once its commit made it durable.
    outcome = await signSchemaFolder({
      ...target,
      pattern: checkPatternFlag(target.pattern),
      read: (path) => readInput(path, io),
      onItem: async (item) => {
        progress.clear();
        if (item.error === undefined && !noted) {
          noted = true; // the format note, with the first signature written
          await ctx.note?.();
        }
        if (ctx.json) return;
        if (item.error !== undefined) {
          await io.stderr(`error: ${item.path}: ${item.error.code}: ${item.error.message}\n`);
        } else if (!ctx.quiet) await io.stdout(`signed ${item.path} -> ${item.out}\n`);
      },
      onProgress: batchProgress("sign-schema", progress),
      onWarning: (line) => (progress.clear(), io.stderr(line)),
    });
  } finally {
    progress.clear();
  }
  const { total, failed } = outcome;
  return await finishBatch({
    command: "sign-schema",
    verb: "signed",
    dir: target.dir,
    pattern: target.pattern,
    outcome,
    json: ctx.json === true,
    line: `${total - failed} of ${total} schema(s) signed` +
      (failed ? `, ${failed} failed\n` : "\n"),
  }, io);
}
