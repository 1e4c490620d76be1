/**
 * DNS TXT cross-verification records (§17): the lookup name (§17.4), parsing and formatting
 * `v=schemapin1; kid=…; fp=sha256:…` (§17.1), and choosing the record among several — pure
 * functions, no I/O.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { checkDomain } from "./domain.ts";
import { isSha256Ref } from "../crypto/fingerprint.ts";
import { checkArg } from "../arguments.ts";

/**
 * The version tag of §17.1.
 *
 * @example
 * ```ts
 * import { DNS_TXT_VERSION } from "./txt.ts";
 * console.log(DNS_TXT_VERSION); // "schemapin1"
 * ```
 */
export const DNS_TXT_VERSION = "schemapin1";

/** A parsed `_schemapin` TXT record. */
export interface DnsTxtRecord {
  /** Always `"schemapin1"`. */
  readonly v: string;
  /** The key fingerprint, `sha256:` and 64 lower-case hex digits. */
  readonly fp: string;
  /** The key id, when the record has one. */
  readonly kid?: string;
}

/**
 * The lookup name of §17.4: `_schemapin.{domain}`, with exactly one trailing dot stripped
 * (never more: `example.com..` stays invalid). The rest must be a valid domain (§9);
 * otherwise `SchemaPinError` `INPUT_INVALID` — no query is built from it.
 *
 * @example
 * ```ts
 * import { dnsLookupName } from "./txt.ts";
 * dnsLookupName("example.com."); // "_schemapin.example.com"
 * ```
 */
export function dnsLookupName(domain: string): string {
  const stripped = typeof domain === "string" && domain.endsWith(".")
    ? domain.slice(0, -1)
    : domain;
  const check = checkDomain(stripped);
  if (!check.ok) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `invalid domain ${JSON.stringify(domain)}: ${check.reason}`,
      { domain },
    );
  }
  return `_schemapin.${check.domain}`;
}

interface Field {
  readonly key: string;
  readonly value: string;
}

/** Splits `a=b; c = d;` into fields; `undefined` for a part without `=`. */
function splitFields(text: string): (Field | undefined)[] {
  return text.split(";").map((p) => p.trim()).filter((p) => p !== "").map((part) => {
    const eq = part.indexOf("=");
    if (eq < 0) return undefined;
    return { key: part.slice(0, eq).trim(), value: part.slice(eq + 1).trim() };
  });
}

/**
 * True when the record text has the field `v=schemapin1` (whitespace around `;` and `=`
 * tolerated). A parsed field, not a substring: `xv=schemapin1` or `v=schemapin10` do not
 * count.
 *
 * @example
 * ```ts
 * import { isSchemapinRecord } from "./txt.ts";
 * isSchemapinRecord("fp=sha256:00; v = schemapin1"); // true
 * isSchemapinRecord("v=spf1 -all"); // false
 * ```
 */
export function isSchemapinRecord(text: string): boolean {
  checkArg("isSchemapinRecord", "text", text, "string");
  return splitFields(text).some((f) => f?.key === "v" && f.value === DNS_TXT_VERSION);
}

/**
 * Parses a `_schemapin` TXT record (§17.1): fields separated by `;`, whitespace around `;`
 * and `=` tolerated, any order, unknown fields ignored. Throws `SchemaPinError`
 * `DISCOVERY_INVALID` (§17.2 "present and malformed") when `v` is not `schemapin1`, `fp` is
 * missing or not `sha256:` with 64 lower-case hex digits, a known field repeats, a part has
 * no `=`, or the text has characters outside printable ASCII.
 *
 * @example
 * ```ts
 * import { parseDnsTxtRecord } from "./txt.ts";
 * parseDnsTxtRecord("v=schemapin1; kid=k1; fp=sha256:" + "ab".repeat(32)).kid; // "k1"
 * ```
 */
export function parseDnsTxtRecord(text: string, source = "DNS TXT record"): DnsTxtRecord {
  checkArg("parseDnsTxtRecord", "text", text, "string");
  checkArg("parseDnsTxtRecord", "source", source, "string");
  const bad = (why: string) =>
    new SchemaPinError("DISCOVERY_INVALID", `${source} is malformed: ${why}`, {
      source,
      record: text,
    });
  if (!/^[\x20-\x7e\t]*$/.test(text)) {
    throw bad("it contains characters outside printable ASCII");
  }
  const seen = new Map<string, string>();
  for (const field of splitFields(text)) {
    if (field === undefined) throw bad("a part has no '='");
    if (field.key === "") throw bad("a field has no name");
    if (field.key === "v" || field.key === "fp" || field.key === "kid") {
      if (seen.has(field.key)) throw bad(`the field ${field.key} appears twice`);
      seen.set(field.key, field.value);
    }
  }
  const v = seen.get("v");
  if (v !== DNS_TXT_VERSION) {
    throw bad(v === undefined ? "v is missing" : `v is ${JSON.stringify(v)}, not schemapin1`);
  }
  const fp = seen.get("fp");
  if (fp === undefined) throw bad("fp is missing");
  if (!isSha256Ref(fp)) {
    throw bad(`fp ${JSON.stringify(fp)} is not sha256: and 64 lower-case hex digits`);
  }
  const kid = seen.get("kid");
  if (kid !== undefined && kid === "") throw bad("kid is empty");
  return kid === undefined ? { v, fp } : { v, fp, kid };
}

/**
 * Why `kid` cannot go into a TXT record, or `undefined`: 1–64 printable ASCII characters
 * without whitespace, `;`, `=` or `"`.
 *
 * @example
 * ```ts
 * import { checkDnsKid } from "./txt.ts";
 * checkDnsKid("acme-2026-04"); // undefined
 * ```
 */
export function checkDnsKid(kid: string): string | undefined {
  checkArg("checkDnsKid", "kid", kid, "string");
  if (kid.length === 0) return "the kid is empty";
  if (kid.length > 64) return "the kid is longer than 64 characters";
  if (!/^[\x21-\x7e]+$/.test(kid) || /[;="\\]/.test(kid)) {
    return "the kid may hold printable ASCII only, without spaces, ';', '=', '\"' or '\\'";
  }
  return undefined;
}

/**
 * Formats the TXT value to publish at `_schemapin.{domain}`:
 * `v=schemapin1; kid=…; fp=sha256:…` (kid only when given). Throws `SchemaPinError`
 * `INPUT_INVALID` for a malformed fingerprint or kid.
 *
 * @example
 * ```ts
 * import { formatDnsTxtRecord } from "./txt.ts";
 * formatDnsTxtRecord("sha256:" + "00".repeat(32), "k1");
 * // "v=schemapin1; kid=k1; fp=sha256:0000…"
 * ```
 */
export function formatDnsTxtRecord(fingerprint: string, kid?: string): string {
  if (!isSha256Ref(fingerprint)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${JSON.stringify(fingerprint)} is not a sha256: key fingerprint`,
    );
  }
  if (kid !== undefined) {
    const problem = checkDnsKid(kid);
    if (problem) throw new SchemaPinError("INPUT_INVALID", `invalid kid: ${problem}`);
  }
  return kid === undefined
    ? `v=${DNS_TXT_VERSION}; fp=${fingerprint}`
    : `v=${DNS_TXT_VERSION}; kid=${kid}; fp=${fingerprint}`;
}

/** What the TXT records at a lookup name say (§17.2). */
export type DnsTxtSelection =
  | { readonly state: "absent"; readonly records: number }
  | {
    readonly state: "present";
    readonly record: DnsTxtRecord;
    readonly text: string;
    readonly records: number;
    readonly candidates: number;
  }
  | {
    readonly state: "malformed";
    readonly text: string;
    readonly reason: string;
    readonly records: number;
    readonly candidates: number;
  };

/**
 * Picks the record of §17.1 from the TXT records found at the lookup name: the chunks of
 * each record are concatenated in order (RFC 1464), the first record with the field
 * `v=schemapin1` wins (later ones are ignored, but counted in `candidates`), and it is parsed.
 * No such record: `absent`.
 *
 * @example
 * ```ts
 * import { selectDnsTxtRecord } from "./txt.ts";
 * selectDnsTxtRecord([["v=spf1 -all"]]).state; // "absent"
 * ```
 */
export function selectDnsTxtRecord(
  records: readonly (readonly string[])[],
  source = "DNS TXT record",
): DnsTxtSelection {
  checkArg("selectDnsTxtRecord", "records", records, "array");
  checkArg("selectDnsTxtRecord", "source", source, "string");
  const texts = records.map((chunks) => chunks.join(""));
  const matching = texts.filter(isSchemapinRecord);
  if (matching.length === 0) return { state: "absent", records: texts.length };
  const text = matching[0];
  try {
    return {
      state: "present",
      record: parseDnsTxtRecord(text, source),
      text,
      records: texts.length,
      candidates: matching.length,
    };
  } catch (e) {
    return {
      state: "malformed",
      text,
      reason: (e as Error).message,
      records: texts.length,
      candidates: matching.length,
    };
  }
}
