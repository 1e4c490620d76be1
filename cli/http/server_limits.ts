/**
 * The connection limits of a server ({@linkcode ServerLimits}, lib/http/server.ts) from their
 * text (`serve` and `guard --listen` take them as flags, in seconds, and the minimum request
 * rate in bytes a second): the values checked, the defaults for those not given; and the port
 * `serve` listens on.
 *
 * @module
 */
import { usageError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from "../../lib/http/server.ts";

/**
 * The limits as text, by option name: a count of connections, and seconds for the timeouts.
 *
 * @example
 * ```ts
 * import type { ServerLimitsText } from "./server_limits.ts";
 * const given: ServerLimitsText = { "max-connections": "64", "idle-timeout": "5" };
 * ```
 */
export interface ServerLimitsText {
  /** Most connections open at once: a whole number from 1 to 1000000. */
  readonly "max-connections"?: string;
  /** Seconds for a TLS handshake (a server with TLS only). */
  readonly "handshake-timeout"?: string;
  /** Seconds for a request's headers to arrive. */
  readonly "header-timeout"?: string;
  /** Seconds a keep-alive connection waits for its next request. */
  readonly "idle-timeout"?: string;
  /** Seconds a request's headers and body may take to arrive in all. */
  readonly "request-timeout"?: string;
  /**
   * Bytes a second a request must average once its grace is over: a whole number from 0 (no
   * minimum) to 1000000000.
   */
  readonly "min-request-rate"?: string;
  /** Seconds a request's bytes may keep the server waiting before the minimum rate counts. */
  readonly "request-grace"?: string;
}

function seconds(option: string, text: string): number {
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0.01 && n <= 86_400)) {
    throw usageError(
      `--${option} must be a number of seconds from 0.01 to 86400 (got ${JSON.stringify(text)})`,
      { option },
    );
  }
  return Math.round(n * 1000);
}

/**
 * The limits given in `values`, the defaults ({@linkcode DEFAULT_SERVER_LIMITS}) for the
 * others; `tls` says whether the server has a TLS handshake to time.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` and `details.option` for a
 *   value out of range, or a handshake timeout without TLS; `INPUT_INVALID` for arguments of
 *   the wrong type
 *
 * @example
 * ```ts
 * import { serverLimitsFrom } from "./server_limits.ts";
 * serverLimitsFrom({ "idle-timeout": "5" }, true).idleTimeoutMs; // 5000
 * ```
 */
export function serverLimitsFrom(values: ServerLimitsText, tls: boolean): ServerLimits {
  checkArg("serverLimitsFrom", "values", values, "object");
  checkArg("serverLimitsFrom", "tls", tls, "boolean");
  const limits = { ...DEFAULT_SERVER_LIMITS };
  const max = values["max-connections"];
  if (max !== undefined) {
    if (!/^\d{1,7}$/.test(max) || Number(max) < 1 || Number(max) > 1_000_000) {
      throw usageError(
        `--max-connections must be a whole number from 1 to 1000000 (got ${JSON.stringify(max)})`,
        { option: "max-connections" },
      );
    }
    limits.maxConnections = Number(max);
  }
  if (values["handshake-timeout"] !== undefined) {
    if (!tls) {
      throw usageError("--handshake-timeout applies to TLS only", { option: "handshake-timeout" });
    }
    limits.handshakeTimeoutMs = seconds("handshake-timeout", values["handshake-timeout"]);
  }
  if (values["header-timeout"] !== undefined) {
    limits.headerTimeoutMs = seconds("header-timeout", values["header-timeout"]);
  }
  if (values["idle-timeout"] !== undefined) {
    limits.idleTimeoutMs = seconds("idle-timeout", values["idle-timeout"]);
  }
  if (values["request-timeout"] !== undefined) {
    limits.requestTimeoutMs = seconds("request-timeout", values["request-timeout"]);
  }
  const rate = values["min-request-rate"];
  if (rate !== undefined) {
    if (!/^\d{1,10}$/.test(rate) || Number(rate) > 1_000_000_000) {
      throw usageError(
        "--min-request-rate must be a whole number of bytes a second from 0 to 1000000000 " +
          `(got ${JSON.stringify(rate)})`,
        { option: "min-request-rate" },
      );
    }
    limits.minRequestRate = Number(rate);
  }
  if (values["request-grace"] !== undefined) {
    limits.requestGraceMs = seconds("request-grace", values["request-grace"]);
  }
  return limits;
}

/**
 * The TCP port a server listens on, given as text (`--port`): a whole number from 0 (any free
 * port) to 65535, or `fallback` when not given.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` for text that is not a port;
 *   `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts
 * import { listenPortFrom } from "./server_limits.ts";
 * listenPortFrom(undefined, 8443); // 8443
 * listenPortFrom("0", 8443); // 0
 * ```
 */
export function listenPortFrom(text: string | undefined, fallback: number): number {
  checkArg("listenPortFrom", "text", text, "string", true);
  checkArg("listenPortFrom", "fallback", fallback, "number");
  if (text === undefined) return fallback;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    throw usageError(`--port ${JSON.stringify(text)} is not a port number (0–65535)`, {
      option: "port",
    });
  }
  return Number(text);
}

/**
 * A sentence of the server about itself (`onEvent` of lib/http/server.ts) in the CLI's words:
 * a limit the library names by its option field (`lower maxConnections`) is named by its flag
 * (`lower --max-connections`), as `serve` and `guard --listen` print it.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a `message` that is not a string
 *
 * @example
 * ```ts
 * import { serverEventText } from "./server_limits.ts";
 * serverEventText("… (raise the open-file limit, or lower maxConnections)");
 * // "… (raise the open-file limit, or lower --max-connections)"
 * ```
 */
export function serverEventText(message: string): string {
  checkArg("serverEventText", "message", message, "string");
  return message.replaceAll("lower maxConnections", "lower --max-connections");
}
