/**
 * The connection limits of the two long-running servers (`schemapin serve`,
 * `schemapin guard --listen`) as CLI flags: parsing, and the lines of their `--help`.
 *
 * @module
 */
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from "../http/server.ts";
import { UsageError } from "./command.ts";
import { type FlagTable, valueFlag } from "./flags.ts";

const s = (ms: number) => `${ms / 1000}`;

/** The connection limits of `serve` and `guard --listen` (lib/cli/server_flags.ts). */
export const SERVER_LIMIT_FLAGS = {
  "max-connections": valueFlag(
    "N",
    `most connections open at once (default ${DEFAULT_SERVER_LIMITS.maxConnections}); ` +
      "a new one beyond it closes the connection idle the longest",
  ),
  "handshake-timeout": valueFlag(
    "SECONDS",
    `seconds for a TLS handshake (default ${
      s(DEFAULT_SERVER_LIMITS.handshakeTimeoutMs)
    }; TLS only)`,
  ),
  "header-timeout": valueFlag(
    "SECONDS",
    `seconds for a request's headers to arrive (default ${
      s(DEFAULT_SERVER_LIMITS.headerTimeoutMs)
    })`,
  ),
  "idle-timeout": valueFlag(
    "SECONDS",
    "seconds a keep-alive connection waits for its next request, or a client may " +
      `stall reading or writing (default ${s(DEFAULT_SERVER_LIMITS.idleTimeoutMs)})`,
  ),
  "request-timeout": valueFlag(
    "S",
    "seconds a request's headers and body may take to arrive in all, however steadily " +
      `they drip (default ${s(DEFAULT_SERVER_LIMITS.requestTimeoutMs)})`,
  ),
} as const satisfies FlagTable;

function seconds(command: string, flag: string, text: string): number {
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0.01 && n <= 86_400)) {
    throw new UsageError(
      `${command}: --${flag} must be a number of seconds from 0.01 to 86400 (got ${
        JSON.stringify(text)
      })`,
    );
  }
  return Math.round(n * 1000);
}

/**
 * The limits given by the flags, the defaults for the others.
 *
 * @example
 * ```ts ignore
 * parseServerLimits("serve", { "idle-timeout": "5" }, true); // idleTimeoutMs 5000
 * ```
 */
export function parseServerLimits(
  command: string,
  values: Partial<Record<keyof typeof SERVER_LIMIT_FLAGS, string | undefined>>,
  tls: boolean,
): ServerLimits {
  const limits = { ...DEFAULT_SERVER_LIMITS };
  const max = values["max-connections"];
  if (max !== undefined) {
    if (!/^\d{1,7}$/.test(max) || Number(max) < 1 || Number(max) > 1_000_000) {
      throw new UsageError(
        `${command}: --max-connections must be a whole number from 1 to 1000000 (got ${
          JSON.stringify(max)
        })`,
      );
    }
    limits.maxConnections = Number(max);
  }
  if (values["handshake-timeout"] !== undefined) {
    if (!tls) throw new UsageError(`${command}: --handshake-timeout applies to TLS only`);
    limits.handshakeTimeoutMs = seconds(command, "handshake-timeout", values["handshake-timeout"]);
  }
  if (values["header-timeout"] !== undefined) {
    limits.headerTimeoutMs = seconds(command, "header-timeout", values["header-timeout"]);
  }
  if (values["idle-timeout"] !== undefined) {
    limits.idleTimeoutMs = seconds(command, "idle-timeout", values["idle-timeout"]);
  }
  if (values["request-timeout"] !== undefined) {
    limits.requestTimeoutMs = seconds(command, "request-timeout", values["request-timeout"]);
  }
  return limits;
}
