/**
 * The one shape of every `--json` output (ARCHITECTURE.md, "How a command is built"; issue 15 item 5):
 *
 * - one JSON object on stdout, two-space indent, trailing newline;
 * - `format` first: `schemapin.<command>[.<subcommand>]/<version>`, e.g.
 *   `schemapin.verify-schema/1` — a consumer checks it before reading anything else;
 * - `ok` next: `true` exactly when the command exits 0;
 * - on failure an `error` object `{ "code", "message" }` with the spec's (or the project's)
 *   error code; a command that could not run at all prints only
 *   `{ "format": "schemapin.error/1", "ok": false, "error": { … } }`;
 * - every name snake_case, like the spec's own documents (the fields of a library result are
 *   built beside it: cli/json/result_fields.ts, cli/trust/json_fields.ts,
 *   cli/contractpin/json_fields.ts).
 *
 * The shapes are published as JSON Schemas in `schemas/cli/` (one per format), and
 * tests/cli/json_output_test.ts runs every command with `--json` and validates what it prints
 * against the schema its `format` names.
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import { messageInCliWords } from "../library_words.ts";

/** The version every output format of this release carries. */
export const CLI_JSON_VERSION = 1;

/** The `format` of an output that reports only an error. */
export const ERROR_FORMAT = `schemapin.error/${CLI_JSON_VERSION}`;

/** The fields a command puts in its `--json` output (`format` is added for it). */
export type JsonOutputFields = { readonly ok: boolean } & Record<string, unknown>;

/**
 * Serialises a `--json` result: `format` (`schemapin.<name>/1`) first, then the fields (which
 * start with `ok`).
 *
 * @example
 * ```ts
 * import { jsonOutput } from "./json_output.ts";
 * jsonOutput("fingerprint", { ok: true, fingerprint: "sha256:…" });
 * // '{\n  "format": "schemapin.fingerprint/1",\n  "ok": true,\n  "fingerprint": "sha256:…"\n}\n'
 * ```
 */
export function jsonOutput(name: string, fields: JsonOutputFields): string {
  return JSON.stringify({ format: `schemapin.${name}/${CLI_JSON_VERSION}`, ...fields }, null, 2) +
    "\n";
}

/**
 * The output of a command that could not run (or failed before it had a result):
 * `{"format":"schemapin.error/1","ok":false,"error":{"code","message"}}`.
 *
 * @example
 * ```ts
 * import { jsonError } from "./json_output.ts";
 * jsonError("USAGE", "keygen: --out-dir DIR is required");
 * ```
 */
export function jsonError(code: string, message: string): string {
  return JSON.stringify({ format: ERROR_FORMAT, ok: false, error: { code, message } }, null, 2) +
    "\n";
}

/**
 * The `--json` fields of a failure that is not a verification result (a thrown
 * {@linkcode SchemaPinError}-like value): `{ ok: false, error: { code, message } }`.
 *
 * @example
 * ```ts
 * import { failureFields } from "./json_output.ts";
 * failureFields("IO_FAILED", "cannot read x.json");
 * ```
 */
export function failureFields(code: string, message: string): JsonOutputFields {
  return { ok: false, error: { code, message } };
}

/**
 * The text of a document the CLI writes (a discovery or revocation document, a pin export):
 * the document itself, two-space indent, trailing newline, no `format`/`ok` wrapper.
 *
 * @example
 * ```ts
 * import { documentText } from "./json_output.ts";
 * documentText({ schemapin_pins_version: 1, pins: [] });
 * ```
 */
export function documentText(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/**
 * True when the command line asks for JSON: `--json` or `--format json` (also
 * `--format=json`) among the command's own arguments (before a `--`).
 *
 * @example
 * ```ts
 * import { wantsJson } from "./json_output.ts";
 * wantsJson(["contract", "verify", "--format", "json"]); // true
 * wantsJson(["guard", "--", "server", "--json"]); // false
 * ```
 */
export function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  const own = end === -1 ? args : args.slice(0, end);
  return own.some((a, i) =>
    a === "--json" || a === "--format=json" ||
    (a === "--format" && own[i + 1] === "json")
  );
}

/**
 * The code of an error for `{"error":{"code"}}`: a {@linkcode SchemaPinError}'s code, `USAGE`
 * for a usage mistake, `INTERNAL` for anything else (a bug).
 *
 * @example
 * ```ts
 * import { errorCodeOf } from "./json_output.ts";
 * import { SchemaPinError } from "../../lib/errors.ts";
 * errorCodeOf(new SchemaPinError("IO_FAILED", "x")); // "IO_FAILED"
 * ```
 */
export function errorCodeOf(e: unknown): string {
  if (e instanceof SchemaPinError) return e.code;
  if (e instanceof Error && e.name === "UsageError") return "USAGE";
  return "INTERNAL";
}

/**
 * The message of an error without the `error: CODE:` prefix the stderr line carries (a library
 * message in the CLI's words, as on stderr: cli/library_words.ts).
 *
 * @example
 * ```ts
 * import { plainMessage } from "./json_output.ts";
 * plainMessage(new Error("boom")); // "boom"
 * ```
 */
export function plainMessage(e: unknown): string {
  if (e instanceof SchemaPinError) return messageInCliWords(e.message);
  return messageInCliWords(e instanceof Error ? e.message : String(e));
}
