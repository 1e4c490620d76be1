/**
 * `schemapin bundle merge`: verify bundles against the authority allow-list, then merge them
 * into one unsigned bundle (§21.4 `merge_trust_bundles`).
 *
 * @module
 */
import { formatTrustBundle } from "../../lib/bundle/file.ts";
import { bundleDomains, bundleMergeJson } from "../bundle/json_fields.ts";
import { parseAuthorityPrecedence } from "../bundle/option_values.ts";
import { verifyAndMergeTrustBundles } from "../bundle/verify_merge.ts";
import { sourceName } from "../../lib/schema/input.ts";
import { asUsage, type CliIO, EXIT_OK, notice, parseCommandArgs, UsageError } from "./command.ts";
import { exitCodeFor } from "../exit_codes.ts";
import { jsonOutput } from "./json_output.ts";
import { writeFileAtomic } from "./io.ts";
import { reportInputFailure } from "./schema_inputs.ts";
import {
  authorityStoreFromFlags,
  readBundleFile,
  verificationHint,
  verificationNotes,
} from "./bundle_trust.ts";
import { type FlagTable, valueFlag } from "../args/flags.ts";
import { AUTHORITY_FLAGS, FORCE_FLAGS, jsonFlag } from "./flag_groups.ts";

/** The flags of `bundle merge`. */
export const MERGE_FLAGS = {
  out: valueFlag(
    "FILE",
    "the merged bundle to write (required; the old form `bundle merge OUT IN…` still " +
      "works, with a note)",
  ),
  ...FORCE_FLAGS,
  precedence: valueFlag("KID,…", "authority precedence, highest first (unlisted authorities last)"),
  ...AUTHORITY_FLAGS,
  ...jsonFlag(
    "schemapin.bundle.merge/1: ok, out, inputs (as bundle verify), documents, revocations",
  ),
  // Old spelling, kept for one release (its meaning here was the authority, not a tool key).
  "trust-first-use": { type: "boolean", help: "", deprecated: "trust-first-use-authority" },
} as const satisfies FlagTable;

/** `bundle merge --out OUT IN… [--precedence KID,…]` with the authority options of verify. */
export async function runBundleMerge(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("bundle merge", args, MERGE_FLAGS);
  let out: string;
  let inputs: string[];
  if (values.out !== undefined) {
    if (positionals.length < 1) {
      throw new UsageError("bundle merge: expected at least one IN bundle");
    }
    [out, inputs] = [values.out, positionals];
  } else {
    // The old form, `bundle merge OUT IN…`, still works for one release, with a note.
    if (positionals.length < 2) {
      throw new UsageError("bundle merge: expected --out FILE and at least one IN bundle");
    }
    [out, ...inputs] = positionals;
    notice(`note: bundle merge OUT IN… is deprecated; use bundle merge --out ${out} IN…\n`);
  }
  if (out === "-") throw new UsageError("bundle merge: OUT must be a file");
  if (inputs.includes(out)) {
    throw new UsageError(`bundle merge: OUT ${out} is also an input; write to a new file`);
  }
  const precedence = asUsage("bundle merge", () => parseAuthorityPrecedence(values.precedence));
  const json = values.json === true;
  let merge;
  let persisted = false;
  try {
    const bundles = await Promise.all(inputs.map((f) => readBundleFile(f, io)));
    const flags = await authorityStoreFromFlags("bundle merge", values, io);
    persisted = flags.persisted;
    merge = await verifyAndMergeTrustBundles(
      inputs.map((file, i) => ({ value: bundles[i], source: sourceName(file) })),
      flags.store,
      {
        allowFirstUse: values["trust-first-use-authority"] === true,
        precedence,
        createdAt: Math.floor(Date.now() / 1000) * 1000,
      },
    );
  } catch (e) {
    return await reportInputFailure(e, json, io);
  }
  const { results, merged } = merge;
  const sources = inputs.map(sourceName);
  if (merged === undefined) {
    // Only verified bundles may be merged (§21.4): one failure stops the merge.
    const result = results[results.length - 1];
    if (json) {
      await io.stdout(jsonOutput("bundle.merge", bundleMergeJson(out, sources, merge)));
    } else {
      await io.stderr(`error: ${result.errorCode}: ${result.errorMessage}\n`);
      await io.stderr(verificationHint(result));
      await io.stderr(`bundle merge: nothing written to ${out}\n`);
    }
    return exitCodeFor(result.errorCode, "verdict");
  }
  await writeFileAtomic(out, formatTrustBundle(merged), { overwrite: values.force === true });
  const store = { persisted, path: values["authority-store"] };
  const notes = results.map((r, i) => verificationNotes(inputs[i], r, store)).join("");
  if (notes) await io.stderr(notes);
  const list = (xs: string[]) => (xs.length > 0 ? xs.join(", ") : "none");
  const domains = bundleDomains(merged);
  await io.stdout(
    json
      ? jsonOutput("bundle.merge", bundleMergeJson(out, sources, merge))
      : `merged ${inputs.length} verified bundle(s) into ${out} (unsigned; sign it before ` +
        `sharing)\ndocuments: ${list(domains.documents)}\n` +
        `revocations: ${list(domains.revocations)}\n`,
  );
  return EXIT_OK;
}
