/**
 * The key a pin is seeded with or rotated to (`pins add`, `pins rotate`): exactly one of a
 * fingerprint obtained out of band, a key file, or the domain's saved discovery document —
 * which also names the old keys it revokes (§9: a rotation the publisher announced).
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { isSha256Ref } from "../../lib/crypto/fingerprint.ts";
import { usageError } from "../../lib/errors.ts";

/** Where the key of a pin comes from: exactly one of these. */
export interface PinKeySources {
  /** The key's fingerprint (`sha256:` and 64 lower-case hex digits), obtained out of band. */
  readonly fingerprint?: string;
  /** A key file: a public key, or a private key (its public half is pinned). */
  readonly key?: string;
  /** The domain's `.well-known/schemapin.json`, saved locally. */
  readonly discovery?: string;
}

/** How {@linkcode pinKeyFrom} reads a key file and a discovery document. */
export interface PinKeyReaders {
  /** Loads the key file `path` (asking for a passphrase is the caller's). */
  key(path: string): Promise<{ readonly fingerprint: string }>;
  /** Reads the discovery document `path`: its key and the keys it revokes. */
  discovery(
    path: string,
  ): Promise<{ readonly fingerprint: string; readonly revokedKeys: readonly string[] }>;
}

/** The key to pin, and the old keys its discovery document revokes (none for the others). */
export interface PinKey {
  /** The fingerprint to pin. */
  readonly fingerprint: string;
  /** The discovery document's `revoked_keys` (empty for a fingerprint or a key file). */
  readonly revokedKeys: readonly string[];
}

/**
 * The key of `sources`, which must name exactly one: the fingerprint as given (checked), or
 * what `read` makes of the key file or the discovery document.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) for none or several
 *   sources, or a fingerprint that is not `sha256:` and 64 lower-case hex digits; what `read`
 *   throws.
 *
 * @example
 * ```ts
 * import { pinKeyFrom } from "./key_source.ts";
 * const fingerprint = "sha256:" + "ab".repeat(32);
 * const read = { key: () => Promise.reject(), discovery: () => Promise.reject() };
 * (await pinKeyFrom({ fingerprint }, read)).revokedKeys; // []
 * ```
 */
export async function pinKeyFrom(sources: PinKeySources, read: PinKeyReaders): Promise<PinKey> {
  checkArg("pinKeyFrom", "sources", sources, "object");
  checkArg("pinKeyFrom", "read", read, "object");
  const given = (["fingerprint", "key", "discovery"] as const).filter((k) => sources[k]);
  if (given.length !== 1) {
    throw usageError("give exactly one of --fingerprint, --key, --discovery");
  }
  const { fingerprint, key, discovery } = sources;
  if (fingerprint !== undefined) {
    if (!isSha256Ref(fingerprint)) {
      throw usageError("--fingerprint must be sha256: and 64 lower-case hex digits", {
        option: "fingerprint",
      });
    }
    return { fingerprint, revokedKeys: [] };
  }
  if (key !== undefined) return { fingerprint: (await read.key(key)).fingerprint, revokedKeys: [] };
  const { fingerprint: published, revokedKeys } = await read.discovery(discovery!);
  return { fingerprint: published, revokedKeys };
}
