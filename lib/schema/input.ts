/**
 * The JSON inputs of the verification flows as files: a schema, a signature file, a discovery,
 * revocation or bundle document. The bytes come from a reader the caller gives (the CLI's reads
 * stdin for `-`); this module parses them strictly, with errors that name the file and say what
 * it was supposed to be — and a PEM key given in place of a document is refused as such, not
 * reported as a JSON syntax error at byte 0.
 *
 * @module
 */
import { checkArg } from "../arguments.ts";
import { SchemaPinError } from "../errors.ts";
import { type Base64Problem, scanBase64 } from "../crypto/base64.ts";
import { decodeEcdsaDer } from "../crypto/der.ts";
import { parsePublicKeyPem, type PublicKey } from "../crypto/keys.ts";
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
 * What to add when a PEM key is given where a JSON document is expected: where a key goes
 * instead, in the caller's terms (the CLI names its option). Each text is shown in parentheses
 * after the message.
 *
 * @example
 * ```ts
 * import type { PemKeyHint } from "./input.ts";
 * const hint: PemKeyHint = {
 *   publicKey: "give the public key as the key of the verification",
 *   privateKey: "give its public key instead",
 * };
 * ```
 */
export interface PemKeyHint {
  /** Added when the file is a PEM public key. */
  readonly publicKey: string;
  /** Added when the file is a PEM private key. */
  readonly privateKey: string;
}

/**
 * Throws `INPUT_INVALID` when `bytes`, read from `path` where a JSON `what` is expected, are a
 * PEM file: the message says what it is and, with `keyHint`, where a key goes instead.
 *
 * @example
 * ```ts
 * import { refusePem } from "./input.ts";
 * const bytes = new TextEncoder().encode("-----BEGIN PUBLIC KEY-----\n…");
 * refusePem(bytes, "public.pem", "discovery document", {
 *   publicKey: "give it as the key",
 *   privateKey: "give its public key",
 * });
 * // throws INPUT_INVALID: public.pem: this is a PEM public key, not a discovery document
 * // (give it as the key)
 * ```
 */
export function refusePem(
  bytes: Uint8Array,
  path: string,
  what: string,
  keyHint?: PemKeyHint,
): void {
  const instead = pemInsteadOf(bytes, what);
  if (instead === undefined) return;
  const label = pemLabelOf(bytes)!;
  let hint = "";
  if (keyHint !== undefined && /PUBLIC KEY$/.test(label)) hint = ` (${keyHint.publicKey})`;
  if (keyHint !== undefined && /PRIVATE KEY$/.test(label)) hint = ` (${keyHint.privateKey})`;
  throw new SchemaPinError("INPUT_INVALID", `${sourceName(path)}: ${instead}${hint}`, {
    path,
    pem_label: label,
  });
}

/**
 * Reads `path` with `read` and strictly parses it as JSON; `JSON_INVALID` / `IO_FAILED` name
 * the file and say what it was supposed to be (`what`: "schema", "discovery document", …). A
 * PEM file is `INPUT_INVALID` saying what it is ({@linkcode refusePem}, `keyHint`).
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
  keyHint?: PemKeyHint,
): Promise<JsonValue> {
  const bytes = await read(path);
  refusePem(bytes, path, what, keyHint);
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

/**
 * Reads the file `path` with `read` as strict UTF-8 text (a PEM key, a CA file); anything
 * else is `INPUT_INVALID` naming the file.
 *
 * @example
 * ```ts ignore
 * import { readTextInput } from "./input.ts";
 * const pem = await readTextInput("public.pem", (p) => Deno.readFile(p));
 * ```
 */
export async function readTextInput(path: string, read: ReadInput): Promise<string> {
  checkArg("readTextInput", "path", path, "string");
  checkArg("readTextInput", "read", read, "function");
  const bytes = await read(path);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new SchemaPinError("INPUT_INVALID", `${path} is not valid UTF-8 text`, { path });
  }
}

/**
 * Reads the explicit public key `path` given as `flag` (`--public-key`) through `read`: a PEM
 * public key, parsed and checked as P-256. A private key is refused as such — verifying needs
 * only the public half — with `advice` on where to get it; errors name the flag and the file.
 *
 * @throws {SchemaPinError} `KEY_INVALID` for a private key or a key that is not P-256;
 *   `INPUT_INVALID` for text that is not UTF-8; what `read` throws.
 *
 * @example
 * ```ts ignore
 * import { readPublicKeyInput } from "./input.ts";
 * const key = await readPublicKeyInput("public.pem", (p) => Deno.readFile(p), {
 *   flag: "--public-key",
 *   advice: "give public.pem",
 * });
 * ```
 */
export async function readPublicKeyInput(
  path: string,
  read: ReadInput,
  options: { readonly flag: string; readonly advice: string },
): Promise<PublicKey> {
  checkArg("readPublicKeyInput", "path", path, "string");
  checkArg("readPublicKeyInput", "options", options, "object");
  const named = `${options.flag} ${sourceName(path)}`;
  const pem = await readTextInput(path, read);
  if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(pem)) {
    throw new SchemaPinError(
      "KEY_INVALID",
      `${named} holds a private key; verifying needs only the public key: ${options.advice}`,
      { path },
    );
  }
  return parsePublicKeyPem(pem, named);
}

/** What {@linkcode inspectInlineSignature} found out about a value given as a signature. */
export interface InlineSignatureValue {
  /** What the value names: an existing file, something else (a folder, `-` for stdin), or nothing. */
  readonly path: "file" | "other" | "none";
  /** Why the value (trimmed) is not Base64, or `undefined` when it is. */
  readonly base64Problem?: Base64Problem;
  /** True when the value (trimmed) is Base64 that decodes to a DER ECDSA signature. */
  readonly derSignature: boolean;
}

/**
 * Looks at a value given as a schema signature, which may be the Base64 signature itself or
 * the name of a file holding it: whether it names a file, whether it is Base64, and whether
 * that decodes to a DER ECDSA signature (§4.1). A bare signature is inline only when it names
 * no path and decodes; a name that exists is always read as a file.
 *
 * @example
 * ```ts ignore
 * import { inspectInlineSignature } from "./input.ts";
 * const inline = await inspectInlineSignature("MEUCIQ…");
 * inline.path === "none" && inline.derSignature; // the signature itself, not a file name
 * ```
 */
export async function inspectInlineSignature(value: string): Promise<InlineSignatureValue> {
  checkArg("inspectInlineSignature", "value", value, "string");
  const path = value === "-"
    ? "other"
    : await stat(value).then((info) => (info.isFile ? "file" : "other"), () => "none" as const);
  const bytes = scanBase64(value.trim());
  if (!(bytes instanceof Uint8Array)) return { path, base64Problem: bytes, derSignature: false };
  try {
    decodeEcdsaDer(bytes);
    return { path, derSignature: true };
  } catch {
    return { path, derSignature: false };
  }
}
