/**
 * What `sign-tools` signs and how, before anything is signed: where the tools come from — a
 * live MCP server started with a command, or a saved `tools/list` ({@linkcode checkToolsSource},
 * {@linkcode listToolsToSign}) — and the signature documents' options
 * ({@linkcode toolListSignOptions}); lib/guard/signatures.ts signs them.
 *
 * @module
 */
import { enumerateTarget, prepareTarget } from "../../lib/contractpin/live.ts";
import { usageError } from "../../lib/errors.ts";
import { readSavedToolListing } from "../mcp/saved_tools.ts";
import type { ToolListing } from "../../lib/mcp/session.ts";
import { sourceName } from "../../lib/schema/input.ts";
import { VERSION } from "../../lib/version.ts";
import type { SignToolListOptions } from "../../lib/guard/signatures.ts";

/** Where the tools to sign come from: `server` (started with `command`) or `file`. */
export interface ToolsSource {
  /** The name of a live server (in messages), started with `command`. */
  readonly server?: string;
  /** The server's command line (the words after `--`). */
  readonly command: readonly string[];
  /** A saved `tools/list` (`-` is stdin). */
  readonly file?: string;
}

/**
 * Checks a source of tools: exactly one of a server and a file; a server has a command, a file
 * none.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` (a usage error) naming the options.
 *
 * @example
 * ```ts
 * import { checkToolsSource } from "./sign_tools.ts";
 * checkToolsSource({ server: "acme", command: ["node", "server.js"] }); // fine
 * ```
 */
export function checkToolsSource(source: ToolsSource): void {
  const live = source.server !== undefined;
  if (live === (source.file !== undefined)) {
    throw usageError("give exactly one of --server NAME -- CMD… and --file FILE");
  }
  if (live && (source.command.length === 0 || source.command[0] === "")) {
    throw usageError(`--server ${source.server} needs the command after --`);
  }
  if (!live && source.command.length > 0) {
    throw usageError("a command after -- goes with --server");
  }
}

/**
 * The tools of a checked {@linkcode ToolsSource} and its name for messages (`server NAME`, or
 * the file's, `stdin` for `-`): a live server is started and listed (initialize, then every `tools/list` page),
 * a saved listing read (`-` from `readStdin`).
 *
 * @throws {ServerFailure} when the server cannot be started or listed (lib/mcp/errors.ts);
 *   {@linkcode SchemaPinError} for a file that cannot be read or is not a tool list.
 *
 * @example
 * ```ts ignore
 * import { listToolsToSign } from "./sign_tools.ts";
 * const { listing } = await listToolsToSign({ file: "tools.json", command: [] }, {
 *   readStdin: () => Promise.resolve(new Uint8Array()),
 * });
 * ```
 */
export async function listToolsToSign(
  source: ToolsSource,
  options: {
    readonly startupTimeoutMs?: number;
    readonly requestTimeoutMs?: number;
    readonly readStdin: () => Promise<Uint8Array>;
  },
): Promise<{ listing: ToolListing; where: string }> {
  const { server, file } = source;
  if (server === undefined) {
    const listing = await readSavedToolListing(file!, options.readStdin);
    return { listing, where: sourceName(file!) };
  }
  const target = prepareTarget({
    name: server,
    identity: { transport: "stdio", command: [...source.command] },
  });
  const { startupTimeoutMs, requestTimeoutMs } = options;
  const listing = await enumerateTarget(target, {
    startupTimeoutMs,
    requestTimeoutMs,
    clientVersion: VERSION,
  });
  return { listing, where: `server ${server}` };
}

/**
 * The options of every tool's signature document, those given (not undefined): an empty key
 * id or version tag is refused now, before a server is started (signing would refuse it only
 * afterwards).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` (a usage error) for an empty `signerKid` or
 *   `schemaVersion`, naming `--signer-kid` or `--schema-version`.
 *
 * @example
 * ```ts
 * import { toolListSignOptions } from "./sign_tools.ts";
 * toolListSignOptions({ domain: "acme.example", signedAt: 0, schemaVersion: "2.0" });
 * ```
 */
export function toolListSignOptions(options: SignToolListOptions): SignToolListOptions {
  if (options.signerKid === "") throw usageError("--signer-kid is empty");
  if (options.schemaVersion === "") throw usageError("--schema-version is empty");
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  return Object.fromEntries(given) as unknown as SignToolListOptions;
}
