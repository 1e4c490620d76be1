/**
 * `schemapin bundle verify`: verify a signed trust bundle against the authority allow-list
 * (§21.4), and the reporting `bundle merge` shares.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { TrustBundleVerification } from "../bundle/verify.ts";
import { verifyTrustBundle } from "../bundle/verify.ts";
import {
  type CliIO,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  jsonOutput,
  parseCommandArgs,
  UsageError,
} from "./command.ts";
import { sourceName } from "./schema_inputs.ts";
import { AUTHORITY_OPTIONS, authorityStoreFromFlags, readBundleFile } from "./bundle_trust.ts";

/** Codes that mean an input could not be used (exit 2) rather than a failed check. */
const INPUT_CODES: readonly string[] = [
  "JSON_INVALID",
  "KEY_INVALID",
  "INPUT_INVALID",
  "IO_FAILED",
  "SCHEMA_CANONICALIZATION_FAILED",
  // §21.4 step 2 concerns the structure of the file the user gave: malformed input.
  "DISCOVERY_INVALID",
];

/** Exit code of a failure code: 2 for unusable input, else 1. */
export function bundleExitCode(code: string | undefined): number {
  return INPUT_CODES.includes(code ?? "") ? EXIT_USAGE : EXIT_FAILED;
}

/** The `--json` form of a verification result (the verified bundle itself left out). */
export function verificationJson(
  file: string,
  result: TrustBundleVerification,
): Record<string, unknown> {
  const out: Record<string, unknown> = { file: sourceName(file), valid: result.valid };
  const keys: (keyof TrustBundleVerification)[] = [
    "errorCode",
    "errorMessage",
    "failedStep",
    "kid",
    "fingerprint",
    "expectedFingerprint",
    "firstUse",
    "signedAt",
    "expiresAt",
  ];
  for (const k of keys) if (result[k] !== undefined) out[k] = result[k];
  if (result.verified) {
    out.documents = result.verified.bundle.documents.map((d) => d.domain);
    out.revocations = result.verified.bundle.revocations.map((r) => r.domain);
  }
  out.warnings = result.warnings;
  if (result.unprotectedFields) out.unprotectedFields = result.unprotectedFields;
  return out;
}

/** The advice printed after a failure the operator can act on. */
export function verificationHint(result: TrustBundleVerification): string {
  switch (result.errorCode) {
    case "BUNDLE_AUTHORITY_UNTRUSTED":
      return `hint: confirm the authority's fingerprint out of band (its domain's ` +
        `.well-known/schemapin.json or DNS TXT), then pass --authority ${result.kid}=` +
        `${result.fingerprint}, or opt in with --trust-first-use\n`;
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
        ? `(--trust-first-use); recorded in ${store.path}\n`
        : `(--trust-first-use); not recorded — give --authority-store FILE to remember it\n`);
  }
  if (result.unprotectedFields && result.unprotectedFields.length > 0) {
    text += `warning: ${sourceName(file)}: fields not covered by the signature were ignored: ` +
      `${result.unprotectedFields.join(", ")}\n`;
  }
  return text;
}

/** Prints a thrown error as `--json` or a stderr line; returns its exit code. */
export async function reportError(e: unknown, json: boolean, io: CliIO): Promise<number> {
  if (!(e instanceof SchemaPinError)) throw e;
  if (json) {
    await io.stdout(jsonOutput({ valid: false, errorCode: e.code, errorMessage: e.message }));
  } else {
    await io.stderr(`error: ${e.code}: ${e.message}\n`);
  }
  return bundleExitCode(e.code);
}

/** `bundle verify BUNDLE (--authority KID=FP | --authority-key KID=PEM)… [--trust-first-use]`. */
export async function runBundleVerify(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("bundle verify", args, {
    ...AUTHORITY_OPTIONS,
    "trust-first-use": { type: "boolean" },
    json: { type: "boolean" },
  });
  if (positionals.length !== 1) {
    throw new UsageError(
      `bundle verify: expected one BUNDLE, got ${positionals.length} argument(s)`,
    );
  }
  const file = positionals[0];
  const json = values.json === true;
  let result: TrustBundleVerification;
  let persisted = false;
  try {
    const value = await readBundleFile(file, io);
    const flags = await authorityStoreFromFlags("bundle verify", values, io);
    persisted = flags.persisted;
    result = await verifyTrustBundle(value, flags.store, {
      allowFirstUse: values["trust-first-use"] === true,
      source: sourceName(file),
    });
  } catch (e) {
    return await reportError(e, json, io);
  }
  if (json) await io.stdout(jsonOutput(verificationJson(file, result)));
  if (!result.valid) {
    if (!json) {
      await io.stderr(`error: ${result.errorCode}: ${result.errorMessage}\n`);
      await io.stderr(verificationHint(result));
    }
    return bundleExitCode(result.errorCode);
  }
  await io.stderr(
    verificationNotes(file, result, { persisted, path: values["authority-store"] }),
  );
  if (!json) {
    const b = result.verified!.bundle;
    const list = (xs: string[]) => (xs.length > 0 ? xs.join(", ") : "none");
    await io.stdout(
      `verified: ${sourceName(file)}\n` +
        `authority: ${result.kid} ${result.fingerprint}${result.firstUse ? " (first use)" : ""}\n` +
        `signed_at: ${result.signedAt ?? "-"}  expires_at: ${result.expiresAt ?? "never"}\n` +
        `documents: ${list(b.documents.map((d) => d.domain))}\n` +
        `revocations: ${list(b.revocations.map((r) => r.domain))}\n`,
    );
  }
  return EXIT_OK;
}
