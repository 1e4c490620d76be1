/**
 * Where the TXT records of the §17 cross-check come from, as a function: a
 * {@linkcode DnsTxtResolver} takes a lookup name and resolves to its TXT records, so the
 * library verifies with DNS wherever the caller can answer that question — `node:dns`, a
 * DNS-over-HTTPS client, a cache, a test table — and not only where this library's own DNS
 * client can reach a name server. {@linkcode dnsTxtResolver} is that client (lib/dns/resolve.ts)
 * as such a function, and the default.
 *
 * {@linkcode lookupDnsTxtWith} turns what a resolver says into the lookup the §17.2 table is
 * applied to (`crossCheckDnsTxt`, lib/dns/check.ts): the same record selection as
 * `lookupDnsTxt`, the same `failed` state when there is no answer.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { argumentError, checkArg } from "../arguments.ts";
import { type DnsTxtLookup, lookupDnsTxt, lookupFromAnswer } from "./check.ts";
import {
  DEFAULT_DNS_TIMEOUT_MS,
  type DnsLookupOptions,
  type DnsLookupResult,
  lookupTxt,
  parseDnsServer,
} from "./resolve.ts";
import { dnsLookupName } from "./txt.ts";

/**
 * Looks up the TXT records at a DNS name (`_schemapin.example.com`) for the DNS TXT
 * cross-check (§17). It resolves to the records, each one a string or the list of its
 * character-strings (concatenated in order, RFC 1464): the shape `resolveTxt` of
 * `node:dns/promises` and `Deno.resolveDns(name, "TXT")` resolve to. An empty list means the
 * name has no TXT record (NXDOMAIN, or no data): the record is *absent*, which has no effect.
 *
 * Rejecting means *no answer* (a timeout, SERVFAIL, REFUSED, no network): never read as
 * absent, because a caller who asked for the cross-check cannot tell an outage from an
 * attacker hiding a mismatch — the verification fails closed (`DISCOVERY_FETCH_FAILED`) unless
 * it was told to warn. Exception: a rejection whose `code` is `ENOTFOUND` or `ENODATA`, which
 * is how `node:dns` reports NXDOMAIN and "no data", counts as no records, so `resolveTxt` of
 * `node:dns/promises` can be passed as it is.
 *
 * @example Node.js's resolver
 * ```ts
 * import { resolveTxt } from "node:dns/promises";
 * import type { DnsTxtResolver } from "jsr:@schemapin/schemapin/discovery";
 *
 * const resolver: DnsTxtResolver = resolveTxt;
 * ```
 */
export type DnsTxtResolver = (
  name: string,
) => Promise<readonly (string | readonly string[])[]>;

/** The lookup options of the resolvers {@linkcode dnsTxtResolver} made. */
const BUILT_IN = new WeakMap<DnsTxtResolver, DnsLookupOptions>();

/** What `server` says for records from a caller's resolver. */
const GIVEN_RESOLVER = "the given resolver";

/** True where the built-in DNS client can run (it uses `Deno.connect` and `Deno.resolveDns`). */
function hasDenoDns(): boolean {
  const deno = (globalThis as { Deno?: { connect?: unknown; resolveDns?: unknown } }).Deno;
  return typeof deno?.connect === "function" && typeof deno?.resolveDns === "function";
}

/**
 * The library's own DNS client as a {@linkcode DnsTxtResolver}, and the default of
 * `verifySchemaOfflineWithDns` / `verifySkillOfflineWithDns`: it asks `nameServer` (`IP`,
 * `IP:PORT`, `[IPv6]:PORT`), else the `nameserver` lines of `/etc/resolv.conf` in order, over
 * UDP (TCP when the answer is truncated), within `timeoutMs` (default 5000) for the whole
 * lookup. NXDOMAIN and an answer without TXT records resolve to `[]`; no usable answer
 * (timeout, SERVFAIL, REFUSED, a reply that cannot be read) rejects with `SchemaPinError`
 * `DISCOVERY_FETCH_FAILED` (`details.server`, `details.reason`).
 *
 * **Deno only** (it uses `Deno.connect` and `Deno.resolveDns`): elsewhere it throws
 * `INPUT_INVALID` — under Node.js and Bun pass `resolveTxt` of `node:dns/promises` instead. A
 * malformed `nameServer` or `timeoutMs` throws `INPUT_INVALID` at once, before any query.
 *
 * @example Ask a given name server, within two seconds
 * ```ts
 * import { dnsTxtResolver } from "jsr:@schemapin/schemapin/discovery";
 *
 * const resolveTxt = dnsTxtResolver({ nameServer: "127.0.0.1:5353", timeoutMs: 2000 });
 * const records = await resolveTxt("_schemapin.example.com");
 * console.log(records); // [["v=schemapin1; fp=sha256:…"]], or [] when there is none
 * ```
 */
export function dnsTxtResolver(
  options: { readonly nameServer?: string; readonly timeoutMs?: number } = {},
): DnsTxtResolver {
  checkArg("dnsTxtResolver", "options", options, "object");
  checkArg("dnsTxtResolver", "options.nameServer", options.nameServer, "string", true);
  checkArg("dnsTxtResolver", "options.timeoutMs", options.timeoutMs, "number", true);
  if (options.nameServer !== undefined) parseDnsServer(options.nameServer);
  const timeoutMs = options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw argumentError("dnsTxtResolver", "options.timeoutMs", "a positive number", timeoutMs);
  }
  if (!hasDenoDns()) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      "dnsTxtResolver: the built-in DNS client runs on Deno only; give a resolver of your " +
        "runtime instead (resolveTxt of node:dns/promises under Node.js and Bun)",
      { function: "dnsTxtResolver" },
    );
  }
  const lookupOptions: DnsLookupOptions = {
    timeoutMs,
    ...(options.nameServer !== undefined ? { nameServer: options.nameServer } : {}),
  };
  const resolver: DnsTxtResolver = async (name) => {
    checkArg("dnsTxtResolver", "name", name, "string");
    const answer = await lookupTxt(name, lookupOptions);
    if (answer.status === "failed") {
      throw new SchemaPinError(
        "DISCOVERY_FETCH_FAILED",
        `no answer for ${name} from ${answer.server}: ${answer.reason}`,
        { name, server: answer.server, reason: answer.reason, remote: true },
      );
    }
    return answer.records;
  };
  BUILT_IN.set(resolver, lookupOptions);
  return resolver;
}

/** True for the errors `node:dns` reports NXDOMAIN and "no data" with. */
function isNoRecordsError(e: unknown): boolean {
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  return code === "ENOTFOUND" || code === "ENODATA";
}

/** The records a resolver gave, each as its chunks; `INPUT_INVALID` naming `fn` otherwise. */
function recordsOf(value: unknown, fn: string): string[][] {
  const expected = "a list of TXT records (strings, or lists of strings)";
  if (!Array.isArray(value)) {
    throw argumentError(fn, "what resolveTxt resolved to", expected, value);
  }
  return value.map((record) => {
    if (typeof record === "string") return [record];
    if (Array.isArray(record) && record.every((chunk) => typeof chunk === "string")) {
      return [...record];
    }
    throw argumentError(
      fn,
      "a record resolveTxt resolved to",
      "a string or a list of strings",
      record,
    );
  });
}

/**
 * Looks up the `_schemapin` TXT record of `domain` (one trailing dot stripped, §17.4) with
 * `resolveTxt`: what the records say (`present`, `malformed`, `absent`), or `failed` when the
 * resolver rejected (see {@linkcode DnsTxtResolver}). A resolver made by
 * {@linkcode dnsTxtResolver} runs `lookupDnsTxt` itself (its report names the name server that
 * answered); another is reported as `"the given resolver"`.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for an invalid domain, or a resolver that resolved
 *   to something other than a list of records (a mistake in the caller's code, named after
 *   `fn`).
 *
 * @example
 * ```ts
 * import { lookupDnsTxtWith } from "./txt_resolver.ts";
 * const lookup = await lookupDnsTxtWith("example.com", () => Promise.resolve([["v=spf1 -all"]]));
 * console.log(lookup.state); // "absent"
 * ```
 */
export async function lookupDnsTxtWith(
  domain: string,
  resolveTxt: DnsTxtResolver,
  fn = "lookupDnsTxtWith",
): Promise<DnsTxtLookup> {
  checkArg(fn, "resolveTxt", resolveTxt, "function");
  const builtIn = BUILT_IN.get(resolveTxt);
  if (builtIn !== undefined) return await lookupDnsTxt(domain, builtIn);
  const name = dnsLookupName(domain);
  let answer: DnsLookupResult;
  let resolved: unknown;
  try {
    resolved = await resolveTxt(name);
  } catch (e) {
    if (!isNoRecordsError(e)) {
      answer = {
        status: "failed",
        server: GIVEN_RESOLVER,
        reason: e instanceof Error ? e.message : String(e),
      };
      return lookupFromAnswer(name, answer);
    }
    resolved = [];
  }
  answer = {
    status: "answered",
    server: GIVEN_RESOLVER,
    rcode: "NOERROR",
    records: recordsOf(resolved, fn),
  };
  return lookupFromAnswer(name, answer);
}
