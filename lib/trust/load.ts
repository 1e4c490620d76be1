/**
 * Trust composition: where the key of a verification comes from. A {@linkcode TrustPlan}
 * names the sources — an explicit public key, a discovery document (with an optional
 * revocation document), or a chain of a trust bundle, a resolver folder and `.well-known` over
 * HTTPS (§14), in the order given — and {@linkcode loadTrust} / {@linkcode loadTrustAndDnsHook}
 * read every local input first (a bad local file fails before any request), then resolve the
 * documents and, with DNS, look up the TXT record (§17) concurrently. The result,
 * {@linkcode TrustInputs}, is what the verification flows (`lib/schema/flow.ts`) take; the
 * helpers below turn it into a pin store and finish a result with it.
 *
 * Files are read through the caller's reader (the CLI's takes `-` as stdin); a signed bundle
 * is verified against the caller's authority allow-list (§21.4).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { loadDiscoveryKey, parseDiscoveryDocument } from "../discovery/document.ts";
import { parseRevocationDocument } from "../revocation/document.ts";
import { defaultPinStorePath, FilePinStore, type PinRecord, type PinStore } from "../pins/store.ts";
import type {
  BeforePinHook,
  OfflineFlowOptions,
  OfflineVerificationResult,
} from "../schema/flow.ts";
// The code of a key source other than a local key or discovery document — a bundle, the
// resolvers of a chain, `.well-known`, DNS — is loaded when a plan uses it (start-up).
import type { BundleAuthorityStore } from "../bundle/authority.ts";
import type { LoadedTrustBundle } from "../bundle/resolver.ts";
import type { SchemaResolver } from "../discovery/resolvers.ts";
import type { HttpsFetchOptions } from "../discovery/http.ts";
import type { DnsTxtLookup } from "../dns/check.ts";
import type { DnsServer } from "../dns/resolve.ts";
import {
  type PemKeyHint,
  type ReadInput,
  readJsonInput,
  readPublicKeyInput,
  readTextInput,
  requireDirectory,
  sourceName,
} from "../schema/input.ts";

/** The trust inputs of a verification and the names they are reported under. */
export interface TrustInputs {
  /** The parsed discovery document. */
  discovery: unknown;
  /** The parsed standalone revocation document, if any. */
  revocation?: unknown;
  /** Where the discovery document came from, for messages. */
  discoverySource: string;
  /** Where the revocation document came from, for messages. */
  revocationSource?: string;
  /** Warnings from resolving (`revocation_endpoint_unreachable`). */
  warnings?: readonly string[];
  /** With an explicit public key: the fingerprint of that key (nothing is pinned). */
  explicitKey?: string;
}

/** A key source that can form a chain (§14): tried in order, only "not found" falls through. */
export type TrustSource = "bundle" | "resolver-dir" | "well-known";

/**
 * Where the trust inputs of one verification come from, already checked for consistency (the
 * CLI builds it from its flags and refuses contradictions before anything is read): exactly
 * one of `publicKey`, `discovery` or a non-empty `chain`.
 *
 * @example
 * ```ts
 * import type { TrustPlan } from "./load.ts";
 * const plan: TrustPlan = { domain: "example.com", discovery: "schemapin.json", chain: [] };
 * ```
 */
export interface TrustPlan {
  /** The domain whose documents are loaded (a checked host name, §9). */
  readonly domain: string;
  /** A public key file (PEM, SPKI): the trust anchor instead of a discovery document. */
  readonly publicKey?: string;
  /** A discovery document file. */
  readonly discovery?: string;
  /** A standalone revocation document file (with `publicKey` or `discovery`). */
  readonly revocation?: string;
  /** The chain of sources, in order (empty with `publicKey` or `discovery`). */
  readonly chain: readonly TrustSource[];
  /** The bundle file of the chain's `"bundle"`. */
  readonly bundle?: string;
  /** The folder of the chain's `"resolver-dir"` (it must exist). */
  readonly resolverDir?: string;
  /** Extra CA certificates (a PEM file) for `"well-known"`. */
  readonly caFile?: string;
  /** The connect and read deadline of `"well-known"`, in milliseconds. */
  readonly httpsTimeoutMs?: number;
  /** Refuse an unsigned bundle (any authority was given: no silent downgrade, §21.4). */
  readonly requireSignedBundle?: boolean;
  /** Accept a signed bundle from an authority not in the allow-list (explicit opt-in). */
  readonly allowFirstUseAuthority?: boolean;
  /** Accept a declared revocation endpoint whose document cannot be fetched. */
  readonly allowMissingRevocation?: boolean;
  /** Cross-check the key with the `_schemapin` TXT record (§17): the server and deadline. */
  readonly dns?: { readonly server?: DnsServer; readonly timeoutMs?: number };
}

/**
 * How the caller names the inputs of a plan in messages and in the sources a result reports;
 * each has a default in the library's terms. The CLI names its options here.
 *
 * @example
 * ```ts
 * import type { TrustInputNames } from "./load.ts";
 * const names: TrustInputNames = { publicKey: "key file", resolverDir: "key folder" };
 * ```
 */
export interface TrustInputNames {
  /** The explicit public key, before its path (default `public key`). */
  readonly publicKey?: string;
  /** What to do when the explicit public key file holds a private key. */
  readonly publicKeyAdvice?: string;
  /** Where a key goes, said when a PEM key is given as the discovery document (default: not said). */
  readonly keyHint?: PemKeyHint;
  /** The resolver folder, before its path (default `resolver folder`). */
  readonly resolverDir?: string;
  /** The extra CA certificates file, before its path (default `CA file`). */
  readonly caFile?: string;
  /** The option that gives a DNS name server, when none is configured (default `nameServer`). */
  readonly dnsServer?: string;
}

const DEFAULT_NAMES = {
  publicKey: "public key",
  publicKeyAdvice: "give the public key (PEM, SPKI) and keep the private key off this machine",
  resolverDir: "resolver folder",
  caFile: "CA file",
} as const;

/** What loading a plan reads with. */
export interface TrustEnv {
  /** Reads a file the plan names; throws `SchemaPinError` naming it. */
  readonly read: ReadInput;
  /**
   * The authority allow-list a bundle is verified against, asked for once per bundle after the
   * bundle file was read (default: an empty in-memory store).
   */
  readonly authorityStore?: () => Promise<BundleAuthorityStore>;
  /** How messages and reported sources name the plan's inputs (defaults in the library's terms). */
  readonly names?: TrustInputNames;
}

/** Trust inputs loaded from a plan, and the DNS cross-check hook when the plan asks for DNS. */
export interface LoadedTrust<R extends OfflineVerificationResult = OfflineVerificationResult> {
  /** The trust inputs. */
  readonly trust: TrustInputs;
  /** The DNS TXT cross-check (§17), run before any pin is written. */
  readonly dnsHook: BeforePinHook<R> | undefined;
}

/**
 * A pin store for an explicit public key: every tool is "pinned" to that key, so the flow
 * checks the signature against it and never writes; the store is never persisted.
 *
 * @example
 * ```ts
 * import { explicitKeyPinStore } from "./load.ts";
 * const pins = explicitKeyPinStore("sha256:" + "0".repeat(64));
 * (await pins.get("tool", "example.com"))?.source; // "seeded"
 * ```
 */
export function explicitKeyPinStore(fingerprint: string): PinStore {
  const record = (toolId: string, domain: string): PinRecord => ({
    toolId,
    domain,
    fingerprint,
    pinnedAt: "1970-01-01T00:00:00Z",
    source: "seeded",
  });
  return {
    get: (toolId, domain) => Promise.resolve(record(toolId, domain)),
    list: () => Promise.resolve([]),
    transact: (change) => Promise.resolve(change(new Map()).result),
  };
}

/**
 * The pin store a verification with `trust` uses: the explicit key's (nothing is pinned, the
 * pin file is not opened), else the file `pinStorePath` (default: {@linkcode defaultPinStorePath}).
 *
 * @example
 * ```ts ignore
 * import { trustPinStore } from "./load.ts";
 * const pins = trustPinStore(trust, "pins.json");
 * ```
 */
export function trustPinStore(trust: TrustInputs, pinStorePath?: string): PinStore {
  return trust.explicitKey !== undefined
    ? explicitKeyPinStore(trust.explicitKey)
    : new FilePinStore(pinStorePath ?? defaultPinStorePath());
}

/** How a verification uses loaded trust: the choices every verifier of a plan shares. */
export interface TrustUse {
  /** The pin file (default `defaultPinStorePath()`; never opened for an explicit key). */
  readonly pinStore?: string;
  /** Pin an unknown key after it verifies. */
  readonly trustFirstUse?: boolean;
  /** Accept an expired signature with a warning (§16.2). */
  readonly allowExpired?: boolean;
  /** Accept a declared `revocation_endpoint` without a revocation document (§9). */
  readonly allowMissingRevocation?: boolean;
}

/**
 * The options of the verification flow (lib/schema/flow.ts) for `domain` with the loaded
 * `trust`: its discovery and revocation documents and their sources, the pin store
 * ({@linkcode trustPinStore}) and the choices of `use`. Shared by the verifiers of schemas,
 * skills, lock signatures and the guard's tools.
 *
 * @example
 * ```ts ignore
 * import { trustFlowOptions } from "./load.ts";
 * const flow = trustFlowOptions(plan.domain, trust, { trustFirstUse: true });
 * ```
 */
export function trustFlowOptions(
  domain: string,
  trust: TrustInputs,
  use: TrustUse,
):
  & Required<
    Pick<
      OfflineFlowOptions,
      | "domain"
      | "discovery"
      | "pinStore"
      | "trustFirstUse"
      | "allowExpired"
      | "allowMissingRevocation"
      | "sources"
    >
  >
  & Pick<OfflineFlowOptions, "revocation"> {
  return {
    domain,
    discovery: trust.discovery,
    revocation: trust.revocation,
    pinStore: trustPinStore(trust, use.pinStore),
    trustFirstUse: use.trustFirstUse === true,
    allowExpired: use.allowExpired === true,
    allowMissingRevocation: use.allowMissingRevocation === true,
    sources: { discovery: trust.discoverySource, revocation: trust.revocationSource },
  };
}

/**
 * Finishes a verification result with what its trust inputs say: where the discovery
 * document came from, the warnings of resolving, and — with an explicit key — that no pin was
 * consulted or written (`keyPinning: "not_checked"`). Returns `result`.
 *
 * @example
 * ```ts ignore
 * import { withTrustInputs } from "./load.ts";
 * const result = withTrustInputs(await verifySchemaOfflineWithHook(options, dnsHook), trust);
 * ```
 */
export function withTrustInputs<R extends OfflineVerificationResult & { discoverySource?: string }>(
  result: R,
  trust: TrustInputs,
): R {
  result.discoverySource = trust.discoverySource;
  result.warnings.push(...(trust.warnings ?? []));
  if (trust.explicitKey !== undefined) result.keyPinning = "not_checked";
  return result;
}

/**
 * The HTTPS options of `.well-known` fetches: the deadline and, with `caFile`, an HTTP client
 * trusting its certificates (Deno only; close it). Messages about the file name it
 * `caFileName` and its path (default `CA file`).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when `caFile` holds no PEM certificate or cannot
 *   be used; what `read` throws.
 *
 * @example
 * ```ts ignore
 * import { httpsFetchOptions } from "./load.ts";
 * const options = await httpsFetchOptions({ timeoutMs: 5000 }, (p) => Deno.readFile(p));
 * ```
 */
export async function httpsFetchOptions(
  settings: { readonly timeoutMs?: number; readonly caFile?: string },
  read: ReadInput,
  caFileName: string = DEFAULT_NAMES.caFile,
): Promise<HttpsFetchOptions> {
  const ms = settings.timeoutMs;
  const options: HttpsFetchOptions = ms === undefined
    ? {}
    : { connectTimeoutMs: ms, readTimeoutMs: ms };
  const caFile = settings.caFile;
  if (caFile !== undefined) {
    const pem = await readTextInput(caFile, read);
    if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${caFileName} ${sourceName(caFile)} holds no PEM certificate (BEGIN CERTIFICATE)`,
        { path: caFile },
      );
    }
    try {
      const deno = (globalThis as { Deno?: typeof Deno }).Deno;
      if (typeof deno?.createHttpClient !== "function") {
        throw new SchemaPinError(
          "INPUT_INVALID",
          "extra CA certificates need Deno.createHttpClient (Deno only)",
        );
      }
      options.client = deno.createHttpClient({ caCerts: [pem] });
    } catch (e) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${caFileName} ${sourceName(caFile)}: ${(e as Error).message}`,
        { path: caFile },
      );
    }
  }
  return options;
}

/** A domain's entries from a bundle file, as the verification flows read them. */
export interface BundleFileEntries {
  /** The discovery document (known fields, with `domain`). */
  readonly discovery: Record<string, unknown>;
  /** The revocation document, when the bundle has one for the domain. */
  readonly revocation?: Record<string, unknown>;
  /** How the bundle was accepted. */
  readonly loaded: LoadedTrustBundle;
}

/** Reads a bundle file and loads it: a signed one only after it verified (§21.4). */
async function loadBundleFile(
  file: string,
  plan: TrustPlan,
  env: TrustEnv,
): Promise<{ value: unknown; loaded: LoadedTrustBundle }> {
  const value = await readJsonInput(file, env.read, "trust bundle");
  const store = env.authorityStore
    ? await env.authorityStore()
    : new (await import("../bundle/authority.ts")).MemoryBundleAuthorityStore();
  const { loadTrustBundle } = await import("../bundle/resolver.ts");
  const loaded = await loadTrustBundle(value, store, {
    allowFirstUse: plan.allowFirstUseAuthority === true,
    source: sourceName(file),
    requireSigned: plan.requireSignedBundle === true,
  });
  return { value, loaded };
}

/**
 * Reads the bundle `file` and finds `domain`'s documents. An unsigned bundle is used as given
 * (it is the caller's own trust input, §13), unless `plan.requireSignedBundle`
 * (`BUNDLE_UNSIGNED`: no silent downgrade of a bundle whose signature was stripped); a signed
 * bundle only after it verified against `env.authorityStore` (first-use trust only with
 * `plan.allowFirstUseAuthority`). Only the signed (known) fields reach the caller.
 *
 * @throws {SchemaPinError} the §21.4 code for a bundle that fails verification,
 *   `DISCOVERY_INVALID` for a malformed bundle, `KEY_NOT_FOUND` when it has no document for
 *   `domain`.
 *
 * @example
 * ```ts ignore
 * import { findInBundleFile } from "./load.ts";
 * const { discovery } = await findInBundleFile("bundle.json", "example.com", plan, env);
 * ```
 */
export async function findInBundleFile(
  file: string,
  domain: string,
  plan: TrustPlan,
  env: TrustEnv,
): Promise<BundleFileEntries> {
  const { loaded } = await loadBundleFile(file, plan, env);
  const found = (await import("../bundle/bundle.ts")).findInTrustBundle(loaded.bundle, domain);
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

/** A bundle file as a resolver of a chain (a signed bundle only after it verified, §21.4). */
async function bundleResolver(
  file: string,
  plan: TrustPlan,
  env: TrustEnv,
): Promise<SchemaResolver> {
  const { value, loaded } = await loadBundleFile(file, plan, env);
  const { TrustBundleResolver } = await import("../bundle/resolver.ts");
  const resolver = loaded.signed
    ? TrustBundleResolver.fromVerified(loaded.verification!.verified!)
    : TrustBundleResolver.fromUnsigned(value, sourceName(file));
  return {
    resolveDiscovery: (d) => resolver.resolveDiscovery(d),
    resolveRevocation: (d) => resolver.resolveRevocation(d),
    sourceName: (d) => `${sourceName(file)} (documents: ${d})`,
    revocationSourceName: (d) => `${sourceName(file)} (revocations: ${d})`,
  };
}

/** Checks the structure of the local discovery (and its key) and revocation documents. */
function validateTrust(trust: TrustInputs): TrustInputs {
  const { document } = parseDiscoveryDocument(trust.discovery, trust.discoverySource);
  loadDiscoveryKey(document, trust.discoverySource);
  if (trust.revocation !== undefined) {
    parseRevocationDocument(trust.revocation, trust.revocationSource);
  }
  return trust;
}

/** Trust inputs whose local files are read and checked; `resolve` is what may use the network. */
interface PreparedTrust {
  resolve(): Promise<TrustInputs>;
  close(): void;
}

/**
 * Reads and checks everything local that `plan` names — the key, discovery and revocation
 * files, a bundle (verified against the allow-list, §21.4), the resolver folder, the CA
 * certificates — and nothing remote. A bad local input fails here, before any request.
 */
async function prepareTrust(plan: TrustPlan, env: TrustEnv): Promise<PreparedTrust> {
  const { domain, chain } = plan;
  const ready = (trust: TrustInputs): PreparedTrust => ({
    resolve: () => Promise.resolve(trust),
    close: () => {},
  });
  const names = { ...DEFAULT_NAMES, ...env.names };
  if (plan.publicKey !== undefined) {
    const source = sourceName(plan.publicKey);
    const key = await readPublicKeyInput(plan.publicKey, env.read, {
      flag: names.publicKey,
      advice: names.publicKeyAdvice,
    });
    const trust: TrustInputs = {
      discovery: {
        schema_version: "1.4",
        developer_name: `(${names.publicKey} ${source})`,
        public_key_pem: key.pem,
      },
      discoverySource: `${names.publicKey} ${source}`,
      explicitKey: key.fingerprint,
    };
    if (plan.revocation !== undefined) {
      trust.revocation = await readJsonInput(plan.revocation, env.read, "revocation document");
      trust.revocationSource = sourceName(plan.revocation);
    }
    return ready(validateTrust(trust));
  }
  if (plan.discovery !== undefined) {
    const trust: TrustInputs = {
      discovery: await readJsonInput(
        plan.discovery,
        env.read,
        "discovery document",
        names.keyHint,
      ),
      discoverySource: sourceName(plan.discovery),
    };
    if (plan.revocation !== undefined) {
      trust.revocation = await readJsonInput(plan.revocation, env.read, "revocation document");
      trust.revocationSource = sourceName(plan.revocation);
    }
    return ready(validateTrust(trust));
  }
  if (chain.length === 1 && chain[0] === "bundle") {
    const file = plan.bundle!;
    const found = await findInBundleFile(file, domain, plan, env);
    return ready(validateTrust({
      discovery: found.discovery,
      revocation: found.revocation,
      discoverySource: `${sourceName(file)} (documents: ${domain})`,
      revocationSource: `${sourceName(file)} (revocations: ${domain})`,
    }));
  }
  const { ChainResolver, LocalFileResolver, resolveTrustDocuments } = await import(
    "../discovery/resolvers.ts"
  );
  const resolvers: SchemaResolver[] = [];
  let client: Deno.HttpClient | undefined;
  try {
    for (const source of chain) {
      if (source === "bundle") {
        resolvers.push(await bundleResolver(plan.bundle!, plan, env));
      } else if (source === "resolver-dir") {
        // A mistyped folder must not fall through to the next source.
        await requireDirectory(names.resolverDir, plan.resolverDir!);
        resolvers.push(new LocalFileResolver(plan.resolverDir!));
      } else {
        const options = await httpsFetchOptions(
          { timeoutMs: plan.httpsTimeoutMs, caFile: plan.caFile },
          env.read,
          names.caFile,
        );
        client = options.client;
        const { WellKnownResolver } = await import("../discovery/well_known.ts");
        resolvers.push(new WellKnownResolver(options));
      }
    }
  } catch (e) {
    client?.close();
    throw e;
  }
  const resolver = resolvers.length === 1 ? resolvers[0] : new ChainResolver(resolvers);
  return {
    resolve: async () => ({
      ...await resolveTrustDocuments(resolver, domain, {
        allowMissingRevocation: plan.allowMissingRevocation === true,
      }),
    }),
    close: () => client?.close(),
  };
}

/**
 * Loads the trust inputs `plan` describes. Structure is checked, so a malformed local file is
 * an input error naming it; every local input is read before the first request. Network
 * failures carry `details.remote`.
 *
 * @example
 * ```ts ignore
 * import { loadTrust } from "./load.ts";
 * const trust = await loadTrust(
 *   { domain: "example.com", discovery: "schemapin.json", chain: [] },
 *   { read: (p) => Deno.readFile(p) },
 * );
 * ```
 */
export async function loadTrust(plan: TrustPlan, env: TrustEnv): Promise<TrustInputs> {
  const prepared = await prepareTrust(plan, env);
  try {
    return await prepared.resolve();
  } finally {
    prepared.close();
  }
}

/**
 * The trust inputs ({@linkcode loadTrust}) and, with `plan.dns`, the DNS TXT cross-check as a
 * before-pin hook. Every local input is read first; then the `.well-known` fetch and the DNS
 * lookup run concurrently. Network trouble in the DNS lookup is a `failed` lookup, which the
 * hook turns into `DISCOVERY_FETCH_FAILED` (fail closed).
 *
 * @example
 * ```ts ignore
 * import { loadTrustAndDnsHook } from "./load.ts";
 * const { trust, dnsHook } = await loadTrustAndDnsHook<SkillVerificationResult>(plan, env);
 * ```
 */
export async function loadTrustAndDnsHook<R extends OfflineVerificationResult>(
  plan: TrustPlan,
  env: TrustEnv,
): Promise<LoadedTrust<R>> {
  const prepared = await prepareTrust(plan, env);
  try {
    const { dns: options } = plan;
    const lookup: Promise<DnsTxtLookup | undefined> = options
      ? import("../dns/check.ts").then(({ lookupDnsTxt }) =>
        lookupDnsTxt(plan.domain, {
          ...(options.server ? { nameServer: options.server } : {}),
          ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
          ...(env.names?.dnsServer ? { nameServerName: env.names.dnsServer } : {}),
        })
      )
      : Promise.resolve(undefined);
    const [trust, dns] = await Promise.all([prepared.resolve(), lookup]);
    if (dns === undefined) return { trust, dnsHook: undefined };
    const { dnsBeforePinHook } = await import("../schema/resolver_verify.ts");
    return { trust, dnsHook: dnsBeforePinHook<R>(dns) };
  } finally {
    prepared.close();
  }
}
