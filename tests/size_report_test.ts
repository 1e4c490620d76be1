// scripts/size_report.ts (issue 36 item 3): functions are found with their line spans, and
// braces inside strings, templates, comments and regular expressions do not move them.
import assert from "node:assert/strict";
import { functionSpans } from "../scripts/size_report.ts";

Deno.test("size report: declarations, methods and block arrows with their spans", () => {
  const text = [
    "export function f(a: number): number {", // 1
    "  return a;", // 2
    "}", // 3
    "class C {", // 4
    "  async m(x: string) {", // 5
    "    return x;", // 6
    "  }", // 7
    "}", // 8
    "const g = (y: number) => {", // 9
    "  return y;", // 10
    "};", // 11
  ].join("\n");
  assert.deepEqual(functionSpans(text), [
    { name: "f", start: 1, end: 3 },
    { name: "m", start: 5, end: 7 },
    { name: "g", start: 9, end: 11 },
  ]);
});

Deno.test("size report: braces in strings, templates, comments and regexes are not code", () => {
  const text = [
    "function h() {", // 1
    '  const s = "{{{";', // 2
    "  const t = `${'}'} }}} ${`{`}`;", // 3
    "  // }}}", // 4
    "  /* { */", // 5
    "  const r = /\\{[}]/;", // 6
    "  if (s) { return t; }", // 7
    "  return r;", // 8
    "}", // 9
  ].join("\n");
  assert.deepEqual(functionSpans(text), [{ name: "h", start: 1, end: 9 }]);
});

Deno.test("size report: blocks of if, for, while, switch and catch are not functions", () => {
  const text =
    "if (a) {\n}\nfor (;;) {\n}\nwhile (b) {\n}\nswitch (c) {\n}\ntry {\n} catch (e) {\n}\n";
  assert.deepEqual(functionSpans(text), []);
  assert.deepEqual(functionSpans("const o = { a: 1 };\n"), []);
});
