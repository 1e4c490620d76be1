/**
 * Checking a signed lock before anything is contacted (`contract verify
 * --require-signed-lock`, `guard --require-signed-lock`): `<lock>.sig`, read from disk, verified over the lock's bytes
 * with the key sources of a trust plan (lib/trust/load.ts) by {@linkcode verifyLockSignature}
 * — the key pinned as `contractpin:lock@DOMAIN`. A missing, oversized, unreadable-as-JSON or
 * malformed signature file is a failed verification (`SIGNATURE_INVALID`); a local input that
 * cannot be used (an unreadable signature file, a bad trust file) throws.
 *
 * @module
 */
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { describeFsError, isNotFound, readFile, stat } from "../../lib/runtime/fs.ts";
import type { FirstUseInfo } from "../../lib/schema/flow.ts";
import type { SchemaVerificationResult } from "../../lib/schema/verify.ts";
import {
  type LoadedTrust,
  loadTrustAndDnsHook,
  type TrustEnv,
  trustFlowOptions,
  type TrustPlan,
  withTrustInputs,
} from "../../lib/trust/load.ts";
import {
  LOCK_SIGNATURE_TOOL_ID,
  type LockSignatureResult,
  verifyLockSignature,
} from "./lock_signature.ts";

/** The largest lock signature file read (a real one is under 1 KiB). */
export const MAX_LOCK_SIGNATURE_BYTES = 64 * 1024;

/**
 * The default signature file of a lock: `<lock>.sig`.
 *
 * @example
 * ```ts
 * import { lockSignaturePath } from "./lock_signature_check.ts";
 * lockSignaturePath("contractpin.lock"); // "contractpin.lock.sig"
 * ```
 */
export function lockSignaturePath(lockPath: string): string {
  return `${lockPath}.sig`;
}

/**
 * The signature file of a lock's check: `signature` when given, else `<lock>.sig`
 * ({@linkcode lockSignaturePath}). A lock read from stdin (`-`) has no file to sit next to,
 * so its signature must be named; stdin cannot be both.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) for a
 *   `signature` that names no file, or a lock read from stdin without one
 *
 * @example
 * ```ts
 * import { lockSignatureFile } from "./lock_signature_check.ts";
 * lockSignatureFile("ci/contractpin.lock"); // "ci/contractpin.lock.sig"
 * lockSignatureFile("-", "lock.sig"); // "lock.sig"
 * ```
 */
export function lockSignatureFile(lockPath: string, signature?: string): string {
  if (signature === "" || signature === "-") {
    throw usageError(`--signature must name a file`, { option: "signature" });
  }
  if (signature === undefined && lockPath === "-") {
    throw usageError(`with --lock -, give the signature file with --signature`, {
      option: "signature",
    });
  }
  return signature ?? lockSignaturePath(lockPath);
}

/**
 * After a lock was rewritten (`contract init`, `contract approve`): the signature file next to
 * it (`<lock>.sig`) when one exists — it no longer covers the lock and must be renewed (it is
 * kept: the signer renews it) — else `undefined`.
 *
 * @example
 * ```ts ignore
 * import { staleLockSignature } from "./lock_signature_check.ts";
 * const stale = await staleLockSignature("contractpin.lock", files.exists);
 * if (stale) console.warn(`${stale} no longer covers contractpin.lock`);
 * ```
 */
export async function staleLockSignature(
  lockPath: string,
  exists: (path: string) => Promise<boolean>,
): Promise<string | undefined> {
  const sigPath = lockSignaturePath(lockPath);
  return await exists(sigPath) ? sigPath : undefined;
}

/** How the key of a lock signature is judged (the verify-schema options that apply). */
export interface LockSignatureVerifyOptions {
  /** The pin file (default: `defaultPinStorePath()`); unused with an explicit key. */
  readonly pinStore?: string;
  /** Pin an unknown key without asking. */
  readonly trustFirstUse?: boolean;
  /** Accept an expired signature, with a warning. */
  readonly allowExpired?: boolean;
  /** Accept a declared revocation endpoint whose document cannot be fetched. */
  readonly allowMissingRevocation?: boolean;
  /** Asks about a first-use key (a terminal); without it, first use needs `trustFirstUse`. */
  readonly confirmFirstUse?: (info: FirstUseInfo) => Promise<boolean>;
}

/** Inputs of {@linkcode checkLockSignature}. */
export interface CheckLockSignatureOptions extends LockSignatureVerifyOptions {
  /** The key sources. */
  readonly plan: TrustPlan;
  /** What the plan is loaded with. */
  readonly env: TrustEnv;
  /** Trust inputs already loaded from `plan` (the guard loads them once for both checks). */
  readonly loaded?: LoadedTrust<SchemaVerificationResult>;
  /** The lock file's bytes, already validated by the caller. */
  readonly lockBytes: Uint8Array;
  /** The lock file's name, for messages. */
  readonly lockPath: string;
  /** The signature file. */
  readonly sigPath: string;
}

function failed(domain: string, message: string): LockSignatureResult {
  return {
    valid: false,
    domain,
    toolId: LOCK_SIGNATURE_TOOL_ID,
    keyPinning: "not_checked",
    warnings: [],
    expired: false,
    signatureFormat: "document",
    errorCode: "SIGNATURE_INVALID",
    errorMessage: message,
  };
}

/**
 * Verifies `sigPath` over the lock with the key sources of `plan`. The trust inputs are
 * loaded first: a missing or malformed local trust file is bad input whatever the signature
 * file holds. A missing, oversized or malformed signature is a failed verification
 * (`SIGNATURE_INVALID`).
 *
 * @throws {SchemaPinError} for a trust input that cannot be used, or a signature file that
 *   exists but cannot be read (`IO_FAILED`).
 *
 * @example
 * ```ts ignore
 * import { checkLockSignature } from "./lock_signature_check.ts";
 * const result = await checkLockSignature({
 *   plan: { domain: "example.com", discovery: "schemapin.json", chain: [] },
 *   env: { read: (p) => Deno.readFile(p) },
 *   lockBytes: await Deno.readFile("contractpin.lock"),
 *   lockPath: "contractpin.lock",
 *   sigPath: "contractpin.lock.sig",
 *   trustFirstUse: true,
 * });
 * ```
 */
export async function checkLockSignature(
  options: CheckLockSignatureOptions,
): Promise<LockSignatureResult> {
  const { plan, lockPath, sigPath } = options;
  const lock = parseJson(options.lockBytes, lockPath);
  const { trust, dnsHook } = options.loaded ??
    await loadTrustAndDnsHook<SchemaVerificationResult>(plan, options.env);
  let sigBytes: Uint8Array;
  try {
    // A signature document is a few hundred bytes: a huge file is refused before reading it.
    const size = (await stat(sigPath)).size;
    if (size > MAX_LOCK_SIGNATURE_BYTES) {
      return failed(
        plan.domain,
        `${sigPath} is ${size} bytes: not a signature document (at most ${MAX_LOCK_SIGNATURE_BYTES})`,
      );
    }
    sigBytes = await readFile(sigPath);
  } catch (e) {
    if (isNotFound(e)) {
      return failed(
        plan.domain,
        `${sigPath} does not exist: the lock is not signed (sign it with ` +
          `\`schemapin contract sign --lock ${lockPath} --key PRIVATE.pem\`)`,
      );
    }
    throw new SchemaPinError("IO_FAILED", `cannot read ${sigPath}: ${describeFsError(e)}`, {
      path: sigPath,
    });
  }
  let signature: unknown;
  try {
    signature = parseJson(sigBytes, sigPath);
  } catch (e) {
    return failed(plan.domain, `${sigPath} is not a signature document: ${(e as Error).message}`);
  }
  const flow = trustFlowOptions(plan.domain, trust, options);
  const result = await verifyLockSignature({
    lock,
    signature,
    ...flow,
    ...(options.confirmFirstUse ? { confirmFirstUse: options.confirmFirstUse } : {}),
    sources: { ...flow.sources, signature: sigPath },
    ...(dnsHook ? { beforePin: dnsHook } : {}),
  });
  return withTrustInputs(result, trust);
}

/**
 * Whether a lock's signature is required, where it is, and the key sources (with `required`):
 * checked up front, before anything is read.
 *
 * @example
 * ```ts
 * import type { LockSignaturePlan } from "./lock_signature_check.ts";
 * const plan: LockSignaturePlan = { required: false, sigPath: "contractpin.lock.sig" };
 * ```
 */
export interface LockSignaturePlan<P extends TrustPlan = TrustPlan> {
  /** Whether the signature is required (and checked). */
  readonly required: boolean;
  /** The signature file (default {@linkcode lockSignaturePath}). */
  readonly sigPath: string;
  /** The key sources (with `required`). */
  readonly plan?: P;
}

/** How the signature of a lock fared, for the reports. */
export interface LockSignatureCheck {
  /** `valid`, `invalid`, or `not_checked` (not required). */
  readonly status: "valid" | "invalid" | "not_checked";
  /** Whether the signature was required. */
  readonly required: boolean;
  /** The signature file. */
  readonly file: string;
  /** The verification result, when checked. */
  readonly result?: LockSignatureResult;
  /** True when an explicit public key was the trust anchor. */
  readonly explicitKey?: boolean;
}

/**
 * Runs the check `sig` plans: `not_checked` when it is not required, else
 * {@linkcode checkLockSignature} as a {@linkcode LockSignatureCheck}.
 *
 * @throws {SchemaPinError} as {@linkcode checkLockSignature}.
 *
 * @example
 * ```ts ignore
 * import { runLockSignatureCheck } from "./lock_signature_check.ts";
 * const check = await runLockSignatureCheck(
 *   { required: true, sigPath: "contractpin.lock.sig", plan },
 *   { env, lockBytes, lockPath: "contractpin.lock" },
 * );
 * if (check.status !== "valid") console.error(check.result?.errorMessage);
 * ```
 */
export async function runLockSignatureCheck(
  sig: LockSignaturePlan,
  options: Omit<CheckLockSignatureOptions, "plan" | "sigPath">,
): Promise<LockSignatureCheck> {
  if (!sig.required || !sig.plan) {
    return { status: "not_checked", required: false, file: sig.sigPath };
  }
  const result = await checkLockSignature({ ...options, plan: sig.plan, sigPath: sig.sigPath });
  return {
    status: result.valid ? "valid" : "invalid",
    required: true,
    file: sig.sigPath,
    result,
    explicitKey: sig.plan.publicKey !== undefined,
  };
}
