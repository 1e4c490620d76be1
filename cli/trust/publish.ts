/**
 * The publisher's side of the trust documents (`schemapin serve`): a discovery document, its
 * standalone revocation document and a trust bundle, each validated as a verifier will read it
 * and placed at the path a verifier fetches it from — `/.well-known/schemapin.json`, the path
 * of the discovery document's `revocation_endpoint`, `/.well-known/schemapin-bundle.json` —
 * with how long clients may cache it. The documents keep their exact bytes: what is published
 * is what was validated.
 *
 * A malformed document is `INPUT_INVALID` naming its file: it is the publisher's own input
 * (never `DISCOVERY_INVALID`, which is about a document fetched from someone else).
 *
 * @module
 */
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { loadDiscoveryKey, parseDiscoveryDocument } from "../../lib/discovery/document.ts";
import { WELL_KNOWN_PATH } from "../../lib/discovery/well_known.ts";
import { parseRevocationDocument } from "../../lib/revocation/document.ts";
import { parseTrustBundle } from "../../lib/bundle/bundle.ts";
import type { ReadInput } from "../../lib/schema/input.ts";

/** Where a revocation document is served when the discovery document declares no endpoint. */
export const DEFAULT_REVOCATION_PATH = "/.well-known/schemapin-revocations.json";

/** Where a trust bundle is served. */
export const BUNDLE_PATH = "/.well-known/schemapin-bundle.json";

/** `Cache-Control` of the discovery document and the bundle. */
const CACHED = "public, max-age=300";
/** `Cache-Control` of the revocation document: clients revalidate, so a revocation is seen at once. */
const REVALIDATED = "no-cache";

/** The files to publish. */
export interface PublishedFiles {
  /** The discovery document (required). */
  readonly discovery: string;
  /**
   * Its standalone revocation document; required when the discovery document declares a
   * `revocation_endpoint` (verifiers fail closed when it is missing).
   */
  readonly revocation?: string;
  /** A trust bundle. */
  readonly bundle?: string;
  /**
   * The option that names the revocation document (`--revocation`): when given, a declared
   * endpoint without its document is a usage error (`usageError` of lib/errors.ts) telling
   * the user to give it with this option.
   */
  readonly revocationOption?: string;
}

/** One validated document and where it is published. */
export interface PublishedDocument {
  /** The URL path. */
  readonly path: string;
  /** The file's exact bytes. */
  readonly bytes: Uint8Array;
  /** The `Cache-Control` value. */
  readonly cacheControl: string;
}

async function readJson(
  path: string,
  what: string,
  read: ReadInput,
): Promise<{ bytes: Uint8Array; value: unknown }> {
  const bytes = await read(path);
  try {
    return { bytes, value: parseJson(bytes, path) };
  } catch (e) {
    if (e instanceof SchemaPinError) {
      throw new SchemaPinError("INPUT_INVALID", `${what} ${e.message}`, { path });
    }
    throw e;
  }
}

/** Runs a validation; its `DISCOVERY_INVALID` is about the publisher's own file here. */
function validated<T>(check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (e instanceof SchemaPinError && e.code === "DISCOVERY_INVALID") {
      throw new SchemaPinError("INPUT_INVALID", e.message, e.details);
    }
    throw e;
  }
}

/**
 * Reads and validates the documents of `files` (with `read`, which names the file in its
 * errors) and places each at its path. A revocation document without a declared endpoint is
 * placed at {@linkcode DEFAULT_REVOCATION_PATH}, where clients will not look: `warn` says so.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a malformed document, two documents on one path,
 *   or a `revocation_endpoint` without its revocation document (`details.revocationEndpoint`;
 *   with `files.revocationOption`, also `details.usage`); what `read` throws.
 *
 * @example
 * ```ts ignore
 * import { loadPublishedDocuments } from "./publish.ts";
 * const docs = await loadPublishedDocuments(
 *   { discovery: "schemapin.json", revocation: "revocations.json" },
 *   (p) => Deno.readFile(p),
 * );
 * docs.map((d) => d.path); // ["/.well-known/schemapin.json", "/.well-known/revocations.json"]
 * ```
 */
export async function loadPublishedDocuments(
  files: PublishedFiles,
  read: ReadInput,
  warn: (message: string) => void | Promise<void> = () => {},
): Promise<PublishedDocument[]> {
  const documents: PublishedDocument[] = [];
  const discovery = await readJson(files.discovery, "discovery document", read);
  const endpoint = validated(() => {
    const { document } = parseDiscoveryDocument(discovery.value, files.discovery);
    loadDiscoveryKey(document, files.discovery);
    return document.revocation_endpoint;
  });
  documents.push({ path: WELL_KNOWN_PATH, bytes: discovery.bytes, cacheControl: CACHED });
  if (files.revocation !== undefined) {
    const revocation = await readJson(files.revocation, "revocation document", read);
    validated(() => parseRevocationDocument(revocation.value, files.revocation));
    let path = DEFAULT_REVOCATION_PATH;
    if (endpoint !== undefined) {
      path = new URL(endpoint).pathname;
    } else {
      await warn(
        `${files.discovery} declares no revocation_endpoint; serving the revocation document ` +
          `at ${path}, where clients will not look for it`,
      );
    }
    if (path === WELL_KNOWN_PATH) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `revocation_endpoint ${endpoint} is the discovery document's own path`,
      );
    }
    documents.push({ path, bytes: revocation.bytes, cacheControl: REVALIDATED });
  } else if (endpoint !== undefined && files.revocationOption !== undefined) {
    throw usageError(
      `${files.discovery} declares revocation_endpoint ${endpoint}; give its document with ` +
        `${files.revocationOption} FILE (clients fail closed without it)`,
      { path: files.discovery, revocationEndpoint: endpoint },
    );
  } else if (endpoint !== undefined) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${files.discovery} declares revocation_endpoint ${endpoint}; its revocation document ` +
        "must be published too (clients fail closed without it)",
      { path: files.discovery, revocationEndpoint: endpoint },
    );
  }
  if (files.bundle !== undefined) {
    const bundle = await readJson(files.bundle, "trust bundle", read);
    validated(() => parseTrustBundle(bundle.value, files.bundle));
    if (documents.some((d) => d.path === BUNDLE_PATH)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `the revocation document already uses ${BUNDLE_PATH}`,
      );
    }
    documents.push({ path: BUNDLE_PATH, bytes: bundle.bytes, cacheControl: CACHED });
  }
  return documents;
}
