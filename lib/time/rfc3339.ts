/**
 * Strict RFC 3339 timestamps (§16.2) and the short durations the CLI accepts (`30d`, `12h`).
 *
 * "Strict" means: full date, an upper-case `T`, full time with seconds, optional fraction, and
 * a mandatory upper-case `Z` or numeric `±HH:MM` offset. Space separators, lower-case `t`/`z`,
 * missing seconds, missing offsets, week dates and out-of-range fields are all rejected — a
 * malformed expiry is indistinguishable from a stripped one, so callers fail closed on it.
 *
 * @module
 */
import { checkArg } from "../arguments.ts";

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Parses a strict RFC 3339 timestamp and returns milliseconds since the Unix epoch, or
 * `undefined` when `text` is not one (wrong type, wrong shape or out-of-range field).
 * Fractions finer than a millisecond are truncated; a leap second (`:60`) is accepted and
 * counts as the first millisecond of the next minute.
 *
 * @example
 * ```ts
 * import { parseRfc3339 } from "./rfc3339.ts";
 * parseRfc3339("2026-04-30T12:00:00Z"); // 1777550400000
 * parseRfc3339("2026-04-30 12:00:00Z"); // undefined (space separator)
 * parseRfc3339("2026-04-30T12:00:00"); // undefined (no offset)
 * ```
 */
export function parseRfc3339(text: unknown): number | undefined {
  if (typeof text !== "string") return undefined;
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12) return undefined;
  if (day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  let offsetMinutes = 0;
  if (m[8] !== "Z") {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const millis = m[7] === undefined ? 0 : Number(m[7].padEnd(3, "0").slice(0, 3));
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear avoids that.
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, millis);
  return d.getTime() - offsetMinutes * 60_000;
}

/**
 * True when `text` is a strict RFC 3339 timestamp.
 *
 * @example
 * ```ts
 * import { isRfc3339 } from "./rfc3339.ts";
 * isRfc3339("2026-04-30T12:00:00+02:00"); // true
 * isRfc3339("2026-04-30"); // false
 * ```
 */
export function isRfc3339(text: unknown): text is string {
  return parseRfc3339(text) !== undefined;
}

/**
 * Formats a time as RFC 3339 in UTC, with milliseconds only when they are not zero.
 *
 * @example
 * ```ts
 * import { formatRfc3339 } from "./rfc3339.ts";
 * formatRfc3339(Date.UTC(2026, 3, 30, 12)); // "2026-04-30T12:00:00Z"
 * ```
 */
export function formatRfc3339(time: number | Date): string {
  checkArg("formatRfc3339", "time", time, ["number", "date"]);
  const ms = typeof time === "number" ? time : time.getTime();
  // Programming-error assertion: an invalid Date or NaN is a caller's bug (checkArg took the type).
  if (!Number.isFinite(ms)) throw new RangeError("formatRfc3339: time is not a finite number");
  const iso = new Date(ms).toISOString();
  return iso.endsWith(".000Z") ? iso.slice(0, -5) + "Z" : iso;
}

const UNIT_MS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** The longest duration {@linkcode parseDuration} accepts: 100 years. */
export const MAX_DURATION_MS = 100 * 366 * 86_400_000;

/**
 * Parses a duration such as `30d`, `12h`, `90m`, `45s`, `2w` or a sum such as `1d12h` into
 * milliseconds. Returns `undefined` for anything else, for zero, and for more than 100 years.
 *
 * @example
 * ```ts
 * import { parseDuration } from "./rfc3339.ts";
 * parseDuration("30d"); // 2592000000
 * parseDuration("1d12h"); // 129600000
 * parseDuration("30 days"); // undefined
 * ```
 */
export function parseDuration(text: string): number | undefined {
  if (!/^(?:\d{1,6}[smhdw])+$/.test(text)) return undefined;
  let total = 0;
  for (const part of text.matchAll(/(\d+)([smhdw])/g)) {
    total += Number(part[1]) * UNIT_MS[part[2]];
  }
  if (total <= 0 || total > MAX_DURATION_MS) return undefined;
  return total;
}
