/**
 * Rewriting the text of an MCP client configuration so that its servers run through
 * `schemapin guard` (`schemapin guard wrap`), and back (`guard unwrap`). Text in, text out:
 * only the members that change are replaced — every other byte, comments of a JSONC file
 * included, stays.
 *
 * - A stdio entry keeps its `env`, `cwd` and everything else; `command` becomes schemapin and
 *   `args` become `[…, "guard", "--lock", LOCK, "--server", NAME, "--", <command>, <args>…]`:
 *   the original command stays visible after `--`, and unwrapping is reading it back.
 * - An HTTP entry's `url` (Windsurf: `serverUrl`) points at a guard on loopback, the original
 *   URL after the mark.
 *
 * How a wrapped entry is written and read is ./marker.ts.
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
import { jsonPointer, urlKeyOf, valueIn } from "./formats.ts";
import {
  guardArgs,
  type GuardInvocation,
  readGuardedCommand,
  readGuardedUrl,
  wrappedUrl,
} from "./marker.ts";

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

/** The spans and values of one entry, for editing. */
function entryAt(text: string, blanked: string, doc: JsonValue, path: readonly string[]) {
  const span = valueAt(blanked, path);
  const value = valueIn(doc, path);
  if (!span || value === null || typeof value !== "object" || Array.isArray(value)) {
    // A programming error: the paths come from the parsed entries of this text.
    throw new Error(`no object at ${jsonPointer(path)}`);
  }
  const members = objectMembers(blanked, span.start);
  const member = (name: string): MemberSpan | undefined => members.find((m) => m.name === name);
  return { span, value: value as JsonObject, member, text };
}

/** Replaces a stdio entry's command and args (inserting args after command when absent). */
function commandEdits(
  e: EditedEntry,
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

/** One entry of the text to edit: its spans and value. */
type EditedEntry = ReturnType<typeof entryAt>;

/**
 * Replaces members of the entries `items` name (their paths, `pathOf`) with what `replace`
 * says, and notes the entries whose replaced members held comments.
 */
function editEntries<T>(
  text: string,
  items: readonly T[],
  pathOf: (item: T) => readonly string[],
  replace: (e: EditedEntry, blanked: string, item: T) => Replacement[],
): EditResult {
  const blanked = blankJsoncText(text);
  const doc = parseJsonc(new TextEncoder().encode(text));
  const replacements: Replacement[] = [];
  const owners: string[] = [];
  for (const item of items) {
    const path = pathOf(item);
    const list = replace(entryAt(text, blanked, doc, path), blanked, item);
    replacements.push(...list);
    owners.push(...list.map(() => jsonPointer(path)));
  }
  return apply(text, blanked, replacements, owners);
}

/**
 * Wraps the given entries of a client config (JSONC text already accepted by the parser).
 *
 * @example
 * ```ts
 * import { wrapConfigText } from "./wrap_text.ts";
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
  return editEntries(text, edits, (edit) => edit.path, (e, blanked, edit) => {
    if (edit.kind === "stdio") {
      const command = e.value.command as string;
      const args = (e.value.args ?? []) as string[];
      return commandEdits(
        e,
        blanked,
        inv.program[0],
        guardArgs(inv, edit.lockName, [command, ...args]),
      );
    }
    const key = urlKeyOf(e.value) ?? "serverUrl";
    return [{
      span: e.member(key)!.value,
      text: JSON.stringify(wrappedUrl(e.value[key] as string, edit.port)),
    }];
  });
}

/**
 * Puts back the original command or URL of the given wrapped entries. `args` keep their
 * layout (one per line or inline); an entry that had none keeps an `"args"` member (`[]` when
 * the command had no arguments) — the backup restores the exact bytes
 * ({@linkcode backupMatches}).
 *
 * @example
 * ```ts
 * import { unwrapConfigText } from "./wrap_text.ts";
 * const text = '{"mcpServers": {"fs": {"command": "schemapin", "args": ["guard", "--server", "fs", "--", "npx", "fs"]}}}';
 * unwrapConfigText(text, [["mcpServers", "fs"]]).text;
 * // '{"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}}}'
 * ```
 */
export function unwrapConfigText(text: string, paths: readonly (readonly string[])[]): EditResult {
  return editEntries(text, paths, (path) => path, (e, blanked, path) => {
    // A path that is not wrapped is a programming error: callers pass the wrapped entries.
    if (typeof e.value.command === "string") {
      const w = readGuardedCommand(e.value.command, (e.value.args ?? []) as string[]);
      if (!w) throw new Error(`${jsonPointer(path)} is not wrapped`);
      return commandEdits(e, blanked, w.original[0], w.original.slice(1));
    }
    const key = urlKeyOf(e.value) ?? "serverUrl";
    const upstream = readGuardedUrl(e.value[key] as string);
    if (upstream === undefined) throw new Error(`${jsonPointer(path)} is not wrapped`);
    return [{ span: e.member(key)!.value, text: JSON.stringify(upstream) }];
  });
}

/**
 * True when `restored` (the backup taken before wrapping) is what unwrapping `unwrapped` should
 * give back: the text outside the wrapped entries is identical, and each wrapped entry, once
 * unwrapped, has the backup's value (an empty `args` counting as none). Then the backup's
 * bytes are the exact restoration; otherwise the config changed since it was wrapped.
 *
 * @example
 * ```ts
 * import { backupMatches } from "./wrap_text.ts";
 * const backup = '{"mcpServers": {"fs": {"command": "npx"}}}';
 * backupMatches('{"mcpServers": {"fs": {"command": "npx", "args": []}}}', backup, [
 *   ["mcpServers", "fs"],
 * ]); // true
 * ```
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
