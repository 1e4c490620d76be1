/**
 * Discovery resolvers (§14): where a domain's discovery and revocation documents come from.
 *
 * - {@linkcode SchemaResolver} — the interface (§14.1): `resolveDiscovery(domain)` and the
 *   optional `resolveRevocation(domain, discovery)`. "Not found" is `undefined` (or a
 *   `SchemaPinError` with `details.notFound`); anything else that goes wrong rejects.
 * - `WellKnownResolver` (`well_known.ts`, HTTPS), {@linkcode LocalFileResolver} (a folder of
 *   `{domain}.json` / `{domain}.revocations.json`), `TrustBundleResolver`
 *   (`lib/bundle/resolver.ts`), and {@linkcode ChainResolver}.
 * - {@linkcode resolveTrustDocuments} — what verification uses: the domain validated first,
 *   the discovery document and its key validated, the revocation document from the *same*
 *   resolver, fail-closed rules applied.
 *
 * ChainResolver (first success wins, §14.2). Falls through to the next resolver only when a
 * resolver has no document for the domain: `undefined`, a missing `{domain}.json`, a bundle
 * without the domain, HTTP 404/410 for `.well-known`. Stops the chain — the error is the
 * result — on everything else: an invalid domain, a malformed discovery or revocation
 * document, an unusable key, a network failure (timeout, TLS, refused connection, redirect,
 * 5xx, body over the cap), a declared revocation endpoint that cannot be fetched, an I/O
 * error. A network failure does not fall back to a later (possibly stale) source: blocking
 * the network must not be a way to skip a revocation. The revocation document always comes
 * from the resolver that supplied the discovery document, and a revoked key found there fails
 * verification (`KEY_REVOKED`) — the next resolver is never asked, so a revocation cannot be
 * bypassed by a source that has not heard of it. Order is precedence: put the source you
 * trust most first.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { pemInsteadOf } from "../crypto/pem.ts";
import { parseJson } from "../json/parse.ts";
import { parseRevocationDocument } from "../revocation/document.ts";
import { type DiscoveryDocument, loadDiscoveryKey, parseDiscoveryDocument } from "./document.ts";
import { checkDomain } from "../dns/domain.ts";
import { type EntryInfo, isNotFound as isNoSuchFile, readFile, stat } from "../runtime/fs.ts";

/** The §14.1 resolver interface. */
export interface SchemaResolver {
  /**
   * The domain's discovery document (parsed JSON, validated by the caller), or `undefined`
   * when this resolver has none. Rejects with `SchemaPinError` on failure.
   */
  resolveDiscovery(domain: string): Promise<unknown>;
  /**
   * The domain's standalone revocation document (§8.5), or `undefined` (the default when the
   * method is absent, §14.1).
   */
  resolveRevocation?(domain: string, discovery: DiscoveryDocument): Promise<unknown>;
  /** Where this resolver looks for `domain`, for messages (optional). */
  sourceName?(domain: string): string;
  /** Where this resolver looks for `domain`'s revocation document (optional). */
  revocationSourceName?(domain: string, discovery: DiscoveryDocument): string;
}

/** The largest local document read: 1 MiB. */
export const MAX_LOCAL_DOCUMENT_BYTES = 1024 * 1024;

function validDomain(domain: unknown): string {
  const check = checkDomain(domain);
  if (!check.ok) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `invalid domain ${JSON.stringify(domain)}: ${check.reason}`,
      { domain },
    );
  }
  return check.domain;
}

/**
 * The §14.2 LocalFileResolver: reads `{dir}/{domain}.json` and `{dir}/{domain}.revocations.json`.
 * The domain is validated (§9) before it becomes a path, so `../x`, `a/b`, `C:\`, absolute
 * paths and the like never reach the file system; names are lower case. A missing file is
 * "not found"; a file that is not a regular file, is larger than 1 MiB or cannot be read is
 * `IO_FAILED`; a file that is not strict JSON is `DISCOVERY_INVALID`.
 *
 * @example
 * ```ts
 * import { LocalFileResolver } from "./resolvers.ts";
 * import { resolveTrustDocuments } from "jsr:@schemapin/schemapin/discovery";
 * // ./trust/example.com.json and, when present, ./trust/example.com.revocations.json
 * const trust = await resolveTrustDocuments(new LocalFileResolver("./trust"), "example.com");
 * console.log(trust.discoverySource, trust.revocationSource);
 * ```
 */
export class LocalFileResolver {
  readonly #dir: string;

  /** A resolver over the folder `dir`. */
  constructor(dir: string) {
    if (typeof dir !== "string" || dir === "") {
      throw new SchemaPinError("INPUT_INVALID", "LocalFileResolver needs a folder");
    }
    this.#dir = dir.length > 1 ? dir.replace(/\/+$/, "") : dir;
  }

  /** The path of `domain`'s discovery document. */
  sourceName(domain: string): string {
    return this.#path(validDomain(domain), ".json");
  }

  /** The path of `domain`'s revocation document. */
  revocationSourceName(domain: string): string {
    return this.#path(validDomain(domain), ".revocations.json");
  }

  #path(domain: string, suffix: string): string {
    return `${this.#dir === "/" ? "" : this.#dir}/${domain}${suffix}`;
  }

  async #read(path: string, what: string): Promise<unknown> {
    let info: EntryInfo;
    try {
      info = await stat(path);
    } catch (e) {
      if (isNoSuchFile(e)) return undefined;
      throw new SchemaPinError(
        "IO_FAILED",
        `cannot read ${what} ${path}: ${(e as Error).message}`,
        {
          path,
        },
      );
    }
    if (!info.isFile) {
      throw new SchemaPinError("IO_FAILED", `${what} ${path} is not a regular file`, { path });
    }
    if (info.size > MAX_LOCAL_DOCUMENT_BYTES) {
      throw new SchemaPinError(
        "IO_FAILED",
        `${what} ${path} is ${info.size} bytes, over the ${MAX_LOCAL_DOCUMENT_BYTES}-byte cap`,
        { path },
      );
    }
    let bytes: Uint8Array;
    try {
      bytes = await readFile(path);
    } catch (e) {
      throw new SchemaPinError(
        "IO_FAILED",
        `cannot read ${what} ${path}: ${(e as Error).message}`,
        {
          path,
        },
      );
    }
    const pem = pemInsteadOf(bytes, what);
    if (pem !== undefined) {
      throw new SchemaPinError("DISCOVERY_INVALID", `${path}: ${pem}`, { path });
    }
    try {
      return parseJson(bytes, path);
    } catch (e) {
      throw new SchemaPinError(
        "DISCOVERY_INVALID",
        `${what} ${(e as Error).message}`,
        { path },
      );
    }
  }

  /** `{dir}/{domain}.json`, parsed, or `undefined` when it does not exist. */
  async resolveDiscovery(domain: string): Promise<unknown> {
    return await this.#read(this.#path(validDomain(domain), ".json"), "discovery document");
  }

  /** `{dir}/{domain}.revocations.json`, parsed, or `undefined` when it does not exist. */
  async resolveRevocation(domain: string): Promise<unknown> {
    return await this.#read(
      this.#path(validDomain(domain), ".revocations.json"),
      "revocation document",
    );
  }
}

/** Documents resolved for a domain, validated, and where they came from. */
export interface ResolvedTrust {
  /** The discovery document (parsed JSON; its structure and key were validated). */
  readonly discovery: unknown;
  /** The standalone revocation document (validated), when the resolver had one. */
  readonly revocation?: unknown;
  /** Where the discovery document came from (URL, path, resolver). */
  readonly discoverySource: string;
  /** Where the revocation document came from. */
  readonly revocationSource?: string;
  /** Notes for the result: `revocation_endpoint_unreachable` (only with the opt-out). */
  readonly warnings: readonly string[];
}

/** Options of {@linkcode resolveTrustDocuments}. */
export interface ResolveTrustOptions {
  /**
   * Air-gapped opt-out (§9; never the default): a declared revocation endpoint that cannot be
   * fetched (`DISCOVERY_FETCH_FAILED`) is tolerated with the warning
   * `revocation_endpoint_unreachable`. A malformed revocation document still fails.
   */
  allowMissingRevocation?: boolean;
}

function nameOf(resolver: SchemaResolver, domain: string, index?: number): string {
  try {
    if (typeof resolver.sourceName === "function") return resolver.sourceName(domain);
  } catch { /* fall back to the class name */ }
  const cls = (resolver as { constructor?: { name?: string } }).constructor?.name ?? "resolver";
  return index === undefined ? cls : `${cls} #${index + 1}`;
}

function isNotFound(e: unknown): boolean {
  return e instanceof SchemaPinError && e.details.notFound === true;
}

/** Resolves and validates from one resolver; `undefined` when it has no document. */
async function resolveFrom(
  resolver: SchemaResolver,
  domain: string,
  options: ResolveTrustOptions,
  index?: number,
): Promise<ResolvedTrust | undefined> {
  const source = nameOf(resolver, domain, index);
  const raw = await resolver.resolveDiscovery(domain);
  if (raw === undefined || raw === null) return undefined;
  const { document } = parseDiscoveryDocument(raw, source);
  loadDiscoveryKey(document, source);
  const warnings: string[] = [];
  let revocation: unknown;
  let revocationSource = `${source} (revocations)`;
  try {
    if (typeof resolver.revocationSourceName === "function") {
      revocationSource = resolver.revocationSourceName(domain, document);
    }
  } catch { /* keep the generic name */ }
  if (typeof resolver.resolveRevocation === "function") {
    try {
      revocation = await resolver.resolveRevocation(domain, document);
    } catch (e) {
      if (
        options.allowMissingRevocation && e instanceof SchemaPinError &&
        e.code === "DISCOVERY_FETCH_FAILED"
      ) {
        warnings.push("revocation_endpoint_unreachable");
        revocation = undefined;
      } else {
        throw e;
      }
    }
  }
  if (revocation === null) revocation = undefined;
  if (revocation !== undefined) parseRevocationDocument(revocation, revocationSource);
  return revocation === undefined
    ? { discovery: raw, discoverySource: source, warnings }
    : { discovery: raw, revocation, discoverySource: source, revocationSource, warnings };
}

/**
 * The §14.2 ChainResolver: asks its resolvers in order; the first that has the domain's
 * discovery document wins, and supplies the revocation document too. See the module
 * documentation for what falls through and what stops the chain.
 *
 * @example
 * ```ts
 * import { ChainResolver, LocalFileResolver } from "./resolvers.ts";
 * import { resolveTrustDocuments, WellKnownResolver } from "jsr:@schemapin/schemapin/discovery";
 * const chain = new ChainResolver([new LocalFileResolver("./trust"), new WellKnownResolver()]);
 * const trust = await resolveTrustDocuments(chain, "example.com"); // ./trust first
 * console.log(trust.discoverySource);
 * ```
 */
export class ChainResolver {
  readonly #resolvers: readonly SchemaResolver[];
  readonly #winner = new Map<string, SchemaResolver>();

  /** A chain over `resolvers` (at least one), asked in this order. */
  constructor(resolvers: readonly SchemaResolver[]) {
    if (!Array.isArray(resolvers) || resolvers.length === 0) {
      throw new SchemaPinError("INPUT_INVALID", "ChainResolver needs at least one resolver");
    }
    this.#resolvers = [...resolvers];
  }

  /** The resolvers, in order. */
  get resolvers(): readonly SchemaResolver[] {
    return this.#resolvers;
  }

  /** The sources the chain asks for `domain`, joined. */
  sourceName(domain: string): string {
    return this.#resolvers.map((r, i) => nameOf(r, domain, i)).join(" → ");
  }

  /**
   * Walks the chain and returns the validated documents of the first resolver that has the
   * discovery document. Rejects with the stopping error, or — when no resolver has a
   * document — with the last "not found" code (`KEY_NOT_FOUND` when they all answered
   * `undefined`) and `details.notFound`, listing every source asked.
   */
  async resolveTrust(domain: string, options: ResolveTrustOptions = {}): Promise<ResolvedTrust> {
    const name = validDomain(domain);
    const misses: string[] = [];
    let last: SchemaPinError | undefined;
    for (let i = 0; i < this.#resolvers.length; i++) {
      const resolver = this.#resolvers[i];
      let found: ResolvedTrust | undefined;
      try {
        found = resolver instanceof ChainResolver
          ? await resolver.resolveTrust(name, options)
          : await resolveFrom(resolver, name, options, i);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        last = e as SchemaPinError;
        misses.push(last.message);
        continue;
      }
      if (found === undefined) {
        last = undefined;
        misses.push(`${nameOf(resolver, name, i)}: no document for ${name}`);
        continue;
      }
      this.#winner.set(name, resolver);
      return found;
    }
    throw new SchemaPinError(
      last?.code ?? "KEY_NOT_FOUND",
      `no resolver has a discovery document for ${name} (${misses.join("; ")})`,
      { domain: name, notFound: true, ...(last?.details.remote ? { remote: true } : {}) },
    );
  }

  /** §14.1: the first discovery document found (see {@linkcode ChainResolver.resolveTrust}). */
  async resolveDiscovery(domain: string): Promise<unknown> {
    try {
      return (await this.resolveTrust(domain, {})).discovery;
    } catch (e) {
      if (isNotFound(e) && (e as SchemaPinError).code === "KEY_NOT_FOUND") return undefined;
      throw e;
    }
  }

  /** §14.1: the revocation document of the resolver that supplied the discovery document. */
  async resolveRevocation(domain: string, discovery: DiscoveryDocument): Promise<unknown> {
    const name = validDomain(domain);
    if (!this.#winner.has(name)) await this.resolveDiscovery(name);
    const winner = this.#winner.get(name);
    if (!winner || typeof winner.resolveRevocation !== "function") return undefined;
    return await winner.resolveRevocation(name, discovery);
  }
}

/**
 * Resolves `domain`'s documents for verification: the domain is validated first (§9,
 * `INPUT_INVALID`, nothing asked); the discovery document and its key are validated
 * (`DISCOVERY_INVALID`); the revocation document comes from the same resolver and is
 * validated; a declared endpoint that cannot be fetched fails (`DISCOVERY_FETCH_FAILED`)
 * unless `allowMissingRevocation`. No document: `KEY_NOT_FOUND` (or the resolver's own
 * not-found error, e.g. `DISCOVERY_FETCH_FAILED` for HTTP 404), with `details.notFound`.
 *
 * @example
 * ```ts
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { parseJson, verifySchemaOffline } from "jsr:@schemapin/schemapin";
 * import { resolveTrustDocuments, WellKnownResolver } from "jsr:@schemapin/schemapin/discovery";
 * const trust = await resolveTrustDocuments(new WellKnownResolver(), "example.com");
 * const result = await verifySchemaOffline({
 *   schema: parseJson(await Deno.readFile("tool.json"), "tool.json"),
 *   signature: await Deno.readTextFile("tool.json.b64"),
 *   toolId: "calculate_sum",
 *   domain: "example.com",
 *   discovery: trust.discovery,
 *   revocation: trust.revocation,
 *   pinStore: new FilePinStore(),
 * });
 * console.log(result.valid);
 * ```
 */
export async function resolveTrustDocuments(
  resolver: SchemaResolver,
  domain: string,
  options: ResolveTrustOptions = {},
): Promise<ResolvedTrust> {
  const name = validDomain(domain);
  if (resolver instanceof ChainResolver) return await resolver.resolveTrust(name, options);
  const found = await resolveFrom(resolver, name, options);
  if (found === undefined) {
    throw new SchemaPinError(
      "KEY_NOT_FOUND",
      `${nameOf(resolver, name)} has no discovery document for ${name}`,
      { domain: name, notFound: true },
    );
  }
  return found;
}
