/**
 * A library verification result as JSON fields: `ok` from `valid`, an `error`
 * `{ code, message }` on failure, then the result's own fields with snake_case names, like the
 * spec's documents. The CLI's `--json` outputs are built from them (cli/commands/json_output.ts adds
 * `format`; ARCHITECTURE.md, "How a command is built", step 7); any program reporting a
 * result in the same shape can use them.
 *
 * @module
 */
import { messageInCliWords } from "../library_words.ts";
import { argumentError, checkArg } from "../../lib/arguments.ts";

/** What {@linkcode verificationFields} reads from a library result. */
export interface VerificationLike {
  /** The library's success flag. */
  readonly valid: boolean;
  /** The spec's error code of a failure. */
  readonly errorCode?: string;
  /** A readable reason. */
  readonly errorMessage?: string;
}

/**
 * A camelCase name in snake_case (`errorCode` → `error_code`, `keyFingerprint` →
 * `key_fingerprint`); names already in snake_case are unchanged.
 *
 * @example
 * ```ts
 * import { snakeCase } from "./result_fields.ts";
 * snakeCase("signerKid"); // "signer_kid"
 * ```
 */
export function snakeCase(name: string): string {
  checkArg("snakeCase", "name", name, "string");
  return name.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
}

/**
 * The JSON fields of a library verification result: `ok` from `valid`, `error` from
 * `errorCode`/`errorMessage`, then the fields named in `keys`, in that order, renamed to
 * snake_case and left out when undefined (one level: nested values such as a DNS cross-check or
 * a list of changes are already snake_case or single words).
 *
 * @example
 * ```ts
 * import { verificationFields } from "./result_fields.ts";
 * verificationFields(
 *   { valid: false, errorCode: "SIGNATURE_INVALID", errorMessage: "bad", toolId: "t" },
 *   ["toolId"],
 * );
 * // { ok: false, error: { code: "SIGNATURE_INVALID", message: "bad" }, tool_id: "t" }
 * ```
 */
export function verificationFields<R extends VerificationLike>(
  result: R,
  keys: readonly (keyof R & string)[],
): { readonly ok: boolean } & Record<string, unknown> {
  const given: unknown = result;
  if (
    typeof given !== "object" || given === null ||
    typeof (given as { valid?: unknown }).valid !== "boolean"
  ) {
    throw argumentError(
      "verificationFields",
      "result",
      "a verification result (with a boolean valid)",
      given,
    );
  }
  const names: unknown = keys;
  if (!Array.isArray(names) || !names.every((k) => typeof k === "string")) {
    throw argumentError("verificationFields", "keys", "an array of field names", names);
  }
  const out: Record<string, unknown> = { ok: result.valid };
  if (!result.valid || result.errorCode !== undefined) {
    const code = result.errorCode ?? "VERIFICATION_FAILED";
    out.error = { code, message: messageInCliWords(result.errorMessage ?? code) };
  }
  for (const k of keys) if (result[k] !== undefined) out[snakeCase(k)] = result[k];
  return out as { readonly ok: boolean } & Record<string, unknown>;
}
