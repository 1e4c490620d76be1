/**
 * The servers given on a command line (`contract init`, `contract dump`): HTTP servers
 * (`--http`, `--sse`, each with the `--header`s after it), saved lists (`--file`) and one stdio
 * command (`--server NAME -- CMD…` with `--env` and `--cwd`), with the client capabilities to
 * announce — turned into server targets. The options come in the order given, because a
 * `--header` belongs to the `--http` before it. Errors about the options are usage errors
 * (`usageError` of lib/errors.ts) naming the option.
 *
 * @module
 */
import type { ServerTarget } from "../../lib/contractpin/live.ts";
import { normalizeClientCapabilities } from "../../lib/contractpin/lock.ts";
import type { HeaderTemplate } from "../../lib/contractpin/secrets.ts";
import { parseHeader } from "../mcp/header_option.ts";
import { SchemaPinError, usageError } from "../../lib/errors.ts";

/** One server option of a command line, as given (`NAME=URL`, `NAME=PATH`, `Name: value`). */
export interface ServerOption {
  /** The option: `http`, `sse`, `header` or `file`. */
  readonly option: "http" | "sse" | "header" | "file";
  /** Its value. */
  readonly value: string;
}

/** The server options of a command line. */
export interface ServerSpecs {
  /** `--http`, `--sse`, `--header` and `--file`, in the order given. */
  readonly options: readonly ServerOption[];
  /** `--server NAME`: the stdio server whose command is `command`. */
  readonly server?: string;
  /** The words after `--` (the stdio command), when given. */
  readonly command?: readonly string[];
  /** `--env NAME=VALUE` or `--env NAME` (passed through as `${NAME}`) of the stdio command. */
  readonly env?: readonly string[];
  /** `--cwd DIR` of the stdio command. */
  readonly cwd?: string;
  /** `--client-capabilities NAMES` (comma-separated). */
  readonly clientCapabilities?: string;
}

/** The servers of a command line, in order, with their headers. */
export interface CommandLineServers {
  /** The servers, in the order given (`--server` last). */
  readonly targets: ServerTarget[];
  /** `--header`s given before the first `--http`/`--sse`: for every HTTP server. */
  readonly globalHeaders: HeaderTemplate[];
  /** The `--header`s of each HTTP server, by name. */
  readonly perServer: Map<string, HeaderTemplate[]>;
  /** `--client-capabilities`, sorted; undefined when not given. */
  readonly capabilities?: string[];
}

/** `NAME=VALUE` of `--<option>`, split at the first `=`. */
function splitNameValue(option: string, text: string): [string, string] {
  const eq = text.indexOf("=");
  if (eq <= 0 || eq === text.length - 1) {
    throw usageError(`--${option} expects NAME=${option === "file" ? "PATH" : "URL"}`, {
      option,
    });
  }
  return [text.slice(0, eq), text.slice(eq + 1)];
}

/** A server name of the lock: a letter or digit, then letters, digits, `._@-`. */
function checkServerName(option: string, name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]*$/.test(name)) {
    throw usageError(
      `server name ${JSON.stringify(name)} must start with a letter or digit and use ` +
        `only letters, digits, ".", "_", "@" and "-"`,
      { option, server: name },
    );
  }
}

/** `roots,sampling,elicitation` → sorted names; undefined when not given. */
function parseClientCapabilities(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const option = "client-capabilities";
  const names = text.split(",").map((n) => n.trim()).filter((n) => n !== "");
  if (names.length === 0) {
    throw usageError(`--${option} expects names, e.g. roots,sampling`, { option });
  }
  try {
    return normalizeClientCapabilities(names);
  } catch (e) {
    if (!(e instanceof SchemaPinError)) throw e;
    throw usageError(`--${option}: ${e.message}`, { option });
  }
}

/**
 * The servers of a command line: `--http`/`--sse` in order, a `--header` for the one before it
 * (or every HTTP server when before the first), `--file NAME=PATH` dumps in their place, and
 * `--server NAME` with `command` last. `relative` rewrites a `--cwd` and a `--file` path
 * (relative to the lock's folder for init; as given for dump).
 *
 * @throws {SchemaPinError} `INPUT_INVALID`: a usage error (`details.usage`, `details.option`)
 *   for an option that is malformed or does not fit the others; a malformed `--header` as
 *   `parseHeader` reports it
 *
 * @example
 * ```ts
 * import { serversFromSpecs } from "./server_specs.ts";
 * const given = serversFromSpecs({
 *   options: [
 *     { option: "header", value: "X-Team: a" },
 *     { option: "http", value: "search=https://mcp.example.com/mcp" },
 *     { option: "header", value: "Authorization: Bearer ${TOKEN}" },
 *   ],
 * });
 * given.targets[0].identity; // { transport: "http", url: "https://mcp.example.com/mcp" }
 * given.perServer.get("search")?.length; // 1 (the X-Team header is in globalHeaders)
 * ```
 */
export function serversFromSpecs(
  specs: ServerSpecs,
  relative: (path: string) => string = (p) => p,
): CommandLineServers {
  const targets: ServerTarget[] = [];
  const globalHeaders: HeaderTemplate[] = [];
  const perServer = new Map<string, HeaderTemplate[]>();
  let lastHttp: string | undefined;
  for (const { option, value } of specs.options) {
    if (option === "http" || option === "sse") {
      // --sse: the legacy HTTP+SSE transport (2024-11-05); the lock records transport "http"
      // (contractpin §5 knows no other) and verify detects the legacy transport again.
      const [name, url] = splitNameValue(option, value);
      checkServerName(option, name);
      targets.push({
        name,
        identity: { transport: "http", url },
        ...(option === "sse" ? { httpTransport: "sse" as const } : {}),
      });
      perServer.set(name, []);
      lastHttp = name;
    } else if (option === "header") {
      const header = parseHeader(value);
      if (lastHttp === undefined) globalHeaders.push(header);
      else perServer.get(lastHttp)!.push(header);
    } else if (option === "file") {
      const [name, path] = splitNameValue(option, value);
      checkServerName(option, name);
      targets.push({ name, identity: { transport: "file", path: relative(path) } });
    }
  }
  const { server, command } = specs;
  if (server !== undefined) {
    checkServerName("server", server);
    if (!command || command.length === 0 || command[0] === "") {
      throw usageError(`--server ${server} needs the command after --`, { option: "server" });
    }
    const env: Record<string, string> = {};
    for (const e of specs.env ?? []) {
      const eq = e.indexOf("=");
      const name = eq < 0 ? e : e.slice(0, eq);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        throw usageError(`--env expects NAME=VALUE or NAME (got ${JSON.stringify(name)})`, {
          option: "env",
        });
      }
      // --env NAME passes the variable through: the lock stores the reference ${NAME}.
      env[name] = eq < 0 ? `\${${name}}` : e.slice(eq + 1);
    }
    const identity: ServerTarget["identity"] = { transport: "stdio", command: [...command] };
    if (Object.keys(env).length) identity.env = env;
    if (specs.cwd !== undefined) identity.cwd = relative(specs.cwd);
    targets.push({ name: server, identity });
  } else if (command !== undefined) {
    throw usageError(`a command after -- needs --server NAME`, { option: "server" });
  } else if (specs.env?.length || specs.cwd !== undefined) {
    throw usageError(`--env and --cwd apply to --server NAME -- CMD`, {
      option: specs.env?.length ? "env" : "cwd",
    });
  }
  const capabilities = parseClientCapabilities(specs.clientCapabilities);
  if (capabilities) {
    // A saved list was not asked anything: capabilities cannot change what it holds.
    const file = targets.find((t) => t.identity.transport === "file");
    if (file) {
      throw usageError(`--client-capabilities has no meaning for --file ${file.name}`, {
        option: "client-capabilities",
      });
    }
  }
  return { targets, globalHeaders, perServer, ...(capabilities ? { capabilities } : {}) };
}

/**
 * The one server of a command line that names exactly one (`contract dump`), with its headers
 * (those for every HTTP server first) and the client capabilities given.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) when no server or
 *   several are given, or `--header` without an HTTP server.
 *
 * @example
 * ```ts
 * import { oneServerTarget, serversFromSpecs } from "./server_specs.ts";
 * const given = serversFromSpecs({ options: [{ option: "http", value: "s=https://x.test/mcp" }] });
 * oneServerTarget(given).name; // "s"
 * ```
 */
export function oneServerTarget(given: CommandLineServers): ServerTarget {
  const { targets, globalHeaders, perServer, capabilities } = given;
  if (targets.length !== 1) {
    throw usageError(
      targets.length === 0
        ? "no server given: give --server NAME -- CMD, --http NAME=URL, --sse NAME=URL or " +
          "--file NAME=PATH"
        : `dumps one server at a time (got ${targets.map((t) => t.name).join(", ")})`,
      { option: "server" },
    );
  }
  const target = targets[0];
  if (globalHeaders.length && target.identity.transport !== "http") {
    throw usageError("--header given but there is no HTTP server", { option: "header" });
  }
  return {
    ...target,
    headers: [...globalHeaders, ...(perServer.get(target.name) ?? [])],
    ...(capabilities ? { clientCapabilities: capabilities } : {}),
  };
}
