/**
 * Signing trust bundles (§21.2–§21.4 `sign_trust_bundle`).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parsePrivateKeyPem, type PrivateKey } from "../crypto/keys.ts";
import { signDocument } from "../crypto/ecdsa.ts";
import { formatRfc3339, parseRfc3339 } from "../time/rfc3339.ts";
import {
  checkKid,
  parseTrustBundle,
  SIGNED_BUNDLE_VERSION,
  type TrustBundle,
  trustBundleSigningInput,
} from "./bundle.ts";

function timestamp(value: string | Date | number, what: string): { text: string; ms: number } {
  if (typeof value === "string") {
    const ms = parseRfc3339(value);
    if (ms === undefined) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${what} ${JSON.stringify(value)} is not a strict RFC 3339 timestamp`,
      );
    }
    return { text: value, ms };
  }
  const ms = typeof value === "number" ? value : value.getTime();
  if (!Number.isFinite(ms)) {
    throw new SchemaPinError("INPUT_INVALID", `${what} is not a valid time`);
  }
  return { text: formatRfc3339(ms), ms };
}

/**
 * Signs a trust bundle as a bundle authority (§21.4 `sign_trust_bundle`): derives the
 * authority public key from the private key, stamps `bundle_authority` (`kid`,
 * `public_key_pem`), `signed_at` and — when given — `expires_at`, sets
 * `schemapin_bundle_version` to "1.4", and signs the §21.3 signing input (ECDSA P-256 with
 * SHA-256 over the canonical bytes). Returns a new bundle; the input is not modified.
 *
 * The input is validated first (`DISCOVERY_INVALID` for a malformed bundle or duplicate
 * domains) and only its known fields are kept, so the result has no unsigned fields. A
 * signature already present is replaced (re-signing). Timestamps given as strings are kept
 * verbatim and must be strict RFC 3339; `expiresAt` must be later than `signedAt`
 * (`INPUT_INVALID`). A bad key or kid: `KEY_INVALID` / `INPUT_INVALID`.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { createTrustBundle } from "./bundle.ts";
 * import { signTrustBundle } from "./sign.ts";
 * const signed = signTrustBundle(createTrustBundle(), generateKeyPair(), "authority-2026", new Date());
 * signed.schemapin_bundle_version; // "1.4"
 * ```
 */
export function signTrustBundle(
  bundle: TrustBundle | unknown,
  privateKeyPem: string | PrivateKey,
  kid: string,
  signedAt: string | Date | number,
  expiresAt?: string | Date | number,
): TrustBundle {
  const kidProblem = checkKid(kid);
  if (kidProblem) throw new SchemaPinError("INPUT_INVALID", `bundle authority kid: ${kidProblem}`);
  const sk = typeof privateKeyPem === "string"
    ? parsePrivateKeyPem(privateKeyPem, "bundle authority private key")
    : privateKeyPem;
  const signed = timestamp(signedAt, "signed_at");
  const parsed = parseTrustBundle(bundle, "trust bundle to sign");
  const out: TrustBundle = {
    schemapin_bundle_version: SIGNED_BUNDLE_VERSION,
    created_at: parsed.created_at,
    documents: parsed.documents,
    revocations: parsed.revocations,
    bundle_authority: { kid, public_key_pem: sk.publicKey.pem },
    signed_at: signed.text,
  };
  if (expiresAt !== undefined) {
    const expires = timestamp(expiresAt, "expires_at");
    if (expires.ms <= signed.ms) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `expires_at ${expires.text} is not later than signed_at ${signed.text}`,
      );
    }
    out.expires_at = expires.text;
  }
  out.signature = signDocument(trustBundleSigningInput(out), sk);
  return out;
}
