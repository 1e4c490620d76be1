/**
 * Two fields of a trusted verification's result (lib/trust/verify.ts) in the JSON of the
 * verify commands: the developer's name, `null` when no discovery document named one, and one
 * `signature_format` vocabulary for schemas and skills. The other fields are the result's own
 * (cli/json/result_fields.ts).
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";

/**
 * The `developer_name` of a verification's JSON: the discovery document's, or `null` when none
 * is known — a key given with `--public-key` has no discovery document, and the name
 * lib/trust/load.ts gives it for the terminal (`(--public-key FILE)`, the source in
 * parentheses) is not one.
 *
 * @example
 * ```ts
 * import { developerNameJson } from "./json_fields.ts";
 * developerNameJson({ developerName: "(--public-key pub.pem)", discoverySource: "--public-key pub.pem" });
 * // null
 * ```
 */
export function developerNameJson(
  result: { readonly developerName?: string; readonly discoverySource?: string },
): string | null {
  checkArg("developerNameJson", "result", result, "object");
  const name = result.developerName;
  if (name === undefined || name === "") return null;
  return result.discoverySource !== undefined && name === `(${result.discoverySource})`
    ? null
    : name;
}

/**
 * The one `signature_format` vocabulary of the verify commands' JSON: `"bare"` for a bare
 * Base64 schema signature, `"document"` for a 1.4 signature document (schema or skill),
 * `"legacy"` for a pre-1.4 (1.3) skill signature document. The skill library's algorithm
 * names (`"1.4"`, `"legacy"`) are mapped here.
 *
 * @example
 * ```ts
 * import { signatureFormatJson } from "./json_fields.ts";
 * signatureFormatJson("1.4"); // "document"
 * ```
 */
export function signatureFormatJson(
  format: string | undefined,
): "bare" | "document" | "legacy" | undefined {
  switch (format) {
    case undefined:
      return undefined;
    case "bare":
    case "legacy":
      return format;
    default:
      checkArg("signatureFormatJson", "format", format, "string", true);
      return "document"; // "document", or the skill algorithm "1.4"
  }
}
