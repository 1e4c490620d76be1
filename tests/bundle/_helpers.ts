// Shared fixtures for the trust bundle tests.
import { INTEROP_BUNDLE } from "../fixtures/interop.ts";
import { generateKeyPair, type PrivateKey } from "../../lib/crypto/keys.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { createTrustBundle, type TrustBundle } from "../../lib/bundle/bundle.ts";

/** The reference authority kid of the interop fixture. */
export const REFERENCE_KID = "schemapin-bundle-authority-2026";
/** Path of the reference signed bundle. */
export const REFERENCE_BUNDLE_PATH = `${INTEROP_BUNDLE}/signed_bundle.json`;
/** Path of the reference authority public key. */
export const REFERENCE_PUBLIC_PATH = `${INTEROP_BUNDLE}/authority_public.pem`;
/** Path of the reference authority private key. */
export const REFERENCE_PRIVATE_PATH = `${INTEROP_BUNDLE}/authority_private.pem`;

/** A fresh parsed copy of the reference signed bundle. */
export function referenceBundle(): Record<string, unknown> {
  return parseJson(Deno.readFileSync(REFERENCE_BUNDLE_PATH)) as Record<string, unknown>;
}

/** The reference authority public key PEM. */
export function referencePublicPem(): string {
  return Deno.readTextFileSync(REFERENCE_PUBLIC_PATH);
}

/** The reference authority private key PEM. */
export function referencePrivatePem(): string {
  return Deno.readTextFileSync(REFERENCE_PRIVATE_PATH);
}

/** Developer keys and authority keys, made once per process. */
export const DEV_A: PrivateKey = generateKeyPair();
/** Another developer key. */
export const DEV_B: PrivateKey = generateKeyPair();
/** A bundle authority key. */
export const AUTH_1: PrivateKey = generateKeyPair();
/** Another bundle authority key. */
export const AUTH_2: PrivateKey = generateKeyPair();

/** A discovery document (no domain) for `key`. */
export function wellKnown(key: PrivateKey, name = "Dev"): Record<string, unknown> {
  return { ...buildDiscoveryDocument({ publicKey: key.publicKey, developerName: name }) };
}

/** A revocation document for `domain`, optionally revoking `fingerprint`. */
export function revocationDoc(
  domain: string,
  fingerprint?: string,
  updatedAt = "2026-02-11T00:00:00Z",
): Record<string, unknown> {
  return {
    schemapin_version: "1.2",
    domain,
    updated_at: updatedAt,
    revoked_keys: fingerprint === undefined
      ? []
      : [{ fingerprint, revoked_at: updatedAt, reason: "key_compromise" }],
  };
}

/** An unsigned bundle with the given documents (domain → key). */
export function unsignedBundle(
  docs: Record<string, PrivateKey>,
  createdAt = "2026-05-01T00:00:00Z",
): TrustBundle {
  const bundle = createTrustBundle(createdAt);
  for (const [domain, key] of Object.entries(docs)) {
    bundle.documents.push({
      domain,
      ...buildDiscoveryDocument({ publicKey: key.publicKey, developerName: domain }),
      revoked_keys: [],
    });
  }
  return bundle;
}

/** A deep copy through JSON (what a file round trip gives). */
export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

/** A deep copy through JSON, typed as a plain object (for tampering). */
export function raw(value: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value));
}
