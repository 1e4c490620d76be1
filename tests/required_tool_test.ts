// The gates on external tools hold (issue 18 item 6): every test that can be ignored is ignored
// through ignoreWithout (so on CI a missing tool fails instead of skipping), and the dnsmasq
// tests, run as on a machine without dnsmasq, skip with a note off CI, fail on CI, and hold
// nothing that could have run without dnsmasq (everything in the file is gated).
import assert from "node:assert/strict";
import { denoCommand } from "./process.ts";

const repo = new URL("../", import.meta.url);

/**
 * The `ignore:` conditions that do not come from ignoreWithout, and why. Nothing .ci/run
 * installs may be here.
 */
const NOT_A_TOOL: Record<string, string> = {
  // The runtime deno compile embeds is downloaded, not installed; the skip names the path.
  "tests/cli/compile_test.ts": "denort.runtime === undefined",
  // POSIX signals (the CLI's, the guard's and the servers' run until a signal): Windows has no
  // SIGTERM to send; CI runs Linux.
  "tests/cli/interrupt_test.ts": 'Deno.build.os === "windows"',
  "tests/guard/listen_test.ts": 'Deno.build.os === "windows"',
  "tests/http/until_signal_test.ts": 'Deno.build.os === "windows"',
};

async function* testFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory && entry.name !== "fixtures") yield* testFiles(url);
    else if (entry.isFile && entry.name.endsWith(".ts")) yield url;
  }
}

/**
 * `ignore:` conditions in `text` that are not a name bound to ignoreWithout(…) in it, or imported
 * under a name in `imported` (names a module gates: {@linkcode importedGates}).
 */
export function ungatedIgnores(text: string, imported: ReadonlySet<string> = new Set()): string[] {
  const bad: string[] = [];
  for (const m of text.matchAll(/\bignore:\s*([^,\n]+)/g)) {
    const expr = m[1].trim();
    // A name bound to ignoreWithout, or several joined by || (a test that needs two tools);
    // `{ ignore: noX }` on one line leaves the closing brace in the match.
    // or a choice between such names (`form === "a" ? noA : noB`).
    const bare = expr.replace(/\s*\}\)?;?$/, "");
    const choice = /^[^?]+\?\s*([\w$]+)\s*:\s*([\w$]+)$/.exec(bare);
    const names = choice ? [choice[1], choice[2]] : bare.split(/\s*\|\|\s*/);
    const gated = names.every((name) =>
      /^[A-Za-z_$][\w$]*$/.test(name) &&
      (imported.has(name) ||
        new RegExp(`const ${name}\\s*=[^;]*\\bignoreWithout\\(`, "s").test(text))
    );
    if (!gated) bad.push(expr);
  }
  if (/Deno\.test\.ignore\(/.test(text)) bad.push("Deno.test.ignore(…)");
  return bad;
}

/**
 * The local names `text` imports from relative modules that bind them to ignoreWithout(…)
 * (`export const noX = ignoreWithout(…)`, e.g. tests/peers/python_peers.ts); `read` gives a
 * module's text by its specifier.
 */
export function importedGates(text: string, read: (specifier: string) => string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"(\.{1,2}\/[^"]+)"/g)) {
    const module = read(m[2]);
    for (const part of m[1].split(",")) {
      const [name, local = name] = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/);
      if (
        name &&
        new RegExp(`export const ${name}\\b[^=]*=[^;]*\\bignoreWithout\\(`, "s").test(module)
      ) {
        names.add(local);
      }
    }
  }
  return names;
}

Deno.test("ungatedIgnores: sees conditions that bypass ignoreWithout, and passes those that do not", () => {
  const gated = `const noX = ignoreWithout("x", ok, "ci");\nDeno.test({ ignore: noX, fn() {} });`;
  assert.deepEqual(ungatedIgnores(gated), []);
  const either = `const noY = Deno.build.os !== "linux" || ignoreWithout(\n "y", ok, "ci");\n` +
    `Deno.test({ ignore: noY, fn() {} });`;
  assert.deepEqual(ungatedIgnores(either), []);
  assert.deepEqual(ungatedIgnores(`Deno.test({ ignore: !HAS_BASH, fn() {} });`), ["!HAS_BASH"]);
  assert.deepEqual(ungatedIgnores(`const a = true;\nDeno.test({ ignore: a, fn() {} });`), ["a"]);
  const two =
    `const noA = ignoreWithout("a", ok, "ci");\nconst noB = ignoreWithout("b", ok, "ci");\n`;
  assert.deepEqual(ungatedIgnores(two + `Deno.test({ fn() {}, ignore: noA || noB });`), []);
  assert.deepEqual(ungatedIgnores(two + `Deno.test({ ignore: noA || c, fn() {} });`), ["noA || c"]);
  assert.deepEqual(
    ungatedIgnores(two + `Deno.test({ ignore: x === 1 ? noA : noB, fn() {} });`),
    [],
  );
  assert.deepEqual(ungatedIgnores(two + `Deno.test({ ignore: x ? noA : d, fn() {} });`), [
    "x ? noA : d",
  ]);
  assert.deepEqual(ungatedIgnores(`Deno.test.ignore("x", () => {});`), ["Deno.test.ignore(…)"]);
});

Deno.test("importedGates: a name counts only when the module it comes from gates it", () => {
  const modules: Record<string, string> = {
    "./peers.ts": `export const noP = ignoreWithout("p", ok, "ci");\nexport const P = "x";`,
  };
  const test =
    `import { noP as gate, P } from "./peers.ts";\nDeno.test({ ignore: gate, fn() {} });`;
  const imported = importedGates(test, (s) => modules[s] ?? "");
  assert.deepEqual([...imported], ["gate"]);
  assert.deepEqual(ungatedIgnores(test, imported), []);
  assert.deepEqual(ungatedIgnores(test), ["gate"]);
  const notAGate = `import { P } from "./peers.ts";\nDeno.test({ ignore: P, fn() {} });`;
  assert.deepEqual(ungatedIgnores(notAGate, importedGates(notAGate, (s) => modules[s] ?? "")), [
    "P",
  ]);
});

Deno.test("every ignorable test under tests/ is gated by ignoreWithout (or listed with a reason)", async () => {
  const found: string[] = [];
  for await (const url of testFiles(new URL("tests/", repo))) {
    const path = url.pathname.slice(repo.pathname.length);
    if (path === "tests/required_tool_test.ts") continue; // the examples above
    const text = await Deno.readTextFile(url);
    const read = (specifier: string) => {
      try {
        return Deno.readTextFileSync(new URL(specifier, url));
      } catch {
        return "";
      }
    };
    for (const expr of ungatedIgnores(text, importedGates(text, read))) {
      if (NOT_A_TOOL[path] !== expr) found.push(`${path}: ignore: ${expr}`);
    }
  }
  assert.deepEqual(found, []);
});

async function dnsmasqTests(ci: string): Promise<{ code: number; out: string }> {
  const args = ["test", "--config", "tests/deno.json", "--allow-all", "tests/dns/dnsmasq_test.ts"];
  const o = await denoCommand(args, {
    cwd: repo.pathname,
    env: { CI: ci, SCHEMAPIN_TEST_DNSMASQ: "", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout) + dec.decode(o.stderr) };
}

Deno.test("without dnsmasq: the gated tests skip with a note off CI, and fail on CI=true", async () => {
  const local = await dnsmasqTests("false");
  assert.equal(local.code, 0, local.out);
  assert.match(local.out, /dnsmasq not found: skipping the tests that need it/);
  // Nothing in the file ran: it holds only checks that need dnsmasq.
  assert.match(local.out, /ok \| 0 passed \| 0 failed \| 3 ignored/);

  const ci = await dnsmasqTests("true");
  assert.notEqual(ci.code, 0, ci.out);
  assert.match(
    ci.out,
    /dnsmasq is missing on CI: \.ci\/run \(Debian: dnsmasq-base\) must install it/,
  );
  assert.match(ci.out, /FAILED \| 0 passed \| 1 failed \| 3 ignored/);
});
