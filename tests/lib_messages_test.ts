// Issue 36 item 2: "No library message names a --flag or builds a command line." The library's
// messages speak of options in the library's terms (or return the facts), and the CLI renders its
// own words about flags and commands (cli/). This test reads every .ts file of lib/ with a small
// lexer that collects the text of string and template literals — not comments, not JSDoc, not
// regular-expression literals — and fails, naming file:line, on a literal that holds a CLI flag
// (`--` then a lowercase letter) or a command line (`schemapin` then a command of
// cli/commands/registry.ts). Synthetic sources below show that it can fail.
import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);

/** A piece of literal text and the line it starts on (1-based). */
export interface Literal {
  readonly text: string;
  readonly line: number;
}

/** After one of these characters (or `return`, or at the start), a `/` opens a regex. */
const REGEX_BEFORE = new Set("(,=:[!&|?{};+-*%<>~^".split(""));

/**
 * The string literals and the text parts of template literals of a TypeScript source, with their
 * lines. Comments (line, block and JSDoc) and regular-expression literals are skipped; the
 * expressions inside `${…}` are lexed as code (a string inside one is a literal too).
 */
export function literals(source: string): Literal[] {
  const out: Literal[] = [];
  let line = 1;
  // for each open `${`: the depth of ordinary braces inside it, so its `}` is told apart
  const templates: number[] = [];
  let last = ""; // the last significant character, to tell a regex from a division
  let i = 0;
  const advance = (to: number) => {
    for (let k = i; k < to && k < source.length; k++) if (source[k] === "\n") line++;
    i = to;
  };
  /** Reads template text from i (just after `` ` `` or the `}` closing `${`). */
  const templateText = () => {
    const startLine = line;
    let text = "";
    while (i < source.length) {
      const c = source[i];
      if (c === "\\") {
        text += source.slice(i, i + 2);
        advance(i + 2);
      } else if (c === "`") {
        advance(i + 1);
        last = "`";
        break;
      } else if (c === "$" && source[i + 1] === "{") {
        advance(i + 2);
        templates.push(0);
        last = "{";
        break;
      } else {
        text += c;
        advance(i + 1);
      }
    }
    out.push({ text, line: startLine });
  };
  while (i < source.length) {
    const c = source[i];
    if (c === "/" && source[i + 1] === "/") {
      const end = source.indexOf("\n", i);
      advance(end < 0 ? source.length : end);
      continue;
    }
    if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      advance(end < 0 ? source.length : end + 2);
      continue;
    }
    if (c === '"' || c === "'") {
      const startLine = line;
      let text = "";
      advance(i + 1);
      while (i < source.length && source[i] !== c && source[i] !== "\n") {
        if (source[i] === "\\") {
          text += source.slice(i, i + 2);
          advance(i + 2);
        } else {
          text += source[i];
          advance(i + 1);
        }
      }
      advance(i + 1);
      out.push({ text, line: startLine });
      last = c;
      continue;
    }
    if (c === "`") {
      advance(i + 1);
      templateText();
      continue;
    }
    if (templates.length > 0 && (c === "{" || c === "}")) {
      if (c === "{") templates[templates.length - 1]++;
      else if (templates[templates.length - 1] > 0) templates[templates.length - 1]--;
      else {
        templates.pop();
        advance(i + 1);
        templateText();
        continue;
      }
    }
    if (
      c === "/" &&
      (last === "" || REGEX_BEFORE.has(last) || /\breturn\s*$/.test(source.slice(i - 8, i)))
    ) {
      let inClass = false;
      advance(i + 1);
      while (i < source.length && (source[i] !== "/" || inClass) && source[i] !== "\n") {
        if (source[i] === "\\") advance(i + 2);
        else {
          if (source[i] === "[") inClass = true;
          else if (source[i] === "]") inClass = false;
          advance(i + 1);
        }
      }
      advance(i + 1);
      last = "/";
      continue;
    }
    if (!/\s/.test(c)) last = c;
    advance(i + 1);
  }
  return out;
}

/** The words after `schemapin` that name a command, read from the CLI's registry. */
async function commandWords(): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("cli/commands/registry.ts", root));
  const words = [...text.matchAll(/^\s*name: "([a-z-]+)",$/gm)].map((m) => m[1]);
  assert.ok(words.length >= 15, `read ${words.length} command names from the registry`);
  return words;
}

/** A CLI flag: `--` then a lowercase letter, not inside a longer run of dashes or a word. */
const FLAG = /(?<![-\w])--[a-z]/;

/**
 * A command line: `schemapin` then a command word, not followed by `:` — `schemapin guard:` is the
 * label a message of the guard starts with (the program and its part, as a diagnostic names
 * them), not a line anyone types.
 */
function commandLine(words: readonly string[]): RegExp {
  return new RegExp(`\\bschemapin (?:${words.join("|")})(?![\\w:-])`);
}

/**
 * Literals that hold a flag that is not schemapin's. Each entry is the file (relative to the
 * repository), a substring of the literal, and why it is allowed.
 */
const ALLOWED: readonly { file: string; contains: string; reason: string }[] = [
  {
    file: "lib/contractpin/secrets.ts",
    contains: "(run with --allow-env)",
    reason: "Deno's own permission flag: a library user on Deno who denied env access is told " +
      "how to grant it; it is no flag of the schemapin CLI",
  },
];

/** The literals of `source` that name a flag or build a command line, as `line: text`. */
export function offending(
  source: string,
  words: readonly string[],
  file = "",
): string[] {
  const command = commandLine(words);
  return literals(source)
    .filter((l) => FLAG.test(l.text) || command.test(l.text))
    .filter((l) => !ALLOWED.some((a) => a.file === file && l.text.includes(a.contains)))
    .map((l) => `${l.line}: ${l.text}`);
}

async function* tsFiles(dir: URL, rel: string): AsyncGenerator<string> {
  const entries = [];
  for await (const e of Deno.readDir(new URL(rel, dir))) entries.push(e);
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const path = `${rel}/${e.name}`;
    if (e.isDirectory) yield* tsFiles(dir, path);
    else if (e.isFile && e.name.endsWith(".ts")) yield path;
  }
}

const WORDS = ["keygen", "contract", "guard", "verify-schema", "sign-tools"];

Deno.test("lib messages: a flag in a string literal is found, with its line", () => {
  const src = 'const a = 1;\nthrow new Error("give --public-key FILE");\n';
  assert.deepEqual(offending(src, WORDS), ["2: give --public-key FILE"]);
  assert.deepEqual(offending("const s = 'use --max-bytes';", WORDS), ["1: use --max-bytes"]);
});

Deno.test("lib messages: a flag in a template literal is found, in any of its parts", () => {
  assert.deepEqual(offending("const m = `--domain ${d} is bad`;", WORDS), ["1: --domain "]);
  assert.deepEqual(
    offending("const m = `a ${x}\nraise --max-entries ${y}`;", WORDS),
    ["1: \nraise --max-entries "],
  );
  // a string inside the expression of a template is a literal of its own
  assert.deepEqual(offending('const m = `a ${f("--json")} b`;', WORDS), ["1: --json"]);
  // nested templates and braces inside the expression
  assert.deepEqual(
    offending("const m = `a ${{ k: `--key ${1}` }.k} b`;\nconst n = 2;", WORDS),
    ["1: --key "],
  );
});

Deno.test("lib messages: a command line is found, a label and other words are not", () => {
  assert.deepEqual(offending('const h = "make one with `schemapin keygen`";', WORDS), [
    "1: make one with `schemapin keygen`",
  ]);
  assert.deepEqual(
    offending("const r = `re-run \\`schemapin contract init --force\\``;", WORDS).length,
    1,
  );
  assert.deepEqual(offending('const l = "schemapin guard: tools/call refused";', WORDS), []);
  assert.deepEqual(offending('const l = "schemapin reads version 1 only";', WORDS), []);
});

Deno.test("lib messages: the same text in comments, JSDoc and regexes passes", () => {
  const src = [
    "// give --public-key FILE, or run `schemapin keygen`",
    "/** Use `--max-bytes` (see `schemapin verify-schema --help`). */",
    "/* --json */",
    "const r = /--[a-z]+/g;",
    "const q = x.replace(/--json/, '');",
    "const d = a / 2 / b; // --not-a-string",
    "function f() { return /--domain/.test(s); }",
    'const ok = "---\\n-----BEGIN PUBLIC KEY-----";',
    "const w = 'pre--fix';",
  ].join("\n");
  assert.deepEqual(offending(src, WORDS), []);
});

Deno.test("lib messages: the lexer keeps lines through comments, strings and templates", () => {
  const src = "/*\n\n*/\n`a\nb`;\n'x';\n// c\n\"--flag\";\n";
  assert.deepEqual(literals(src).map((l) => [l.line, l.text]), [
    [4, "a\nb"],
    [6, "x"],
    [8, "--flag"],
  ]);
});

Deno.test("lib messages: no literal of lib/ names a --flag or builds a command line", async () => {
  const words = await commandWords();
  const found: string[] = [];
  for await (const file of tsFiles(root, "lib")) {
    const source = await Deno.readTextFile(new URL(file, root));
    for (const o of offending(source, words, file)) found.push(`${file}:${o}`);
  }
  assert.deepEqual(
    found,
    [],
    `library messages must not name a CLI flag or a command line; say it in the library's ` +
      `terms (or return the facts) and let cli/ render the CLI's words:\n${found.join("\n")}`,
  );
});
