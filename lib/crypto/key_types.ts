/**
 * The two key types, on their own so that the key cache (`key_cache.ts`) and the key parsers
 * (`keys.ts`) can both use them without importing each other.
 *
 * @module
 */

/** An ECDSA P-256 public key. */
export interface PublicKey {
  /** DER SubjectPublicKeyInfo with the uncompressed point (the §8.2 fingerprint input). */
  readonly spki: Uint8Array<ArrayBuffer>;
  /** The 65-byte SEC1 uncompressed point `04 ‖ x ‖ y`. */
  readonly point: Uint8Array<ArrayBuffer>;
  /** `"sha256:" + hex(SHA-256(spki))` (§8.2). */
  readonly fingerprint: string;
  /** `spki` as a `PUBLIC KEY` PEM block. */
  readonly pem: string;
}

/** An ECDSA P-256 private key and its public key. */
export interface PrivateKey {
  /** The private scalar d, 32 bytes big-endian, 1 ≤ d < n. */
  readonly scalar: Uint8Array<ArrayBuffer>;
  /** The public key d·G. */
  readonly publicKey: PublicKey;
}
