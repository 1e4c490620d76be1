/**
 * `schemapin sign-schema`: sign a tool schema — a bare Base64 signature (v1.3, §4.1) or a 1.4
 * schema signature document, chosen with `--format` (inferred from the metadata flags, with a
 * note, when it is not given).
 *
 * @module
 */
import type { Signer } from "../crypto/signer.ts";
import type { SchemaDocumentOptions } from "../schema/document.ts";
import { describeBadSha256Ref, isSha256Ref } from "../crypto/fingerprint.ts";
import {
  type CliIO,
  type Command,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { isSshAgentKey, privateKeyOf } from "../keys/signer.ts";
import { AtomicBatchWriter, removeDeadWriterTempFiles } from "../runtime/atomic_write.ts";
import { exitCodeOfError } from "../exit_codes.ts";
import { failureFields, jsonOutput } from "./json_output.ts";
import { readInput, writeFileAtomic } from "./io.ts";
import { progressLine } from "./progress.ts";
import { checkPatternFlag, readJsonFile, sourceName } from "./schema_inputs.ts";
import { loadSigner } from "./private_key.ts";
import { batchProgress, finishBatch } from "./schema_report.ts";
import { signatureMetadata } from "./signature_options.ts";
import { signOneWithSigner } from "../schema/sign_one.ts";
import { signSchemaBatch } from "../schema/batch.ts";
import {
  prepareSignBatch,
  refuseFormatSwitch,
  type SignatureFormat,
} from "../schema/sign_output.ts";
import { batchThreadsSetting } from "../schema/batch_pool.ts";
import { type FlagTable, optionList, valueFlag } from "./flags.ts";
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

type Values = ReturnType<typeof parseCommandArgs<typeof ALL_FLAGS>>["values"];

/** The flags that only a 1.4 document carries. */
const DOCUMENT_ONLY_FLAGS = Object.keys(METADATA_FLAGS) as (keyof typeof METADATA_FLAGS)[];

/**
 * The format to write: `--format` when given (`bare` with a metadata flag is a usage error
 * naming them), else inferred — `document` when a metadata flag is given (`inferred` is then
 * true: the caller says so on stderr), else `bare`.
 *
 * @example
 * ```ts
 * import { chooseSignatureFormat } from "./sign_schema.ts";
 * chooseSignatureFormat({ domain: "example.com" }); // { format: "document", inferred: true }
 * chooseSignatureFormat({ format: "bare" }); // { format: "bare", inferred: false }
 * ```
 */
export function chooseSignatureFormat(
  values: { readonly format?: string } & { readonly [flag: string]: unknown },
): { format: SignatureFormat; inferred: boolean } {
  const given = DOCUMENT_ONLY_FLAGS.filter((k) => values[k] !== undefined).map((k) => `--${k}`);
  if (values.format === undefined) {
    return given.length > 0
      ? { format: "document", inferred: true }
      : { format: "bare", inferred: false };
  }
  if (values.format !== "bare" && values.format !== "document") {
    throw new UsageError(
      `sign-schema: --format ${JSON.stringify(values.format)}: give bare or document`,
    );
  }
  if (values.format === "bare" && given.length > 0) {
    throw new UsageError(
      `sign-schema: --format bare does not go with ${given.join(", ")} (a 1.4 document's ` +
        "fields); use --format document",
    );
  }
  return { format: values.format, inferred: false };
}

/** The document options asked for on the command line, or undefined for a bare signature. */
function documentOptions(
  values: Values,
  format: SignatureFormat,
  now: number,
): SchemaDocumentOptions | undefined {
  if (format === "bare") return undefined;
  const options: SchemaDocumentOptions = signatureMetadata("sign-schema", values, now);
  // Checked here, not only when the first schema is signed: a --batch run creates --out-dir.
  if (values["schema-version"] === "") {
    throw new UsageError("sign-schema: --schema-version is empty");
  }
  if (values["previous-hash"] !== undefined && !isSha256Ref(values["previous-hash"])) {
    throw new UsageError(
      `sign-schema: --previous-hash ${JSON.stringify(values["previous-hash"])} ${
        describeBadSha256Ref(values["previous-hash"])
      }`,
    );
  }
  if (values["schema-version"] !== undefined) options.schemaVersion = values["schema-version"];
  if (values["previous-hash"] !== undefined) options.previousHash = values["previous-hash"];
  return options;
}

function loadKey(keyArg: string, io: CliIO, passphraseFile?: string): Promise<Signer> {
  return loadSigner(keyArg, io, { command: "sign-schema", passphraseFile });
}

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
    const { format, inferred } = chooseSignatureFormat(values);
    const now = Math.floor(Date.now() / 1000) * 1000; // whole seconds in signed_at
    const docOptions = documentOptions(values, format, now);
    if (inferred) {
      await io.stderr(
        "note: sign-schema: writing a 1.4 signature document (--format document); pass " +
          "--format to choose\n",
      );
    }
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
      const signer = await loadKey(values.key, io, values["passphrase-file"]);
      if (isSshAgentKey(values.key) && threads !== undefined && threads > 0) {
        await io.stderr(
          "note: sign-schema: a key held by the SSH agent signs on the main thread; " +
            "SCHEMAPIN_BATCH_THREADS is not used\n",
        );
      }
      return await signBatch(values.batch, values.pattern ?? "*.json", outDir, signer, {
        docOptions,
        format,
        json: values.json === true,
        quiet: values.quiet === true,
        force: values.force === true,
        io,
        threads,
      });
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
    const signer = await loadKey(values.key, io, values["passphrase-file"]);
    const schema = await readJsonFile(file, io, "schema");
    const signed = await signOneWithSigner(schema, signer, docOptions, sourceName(file));
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

async function signBatch(
  dir: string,
  pattern: string,
  outDir: string,
  signer: Signer,
  ctx: {
    docOptions: SchemaDocumentOptions | undefined;
    format: SignatureFormat;
    json: boolean;
    quiet: boolean;
    force: boolean;
    io: CliIO;
    /** `SCHEMAPIN_BATCH_THREADS`, read when the command started. */
    threads: number | undefined;
  },
): Promise<number> {
  const { io } = ctx;
  const { files, skipped } = await prepareSignBatch({
    dir,
    pattern: checkPatternFlag(pattern),
    outDir,
    format: ctx.format,
    force: ctx.force,
  });
  removeDeadWriterTempFiles(outDir); // left by a batch that was killed before it committed
  const progress = progressLine(io, ctx.quiet);
  const results: Record<string, unknown>[] = [];
  let failed = 0;
  // The batch's exit code: the worst of its failures' rows in lib/exit_codes.ts.
  let worst: number = EXIT_OK;
  const key = privateKeyOf(signer);
  try {
    // Results in order; a signed file is reported once its commit made it durable.
    await signSchemaBatch({
      dir,
      files,
      outDir,
      // A key from a file signs on worker threads when the batch is large; a key held by an
      // SSH agent is not in this process and signs on this thread, one request per schema.
      ...(key !== undefined ? { key } : { signer }),
      docOptions: ctx.docOptions,
      read: (path) => readInput(path, io),
      writer: new AtomicBatchWriter(),
      threads: ctx.threads,
      onResults: async (items) => {
        progress.clear();
        for (const item of items) {
          if (item.error !== undefined) {
            failed++;
            worst = Math.max(worst, exitCodeOfError(item.error));
            results.push({
              file: item.path,
              ...failureFields(item.error.code, item.error.message),
            });
            if (!ctx.json) {
              await io.stderr(`error: ${item.path}: ${item.error.code}: ${item.error.message}\n`);
            }
            continue;
          }
          results.push({ file: item.path, ok: true, ...item.json, out: item.out });
          if (!ctx.json && !ctx.quiet) await io.stdout(`signed ${item.path} -> ${item.out}\n`);
        }
      },
      onProgress: batchProgress("sign-schema", progress),
      onWarning: (line) => (progress.clear(), io.stderr(line)),
    });
  } finally {
    progress.clear();
  }
  return await finishBatch({
    command: "sign-schema",
    verb: "signed",
    dir,
    pattern,
    total: files.length,
    failed,
    worst,
    skipped,
    results,
    json: ctx.json,
    line: `${files.length - failed} of ${files.length} schema(s) signed` +
      (failed ? `, ${failed} failed\n` : "\n"),
  }, io);
}
