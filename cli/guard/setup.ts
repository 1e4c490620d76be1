/**
 * What the guard enforces, decided before anything is started: the lock entry of the server
 * (and the entries pinned for the same command or URL with other client capabilities, so a
 * client is checked against its own), the lock's signature (`--require-signed-lock`), and the
 * trust of the tools' signatures (`--signatures`) — the trust documents loaded once for both,
 * so one fetch serves both checks and they judge against the same documents. Then
 * {@linkcode GuardSetup.core} builds the {@linkcode GuardCore} the transports run.
 *
 * @module
 */
import { resolve } from "node:path";
import { SchemaPinError } from "../../lib/errors.ts";
import { identityOf, parseLock } from "../../lib/contractpin/lock.ts";
import { sameIdentity } from "../../lib/contractpin/verify.ts";
import {
  type LockSignatureCheck,
  lockSignaturePath,
  type LockSignatureVerifyOptions,
  runLockSignatureCheck,
} from "../contractpin/lock_signature_check.ts";
import { lockSignatureLine } from "../contractpin/lock_signature_report.ts";
import type { SchemaVerificationResult } from "../../lib/schema/verify.ts";
import {
  type LoadedTrust,
  loadTrustAndDnsHook,
  type TrustEnv,
  trustFlowOptions,
  type TrustPlan,
} from "../../lib/trust/load.ts";
import type { AuditLog } from "../../lib/guard/audit.ts";
import { type GuardMode, GuardPolicy, type LockPolicy } from "../../lib/guard/policy.ts";
import type { LineageToolTrust, ToolTrust } from "../../lib/guard/signatures.ts";
import type { LineageStore } from "../../lib/pins/lineage.ts";
import { skillSignatureStartNote } from "../../lib/guard/skills_signature.ts";
import type { GuardCore } from "../../lib/guard/core.ts";
import { CliGuardCore } from "./remedy_text.ts";

/** The lock the guard enforces. */
export interface GuardLockOptions {
  /** The lock file (read once with the environment's reader: `-` may be stdin). */
  readonly path: string;
  /** The server's entry in the lock. */
  readonly server?: string;
  /**
   * Picks the entry when `server` is not given and the lock does not pin exactly one server:
   * returns a name, or throws (default: `INPUT_INVALID` listing the servers).
   */
  readonly chooseServer?: (servers: readonly string[]) => string;
}

/** Inputs of {@linkcode prepareGuard}. */
export interface GuardSetupOptions {
  /** Compare every tool list with this lock entry. */
  readonly lock?: GuardLockOptions;
  /** The key sources of the signatures and of the lock's signature. */
  readonly trust?: TrustPlan;
  /** Refuse to start unless the lock's signature (`<lock>.sig`) verifies (needs `lock`). */
  readonly requireSignedLock?: boolean;
  /** Require a valid SchemaPin signature on every tool. */
  readonly signatures?: boolean;
  /** How keys are judged (pins, first use, expiry, revocation); nobody is asked. */
  readonly verify?: Omit<LockSignatureVerifyOptions, "confirmFirstUse">;
  /** Hidden text in a tool definition fails the tool. */
  readonly strictText?: boolean;
  /**
   * Refuse every skill whose lock item records no verified signature (needs `lock`; docs/guard.md,
   * "Skills served over MCP").
   */
  readonly requireSkillSignature?: boolean;
  /**
   * With `signatures`: each signed tool must also be the latest known release or extend it
   * (§18.4), checked and moved forward in this store.
   */
  readonly lineage?: LineageStore;
}

/** What {@linkcode prepareGuard} decided. */
export interface GuardSetup {
  /** The lock entry enforced. */
  readonly lock?: LockPolicy;
  /** The entries for the same server pinned with other client capabilities, by their names. */
  readonly variants: ReadonlyMap<string, LockPolicy>;
  /**
   * The lock's signature, when required. Unless it is `valid` the guard must not start, and
   * nothing else was prepared.
   */
  readonly lockSignature?: LockSignatureCheck;
  /** The trust of the tools' signatures. */
  readonly signatures?: ToolTrust;
  /** Warnings of loading the trust documents for the signatures. */
  readonly trustWarnings: readonly string[];
  /**
   * What the guard checks, for its `started` audit line: the lock entry, the lock's valid
   * signature and the tools' signatures, joined by ` and ` (empty when none).
   */
  readonly checks: string;
  /**
   * With `requireSkillSignature`: what to say at start-up when the lock entry lets no skill
   * (or not every skill) pass (`skillSignatureStartNote`, ./skills_signature.ts).
   */
  readonly skillSignatureNote?: string;
  /** The guard core for these checks (the policy per client capabilities included). */
  core(options: { mode: GuardMode; log: AuditLog; serverName: string }): GuardCore;
}

/** The lock entry `options` names, and its variants. */
function chooseLock(
  bytes: Uint8Array,
  options: GuardLockOptions,
): { lock: LockPolicy; variants: Map<string, LockPolicy> } {
  const file = options.path;
  // A corrupt lock's error names the command that re-creates it where the guard prints it
  // (reportInputFailure, cli/library_words.ts).
  const parsed = parseLock(bytes, file);
  const names = Object.keys(parsed.servers);
  let name = options.server;
  if (name === undefined) {
    if (names.length === 1) name = names[0];
    else if (options.chooseServer) name = options.chooseServer(names);
    else {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${file} pins ${names.length} servers; name the one to guard` +
          (names.length ? ` (${names.join(", ")})` : ""),
        { path: file },
      );
    }
  }
  if (!Object.hasOwn(parsed.servers, name)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${file} has no server ${JSON.stringify(name)} (it pins: ${names.join(", ") || "none"}); ` +
        `pin it first with \`schemapin contract init --server ${name} -- …\``,
    );
  }
  const lock = { serverName: name, entry: parsed.servers[name], file: resolve(file) };
  // Entries for the same command or URL pinned with other client capabilities
  // (contract init --client-capabilities): a client is checked against its own.
  const variants = new Map<string, LockPolicy>(); // by capability names, comma-joined
  const chosen = identityOf(parsed.servers[name]);
  for (const [other, entry] of Object.entries(parsed.servers)) {
    if (!sameIdentity(identityOf(entry), chosen)) continue;
    const key = (entry.client_capabilities ?? []).join(",");
    if (other === name || !variants.has(key)) {
      variants.set(key, { serverName: other, entry, file: resolve(file) });
    }
  }
  return { lock, variants };
}

/**
 * Decides what the guard enforces, in this order, and before anything is started: the lock
 * entry (read once: with a signed lock, the bytes whose signature is checked are the lock
 * that is enforced), the trust documents (local files first, then the network), the lock's
 * signature, then the trust of the tools' signatures.
 *
 * @throws {SchemaPinError} for a lock or trust input that cannot be used, or what
 *   `lock.chooseServer` throws.
 *
 * @example
 * ```ts ignore
 * import { prepareGuard } from "./setup.ts";
 * const setup = await prepareGuard(
 *   { lock: { path: "contractpin.lock", server: "acme" } },
 *   { read: (p) => Deno.readFile(p) },
 * );
 * const core = setup.core({ mode: "enforce", log, serverName: "acme" });
 * ```
 */
export async function prepareGuard(
  options: GuardSetupOptions,
  env: TrustEnv,
): Promise<GuardSetup> {
  const plan = options.trust;
  const verify = options.verify ?? {};
  let lockFile: { path: string; bytes: Uint8Array } | undefined;
  let chosen: { lock?: LockPolicy; variants: Map<string, LockPolicy> } = { variants: new Map() };
  if (options.lock) {
    const bytes = await env.read(options.lock.path);
    chosen = chooseLock(bytes, options.lock);
    lockFile = { path: options.lock.path, bytes };
  }
  const { lock, variants } = chosen;
  const strictText = options.strictText === true;
  const requireSkillSignature = options.requireSkillSignature === true && lock !== undefined;
  const skillSignatureNote = requireSkillSignature
    ? skillSignatureStartNote(lock!.entry.skills)
    : undefined;
  let loaded: LoadedTrust<SchemaVerificationResult> | undefined;
  const setup = (signatures?: ToolTrust, lockSignature?: LockSignatureCheck): GuardSetup => ({
    lock,
    variants,
    lockSignature,
    signatures,
    trustWarnings: signatures ? loaded?.trust.warnings ?? [] : [],
    checks: [
      lock ? `lock ${lock.file} (${lock.serverName})` : "",
      lockSignature?.status === "valid" ? lockSignatureLine(lockSignature) : "",
      signatures ? `signatures of ${signatures.domain}` : "",
      requireSkillSignature ? "skill signatures recorded in the lock" : "",
    ].filter(Boolean).join(" and "),
    ...(skillSignatureNote !== undefined ? { skillSignatureNote } : {}),
    core: ({ mode, log, serverName }) => {
      const variantPolicies = new Map(
        [...variants].map((
          [key, l],
        ) => [key, new GuardPolicy({ lock: l, signatures, strictText, requireSkillSignature })]),
      );
      return new CliGuardCore({
        policy: new GuardPolicy({ lock, signatures, strictText, requireSkillSignature }),
        mode,
        log,
        serverName,
        policyFor: (caps) => variantPolicies.get(caps.join(",")),
      });
    },
  });

  if (plan && (options.requireSignedLock || options.signatures)) {
    loaded = await loadTrustAndDnsHook<SchemaVerificationResult>(plan, env);
  }

  let lockSignature: LockSignatureCheck | undefined;
  if (options.requireSignedLock && plan && lockFile) {
    lockSignature = await runLockSignatureCheck(
      { required: true, sigPath: lockSignaturePath(lockFile.path), plan },
      { ...verify, env, lockBytes: lockFile.bytes, lockPath: lockFile.path, loaded },
    );
    if (lockSignature.status !== "valid") return setup(undefined, lockSignature);
  }

  let signatures: LineageToolTrust | undefined;
  if (plan && options.signatures && loaded) {
    const { trust, dnsHook } = loaded;
    signatures = {
      ...trustFlowOptions(plan.domain, trust, verify),
      ...(dnsHook ? { beforePin: dnsHook } : {}),
      ...(options.lineage ? { lineage: options.lineage } : {}),
    };
  }
  return setup(signatures, lockSignature);
}
