/**
 * Reading servers from an MCP client configuration file — the common JSON shape
 * `{"mcpServers": {"name": {"command": …, "args": […], "env": {…}, "cwd": …}}}` for stdio and
 * `{"url": …, "headers": {…}}` (with `type` `http` / `streamable-http` or none) for
 * Streamable HTTP. Parsed strictly (duplicate names are errors; comments are not JSON).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "./contract.ts";
import type { ServerTarget } from "./live.ts";
import { parseEndpoint, parseHeader } from "./secrets.ts";

function bad(source: string, message: string, field?: string): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", `${source}: ${message}`, { source, field });
}

function strings(v: JsonValue | undefined, source: string, at: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
    throw bad(source, `${at} must be an array of strings`, at);
  }
  return v as string[];
}

function stringMap(v: JsonValue | undefined, source: string, at: string): Record<string, string> {
  if (!isJsonObject(v)) throw bad(source, `${at} must be an object of strings`, at);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string") throw bad(source, `${at}/${k} must be a string`, `${at}/${k}`);
    out[k] = x;
  }
  return out;
}

function serverFrom(name: string, entry: JsonObject, source: string): ServerTarget {
  const at = `/mcpServers/${name}`;
  const type = entry.type ?? entry.transport;
  if (typeof entry.command === "string") {
    if (type !== undefined && type !== "stdio") {
      throw bad(source, `${at} has a command but type ${JSON.stringify(type)}`, at);
    }
    if (entry.command === "") throw bad(source, `${at}/command is empty`, at);
    const args = entry.args === undefined ? [] : strings(entry.args, source, `${at}/args`);
    const identity: ServerTarget["identity"] = {
      transport: "stdio",
      command: [entry.command, ...args],
    };
    if (entry.env !== undefined) identity.env = stringMap(entry.env, source, `${at}/env`);
    if (entry.cwd !== undefined) {
      if (typeof entry.cwd !== "string") throw bad(source, `${at}/cwd must be a string`, at);
      identity.cwd = entry.cwd;
    }
    return { name, identity };
  }
  if (typeof entry.url === "string") {
    if (type === "sse") {
      throw bad(
        source,
        `${at} uses the legacy SSE transport; contractpin speaks Streamable HTTP only`,
        at,
      );
    }
    if (
      type !== undefined && type !== "http" && type !== "streamable-http" &&
      type !== "streamableHttp"
    ) {
      throw bad(source, `${at} has a url but type ${JSON.stringify(type)}`, at);
    }
    parseEndpoint(entry.url.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/g, "x"));
    const headers = entry.headers === undefined
      ? []
      : Object.entries(stringMap(entry.headers, source, `${at}/headers`)).map(([k, v]) =>
        parseHeader(`${k}: ${v}`)
      );
    return { name, identity: { transport: "http", url: entry.url }, headers };
  }
  throw bad(source, `${at} has neither "command" (stdio) nor "url" (Streamable HTTP)`, at);
}

/**
 * Parses an MCP client configuration into server targets, keyed by name. `disabled: true`
 * entries are skipped.
 *
 * @throws {SchemaPinError} `JSON_INVALID` (not strict JSON) or `INPUT_INVALID` (no
 * `mcpServers` object, an entry that is neither stdio nor HTTP, wrong member types)
 *
 * @example
 * ```ts
 * import { parseMcpConfig } from "./config.ts";
 * const text = '{"mcpServers":{"fs":{"command":"npx","args":["-y","server-fs","/tmp"]}}}';
 * parseMcpConfig(new TextEncoder().encode(text), "mcp.json").get("fs")?.identity;
 * // { transport: "stdio", command: ["npx", "-y", "server-fs", "/tmp"] }
 * ```
 */
export function parseMcpConfig(bytes: Uint8Array, source: string): Map<string, ServerTarget> {
  const doc = parseJson(bytes, source);
  if (!isJsonObject(doc) || !isJsonObject(doc.mcpServers)) {
    throw bad(source, 'expected an object with an "mcpServers" object', "/mcpServers");
  }
  const out = new Map<string, ServerTarget>();
  for (const [name, entry] of Object.entries(doc.mcpServers)) {
    if (!isJsonObject(entry)) throw bad(source, `/mcpServers/${name} must be an object`);
    if (entry.disabled === true) continue;
    out.set(name, serverFrom(name, entry, source));
  }
  return out;
}
