/**
 * `schemapin bundle sign`: sign a trust bundle as a bundle authority (§21.4).
 *
 * @module
 */
import { checkKid } from "../../lib/bundle/bundle.ts";
import { signTrustBundleFile } from "../../lib/bundle/sign.ts";
import { signatureMetadata } from "./signature_options.ts";
import {
  asUsage,
  type CliIO,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { writeFileAtomic } from "./io.ts";
import { sourceName } from "../../lib/schema/input.ts";
import { signedBundleJson } from "../bundle/json_fields.ts";
import { readBundleFile } from "./bundle_trust.ts";
import { formatTrustBundle } from "../../lib/bundle/file.ts";
import { bundleOutputPath } from "../bundle/option_values.ts";
import { loadSigner } from "./private_key.ts";
import { booleanFlag, type FlagTable, valueFlag } from "../args/flags.ts";
import { jsonFlag, KEY_FLAGS, SIGNATURE_METADATA_FLAGS } from "./flag_groups.ts";

/** The flags of `bundle sign`. */
export const SIGN_FLAGS = {
  key: {
    ...KEY_FLAGS.key,
    help: "the authority's signing key: a PEM private key (PKCS#8, encrypted PKCS#8: asks " +
      "for the passphrase, or SEC1), or ssh-agent:PUBFILE for a key held by ssh-agent " +
      "(docs/ssh-agent.md) (required)",
  },
  kid: valueFlag("KID", "the authority key id, written into bundle_authority.kid (required)"),
  "expires-in": {
    ...SIGNATURE_METADATA_FLAGS["expires-in"],
    help: "the bundle expires after DURATION (30d, 12h, 90m, 2w, 1d12h)",
  },
  "expires-at": {
    ...SIGNATURE_METADATA_FLAGS["expires-at"],
    help: "the bundle expires at TIME (strict RFC 3339, e.g. 2026-11-01T10:00:00Z)",
  },
  "passphrase-file": KEY_FLAGS["passphrase-file"],
  out: valueFlag(
    "FILE",
    "write the signed bundle to FILE (default: BUNDLE in place; BUNDLE - : stdout)",
  ),
  force: booleanFlag("replace an existing --out file (in place needs no --force)"),
  ...jsonFlag(
    "schemapin.bundle.sign/1: ok, out, kid, fingerprint, signed_at, expires_at, documents, " +
      "revocations",
  ),
} as const satisfies FlagTable;

/**
 * `bundle sign BUNDLE --key PRIVATE.pem|ssh-agent:PUBFILE --kid KID [--expires-in D | --expires-at T]
 * [--passphrase-file FILE]`.
 */
export async function runBundleSign(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("bundle sign", args, SIGN_FLAGS);
  const [file] = requirePositionals("bundle sign", positionals, 1, "one BUNDLE");
  if (values.key === undefined) {
    throw new UsageError("bundle sign: --key PRIVATE.pem is required (or ssh-agent:PUBFILE)");
  }
  if (values.kid === undefined) throw new UsageError("bundle sign: --kid KID is required");
  const kidProblem = checkKid(values.kid);
  if (kidProblem) throw new UsageError(`bundle sign: --kid: ${kidProblem}`);
  const now = Math.floor(Date.now() / 1000) * 1000; // whole seconds in signed_at
  const { expiresAt } = signatureMetadata("bundle sign", {
    "expires-in": values["expires-in"],
    "expires-at": values["expires-at"],
  }, now);
  const out = asUsage(
    "bundle sign",
    () => bundleOutputPath(file, values.out, values.json === true),
  );
  const signer = await loadSigner(values.key, io, {
    command: "bundle sign",
    passphraseFile: values["passphrase-file"],
  });
  const value = await readBundleFile(file, io);
  const { bundle: signed, replacedKid } = await signTrustBundleFile(
    value,
    file,
    signer,
    values.kid,
    now,
    expiresAt,
  );
  if (replacedKid !== undefined) {
    await io.stderr(
      `note: ${sourceName(file)} was signed by ${JSON.stringify(replacedKid)}; that signature ` +
        `is replaced\n`,
    );
  }
  if (out === undefined) {
    await io.stdout(formatTrustBundle(signed));
    return EXIT_OK;
  }
  // In place is the command's job; another existing --out file is replaced only with --force.
  await writeFileAtomic(out, formatTrustBundle(signed), {
    overwrite: out === file || values.force === true,
  });
  const fingerprint = signer.publicKey.fingerprint;
  await io.stdout(
    values.json
      ? jsonOutput("bundle.sign", signedBundleJson(out, signed, fingerprint))
      : `signed ${out} as ${values.kid} (${fingerprint})` +
        (signed.expires_at ? `, expires ${signed.expires_at}` : "") + "\n",
  );
  return EXIT_OK;
}
