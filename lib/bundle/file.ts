/**
 * A trust bundle as a file of the user's (`schemapin bundle create|add|sign|verify|merge`):
 * read strictly, parsed with a malformed bundle reported as bad input, documents added from
 * files, and written back in one layout.
 *
 * A malformed bundle, discovery or revocation document is `DISCOVERY_INVALID` wherever it comes
 * from; about a file the user gave it becomes `INPUT_INVALID` (with `details.code`
 * `DISCOVERY_INVALID`): the file could not be used, nothing was verified.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { type ReadInput, readJsonInput, sourceName } from "../schema/input.ts";
import {
  addDiscoveryToBundle,
  addRevocationToBundle,
  isSignedTrustBundle,
  parseTrustBundle,
  type TrustBundle,
} from "./bundle.ts";

/**
 * `e` as an error about a file the user gave: `DISCOVERY_INVALID` becomes `INPUT_INVALID`
 * (keeping the message, with `details.code` `DISCOVERY_INVALID`); anything else is returned
 * as it is.
 *
 * @example
 * ```ts
 * import { SchemaPinError, usageError } from "../errors.ts";
 * import { asBundleInputError } from "./file.ts";
 * (asBundleInputError(new SchemaPinError("DISCOVERY_INVALID", "b.json: bad")) as SchemaPinError)
 *   .code; // "INPUT_INVALID"
 * ```
 */
export function asBundleInputError(e: unknown): unknown {
  if (e instanceof SchemaPinError && e.code === "DISCOVERY_INVALID") {
    return new SchemaPinError("INPUT_INVALID", e.message, { ...e.details, code: e.code });
  }
  return e;
}

/**
 * Reads a bundle file strictly (`JSON_INVALID` / `IO_FAILED` name the file; a PEM file is
 * `INPUT_INVALID` saying what it is). Not parsed as a bundle yet: a signed bundle is verified
 * from these values.
 *
 * @example
 * ```ts ignore
 * const value = await readTrustBundleFile("bundle.json", (p) => Deno.readFile(p));
 * ```
 */
export async function readTrustBundleFile(path: string, read: ReadInput): Promise<unknown> {
  return await readJsonInput(path, read, "trust bundle");
}

/**
 * Parses a bundle read from `path`; a malformed one is `INPUT_INVALID` with the parser's
 * message, which names the file and the field.
 *
 * @example
 * ```ts ignore
 * const bundle = parseTrustBundleFile(await readTrustBundleFile(path, read), path);
 * ```
 */
export function parseTrustBundleFile(value: unknown, path: string): TrustBundle {
  try {
    return parseTrustBundle(value, sourceName(path));
  } catch (e) {
    throw asBundleInputError(e);
  }
}

/**
 * Parses a bundle read from `path` that documents are to be added to (`bundle add`): a signed
 * bundle is refused, since adding documents would invalidate its signature; otherwise as
 * {@linkcode parseTrustBundleFile}.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` naming the file: a signed bundle (`details.path`),
 *   or a malformed one.
 *
 * @example
 * ```ts
 * import { createTrustBundle } from "./bundle.ts";
 * import { parseUnsignedTrustBundleFile } from "./file.ts";
 * parseUnsignedTrustBundleFile(createTrustBundle("2026-05-15T00:00:00Z"), "b.json").documents;
 * // []
 * ```
 */
export function parseUnsignedTrustBundleFile(value: unknown, path: string): TrustBundle {
  if (isSignedTrustBundle(value)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${sourceName(path)} is a signed bundle; adding documents would invalidate its ` +
        `signature. Verify it and merge, or create a new bundle, then sign the result`,
      { path },
    );
  }
  return parseTrustBundleFile(value, path);
}

/**
 * A bundle's text for a file: two-space indent, trailing newline.
 *
 * @example
 * ```ts
 * import { createTrustBundle } from "./bundle.ts";
 * import { formatTrustBundle } from "./file.ts";
 * formatTrustBundle(createTrustBundle("2026-05-15T00:00:00Z")).endsWith("}\n"); // true
 * ```
 */
export function formatTrustBundle(bundle: unknown): string {
  return JSON.stringify(bundle, null, 2) + "\n";
}

/** Documents to add to a bundle, each as its domain and the file holding it. */
export interface BundleDocumentFiles {
  /** Discovery documents (`.well-known/schemapin.json` files). */
  readonly discovery?: readonly (readonly [domain: string, path: string])[];
  /** Standalone revocation documents. */
  readonly revocation?: readonly (readonly [domain: string, path: string])[];
}

/**
 * `bundle` with the documents of `files` added, discovery documents first, in the order
 * given (only their known fields are kept); with `replace`, a domain's existing entry is
 * overwritten, else it is an error.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` naming the file for a malformed document or a
 *   domain already in the bundle; what `read` throws.
 *
 * @example
 * ```ts ignore
 * const bundle = await addFilesToBundle(createTrustBundle(), {
 *   discovery: [["example.com", "schemapin.json"]],
 * }, (p) => Deno.readFile(p));
 * ```
 */
export async function addFilesToBundle(
  start: TrustBundle,
  files: BundleDocumentFiles,
  read: ReadInput,
  options: { replace?: boolean } = {},
): Promise<TrustBundle> {
  const replace = options.replace === true;
  let bundle = start;
  try {
    for (const [domain, file] of files.discovery ?? []) {
      const doc = await readJsonInput(file, read, "discovery document");
      bundle = addDiscoveryToBundle(bundle, domain, doc, { replace, source: sourceName(file) });
    }
    for (const [domain, file] of files.revocation ?? []) {
      const doc = await readJsonInput(file, read, "revocation document");
      bundle = addRevocationToBundle(bundle, domain, doc, { replace, source: sourceName(file) });
    }
  } catch (e) {
    throw asBundleInputError(e);
  }
  return bundle;
}
