/**
 * The signature-document metadata flags that `sign-schema` and `contract sign` share —
 * `--expires-in`/`--expires-at` (SchemaPin §16), `--signer-kid`, `--domain` — checked the same
 * way before any key is read or file written.
 *
 * @module
 */
import { expiryFromOptions } from "../time/expiry.ts";
import { asUsage, UsageError } from "./command.ts";
import { requireDomainFlag } from "./schema_inputs.ts";

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
  const options: SignatureMetadata = { signedAt: now };
  const expiresAt = expiryOption(command, values, now);
  if (expiresAt !== undefined) options.expiresAt = expiresAt;
  if (values["signer-kid"] === "") throw new UsageError(`${command}: --signer-kid is empty`);
  if (values["signer-kid"] !== undefined) options.signerKid = values["signer-kid"];
  if (values.domain !== undefined) options.domain = requireDomainFlag(command, values.domain);
  return options;
}

/**
 * The `expires_at` that `--expires-in` or `--expires-at` asks for at `now`
 * (`expiryFromOptions` of cli/time/expiry.ts), `undefined` for none; a `UsageError` naming the
 * flag otherwise.
 *
 * @example
 * ```ts ignore
 * expiryOption("sign-tools", { "expires-in": "30d" }, Date.now()); // now + 30 days
 * ```
 */
export function expiryOption(
  command: string,
  values: Pick<SignatureMetadataFlags, "expires-in" | "expires-at">,
  now: number,
): number | string | undefined {
  return asUsage(command, () => expiryFromOptions(values, now));
}
