// Every child process the tests start gets DENO_NO_UPDATE_CHECK=1 (tests/process.ts says why):
// this file fails when a test, a test helper or a script under scripts/ starts a process any
// other way, and checks that the helper and `deno task test` really set the variable.
import assert from "node:assert/strict";
import { CHILD_ENV, denoCommand } from "./process.ts";

const repo = new URL("../", import.meta.url);
const CALL = "new Deno." + "Command(";

/**
 * Programs that never start another program: a direct `new Deno.Command("cp", …)` of one of
 * them may skip the helper. Shells, `script`, `setpriv`, `node`, `env` and deno itself may not.
 */
const LEAF_PROGRAMS = ["cp", "chmod", "mknod", "openssl", "sleep"];

/**
 * Files that run under Node or Bun (no tests/process.ts there): they may spawn through
 * `node:child_process` when they give every child `DENO_NO_UPDATE_CHECK: "1"` themselves.
 */
const OUTSIDE_DENO = ["tests/node/library_suite.ts"];

/** The text of a call's arguments: from after `(` to its matching `)` (strings skipped). */
function callArguments(text: string, open: number): string {
  let depth = 1;
  let quote: string | undefined;
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") quote = c;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

/**
 * The places in `text` that start a process without the variable: `new Deno.Command` of a
 * program other than a literal leaf program (under tests/ every such call must go through
 * tests/process.ts; under scripts/ the call must set DENO_NO_UPDATE_CHECK itself), and any
 * `Deno.run` or `node:child_process`.
 */
export function findUnguardedSpawns(text: string, scripts: boolean): number[] {
  const lines: number[] = [];
  const lineOf = (at: number) => text.slice(0, at).split("\n").length;
  for (let at = text.indexOf(CALL); at >= 0; at = text.indexOf(CALL, at + 1)) {
    const args = callArguments(text, at + CALL.length - 1);
    const program = /^\s*(["'])([^"']*)\1\s*(,|$)/.exec(args)?.[2];
    if (program !== undefined && LEAF_PROGRAMS.includes(program)) continue;
    if (scripts && args.includes("DENO_NO_UPDATE_CHECK")) continue;
    lines.push(lineOf(at));
  }
  for (const re of [/\bDeno\.run\(/g, /["']node:child_process["']/g]) {
    for (const m of text.matchAll(re)) lines.push(lineOf(m.index!));
  }
  return lines.sort((a, b) => a - b);
}

async function* sources(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sources(url);
    else if (/\.(ts|js|mjs)$/.test(entry.name)) yield url;
  }
}

Deno.test("no test, helper or script starts a process without DENO_NO_UPDATE_CHECK", async () => {
  const helper = new URL("tests/process.ts", repo).pathname;
  const self = new URL(import.meta.url).pathname;
  const offenders: string[] = [];
  let scanned = 0;
  for (const folder of ["tests/", "scripts/"]) {
    for await (const url of sources(new URL(folder, repo))) {
      if (url.pathname === helper || url.pathname === self) continue;
      scanned++;
      const text = await Deno.readTextFile(url);
      const rel = url.pathname.slice(repo.pathname.length);
      if (OUTSIDE_DENO.includes(rel) && text.includes('DENO_NO_UPDATE_CHECK: "1"')) continue;
      for (const line of findUnguardedSpawns(text, folder === "scripts/")) {
        offenders.push(`${url.pathname.slice(repo.pathname.length)}:${line}`);
      }
    }
  }
  assert.ok(scanned > 50, `scanned only ${scanned} files`);
  assert.deepEqual(
    offenders,
    [],
    "start child processes with childCommand()/denoCommand() from tests/process.ts",
  );
});

Deno.test("the scanner finds each way of starting a process without the helper", () => {
  const cases: [string, number[]][] = [
    [`const c = ${CALL}Deno.execPath(), { args: ["run"] });`, [1]],
    [`x\n${CALL}"deno", { args });`, [2]],
    [`${CALL}cmd, { args: rest, env: { NO_COLOR: "1" } }).spawn();`, [1]],
    [`${CALL}"script", { args: ["-c", "deno run x.ts"] });`, [1]],
    [`${CALL}"sh", { args: ["-c", "f(x)"] });\n${CALL}"cp", { args: ["a", "b"] });`, [1]],
    [`await Deno.run({ cmd: ["deno"] });`, [1]],
    [`import { spawn } from "node:child_process";`, [1]],
    [`${CALL}"openssl", { args: ["version"] });\n${CALL}'chmod', { args });`, []],
    [`childCommand(Deno.execPath(), { args: ["run"] });`, []],
  ];
  for (const [text, lines] of cases) {
    assert.deepEqual(findUnguardedSpawns(text, false), lines, text);
  }
  const script = `${CALL}Deno.execPath(), {\n  args,\n  env: { DENO_NO_UPDATE_CHECK: "1" },\n});`;
  assert.deepEqual(findUnguardedSpawns(script, true), []);
  assert.deepEqual(findUnguardedSpawns(script.replace("DENO_NO_UPDATE_CHECK", "X"), true), [1]);
});

Deno.test("childCommand gives the child DENO_NO_UPDATE_CHECK=1; deno task test sets it too", async () => {
  assert.equal(CHILD_ENV.DENO_NO_UPDATE_CHECK, "1");
  const out = await denoCommand(
    ["eval", "console.log(Deno.env.get('DENO_NO_UPDATE_CHECK'), Deno.env.get('KEPT'))"],
    { env: { DENO_NO_UPDATE_CHECK: "0", KEPT: "yes" }, stdout: "piped", stderr: "piped" },
  ).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(new TextDecoder().decode(out.stdout), "1 yes\n");
  // Processes started by the code under test (guard, contract) inherit the test run's own
  // environment: the task sets the variable for all of them.
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", repo)));
  assert.match(config.tasks.test, /(^|&& )DENO_NO_UPDATE_CHECK=1 deno test /);
});
