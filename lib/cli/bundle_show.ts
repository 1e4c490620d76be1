/**
 * `schemapin bundle show`: print a trust bundle's contents (not verified).
 *
 * @module
 */
import { parsePublicKeyPem } from "../crypto/keys.ts";
import { isSignedTrustBundle } from "../bundle/bundle.ts";
import { type CliIO, EXIT_OK, parseCommandArgs, UsageError } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { sourceName } from "./schema_inputs.ts";
import { parseBundleInput, readBundleFile } from "./bundle_trust.ts";
import type { FlagTable } from "./flags.ts";
import { jsonFlag } from "./flag_groups.ts";

/** The flags of `bundle show`. */
export const SHOW_FLAGS = {
  ...jsonFlag(
    "schemapin.bundle.show/1: ok, file, signed, verified (always false), authority, " +
      "documents, revocations",
  ),
} as const satisfies FlagTable;

function fingerprintOf(pem: string): string | null {
  try {
    return parsePublicKeyPem(pem).fingerprint;
  } catch {
    return null;
  }
}

/** `bundle show BUNDLE [--json]`. */
export async function runBundleShow(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("bundle show", args, SHOW_FLAGS);
  if (positionals.length !== 1) {
    throw new UsageError(`bundle show: expected one BUNDLE, got ${positionals.length} argument(s)`);
  }
  const file = positionals[0];
  const value = await readBundleFile(file, io);
  const bundle = parseBundleInput(value, file);
  const signed = isSignedTrustBundle(value);
  const authority = bundle.bundle_authority
    ? {
      kid: bundle.bundle_authority.kid,
      fingerprint: fingerprintOf(bundle.bundle_authority.public_key_pem),
    }
    : null;
  const documents = bundle.documents.map((d) => ({
    domain: d.domain,
    schema_version: d.schema_version,
    ...(d.developer_name !== undefined ? { developer_name: d.developer_name } : {}),
    key_fingerprint: fingerprintOf(d.public_key_pem),
    revoked_keys: d.revoked_keys.length,
    ...(d.revocation_endpoint !== undefined ? { revocation_endpoint: d.revocation_endpoint } : {}),
  }));
  const revocations = bundle.revocations.map((r) => ({
    domain: r.domain,
    updated_at: r.updated_at,
    revoked_keys: r.revoked_keys.length,
  }));
  if (values.json) {
    await io.stdout(jsonOutput("bundle.show", {
      ok: true,
      file: sourceName(file),
      schemapin_bundle_version: bundle.schemapin_bundle_version,
      created_at: bundle.created_at,
      signed,
      verified: false,
      authority,
      ...(bundle.signed_at !== undefined ? { signed_at: bundle.signed_at } : {}),
      ...(bundle.expires_at !== undefined ? { expires_at: bundle.expires_at } : {}),
      documents,
      revocations,
    }));
    return EXIT_OK;
  }
  const lines = [
    `bundle: ${sourceName(file)} (version ${bundle.schemapin_bundle_version}, created ` +
    `${bundle.created_at})`,
    signed
      ? `signed by: ${authority?.kid} ${authority?.fingerprint ?? "(unparseable key)"} at ` +
        `${bundle.signed_at ?? "-"}, expires ${bundle.expires_at ?? "never"} — NOT verified ` +
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
