/**
 * Why a live server could not be enumerated. A server failure is a verification result
 * (contractpin spec §6: an unreachable pinned server is exit 1), not a usage error, so it has
 * its own type that carries a kind the report can show.
 *
 * @module
 */
import type { JsonValue } from "../json/types.ts";

/** The ways talking to a server fails. */
export type ServerFailureKind =
  | "spawn" // the command could not be started
  | "exited" // the process exited (or closed stdout) before answering
  | "timeout" // no answer within the start-up or request timeout
  | "connect" // HTTP connection failed
  | "http" // HTTP status or content type not acceptable
  | "malformed" // bytes that are not strict JSON, or not JSON-RPC 2.0
  | "protocol" // valid JSON-RPC that breaks the MCP contract (cursor loop, bad result shape …)
  | "rpc_error" // the server answered with a JSON-RPC error
  | "io"; // a file transport's file could not be read

/**
 * A live server could not be enumerated. `stderr` holds the tail of the server's stderr
 * (stdio), captured for the message and never parsed.
 *
 * @example
 * ```ts
 * import { ServerFailure } from "./errors.ts";
 * const e = new ServerFailure("timeout", "no answer to initialize within 5 s");
 * console.log(e.kind); // "timeout"
 * ```
 */
export class ServerFailure extends Error {
  /** What went wrong. */
  readonly kind: ServerFailureKind;
  /** The tail of the server's stderr, when there was any. */
  stderr: string;
  /** The JSON-RPC error code, for `rpc_error`. */
  readonly rpcCode?: number;
  /** The HTTP status, for `http` failures caused by one (and `rpc_error` sent with one). */
  httpStatus?: number;
  /** The JSON-RPC error's `data`, for `rpc_error` when the server sent one. */
  rpcData?: JsonValue;

  /** Creates a failure of the given kind. */
  constructor(kind: ServerFailureKind, message: string, stderr = "", rpcCode?: number) {
    super(message);
    this.name = "ServerFailure";
    this.kind = kind;
    this.stderr = stderr;
    if (rpcCode !== undefined) this.rpcCode = rpcCode;
  }
}
