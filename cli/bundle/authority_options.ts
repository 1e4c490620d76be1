/**
 * The authority allow-list of one run given as options (`--authority KID=FINGERPRINT`,
 * `--authority-key KID=PEM`, `--authority-store FILE`, `--trust-first-use-authority`): a signed
 * bundle is verified against it (§21.4). Their form is checked without reading a file
 * ({@linkcode checkAuthorityOptions}), then the store is built ({@linkcode authorityStoreFrom},
 * cli/bundle/verify_key.ts). A misuse is a `usageError` naming the option.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { parsePublicKeyPem } from "../../lib/crypto/keys.ts";
import { isSha256Ref } from "../../lib/crypto/fingerprint.ts";
import { usageError } from "../../lib/errors.ts";
import { type ReadInput, readTextInput, sourceName } from "../../lib/schema/input.ts";
import type { BundleAuthorityStore } from "../../lib/bundle/authority.ts";
import { checkKid } from "../../lib/bundle/bundle.ts";
import { authorityAllowList } from "./verify_key.ts";

/**
 * The authority options, by option name.
 *
 * @example
 * ```ts
 * import type { AuthorityOptionValues } from "./authority_options.ts";
 * const given: AuthorityOptionValues = { authority: ["acme=sha256:" + "0".repeat(64)] };
 * ```
 */
export interface AuthorityOptionValues {
  /** `--authority KID=FINGERPRINT`, repeatable. */
  authority?: string[];
  /** `--authority-key KID=PEM`, repeatable. */
  "authority-key"?: string[];
  /** `--authority-store FILE`. */
  "authority-store"?: string;
  /** `--trust-first-use-authority` (verify-schema, verify-skill). */
  "trust-first-use-authority"?: boolean;
}

/**
 * True when any allow-list option was given.
 *
 * @example
 * ```ts
 * import { hasAuthorityOptions } from "./authority_options.ts";
 * hasAuthorityOptions({ "authority-store": "authorities.json" }); // true
 * hasAuthorityOptions({ authority: [] }); // false
 * ```
 */
export function hasAuthorityOptions(values: AuthorityOptionValues): boolean {
  return (values.authority?.length ?? 0) + (values["authority-key"]?.length ?? 0) > 0 ||
    values["authority-store"] !== undefined || values["trust-first-use-authority"] === true;
}

function splitPair(option: string, value: string, what: string): [string, string] {
  const at = value.indexOf("=");
  if (at <= 0 || at === value.length - 1) {
    throw usageError(`--${option} ${JSON.stringify(value)} is not KID=${what}`, { option });
  }
  const kid = value.slice(0, at);
  const problem = checkKid(kid);
  if (problem) throw usageError(`--${option} ${JSON.stringify(value)}: ${problem}`, { option });
  return [kid, value.slice(at + 1)];
}

/**
 * Checks the form of every `--authority KID=FINGERPRINT` and `--authority-key KID=PEM` value
 * without reading a file, so a malformed one is refused before anything is fetched, written or
 * read ({@linkcode authorityStoreFrom} repeats the checks and reads the keys).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` naming the option.
 *
 * @example
 * ```ts
 * import { checkAuthorityOptions } from "./authority_options.ts";
 * checkAuthorityOptions({ "authority-key": ["acme=authority.pem"] }); // no error
 * ```
 */
export function checkAuthorityOptions(values: AuthorityOptionValues): void {
  checkArg("checkAuthorityOptions", "values", values, "object");
  for (const v of values.authority ?? []) {
    const [, fp] = splitPair("authority", v, "FINGERPRINT");
    if (!isSha256Ref(fp)) {
      throw usageError(
        `--authority ${JSON.stringify(v)}: the fingerprint must be sha256: and 64 ` +
          `lower-case hex digits (see \`schemapin fingerprint\`)`,
        { option: "authority" },
      );
    }
  }
  for (const v of values["authority-key"] ?? []) splitPair("authority-key", v, "PEM");
}

/**
 * The allow-list for one run (cli/bundle/verify_key.ts): the `--authority-store` file when
 * given (with the given authorities seeded into it), else an in-memory store holding only the
 * given authorities; `persisted` says which. `--authority-key` files are read with `read`.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` for a malformed value or a kid
 *   given twice; `KEY_PIN_MISMATCH` (a given fingerprint contradicts the store); what `read`
 *   throws; `KEY_INVALID` for a key file that is not a P-256 public key.
 *
 * @example
 * ```ts ignore
 * import { authorityStoreFrom } from "./authority_options.ts";
 * const { store } = await authorityStoreFrom({ authority: ["acme=sha256:…"] }, Deno.readFile);
 * ```
 */
export async function authorityStoreFrom(
  values: AuthorityOptionValues,
  read: ReadInput,
): Promise<{ store: BundleAuthorityStore; persisted: boolean }> {
  checkArg("authorityStoreFrom", "read", read, "function");
  const given = new Map<string, string>();
  const add = (kid: string, fingerprint: string, option: string) => {
    const previous = given.get(kid);
    if (previous !== undefined) {
      throw usageError(
        `authority ${JSON.stringify(kid)} is given twice` +
          (previous === fingerprint ? "" : " with different keys") + ` (--${option})`,
        { option },
      );
    }
    given.set(kid, fingerprint);
  };
  checkAuthorityOptions(values);
  for (const v of values.authority ?? []) {
    const [kid, fp] = splitPair("authority", v, "FINGERPRINT");
    add(kid, fp, "authority");
  }
  for (const v of values["authority-key"] ?? []) {
    const [kid, path] = splitPair("authority-key", v, "PEM");
    const key = parsePublicKeyPem(await readTextInput(path, read), sourceName(path));
    add(kid, key.fingerprint, "authority-key");
  }
  const file = values["authority-store"];
  return { store: await authorityAllowList(given, file), persisted: file !== undefined };
}
