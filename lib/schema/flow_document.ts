/**
 * The parts of the §15.1 flow (lib/schema/flow.ts) that look at a signature document, shared
 * by schemas (lib/schema/verify.ts) and skills (lib/skill/verify.ts): the canonicalization it
 * declares (step 0, §19.3) and, once its signature verified, its own domain and the fields it
 * covers (the end of steps 5–6, §18.2).
 *
 * @module
 */
import type { StepFailure } from "../errors.ts";
import { SCHEMAPIN_V1 } from "../json/canonical_schemapin.ts";
import type { OfflineVerificationResult } from "./flow.ts";

/**
 * §19.3: a signature declaring any canonicalization but `"schemapin-v1"` is a hard failure
 * (`CANONICALIZATION_UNSUPPORTED`); absence means schemapin-v1.
 *
 * @example
 * ```ts
 * import { checkDeclaredCanonicalization } from "./flow_document.ts";
 * checkDeclaredCanonicalization({ canonicalization: "jcs" })?.errorCode;
 * // "CANONICALIZATION_UNSUPPORTED"
 * ```
 */
export function checkDeclaredCanonicalization(
  document: { readonly canonicalization?: unknown },
): StepFailure | undefined {
  if (!Object.hasOwn(document, "canonicalization")) return undefined;
  if (document.canonicalization === SCHEMAPIN_V1) return undefined;
  return {
    errorCode: "CANONICALIZATION_UNSUPPORTED",
    errorMessage:
      `the signature declares canonicalization ${
        JSON.stringify(document.canonicalization)
      }, which this verifier does not implement (only "${SCHEMAPIN_V1}"); ` +
      `refusing rather than falling back (§19.3)`,
  };
}

/** The fields of a signature document that {@linkcode acceptSignedDocument} looks at. */
export interface SignedDocumentSummary {
  /** The signer's domain, when the document names one. */
  readonly domain?: string;
  /** When it was signed. */
  readonly signed_at: string;
  /** Signer key id. */
  readonly signer_kid?: string;
  /** Version tag (§18.1). */
  readonly schema_version?: string;
  /** The previous version's hash (§18.1). */
  readonly previous_hash?: string;
}

/**
 * The end of steps 5–6 for a signature document whose signature and hash verified: its own
 * `domain`, when present, must be the verified `domain` (else `DOMAIN_MISMATCH`, and
 * `result` is left alone). Then `result` gets the document and the fields its signature
 * covers — surfaced only now (§18.2) — and, as the `unprotected_fields` warning, the
 * `unknownFields` it does not cover.
 *
 * @example
 * ```ts
 * import { acceptSignedDocument } from "./flow_document.ts";
 * import type { OfflineVerificationResult } from "./flow.ts";
 * const result: OfflineVerificationResult = {
 *   valid: false, toolId: "t", keyPinning: "not_checked", warnings: [], expired: false,
 * };
 * const doc = { domain: "example.org", signed_at: "2026-05-01T10:00:00Z" };
 * acceptSignedDocument(doc, [], "example.com", result)?.errorCode; // "DOMAIN_MISMATCH"
 * ```
 */
export function acceptSignedDocument<D extends SignedDocumentSummary>(
  document: D,
  unknownFields: readonly string[],
  domain: string,
  result: OfflineVerificationResult & { document?: D },
): StepFailure | undefined {
  if (document.domain !== undefined && document.domain.toLowerCase() !== domain) {
    return {
      errorCode: "DOMAIN_MISMATCH",
      errorMessage: `the signature document was signed for domain ${document.domain}, ` +
        `not ${domain}`,
    };
  }
  result.document = document;
  result.signedAt = document.signed_at;
  if (document.signer_kid !== undefined) result.signerKid = document.signer_kid;
  if (document.schema_version !== undefined) result.schemaVersion = document.schema_version;
  if (document.previous_hash !== undefined) result.previousHash = document.previous_hash;
  if (unknownFields.length > 0) {
    result.warnings.push("unprotected_fields");
    result.unprotectedFields = [...unknownFields];
  }
  return undefined;
}
