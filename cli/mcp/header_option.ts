/**
 * `--header 'Name: value'` of the commands that talk to MCP servers over HTTP (contract verify
 * and approve, verify-skill-mcp), and the headers of an MCP client config read the same way
 * (cli/mcp_config/read.ts): parsed into the library's
 * {@linkcode HeaderTemplate}, whose `${VAR}` references the library expands at run time
 * (lib/contractpin/secrets.ts, `expandHeaders`).
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import type { HeaderTemplate } from "../../lib/contractpin/secrets.ts";

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESERVED_HEADERS = [
  "accept",
  "content-type",
  "content-length",
  "mcp-session-id",
  "mcp-protocol-version",
  "host",
];

/**
 * Parses `--header 'Name: value'`. The name must be an HTTP token; the value may hold
 * `${VAR}` references and no line breaks; headers the client sets itself are refused.
 *
 * @throws {SchemaPinError} `INPUT_INVALID`
 *
 * @example
 * ```ts
 * import { parseHeader } from "./header_option.ts";
 * parseHeader("Authorization: Bearer ${TOKEN}"); // { name: "Authorization", value: "Bearer ${TOKEN}" }
 * ```
 */
export function parseHeader(text: string): HeaderTemplate {
  checkArg("parseHeader", "text", text, "string");
  const colon = text.indexOf(":");
  const name = colon < 0 ? "" : text.slice(0, colon).trim();
  if (colon < 0 || !TOKEN.test(name)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `--header must look like 'Name: value' (got a value without a valid header name)`,
      { header: name },
    );
  }
  const value = text.slice(colon + 1).trim();
  if (/[\r\n\0]/.test(value)) {
    throw new SchemaPinError("INPUT_INVALID", `--header ${name}: value contains a line break`, {
      header: name,
    });
  }
  if (RESERVED_HEADERS.includes(name.toLowerCase())) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `--header ${name}: this header is set by the MCP client itself`,
      { header: name },
    );
  }
  return { name, value };
}
