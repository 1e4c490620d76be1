/**
 * The signature-document metadata flags that `sign-schema` and `contract sign` share —
 * `--expires-in`/`--expires-at` (SchemaPin §16), `--signer-kid`, `--domain` — checked the same
 * way before any key is read or file written.
 *
 * @module
 */
import { checkDomain } from "../dns/domain.ts";
import { parseDuration, parseRfc3339 } from "../time/rfc3339.ts";
import { UsageError } from "./command.ts";

/** The flag values read by {@linkcode signatureMetadata}. */
export interface SignatureMetadataFlags {
  domain?: string;
  "signer-kid"?: string;
  "expires-in"?: string;
  "expires-at"?: string;
}

/** Document options both signers accept (a subset of `SchemaDocumentOptions`). */
export interface SignatureMetadata {
  signedAt: number;
  expiresAt?: number | string;
  domain?: string;
  signerKid?: string;
}

/**
 * Checks the metadata flags of `command` and returns the document options they ask for, with
 * `signedAt = now`. Throws `UsageError` (exit 2) naming the flag: both expiry flags, a bad
 * duration or time, an expiry in the past, an empty `--signer-kid`, an invalid `--domain`.
 *
 * @example
 * ```ts ignore
 * signatureMetadata("contract sign", { "expires-in": "30d" }, Date.now()).expiresAt; // now + 30 days
 * ```
 */
export function signatureMetadata(
  command: string,
  values: SignatureMetadataFlags,
  now: number,
): SignatureMetadata {
  if (values["expires-in"] !== undefined && values["expires-at"] !== undefined) {
    throw new UsageError(`${command}: give --expires-in or --expires-at, not both`);
  }
  const options: SignatureMetadata = { signedAt: now };
  if (values["expires-in"] !== undefined) {
    const ms = parseDuration(values["expires-in"]);
    if (ms === undefined) {
      throw new UsageError(
        `${command}: --expires-in ${
          JSON.stringify(values["expires-in"])
        } is not a duration like 30d, 12h, 90m, 2w or 1d12h`,
      );
    }
    options.expiresAt = now + ms;
  }
  if (values["expires-at"] !== undefined) {
    const ms = parseRfc3339(values["expires-at"]);
    if (ms === undefined) {
      throw new UsageError(
        `${command}: --expires-at ${
          JSON.stringify(values["expires-at"])
        } is not a strict RFC 3339 time like 2026-11-01T10:00:00Z`,
      );
    }
    if (ms <= now) throw new UsageError(`${command}: --expires-at is in the past`);
    options.expiresAt = values["expires-at"];
  }
  if (values["signer-kid"] === "") throw new UsageError(`${command}: --signer-kid is empty`);
  if (values["signer-kid"] !== undefined) options.signerKid = values["signer-kid"];
  if (values.domain !== undefined) {
    const dc = checkDomain(values.domain);
    if (!dc.ok) {
      throw new UsageError(`${command}: --domain ${JSON.stringify(values.domain)}: ${dc.reason}`);
    }
    options.domain = dc.domain;
  }
  return options;
}
