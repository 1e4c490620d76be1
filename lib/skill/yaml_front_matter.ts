/**
 * A strict reader of the YAML front matter of a skill's `SKILL.md` (Agent Skills format), for
 * the SEP-2640 host rule: compare it field by field with a listing's `frontmatter` object.
 * It reads a small YAML subset — block mappings and sequences, one-line flow sequences of
 * scalars, plain, quoted and block (`|`, `>`) scalars, comments — and fails closed on anything
 * else (anchors, aliases, tags, directives, complex keys, merge keys, duplicate keys, tabs outside
 * quoted and block scalars, multi-line plain or quoted scalars, flow mappings with content,
 * characters YAML forbids or YAML 1.1 reads as line breaks, nesting beyond 32 levels), naming
 * the line. Pure.
 *
 * @module
 */
import { argumentError, checkArg } from "../arguments.ts";
import { SchemaPinError } from "../errors.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/types.ts";

/**
 * A value as written. A plain (unquoted) scalar keeps its source text, so that it can match a
 * listed string or a YAML 1.2 core-schema number, boolean or null; `quoted` is a single- or
 * double-quoted scalar or a block scalar (`|`, `>`, after folding and chomping).
 *
 * @example
 * ```ts
 * import type { FrontMatterNode } from "./yaml_front_matter.ts";
 * const version: FrontMatterNode = { kind: "plain", text: "1.10" };
 * const tools: FrontMatterNode = { kind: "seq", items: [{ kind: "quoted", text: "Read" }] };
 * ```
 */
export type FrontMatterNode =
  | { kind: "plain"; text: string }
  | { kind: "quoted"; text: string }
  | { kind: "seq"; items: FrontMatterNode[] }
  | { kind: "map"; entries: [string, FrontMatterNode][] };

/**
 * The parsed front matter of a `SKILL.md`.
 *
 * @example
 * ```ts
 * import { parseSkillFrontMatter } from "./yaml_front_matter.ts";
 * const fm = parseSkillFrontMatter("---\nname: pdf\n---\n# PDF\n", "SKILL.md")!;
 * fm.fields.get("name"); // { kind: "plain", text: "pdf" }
 * fm.body; // "# PDF\n"
 * ```
 */
export interface SkillFrontMatter {
  /** The top-level keys, in file order, and their values. */
  readonly fields: ReadonlyMap<string, FrontMatterNode>;
  /** The text after the closing `---` line. */
  readonly body: string;
}

/**
 * One field on which a listing's `frontmatter` and the file disagree.
 *
 * @example
 * ```ts
 * import type { FrontMatterDifference } from "./yaml_front_matter.ts";
 * const d: FrontMatterDifference = { field: "metadata.version", listed: '"2.0"', file: '"2.1"' };
 * ```
 */
export interface FrontMatterDifference {
  /** Dotted path: `name`, `metadata.version`, `allowed-tools[1]` (odd keys JSON-quoted). */
  readonly field: string;
  /** The listing's value as JSON, or `(absent)`. */
  readonly listed: string;
  /** The file's value as JSON (plain scalars as strings), or `(absent)`. */
  readonly file: string;
}

type MapNode = Extract<FrontMatterNode, { kind: "map" }>;

const ESCAPES: Record<string, string> = { "\\": "\\", '"': '"', n: "\n", t: "\t", "/": "/" };
/** Characters YAML does not allow, or that YAML 1.1 (PyYAML) reads as line breaks. */
const FORBIDDEN =
  /[^\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\u{10000}-\u{10ffff}]/u;
const SEPARATOR = /:(?:[ \t]|$)/;
const INT = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const ABSENT = "(absent)";
const MAX_DEPTH = 32;

function isSeqItem(s: string): boolean {
  return /^-(?:[ \t]|$)/.test(s);
}

/** Why `s` cannot be a plain scalar (or plain key), or `undefined` when it can. */
function plainProblem(s: string, flow: boolean): string | undefined {
  const c = s[0];
  if (s.includes("\t")) return "a tab outside a quoted or block scalar";
  if (c === "&" || c === "*") return "an anchor or alias";
  if (c === "!") return "a tag";
  if (c === "%") return "a directive";
  if (c === "@" || c === "`") return `the reserved indicator \`${c}\``;
  if ("[]{},|>".includes(c)) return `a scalar starting with \`${c}\``;
  if (/^[-?:](?: |$)/.test(s)) {
    return c === "?" ? "a complex key `? `" : `\`${c}\` where a scalar was expected`;
  }
  if (SEPARATOR.test(s)) return "`: ` inside a plain scalar";
  if (flow && /[[\]{}]| #/.test(s)) return "a nested collection or comment in a flow sequence";
  return undefined;
}

/** The folded or literal text of a block scalar's lines (indentation removed). */
function blockText(lines: string[], folded: boolean, chomp: string): string {
  let end = lines.length;
  while (end > 0 && lines[end - 1] === "") end--;
  if (end === 0) return chomp === "+" ? "\n".repeat(lines.length) : "";
  let out = "";
  let empties = 0;
  let prevMore: boolean | undefined;
  for (const line of lines.slice(0, end)) {
    if (line === "") {
      empties++;
      continue;
    }
    const more = line[0] === " " || line[0] === "\t";
    if (prevMore === undefined) out += "\n".repeat(empties);
    else if (folded && !prevMore && !more) out += empties ? "\n".repeat(empties) : " ";
    else out += "\n".repeat(empties + 1);
    out += line;
    empties = 0;
    prevMore = more;
  }
  if (chomp === "-") return out;
  return out + "\n" + (chomp === "+" ? "\n".repeat(lines.length - end) : "");
}

/** The error for line `at` (0-based) of `source`. */
function reject(source: string, at: number, why: string): never {
  const line = at + 1;
  const what = `the front matter uses YAML this reader does not accept (${why})`;
  throw new SchemaPinError("INPUT_INVALID", `${source}, line ${line}: ${what}`, { source, line });
}

/** A recursive-descent reader over the lines before the closing `---` line. */
class Reader {
  i = 1;
  depth = 0;
  constructor(readonly lines: string[], readonly source: string) {}

  fail(why: string, at = this.i): never {
    return reject(this.source, at, why);
  }

  /** Skips blank and comment lines; the indentation of the next line, or -1 at the end. */
  next(): number {
    for (; this.i < this.lines.length; this.i++) {
      const [, lead, first] = /^([ \t]*)(.?)/.exec(this.lines[this.i])!;
      if (lead.includes("\t")) this.fail("a tab in indentation");
      if (first === "") continue;
      if (/^(?:---|\.\.\.)(?:[ \t]|$)/.test(this.lines[this.i])) this.fail("a document marker");
      if (first !== "#") return lead.length;
    }
    return -1;
  }

  /** The top-level mapping (at the indentation of its first key). */
  top(): MapNode {
    const n = this.next();
    if (n < 0) return { kind: "map", entries: [] };
    if (isSeqItem(this.lines[this.i].slice(n))) this.fail("a sequence instead of a mapping");
    const map = this.map(n);
    if (this.next() >= 0) this.fail("a line indented less than the first key");
    return map;
  }

  /** A block node whose first line (at `this.i`) is indented by `n`. */
  block(n: number): FrontMatterNode {
    if (++this.depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
    const node = isSeqItem(this.lines[this.i].slice(n)) ? this.seq(n) : this.map(n);
    this.depth--;
    return node;
  }

  map(indent: number): MapNode {
    const entries: [string, FrontMatterNode][] = [];
    const seen = new Map<string, number>();
    for (let n = this.next(); n >= indent; n = this.next()) {
      const at = this.i;
      const text = this.lines[at].slice(indent);
      if (n > indent) this.fail("a line indented deeper than its block (multi-line plain scalar?)");
      if (isSeqItem(text)) this.fail("a sequence item where a key was expected");
      const { key, rest } = this.splitKey(text) ??
        this.fail(plainProblem(text, false) ?? "a line with no `key:`");
      const was = seen.get(key);
      if (was !== undefined) this.fail(`duplicate key ${JSON.stringify(key)} (line ${was + 1})`);
      seen.set(key, at);
      this.i++;
      entries.push([key, this.value(rest.replace(/^ +/, ""), indent, at, true)]);
    }
    return { kind: "map", entries };
  }

  /** A key and the text after its `:`, or `undefined` when `text` is not a `key:` line. */
  splitKey(text: string): { key: string; rest: string } | undefined {
    if (text[0] === '"' || text[0] === "'") {
      const q = this.quoted(text);
      const m = /^ *:(?:[ \t]|$)/.exec(text.slice(q.end));
      return m ? { key: q.value, rest: text.slice(q.end + m[0].length) } : undefined;
    }
    const m = SEPARATOR.exec(text.replace(/ #.*$/, ""));
    if (!m) return undefined;
    const key = text.slice(0, m.index).trimEnd();
    const why = key === "" ? "an empty key" : plainProblem(text.slice(0, m.index), false);
    if (why) this.fail(why);
    if (key === "<<") this.fail("a merge key `<<`");
    return { key, rest: text.slice(m.index + 1) };
  }

  seq(indent: number): FrontMatterNode {
    const items: FrontMatterNode[] = [];
    for (let n = this.next(); n >= indent; n = this.next()) {
      if (n > indent) this.fail("a line indented deeper than its block (multi-line plain scalar?)");
      if (!isSeqItem(this.lines[this.i].slice(n))) break;
      items.push(this.item(n));
    }
    return { kind: "seq", items };
  }

  /** One `- …` item of a sequence indented by `n`. */
  item(n: number): FrontMatterNode {
    const at = this.i;
    const line = this.lines[at];
    const col = n + 1 + /^ */.exec(line.slice(n + 1))![0].length;
    const rest = line.slice(col);
    if (rest[0] === "\t") this.fail("a tab after `-`");
    if (isSeqItem(rest) || (rest[0] !== "#" && this.splitKey(rest))) {
      // `- key: v` or `- - v`: the item is a block that starts at column `col` of this line.
      this.lines[at] = " ".repeat(col) + rest;
      return this.block(col);
    }
    this.i++;
    return this.value(rest, n, at, false);
  }

  /** The value after `key:` or `- ` (`text`, leading blanks removed) on line `at`. */
  value(text: string, parent: number, at: number, inMap: boolean): FrontMatterNode {
    if (text === "" || text[0] === "#") return this.nested(parent, inMap);
    const c = text[0];
    if (c === "\t") this.fail("a tab after `:`", at);
    if (c === "|" || c === ">") return this.blockScalar(text, parent, at);
    if (c === "[") return this.flowSeq(text, at);
    if (c === "{") {
      if (!/^\{ *\}(?: *$| +#)/.test(text)) this.fail("a flow mapping", at);
      return { kind: "map", entries: [] };
    }
    if (c === '"' || c === "'") {
      const q = this.quoted(text, at);
      this.trailing(text.slice(q.end), at);
      return { kind: "quoted", text: q.value };
    }
    const comment = text.search(/ #/);
    const plain = comment < 0 ? text : text.slice(0, comment);
    const why = plainProblem(plain, false);
    if (why) this.fail(why, at);
    return { kind: "plain", text: plain.trimEnd() };
  }

  /** The block under an empty `key:` or `-`, or an empty plain scalar when there is none. */
  nested(parent: number, inMap: boolean): FrontMatterNode {
    const n = this.next();
    if (n > parent) return this.block(n);
    if (n === parent && inMap && isSeqItem(this.lines[this.i].slice(n))) return this.seq(n);
    return { kind: "plain", text: "" };
  }

  /** Only blanks or a comment may follow a value on its line. */
  trailing(rest: string, at: number): void {
    if (!/^(?: *$| +#)/.test(rest)) this.fail("text after a quoted value or `]`", at);
  }

  /** A one-line single- or double-quoted scalar at `text[from]`, and the index after it. */
  quoted(text: string, at = this.i, from = 0): { value: string; end: number } {
    const single = text[from] === "'";
    const re = single ? /'((?:[^']|'')*)'/y : /"((?:[^"\\]|\\.)*)"/y;
    re.lastIndex = from;
    const m = re.exec(text);
    if (!m) return this.fail("an unterminated or multi-line quoted scalar", at);
    const value = single
      ? m[1].replaceAll("''", "'")
      : m[1].replace(/\\(u.{0,4}|.)/g, (_, e: string) => this.unescape(e, at));
    return { value, end: re.lastIndex };
  }

  /** The character of a double-quoted escape (`e` is what follows the backslash). */
  unescape(e: string, at: number): string {
    if (Object.hasOwn(ESCAPES, e)) return ESCAPES[e];
    const code = /^u[0-9a-fA-F]{4}$/.test(e) ? parseInt(e.slice(1), 16) : 0xd800;
    if (code >= 0xd800 && code < 0xe000) this.fail(`the escape \\${e}`, at);
    return String.fromCharCode(code);
  }

  /** `[a, "b c", 'd']` on one line. */
  flowSeq(text: string, at: number): FrontMatterNode {
    const items: FrontMatterNode[] = [];
    const past = (re: RegExp, k: number) => {
      re.lastIndex = k;
      re.exec(text);
      return re.lastIndex;
    };
    const skip = (k: number) => past(/ */y, k);
    let k = skip(1);
    while (text[k] !== "]") {
      if (text[k] === '"' || text[k] === "'") {
        const q = this.quoted(text, at, k);
        items.push({ kind: "quoted", text: q.value });
        k = q.end;
      } else {
        const end = past(/[^,\]]*/y, k);
        const raw = text.slice(k, end);
        const why = raw.trim() === "" ? "an empty flow sequence entry" : plainProblem(raw, true);
        if (why) this.fail(why, at);
        items.push({ kind: "plain", text: raw.trimEnd() });
        k = end;
      }
      k = skip(k);
      if (text[k] === ",") k = skip(k + 1);
      else if (text[k] !== "]") this.fail("a flow sequence not closed on its line", at);
    }
    this.trailing(text.slice(k + 1), at);
    return { kind: "seq", items };
  }

  /** A `|` or `>` block scalar whose header is `text`, under a block indented by `parent`. */
  blockScalar(text: string, parent: number, at: number): FrontMatterNode {
    const m = /^([|>])(?:([+-])([1-9])?|([1-9])([+-])?)?(?: *$| +#)/.exec(text);
    if (!m) this.fail("a block scalar header other than |, > with chomping and indentation", at);
    const digit = m[3] ?? m[4];
    const indent = digit ? parent + Number(digit) : this.detectIndent(parent);
    const lines: string[] = [];
    for (; this.i < this.lines.length; this.i++) {
      const line = this.lines[this.i];
      const spaces = /^ */.exec(line)![0].length;
      if (spaces >= indent) lines.push(line.slice(indent));
      else if (spaces === line.length) lines.push("");
      else if (line[spaces] === "\t") this.fail("a tab in a block scalar's indentation");
      else break;
    }
    return { kind: "quoted", text: blockText(lines, m[1] === ">", m[2] ?? m[5] ?? "") };
  }

  /** The indentation of a block scalar's first text line (Infinity when it has none). */
  detectIndent(parent: number): number {
    let widest = 0;
    for (let k = this.i; k < this.lines.length; k++) {
      const line = this.lines[k];
      const spaces = /^ */.exec(line)![0].length;
      if (line[spaces] === "\t") this.fail("a tab in a block scalar's indentation", k);
      if (spaces === line.length) widest = Math.max(widest, spaces);
      else if (spaces <= parent) return Infinity;
      else if (widest > spaces) this.fail("a leading blank line longer than the text's indent", k);
      else return spaces;
    }
    return Infinity;
  }
}

/**
 * Parses the front matter block of `SKILL.md` text: a first line `---` (after an optional
 * BOM), closed by a line `---`. Returns `undefined` when the text does not start with `---`.
 * Throws {@linkcode SchemaPinError} `INPUT_INVALID`, naming `source` and the 1-based line, for
 * a block that is never closed and for YAML outside the supported subset or malformed.
 *
 * @example
 * ```ts
 * import { parseSkillFrontMatter } from "./yaml_front_matter.ts";
 * const fm = parseSkillFrontMatter("---\nname: pdf\nmetadata:\n  version: \"2.1\"\n---\n", "SKILL.md");
 * fm?.fields.get("metadata"); // { kind: "map", entries: [["version", { kind: "quoted", text: "2.1" }]] }
 * parseSkillFrontMatter("# no front matter", "SKILL.md"); // undefined
 * parseSkillFrontMatter("---\nname: &a x\n---\n", "SKILL.md"); // throws INPUT_INVALID (line 2)
 * ```
 */
export function parseSkillFrontMatter(text: string, source: string): SkillFrontMatter | undefined {
  checkArg("parseSkillFrontMatter", "text", text, "string");
  checkArg("parseSkillFrontMatter", "source", source, "string");
  const stripped = text.replace(/^\ufeff/, "");
  const raw = stripped.split("\n");
  const lines = raw.map((l) => l.endsWith("\r") ? l.slice(0, -1) : l);
  if (lines[0].trimEnd() !== "---") return undefined;
  let close = 1;
  while (close < lines.length && lines[close].trimEnd() !== "---") close++;
  if (close === lines.length) reject(source, 0, "a front matter block with no closing `---` line");
  const block = lines.slice(1, close).join("\n");
  const bad = FORBIDDEN.exec(block);
  if (bad) {
    const code = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    reject(source, block.slice(0, bad.index).split("\n").length, `the character U+${code}`);
  }
  const top = new Reader(lines.slice(0, close), source).top();
  const offset = raw.slice(0, close + 1).reduce((n, l) => n + l.length + 1, 0);
  return { fields: new Map(top.entries), body: stripped.slice(offset) };
}

function nodeJson(node: FrontMatterNode): JsonValue {
  if (node.kind === "seq") return node.items.map(nodeJson);
  return node.kind === "map" ? objectJson(node.entries) : node.text;
}

function objectJson(entries: Iterable<[string, FrontMatterNode]>): JsonObject {
  return Object.fromEntries([...entries].map(([k, v]) => [k, nodeJson(v)]));
}

function checkFrontMatter(fn: string, fm: unknown): void {
  if (!((fm as SkillFrontMatter | undefined)?.fields instanceof Map)) {
    throw argumentError(fn, "fm", "a SkillFrontMatter (parseSkillFrontMatter)", fm);
  }
}

/**
 * The front matter as a JSON object, every scalar a string (plain ones as written), as
 * FastMCP's YAML `BaseLoader` gives it.
 *
 * @example
 * ```ts
 * import { frontMatterJson, parseSkillFrontMatter } from "./yaml_front_matter.ts";
 * const fm = parseSkillFrontMatter("---\nname: pdf\nbeta: true\ntags: [a, 'b']\n---\n", "SKILL.md")!;
 * frontMatterJson(fm); // { name: "pdf", beta: "true", tags: ["a", "b"] }
 * ```
 */
export function frontMatterJson(fm: SkillFrontMatter): JsonObject {
  checkFrontMatter("frontMatterJson", fm);
  return objectJson(fm.fields);
}

/** Whether plain text `t` is, in the YAML 1.2 core schema, the JSON scalar `v` (or the string). */
function plainMatches(t: string, v: JsonValue): boolean {
  if (typeof v === "string") return v === t;
  if (typeof v === "boolean") return (v ? /^(true|True|TRUE)$/ : /^(false|False|FALSE)$/).test(t);
  if (v === null) return /^(null|Null|NULL|~|)$/.test(t);
  if (typeof v !== "number") return false;
  if (INT.test(t)) return Number(t) === v && (Number.isSafeInteger(v) || BigInt(v) === BigInt(t));
  return FLOAT.test(t) && Number(t) === v;
}

function fieldPath(path: string, key: string): string {
  const k = /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
  return path === "" ? k : `${path}.${k}`;
}

function json(v: JsonValue | undefined): string {
  return v === undefined ? ABSENT : JSON.stringify(v) ?? String(v);
}

function diffMap(listed: JsonObject, entries: MapNode["entries"], path: string) {
  const file = new Map(entries);
  const keys = [...file.keys(), ...Object.keys(listed).filter((k) => !file.has(k))];
  return keys.flatMap((k) =>
    diff(Object.hasOwn(listed, k) ? listed[k] : undefined, file.get(k), fieldPath(path, k))
  );
}

/** The differences between a listed value and a file's node (either may be absent). */
function diff(
  v: JsonValue | undefined,
  node: FrontMatterNode | undefined,
  field: string,
): FrontMatterDifference[] {
  if (node?.kind === "map" && isJsonObject(v)) return diffMap(v, node.entries, field);
  if (node?.kind === "seq" && Array.isArray(v) && v.length === node.items.length) {
    return node.items.flatMap((item, i) => diff(v[i], item, `${field}[${i}]`));
  }
  const same = v !== undefined &&
    (node?.kind === "quoted"
      ? v === node.text
      : node?.kind === "plain" && plainMatches(node.text, v));
  return same ? [] : [{ field, listed: json(v), file: json(node && nodeJson(node)) }];
}

/**
 * Compares a listing's `frontmatter` object with the parsed file, field by field and
 * recursively; `[]` when they agree. Key order does not matter; a key on one side only is a
 * difference. A plain scalar matches the same string, or the number, boolean or null it is in
 * the YAML 1.2 core schema (`1.10` matches `1.1` and `"1.10"`, not `"1.1"`); a quoted or block
 * scalar matches only the same string; sequences match arrays of the same length item by item.
 *
 * @example
 * ```ts
 * import { compareFrontMatter, parseSkillFrontMatter } from "./yaml_front_matter.ts";
 * const fm = parseSkillFrontMatter("---\nname: pdf\nmetadata:\n  version: 2\n---\n", "SKILL.md")!;
 * compareFrontMatter({ name: "pdf", metadata: { version: 2 } }, fm); // []
 * compareFrontMatter({ name: "pdf", metadata: { version: "3" } }, fm);
 * // [{ field: "metadata.version", listed: '"3"', file: '"2"' }]
 * ```
 */
export function compareFrontMatter(
  listed: JsonObject,
  fm: SkillFrontMatter,
): FrontMatterDifference[] {
  checkArg("compareFrontMatter", "listed", listed, "object");
  checkFrontMatter("compareFrontMatter", fm);
  return diffMap(listed, [...fm.fields], "");
}
