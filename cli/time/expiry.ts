/**
 * The expiry a signer asks for (§16): a duration from the signing time (`30d`, `1d12h`), or a
 * fixed strict RFC 3339 time after it. Every signing command takes one of the two.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { usageError } from "../../lib/errors.ts";
import { parseDuration, parseRfc3339 } from "../../lib/time/rfc3339.ts";

/** The expiry asked for, as text: at most one of the two. */
export interface ExpiryRequest {
  /** A duration from the signing time ({@linkcode parseDuration}: `30d`, `12h`, `1d12h`). */
  readonly expiresIn?: string;
  /** A strict RFC 3339 time after the signing time, written into the document as given. */
  readonly expiresAt?: string;
}

/**
 * Why an expiry request cannot be used: both were given, the duration or the time does not
 * parse, or the time is not after the signing time.
 */
export type ExpiryProblem = "both" | "duration" | "time" | "past";

/** The `expires_at` to sign, or why there is none. */
export type SignatureExpiry =
  | {
    readonly ok: true;
    /** Milliseconds since the epoch (for a duration), the time as given, or no expiry. */
    readonly expiresAt?: number | string;
  }
  | { readonly ok: false; readonly problem: ExpiryProblem };

/**
 * The `expires_at` of a signature document signed at `now` (§16): `now` plus the duration,
 * the time as written (so the document carries the signer's own text), or none.
 *
 * @param request The expiry asked for.
 * @param now The signing time, milliseconds since the epoch.
 * @throws {SchemaPinError} `INPUT_INVALID` for a request that is not an object or a `now`
 *   that is not a number (misuse).
 *
 * @example
 * ```ts
 * import { signatureExpiry } from "./expiry.ts";
 * signatureExpiry({ expiresIn: "1h" }, 0); // { ok: true, expiresAt: 3600000 }
 * signatureExpiry({ expiresAt: "1970-01-01T00:00:00Z" }, 0); // { ok: false, problem: "past" }
 * ```
 */
export function signatureExpiry(request: ExpiryRequest, now: number): SignatureExpiry {
  checkArg("signatureExpiry", "request", request, "object");
  checkArg("signatureExpiry", "now", now, "number");
  const { expiresIn, expiresAt } = request;
  if (expiresIn !== undefined && expiresAt !== undefined) return { ok: false, problem: "both" };
  if (expiresIn !== undefined) {
    const ms = parseDuration(expiresIn);
    return ms === undefined
      ? { ok: false, problem: "duration" }
      : { ok: true, expiresAt: now + ms };
  }
  if (expiresAt !== undefined) {
    const ms = parseRfc3339(expiresAt);
    if (ms === undefined) return { ok: false, problem: "time" };
    return ms <= now ? { ok: false, problem: "past" } : { ok: true, expiresAt };
  }
  return { ok: true };
}

/**
 * The `expires_at` that the options `--expires-in` or `--expires-at` ask for at `now`
 * ({@linkcode signatureExpiry}), `undefined` for none.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` naming the option: both given,
 *   a bad duration or time, a time in the past.
 *
 * @example
 * ```ts
 * import { expiryFromOptions } from "./expiry.ts";
 * expiryFromOptions({ "expires-in": "1h" }, 0); // 3600000
 * ```
 */
export function expiryFromOptions(
  values: { readonly "expires-in"?: string; readonly "expires-at"?: string },
  now: number,
): number | string | undefined {
  checkArg("expiryFromOptions", "values", values, "object");
  const expiresIn = values["expires-in"];
  const expiresAt = values["expires-at"];
  const expiry = signatureExpiry({ expiresIn, expiresAt }, now);
  if (expiry.ok) return expiry.expiresAt;
  switch (expiry.problem) {
    case "both":
      throw usageError("give --expires-in or --expires-at, not both");
    case "duration":
      throw usageError(
        `--expires-in ${JSON.stringify(expiresIn)} is not a duration like 30d, 12h, 90m, 2w ` +
          "or 1d12h",
        { option: "expires-in" },
      );
    case "time":
      throw usageError(
        `--expires-at ${JSON.stringify(expiresAt)} is not a strict RFC 3339 time like ` +
          "2026-11-01T10:00:00Z",
        { option: "expires-at" },
      );
    case "past":
      throw usageError("--expires-at is in the past", { option: "expires-at" });
  }
}
