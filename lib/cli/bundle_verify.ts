/**
 * `schemapin bundle verify`: verify a signed trust bundle against the authority allow-list
 * (§21.4), and the reporting `bundle merge` shares.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { TrustBundleVerification } from "../bundle/verify.ts";
import { verifyTrustBundle } from "../bundle/verify.ts";
import { type CliIO, EXIT_OK, parseCommandArgs, UsageError } from "./command.ts";
import { jsonError, jsonOutput, type JsonOutputFields, verificationFields } from "./json_output.ts";
import { readJsonFile, sourceName } from "./schema_inputs.ts";
import { authorityStoreFromFlags, readBundleFile } from "./bundle_trust.ts";
import { MemoryBundleAuthorityStore, seedBundleAuthority } from "../bundle/authority.ts";
import { parsePublicKeyPem } from "../crypto/keys.ts";
import { isJsonObject, ownField } from "../json/object.ts";
import { findRevokedKey, parseRevocationDocument } from "../revocation/document.ts";
import { readTextInput } from "./io.ts";
import { exitCodeFor, exitCodeOfError } from "./exit_codes.ts";
import type { FlagTable } from "./flags.ts";
import { AUTHORITY_FLAGS, jsonFlag, KEY_SOURCE_FLAGS } from "./flag_groups.ts";

/** The `--json` format of `bundle verify` (and of each input of `bundle merge`). */
const VERIFY_FORMAT = "ok, file, kid, fingerprint, first_use, signed_at, expires_at, " +
  "documents, revocations, warnings";

/** The flags of `bundle verify`. */
export const VERIFY_FLAGS = {
  ...AUTHORITY_FLAGS,
  "public-key": {
    ...KEY_SOURCE_FLAGS["public-key"],
    help: "the authority's public key (PEM) as the only trusted authority, whatever kid the " +
      "bundle names; nothing is recorded; not with the allow-list flags or " +
      "--trust-first-use-authority",
  },
  revocation: {
    ...KEY_SOURCE_FLAGS.revocation,
    help: "with --public-key: a revocation document; the bundle fails with KEY_REVOKED when " +
      "it lists the authority key",
  },
  ...jsonFlag(`schemapin.bundle.verify/1: ${VERIFY_FORMAT}`),
  // Old spelling, kept for one release (its meaning here was the authority, not a tool key).
  "trust-first-use": { type: "boolean", help: "", deprecated: "trust-first-use-authority" },
} as const satisfies FlagTable;

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

/** Prints a thrown error as `--json` or a stderr line; returns its exit code. */
export async function reportError(e: unknown, json: boolean, io: CliIO): Promise<number> {
  if (!(e instanceof SchemaPinError)) throw e;
  if (json) {
    await io.stdout(jsonError(e.code, e.message));
  } else {
    await io.stderr(`error: ${e.code}: ${e.message}\n`);
  }
  return exitCodeOfError(e);
}

/** The kid a bundle names in `bundle_authority.kid` (unchecked; verification checks it). */
function claimedKid(value: unknown): string | undefined {
  const authority = isJsonObject(value) ? ownField(value, "bundle_authority") : undefined;
  const kid = isJsonObject(authority) ? ownField(authority, "kid") : undefined;
  return typeof kid === "string" ? kid : undefined;
}

/**
 * `--public-key FILE` of `bundle verify`: the authority's public key as the only trusted
 * authority, whatever kid the bundle names; nothing is recorded. A private key is refused.
 */
async function publicKeyAuthority(
  path: string,
  value: unknown,
  io: CliIO,
): Promise<{ store: MemoryBundleAuthorityStore; fingerprint: string }> {
  const source = sourceName(path);
  const pem = await readTextInput(path, io);
  if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(pem)) {
    throw new SchemaPinError(
      "KEY_INVALID",
      `--public-key ${source} holds a private key; verifying needs only the public key: ` +
        "give the authority's public key (`openssl pkey -in KEY -pubout` derives it)",
      { path },
    );
  }
  const key = parsePublicKeyPem(pem, `--public-key ${source}`);
  const store = new MemoryBundleAuthorityStore();
  const kid = claimedKid(value);
  if (kid !== undefined && kid !== "") await seedBundleAuthority(store, kid, key.fingerprint);
  return { store, fingerprint: key.fingerprint };
}

/** `bundle verify BUNDLE (--authority KID=FP | --authority-key KID=PEM)… [--trust-first-use-authority]`. */
export async function runBundleVerify(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("bundle verify", args, VERIFY_FLAGS);
  const publicKey = values["public-key"];
  if (publicKey !== undefined) {
    const others = ([
      "authority",
      "authority-key",
      "authority-store",
      "trust-first-use-authority",
    ] as const)
      .filter((f) => values[f] !== undefined).map((f) => `--${f}`);
    if (others.length > 0) {
      throw new UsageError(
        `bundle verify: --public-key is the trusted authority key; it does not go with ` +
          others.join(", "),
      );
    }
    if (publicKey === "") throw new UsageError("bundle verify: --public-key needs a path");
  } else if (values.revocation !== undefined) {
    throw new UsageError("bundle verify: --revocation goes with --public-key");
  }
  if (values.revocation === "") throw new UsageError("bundle verify: --revocation needs a path");
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
    if (publicKey !== undefined) {
      const anchor = await publicKeyAuthority(publicKey, value, io);
      const revocation = values.revocation === undefined ? undefined : parseRevocationDocument(
        await readJsonFile(values.revocation, io, "revocation document"),
        sourceName(values.revocation),
      );
      result = await verifyTrustBundle(value, anchor.store, { source: sourceName(file) });
      const revoked = revocation && findRevokedKey(revocation, anchor.fingerprint);
      if (result.valid && revoked) {
        result = {
          ...result,
          valid: false,
          errorCode: "KEY_REVOKED",
          errorMessage: `the authority key ${anchor.fingerprint} is revoked in ` +
            `${sourceName(values.revocation!)} (${revoked.reason}, ${revoked.revoked_at})`,
          verified: undefined,
        };
      }
    } else {
      const flags = await authorityStoreFromFlags("bundle verify", values, io);
      persisted = flags.persisted;
      result = await verifyTrustBundle(value, flags.store, {
        allowFirstUse: values["trust-first-use-authority"] === true,
        source: sourceName(file),
      });
    }
  } catch (e) {
    return await reportError(e, json, io);
  }
  if (json) await io.stdout(jsonOutput("bundle.verify", verificationJson(file, result)));
  if (!result.valid) {
    if (!json) {
      await io.stderr(`error: ${result.errorCode}: ${result.errorMessage}\n`);
      await io.stderr(verificationHint(result));
    }
    return exitCodeFor(result.errorCode, "verdict");
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
