/**
 * The CLI side of a lock's signature check (cli/contractpin/lock_signature_check.ts), shared by
 * `contract verify --require-signed-lock`, `guard --require-signed-lock` and the commands that
 * rewrite a lock: its flags and their plan, the run of a planned check with the flags' options
 * (an input that cannot be used reported with its exit code), the stderr notes and the
 * stale-signature warning. The line, SARIF result and GitHub command are the library's
 * (cli/contractpin/lock_signature_report.ts); the `lock_signature` JSON object is
 * cli/contractpin/json_fields.ts's.
 *
 * @module
 */
import type { TrustOptionValues } from "../trust/plan.ts";
import { describeVerifyWarning } from "../schema/verify_notes.ts";
import { describeDnsCheck } from "../dns/check_text.ts";
import { LOCK_SIGNATURE_TOOL_ID } from "../contractpin/lock_signature.ts";
import {
  type LockSignatureCheck,
  lockSignatureFile,
  lockSignaturePath,
  type LockSignaturePlan,
  runLockSignatureCheck as runCheck,
} from "../contractpin/lock_signature_check.ts";
import { lockSignatureFailure } from "../contractpin/lock_signature_report.ts";
import type { SchemaVerificationResult } from "../../lib/schema/verify.ts";
import type { LoadedTrust } from "../../lib/trust/load.ts";
import { asUsage, type CliIO, UsageError } from "./command.ts";
import {
  checkTrustFlags,
  confirmFirstUseWith,
  reportInputFailure,
  requireDomainFlag,
  trustEnv,
  type TrustPlan,
} from "./schema_inputs.ts";
import { failureHint } from "../trust/failure_hint.ts";
import type { FlagTable } from "../args/flags.ts";
import {
  DNS_FLAGS,
  EXPIRY_FLAGS,
  KEY_SOURCE_FLAGS,
  PIN_FLAGS,
  VERIFY_DOMAIN_FLAGS,
} from "./flag_groups.ts";

/**
 * The flags of a lock-signature check (`contract verify --require-signed-lock`, `guard
 * --require-signed-lock`): verify-schema's key sources, DNS cross-check, pins and expiry.
 * There is no network `--timeout` here: `contract verify --timeout` is the MCP one.
 */
export const LOCK_TRUST_FLAGS = {
  domain: {
    ...VERIFY_DOMAIN_FLAGS.domain,
    help: "the publisher's domain (RFC 1123 host name): its key must have signed the lock " +
      `(required; the pin key ${LOCK_SIGNATURE_TOOL_ID}@DOMAIN)`,
  },
  ...KEY_SOURCE_FLAGS,
  ...DNS_FLAGS,
  ...PIN_FLAGS,
  ...EXPIRY_FLAGS,
} as const satisfies FlagTable;

/** The flag values a lock-signature check reads. */
type LockTrustValues = TrustOptionValues & { domain?: string; "allow-expired"?: boolean };

/**
 * The lock-signature flags of `command`, checked without reading anything: with
 * `requireFlag` given, `--domain D` and a key source are required; without it, every
 * key-source flag is a usage error (the signature is not read, so they would be ignored).
 */
export function planLockSignature(
  command: string,
  requireFlag: string,
  required: boolean,
  values: LockTrustValues & { signature?: string },
  args: readonly string[],
  lockPath: string,
): LockSignaturePlan<TrustPlan> {
  if (!required) {
    const v = values as Record<string, unknown>;
    const given = [...Object.keys(LOCK_TRUST_FLAGS), "signature"].filter((k) => v[k] !== undefined);
    if (given.length > 0) {
      throw new UsageError(`${command}: --${given[0]} goes with ${requireFlag}`);
    }
    return { required, sigPath: lockSignaturePath(lockPath) };
  }
  const sigPath = asUsage(command, () => lockSignatureFile(lockPath, values.signature));
  const domain = requireDomainFlag(command, values.domain);
  // `values.timeout` is not a network deadline here (contract verify's `--timeout` is the MCP
  // one), so it is left out of the plan.
  const plan = checkTrustFlags(command, { ...values, timeout: undefined }, domain, args);
  return { required, sigPath, plan };
}

/**
 * After `contract init` or `approve` rewrote the lock: the signature next to it (`sigPath`,
 * cli/contractpin/lock_signature_check.ts `staleLockSignature`) no longer covers it; say so on
 * stderr (it is kept: the signer renews it). Nothing when there is none.
 */
export async function warnStaleLockSignature(
  sigPath: string | undefined,
  lockPath: string,
  io: CliIO,
): Promise<void> {
  if (sigPath === undefined) return;
  await io.stderr(
    `warning: ${sigPath} no longer covers ${lockPath}; renew it with ` +
      "`schemapin contract sign`\n",
  );
}

/**
 * Runs the check `sig` plans (nothing when not required) with the flags' verification options:
 * the check, or the exit code of a local input that could not be used (a bad trust file:
 * exit 2, reported; a network document that failed: exit 1).
 *
 * @example
 * ```ts ignore
 * const sig = planLockSignature(CMD, "--require-signed-lock", true, values, args, lockPath);
 * const check = await runLockSignatureCheck(sig, { values, lockBytes, lockPath, io, json });
 * if (typeof check === "number") return check;
 * ```
 */
export async function runLockSignatureCheck(
  sig: LockSignaturePlan<TrustPlan>,
  ctx: {
    values: LockTrustValues;
    lockBytes: Uint8Array;
    lockPath: string;
    io: CliIO;
    json: boolean;
    ask?: (question: string) => Promise<string | undefined>;
    loaded?: LoadedTrust<SchemaVerificationResult>;
  },
): Promise<LockSignatureCheck | number> {
  const { values } = ctx;
  if (!sig.required || !sig.plan) {
    return { status: "not_checked", required: false, file: sig.sigPath };
  }
  try {
    return await runCheck(sig, {
      env: trustEnv(sig.plan, ctx.io),
      lockBytes: ctx.lockBytes,
      lockPath: ctx.lockPath,
      ...(ctx.loaded ? { loaded: ctx.loaded } : {}),
      pinStore: values["pin-store"],
      trustFirstUse: values["trust-first-use"] === true,
      allowExpired: values["allow-expired"] === true,
      allowMissingRevocation: values["allow-missing-revocation"] === true,
      ...(ctx.ask ? { confirmFirstUse: confirmFirstUseWith(ctx.ask) } : {}),
    });
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return await reportInputFailure(e, ctx.json, ctx.io);
  }
}

/** The warnings, DNS line and hint of a check, for stderr. */
export async function printLockSignatureNotes(
  check: LockSignatureCheck,
  io: CliIO,
  prefix = "",
): Promise<void> {
  const r = check.result;
  if (!r) return;
  for (const w of r.warnings) {
    await io.stderr(
      `warning: ${prefix}lock signature: ${describeVerifyWarning(w, r.unprotectedFields)}\n`,
    );
  }
  if (r.dns) await io.stderr(`${prefix}lock signature ${describeDnsCheck(r.dns)}\n`);
  const failure = lockSignatureFailure(check);
  if (failure !== undefined) {
    const hint = failureHint(r).trimStart();
    await io.stderr(`error: ${prefix}${failure}` + (hint ? `\n${hint}` : "") + "\n");
  }
}
