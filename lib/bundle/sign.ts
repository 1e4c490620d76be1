/**
 * Signing trust bundles (§21.2–§21.4 `sign_trust_bundle`).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parsePrivateKeyPem, type PrivateKey, type PublicKey } from "../crypto/keys.ts";
import { signDocument } from "../crypto/ecdsa.ts";
import { signDocumentWithSigner, type Signer } from "../crypto/signer.ts";
import { checkSignerArg } from "../arguments.ts";
import { formatRfc3339, parseRfc3339 } from "../time/rfc3339.ts";
import {
  checkKid,
  parseTrustBundle,
  SIGNED_BUNDLE_VERSION,
  type TrustBundle,
  trustBundleSigningInput,
} from "./bundle.ts";
import { asBundleInputError, parseTrustBundleFile } from "./file.ts";

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
 * §21.4 `sign_trust_bundle`: signs a trust bundle as a bundle authority, so agents that
 * allow-list the authority (`seedBundleAuthority`) accept it (`verifyTrustBundle`). Derives the
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
 * @example Sign a bundle of one domain's discovery document, valid for a year
 * ```ts
 * import { buildDiscoveryDocument } from "jsr:@schemapin/schemapin/discovery";
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { signTrustBundle, type TrustBundle } from "jsr:@schemapin/schemapin/bundle";
 *
 * const publisher = generateKeyPair();
 * const discovery = buildDiscoveryDocument({ publicKey: publisher.publicKey, developerName: "E" });
 * const bundle: TrustBundle = {
 *   schemapin_bundle_version: "1.2",
 *   created_at: "2026-05-15T00:00:00Z",
 *   documents: [{ domain: "example.com", revoked_keys: [], ...discovery }],
 *   revocations: [],
 * };
 * const authority = generateKeyPair(); // or parsePrivateKeyPem of the authority's key file
 * const signedAt = new Date();
 * const expiresAt = new Date(signedAt.getTime() + 365 * 24 * 3600 * 1000);
 * const signed = signTrustBundle(bundle, authority, "authority-2026", signedAt, expiresAt);
 * console.log(signed.schemapin_bundle_version, signed.bundle_authority?.kid); // 1.4 authority-2026
 * ```
 */
export function signTrustBundle(
  bundle: TrustBundle | unknown,
  privateKeyPem: string | PrivateKey,
  kid: string,
  signedAt: string | Date | number,
  expiresAt?: string | Date | number,
): TrustBundle {
  checkKidArg(kid);
  const sk = typeof privateKeyPem === "string"
    ? parsePrivateKeyPem(privateKeyPem, "bundle authority private key")
    : privateKeyPem;
  const out = unsignedTrustBundle(bundle, sk.publicKey, kid, signedAt, expiresAt);
  out.signature = signDocument(trustBundleSigningInput(out), sk);
  return out;
}

/**
 * {@linkcode signTrustBundle} with a `Signer` — an authority key held elsewhere, such as in an
 * SSH agent (`sshAgentSigner`): the same bundle, its §21.3 signing input given to the signer
 * as the message it hashes and signs.
 *
 * @throws {SchemaPinError} what `signTrustBundle` throws, `INPUT_INVALID` for something that
 *   is not a signer, and the signer's errors (`IO_FAILED` from an agent; `KEY_INVALID` for a
 *   signature that does not verify).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeySigner } from "../crypto/signer.ts";
 * import { createTrustBundle } from "./bundle.ts";
 * import { signTrustBundleWithSigner } from "./sign.ts";
 * const signer = privateKeySigner(generateKeyPair());
 * const signed = await signTrustBundleWithSigner(createTrustBundle(), signer, "authority-2026", new Date());
 * signed.bundle_authority?.public_key_pem === signer.publicKey.pem; // true
 * ```
 */
export async function signTrustBundleWithSigner(
  bundle: TrustBundle | unknown,
  signer: Signer,
  kid: string,
  signedAt: string | Date | number,
  expiresAt?: string | Date | number,
): Promise<TrustBundle> {
  checkKidArg(kid);
  checkSignerArg("signTrustBundleWithSigner", "signer", signer);
  const out = unsignedTrustBundle(bundle, signer.publicKey, kid, signedAt, expiresAt);
  out.signature = await signDocumentWithSigner(trustBundleSigningInput(out), signer);
  return out;
}

/** What {@linkcode signTrustBundleFile} made. */
export interface SignedBundleFile {
  /** The signed bundle. */
  readonly bundle: TrustBundle;
  /** The kid of the signature the file carried before, now replaced. */
  readonly replacedKid?: string;
}

/**
 * Signs the bundle read from the user's file `path` (`value`, as `readTrustBundleFile` of
 * lib/bundle/file.ts returns it) with {@linkcode signTrustBundleWithSigner}: a malformed
 * bundle is bad input naming the file (`INPUT_INVALID`), and the kid of a signature the file
 * already carried is returned, since it is replaced.
 *
 * @throws {SchemaPinError} as {@linkcode signTrustBundleWithSigner}, with `DISCOVERY_INVALID`
 *   about the file reported as `INPUT_INVALID`.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeySigner } from "../crypto/signer.ts";
 * import { createTrustBundle } from "./bundle.ts";
 * import { signTrustBundleFile } from "./sign.ts";
 * const signer = privateKeySigner(generateKeyPair());
 * const { bundle, replacedKid } = await signTrustBundleFile(
 *   createTrustBundle(), "b.json", signer, "authority-2026", new Date(),
 * );
 * bundle.bundle_authority?.kid; // "authority-2026"; replacedKid: undefined
 * ```
 */
export async function signTrustBundleFile(
  value: unknown,
  path: string,
  signer: Signer,
  kid: string,
  signedAt: string | Date | number,
  expiresAt?: string | Date | number,
): Promise<SignedBundleFile> {
  const bundle = parseTrustBundleFile(value, path);
  const replacedKid = bundle.bundle_authority?.kid;
  try {
    const signed = await signTrustBundleWithSigner(bundle, signer, kid, signedAt, expiresAt);
    return { bundle: signed, ...(replacedKid !== undefined ? { replacedKid } : {}) };
  } catch (e) {
    throw asBundleInputError(e);
  }
}

function checkKidArg(kid: string): void {
  const kidProblem = checkKid(kid);
  if (kidProblem) throw new SchemaPinError("INPUT_INVALID", `bundle authority kid: ${kidProblem}`);
}

/** The bundle {@linkcode signTrustBundle} signs, stamped, with no `signature` yet. */
function unsignedTrustBundle(
  bundle: TrustBundle | unknown,
  authority: PublicKey,
  kid: string,
  signedAt: string | Date | number,
  expiresAt?: string | Date | number,
): TrustBundle {
  const signed = timestamp(signedAt, "signed_at");
  const parsed = parseTrustBundle(bundle, "trust bundle to sign");
  const out: TrustBundle = {
    schemapin_bundle_version: SIGNED_BUNDLE_VERSION,
    created_at: parsed.created_at,
    documents: parsed.documents,
    revocations: parsed.revocations,
    bundle_authority: { kid, public_key_pem: authority.pem },
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
  return out;
}
