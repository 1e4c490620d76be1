/**
 * The seven-step offline verification flow of §15.1, shared by everything SchemaPin signs:
 * tool schemas (`verifySchemaOffline`) and skill folders (`verifySkillOffline`). What is
 * verified — how it is hashed and how its signature is checked — is a
 * {@linkcode OfflineSubject}; the order and every trust decision live here, once.
 *
 * Order, strictly:
 * 0. validate the caller's `domain` (§9) and, when given, the tool id; check the caller's
 *    canonicalization identifier (§19.3); let the subject parse its signature and check the
 *    identifier the signature declares — all before any key loading or cryptography;
 * 1. validate the discovery document;
 * 2. parse its public key and compute the fingerprint;
 * 3. check revocation: the discovery `revoked_keys` and the standalone revocation document
 *    (either revokes, §8.7); a declared `revocation_endpoint` without a document fails closed
 *    (§9) unless `allowMissingRevocation`;
 * 4. compare the fingerprint with the pin of `toolId@domain` — without writing;
 * 5–6. the subject hashes what was signed and verifies the signature; then expiry (§16.2):
 *    fail closed more than 300 s past `expires_at`, or when it is not strict RFC 3339;
 * 7. only now, on first use, pin — when the caller opted in (`trustFirstUse`) or the user
 *    confirmed (`confirmFirstUse`) — after an optional before-pin hook (A2A scope, DNS).
 *
 * A failed verification never writes a pin. The validated `domain` argument is the only source
 * of the pin key and of the reported domain.
 *
 * @module
 */
import { type ErrorCode, SchemaPinError, type StepFailure } from "../errors.ts";
import { SCHEMAPIN_V1 } from "../json/canonical_schemapin.ts";
import type { PublicKey } from "../crypto/keys.ts";
import { checkDomain } from "../dns/domain.ts";
import {
  type DiscoveryDocument,
  loadDiscoveryKey,
  parseDiscoveryDocument,
} from "../discovery/document.ts";
import {
  checkRevocation,
  parseRevocationDocument,
  type RevocationDocument,
} from "../revocation/document.ts";
import {
  addPinIfAbsent,
  checkToolId,
  makePinRecord,
  pinKey,
  type PinStore,
} from "../pins/store.ts";
import type { BatchPinStore } from "../pins/batch.ts";
import { formatRfc3339, parseRfc3339 } from "../time/rfc3339.ts";
import { checkMethods } from "../arguments.ts";

/** Clock-skew allowance for `expires_at` (§16.2): 300 seconds. */
export const EXPIRY_SKEW_MS = 300_000;

/** What a first-use confirmation is asked about. */
export interface FirstUseInfo {
  /** The tool id. */
  readonly toolId: string;
  /** The validated domain. */
  readonly domain: string;
  /** The key's `sha256:` fingerprint — what the user should compare out of band. */
  readonly fingerprint: string;
  /** The discovery document's developer name. */
  readonly developerName: string;
  /** The key, PEM. */
  readonly publicKeyPem: string;
}

/**
 * Where verification stands with the pin of `tool_id@domain`:
 * `pinned` (matches an existing pin), `first_use` (pinned now, by opt-in or confirmation),
 * `mismatch` (`KEY_PIN_MISMATCH`), `first_use_declined` (no pin; not confirmed), `not_pinned`
 * (first use, but verification failed before the pin step, so nothing was written),
 * `not_checked` (failed before step 4).
 */
export type KeyPinningStatus =
  | "pinned"
  | "first_use"
  | "mismatch"
  | "first_use_declined"
  | "not_pinned"
  | "not_checked";

/** The trust inputs of the flow, common to schema and skill verification. */
export interface OfflineFlowOptions {
  /** The tool's domain, validated (§9); the only source of the pin key. */
  domain: string;
  /** The parsed `.well-known/schemapin.json` discovery document. */
  discovery: unknown;
  /** The parsed standalone revocation document (§8.5), if one applies. */
  revocation?: unknown;
  /** Where pins live. */
  pinStore: PinStore;
  /** Pin an unknown key automatically after it verifies (explicit opt-in; default false). */
  trustFirstUse?: boolean;
  /**
   * Asked after the signature verified when the tool has no pin (and `trustFirstUse` is not
   * set): resolve `true` to pin. Without it (and without `trustFirstUse`) first use fails
   * with `KEY_NOT_FOUND` and nothing is pinned.
   */
  confirmFirstUse?: (info: FirstUseInfo) => boolean | Promise<boolean>;
  /** Accept an expired signature as valid with a warning (§16.2; default false). */
  allowExpired?: boolean;
  /**
   * Accept a discovery document that declares a `revocation_endpoint` when no revocation
   * document is supplied (air-gapped opt-out, §9; default false = fail closed).
   */
  allowMissingRevocation?: boolean;
  /** The canonicalization the caller expects (§19); only `"schemapin-v1"` is supported. */
  canonicalization?: string;
  /** The current time (default now), for expiry. */
  now?: Date | number;
  /** Names of the inputs, for messages (file names). */
  sources?: { discovery?: string; revocation?: string; signature?: string };
}

/** The fields every verification result has, schema or skill. */
export interface OfflineVerificationResult {
  /** True only when every step passed. */
  valid: boolean;
  /** The validated domain (absent when the domain argument itself was invalid). */
  domain?: string;
  /** The tool id (the pin is `toolId@domain`). */
  toolId: string;
  /** Developer name from the discovery document. */
  developerName?: string;
  /** Fingerprint of the discovery key (from step 2 on). */
  keyFingerprint?: string;
  /** Pin status (see {@linkcode KeyPinningStatus}). */
  keyPinning: KeyPinningStatus;
  /** The fingerprint already pinned, on `KEY_PIN_MISMATCH`. */
  pinnedFingerprint?: string;
  /**
   * On `KEY_PIN_MISMATCH`: true when the publisher revoked the pinned key itself (its
   * discovery `revoked_keys` or revocation document lists it) — a rotation by the publisher.
   */
  pinnedKeyRevoked?: boolean;
  /** The error code when not valid. */
  errorCode?: ErrorCode;
  /** What went wrong, for people. */
  errorMessage?: string;
  /** Warning codes (see the result type of each verifier). */
  warnings: string[];
  /** True when `expires_at` is past (beyond the skew) or unparseable. */
  expired: boolean;
  /** The document's `expires_at`, mirrored (§16.2). */
  expiresAt?: string;
  /** The document's `schema_version` (§18.2), once the signature verified. */
  schemaVersion?: string;
  /** The document's `previous_hash` (§18.2), once the signature verified. */
  previousHash?: string;
  /** The document's `signed_at`, once the signature verified. */
  signedAt?: string;
  /** The document's `signer_kid`, once the signature verified. */
  signerKid?: string;
  /** Unknown document fields (not covered by the signature). */
  unprotectedFields?: string[];
}

export type { StepFailure };

/** What a subject's step 0 found: the tool id, when the signature names it. */
export interface PreparedSubject {
  /** The tool id, when the caller gave none (a skill's `skill_name`). */
  readonly toolId?: string;
}

/** What a subject's steps 5–6 found when the signature verified. */
export interface VerifiedSubject {
  /** The signed document, whose `expires_at` (when present) is checked next (§16.2). */
  readonly signed?: { readonly expires_at?: unknown };
}

/** What is verified, and how: a tool schema or a skill folder. */
export interface OfflineSubject<R extends OfflineVerificationResult> {
  /**
   * Step 0: parse the signature and check the canonicalization it declares
   * (`checkDeclaredCanonicalization` of lib/schema/flow_document.ts). No key loading, no
   * cryptography.
   */
  prepare(result: R): StepFailure | PreparedSubject;
  /**
   * Steps 5–6: hash what was signed, verify the signature with `key`, compare the hash, check
   * the document's own `domain` against `domain`; fill the subject's result fields.
   */
  verify(
    key: PublicKey,
    domain: string,
    result: R,
  ): StepFailure | VerifiedSubject | Promise<StepFailure | VerifiedSubject>;
}

/**
 * A hook run after verification succeeded and before the pin is written; returning (or
 * resolving to) a failure stops verification (A2A scope, DNS cross-check, lineage), so
 * nothing is pinned.
 */
export type BeforePinHook<R extends OfflineVerificationResult = OfflineVerificationResult> = (
  result: R,
) => StepFailure | undefined | Promise<StepFailure | undefined>;

function isFailure(value: StepFailure | object): value is StepFailure {
  return typeof (value as StepFailure).errorCode === "string";
}

/** A failure of a step, as the result will report it. */
function failure(errorCode: ErrorCode, errorMessage: string): StepFailure {
  return { errorCode, errorMessage };
}

/** The options of {@linkcode runOfflineFlow}. */
type FlowOptions = OfflineFlowOptions & { toolId?: string };

/**
 * Steps 0a–0b: the domain argument (§9, §15.1) and the tool id, when given; then the
 * canonicalization identifier (§19.3) and the signature's shape, before any key loading or
 * cryptography. Fills `result.domain` and `result.toolId`.
 */
function checkRequest<R extends OfflineVerificationResult>(
  options: FlowOptions,
  result: R,
  subject: OfflineSubject<R>,
): StepFailure | { readonly domain: string; readonly toolId: string } {
  const dc = checkDomain(options.domain);
  if (!dc.ok) {
    return failure(
      "INPUT_INVALID",
      `invalid domain ${JSON.stringify(options.domain)}: ${dc.reason}`,
    );
  }
  result.domain = dc.domain;
  if (options.toolId !== undefined) {
    const tidProblem = checkToolId(options.toolId);
    if (tidProblem) return failure("INPUT_INVALID", `invalid tool id: ${tidProblem}`);
    result.toolId = options.toolId;
  }
  if (options.canonicalization !== undefined && options.canonicalization !== SCHEMAPIN_V1) {
    return failure(
      "CANONICALIZATION_UNSUPPORTED",
      `canonicalization ${JSON.stringify(options.canonicalization)} is not supported ` +
        `(only "${SCHEMAPIN_V1}")`,
    );
  }
  const prepared = subject.prepare(result);
  if (isFailure(prepared)) return prepared;
  if (options.toolId === undefined) {
    const tidProblem = checkToolId(prepared.toolId);
    if (tidProblem) return failure("INPUT_INVALID", `invalid tool id: ${tidProblem}`);
    result.toolId = prepared.toolId!;
  }
  return { domain: dc.domain, toolId: result.toolId };
}

/**
 * Steps 1–2: the discovery document, validated, and its public key with its fingerprint.
 * Fills `result.developerName` and `result.keyFingerprint`.
 */
function loadDiscovery(
  options: FlowOptions,
  result: OfflineVerificationResult,
): StepFailure | { readonly discovery: DiscoveryDocument; readonly key: PublicKey } {
  const source = options.sources?.discovery;
  let discovery: DiscoveryDocument;
  try {
    const parsed = parseDiscoveryDocument(options.discovery, source);
    discovery = parsed.document;
    result.warnings.push(...parsed.warnings);
  } catch (e) {
    return failure(codeOf(e, "DISCOVERY_INVALID"), messageOf(e));
  }
  result.developerName = discovery.developer_name;
  let key: PublicKey;
  try {
    key = loadDiscoveryKey(discovery, source);
  } catch (e) {
    return failure(codeOf(e, "DISCOVERY_INVALID"), messageOf(e));
  }
  result.keyFingerprint = key.fingerprint;
  return { discovery, key };
}

/**
 * Step 3: revocation, both sources (§8.7); a declared endpoint without a document fails
 * closed (§9) unless `allowMissingRevocation` (then a warning).
 */
function checkKeyRevocation(
  options: FlowOptions,
  domain: string,
  discovery: DiscoveryDocument,
  key: PublicKey,
  result: OfflineVerificationResult,
): StepFailure | { readonly revocation?: RevocationDocument } {
  let revocation: RevocationDocument | undefined;
  if (options.revocation !== undefined && options.revocation !== null) {
    try {
      revocation = parseRevocationDocument(options.revocation, options.sources?.revocation);
    } catch (e) {
      return failure(codeOf(e, "DISCOVERY_INVALID"), messageOf(e));
    }
    if (revocation.domain !== domain) {
      return failure(
        "DOMAIN_MISMATCH",
        `the revocation document is for ${revocation.domain}, not ${domain}; ` +
          `its list does not apply here`,
      );
    }
  }
  const status = checkRevocation(key.fingerprint, discovery, revocation);
  if (status.revoked) {
    return failure(
      "KEY_REVOKED",
      status.source === "discovery"
        ? `key ${key.fingerprint} is listed in the discovery document's revoked_keys`
        : `key ${key.fingerprint} is revoked by the revocation document ` +
          `(${status.reason}, ${status.revokedAt})`,
    );
  }
  if (discovery.revocation_endpoint !== undefined && revocation === undefined) {
    if (!options.allowMissingRevocation) {
      return failure(
        "DISCOVERY_FETCH_FAILED",
        `the discovery document declares revocation_endpoint ` +
          `${discovery.revocation_endpoint} but no revocation document was supplied; ` +
          `an unchecked revocation list is not "not revoked" (§9)`,
      );
    }
    result.warnings.push("revocation_document_missing");
  }
  return { revocation };
}

/**
 * Step 4: the pin, read only. A pin to another key fails (`KEY_PIN_MISMATCH`), saying so when
 * the publisher revoked the pinned key (§8.7). Fills `result.keyPinning`.
 */
async function readPin(
  pinStore: PinStore,
  ids: { readonly toolId: string; readonly domain: string },
  trusted: {
    readonly discovery: DiscoveryDocument;
    readonly key: PublicKey;
    readonly revocation?: RevocationDocument;
  },
  result: OfflineVerificationResult,
): Promise<StepFailure | { readonly firstUse: boolean }> {
  const { toolId, domain } = ids;
  const { key } = trusted;
  try {
    const pin = await pinStore.get(toolId, domain);
    if (pin === undefined) {
      result.keyPinning = "not_pinned";
      return { firstUse: true };
    }
    if (pin.fingerprint === key.fingerprint) {
      result.keyPinning = "pinned";
      return { firstUse: false };
    }
    result.keyPinning = "mismatch";
    result.pinnedFingerprint = pin.fingerprint;
    // The pinned key revoked by the publisher (§8.7): the publisher retired it, so the
    // message says so rather than suggesting the rotation may not be real.
    const pinned = checkRevocation(pin.fingerprint, trusted.discovery, trusted.revocation);
    if (pinned.revoked) {
      result.pinnedKeyRevoked = true;
      return failure(
        "KEY_PIN_MISMATCH",
        `${toolId}@${domain} is pinned to ${pin.fingerprint}, which the publisher revoked ` +
          (pinned.source === "discovery"
            ? `(listed in the discovery document's revoked_keys)`
            : `(revocation document: ${pinned.reason}, ${pinned.revokedAt})`) +
          `; the discovery key is now ${key.fingerprint}: rotate the pin to it`,
      );
    }
    return failure(
      "KEY_PIN_MISMATCH",
      `${toolId}@${domain} is pinned to ${pin.fingerprint} but the discovery key is ` +
        `${key.fingerprint}; if the developer really rotated keys, rotate the pin explicitly`,
    );
  } catch (e) {
    return failure(codeOf(e, "IO_FAILED"), messageOf(e));
  }
}

/**
 * Expiry (§16.2): fail closed more than 300 s past `expires_at`, or when it does not parse;
 * with `allowExpired`, a warning instead. Fills `result.expiresAt` and `result.expired`.
 */
function checkExpiry(
  signed: VerifiedSubject["signed"],
  options: FlowOptions,
  result: OfflineVerificationResult,
): StepFailure | undefined {
  if (signed === undefined || !Object.hasOwn(signed, "expires_at")) return undefined;
  const raw = signed.expires_at;
  if (typeof raw === "string") result.expiresAt = raw;
  const expiresMs = parseRfc3339(raw);
  const nowMs = options.now === undefined
    ? Date.now()
    : typeof options.now === "number"
    ? options.now
    : options.now.getTime();
  if (expiresMs === undefined) {
    result.expired = true;
    if (!options.allowExpired) {
      return failure(
        "SIGNATURE_EXPIRED",
        `expires_at ${JSON.stringify(raw)} is not a strict RFC 3339 timestamp; ` +
          `a malformed expiry is treated as expired (§16.2)`,
      );
    }
    result.warnings.push("signature_expires_at_unparseable");
  } else if (nowMs > expiresMs + EXPIRY_SKEW_MS) {
    result.expired = true;
    if (!options.allowExpired) {
      return failure(
        "SIGNATURE_EXPIRED",
        `the signature expired at ${raw} (now ${formatRfc3339(nowMs)}, skew allowance 300 s)`,
      );
    }
    result.warnings.push("signature_expired");
  }
  return undefined;
}

/**
 * Step 7 on first use: pin only now, and only with consent (`trustFirstUse` or the
 * confirmation callback), after the before-pin hook; a key another verifier pinned meanwhile
 * is never overwritten (`KEY_PIN_MISMATCH`). Fills `result.keyPinning`.
 */
async function pinFirstUse<R extends OfflineVerificationResult>(
  options: FlowOptions,
  ids: { readonly toolId: string; readonly domain: string },
  trusted: { readonly discovery: DiscoveryDocument; readonly key: PublicKey },
  result: R,
  beforePin: BeforePinHook<R> | undefined,
): Promise<StepFailure | undefined> {
  const { toolId, domain } = ids;
  const { discovery, key } = trusted;
  let consent = options.trustFirstUse === true;
  let how: "first_use" | "confirmed" = "first_use";
  if (!consent && options.confirmFirstUse) {
    try {
      consent = (await options.confirmFirstUse({
        toolId,
        domain,
        fingerprint: key.fingerprint,
        developerName: discovery.developer_name,
        publicKeyPem: key.pem,
      })) === true;
    } catch (e) {
      result.keyPinning = "first_use_declined";
      return failure("KEY_NOT_FOUND", `first-use confirmation failed: ${messageOf(e)}`);
    }
    how = "confirmed";
  }
  if (!consent) {
    result.keyPinning = "first_use_declined";
    return failure(
      "KEY_NOT_FOUND",
      `no key is pinned for ${toolId}@${domain} and first use of ${key.fingerprint} was not ` +
        `confirmed; compare the fingerprint out of band, then pin it (trust first use, or ` +
        `seed it)`,
    );
  }
  const hookFailure = await beforePin?.(result);
  if (hookFailure) return hookFailure;
  try {
    const outcome = await addPinIfAbsent(
      options.pinStore,
      makePinRecord({
        toolId,
        domain,
        fingerprint: key.fingerprint,
        source: how,
        developerName: discovery.developer_name,
      }),
    );
    if (outcome.record.fingerprint !== key.fingerprint) {
      // Another verifier pinned a different key between our read and our write.
      result.keyPinning = "mismatch";
      result.pinnedFingerprint = outcome.record.fingerprint;
      return failure(
        "KEY_PIN_MISMATCH",
        `${toolId}@${domain} was just pinned to ${outcome.record.fingerprint} by another ` +
          `verifier; the discovery key is ${key.fingerprint}`,
      );
    }
    result.keyPinning = outcome.status === "added" ? "first_use" : "pinned";
  } catch (e) {
    return failure(codeOf(e, "IO_FAILED"), `could not write the pin: ${messageOf(e)}`);
  }
  return undefined;
}

/**
 * Runs the §15.1 flow for `subject` (see the module documentation), filling `result` (created
 * by the caller with `valid: false`, `keyPinning: "not_checked"`, `warnings: []`,
 * `expired: false`) and returning it. Throws only when `options.pinStore` is missing.
 *
 * @example
 * ```ts ignore
 * const result = await runOfflineFlow({ ...trust, toolId }, initialResult, subject);
 * ```
 */
export async function runOfflineFlow<R extends OfflineVerificationResult>(
  options: OfflineFlowOptions & { toolId?: string },
  result: R,
  subject: OfflineSubject<R>,
  beforePin?: BeforePinHook<R>,
): Promise<R> {
  checkMethods(
    "offline verification",
    "options.pinStore",
    options.pinStore,
    ["get", "transact"],
    "a PinStore",
  );
  const fail = (f: StepFailure): R => {
    result.valid = false;
    result.errorCode = f.errorCode;
    result.errorMessage = f.errorMessage;
    return result;
  };
  // Steps 0a–0b: the request and the signature's shape.
  const ids = checkRequest(options, result, subject);
  if (isFailure(ids)) return fail(ids);
  // Steps 1–2: the discovery document and its key.
  const loaded = loadDiscovery(options, result);
  if (isFailure(loaded)) return fail(loaded);
  const { discovery, key } = loaded;
  // Step 3: revocation.
  const revoked = checkKeyRevocation(options, ids.domain, discovery, key, result);
  if (isFailure(revoked)) return fail(revoked);
  const trusted = { discovery, key, revocation: revoked.revocation };
  // Step 4: the pin, read only.
  const pin = await readPin(options.pinStore, ids, trusted, result);
  if (isFailure(pin)) return fail(pin);
  // Steps 5–6: the subject's hash and signature, then its expiry (§16.2).
  const verified = await subject.verify(key, ids.domain, result);
  if (isFailure(verified)) return fail(verified);
  const expired = checkExpiry(verified.signed, options, result);
  if (expired) return fail(expired);
  // Step 7: pin on first use, only now and only with consent; the hook runs before any pin.
  const pinned = pin.firstUse
    ? await pinFirstUse(options, ids, trusted, result, beforePin)
    : await beforePin?.(result);
  if (pinned) return fail(pinned);
  result.valid = true;
  return result;
}

/**
 * Settles a result that passed, when writing the pins of its batch found its entry changed by
 * another process meanwhile (`conflicts` of `BatchPinStore.flush`, lib/pins/batch.ts):
 * `current` is what the store holds now. The same key pinned meanwhile stays valid (as
 * `pinned`); a different key is `KEY_PIN_MISMATCH` and a removed entry `KEY_NOT_FOUND`, both
 * failures, because the pin the result relied on is not in the store.
 *
 * @example
 * ```ts ignore
 * const { conflicts } = await pins.flush();
 * const c = conflicts.get(`${result.toolId}@${result.domain}`);
 * if (c) settlePinConflict(result, c.current);
 * ```
 */
export function settlePinConflict(
  result: OfflineVerificationResult,
  current: { readonly fingerprint: string } | undefined,
): void {
  if (!result.valid) return;
  const key = `${result.toolId}@${result.domain}`;
  if (current !== undefined && current.fingerprint === result.keyFingerprint) {
    if (result.keyPinning === "first_use") result.keyPinning = "pinned";
    return;
  }
  result.valid = false;
  if (current === undefined) {
    result.keyPinning = "not_pinned";
    result.errorCode = "KEY_NOT_FOUND";
    result.errorMessage = `the pin of ${key} was removed by another process while this ` +
      `verification ran; nothing was pinned`;
    return;
  }
  result.keyPinning = "mismatch";
  result.pinnedFingerprint = current.fingerprint;
  result.errorCode = "KEY_PIN_MISMATCH";
  result.errorMessage = `${key} was pinned to ${current.fingerprint} by another verifier while ` +
    `this one ran; the discovery key is ${result.keyFingerprint}`;
}

/**
 * Writes the pins a group of verifications made through `pins` (one locked transaction,
 * `BatchPinStore.flush`) and settles their `results`: a result whose pin could not be written
 * fails with the error's code (`IO_FAILED`, …) and is `not_pinned`; one whose entry another
 * process changed meanwhile is settled by {@linkcode settlePinConflict}. Results that failed
 * already are left alone.
 *
 * @example
 * ```ts ignore
 * const pins = new BatchPinStore(new FilePinStore("pins.json"));
 * const results = [];
 * for (const item of group) results.push(await verifySchemaOffline({ ...item, pinStore: pins }));
 * await settleBatchPins(pins, results);
 * ```
 */
export async function settleBatchPins(
  pins: BatchPinStore,
  results: readonly (OfflineVerificationResult | undefined)[],
): Promise<void> {
  const pendingKeys = pins.pendingKeys();
  let conflicts: ReadonlyMap<string, { current?: { fingerprint: string } }> = new Map();
  let writeError: unknown;
  try {
    ({ conflicts } = await pins.flush());
  } catch (e) {
    writeError = e;
  }
  for (const r of results) {
    if (!r?.valid) continue;
    const key = pinKey(r.toolId, r.domain!);
    if (writeError !== undefined && pendingKeys.has(key)) {
      r.valid = false;
      r.errorCode = codeOf(writeError, "IO_FAILED");
      r.errorMessage = `could not write the pin: ${messageOf(writeError)}`;
      if (r.keyPinning === "first_use") r.keyPinning = "not_pinned";
    } else if (conflicts.has(key)) {
      settlePinConflict(r, conflicts.get(key)!.current);
    }
  }
}

/** The message of an error, for results. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function codeOf(e: unknown, fallback: ErrorCode): ErrorCode {
  return e instanceof SchemaPinError ? e.code : fallback;
}
