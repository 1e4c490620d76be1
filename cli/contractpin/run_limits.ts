/**
 * The limits of a contract run from a command line's flags (`--startup-timeout`, `--timeout`,
 * `--max-pages`, `--concurrency`): seconds there, milliseconds in the library's
 * {@linkcode RunOptions} (lib/contractpin/run.ts).
 *
 * @module
 */
import { usageError } from "../../lib/errors.ts";
import { DEFAULT_CONCURRENCY, type RunOptions } from "../../lib/contractpin/run.ts";
import {
  DEFAULT_MAX_PAGES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
} from "../../lib/mcp/session.ts";
import { VERSION } from "../../lib/version.ts";

/** The limits of a run as a command line gives them: text, by option name. */
export interface RunLimitsText {
  /** Seconds for a server to start and answer initialize (a positive number). */
  readonly "startup-timeout"?: string;
  /** Seconds for each MCP request after initialize (a positive number). */
  readonly timeout?: string;
  /** Most tools/list pages to follow (a positive integer). */
  readonly "max-pages"?: string;
  /** Servers contacted at once (a positive integer). */
  readonly concurrency?: string;
}

/** `value` as a positive number (an integer with `integer`); `undefined` when not given. */
function positive(flag: string, value: string | undefined, integer: boolean) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw usageError(
      `--${flag} must be a positive ${integer ? "integer" : "number"} (got ${value})`,
    );
  }
  return n;
}

/**
 * The {@linkcode RunOptions} limits of a command line's text (seconds there, milliseconds
 * inside), the defaults for those not given, and this release as the client version.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) naming the
 *   option whose value is not a positive number (integer for pages and concurrency)
 *
 * @example
 * ```ts
 * import { runLimits } from "./run_limits.ts";
 * runLimits({ timeout: "1.5", concurrency: "2" }).requestTimeoutMs; // 1500
 * ```
 */
export function runLimits(values: RunLimitsText): RunOptions {
  const startup = positive("startup-timeout", values["startup-timeout"], false);
  const timeout = positive("timeout", values.timeout, false);
  return {
    startupTimeoutMs: startup === undefined ? DEFAULT_STARTUP_TIMEOUT_MS : startup * 1000,
    requestTimeoutMs: timeout === undefined ? DEFAULT_REQUEST_TIMEOUT_MS : timeout * 1000,
    maxPages: positive("max-pages", values["max-pages"], true) ?? DEFAULT_MAX_PAGES,
    concurrency: positive("concurrency", values.concurrency, true) ?? DEFAULT_CONCURRENCY,
    clientVersion: VERSION,
  };
}
