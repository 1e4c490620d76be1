/**
 * The connection limits of the two long-running servers (`schemapin serve`,
 * `schemapin guard --listen`) as CLI flags; their values are checked by `serverLimitsFrom`
 * (cli/http/server_limits.ts).
 *
 * @module
 */
import { DEFAULT_SERVER_LIMITS } from "../../lib/http/server.ts";
import { type FlagTable, valueFlag } from "../args/flags.ts";

const s = (ms: number) => `${ms / 1000}`;

/** The connection limits of `serve` and `guard --listen` (cli/commands/server_flags.ts). */
export const SERVER_LIMIT_FLAGS = {
  "max-connections": valueFlag(
    "N",
    `most connections open at once (default ${DEFAULT_SERVER_LIMITS.maxConnections}); ` +
      "a new one beyond it closes the connection idle the longest, or is closed at once " +
      "when none is idle",
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
  "min-request-rate": valueFlag(
    "BYTES",
    "bytes a second a request's headers and body must average once --request-grace is " +
      `over; 0: no minimum (default ${DEFAULT_SERVER_LIMITS.minRequestRate})`,
  ),
  "request-grace": valueFlag(
    "SECONDS",
    "seconds a request's headers and body may take before --min-request-rate counts " +
      `(default ${s(DEFAULT_SERVER_LIMITS.requestGraceMs)})`,
  ),
} as const satisfies FlagTable;
