/**
 * PEM armor (RFC 7468): one `-----BEGIN label-----` … `-----END label-----` block with a
 * strict Base64 body. Tolerated: line breaks anywhere in the body, CRLF line endings, a
 * leading UTF-8 byte order mark (Windows editors add one) and whitespace around the block.
 * Rejected: any other text outside the block, a second block, PEM headers, spaces inside the
 * body, and non-canonical Base64.
 *
 * @module
 */

import { type ErrorCode, SchemaPinError } from "../errors.ts";
import { encodeBase64, scanBase64 } from "./base64.ts";

/** A decoded PEM block. */
export interface PemBlock {
  /** The label between `BEGIN ` and the dashes, e.g. `PUBLIC KEY`. */
  readonly label: string;
  /** The decoded body. */
  readonly der: Uint8Array<ArrayBuffer>;
}

/** Options for {@linkcode parsePem}. */
export interface ParsePemOptions {
  /** Where the text came from (a file name), for messages and `details.source`. */
  readonly source?: string;
  /** What the text should be, first words of messages (default: `PEM`). */
  readonly what?: string;
  /** Error code to throw (default `INPUT_INVALID`; key parsing uses `KEY_INVALID`). */
  readonly code?: ErrorCode;
}

const LABEL = /^[\x21-\x2c\x2e-\x7e](?:[ -]?[\x21-\x2c\x2e-\x7e])*$/;
const BEGIN = "-----BEGIN ";
const DASHES = "-----";

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 0x0a) line++;
  return line;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** A hint for text that has no PEM armor at all. */
function guessWhatItIs(text: string): string {
  const t = text.trimStart();
  if (/^(ssh-(ed25519|rsa|dss)|ecdsa-sha2-nistp\d+|sk-)/.test(t)) {
    return "; this looks like an OpenSSH public key (convert it with " +
      "`ssh-keygen -e -m PKCS8 -f key.pub`)";
  }
  if (t.startsWith("{") || t.startsWith("[")) return "; this looks like JSON";
  if (/^[A-Za-z0-9+/]{16,}={0,2}$/.test(t.replace(/\s+/g, ""))) {
    return "; this looks like bare Base64 without the -----BEGIN …----- armor";
  }
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x08\x0e-\x1f\ufffd]/.test(t)) {
    return "; this looks like binary data (if it is DER, convert it with `openssl pkey -inform DER`)";
  }
  return "";
}

/**
 * Parses text holding exactly one PEM block.
 *
 * @throws {SchemaPinError} (`options.code`, default `INPUT_INVALID`) saying what is wrong and
 *   on which line; `details` carries `source`, `line` and, where known, `label`.
 *
 * @example
 * ```ts
 * import { parsePem } from "./pem.ts";
 * const block = parsePem("-----BEGIN DATA-----\naGk=\n-----END DATA-----\n");
 * block.label; // "DATA"
 * block.der; // Uint8Array [104, 105]
 * ```
 */
export function parsePem(text: string, options: ParsePemOptions = {}): PemBlock {
  const code = options.code ?? "INPUT_INVALID";
  const where = options.source === undefined ? "" : ` in ${options.source}`;
  const what = (options.what ?? "PEM") + where;
  const base = options.source === undefined ? {} : { source: options.source };
  const fail = (message: string, details: Record<string, unknown> = {}): never => {
    throw new SchemaPinError(code, `${what}: ${message}`, { ...base, ...details });
  };

  // A leading byte order mark is an editor artefact, not content.
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const begins: number[] = [];
  for (let i = text.indexOf(BEGIN, start); i >= 0; i = text.indexOf(BEGIN, i + 1)) begins.push(i);
  if (begins.length === 0) fail(`not a PEM block (no "-----BEGIN" line)${guessWhatItIs(text)}`);
  if (begins.length > 1) {
    const labels = begins.map((b) => {
      const end = text.indexOf(DASHES, b + BEGIN.length);
      return end < 0 ? "?" : text.slice(b + BEGIN.length, end);
    });
    const hint = labels.includes("EC PARAMETERS")
      ? "; remove the EC PARAMETERS block (`openssl ecparam -genkey` writes it unless given -noout)"
      : "";
    fail(
      `found ${begins.length} PEM blocks (${labels.map((l) => `"${l}"`).join(", ")}); ` +
        `expected exactly one${hint}`,
      { blocks: begins.length, labels },
    );
  }
  const b = begins[0];
  for (let i = start; i < b; i++) {
    if (!isSpace(text.charCodeAt(i))) {
      fail(`unexpected text before the BEGIN line (line ${lineOf(text, i)})`, {
        line: lineOf(text, i),
      });
    }
  }
  const beginLineEnd = text.indexOf("\n", b);
  const beginLine = text.slice(b, beginLineEnd < 0 ? text.length : beginLineEnd).replace(
    /\r$/,
    "",
  );
  const beginLineNo = lineOf(text, b);
  if (!beginLine.endsWith(DASHES) || beginLine.length < BEGIN.length + DASHES.length + 1) {
    fail(`malformed BEGIN line (line ${beginLineNo})`, { line: beginLineNo });
  }
  const label = beginLine.slice(BEGIN.length, -DASHES.length);
  if (!LABEL.test(label)) {
    fail(`malformed PEM label ${JSON.stringify(label)} (line ${beginLineNo})`, {
      line: beginLineNo,
    });
  }
  if (beginLineEnd < 0) fail(`no END line for "BEGIN ${label}" (truncated?)`, { label });

  const endMarker = "-----END ";
  const e = text.indexOf(endMarker, beginLineEnd);
  if (e < 0) fail(`no END line for "BEGIN ${label}" (truncated?)`, { label });
  const endLineNo = lineOf(text, e);
  const endLineEnd = text.indexOf("\n", e);
  const endLine = text.slice(e, endLineEnd < 0 ? text.length : endLineEnd).replace(/\r$/, "");
  if (endLine !== `-----END ${label}-----`) {
    fail(
      `END line ${JSON.stringify(endLine)} (line ${endLineNo}) does not match "BEGIN ${label}"`,
      { label, line: endLineNo },
    );
  }
  if (e > 0 && text.charCodeAt(e - 1) !== 0x0a) {
    fail(`the END line must start on its own line (line ${endLineNo})`, {
      label,
      line: endLineNo,
    });
  }
  if (endLineEnd >= 0) {
    for (let i = endLineEnd; i < text.length; i++) {
      if (!isSpace(text.charCodeAt(i))) {
        fail(`unexpected text after the END line (line ${lineOf(text, i)})`, {
          label,
          line: lineOf(text, i),
        });
      }
    }
  }

  // The body: Base64 lines separated by LF or CRLF; nothing else.
  const lines = text.slice(beginLineEnd + 1, e).split("\n");
  lines.pop(); // the empty piece after the last line break (the END line starts a line)
  let joined = "";
  const lineStarts: number[] = []; // index into `joined` where each body line starts
  for (const [i, raw] of lines.entries()) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (i === 0 && /^[A-Za-z-]+:/.test(line)) {
      if (/^Proc-Type:\s*4,\s*ENCRYPTED/i.test(line)) {
        fail(
          `legacy OpenSSL-encrypted PEM ("Proc-Type: 4,ENCRYPTED") is not supported; ` +
            "convert it to encrypted PKCS #8 (`openssl pkcs8 -topk8 -v2 aes-256-cbc " +
            "-v2prf hmacWithSHA256 -iter 600000 -in old.pem -out key.pem`)",
          { label, encrypted: true },
        );
      }
      fail(`PEM headers are not supported (line ${beginLineNo + 1})`, {
        label,
        line: beginLineNo + 1,
      });
    }
    lineStarts.push(joined.length);
    joined += line;
  }
  if (joined.length === 0) fail(`the "${label}" block is empty`, { label });
  const decoded = scanBase64(joined);
  if (!(decoded instanceof Uint8Array)) {
    let index = lineStarts.length - 1;
    while (index > 0 && lineStarts[index] > decoded.offset) index--;
    const line = beginLineNo + 1 + index;
    const column = decoded.offset - lineStarts[index] + 1;
    fail(
      `the body of the "${label}" block is not valid Base64: ${decoded.problem} ` +
        `(line ${line}, column ${column})`,
      { label, line, column },
    );
  }
  return { label, der: decoded as Uint8Array<ArrayBuffer> };
}

/**
 * Formats bytes as a PEM block: Base64 in 64-character lines, LF line endings, a trailing
 * newline.
 *
 * @example
 * ```ts
 * import { formatPem } from "./pem.ts";
 * formatPem("DATA", new Uint8Array([104, 105]));
 * // "-----BEGIN DATA-----\naGk=\n-----END DATA-----\n"
 * ```
 */
export function formatPem(label: string, der: Uint8Array): string {
  // Programming-error assertion: labels are the constants of the key formats, never input.
  if (!LABEL.test(label)) throw new RangeError(`formatPem: bad label ${JSON.stringify(label)}`);
  const body = encodeBase64(der);
  let out = `-----BEGIN ${label}-----\n`;
  for (let i = 0; i < body.length; i += 64) out += body.slice(i, i + 64) + "\n";
  return out + `-----END ${label}-----\n`;
}

/**
 * What a PEM file whose first line is `-----BEGIN label-----` holds, in words: `a PEM public
 * key`, `a PEM private key`, `an encrypted PEM private key`, `a PEM certificate`, or
 * `a PEM file (label)`.
 *
 * @example
 * ```ts
 * import { describePemLabel } from "./pem.ts";
 * describePemLabel("EC PRIVATE KEY"); // "a PEM private key"
 * ```
 */
export function describePemLabel(label: string): string {
  if (label === "PUBLIC KEY" || / PUBLIC KEY$/.test(label)) return "a PEM public key";
  if (label === "ENCRYPTED PRIVATE KEY") return "an encrypted PEM private key";
  if (label === "PRIVATE KEY" || / PRIVATE KEY$/.test(label)) return "a PEM private key";
  if (label === "CERTIFICATE") return "a PEM certificate";
  return `a PEM file (${label})`;
}

/**
 * The label of `bytes` when they start like a PEM file (`-----BEGIN label-----`, after an
 * optional byte order mark and whitespace), else `undefined`. Only the first line is looked
 * at: this tells a key given in place of a JSON document apart, it does not validate PEM.
 *
 * @example
 * ```ts
 * import { pemLabelOf } from "./pem.ts";
 * pemLabelOf(new TextEncoder().encode("-----BEGIN PUBLIC KEY-----\nMFkw…")); // "PUBLIC KEY"
 * pemLabelOf(new TextEncoder().encode('{"schema_version":"1.4"}')); // undefined
 * ```
 */
export function pemLabelOf(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder().decode(bytes.subarray(0, 200)).replace(/^\ufeff/, "");
  const m = /^\s*-----BEGIN ([\x21-\x2c\x2e-\x7e](?:[ -]?[\x21-\x2c\x2e-\x7e])*)-----/.exec(head);
  return m?.[1];
}

/**
 * When `bytes`, expected to be a JSON `what` (e.g. `discovery document`), are a PEM file
 * instead: the sentence saying so (`this is a PEM public key, not a discovery document`), else
 * `undefined`. Readers check this before parsing JSON, so the user hears what they gave rather
 * than a JSON syntax error at byte 0.
 *
 * @example
 * ```ts
 * import { pemInsteadOf } from "./pem.ts";
 * const pem = new TextEncoder().encode("-----BEGIN PUBLIC KEY-----\n");
 * pemInsteadOf(pem, "discovery document");
 * // "this is a PEM public key, not a discovery document"
 * ```
 */
export function pemInsteadOf(bytes: Uint8Array, what: string): string | undefined {
  const label = pemLabelOf(bytes);
  return label === undefined ? undefined : `this is ${describePemLabel(label)}, not a ${what}`;
}
