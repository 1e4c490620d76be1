/**
 * The two ways `schemapin bundle verify` (and `merge`) say which authority they trust: the
 * allow-list of kids and fingerprints (a store, seeded with the authorities given for this
 * run), or one public key, trusted whatever kid the bundle names and checked against a
 * revocation document. Both end in {@linkcode verifyTrustBundle} (§21.4).
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { usageError } from "../../lib/errors.ts";
import type { PublicKey } from "../../lib/crypto/keys.ts";
import { isJsonObject, ownField } from "../../lib/json/object.ts";
import {
  findRevokedKey,
  parseRevocationDocument,
  type RevocationDocument,
} from "../../lib/revocation/document.ts";
import {
  type ReadInput,
  readJsonInput,
  readPublicKeyInput,
  sourceName,
} from "../../lib/schema/input.ts";
import {
  type BundleAuthorityStore,
  FileBundleAuthorityStore,
  MemoryBundleAuthorityStore,
  seedBundleAuthority,
} from "../../lib/bundle/authority.ts";
import { type TrustBundleVerification, verifyTrustBundle } from "../../lib/bundle/verify.ts";

/**
 * The allow-list of one run: the store file at `path` when given, with `authorities` (kid →
 * fingerprint) seeded into it, else an in-memory store of `authorities` only.
 *
 * @throws {SchemaPinError} `KEY_PIN_MISMATCH` when the store records a kid with another key
 *   (remove the old entry deliberately first); `IO_FAILED` / `INPUT_INVALID` for a store file
 *   that cannot be read.
 *
 * @example
 * ```ts ignore
 * const store = await authorityAllowList(new Map([["acme-2026", "sha256:…"]]), "authorities.json");
 * ```
 */
export async function authorityAllowList(
  authorities: ReadonlyMap<string, string>,
  path?: string,
): Promise<BundleAuthorityStore> {
  const store: BundleAuthorityStore = path === undefined
    ? new MemoryBundleAuthorityStore()
    : new FileBundleAuthorityStore(path);
  for (const [kid, fingerprint] of authorities) {
    await seedBundleAuthority(store, kid, fingerprint);
  }
  return store;
}

/** The kid a bundle names in `bundle_authority.kid` (unchecked; verification checks it). */
function claimedKid(value: unknown): string | undefined {
  const authority = isJsonObject(value) ? ownField(value, "bundle_authority") : undefined;
  const kid = isJsonObject(authority) ? ownField(authority, "kid") : undefined;
  return typeof kid === "string" ? kid : undefined;
}

/** Options of {@linkcode verifyTrustBundleWithKey}. */
export interface VerifyWithKeyOptions {
  /** A name for the bundle in messages (a file name). */
  readonly source?: string;
  /** A revocation document of the authority: the bundle fails when it lists the key. */
  readonly revocation?: { readonly document: RevocationDocument; readonly source: string };
  /** The current time (default now). */
  readonly now?: Date | number;
}

/**
 * Verifies `bundle` (§21.4) with `authority` as the only trusted authority key, whatever kid
 * the bundle names; nothing is recorded. With a revocation document that lists the key, a
 * bundle that verified fails with `KEY_REVOKED`.
 *
 * @example
 * ```ts ignore
 * const result = await verifyTrustBundleWithKey(value, parsePublicKeyPem(pem), { source: "b.json" });
 * ```
 */
export async function verifyTrustBundleWithKey(
  bundle: unknown,
  authority: PublicKey,
  options: VerifyWithKeyOptions = {},
): Promise<TrustBundleVerification> {
  const store = new MemoryBundleAuthorityStore();
  const kid = claimedKid(bundle);
  if (kid !== undefined && kid !== "") await seedBundleAuthority(store, kid, authority.fingerprint);
  const result = await verifyTrustBundle(bundle, store, {
    ...(options.source !== undefined ? { source: options.source } : {}),
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  const revocation = options.revocation;
  const revoked = revocation && findRevokedKey(revocation.document, authority.fingerprint);
  if (!result.valid || !revoked) return result;
  return {
    ...result,
    valid: false,
    errorCode: "KEY_REVOKED",
    errorMessage: `the authority key ${authority.fingerprint} is revoked in ` +
      `${revocation.source} (${revoked.reason}, ${revoked.revoked_at})`,
    verified: undefined,
  };
}

/**
 * Checks the options of a verification with an explicit authority key (`bundle verify
 * --public-key FILE [--revocation FILE]`): the key is the only trusted authority, so it does
 * not go with the allow-list options given (`allowList`, their names as the caller spells
 * them), and a revocation document goes with it only.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) naming the options.
 *
 * @example
 * ```ts
 * import { checkAuthorityKeyOptions } from "./verify_key.ts";
 * checkAuthorityKeyOptions({ publicKey: "authority.pem", allowList: [] }); // fine
 * ```
 */
export function checkAuthorityKeyOptions(options: {
  readonly publicKey?: string;
  readonly revocation?: string;
  readonly allowList: readonly string[];
}): void {
  const { publicKey, revocation, allowList } = options;
  if (publicKey !== undefined) {
    if (allowList.length > 0) {
      throw usageError(
        `--public-key is the trusted authority key; it does not go with ${allowList.join(", ")}`,
        { option: "public-key" },
      );
    }
    if (publicKey === "") throw usageError("--public-key needs a path", { option: "public-key" });
  } else if (revocation !== undefined) {
    throw usageError("--revocation goes with --public-key", { option: "revocation" });
  }
  if (revocation === "") throw usageError("--revocation needs a path", { option: "revocation" });
}

/** The files of {@linkcode readAuthorityKeyFiles}. */
export interface AuthorityKeyFiles {
  /** The authority's public key (PEM), given as `--public-key`. */
  readonly publicKey: string;
  /** A revocation document of the authority, when given. */
  readonly revocation?: string;
}

/** The authority key and revocation document of {@linkcode verifyTrustBundleWithKey}. */
export interface AuthorityKey {
  /** The authority's public key. */
  readonly key: PublicKey;
  /** The revocation document and the name it is reported under, when one was given. */
  readonly revocation?: { readonly document: RevocationDocument; readonly source: string };
}

/**
 * Reads the authority key `files.publicKey` (a private key is `KEY_INVALID`: verifying
 * needs only the public one) and then the revocation document `files.revocation`, through
 * `read`; errors name the file.
 *
 * @example
 * ```ts ignore
 * import { readAuthorityKeyFiles, verifyTrustBundleWithKey } from "./verify_key.ts";
 * const { key, revocation } = await readAuthorityKeyFiles(
 *   { publicKey: "authority.pem" },
 *   (p) => Deno.readFile(p),
 * );
 * const result = await verifyTrustBundleWithKey(value, key, { revocation });
 * ```
 */
export async function readAuthorityKeyFiles(
  files: AuthorityKeyFiles,
  read: ReadInput,
): Promise<AuthorityKey> {
  checkArg("readAuthorityKeyFiles", "files", files, "object");
  checkArg("readAuthorityKeyFiles", "files.publicKey", files.publicKey, "string");
  checkArg("readAuthorityKeyFiles", "files.revocation", files.revocation, "string", true);
  checkArg("readAuthorityKeyFiles", "read", read, "function");
  const key = await readPublicKeyInput(files.publicKey, read, {
    flag: "--public-key",
    advice: "give the authority's public key (`openssl pkey -in KEY -pubout` derives it)",
  });
  if (files.revocation === undefined) return { key };
  const revocationSource = sourceName(files.revocation);
  const document = parseRevocationDocument(
    await readJsonInput(files.revocation, read, "revocation document"),
    revocationSource,
  );
  return { key, revocation: { document, source: revocationSource } };
}
