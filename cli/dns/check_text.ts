/**
 * The line a person is shown for a DNS TXT cross-check (§17) of a verification result
 * (`DnsCrossCheck` of lib/dns/check.ts), one per state.
 *
 * @module
 */
import type { DnsCrossCheck } from "../../lib/dns/check.ts";

/**
 * One line describing a DNS cross-check, `dns: …`.
 *
 * @example
 * ```ts
 * import { describeDnsCheck } from "./check_text.ts";
 * describeDnsCheck({ state: "absent", name: "_schemapin.example.com", server: "1.1.1.1:53" });
 * // "dns: no _schemapin.example.com TXT record (absent: no effect)"
 * ```
 */
export function describeDnsCheck(check: DnsCrossCheck): string {
  switch (check.state) {
    case "absent":
      return `dns: no ${check.name} TXT record (absent: no effect)`;
    case "match":
      return `dns: ${check.name} publishes ${check.fingerprint}: matches`;
    case "mismatch":
      return `dns: ${check.name} publishes ${check.fingerprint}: MISMATCH`;
    case "malformed":
      return `dns: ${check.name} is malformed: ${check.reason}`;
    case "lookup_failed":
      return `dns: ${check.name} could not be looked up (${check.server}): ${check.reason}`;
  }
}
