/**
 * Input helpers shared by the schema commands (sign-schema, verify-schema, well-known,
 * revoke, pins, chain): read a JSON or PEM file with errors naming it, list a batch
 * directory, match simple glob patterns, and pick the pin store path.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonValue } from "../json/types.ts";
import {
  type AuthorityFlagValues,
  findInBundleFile,
  rejectAuthorityFlags,
} from "./bundle_trust.ts";
import { loadDiscoveryKey, parseDiscoveryDocument } from "../discovery/document.ts";
import { parseRevocationDocument } from "../revocation/document.ts";
import type { FirstUseInfo, OfflineVerificationResult } from "../schema/flow.ts";
import { type CliIO, EXIT_FAILED, EXIT_USAGE, jsonOutput, UsageError } from "./command.ts";
import { describeFsError, readInput } from "./io.ts";

/** The name a path is reported under (`stdin` for `-`). */
export function sourceName(path: string): string {
  return path === "-" ? "stdin" : path;
}

/**
 * Reads and strictly parses a JSON file; `JSON_INVALID` / `IO_FAILED` name the file and say
 * what it was supposed to be.
 */
export async function readJsonFile(path: string, io: CliIO, what: string): Promise<JsonValue> {
  const bytes = await readInput(path, io);
  try {
    return parseJson(bytes, sourceName(path));
  } catch (e) {
    if (e instanceof SchemaPinError) {
      throw new SchemaPinError(e.code, `${what} ${e.message}`, { ...e.details, path });
    }
    throw e;
  }
}

/**
 * Reads a signature file: a 1.4 schema signature document (JSON object) or a bare Base64
 * signature (surrounding whitespace, such as the final newline, is ignored).
 */
export async function readSignatureFile(
  path: string,
  io: CliIO,
): Promise<string | Record<string, unknown>> {
  const bytes = await readInput(path, io);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new SchemaPinError("INPUT_INVALID", `signature file ${sourceName(path)} is not UTF-8`, {
      path,
    });
  }
  const trimmed = text.trim();
  if (trimmed === "") {
    throw new SchemaPinError("INPUT_INVALID", `signature file ${sourceName(path)} is empty`, {
      path,
    });
  }
  if (trimmed.startsWith("{")) {
    const value = parseJson(bytes, sourceName(path));
    return value as Record<string, unknown>;
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `signature file ${sourceName(path)} is neither a JSON signature document nor a single ` +
        `Base64 signature`,
      { path },
    );
  }
  return trimmed;
}

/**
 * A regular expression for a file-name glob: `*` any run of characters, `?` one character,
 * everything else literal. Matches names, not paths.
 */
export function globToRegExp(pattern: string): RegExp {
  if (pattern === "" || pattern.includes("/")) {
    throw new UsageError(`--pattern ${JSON.stringify(pattern)} must be a file-name pattern`);
  }
  let re = "^";
  for (const ch of pattern) {
    if (ch === "*") re += "[^/]*";
    else if (ch === "?") re += "[^/]";
    else re += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(re + "$", "u");
}

/**
 * The regular files in `dir` whose names match `pattern`, sorted by code point. Symlinks and
 * other non-regular entries are skipped (reported in `skipped`); subdirectories are not
 * entered.
 */
export async function listBatch(
  dir: string,
  pattern: string,
): Promise<{ files: string[]; skipped: string[] }> {
  const re = globToRegExp(pattern);
  const files: string[] = [];
  const skipped: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!re.test(entry.name) || entry.name.endsWith(".sig")) continue;
      if (entry.isFile) files.push(entry.name);
      else if (!entry.isDirectory) skipped.push(entry.name);
    }
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot list ${dir}: ${describeFsError(e)}`, {
      path: dir,
    });
  }
  const byCodePoint = (a: string, b: string) => {
    const x = [...a].map((c) => c.codePointAt(0)!);
    const y = [...b].map((c) => c.codePointAt(0)!);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  };
  return { files: files.sort(byCodePoint), skipped: skipped.sort(byCodePoint) };
}

/** `dir/name`, without doubling slashes. */
export function joinPath(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, "") || "/"}/${name}`.replace(/^\/\//, "/");
}

/** The input error codes: the CLI exits 2 for these, 1 for verification failures. */
export const INPUT_CODES: readonly string[] = [
  "JSON_INVALID",
  "KEY_INVALID",
  "INPUT_INVALID",
  "IO_FAILED",
];

// ---------------------------------------------------------------------------------------------
// Shared by verify-schema and verify-skill: the trust inputs (discovery document or bundle,
// revocation document), the exit code of a failed verification, input failures, warning texts
// and the first-use question.

/** The trust inputs of a verification and the names they are reported under. */
export interface TrustInputs {
  /** The parsed discovery document. */
  discovery: unknown;
  /** The parsed standalone revocation document, if any. */
  revocation?: unknown;
  /** Where the discovery document came from, for messages. */
  discoverySource: string;
  /** Where the revocation document came from, for messages. */
  revocationSource?: string;
}

/** The key-source options of the verify commands. */
/** (`--authority…` options: a signed `--bundle` must verify against them, §21.4.) */
export interface TrustOptionValues extends AuthorityFlagValues {
  /** `--discovery FILE`. */
  discovery?: string;
  /** `--bundle FILE`. */
  bundle?: string;
  /** `--well-known`. */
  "well-known"?: boolean;
  /** `--revocation FILE`. */
  revocation?: string;
}

/**
 * Loads the trust inputs of `command` from exactly one key source (`--discovery FILE` with an
 * optional `--revocation FILE`, or `--bundle FILE`) and checks their structure, so a malformed
 * local file is an input error naming it rather than a verification failure.
 */
export async function loadTrust(
  command: string,
  values: TrustOptionValues,
  domain: string,
  io: CliIO,
): Promise<TrustInputs> {
  const sources = [values.discovery, values.bundle, values["well-known"] ? "x" : undefined]
    .filter((v) => v !== undefined);
  if (sources.length !== 1) {
    throw new UsageError(
      `${command}: give exactly one key source: --discovery FILE or --bundle FILE`,
    );
  }
  if (values["well-known"]) {
    throw new UsageError(
      `${command}: --well-known (HTTPS discovery) is not available in this version; save ` +
        "https://DOMAIN/.well-known/schemapin.json and pass it with --discovery FILE",
    );
  }
  if (values.discovery !== undefined) {
    rejectAuthorityFlags(command, values);
    const trust: TrustInputs = {
      discovery: await readJsonFile(values.discovery, io, "discovery document"),
      discoverySource: sourceName(values.discovery),
    };
    if (values.revocation !== undefined) {
      trust.revocation = await readJsonFile(values.revocation, io, "revocation document");
      trust.revocationSource = sourceName(values.revocation);
    }
    return validateTrust(trust);
  }
  if (values.revocation !== undefined) {
    throw new UsageError(
      `${command}: a bundle carries its own revocation documents; --revocation goes with ` +
        "--discovery",
    );
  }
  const file = values.bundle!;
  // Unsigned bundles are used as given; signed ones only after verifying against the
  // authority allow-list (lib/cli/bundle_trust.ts, §21.4).
  const found = await findInBundleFile(command, file, domain, values, io);
  return validateTrust({
    discovery: found.discovery,
    revocation: found.revocation,
    discoverySource: `${sourceName(file)} (documents: ${domain})`,
    revocationSource: `${sourceName(file)} (revocations: ${domain})`,
  });
}

/** Checks the structure of the local discovery (and its key) and revocation documents. */
function validateTrust(trust: TrustInputs): TrustInputs {
  const { document } = parseDiscoveryDocument(trust.discovery, trust.discoverySource);
  loadDiscoveryKey(document, trust.discoverySource);
  if (trust.revocation !== undefined) {
    parseRevocationDocument(trust.revocation, trust.revocationSource);
  }
  return trust;
}

/**
 * Exit code of a verification error code: 2 when an input could not be used — unreadable,
 * not JSON, or a local discovery, revocation, bundle or signature file that is malformed
 * (`DISCOVERY_INVALID` here always concerns a file the user gave) — else 1.
 */
export function verifyExitCode(code: string | undefined): number {
  return INPUT_CODES.includes(code ?? "") || code === "DISCOVERY_INVALID"
    ? EXIT_USAGE
    : EXIT_FAILED;
}

/** Reports an input that could not be loaded (before any verification); returns the exit code. */
export async function reportInputFailure(e: unknown, json: boolean, io: CliIO): Promise<number> {
  if (!(e instanceof SchemaPinError)) throw e;
  if (json) {
    await io.stdout(jsonOutput({ valid: false, errorCode: e.code, errorMessage: e.message }));
  } else {
    await io.stderr(`error: ${e.code}: ${e.message}\n`);
  }
  return verifyExitCode(e.code);
}

const VERIFY_WARNINGS: Record<string, string> = {
  signature_expired: "the signature has expired; accepted only because of --allow-expired",
  signature_expires_at_unparseable:
    "expires_at is not a valid RFC 3339 time; accepted only because of --allow-expired",
  unprotected_fields: "the signature document has fields its signature does not cover",
  revocation_document_missing:
    "the discovery document declares a revocation_endpoint whose document was not checked",
  discovery_schema_version_newer:
    "the discovery document has a newer schema_version than this verifier knows (read as 1.4)",
  signature_version_newer:
    "the signature document has a newer schemapin_version than this verifier knows",
  legacy_signature_format:
    "legacy signature format (schemapin_version below 1.4): only the file contents are " +
    "signed, none of the metadata (skill_name, domain, signed_at, expires_at, versions, " +
    "manifest); it cannot anchor lineage — ask the publisher to re-sign with SchemaPin 1.4",
};

/** The human text of a verification warning code. */
export function describeVerifyWarning(code: string, unprotectedFields?: readonly string[]): string {
  const base = VERIFY_WARNINGS[code] ?? code;
  if (code === "unprotected_fields" && unprotectedFields) {
    return `${base}: ${unprotectedFields.join(", ")} (ignored)`;
  }
  return base;
}

/**
 * A `confirmFirstUse` callback that shows the key and asks `ask` (a terminal prompt); only
 * `y` or `yes` pins.
 */
export function confirmFirstUseWith(
  ask: (question: string) => Promise<string | undefined>,
): (info: FirstUseInfo) => Promise<boolean> {
  return async (info) => {
    const answer = await ask(
      `schemapin: first use of ${info.toolId}@${info.domain}\n` +
        `  developer:   ${info.developerName}\n` +
        `  fingerprint: ${info.fingerprint}\n` +
        `Compare the fingerprint with one obtained out of band (the publisher, DNS TXT).\n` +
        `Pin this key for ${info.toolId}@${info.domain}? [y/N] `,
    );
    return answer !== undefined && /^(y|yes)$/i.test(answer);
  };
}

/**
 * The CLI's advice for a failure the user can act on (first use not confirmed, a changed
 * key), or `""`.
 */
export function failureHint(result: OfflineVerificationResult): string {
  if (result.keyPinning === "first_use_declined") {
    return "\nhint: after checking the fingerprint, rerun with --trust-first-use or seed it with " +
      `\`schemapin pins add ${result.toolId}@${result.domain} --fingerprint ${result.keyFingerprint}\``;
  }
  if (result.errorCode === "KEY_PIN_MISMATCH") {
    return "\nhint: if the publisher rotated keys, confirm the new fingerprint out of band and run " +
      `\`schemapin pins rotate ${result.toolId}@${result.domain} --fingerprint ${result.keyFingerprint}\``;
  }
  return "";
}
