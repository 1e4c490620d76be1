/**
 * A PEM key given where a JSON document is expected (`--discovery public.pem`, a key as
 * `--revocation`, `--bundle`, a schema): refused before the JSON parser, with a message that
 * says what the file is and where a key goes — not a JSON syntax error at byte 0.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { pemInsteadOf, pemLabelOf } from "../crypto/pem.ts";

/**
 * Throws `INPUT_INVALID` (exit 2) when `bytes`, read from `path` where a JSON `what` is
 * expected, are a PEM file: the message says what it is and, with `keyFlag`, the flag that
 * takes a key instead.
 *
 * @example
 * ```ts
 * import { refusePem } from "./pem_input.ts";
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
  const name = path === "-" ? "stdin" : path;
  throw new SchemaPinError("INPUT_INVALID", `${name}: ${instead}${hint}`, {
    path,
    pem_label: label,
  });
}
