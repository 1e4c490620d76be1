/**
 * `schemapin bundle show`: print a trust bundle's contents (not verified).
 *
 * @module
 */
import { bundleContentsJson } from "../bundle/json_fields.ts";
import { parseTrustBundleFile } from "../../lib/bundle/file.ts";
import { sourceName } from "../../lib/schema/input.ts";
import { type CliIO, EXIT_OK, parseCommandArgs, requirePositionals } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { readBundleFile } from "./bundle_trust.ts";
import type { FlagTable } from "../args/flags.ts";
import { jsonFlag } from "./flag_groups.ts";

/** The flags of `bundle show`. */
export const SHOW_FLAGS = {
  ...jsonFlag(
    "schemapin.bundle.show/1: ok, file, signed, verified (always false), authority, " +
      "documents, revocations",
  ),
} as const satisfies FlagTable;

/** `bundle show BUNDLE [--json]`. */
export async function runBundleShow(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("bundle show", args, SHOW_FLAGS);
  const [file] = requirePositionals("bundle show", positionals, 1, "one BUNDLE");
  const value = await readBundleFile(file, io);
  const contents = bundleContentsJson(value, parseTrustBundleFile(value, file));
  if (values.json) {
    await io.stdout(jsonOutput("bundle.show", { ok: true, file: sourceName(file), ...contents }));
    return EXIT_OK;
  }
  const { authority, documents, revocations } = contents;
  const lines = [
    `bundle: ${sourceName(file)} (version ${contents.schemapin_bundle_version}, created ` +
    `${contents.created_at})`,
    contents.signed
      ? `signed by: ${authority?.kid} ${authority?.fingerprint ?? "(unparseable key)"} at ` +
        `${contents.signed_at ?? "-"}, expires ${contents.expires_at ?? "never"} — NOT verified ` +
        `(use \`schemapin bundle verify\`)`
      : "unsigned",
    `documents (${documents.length}):`,
    ...documents.map((d) =>
      `  ${d.domain}  ${d.developer_name ?? "-"}  ${d.key_fingerprint ?? "(unparseable key)"}` +
      (d.revoked_keys > 0 ? `  revoked keys: ${d.revoked_keys}` : "")
    ),
    `revocations (${revocations.length}):`,
    ...revocations.map((r) => `  ${r.domain}  updated ${r.updated_at}  revoked: ${r.revoked_keys}`),
  ];
  await io.stdout(lines.join("\n") + "\n");
  return EXIT_OK;
}
