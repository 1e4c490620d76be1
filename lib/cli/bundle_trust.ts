/**
 * What the bundle commands share, and what `verify-schema` / `verify-skill --bundle FILE`
 * use: the authority allow-list flags (`--authority KID=FP`, `--authority-key KID=PEM`,
 * `--authority-store FILE`) a signed bundle is verified against (§21.4; the store is
 * lib/bundle/verify_key.ts, the bundle is loaded by lib/trust/load.ts), reading a bundle file
 * (lib/bundle/file.ts) through the CLI's reader, and the report of a verification.
 *
 * @module
 */
import { parsePublicKeyPem } from "../crypto/keys.ts";
import { isSha256Ref } from "../crypto/fingerprint.ts";
import type { BundleAuthorityStore } from "../bundle/authority.ts";
import { checkKid, type TrustBundle } from "../bundle/bundle.ts";
import { parseTrustBundleFile, readTrustBundleFile } from "../bundle/file.ts";
import type { TrustBundleVerification } from "../bundle/verify.ts";
import { authorityAllowList } from "../bundle/verify_key.ts";
import { verificationFields } from "../json/result_fields.ts";
import type { JsonOutputFields } from "./json_output.ts";
import { sourceName } from "../schema/input.ts";
import { type CliIO, UsageError } from "./command.ts";
import { readInput, readTextInput } from "./io.ts";

/** The flag values {@linkcode authorityStoreFromFlags} reads. */
export interface AuthorityFlagValues {
  /** `--authority KID=FINGERPRINT`, repeatable. */
  authority?: string[];
  /** `--authority-key KID=PEM`, repeatable. */
  "authority-key"?: string[];
  /** `--authority-store FILE`. */
  "authority-store"?: string;
  /** `--trust-first-use-authority` (verify-schema, verify-skill). */
  "trust-first-use-authority"?: boolean;
}

/** True when any allow-list flag was given. */
export function hasAuthorityFlags(values: AuthorityFlagValues): boolean {
  return (values.authority?.length ?? 0) + (values["authority-key"]?.length ?? 0) > 0 ||
    values["authority-store"] !== undefined || values["trust-first-use-authority"] === true;
}

/** A usage error when allow-list flags are given without `--bundle`. */
export function rejectAuthorityFlags(command: string, values: AuthorityFlagValues): void {
  if (hasAuthorityFlags(values)) {
    throw new UsageError(
      `${command}: --authority, --authority-key, --authority-store and ` +
        "--trust-first-use-authority go with --bundle FILE",
    );
  }
}

function splitPair(command: string, flag: string, value: string, what: string): [string, string] {
  const at = value.indexOf("=");
  if (at <= 0 || at === value.length - 1) {
    throw new UsageError(`${command}: ${flag} ${JSON.stringify(value)} is not KID=${what}`);
  }
  const kid = value.slice(0, at);
  const problem = checkKid(kid);
  if (problem) throw new UsageError(`${command}: ${flag} ${JSON.stringify(value)}: ${problem}`);
  return [kid, value.slice(at + 1)];
}

/**
 * Checks the form of every `--authority KID=FINGERPRINT` and `--authority-key KID=PEM` value
 * without reading a file, so a malformed one is a usage error before anything is fetched,
 * written or read ({@linkcode authorityStoreFromFlags} repeats the checks and reads the keys).
 */
export function checkAuthorityFlags(command: string, values: AuthorityFlagValues): void {
  for (const v of values.authority ?? []) {
    const [, fp] = splitPair(command, "--authority", v, "FINGERPRINT");
    if (!isSha256Ref(fp)) {
      throw new UsageError(
        `${command}: --authority ${JSON.stringify(v)}: the fingerprint must be sha256: and 64 ` +
          `lower-case hex digits (see \`schemapin fingerprint\`)`,
      );
    }
  }
  for (const v of values["authority-key"] ?? []) splitPair(command, "--authority-key", v, "PEM");
}

/**
 * The allow-list for one run (lib/bundle/verify_key.ts): the `--authority-store` file when
 * given (with the command-line authorities seeded into it), else an in-memory store holding
 * only the command-line authorities. A kid given twice is a usage error; a command-line
 * fingerprint that contradicts the store is `KEY_PIN_MISMATCH` (exit 1).
 */
export async function authorityStoreFromFlags(
  command: string,
  values: AuthorityFlagValues,
  io: CliIO,
): Promise<{ store: BundleAuthorityStore; persisted: boolean }> {
  const given = new Map<string, string>();
  const add = (kid: string, fingerprint: string, flag: string) => {
    const previous = given.get(kid);
    if (previous !== undefined) {
      throw new UsageError(
        `${command}: authority ${JSON.stringify(kid)} is given twice` +
          (previous === fingerprint ? "" : " with different keys") + ` (${flag})`,
      );
    }
    given.set(kid, fingerprint);
  };
  checkAuthorityFlags(command, values);
  for (const v of values.authority ?? []) {
    const [kid, fp] = splitPair(command, "--authority", v, "FINGERPRINT");
    add(kid, fp, "--authority");
  }
  for (const v of values["authority-key"] ?? []) {
    const [kid, path] = splitPair(command, "--authority-key", v, "PEM");
    const key = parsePublicKeyPem(await readTextInput(path, io), sourceName(path));
    add(kid, key.fingerprint, "--authority-key");
  }
  const file = values["authority-store"];
  return { store: await authorityAllowList(given, file), persisted: file !== undefined };
}

/**
 * Parses a bundle read from `path`; a malformed bundle is `INPUT_INVALID` (exit 2) naming the
 * file and the field (lib/bundle/file.ts).
 */
export const parseBundleInput: (value: unknown, path: string) => TrustBundle = parseTrustBundleFile;

/** Reads a bundle file strictly (`JSON_INVALID` / `IO_FAILED` name the file). */
export async function readBundleFile(path: string, io: CliIO): Promise<unknown> {
  return await readTrustBundleFile(path, (p) => readInput(p, io));
}

// ---------------------------------------------------------------------------------------------
// The report of a bundle verification (bundle verify, bundle merge).

/** The `--json` form of a verification result (the verified bundle itself left out). */
export function verificationJson(
  file: string,
  result: TrustBundleVerification,
): JsonOutputFields {
  const { ok, error, ...rest } = verificationFields(result, [
    "failedStep",
    "kid",
    "fingerprint",
    "expectedFingerprint",
    "firstUse",
    "signedAt",
    "expiresAt",
  ]);
  return {
    ok,
    ...(error !== undefined ? { error } : {}),
    file: sourceName(file),
    ...rest,
    ...(result.verified
      ? {
        documents: result.verified.bundle.documents.map((d) => d.domain),
        revocations: result.verified.bundle.revocations.map((r) => r.domain),
      }
      : {}),
    warnings: result.warnings,
    ...(result.unprotectedFields ? { unprotected_fields: result.unprotectedFields } : {}),
  };
}

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
