/**
 * What the bundle commands share, and what `verify-schema` / `verify-skill --bundle FILE`
 * use: reading a bundle file, the authority allow-list flags (`--authority KID=FP`,
 * `--authority-key KID=PEM`, `--authority-store FILE`), and loading a bundle so that a
 * signed one is used only after it verified against the allow-list (§21.4).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parsePublicKeyPem } from "../crypto/keys.ts";
import { isSha256Ref } from "../crypto/fingerprint.ts";
import {
  type BundleAuthorityStore,
  FileBundleAuthorityStore,
  MemoryBundleAuthorityStore,
  seedBundleAuthority,
} from "../bundle/authority.ts";
import {
  checkKid,
  findInTrustBundle,
  parseTrustBundle,
  type TrustBundle,
} from "../bundle/bundle.ts";
import { type LoadedTrustBundle, loadTrustBundle } from "../bundle/resolver.ts";
import { type CliIO, UsageError } from "./command.ts";
import { readInput, readTextInput } from "./io.ts";
import { refusePem } from "./pem_input.ts";
import { parseJson } from "../json/parse.ts";

// This module does not import schema_inputs.ts: schema_inputs.ts (loadTrust) imports it.
function sourceName(path: string): string {
  return path === "-" ? "stdin" : path;
}

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
 * The allow-list for one run: the `--authority-store` file when given (with the command-line
 * authorities seeded into it), else an in-memory store holding only the command-line
 * authorities. A kid given twice is a usage error; a command-line fingerprint that
 * contradicts the store is `KEY_PIN_MISMATCH` (exit 1).
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
  const store: BundleAuthorityStore = file === undefined
    ? new MemoryBundleAuthorityStore()
    : new FileBundleAuthorityStore(file);
  for (const [kid, fp] of given) await seedBundleAuthority(store, kid, fp);
  return { store, persisted: file !== undefined };
}

/** Reads a bundle file strictly (`JSON_INVALID` / `IO_FAILED` name the file). */
export async function readBundleFile(path: string, io: CliIO): Promise<unknown> {
  const bytes = await readInput(path, io);
  refusePem(bytes, path, "trust bundle");
  try {
    return parseJson(bytes, sourceName(path));
  } catch (e) {
    if (e instanceof SchemaPinError) {
      throw new SchemaPinError(e.code, `trust bundle ${e.message}`, { ...e.details, path });
    }
    throw e;
  }
}

/**
 * Parses a bundle read from `path`; a malformed bundle becomes `INPUT_INVALID` (exit 2) with
 * the parser's message, which names the file and the field, and `details.code`
 * `DISCOVERY_INVALID`.
 */
export function parseBundleInput(value: unknown, path: string): TrustBundle {
  try {
    return parseTrustBundle(value, sourceName(path));
  } catch (e) {
    throw asInputError(e);
  }
}

/** Turns a `DISCOVERY_INVALID` about a file the user gave into `INPUT_INVALID` (exit 2). */
export function asInputError(e: unknown): unknown {
  if (e instanceof SchemaPinError && e.code === "DISCOVERY_INVALID") {
    return new SchemaPinError("INPUT_INVALID", e.message, { ...e.details, code: e.code });
  }
  return e;
}

/** A domain's entries from a bundle file, shaped as the verify commands read them. */
export interface BundleFileEntries {
  /** The discovery document (known fields, with `domain`). */
  readonly discovery: Record<string, unknown>;
  /** The revocation document, when the bundle has one for the domain. */
  readonly revocation?: Record<string, unknown>;
  /** How the bundle was accepted. */
  readonly loaded: LoadedTrustBundle;
}

/**
 * Reads `file` and finds `domain`'s documents for `verify-schema` / `verify-skill --bundle`.
 * An unsigned bundle is used as given (it is the caller's own trust input, §13); a signed
 * bundle is used only after `verifyTrustBundle` passed against the allow-list from the
 * authority flags, first-use trust only with `--trust-first-use-authority`. When any authority flag is
 * given, an unsigned bundle is refused (`BUNDLE_UNSIGNED`: no silent downgrade of a bundle
 * whose signature was stripped). Only the signed (known) fields
 * reach the caller. Throws `SchemaPinError`: the §21.4 code for a bundle that fails
 * verification (exit 1), `DISCOVERY_INVALID` for a malformed bundle, `KEY_NOT_FOUND` when
 * the bundle has no document for `domain`.
 */
export async function findInBundleFile(
  command: string,
  file: string,
  domain: string,
  values: AuthorityFlagValues,
  io: CliIO,
): Promise<BundleFileEntries> {
  const value = await readBundleFile(file, io);
  const { store } = await authorityStoreFromFlags(command, values, io);
  const allowFirstUse = values["trust-first-use-authority"] === true;
  const loaded = await loadTrustBundle(value, store, {
    allowFirstUse,
    source: sourceName(file),
    requireSigned: hasAuthorityFlags(values),
  });
  const found = findInTrustBundle(loaded.bundle, domain);
  if (!found) {
    throw new SchemaPinError(
      "KEY_NOT_FOUND",
      `${sourceName(file)} has no discovery document for ${domain}`,
      { source: sourceName(file), domain },
    );
  }
  const copy = (v: unknown) => structuredClone(v) as Record<string, unknown>;
  return found.revocation
    ? { discovery: copy(found.discovery), revocation: copy(found.revocation), loaded }
    : { discovery: copy(found.discovery), loaded };
}
