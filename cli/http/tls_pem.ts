/**
 * The TLS certificate and key files of a server (`schemapin serve --tls-cert/--tls-key`): what
 * can be told from their text before the TLS layer is given them.
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";

/**
 * Checks that `cert` holds a PEM certificate and `key` an unencrypted PEM private key
 * (PKCS #8, SEC1 or PKCS #1); `certName` and `keyName` name them in the error.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` naming the file that holds no such PEM block.
 *
 * @example
 * ```ts
 * import { checkTlsPem } from "./tls_pem.ts";
 * checkTlsPem(
 *   "-----BEGIN CERTIFICATE-----\n…",
 *   "-----BEGIN PRIVATE KEY-----\n…",
 *   "--tls-cert c.pem",
 *   "--tls-key k.pem",
 * ); // no error
 * ```
 */
export function checkTlsPem(cert: string, key: string, certName: string, keyName: string): void {
  if (!cert.includes("-----BEGIN CERTIFICATE-----")) {
    throw new SchemaPinError("INPUT_INVALID", `${certName} holds no PEM certificate`);
  }
  if (!/-----BEGIN (EC |RSA )?PRIVATE KEY-----/.test(key)) {
    throw new SchemaPinError("INPUT_INVALID", `${keyName} holds no unencrypted PEM private key`);
  }
}
