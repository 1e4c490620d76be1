/**
 * Domain validation (§9): the RFC 1123 hostname grammar. A domain is validated before it
 * becomes a URL, a pin key, a file path or the `domain` reported by a verification (§15.1).
 *
 * Accepted: ASCII letters, digits and hyphens in dot-separated labels of 1–63 characters that
 * neither start nor end with a hyphen; at least two labels; at most 253 characters; a last
 * label that is not all digits (so no IPv4 literal can pass). Internationalised names must be
 * given in their `xn--` (A-label) form. Rejected, never repaired: schemes (`https://`), paths,
 * ports, userinfo, IP literals, wildcards, underscores, whitespace, a trailing dot, empty
 * labels. Upper-case letters are folded to lower case (DNS names are case-insensitive), so
 * `Example.COM` and `example.com` share one pin.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";

/** The outcome of {@linkcode checkDomain}. */
export type DomainCheck =
  | { readonly ok: true; readonly domain: string }
  | { readonly ok: false; readonly reason: string };

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Checks `input` against the §9 hostname grammar without throwing; on success `domain` is
 * the lower-cased name.
 *
 * @example
 * ```ts
 * import { checkDomain } from "./domain.ts";
 * checkDomain("Example.com"); // { ok: true, domain: "example.com" }
 * checkDomain("https://example.com").ok; // false
 * ```
 */
export function checkDomain(input: unknown): DomainCheck {
  if (typeof input !== "string") return { ok: false, reason: "the domain is not a string" };
  if (input.length === 0) return { ok: false, reason: "the domain is empty" };
  if (input.length > 253) {
    return { ok: false, reason: `the domain is ${input.length} characters long (at most 253)` };
  }
  // deno-lint-ignore no-control-regex
  if (/[^\x00-\x7f]/.test(input)) {
    return {
      ok: false,
      reason: "the domain contains non-ASCII characters (give an IDN in its xn-- form)",
    };
  }
  if (input.includes("://")) {
    return { ok: false, reason: "the domain carries a URL scheme; give the bare host name" };
  }
  if (input.includes("/") || input.includes("\\")) {
    return { ok: false, reason: "the domain contains a path separator" };
  }
  if (input.includes("@")) return { ok: false, reason: "the domain contains userinfo (@)" };
  if (input.startsWith("[") || input.includes(":")) {
    return {
      ok: false,
      reason: input.startsWith("[")
        ? "the domain is an IP literal"
        : "the domain contains a port or colon",
    };
  }
  if (/\s/.test(input)) return { ok: false, reason: "the domain contains whitespace" };
  if (input.endsWith(".")) {
    return { ok: false, reason: "the domain ends with a dot; give it without the trailing dot" };
  }
  const domain = input.toLowerCase();
  const labels = domain.split(".");
  if (labels.length < 2) return { ok: false, reason: "the domain needs at least two labels" };
  for (const label of labels) {
    if (label.length === 0) return { ok: false, reason: "the domain has an empty label" };
    if (label.length > 63) {
      return { ok: false, reason: `the label "${label.slice(0, 20)}…" is longer than 63` };
    }
    if (label === "*") return { ok: false, reason: "the domain contains a wildcard label" };
    if (!LABEL.test(label)) {
      return {
        ok: false,
        reason: `the label "${label}" is not a hostname label (letters, digits, inner hyphens)`,
      };
    }
  }
  if (/^[0-9]+$/.test(labels[labels.length - 1])) {
    return { ok: false, reason: "the domain is an IP address or ends in a numeric label" };
  }
  return { ok: true, domain };
}

/**
 * Validates a domain (§9) and returns it in lower case; throws `SchemaPinError`
 * `INPUT_INVALID` naming the problem otherwise.
 *
 * @example
 * ```ts
 * import { validateDomain } from "./domain.ts";
 * validateDomain("tools.example.com"); // "tools.example.com"
 * ```
 */
export function validateDomain(input: unknown, what = "domain"): string {
  const check = checkDomain(input);
  if (!check.ok) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `invalid ${what} ${JSON.stringify(input)}: ${check.reason}`,
      { domain: input },
    );
  }
  return check.domain;
}
