/**
 * Rewriting an MCP client configuration so that its servers run through `schemapin guard`
 * (`schemapin guard wrap`), and back (`guard unwrap`). Text in, text out: only the members
 * that change are replaced — every other byte, comments of a JSONC file included, stays.
 *
 * - A stdio entry keeps its `env`, `cwd` and everything else; `command` becomes schemapin and
 *   `args` become `[…, "guard", "--lock", LOCK, "--server", NAME, "--", <command>, <args>…]`:
 *   the original command stays visible after `--`, and unwrapping is reading it back.
 * - An HTTP entry cannot start a process, so it is pointed at a guard listening on loopback
 *   (`schemapin guard --listen 127.0.0.1:PORT --upstream URL …`, started separately):
 *   `url` (Windsurf: `serverUrl`) becomes `http://127.0.0.1:PORT/<path>#schemapin-upstream=URL`.
 *   The fragment keeps the original URL in the entry, where every client format keeps it
 *   verbatim, and is never sent (HTTP clients drop fragments), so no member a client might
 *   reject is added.
 *
 * @module
 */
import { blankJsoncText, parseJsonc } from "../json/jsonc.ts";
import {
  arrayElements,
  type MemberSpan,
  objectMembers,
  type Span,
  valueAt,
} from "../json/spans.ts";
import type { JsonObject, JsonValue } from "../../lib/json/types.ts";
import { GUARD_UPSTREAM_MARK, readGuardedCommand, readGuardedUrl } from "../contractpin/config.ts";

/** How the guard is started from a wrapped stdio entry. */
export interface GuardInvocation {
  /** The schemapin program and the arguments before `guard` (`deno run … cli.ts`). */
  readonly program: readonly string[];
  /** Absolute path of the lock. */
  readonly lockPath: string;
  /** `--mode` for the guard (default: the guard's own, enforce). */
  readonly mode?: string;
}

/** One entry to wrap. */
export type WrapEdit =
  | {
    readonly kind: "stdio";
    /** Member names from the root to the entry object. */
    readonly path: readonly string[];
    /** The lock entry the guard checks. */
    readonly lockName: string;
  }
  | {
    readonly kind: "http";
    readonly path: readonly string[];
    readonly lockName: string;
    /** The loopback port of the entry's guard. */
    readonly port: number;
  };

/** The guard's loopback URL for an upstream: same path, `127.0.0.1:port`, the mark. */
export function wrappedUrl(upstream: string, port: number): string {
  const u = new URL(upstream);
  return `http://127.0.0.1:${port}${u.pathname}${GUARD_UPSTREAM_MARK}${upstream}`;
}

/** The arguments of a wrapped stdio entry. */
export function guardArgs(
  inv: GuardInvocation,
  lockName: string,
  original: readonly string[],
): string[] {
  return [
    ...inv.program.slice(1),
    "guard",
    "--lock",
    inv.lockPath,
    "--server",
    lockName,
    ...(inv.mode ? ["--mode", inv.mode] : []),
    "--",
    ...original,
  ];
}

/** What an edit did to the text. */
export interface EditResult {
  /** The new text. */
  readonly text: string;
  /** Entries (JSON pointers) whose replaced members held comments that are gone. */
  readonly droppedComments: string[];
}

interface Replacement {
  readonly span: Span;
  readonly text: string;
}

function indentOf(text: string, at: number): string {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** An array of strings, laid out like the array it replaces (one per line, or inline). */
function arrayText(items: readonly string[], text: string, blanked: string, old?: Span): string {
  const json = items.map((x) => JSON.stringify(x));
  if (old && text.slice(old.start, old.end).includes("\n")) {
    const close = indentOf(text, old.end - 1);
    const elements = arrayElements(blanked, old.start);
    const inner = elements.length ? indentOf(text, elements[0].start) : close + "  ";
    return `[\n${json.map((j) => inner + j).join(",\n")}\n${close}]`;
  }
  return `[${json.join(", ")}]`;
}

function pointer(path: readonly string[]): string {
  return "/" + path.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
}

function valueIn(doc: JsonValue, path: readonly string[]): JsonValue | undefined {
  let v: JsonValue | undefined = doc;
  for (const key of path) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
    v = (v as JsonObject)[key];
  }
  return v;
}

/** The spans and values of one entry, for editing. */
function entryAt(text: string, blanked: string, doc: JsonValue, path: readonly string[]) {
  const span = valueAt(blanked, path);
  const value = valueIn(doc, path);
  if (!span || value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error(`no object at ${pointer(path)}`);
  }
  const members = objectMembers(blanked, span.start);
  const member = (name: string): MemberSpan | undefined => members.find((m) => m.name === name);
  return { span, value: value as JsonObject, member, text };
}

/** Replaces a stdio entry's command and args (inserting args after command when absent). */
function commandEdits(
  e: ReturnType<typeof entryAt>,
  blanked: string,
  command: string,
  args: readonly string[],
): Replacement[] {
  const commandMember = e.member("command")!;
  const out: Replacement[] = [{ span: commandMember.value, text: JSON.stringify(command) }];
  const argsMember = e.member("args");
  if (argsMember) {
    out.push({ span: argsMember.value, text: arrayText(args, e.text, blanked, argsMember.value) });
  } else {
    const before = e.text.slice(e.span.start, commandMember.nameSpan.start);
    const sep = before.includes("\n")
      ? `,\n${indentOf(e.text, commandMember.nameSpan.start)}`
      : ", ";
    const at = commandMember.value.end;
    out.push({ span: { start: at, end: at }, text: `${sep}"args": ${arrayText(args, "", "")}` });
  }
  return out;
}

function apply(text: string, blanked: string, replacements: Replacement[], owners: string[]) {
  const dropped = new Set<string>();
  const order = replacements.map((r, k) => ({ r, owner: owners[k] }))
    .sort((a, b) => b.r.span.start - a.r.span.start);
  let out = text;
  for (const { r, owner } of order) {
    if (text.slice(r.span.start, r.span.end) !== blanked.slice(r.span.start, r.span.end)) {
      dropped.add(owner);
    }
    out = out.slice(0, r.span.start) + r.text + out.slice(r.span.end);
  }
  return { text: out, droppedComments: [...dropped] };
}

/**
 * Wraps the given entries of a client config (JSONC text already accepted by the parser).
 *
 * @example
 * ```ts
 * import { wrapConfigText } from "./wrap.ts";
 * const text = '{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-fs"]}}}';
 * wrapConfigText(text, [{ kind: "stdio", path: ["mcpServers", "fs"], lockName: "fs" }], {
 *   program: ["/usr/local/bin/schemapin"],
 *   lockPath: "/src/app/contractpin.lock",
 * }).text;
 * // '{"mcpServers": {"fs": {"command": "/usr/local/bin/schemapin", "args": ["guard", "--lock",
 * //   "/src/app/contractpin.lock", "--server", "fs", "--", "npx", "-y", "server-fs"]}}}'
 * ```
 */
export function wrapConfigText(
  text: string,
  edits: readonly WrapEdit[],
  inv: GuardInvocation,
): EditResult {
  const blanked = blankJsoncText(text);
  const doc = parseJsonc(new TextEncoder().encode(text));
  const replacements: Replacement[] = [];
  const owners: string[] = [];
  for (const edit of edits) {
    const e = entryAt(text, blanked, doc, edit.path);
    let list: Replacement[];
    if (edit.kind === "stdio") {
      const command = e.value.command as string;
      const args = (e.value.args ?? []) as string[];
      list = commandEdits(
        e,
        blanked,
        inv.program[0],
        guardArgs(inv, edit.lockName, [command, ...args]),
      );
    } else {
      const key = typeof e.value.url === "string" ? "url" : "serverUrl";
      list = [{
        span: e.member(key)!.value,
        text: JSON.stringify(wrappedUrl(e.value[key] as string, edit.port)),
      }];
    }
    replacements.push(...list);
    owners.push(...list.map(() => pointer(edit.path)));
  }
  return apply(text, blanked, replacements, owners);
}

/**
 * Puts back the original command or URL of the given wrapped entries. `args` keep their
 * layout (one per line or inline); an entry that had none keeps an `"args"` member (`[]` when
 * the command had no arguments) — the backup restores the exact bytes
 * ({@linkcode backupMatches}).
 *
 * @example
 * ```ts
 * import { unwrapConfigText } from "./wrap.ts";
 * const text = '{"mcpServers": {"fs": {"command": "schemapin", "args": ["guard", "--server", "fs", "--", "npx", "fs"]}}}';
 * unwrapConfigText(text, [["mcpServers", "fs"]]).text;
 * // '{"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}}}'
 * ```
 */
export function unwrapConfigText(text: string, paths: readonly (readonly string[])[]): EditResult {
  const blanked = blankJsoncText(text);
  const doc = parseJsonc(new TextEncoder().encode(text));
  const replacements: Replacement[] = [];
  const owners: string[] = [];
  for (const path of paths) {
    const e = entryAt(text, blanked, doc, path);
    let list: Replacement[];
    if (typeof e.value.command === "string") {
      const w = readGuardedCommand(e.value.command, (e.value.args ?? []) as string[]);
      if (!w) throw new Error(`${pointer(path)} is not wrapped`);
      list = commandEdits(e, blanked, w.original[0], w.original.slice(1));
    } else {
      const key = typeof e.value.url === "string" ? "url" : "serverUrl";
      const upstream = readGuardedUrl(e.value[key] as string);
      if (upstream === undefined) throw new Error(`${pointer(path)} is not wrapped`);
      list = [{ span: e.member(key)!.value, text: JSON.stringify(upstream) }];
    }
    replacements.push(...list);
    owners.push(...list.map(() => pointer(path)));
  }
  return apply(text, blanked, replacements, owners);
}

/**
 * True when `restored` (the backup taken before wrapping) is what unwrapping `unwrapped` should
 * give back: the text outside the wrapped entries is identical, and each wrapped entry, once
 * unwrapped, has the backup's value (an empty `args` counting as none). Then the backup's
 * bytes are the exact restoration; otherwise the config changed since it was wrapped.
 */
export function backupMatches(
  unwrapped: string,
  backup: string,
  paths: readonly (readonly string[])[],
): boolean {
  let a: JsonValue, b: JsonValue;
  try {
    a = parseJsonc(new TextEncoder().encode(unwrapped));
    b = parseJsonc(new TextEncoder().encode(backup));
  } catch {
    return false;
  }
  const blankA = blankJsoncText(unwrapped), blankB = blankJsoncText(backup);
  const spansA: Span[] = [], spansB: Span[] = [];
  for (const path of paths) {
    const sa = valueAt(blankA, path), sb = valueAt(blankB, path);
    if (!sa || !sb) return false;
    if (comparable(valueIn(a, path)) !== comparable(valueIn(b, path))) return false;
    spansA.push(sa);
    spansB.push(sb);
  }
  return outside(unwrapped, spansA) === outside(backup, spansB);
}

function comparable(v: JsonValue | undefined): string {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return JSON.stringify(v);
  const o = { ...v };
  if (Array.isArray(o.args) && o.args.length === 0) delete o.args;
  return JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
}

function outside(text: string, spans: Span[]): string {
  const sorted = [...spans].sort((x, y) => x.start - y.start);
  let out = "", at = 0;
  for (const s of sorted) {
    out += text.slice(at, s.start) + "\u0000";
    at = s.end;
  }
  return out + text.slice(at);
}
