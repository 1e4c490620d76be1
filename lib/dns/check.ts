/**
 * DNS TXT cross-verification (§17): look up `_schemapin.{domain}`, then compare the published
 * fingerprint with the discovery key — the semantics table of §17.2:
 *
 * | DNS says                          | effect                                            |
 * |-----------------------------------|---------------------------------------------------|
 * | absent (NXDOMAIN, no TXT record, no record with `v=schemapin1`) | none           |
 * | present and matching              | ok                                                |
 * | present and mismatching           | `DOMAIN_MISMATCH`                                 |
 * | present and malformed             | `DISCOVERY_INVALID`                               |
 * | no answer (timeout, SERVFAIL, REFUSED, unreadable) | `DISCOVERY_FETCH_FAILED` — by default: |
 *
 * a caller who asked for the cross-check and got no answer cannot tell an outage from an
 * attacker suppressing DNS to hide a mismatch, so a lookup failure fails closed unless the
 * caller chose `onLookupFailure: "warn"` (then: warning `dns_lookup_failed`, no effect).
 *
 * The comparison runs in the verification flow's before-pin hook (`dnsBeforePinHook` in
 * `lib/schema/resolver_verify.ts`): after the signature verified and before any pin is written,
 * so a mismatch never leaves a pin behind.
 *
 * @module
 */
import type { ErrorCode, StepFailure } from "../errors.ts";
import { type DnsLookupOptions, type DnsLookupResult, lookupTxt } from "./resolve.ts";
import { dnsLookupName, type DnsTxtRecord, selectDnsTxtRecord } from "./txt.ts";
import { checkArg } from "../arguments.ts";

/** The published record, as looked up (before comparing it with a key). */
export interface DnsTxtLookup {
  /** The lookup name, `_schemapin.{domain}`. */
  readonly name: string;
  /** The name server asked. */
  readonly server: string;
  /** `absent`, `present`, `malformed`, or `failed` (no answer). */
  readonly state: "absent" | "present" | "malformed" | "failed";
  /** The parsed record (`present`). */
  readonly record?: DnsTxtRecord;
  /** The record text, chunks concatenated (`present`, `malformed`). */
  readonly text?: string;
  /** Why it is malformed, or why the lookup failed. */
  readonly reason?: string;
  /** How many TXT records the name has. */
  readonly records: number;
  /** How many of them carry `v=schemapin1` (the first one counts). */
  readonly candidates: number;
}

/**
 * Looks up and parses the `_schemapin` TXT record of `domain` (validated; one trailing dot
 * stripped, §17.4). Network trouble is a `failed` lookup, not an exception; an invalid
 * domain or name server throws `SchemaPinError` `INPUT_INVALID` before any query.
 *
 * **Deno only**: the query goes through `Deno.resolveDns` and `Deno.connect`. Under Node and
 * Bun, look the record up with `node:dns` (`resolveTxt`) and parse it with
 * {@linkcode parseDnsTxtRecord}.
 *
 * @example
 * ```ts
 * import { lookupDnsTxt } from "./check.ts";
 * const lookup = await lookupDnsTxt("example.com", { nameServer: "127.0.0.1:5353" });
 * console.log(lookup.name, lookup.state, lookup.record?.fp); // _schemapin.example.com present …
 * ```
 */
export async function lookupDnsTxt(
  domain: string,
  options: DnsLookupOptions = {},
): Promise<DnsTxtLookup> {
  const name = dnsLookupName(domain);
  return lookupFromAnswer(name, await lookupTxt(name, options));
}

/**
 * The lookup of `name` that `answer` makes: the §17.1 record selected from the TXT records
 * answered (`absent`, `present`, `malformed`), or a `failed` lookup when there was no answer.
 * {@linkcode lookupDnsTxt} and the caller-supplied resolvers of `lookupDnsTxtWith`
 * (lib/dns/txt_resolver.ts) share it.
 *
 * @example
 * ```ts
 * import { lookupFromAnswer } from "./check.ts";
 * import type { DnsLookupResult } from "./resolve.ts";
 * const none: DnsLookupResult = { status: "answered", server: "", rcode: "NXDOMAIN", records: [] };
 * lookupFromAnswer("_schemapin.example.com", none).state; // "absent"
 * ```
 */
export function lookupFromAnswer(name: string, answer: DnsLookupResult): DnsTxtLookup {
  if (answer.status === "failed") {
    return {
      name,
      server: answer.server,
      state: "failed",
      reason: answer.reason,
      records: 0,
      candidates: 0,
    };
  }
  const selected = selectDnsTxtRecord(answer.records, `the TXT record at ${name}`);
  const base = { name, server: answer.server, records: selected.records };
  switch (selected.state) {
    case "absent":
      return { ...base, state: "absent", candidates: 0 };
    case "present":
      return {
        ...base,
        state: "present",
        record: selected.record,
        text: selected.text,
        candidates: selected.candidates,
      };
    case "malformed":
      return {
        ...base,
        state: "malformed",
        text: selected.text,
        reason: selected.reason,
        candidates: selected.candidates,
      };
  }
}

/** The outcome of comparing a lookup with a key, as reported in results (`dns`). */
export interface DnsCrossCheck {
  /** `absent`, `match`, `mismatch`, `malformed` or `lookup_failed`. */
  readonly state: "absent" | "match" | "mismatch" | "malformed" | "lookup_failed";
  /** The lookup name. */
  readonly name: string;
  /**
   * The name server asked (`host:port`), or `"the given resolver"` when the records came from
   * a caller's `resolveTxt` function.
   */
  readonly server: string;
  /** The published fingerprint (`match`, `mismatch`). */
  readonly fingerprint?: string;
  /** The published kid, when any. */
  readonly kid?: string;
  /** The record text (`match`, `mismatch`, `malformed`). */
  readonly text?: string;
  /** Why it is malformed, or why the lookup failed. */
  readonly reason?: string;
}

/** How a lookup failure is treated (default `"fail"`, see the module documentation). */
export type DnsFailurePolicy = "fail" | "warn";

/** A cross-check decision: the report, the failure (if any) and a warning (if any). */
export interface DnsDecision {
  /** What is reported. */
  readonly check: DnsCrossCheck;
  /** The failure that stops verification, per §17.2. */
  readonly failure?: StepFailure;
  /** Warning codes: `dns_lookup_failed` (policy `warn`), `dns_multiple_records`. */
  readonly warnings: readonly string[];
}

/**
 * Applies the §17.2 table to a lookup and the discovery key's fingerprint (pure).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { crossCheckDnsTxt, lookupDnsTxt } from "./check.ts";
 * const lookup = await lookupDnsTxt("example.com");
 * const key = generateKeyPair().publicKey; // the key of example.com's discovery document
 * const { check, failure, warnings } = crossCheckDnsTxt(lookup, key.fingerprint);
 * if (failure) console.error(failure.errorCode, failure.errorMessage); // DOMAIN_MISMATCH, …
 * console.log(check.state, warnings);
 * ```
 */
export function crossCheckDnsTxt(
  lookup: DnsTxtLookup,
  keyFingerprint: string,
  onLookupFailure: DnsFailurePolicy = "fail",
): DnsDecision {
  checkArg("crossCheckDnsTxt", "lookup", lookup, "object");
  checkArg("crossCheckDnsTxt", "keyFingerprint", keyFingerprint, "string");
  const base = { name: lookup.name, server: lookup.server };
  const warnings = lookup.candidates > 1 ? ["dns_multiple_records"] : [];
  switch (lookup.state) {
    case "absent":
      return { check: { ...base, state: "absent" }, warnings };
    case "failed": {
      const check: DnsCrossCheck = { ...base, state: "lookup_failed", reason: lookup.reason };
      if (onLookupFailure === "warn") return { check, warnings: ["dns_lookup_failed"] };
      return {
        check,
        warnings,
        failure: {
          errorCode: "DISCOVERY_FETCH_FAILED",
          errorMessage: `DNS TXT cross-check was requested but ${lookup.name} could not be ` +
            `looked up at ${lookup.server}: ${lookup.reason}; an unanswered lookup is not ` +
            `"absent" — failing closed`,
        },
      };
    }
    case "malformed":
      return {
        check: { ...base, state: "malformed", text: lookup.text, reason: lookup.reason },
        warnings,
        failure: { errorCode: "DISCOVERY_INVALID", errorMessage: lookup.reason! },
      };
    case "present": {
      const record = lookup.record!;
      const published = {
        fingerprint: record.fp,
        text: lookup.text,
        ...(record.kid !== undefined ? { kid: record.kid } : {}),
      };
      if (record.fp === keyFingerprint) {
        return { check: { ...base, state: "match", ...published }, warnings };
      }
      return {
        check: { ...base, state: "mismatch", ...published },
        warnings,
        failure: {
          errorCode: "DOMAIN_MISMATCH",
          errorMessage: `DNS TXT ${lookup.name} publishes key ${record.fp}, but the discovery ` +
            `document's key is ${keyFingerprint}: one of the two channels is not the ` +
            `publisher's (§17.2)`,
        },
      };
    }
  }
}

/**
 * What a domain's record says on its own (`schemapin dns check`): a well-formed record is
 * published and, when `keyFingerprint` is given, it matches that key.
 */
export interface DnsTxtVerdict {
  /** A well-formed record is published (and matches the key, when one was given). */
  readonly ok: boolean;
  /** The comparison with the key, when one was given. */
  readonly decision?: DnsDecision;
  /**
   * Why it is not ok: the comparison's failure, else the lookup's — `DISCOVERY_FETCH_FAILED`
   * (no answer), `DISCOVERY_INVALID` (malformed), `KEY_NOT_FOUND` (no record).
   */
  readonly error?: { readonly code: ErrorCode; readonly message: string };
}

/**
 * Judges a lookup as `schemapin dns check` does: unlike a verification's cross-check (where an
 * absent record has no effect, §17.2), checking a domain's record asks for one to be there.
 *
 * @example
 * ```ts ignore
 * import { dnsTxtVerdict, lookupDnsTxt } from "./check.ts";
 * const verdict = dnsTxtVerdict(await lookupDnsTxt("example.com"), "sha256:…");
 * if (!verdict.ok) console.error(verdict.error!.code, verdict.error!.message);
 * ```
 */
export function dnsTxtVerdict(lookup: DnsTxtLookup, keyFingerprint?: string): DnsTxtVerdict {
  const decision = keyFingerprint === undefined
    ? undefined
    : crossCheckDnsTxt(lookup, keyFingerprint);
  const ok = lookup.state === "present" &&
    (decision === undefined || decision.check.state === "match");
  if (ok) return { ok, ...(decision ? { decision } : {}) };
  return { ok, ...(decision ? { decision } : {}), error: lookupError(lookup, decision?.failure) };
}

/** The error of a failed check: the cross-check's failure, else the lookup's. */
function lookupError(
  lookup: DnsTxtLookup,
  failure: StepFailure | undefined,
): { code: ErrorCode; message: string } {
  if (failure) return { code: failure.errorCode, message: failure.errorMessage };
  switch (lookup.state) {
    case "failed":
      return {
        code: "DISCOVERY_FETCH_FAILED",
        message: `no answer for ${lookup.name} from ${lookup.server}: ${lookup.reason}`,
      };
    case "malformed":
      return { code: "DISCOVERY_INVALID", message: lookup.reason ?? "malformed TXT record" };
    default:
      return {
        code: "KEY_NOT_FOUND",
        message: `no TXT record with v=schemapin1 at ${lookup.name}`,
      };
  }
}
