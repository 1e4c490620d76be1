/**
 * Reports the files of `lib/` over a line budget and the functions over a length budget
 * (issue 36 item 3: "no file in lib/ over about 700 lines, and no function over about 150").
 * A report, not a gate: it prints and exits 0.
 *
 *     deno run --allow-read scripts/size_report.ts [--files 700] [--functions 150] [DIR]
 *
 * Functions are found by a scanner that follows braces outside strings, template literals,
 * comments and regular-expression literals: `function` declarations and expressions, methods
 * and accessors, and arrow functions with a block body. A function's length is its lines from
 * its head to its closing brace; nested functions count in their parent as well.
 *
 * @module
 */
import { parseArgs } from "node:util";

/** A function found by {@linkcode functionSpans}. */
export interface FunctionSpan {
  /** Its name, or `(anonymous)`. */
  readonly name: string;
  /** Its first line, 1-based. */
  readonly start: number;
  /** Its last line (the closing brace), 1-based. */
  readonly end: number;
}

const REGEX_BEFORE = new Set("(,=:[!&|?{};+-*%<>~^".split(""));

/** Line starts of `text` (index of each line's first character). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], index: number): number {
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** The name of the function whose body opens at `brace`, from the text before it. */
function functionHead(text: string, brace: number): string | undefined {
  const before = text.slice(Math.max(0, brace - 400), brace);
  const arrow = /=>\s*$/.test(before);
  const m =
    /(?:function\s*\*?\s*([A-Za-z_$][\w$]*)?|(?:^|[\s;{}])(?:async\s+|static\s+|get\s+|set\s+|\*\s*)*([A-Za-z_$#][\w$]*)\s*(?:<[^()]*>)?)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*(?::\s*[^{;=]+)?$/
      .exec(before);
  if (arrow) {
    const name = /(?:const|let|var)\s+([A-Za-z_$][\w$]*)[^=]*=[^=]*=>\s*$/.exec(before);
    return name?.[1] ?? "(arrow)";
  }
  if (!m) return undefined;
  const name = m[1] ?? m[2];
  if (name && ["if", "for", "while", "switch", "catch", "with", "return"].includes(name)) {
    return undefined;
  }
  return name ?? "(anonymous)";
}

/**
 * The functions of a TypeScript source text with their line spans.
 *
 * @example
 * ```ts
 * import { functionSpans } from "./size_report.ts";
 * functionSpans("function f() {\n  return 1;\n}\n"); // [{ name: "f", start: 1, end: 3 }]
 * ```
 */
export function functionSpans(text: string): FunctionSpan[] {
  const starts = lineStarts(text);
  const out: FunctionSpan[] = [];
  const stack: ({ name: string; start: number } | undefined)[] = [];
  const templates: number[] = []; // brace depth at which each open `${` resumes a template
  let last = ""; // the last significant character, to tell a regex from a division
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "/" && text[i + 1] === "/") {
      i = text.indexOf("\n", i);
      if (i < 0) break;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      i = text.indexOf("*/", i + 2) + 1;
      if (i <= 0) break;
      continue;
    }
    if (c === '"' || c === "'") {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === "\\") i++;
      last = c;
      continue;
    }
    if (c === "`" || (c === "}" && templates.at(-1) === stack.length)) {
      if (c === "}") templates.pop();
      for (i++; i < text.length && text[i] !== "`"; i++) {
        if (text[i] === "\\") i++;
        else if (text[i] === "$" && text[i + 1] === "{") {
          templates.push(stack.length);
          i++;
          break;
        }
      }
      last = "`";
      continue;
    }
    if (
      c === "/" &&
      (REGEX_BEFORE.has(last) || last === "" || /\breturn\s*$/.test(text.slice(i - 8, i)))
    ) {
      let inClass = false;
      for (i++; i < text.length && (text[i] !== "/" || inClass) && text[i] !== "\n"; i++) {
        if (text[i] === "\\") i++;
        else if (text[i] === "[") inClass = true;
        else if (text[i] === "]") inClass = false;
      }
      last = "/";
      continue;
    }
    if (c === "{") {
      const name = functionHead(text, i);
      stack.push(name === undefined ? undefined : { name, start: lineOf(starts, i) });
    } else if (c === "}") {
      const open = stack.pop();
      if (open) out.push({ name: open.name, start: open.start, end: lineOf(starts, i) });
    }
    if (!/\s/.test(c)) last = c;
  }
  return out.sort((a, b) => a.start - b.start);
}

async function* tsFiles(dir: string): AsyncGenerator<string> {
  const entries = [];
  for await (const e of Deno.readDir(dir)) entries.push(e);
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* tsFiles(path);
    else if (e.isFile && e.name.endsWith(".ts")) yield path;
  }
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { files: { type: "string" }, functions: { type: "string" } },
    allowPositionals: true,
  });
  const fileBudget = Number(values.files ?? 700);
  const fnBudget = Number(values.functions ?? 150);
  const root = positionals[0] ?? "lib";
  const bigFiles: string[] = [];
  const bigFns: string[] = [];
  let files = 0, lines = 0;
  for await (const path of tsFiles(root)) {
    const text = await Deno.readTextFile(path);
    const n = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    files++;
    lines += n;
    if (n > fileBudget) bigFiles.push(`${String(n).padStart(6)}  ${path}`);
    for (const f of functionSpans(text)) {
      const len = f.end - f.start + 1;
      if (len > fnBudget) bigFns.push(`${String(len).padStart(6)}  ${path}:${f.start}  ${f.name}`);
    }
  }
  const desc = (a: string, b: string) => parseInt(b) - parseInt(a);
  console.log(`${root}: ${files} files, ${lines} lines`);
  console.log(`files over ${fileBudget} lines: ${bigFiles.length}`);
  for (const l of bigFiles.sort(desc)) console.log(l);
  console.log(`functions over ${fnBudget} lines: ${bigFns.length}`);
  for (const l of bigFns.sort(desc)) console.log(l);
}
