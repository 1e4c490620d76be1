/**
 * `--json` is a stable interface (issue 15 item 5; ARCHITECTURE.md, "How a command is built"): every command's
 * output is one JSON object with `format` (a name and a version), `ok` (true exactly when the
 * exit code is 0), `error: {code, message}` on failure, snake_case names, and the shape its
 * JSON Schema in schemas/cli/ publishes. The schemas are checked with Ajv (npm), a validator
 * this project did not write.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runInProcess } from "./run.ts";
import { SCHEMA_DIR, schemaValidators } from "./json_schemas.ts";
import { type JsonScenario, jsonScenarios, prepareJsonScenarios } from "./json_scenarios.ts";
import { COMMAND_ENTRIES } from "../../cli/commands/registry.ts";
import { errorCodeOf, jsonError, jsonOutput, wantsJson } from "../../cli/commands/json_output.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { UsageError } from "../../cli/commands/command.ts";

const SNAKE = /^[a-z][a-z0-9_]*$/;

let prepared: { dir: string; scenarios: JsonScenario[] } | undefined;
async function scenarios(): Promise<{ dir: string; scenarios: JsonScenario[] }> {
  if (prepared) return prepared;
  const dir = await Deno.makeTempDir({ prefix: "schemapin-json-" });
  // Shared by the tests of this file, whichever of them run: removed when the file is done.
  globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
  await prepareJsonScenarios(dir, (args) => runInProcess(args));
  prepared = { dir, scenarios: jsonScenarios(dir) };
  return prepared;
}

Deno.test({
  name: "--json: every scenario prints one object of its format, valid against its schema",
  // The pin store of the scenarios is explicit; keep the default one out of the user's home.
  sanitizeResources: false,
  async fn(t) {
    const schemas = await schemaValidators();
    const { dir, scenarios: list } = await scenarios();
    Deno.env.set("SCHEMAPIN_HOME", join(dir, "home"));
    try {
      for (const s of list) {
        await t.step(s.name, async () => {
          const r = await runInProcess([...s.args], s.stdin);
          assert.equal(r.code, s.code, `exit code; stderr: ${r.stderr}`);
          let value: Record<string, unknown>;
          try {
            value = JSON.parse(r.stdout);
          } catch (e) {
            throw new Error(`stdout is not one JSON value: ${(e as Error).message}\n${r.stdout}`);
          }
          assert.equal(typeof value, "object");
          assert.equal(value.format, s.format);
          assert.deepEqual(Object.keys(value).slice(0, 2), ["format", "ok"]);
          assert.equal(value.ok, s.code === 0, "ok is true exactly when the exit code is 0");
          const error = value.error as { code?: string } | undefined;
          if (s.code !== 0) assert.ok(error, "a failure carries error");
          if (s.errorCode !== undefined) assert.equal(error?.code, s.errorCode);
          const validate = schemas.get(s.format);
          assert.ok(validate, `schemas/cli has no schema for ${s.format}`);
          assert.ok(validate(value), JSON.stringify(validate.errors, null, 2));
        });
      }
    } finally {
      Deno.env.delete("SCHEMAPIN_HOME");
    }
  },
});

Deno.test("--json: every published schema is exercised by a scenario", async () => {
  const schemas = await schemaValidators();
  const { scenarios: list } = await scenarios();
  const used = new Set(list.map((s) => s.format));
  for (const format of schemas.keys()) assert.ok(used.has(format), `no scenario prints ${format}`);
  // Each format with a failure mode shows it (error present) as well as success.
  for (const format of used) {
    // A successful dns check needs a DNS server: tests/dns/dnsmasq_test.ts validates it.
    if (format === "schemapin.error/1" || format === "schemapin.dns.check/1") continue;
    assert.ok(list.some((s) => s.format === format && s.code === 0), `${format}: no success`);
  }
  assert.ok(list.filter((s) => s.code !== 0).length >= list.filter((s) => s.code === 0).length);
});

/** `schemapin X [Y]` of every usage line in every command's help that offers --json. */
function commandsOfferingJson(): string[] {
  const names = new Set<string>();
  for (const entry of COMMAND_ENTRIES) names.add(entry.name);
  return [...names];
}

Deno.test("--json: every command and subcommand whose help offers --json has a scenario", async () => {
  const { scenarios: list } = await scenarios();
  const offered: string[] = [];
  for (const name of commandsOfferingJson()) {
    const r = await runInProcess([name, "--help"]);
    assert.equal(r.code, 0, name);
    // Usage entries: a line "  schemapin …" plus its indented continuation lines.
    const entries = r.stdout.split(/\n(?= {2}schemapin )/).map((e) => e.split(/\n(?! {6})/)[0]);
    for (const e of entries) {
      const m = /^\s*schemapin ((?:[a-z][a-z0-9-]*)(?: [a-z][a-z0-9-]*)?)/.exec(e);
      if (!m || !/--json\b/.test(e)) continue;
      offered.push(m[1].replace(" ", "."));
    }
  }
  assert.ok(offered.length >= 20, `found only ${offered.length}: ${offered.join(", ")}`);
  for (const name of new Set(offered)) {
    const prefix = `schemapin.${name}`;
    assert.ok(
      list.some((s) => s.format === `${prefix}/1` || s.format.startsWith(`${prefix}.`)),
      `help offers --json for ${name}, but no scenario prints ${prefix}/1`,
    );
  }
});

Deno.test("--json schemas: every property name is snake_case and every format is versioned", async () => {
  const bad: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}/${i}`));
    if (node === null || typeof node !== "object") return;
    const o = node as Record<string, unknown>;
    if (o.properties && typeof o.properties === "object") {
      for (const k of Object.keys(o.properties)) if (!SNAKE.test(k)) bad.push(`${path}: ${k}`);
    }
    for (const [k, v] of Object.entries(o)) walk(v, `${path}/${k}`);
  };
  for await (const e of Deno.readDir(SCHEMA_DIR)) {
    const schema = JSON.parse(await Deno.readTextFile(new URL(e.name, SCHEMA_DIR)));
    walk(schema, e.name);
    const format = schema.properties?.format?.const;
    if (e.name !== "common.schema.json") {
      assert.match(format, /^schemapin\.[a-z][a-z0-9.-]*\/[1-9][0-9]*$/, e.name);
      assert.equal(
        e.name,
        `${format.slice("schemapin.".length, format.lastIndexOf("/"))}.schema.json`,
      );
    }
  }
  assert.deepEqual(bad, []);
});

// The schemas can fail: outputs that break the contract are rejected.
const GOOD_FINGERPRINT = {
  format: "schemapin.fingerprint/1",
  ok: true,
  fingerprint: "sha256:" + "a".repeat(64),
  public_key_pem: "-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----\n",
};
const BROKEN: [string, string, Record<string, unknown>][] = [
  ["a camelCase field", "schemapin.fingerprint/1", { ...GOOD_FINGERPRINT, publicKeyPem: "x" }],
  ["a hash without sha256:", "schemapin.fingerprint/1", {
    ...GOOD_FINGERPRINT,
    fingerprint: "a".repeat(64),
  }],
  ["ok false without error", "schemapin.fingerprint/1", { ...GOOD_FINGERPRINT, ok: false }],
  ["an error on success", "schemapin.fingerprint/1", {
    ...GOOD_FINGERPRINT,
    error: { code: "IO_FAILED", message: "x" },
  }],
  ["another format's name", "schemapin.fingerprint/1", {
    ...GOOD_FINGERPRINT,
    format: "schemapin.fingerprint/2",
  }],
  ["a missing required field", "schemapin.fingerprint/1", {
    format: "schemapin.fingerprint/1",
    ok: true,
    fingerprint: GOOD_FINGERPRINT.fingerprint,
  }],
  ["an error output that says ok", "schemapin.error/1", {
    format: "schemapin.error/1",
    ok: true,
    error: { code: "USAGE", message: "x" },
  }],
  ["an error code in lower case", "schemapin.error/1", {
    format: "schemapin.error/1",
    ok: false,
    error: { code: "usage", message: "x" },
  }],
  ["the old verify shape (valid, errorCode)", "schemapin.verify-schema/1", {
    format: "schemapin.verify-schema/1",
    ok: false,
    valid: false,
    errorCode: "SIGNATURE_INVALID",
    tool_id: "t",
    expired: false,
    warnings: [],
  }],
];

Deno.test("--json schemas reject outputs that break the contract", async () => {
  const schemas = await schemaValidators();
  assert.ok(schemas.get("schemapin.fingerprint/1")!(GOOD_FINGERPRINT), "the control is valid");
  for (const [what, format, value] of BROKEN) {
    assert.equal(schemas.get(format)!(value), false, what);
  }
});

Deno.test("json_output: helpers", () => {
  assert.equal(
    jsonOutput("contract.verify", { ok: true }),
    '{\n  "format": "schemapin.contract.verify/1",\n  "ok": true\n}\n',
  );
  assert.deepEqual(JSON.parse(jsonError("USAGE", "m")), {
    format: "schemapin.error/1",
    ok: false,
    error: { code: "USAGE", message: "m" },
  });
  assert.equal(errorCodeOf(new SchemaPinError("IO_FAILED", "x")), "IO_FAILED");
  assert.equal(errorCodeOf(new UsageError("x")), "USAGE");
  assert.equal(errorCodeOf(new TypeError("x")), "INTERNAL");
});

Deno.test("json_output: wantsJson reads only the command's own arguments", () => {
  assert.equal(wantsJson(["fingerprint", "--json", "k.pem"]), true);
  assert.equal(wantsJson(["contract", "verify", "--format", "json"]), true);
  assert.equal(wantsJson(["contract", "verify", "--format=json"]), true);
  assert.equal(wantsJson(["contract", "verify", "--format", "sarif"]), false);
  assert.equal(wantsJson(["guard", "--", "server", "--json"]), false);
  assert.equal(wantsJson(["fingerprint", "k.pem"]), false);
  assert.equal(wantsJson(["--format"]), false);
});

Deno.test("--json: an error is printed once on stdout, and also on stderr for people", async () => {
  const r = await runInProcess(["fingerprint", "/nonexistent/k.pem", "--json"]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout.trim().split("\n{").length, 1, "one JSON object");
  assert.equal(JSON.parse(r.stdout).error.code, "IO_FAILED");
  assert.match(r.stderr, /^error: IO_FAILED: cannot read \/nonexistent\/k\.pem/);
  // Without --json nothing goes to stdout.
  const plain = await runInProcess(["fingerprint", "/nonexistent/k.pem"]);
  assert.equal(plain.stdout, "");
});
