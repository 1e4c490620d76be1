/**
 * A URL as it may be shown in a message or log: no userinfo, no query values (either may hold a
 * credential).
 *
 * @module
 */

/**
 * A URL safe to print in messages: userinfo and every query value removed.
 *
 * @example
 * ```ts
 * import { redactUrl } from "./redact.ts";
 * redactUrl("https://a:b@h/x?k=v"); // "https://h/x?k=…"
 * ```
 */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    const q = [...url.searchParams.keys()].map((k) => `${k}=…`).join("&");
    return `${url.protocol}//${url.host}${url.pathname}${q ? "?" + q : ""}`;
  } catch {
    return "<unparsable URL>";
  }
}
