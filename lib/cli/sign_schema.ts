/**
 * `schemapin sign-schema`: sign a tool schema — a bare Base64 signature (v1.3, §4.1) by
 * default, a 1.4 schema signature document when any metadata is asked for.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { PrivateKey } from "../crypto/keys.ts";
import type { SchemaDocumentOptions } from "../schema/document.ts";
import { describeBadSha256Ref, isSha256Ref } from "../crypto/fingerprint.ts";
import {
  type CliIO,
  type Command,
  EXIT_OK,
  EXIT_USAGE,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { exitCodeOfError } from "./exit_codes.ts";
import { batchFailure, failureFields, jsonError, jsonOutput } from "./json_output.ts";
import {
  AtomicBatchWriter,
  describeFsError,
  readInput,
  removeDeadWriterTempFiles,
  writeFileAtomic,
} from "./io.ts";
import { count, progressLine } from "./progress.ts";
import { joinPath, listBatch, readJsonFile, sourceName } from "./schema_inputs.ts";
import { loadPrivateKey, PASSPHRASE_OPTIONS } from "./private_key.ts";
import { signatureMetadata } from "./signature_options.ts";
import { signOne } from "../schema/sign_one.ts";
import { signSchemaBatch } from "../schema/batch.ts";
import { batchThreadsSetting } from "../schema/batch_pool.ts";

const HELP = `schemapin sign-schema — sign a tool schema

Usage:
  schemapin sign-schema SCHEMA.json|- --key PRIVATE.pem [--out FILE [-f]] [metadata…]
  schemapin sign-schema --batch DIR [--pattern GLOB] --out DIR --key PRIVATE.pem [-f] [-q]
      [metadata…]

Without metadata the output is a bare Base64 signature (SchemaPin v1.3, spec §4.1: ECDSA
P-256 over SHA-256(SHA-256(schemapin-v1 canonical schema))). With any metadata option, or
--document, it is a 1.4 schema signature document (JSON: schemapin_version, schema_hash,
signature, signed_at, and the fields below), whose signature covers every field.

Metadata (selects the document format):
  --expires-in DURATION   expiry from now: 30d, 12h, 90m, 2w, 1d12h
  --expires-at TIME       expiry as strict RFC 3339 (2026-11-01T10:00:00Z)
  --schema-version V      version tag of this schema (e.g. 2.1.0)
  --previous-hash H       schema_hash (sha256:…) of the previous signed version
  --domain D              the publisher's domain
  --signer-kid KID        key id
  --document              write a document even without the options above

Options:
  -k, --key FILE    private key (PKCS#8, encrypted PKCS#8 or SEC1 PEM), required
  --passphrase-file FILE  passphrase of an encrypted --key: the file's first line (else
                    $SCHEMAPIN_PASSPHRASE, else a prompt on the terminal)
  -o, --out PATH    write the signature to FILE (default stdout); with --batch, the folder
                    the signatures go to (required; --out-dir, its old name, still works)
  -f, --force       replace existing signature files (without it nothing is replaced and,
                    for a batch, nothing is written)
  --batch DIR       sign every file in DIR matching --pattern (default *.json), writing
                    OUT/<name>.sig for each
  --pattern GLOB    file-name pattern for --batch (* and ?)
  --json            print {"format": "schemapin.sign-schema/1", "ok", "file", "signature" |
                    "document"} (batch: schemapin.sign-schema.batch/1, a summary and a list)
  -q, --quiet       print only failures and the batch summary; no progress line

Every signature file is written atomically (temporary file, fsync, rename). A batch writes
its signatures in groups, about once a second: the temporary files are synced together,
then renamed, then the directory is synced once; a file is reported as signed only once it
is durable. A batch shows a progress line on stderr when stderr is a terminal.

Exit codes: 0 signed; 2 bad arguments, unreadable or malformed schema or key (the message
names the file), or a schema with no canonical form.

Examples:
  schemapin sign-schema tool.json --key keys/private.pem > tool.json.sig
  schemapin sign-schema tool.json --key keys/private.pem --expires-in 180d \\
      --schema-version 2.1.0 --domain example.com --out tool.json.sig
  schemapin sign-schema --batch schemas/ -o sigs/ -k keys/private.pem
`;

const OPTIONS = {
  key: { type: "string" },
  out: { type: "string" },
  batch: { type: "string" },
  pattern: { type: "string" },
  force: { type: "boolean" },
  "expires-in": { type: "string" },
  "expires-at": { type: "string" },
  "schema-version": { type: "string" },
  "previous-hash": { type: "string" },
  domain: { type: "string" },
  "signer-kid": { type: "string" },
  document: { type: "boolean" },
  json: { type: "boolean" },
  quiet: { type: "boolean" },
  ...PASSPHRASE_OPTIONS,
} as const;

type Values = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>["values"];

/** The document options asked for on the command line, or undefined for a bare signature. */
function documentOptions(values: Values, now: number): SchemaDocumentOptions | undefined {
  const wanted = values.document === true ||
    [
      "expires-in",
      "expires-at",
      "schema-version",
      "previous-hash",
      "domain",
      "signer-kid",
    ].some((k) => values[k as keyof Values] !== undefined);
  if (!wanted) return undefined;
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

function loadKey(path: string, io: CliIO, passphraseFile?: string): Promise<PrivateKey> {
  return loadPrivateKey(path, io, { command: "sign-schema", passphraseFile });
}

/** The `sign-schema` command. */
export const signSchemaCommand: Command = {
  name: "sign-schema",
  summary: "sign a tool schema (bare Base64, or a 1.4 signature document with metadata)",
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs("sign-schema", args, OPTIONS);
    if (!values.key) throw new UsageError("sign-schema: --key PRIVATE.pem is required");
    const now = Math.floor(Date.now() / 1000) * 1000; // whole seconds in signed_at
    const docOptions = documentOptions(values, now);
    if (values.batch !== undefined) {
      if (positionals.length > 0) {
        throw new UsageError("sign-schema: --batch takes no SCHEMA argument");
      }
      if (!values.out) throw new UsageError("sign-schema: --batch needs --out DIR");
      const threads = batchThreadsSetting(); // refused before the key is even read
      const key = await loadKey(values.key, io, values["passphrase-file"]);
      return await signBatch(values.batch, values.pattern ?? "*.json", values.out, key, {
        docOptions,
        json: values.json === true,
        quiet: values.quiet === true,
        force: values.force === true,
        io,
        threads,
      });
    }
    if (values.pattern !== undefined) {
      throw new UsageError("sign-schema: --pattern goes with --batch");
    }
    const [file] = requirePositionals("sign-schema", positionals, 1, "one SCHEMA.json (or -)");
    const key = await loadKey(values.key, io, values["passphrase-file"]);
    const schema = await readJsonFile(file, io, "schema");
    const signed = signOne(schema, key, docOptions, sourceName(file));
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

/**
 * Without --force a batch replaces nothing: when any OUT/<name>.sig exists, it stops before
 * writing (one rule for outputs, lib/cli/flags.ts), naming the first few.
 */
function refuseExistingSignatures(outDir: string, files: readonly string[]): void {
  const existing: string[] = [];
  for (const name of files) {
    const path = joinPath(outDir, `${name}.sig`);
    try {
      Deno.lstatSync(path);
      existing.push(path);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) {
        throw new SchemaPinError("IO_FAILED", `cannot check ${path}: ${describeFsError(e)}`, {
          path,
        });
      }
    }
  }
  if (existing.length === 0) return;
  const shown = existing.slice(0, 3).join(", ") + (existing.length > 3 ? ", …" : "");
  throw new SchemaPinError(
    "IO_FAILED",
    `${existing.length} signature file(s) already exist (${shown}); nothing was written — ` +
      `add --force to replace them`,
    { path: outDir },
  );
}

async function signBatch(
  dir: string,
  pattern: string,
  outDir: string,
  key: PrivateKey,
  ctx: {
    docOptions: SchemaDocumentOptions | undefined;
    json: boolean;
    quiet: boolean;
    force: boolean;
    io: CliIO;
    /** `SCHEMAPIN_BATCH_THREADS`, read when the command started. */
    threads: number | undefined;
  },
): Promise<number> {
  const { io } = ctx;
  const { files, skipped } = await listBatch(dir, pattern);
  if (!ctx.force) refuseExistingSignatures(outDir, files);
  try {
    await Deno.mkdir(outDir, { recursive: true });
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot create ${outDir}: ${describeFsError(e)}`, {
      path: outDir,
    });
  }
  removeDeadWriterTempFiles(outDir); // left by a batch that was killed before it committed
  const progress = progressLine(io, ctx.quiet);
  const results: Record<string, unknown>[] = [];
  let failed = 0;
  // The batch's exit code: the worst of its failures' rows in lib/cli/exit_codes.ts.
  let worst: number = EXIT_OK;
  try {
    // Results in order; a signed file is reported once its commit made it durable.
    await signSchemaBatch({
      dir,
      files,
      outDir,
      key,
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
      onProgress: ({ done, total, failed }) =>
        progress.update(() =>
          `sign-schema: ${count(done)}/${count(total)} schemas` +
          (failed > 0 ? `, ${count(failed)} failed` : "")
        ),
      onWarning: (line) => (progress.clear(), io.stderr(line)),
    });
  } finally {
    progress.clear();
  }
  for (const name of skipped) {
    await io.stderr(`warning: skipped ${joinPath(dir, name)} (not a regular file)\n`);
  }
  const summary = { total: files.length, signed: files.length - failed, failed };
  if (files.length === 0) {
    const message = `no file in ${dir} matches ${JSON.stringify(pattern)}`;
    if (ctx.json) await io.stdout(jsonError("INPUT_INVALID", message));
    await io.stderr(`error: ${message}\n`);
    return EXIT_USAGE;
  }
  if (ctx.json) {
    await io.stdout(jsonOutput("sign-schema.batch", {
      ok: failed === 0,
      ...(failed === 0 ? {} : batchFailure(failed, files.length, "signed")),
      summary,
      results,
    }));
  } else {
    await io.stdout(
      `${summary.signed} of ${summary.total} schema(s) signed` +
        (failed ? `, ${failed} failed\n` : "\n"),
    );
  }
  return failed > 0 ? worst : EXIT_OK;
}
