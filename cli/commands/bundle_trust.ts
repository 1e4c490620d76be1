/**
 * What the bundle commands share, and what `verify-schema` / `verify-skill --bundle FILE`
 * use: the authority allow-list of the `--authority…` flags a signed bundle is verified
 * against (§21.4; cli/bundle/authority_options.ts), reading a bundle file (lib/bundle/file.ts)
 * through the CLI's reader, and the hint and notes of a verification.
 *
 * @module
 */
import { type AuthorityOptionValues, authorityStoreFrom } from "../bundle/authority_options.ts";
import type { BundleAuthorityStore } from "../../lib/bundle/authority.ts";
import { readTrustBundleFile } from "../../lib/bundle/file.ts";
import type { TrustBundleVerification } from "../../lib/bundle/verify.ts";
import { sourceName } from "../../lib/schema/input.ts";
import { asUsage, type CliIO } from "./command.ts";
import { readInput } from "./io.ts";

/**
 * The allow-list for one run (`authorityStoreFrom` of cli/bundle/authority_options.ts), its
 * files read through `io`: a kid given twice is a usage error; a command-line fingerprint
 * that contradicts the store is `KEY_PIN_MISMATCH` (exit 1).
 */
export function authorityStoreFromFlags(
  command: string,
  values: AuthorityOptionValues,
  io: CliIO,
): Promise<{ store: BundleAuthorityStore; persisted: boolean }> {
  return asUsage(command, () => authorityStoreFrom(values, (p) => readInput(p, io)));
}

/** Reads a bundle file strictly (`JSON_INVALID` / `IO_FAILED` name the file). */
export async function readBundleFile(path: string, io: CliIO): Promise<unknown> {
  return await readTrustBundleFile(path, (p) => readInput(p, io));
}

// ---------------------------------------------------------------------------------------------
// The report of a bundle verification (bundle verify, bundle merge); its `--json` fields are
// cli/bundle/json_fields.ts.

/** The advice printed after a failure the operator can act on. */
export function verificationHint(result: TrustBundleVerification): string {
  switch (result.errorCode) {
    case "BUNDLE_AUTHORITY_UNTRUSTED":
      return `hint: confirm the authority's fingerprint out of band (its domain's ` +
        `.well-known/schemapin.json or DNS TXT), then pass --authority ${result.kid}=` +
        `${result.fingerprint}, or opt in with --trust-first-use-authority\n`;
    case "KEY_PIN_MISMATCH":
      return `hint: the bundle's authority key is not the one recorded for ${result.kid}; if ` +
        `the authority rotated its key, confirm the new fingerprint out of band and update the ` +
        `allow-list deliberately\n`;
    case "BUNDLE_UNSIGNED":
      return "hint: unsigned bundles need no verification; use them directly, or sign with " +
        "`schemapin bundle sign`\n";
    default:
      return "";
  }
}

/** Notes for a successful verification that the operator must see (stderr). */
export function verificationNotes(
  file: string,
  result: TrustBundleVerification,
  store: { persisted: boolean; path?: string },
): string {
  let text = "";
  if (result.firstUse) {
    text += `warning: ${sourceName(file)}: authority ${JSON.stringify(result.kid)} ` +
      `(${result.fingerprint}) was not in the allow-list and is trusted on first use ` +
      (store.persisted
        ? `(--trust-first-use-authority); recorded in ${store.path}\n`
        : `(--trust-first-use-authority); not recorded — give --authority-store FILE to remember it\n`);
  }
  if (result.unprotectedFields && result.unprotectedFields.length > 0) {
    text += `warning: ${sourceName(file)}: fields not covered by the signature were ignored: ` +
      `${result.unprotectedFields.join(", ")}\n`;
  }
  return text;
}
