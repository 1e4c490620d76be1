/**
 * `schemapin bundle create` and `schemapin bundle add`: assemble unsigned trust bundles
 * (§13.1) from discovery and revocation documents.
 *
 * @module
 */
import { createTrustBundle, type TrustBundle } from "../../lib/bundle/bundle.ts";
import {
  addFilesToBundle,
  formatTrustBundle,
  parseUnsignedTrustBundleFile,
} from "../../lib/bundle/file.ts";
import { bundleDocumentFiles, bundleOutputPath } from "../bundle/option_values.ts";
import {
  asUsage,
  type CliIO,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { readInput, writeFileAtomic } from "./io.ts";
import { readBundleFile } from "./bundle_trust.ts";
import { bundleDomains, bundleSummaryJson } from "../bundle/json_fields.ts";
import { booleanFlag, type FlagTable, listFlag, valueFlag } from "../args/flags.ts";
import { FORCE_FLAGS, jsonFlag } from "./flag_groups.ts";

/**
 * The documents `create` and `add` put into a bundle. `DOMAIN=FILE`, repeatable: unlike the
 * verify commands' `--discovery FILE` / `--revocation FILE` (one document of the domain being
 * verified), a bundle holds many domains, so each value names its domain.
 */
const DOCUMENT_FLAGS = {
  discovery: listFlag("DOMAIN=FILE", "a domain's .well-known/schemapin.json; repeatable"),
  revocation: listFlag("DOMAIN=FILE", "a domain's standalone revocation document; repeatable"),
} as const satisfies FlagTable;

const SUMMARY_FORMAT = "ok, out, schemapin_bundle_version, created_at, documents, revocations";

/** The flags of `bundle create`. */
export const CREATE_FLAGS = {
  out: valueFlag("FILE", "the bundle file to write (required)"),
  ...DOCUMENT_FLAGS,
  ...FORCE_FLAGS,
  ...jsonFlag(`schemapin.bundle.create/1: ${SUMMARY_FORMAT}`),
} as const satisfies FlagTable;

/** The flags of `bundle add`. */
export const ADD_FLAGS = {
  ...DOCUMENT_FLAGS,
  replace: booleanFlag("replace a domain's existing entry"),
  out: valueFlag("FILE", "write the result to FILE (default: BUNDLE in place; BUNDLE - : stdout)"),
  force: booleanFlag("replace an existing --out file (in place needs no --force)"),
  ...jsonFlag(`schemapin.bundle.add/1: ${SUMMARY_FORMAT}`),
} as const satisfies FlagTable;

/** The documents of --discovery and --revocation (DOMAIN=FILE each), added to `start`. */
async function addDocuments(
  command: string,
  start: TrustBundle,
  values: { discovery?: string[]; revocation?: string[] },
  replace: boolean,
  io: CliIO,
): Promise<TrustBundle> {
  const files = asUsage(command, () => bundleDocumentFiles(values));
  return await addFilesToBundle(start, files, (p) => readInput(p, io), { replace });
}

function describe(verb: string, bundle: TrustBundle, out: string): string {
  const list = (xs: string[]) => (xs.length > 0 ? xs.join(", ") : "none");
  const { documents, revocations } = bundleDomains(bundle);
  return `${verb} ${out}: documents: ${list(documents)}; revocations: ${list(revocations)}\n`;
}

/** `bundle create --out FILE [--discovery DOMAIN=FILE …] [--revocation DOMAIN=FILE …]`. */
export async function runBundleCreate(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("bundle create", args, CREATE_FLAGS);
  if (positionals.length > 0) {
    throw new UsageError(`bundle create: unexpected argument ${JSON.stringify(positionals[0])}`);
  }
  if (values.out === undefined) throw new UsageError("bundle create: --out FILE is required");
  const now = Math.floor(Date.now() / 1000) * 1000;
  const bundle = await addDocuments("bundle create", createTrustBundle(now), values, false, io);
  await writeFileAtomic(values.out, formatTrustBundle(bundle), {
    overwrite: values.force === true,
  });
  await io.stdout(
    values.json
      ? jsonOutput("bundle.create", bundleSummaryJson(bundle, values.out))
      : describe("created", bundle, values.out),
  );
  return EXIT_OK;
}

/** `bundle add BUNDLE [--discovery DOMAIN=FILE …] [--revocation DOMAIN=FILE …]`. */
export async function runBundleAdd(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("bundle add", args, ADD_FLAGS);
  const [file] = requirePositionals("bundle add", positionals, 1, "one BUNDLE");
  if ((values.discovery?.length ?? 0) + (values.revocation?.length ?? 0) === 0) {
    throw new UsageError("bundle add: give at least one --discovery or --revocation");
  }
  const out = asUsage("bundle add", () => bundleOutputPath(file, values.out, values.json === true));
  const value = await readBundleFile(file, io);
  const start = parseUnsignedTrustBundleFile(value, file);
  const bundle = await addDocuments("bundle add", start, values, values.replace === true, io);
  if (out === undefined) {
    await io.stdout(formatTrustBundle(bundle));
    return EXIT_OK;
  }
  // In place is the command's job; another existing --out file is replaced only with --force.
  await writeFileAtomic(out, formatTrustBundle(bundle), {
    overwrite: out === file || values.force === true,
  });
  await io.stdout(
    values.json
      ? jsonOutput("bundle.add", bundleSummaryJson(bundle, out))
      : describe("updated", bundle, out),
  );
  return EXIT_OK;
}
