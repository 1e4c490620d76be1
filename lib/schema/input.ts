/**
 * The JSON inputs of the verification flows as files: a schema, a signature file, a discovery,
 * revocation or bundle document. The bytes come from a reader the caller gives (the CLI's reads
 * stdin for `-`); this module parses them strictly, with errors that name the file and say what
 * it was supposed to be — and a PEM key given in place of a document is refused as such, not
 * reported as a JSON syntax error at byte 0.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { pemInsteadOf, pemLabelOf } from "../crypto/pem.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonValue } from "../json/types.ts";
import { describeFsError, type EntryInfo, stat } from "../runtime/fs.ts";

/**
 * Reads the bytes of the file `path`; throws `SchemaPinError` (`IO_FAILED`) naming it. The
 * CLI's reader takes `-` as stdin.
 *
 * @example
 * ```ts
 * import type { ReadInput } from "./input.ts";
 * const read: ReadInput = (path) => Deno.readFile(path);
 * ```
 */
export type ReadInput = (path: string) => Promise<Uint8Array>;

/**
 * The name a path is reported under (`stdin` for `-`).
 *
 * @example
 * ```ts
 * import { sourceName } from "./input.ts";
 * sourceName("-"); // "stdin"
 * ```
 */
export function sourceName(path: string): string {
  return path === "-" ? "stdin" : path;
}

/**
 * Throws `INPUT_INVALID` when `bytes`, read from `path` where a JSON `what` is expected, are a
 * PEM file: the message says what it is and, with `keyFlag`, the option that takes a key
 * instead.
 *
 * @example
 * ```ts
 * import { refusePem } from "./input.ts";
 * const bytes = new TextEncoder().encode("-----BEGIN PUBLIC KEY-----\n…");
 * refusePem(bytes, "public.pem", "discovery document", "--public-key");
 * // throws INPUT_INVALID: public.pem: this is a PEM public key, not a discovery document
 * // (use --public-key FILE)
 * ```
 */
export function refusePem(bytes: Uint8Array, path: string, what: string, keyFlag?: string): void {
  const instead = pemInsteadOf(bytes, what);
  if (instead === undefined) return;
  const label = pemLabelOf(bytes)!;
  let hint = "";
  if (keyFlag !== undefined && /PUBLIC KEY$/.test(label)) hint = ` (use ${keyFlag} FILE)`;
  if (keyFlag !== undefined && /PRIVATE KEY$/.test(label)) {
    hint = keyFlag === "--public-key"
      ? " (use --public-key FILE with its public key, e.g. the public.pem keygen wrote)"
      : ` (use ${keyFlag} FILE)`;
  }
  throw new SchemaPinError("INPUT_INVALID", `${sourceName(path)}: ${instead}${hint}`, {
    path,
    pem_label: label,
  });
}

/**
 * Reads `path` with `read` and strictly parses it as JSON; `JSON_INVALID` / `IO_FAILED` name
 * the file and say what it was supposed to be (`what`: "schema", "discovery document", …). A
 * PEM file is `INPUT_INVALID` saying what it is ({@linkcode refusePem}, `keyFlag`).
 *
 * @example
 * ```ts ignore
 * import { readJsonInput } from "./input.ts";
 * const schema = await readJsonInput("tool.json", (p) => Deno.readFile(p), "schema");
 * ```
 */
export async function readJsonInput(
  path: string,
  read: ReadInput,
  what: string,
  keyFlag?: string,
): Promise<JsonValue> {
  const bytes = await read(path);
  refusePem(bytes, path, what, keyFlag);
  try {
    return parseJson(bytes, sourceName(path));
  } catch (e) {
    if (e instanceof SchemaPinError) {
      throw new SchemaPinError(e.code, `${what} ${e.message}`, { ...e.details, path });
    }
    throw e;
  }
}

/**
 * The bytes of a schema signature file read from `path`: a 1.4 schema signature document
 * (a JSON object) or a bare Base64 signature (surrounding whitespace, such as the final
 * newline, is ignored). Anything else is `INPUT_INVALID` naming the file.
 *
 * @example
 * ```ts
 * import { parseSignatureFile } from "./input.ts";
 * parseSignatureFile(new TextEncoder().encode("MEUCIQ==\n"), "tool.json.sig"); // "MEUCIQ=="
 * ```
 */
export function parseSignatureFile(
  bytes: Uint8Array,
  path: string,
): string | Record<string, unknown> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new SchemaPinError("INPUT_INVALID", `signature file ${sourceName(path)} is not UTF-8`, {
      path,
    });
  }
  const trimmed = text.trim();
  if (trimmed === "") {
    throw new SchemaPinError("INPUT_INVALID", `signature file ${sourceName(path)} is empty`, {
      path,
    });
  }
  if (trimmed.startsWith("{")) {
    const value = parseJson(bytes, sourceName(path));
    return value as Record<string, unknown>;
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `signature file ${sourceName(path)} is neither a JSON signature document nor a single ` +
        `Base64 signature`,
      { path },
    );
  }
  return trimmed;
}

/**
 * Throws `IO_FAILED` unless `dir`, given as `what` (`--resolver-dir`, `--signature-dir`), is a
 * folder: a mistyped one must not read as a folder with nothing in it.
 *
 * @example
 * ```ts ignore
 * import { requireDirectory } from "./input.ts";
 * await requireDirectory("--signature-dir", "sigs"); // IO_FAILED: --signature-dir sigs: no such file or directory
 * ```
 */
export async function requireDirectory(what: string, dir: string): Promise<void> {
  let info: EntryInfo;
  try {
    info = await stat(dir);
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `${what} ${dir}: ${describeFsError(e)}`, { path: dir });
  }
  if (!info.isDirectory) {
    throw new SchemaPinError("IO_FAILED", `${what} ${dir} is not a directory`, { path: dir });
  }
}
