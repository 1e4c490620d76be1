// Untrusted JSON bytes enter through one function, lib/json/parse.ts `parseJson` (GUIDE, issue
// 12): the runtime's JSON.parse (and Body.json(), which calls it) misreads escaped object names
// on the V8 that Deno 2.9.6 ships, so no code in lib/ or the entry points may call either.
import assert from "node:assert/strict";
import { ENTRY_POINTS } from "../entry_points.ts";

const root = new URL("../../", import.meta.url);

/** Source lines that call the runtime's JSON parser, ignoring comments and JSDoc examples. */
export function runtimeJsonParseCalls(source: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  let inBlockComment = false;
  source.split("\n").forEach((raw, k) => {
    let text = raw;
    if (inBlockComment) {
      const end = text.indexOf("*/");
      if (end === -1) return;
      text = text.slice(end + 2);
      inBlockComment = false;
    }
    for (let start = text.indexOf("/*"); start !== -1; start = text.indexOf("/*")) {
      const end = text.indexOf("*/", start + 2);
      if (end === -1) {
        text = text.slice(0, start);
        inBlockComment = true;
        break;
      }
      text = text.slice(0, start) + text.slice(end + 2);
    }
    if (/^\s*\/\//.test(text)) return;
    if (
      /\bJSON\s*(\.\s*parse\b|\[\s*["'`]parse["'`]\s*\])|\.json\s*\(\s*\)|\breviver\b/.test(text)
    ) {
      found.push({ line: k + 1, text: raw.trim() });
    }
  });
  return found;
}

async function* sourceFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sourceFiles(url);
    else if (entry.name.endsWith(".ts")) yield url;
  }
}

Deno.test("the scanner finds every spelling of a runtime JSON parse", () => {
  const calls = [
    "const v = JSON.parse(text);",
    "const v = JSON [ 'parse' ](text);",
    "const v = await response.json();",
    "const v = await req.json( );",
    "x = JSON.parse; /* c */ y = 1;",
  ];
  for (const c of calls) assert.equal(runtimeJsonParseCalls(c).length, 1, c);
  const comments = [
    "/**\n * JSON.parse(formatSarif(report)).version\n */",
    "// JSON.parse here is only a yardstick",
    "/* JSON.parse */ const a = 1;",
    "/**\n * JSON.parse\n */",
    "const ok = parseJson(bytes);",
  ];
  for (const c of comments) assert.deepEqual(runtimeJsonParseCalls(c), [], c);
});

Deno.test("no runtime JSON.parse or Body.json() in lib/, cli/ or the entry points", async () => {
  const files: URL[] = [];
  for await (const f of sourceFiles(new URL("lib/", root))) files.push(f);
  for await (const f of sourceFiles(new URL("cli/", root))) files.push(f);
  for (const entry of ["cli.ts", ...ENTRY_POINTS]) files.push(new URL(entry, root));
  assert.ok(files.length > 100, `scanned ${files.length} files`);
  const offenders: string[] = [];
  for (const f of files) {
    for (const { line, text } of runtimeJsonParseCalls(await Deno.readTextFile(f))) {
      offenders.push(`${f.pathname.slice(root.pathname.length)}:${line}: ${text}`);
    }
  }
  assert.deepEqual(offenders, [], "parse untrusted JSON with parseJson (lib/json/parse.ts)");
});
