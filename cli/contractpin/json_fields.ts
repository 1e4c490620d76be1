/**
 * The `--json` fields of `contract init`, `verify`, `approve`, `sign`, `dump` and `digest`:
 * what each operation's result (cli/contractpin/init.ts, verify_lock.ts, approve_lock.ts,
 * sign_lock.ts, run.ts, digest.ts) becomes in the command's output,
 * `ok` first, an `error` `{ code, message }` on failure, every name snake_case like the
 * spec's documents. The CLI adds `format` and prints them (cli/commands/json_output.ts); the shapes
 * are published in `schemas/cli/`.
 *
 * @module
 */
import { verificationFields } from "../json/result_fields.ts";
import type { Discovery, SkippedServer } from "../mcp_config/discover.ts";
import type { ToolHiddenTextFinding } from "../../lib/contractpin/hidden_text.ts";
import type { InitOutcome, InitResult } from "./init.ts";
import type { LockServer } from "../../lib/contractpin/lock.ts";
import type { LockSignatureResult } from "./lock_signature.ts";
import type { LockSignatureCheck } from "./lock_signature_check.ts";
import type { VerifyReport } from "../../lib/contractpin/report.ts";
import type { ApproveResult } from "./approve_lock.ts";
import type { DumpResult } from "../../lib/contractpin/run.ts";
import type { DigestedToolList } from "../../lib/contractpin/digest.ts";
import type { SignedLockFile } from "./sign_lock.ts";
import { approvableChanges } from "./approve_plan.ts";
import { approveCommand, type ApproveCommandOptions } from "./approve_command.ts";
import { lockSkillsJson, lockSkillsMember } from "../../lib/contractpin/skills_lock.ts";

/** The fields of one `--json` output: `ok` first (the CLI puts `format` before it). */
export type JsonFields = { readonly ok: boolean } & Record<string, unknown>;

/** The verification result's fields in `lock_signature`, in order, with their JSON names. */
const SIGNATURE_FIELDS: readonly (readonly [keyof LockSignatureResult, string])[] = [
  ["domain", "domain"],
  ["toolId", "tool_id"],
  ["keyFingerprint", "key_fingerprint"],
  ["keyPinning", "key_pinning"],
  ["pinnedFingerprint", "pinned_fingerprint"],
  ["signedAt", "signed_at"],
  ["signerKid", "signer_kid"],
  ["expired", "expired"],
  ["expiresAt", "expires_at"],
  ["warnings", "warnings"],
  ["unprotectedFields", "unprotected_fields"],
  ["discoverySource", "discovery_source"],
  ["dns", "dns"],
];

/**
 * The `lock_signature` object of `contract verify --json` (issue 17 item 2): the check's
 * status, whether it was required and the signature file; when it was checked, the
 * verification's `error` (when it failed), its fields and `lock_hash` (the hash signed).
 *
 * @example
 * ```ts
 * import { lockSignatureJson } from "./json_fields.ts";
 * lockSignatureJson({ status: "not_checked", required: false, file: "contractpin.lock.sig" });
 * // { status: "not_checked", required: false, file: "contractpin.lock.sig" }
 * ```
 */
export function lockSignatureJson(check: LockSignatureCheck): Record<string, unknown> {
  const out: Record<string, unknown> = {
    status: check.status,
    required: check.required,
    file: check.file,
  };
  const r = check.result;
  if (!r) return out;
  const { error } = verificationFields(r, []);
  if (error !== undefined) out.error = error;
  for (const [key, name] of SIGNATURE_FIELDS) if (r[key] !== undefined) out[name] = r[key];
  if (r.schemaHash !== undefined) out.lock_hash = r.schemaHash;
  return out;
}

/**
 * The `--json` fields of `contract verify` (`schemapin.contract.verify/1`): the library's
 * report with `ok` and, on failure, an `error` (code `CONTRACT_DRIFT`, or `HIDDEN_TEXT` when
 * only `--strict-text` findings failed; the signature's when it did not verify) summing up
 * what failed, each change with the approve command for it ({@linkcode verifyChangesJson}),
 * and `lock_signature` ({@linkcode lockSignatureJson}).
 *
 * @example
 * ```ts ignore
 * import { verifyJsonFields } from "./json_fields.ts";
 * const fields = verifyJsonFields(result.report, result.signature, { config: ".mcp.json" });
 * if (!fields.ok) console.error(fields.error);
 * ```
 */
export function verifyJsonFields(
  report: VerifyReport,
  signed: LockSignatureCheck,
  from: ApproveCommandOptions = {},
): JsonFields {
  const { format: _format, ...rest } = report;
  const ok = report.exit_code === 0;
  const s = report.summary;
  const failed = [
    s.drifted ? `${s.drifted} drifted` : "",
    s.unreachable ? `${s.unreachable} unreachable` : "",
    s.unpinned ? `${s.unpinned} unpinned` : "",
  ].filter((x) => x !== "").join(", ");
  const hiddenText = report.strict_text && s.hidden_text
    ? `${s.hidden_text} hidden-text finding(s) in live tool definitions (--strict-text)`
    : "";
  const sigError = signed.status === "invalid" && signed.result
    ? { code: signed.result.errorCode!, message: `${signed.file}: ${signed.result.errorMessage}` }
    : undefined;
  return {
    ok,
    ...(ok ? {} : sigError ? { error: sigError } : {
      error: {
        code: failed ? "CONTRACT_DRIFT" : "HIDDEN_TEXT",
        message: [
          failed ? `${failed} of ${s.servers} server(s) in ${report.lock}` : "",
          hiddenText,
        ].filter((x) => x !== "").join("; "),
      },
    }),
    ...rest,
    changes: verifyChangesJson(report, from),
    lock_signature: lockSignatureJson(signed),
  };
}

/**
 * Each change of a verify report by name, with the exact `schemapin contract approve` argv
 * that approves it (issue 17 item 1), so a bot can open a pull request with exactly that
 * approval; `from` names the snapshot and client config the run used.
 *
 * @example
 * ```ts ignore
 * import { verifyChangesJson } from "./json_fields.ts";
 * for (const c of verifyChangesJson(report, {})) console.log(c.approve.join(" "));
 * ```
 */
export function verifyChangesJson(report: VerifyReport, from: ApproveCommandOptions): {
  server: string;
  kind?: string;
  tool: string;
  change: string;
  approve: string[];
}[] {
  return report.servers.flatMap((s) =>
    approvableChanges(s).map(({ tool, change, kind }) => ({
      server: s.name,
      // docs/contractpin-surface.md §6: `tool` is the item key for the other kinds.
      ...(kind === "tool" ? {} : { kind }),
      tool,
      change,
      approve: approveCommand(report.lock, s.name, [{ kind, key: tool }], from),
    }))
  );
}

/**
 * The `--json` fields of `contract init` (`schemapin.contract.init/1`): the lock and snapshot
 * written, the servers pinned with their warnings, hidden-text findings and skills (when they
 * serve some), the discovery (with `--discover`); when nothing was written, `ok` false with
 * the `error` and, when a server failed, which ones (`failed`).
 *
 * @example
 * ```ts ignore
 * import { initJsonFields } from "./json_fields.ts";
 * const result = await initLock(request, files);
 * console.log(JSON.stringify(initJsonFields(result)));
 * ```
 */
export function initJsonFields(result: InitResult): JsonFields {
  const summary = {
    lock: result.lockPath,
    snapshot: result.snapshotPath,
    generated_at: result.lock.generated_at,
    servers: initServersJson(result.outcomes, result.lock.servers),
  };
  const discovered = result.discovery
    ? { discovered: discoveryJson(result.discovery, result.skipped) }
    : {};
  if (!result.error) return { ok: true, ...summary, ...discovered };
  return {
    ok: false,
    error: result.error,
    ...summary,
    ...(result.error.code === "SERVER_FAILED"
      ? {
        failed: result.outcomes.flatMap((o) =>
          o.ok || o.skipped
            ? []
            : [{ name: o.name, kind: o.failure.kind, message: o.failure.message }]
        ),
      }
      : {}),
    ...discovered,
  };
}

/** The servers pinned, with their hidden-text findings. */
function initServersJson(outcomes: readonly InitOutcome[], servers: Record<string, LockServer>) {
  return outcomes.filter((o) => o.ok && Object.hasOwn(servers, o.name)).map((o) => ({
    name: o.name,
    transport: servers[o.name].transport,
    tool_count: servers[o.name].tool_count,
    digest: servers[o.name].digest,
    warnings: o.warnings.map((w) => w.message),
    hidden_text: o.ok ? o.hiddenText.map((h: ToolHiddenTextFinding) => ({ ...h })) : [],
    // docs/contractpin-skills.md: the skills pinned, when the server serves some.
    ...(servers[o.name].skills ? { skills: lockSkillsJson(servers[o.name].skills!) } : {}),
  }));
}

/** A discovery: the configs found, what each server became, what was skipped. */
function discoveryJson(d: Discovery, late: readonly SkippedServer[]) {
  return {
    configs: d.found.map((f) => ({
      client: f.location.client,
      scope: f.location.scope,
      path: f.location.path,
      servers: f.entries.map((e) => e.name),
    })),
    renamed: d.servers.filter((s) => s.lockName !== s.configName).map((s) => ({
      name: s.configName,
      config: s.from.path,
      lock_name: s.lockName,
    })),
    skipped: [...d.skipped, ...late].map((s) => ({
      name: s.name,
      client: s.from.client,
      config: s.from.path,
      reason: s.reason,
    })),
  };
}

/**
 * The `--json` fields of `contract approve` (`schemapin.contract.approve/1`): what was
 * written, how many changes were approved and left, each change with its definitions and
 * hidden text, and the servers that could not be checked or approved; on failure an `error`
 * (`CONTRACT_DRIFT`) counting what is left.
 *
 * @example
 * ```ts ignore
 * import { approveJsonFields } from "./json_fields.ts";
 * const fields = approveJsonFields(await approveLock(request, files));
 * console.log(fields.ok, fields.left);
 * ```
 */
export function approveJsonFields(result: ApproveResult): JsonFields {
  const { changes, problems, approved, left, ok } = result;
  const approvedSet = new Set(approved);
  return {
    ok,
    ...(ok ? {} : {
      error: {
        code: "CONTRACT_DRIFT",
        message: `${left.length} change(s) left unapproved` +
          (problems.length ? `, ${problems.length} server(s) not checked or not approvable` : ""),
      },
    }),
    lock: result.lockPath,
    snapshot: result.snapshotPath,
    written: result.written,
    signature_stale: result.staleSignature !== undefined,
    approved: approved.length,
    left: left.length,
    changes: changes.map((c) => ({
      server: c.server,
      ...(c.kind && c.kind !== "tool" ? { kind: c.kind } : {}),
      tool: c.tool,
      change: c.change,
      approved: approvedSet.has(c),
      locked: c.locked,
      live: c.live,
      changed_fields: c.changedFields,
      hidden_text: c.hiddenText.map((f) => ({
        pointer: f.pointer,
        in: f.in,
        offset: f.offset,
        kind: f.kind,
        message: f.message,
        excerpt: f.excerpt,
      })),
    })),
    problems: problems.map((p) => ({ server: p.server, message: p.message })),
  };
}

/**
 * The `--json` fields of `contract dump` (`schemapin.contract.dump/1`): the server and the file
 * written (`-`: stdout), and what the dump holds — the count of each kind (`null` for a kind
 * the server does not offer), whether it serves instructions, the protocol version and the
 * tools' digest, and the skills saved (`skills`, when the server serves some); when the
 * server failed, `ok` false with the `error` (`SERVER_FAILED`, `message` the one reported).
 *
 * @example
 * ```ts ignore
 * import { dumpJsonFields } from "./json_fields.ts";
 * const dump = await dumpServer(target);
 * console.log(JSON.stringify(dumpJsonFields(target.name, "fs.json", dump)));
 * ```
 */
export function dumpJsonFields(
  server: string,
  out: string,
  result: DumpResult,
  message = result.ok ? "" : result.failure.message,
): JsonFields {
  if (!result.ok) return { ok: false, error: { code: "SERVER_FAILED", message }, server, out };
  const { listing } = result;
  const skills = result.skills ? lockSkillsMember(result.skills) : undefined;
  return {
    ok: true,
    server,
    out,
    tool_count: listing.tools.length,
    prompt_count: listing.prompts?.length ?? null,
    resource_count: listing.resources?.length ?? null,
    resource_template_count: listing.resourceTemplates?.length ?? null,
    instructions: listing.instructions === undefined ? null : listing.instructions !== null,
    protocol_version: listing.protocolVersion ?? null,
    tools_digest: result.list.digest,
    // docs/contractpin-skills.md, "Dumps": the skills saved, when the server serves some.
    ...(skills ? { skills: lockSkillsJson(skills) } : {}),
  };
}

/**
 * The `--json` fields of `contract digest` for a saved `tools/list` result
 * (`schemapin.contract.digest/1`, kind `tools/list`): the server digest, and each tool's
 * digest and field digests by name.
 *
 * @example
 * ```ts ignore
 * import { toolListDigestJson } from "./json_fields.ts";
 * const { list } = await digestSavedToolList(value, "tools.json");
 * console.log(JSON.stringify(toolListDigestJson("tools.json", list)));
 * ```
 */
export function toolListDigestJson(file: string, list: DigestedToolList): JsonFields {
  const tools: Record<string, { digest: string; fields: Record<string, string> }> = {};
  for (const t of list.tools.values()) tools[t.name] = { digest: t.digest, fields: t.fields };
  return {
    ok: true,
    file,
    kind: "tools/list",
    tool_count: list.tools.size,
    digest: list.digest,
    tools,
  };
}

/**
 * The `--json` fields of `contract sign` (`schemapin.contract.sign/1`): the lock and the
 * signature file written, the hash signed, the key's fingerprint and the document itself.
 *
 * @example
 * ```ts ignore
 * import { signJsonFields } from "./json_fields.ts";
 * const signed = await signLockFile(request, files, loadSigner);
 * console.log(JSON.stringify(signJsonFields(request.lockPath, request.sigPath, signed)));
 * ```
 */
export function signJsonFields(lock: string, sigPath: string, signed: SignedLockFile): JsonFields {
  return {
    ok: true,
    lock,
    signature_file: sigPath,
    lock_hash: signed.document.schema_hash,
    key_fingerprint: signed.signer.publicKey.fingerprint,
    document: signed.document,
  };
}
