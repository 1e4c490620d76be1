/**
 * Signed locks in the CLI (issue 17 item 2): `schemapin contract sign` writes `<lock>.sig`, a
 * SchemaPin 1.4 signature document over the lock (lib/contractpin/lock_signature.ts); the
 * helpers below let `contract verify --require-signature` and `guard --require-signed-lock`
 * check it with verify-schema's key sources before any server is contacted.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parseJson } from "../json/parse.ts";
import { formatSchemaSignatureDocument } from "../schema/document.ts";
import { DEFAULT_LOCK_FILE, parseLock } from "../contractpin/lock.ts";
import {
  LOCK_SIGNATURE_TOOL_ID,
  type LockSignatureResult,
  signLock,
  verifyLockSignature,
} from "../contractpin/lock_signature.ts";
import type { SchemaVerificationResult } from "../schema/verify.ts";
import { type FileFinding, githubCommand } from "../contractpin/report.ts";
import { defaultPinStorePath, FilePinStore } from "../pins/store.ts";
import { type CliIO, EXIT_OK, UsageError } from "./command.ts";
import { jsonOutput, verificationFields } from "./json_output.ts";
import { describeFsError, exists, readInput, writeFileAtomic } from "./io.ts";
import { parseWithTokens } from "./contract_shared.ts";
import { signatureMetadata } from "./signature_options.ts";
import { loadPrivateKey, PASSPHRASE_OPTIONS } from "./private_key.ts";
import {
  checkTrustFlags,
  confirmFirstUseWith,
  describeDnsCheck,
  describeVerifyWarning,
  failureHint,
  loadTrustAndDnsHook,
  PUBLIC_KEY_OPTIONS,
  reportInputFailure,
  requireDomainFlag,
  type TrustInputs,
  type TrustOptionValues,
  type TrustPlan,
} from "./schema_inputs.ts";
import { explicitKeyPinStore } from "../trust/load.ts";
import type { BeforePinHook } from "../schema/flow.ts";
import { BUNDLE_VERIFY_OPTIONS } from "./bundle_trust.ts";

const CMD = "contract sign";

/** The largest lock signature file read (a real one is under 1 KiB). */
const MAX_SIGNATURE_BYTES = 64 * 1024;

/** Help of `contract sign` (part of `schemapin contract --help`). */
export const CONTRACT_SIGN_HELP =
  `sign     signs the lock: writes LOCK.sig (default contractpin.lock.sig), a SchemaPin 1.4
         signature document whose schema_hash is SHA-256 of the lock's schemapin-v1
         canonical bytes (its values: reformatting the lock keeps the signature valid).
         Options as sign-schema: -k/--key PRIVATE.pem (PKCS#8, encrypted PKCS#8 or SEC1),
         --passphrase-file FILE, --domain D, --signer-kid KID, --expires-in DURATION (30d,
         12h, 2w) or --expires-at TIME (RFC 3339); --signature FILE writes elsewhere;
         -f/--force replaces an existing signature; --json. The signature is written
         atomically; nothing is written when anything fails.`;

/** Help lines of the lock-signature options of `contract verify`. */
export const VERIFY_SIGNATURE_HELP =
  `Signed locks (contract verify --require-signature): before any server is contacted, LOCK.sig
(--signature FILE) must be a valid signature of the lock by the key of --domain D, found as
verify-schema finds it: --public-key FILE, --discovery FILE [--revocation FILE], or a chain of
--bundle FILE, --resolver-dir DIR and --well-known [--ca-file FILE]; with --dns
[--dns-server IP[:PORT]], --pin-store FILE, --trust-first-use, --allow-expired,
--allow-missing-revocation and the --authority… options of verify-schema. The key is pinned
as ${LOCK_SIGNATURE_TOOL_ID}@DOMAIN (first use: asked on a terminal, else --trust-first-use or
\`schemapin pins add ${LOCK_SIGNATURE_TOOL_ID}@DOMAIN --fingerprint …\`). A missing, malformed,
tampered, expired, revoked or wrongly signed lock fails (exit 1) and no server is contacted.
--timeout stays the MCP request timeout; --well-known uses its default deadlines. Without
--require-signature the signature is not read, and these options are refused.`;

/** The parseArgs options of a lock-signature check (verify-schema's key sources). */
export const LOCK_TRUST_OPTIONS = {
  domain: { type: "string" },
  discovery: { type: "string" },
  ...PUBLIC_KEY_OPTIONS,
  bundle: { type: "string" },
  ...BUNDLE_VERIFY_OPTIONS,
  "well-known": { type: "boolean" },
  "resolver-dir": { type: "string" },
  dns: { type: "boolean" },
  "dns-server": { type: "string" },
  "ca-file": { type: "string" },
  revocation: { type: "string" },
  "pin-store": { type: "string" },
  "trust-first-use": { type: "boolean" },
  "allow-expired": { type: "boolean" },
  "allow-missing-revocation": { type: "boolean" },
} as const;

/** The flag values a lock-signature check reads. */
export type LockTrustValues = TrustOptionValues & {
  domain?: string;
  "allow-expired"?: boolean;
};

/** The default signature file of a lock: `<lock>.sig`. */
export function lockSignaturePath(lockPath: string): string {
  return `${lockPath}.sig`;
}

/**
 * After `contract init` or `approve` rewrote the lock: when `<lock>.sig` exists it no longer
 * covers the lock; say so on stderr (it is kept: the signer renews it). Returns whether it
 * exists.
 */
export async function warnStaleLockSignature(lockPath: string, io: CliIO): Promise<boolean> {
  const sigPath = lockSignaturePath(lockPath);
  if (!(await exists(sigPath))) return false;
  await io.stderr(
    `warning: ${sigPath} no longer covers ${lockPath}; renew it with ` +
      "`schemapin contract sign`\n",
  );
  return true;
}

/**
 * Checks the key-source flags of a lock-signature check (`--domain` required) without reading
 * anything. `values.timeout` is not a network deadline here (contract verify's `--timeout`
 * is the MCP one), so it is left out of the plan.
 */
export function checkLockTrustFlags(
  command: string,
  values: LockTrustValues,
  args: readonly string[],
): TrustPlan {
  const domain = requireDomainFlag(command, values.domain);
  return checkTrustFlags(command, { ...values, timeout: undefined }, domain, args);
}

/** The trust flags given in `values` (for "goes with --require-signature" errors). */
export function givenLockTrustFlags(values: object): string[] {
  const v = values as Record<string, unknown>;
  return Object.keys(LOCK_TRUST_OPTIONS).filter((k) => v[k] !== undefined);
}

function failed(domain: string, code: "SIGNATURE_INVALID", message: string): LockSignatureResult {
  return {
    valid: false,
    domain,
    toolId: LOCK_SIGNATURE_TOOL_ID,
    keyPinning: "not_checked",
    warnings: [],
    expired: false,
    signatureFormat: "document",
    errorCode: code,
    errorMessage: message,
  };
}

/**
 * Verifies `sigPath` over the lock (read and validated by the caller)
 * with the key sources of `plan`. A missing, unreadable-as-JSON or malformed signature is a
 * failed verification (`SIGNATURE_INVALID`); an unreadable lock or a bad local trust file
 * throws (`SchemaPinError`, exit 2 — see `reportInputFailure`).
 */
export async function checkLockSignature(ctx: {
  plan: TrustPlan;
  values: LockTrustValues;
  /** The lock file's bytes (already validated by the caller), and its name. */
  lockBytes: Uint8Array;
  lockPath: string;
  sigPath: string;
  io: CliIO;
  /** Asks on a terminal about a first-use key (contract verify); none in the guard. */
  ask?: (question: string) => Promise<string | undefined>;
  /** Trust inputs already loaded from `plan` (the guard loads them once for both checks). */
  loaded?: LoadedTrust;
}): Promise<LockSignatureResult> {
  const { plan, values, lockPath, sigPath, io } = ctx;
  const lock = parseJson(ctx.lockBytes, lockPath);
  // The trust inputs first: a missing or malformed local trust file is bad input (exit 2)
  // whatever the signature file holds.
  const { trust, dnsHook } = ctx.loaded ??
    await loadTrustAndDnsHook<SchemaVerificationResult>(plan, io);
  let sigBytes: Uint8Array;
  try {
    // A signature document is a few hundred bytes: a huge file is refused before reading it.
    const size = Deno.statSync(sigPath).size;
    if (size > MAX_SIGNATURE_BYTES) {
      return failed(
        plan.domain,
        "SIGNATURE_INVALID",
        `${sigPath} is ${size} bytes: not a signature document (at most ${MAX_SIGNATURE_BYTES})`,
      );
    }
    sigBytes = Deno.readFileSync(sigPath);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      return failed(
        plan.domain,
        "SIGNATURE_INVALID",
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
    return failed(
      plan.domain,
      "SIGNATURE_INVALID",
      `${sigPath} is not a signature document: ${(e as Error).message}`,
    );
  }
  const pinStore = trust.explicitKey !== undefined
    ? explicitKeyPinStore(trust.explicitKey)
    : new FilePinStore(values["pin-store"] ?? defaultPinStorePath());
  const result = await verifyLockSignature({
    lock,
    signature,
    domain: plan.domain,
    discovery: trust.discovery,
    revocation: trust.revocation,
    pinStore,
    trustFirstUse: values["trust-first-use"] === true,
    allowExpired: values["allow-expired"] === true,
    allowMissingRevocation: values["allow-missing-revocation"] === true,
    ...(ctx.ask ? { confirmFirstUse: confirmFirstUseWith(ctx.ask) } : {}),
    sources: {
      discovery: trust.discoverySource,
      revocation: trust.revocationSource,
      signature: sigPath,
    },
    ...(dnsHook ? { beforePin: dnsHook } : {}),
  });
  result.discoverySource = trust.discoverySource;
  result.warnings.push(...(trust.warnings ?? []));
  // --public-key: no pin was consulted or written (the store only names the key).
  if (trust.explicitKey !== undefined) result.keyPinning = "not_checked";
  return result;
}

/** Trust inputs loaded from a plan, and the DNS cross-check hook when `--dns` was given. */
export interface LoadedTrust {
  readonly trust: TrustInputs;
  readonly dnsHook: BeforePinHook<SchemaVerificationResult> | undefined;
}

/** What `--require-signature` (or `--require-signed-lock`) asks for, checked up front. */
export interface LockSignaturePlan {
  /** Whether the signature is required (and checked). */
  readonly required: boolean;
  /** The signature file: `--signature FILE`, else `<lock>.sig`. */
  readonly sigPath: string;
  /** The key sources (with `required`). */
  readonly plan?: TrustPlan;
}

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
): LockSignaturePlan {
  if (!required) {
    const given = [
      ...givenLockTrustFlags(values),
      ...(values.signature !== undefined ? ["signature"] : []),
    ];
    if (given.length > 0) {
      throw new UsageError(`${command}: --${given[0]} goes with ${requireFlag}`);
    }
    return { required, sigPath: lockSignaturePath(lockPath) };
  }
  if (values.signature === "" || values.signature === "-") {
    throw new UsageError(`${command}: --signature must name a file`);
  }
  if (values.signature === undefined && lockPath === "-") {
    throw new UsageError(`${command}: with --lock -, give the signature file with --signature`);
  }
  const plan = checkLockTrustFlags(command, values, args);
  return { required, sigPath: values.signature ?? lockSignaturePath(lockPath), plan };
}

/**
 * Runs the check `sig` plans (nothing when not required): the check, or the exit code of a
 * local input that could not be used (a bad trust file: exit 2, reported; a network document
 * that failed: exit 1).
 */
export async function runLockSignatureCheck(
  sig: LockSignaturePlan,
  ctx: {
    values: LockTrustValues;
    lockBytes: Uint8Array;
    lockPath: string;
    io: CliIO;
    json: boolean;
    ask?: (question: string) => Promise<string | undefined>;
    loaded?: LoadedTrust;
  },
): Promise<LockSignatureCheck | number> {
  if (!sig.required || !sig.plan) {
    return { status: "not_checked", required: false, file: sig.sigPath };
  }
  let result: LockSignatureResult;
  try {
    result = await checkLockSignature({ ...ctx, plan: sig.plan, sigPath: sig.sigPath });
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return await reportInputFailure(e, ctx.json, ctx.io);
  }
  return {
    status: result.valid ? "valid" : "invalid",
    required: true,
    file: sig.sigPath,
    result,
    explicitKey: sig.plan.publicKey !== undefined,
  };
}

/** How the signature of a lock fared, for the reports. */
export interface LockSignatureCheck {
  /** `valid`, `invalid`, or `not_checked` (no --require-signature). */
  readonly status: "valid" | "invalid" | "not_checked";
  /** Whether --require-signature was given. */
  readonly required: boolean;
  /** The signature file. */
  readonly file: string;
  /** The verification result, when checked. */
  readonly result?: LockSignatureResult;
  /** True when an explicit --public-key was the trust anchor. */
  readonly explicitKey?: boolean;
}

const RESULT_KEYS = [
  "domain",
  "toolId",
  "keyFingerprint",
  "keyPinning",
  "pinnedFingerprint",
  "schemaHash",
  "signedAt",
  "signerKid",
  "expired",
  "expiresAt",
  "warnings",
  "unprotectedFields",
  "discoverySource",
  "dns",
] as const satisfies readonly (keyof LockSignatureResult)[];

/** The `lock_signature` object of `contract verify --json`. */
export function lockSignatureJson(check: LockSignatureCheck): Record<string, unknown> {
  const out: Record<string, unknown> = {
    status: check.status,
    required: check.required,
    file: check.file,
  };
  if (check.result) {
    const { ok: _ok, schema_hash, ...fields } = verificationFields(check.result, RESULT_KEYS);
    Object.assign(out, fields, schema_hash !== undefined ? { lock_hash: schema_hash } : {});
  }
  return out;
}

/** What the key check was, in words. */
function pinWords(check: LockSignatureCheck): string {
  const r = check.result!;
  if (check.explicitKey) return "key from --public-key, not pinned";
  return r.keyPinning === "first_use" ? "pinned on first use" : "pin matches";
}

/**
 * One line stating the result (human report, annotations); without `full`, a failure is
 * named by its code only (the message then goes to stderr).
 */
export function lockSignatureLine(check: LockSignatureCheck, full = true): string {
  const r = check.result;
  if (check.status === "not_checked" || !r) return `lock signature: not checked`;
  if (r.valid) {
    return `lock signature: ok ${check.file}: signed by ${r.keyFingerprint} for ` +
      `${LOCK_SIGNATURE_TOOL_ID}@${r.domain} (${pinWords(check)})` +
      (r.expired ? " — EXPIRED, accepted because of --allow-expired" : "");
  }
  return `lock signature: FAIL ${check.file}: ${r.errorCode}` + (full ? `: ${r.errorMessage}` : "");
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
  if (!r.valid) {
    const hint = failureHint(r).trimStart();
    const message = r.errorMessage?.startsWith(check.file)
      ? r.errorMessage
      : `${check.file}: ${r.errorMessage}`;
    await io.stderr(
      `error: ${prefix}${r.errorCode}: ${message}` +
        (hint ? `\n${hint}` : "") + "\n",
    );
  }
}

/**
 * The SARIF result of a checked lock signature (rule `contractpin/lock-signature`) for
 * `formatSarif`'s `fileFindings`: an error when it failed, a note when it verified, nothing
 * when it was not checked.
 */
export function lockSignatureSarif(check: LockSignatureCheck): FileFinding[] {
  if (check.status === "not_checked" || !check.result) return [];
  return [{
    rule: "lock-signature",
    ruleText: "The lock's signature (LOCK.sig) must verify with the publisher's key.",
    level: check.status === "invalid" ? "error" : "note",
    file: check.file,
    message: lockSignatureLine(check),
  }];
}

/** The GitHub workflow command of a checked lock signature (`::error` or `::notice`). */
export function lockSignatureGithubLine(check: LockSignatureCheck): string {
  if (check.status === "not_checked" || !check.result) return "";
  const command = check.status === "invalid" ? "error" : "notice";
  return githubCommand(
    command,
    check.file,
    1,
    "contract lock signature",
    lockSignatureLine(check),
  ) +
    "\n";
}

// ---------------------------------------------------------------------------------------------
// contract sign

const OPTIONS = {
  lock: { type: "string" },
  key: { type: "string" },
  ...PASSPHRASE_OPTIONS,
  domain: { type: "string" },
  "signer-kid": { type: "string" },
  "expires-in": { type: "string" },
  "expires-at": { type: "string" },
  signature: { type: "string" },
  force: { type: "boolean" },
  json: { type: "boolean" },
  quiet: { type: "boolean" },
} as const;

/** Runs `schemapin contract sign`. */
export async function runContractSign(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseWithTokens(CMD, args, OPTIONS);
  if (positionals.length) {
    throw new UsageError(`${CMD}: unexpected argument ${JSON.stringify(positionals[0])}`);
  }
  if (!values.key) throw new UsageError(`${CMD}: --key PRIVATE.pem is required`);
  const lockPath = values.lock ?? DEFAULT_LOCK_FILE;
  if (lockPath === "-" || lockPath === "") {
    throw new UsageError(`${CMD}: --lock must name the lock file (the signature goes next to it)`);
  }
  if (values.signature === "" || values.signature === "-") {
    throw new UsageError(`${CMD}: --signature must name a file`);
  }
  const sigPath = values.signature ?? lockSignaturePath(lockPath);
  const now = Math.floor(Date.now() / 1000) * 1000; // whole seconds in signed_at
  const options = signatureMetadata(CMD, values, now);
  // The one rule for outputs (lib/cli/flags.ts): an existing signature is replaced only with
  // --force — checked before the key (and its passphrase) is asked for.
  if (!values.force) {
    let present = false;
    try {
      Deno.lstatSync(sigPath);
      present = true;
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) {
        throw new SchemaPinError("IO_FAILED", `cannot check ${sigPath}: ${describeFsError(e)}`, {
          path: sigPath,
        });
      }
    }
    if (present) {
      throw new SchemaPinError(
        "IO_FAILED",
        `${sigPath} already exists; nothing was written — add --force to replace it`,
        { path: sigPath },
      );
    }
  }
  const bytes = await readInput(lockPath, io);
  parseLock(bytes, lockPath); // a corrupt lock is bad input (exit 2), naming the file
  const lock = parseJson(bytes, lockPath);
  const key = await loadPrivateKey(values.key, io, {
    command: CMD,
    passphraseFile: values["passphrase-file"],
  });
  const document = signLock(lock, key, options);
  await writeFileAtomic(sigPath, formatSchemaSignatureDocument(document), {
    overwrite: values.force === true,
  });
  if (values.json) {
    await io.stdout(jsonOutput("contract.sign", {
      ok: true,
      lock: lockPath,
      signature_file: sigPath,
      lock_hash: document.schema_hash,
      key_fingerprint: key.publicKey.fingerprint,
      document,
    }));
  } else if (!values.quiet) {
    await io.stdout(
      `signed ${lockPath} (${document.schema_hash}) with ${key.publicKey.fingerprint}\n` +
        `wrote ${sigPath}\n`,
    );
  }
  return EXIT_OK;
}
