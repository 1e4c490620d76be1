/**
 * Issue 26 item 7, the help and JSON slips: verify-schema's `--public-key` usage entry names no
 * flag that is refused with `--public-key`; `signature_format` has one vocabulary in both
 * verify commands (bare | document | legacy); `developer_name` is null when no developer is
 * known (a key given with `--public-key`), never a placeholder.
 */
import assert from "node:assert/strict";
import { generateKeyPair, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { COMMAND_ENTRIES } from "../../cli/commands/registry.ts";
import type { FlagTable } from "../../cli/args/flags.ts";
import { runInProcess, withTempDir } from "./run.ts";
import { assertJsonOutput } from "./json_schemas.ts";
import { withSkill } from "../skill/trees.ts";

/** The usage entries of a help: "  schemapin …" with its indented continuation lines. */
function usageEntries(help: string): string[] {
  const block = help.slice(help.indexOf("Usage:\n") + 7).split("\n\n")[0];
  return block.split(/\n(?= {2}schemapin )/);
}

const REFUSED = /does not go with --public-key|--public-key is the key source/;

Deno.test("verify-schema --help: the --public-key entry names no flag refused with --public-key", async () => {
  const help = (await runInProcess(["verify-schema", "--help"])).stdout;
  const entry = usageEntries(help).find((e) => /--public-key PUBLIC\.pem/.test(e));
  assert.ok(entry, help);
  const named = new Set([...entry.matchAll(/--([a-z][a-z0-9-]*)/g)].map((m) => m[1]));
  const load = COMMAND_ENTRIES.find((e) => e.name === "verify-schema")!;
  const table = (await load.load()).flags as FlagTable;
  const refused: string[] = [];
  for (const [name, spec] of Object.entries(table)) {
    if (name === "public-key" || spec.deprecated !== undefined) continue;
    const r = await runInProcess([
      ...["verify-schema", "no-such.json", "--signature-base64", "AAAA", "--domain", "example.com"],
      ...["--public-key", "no-such.pem", `--${name}`, ...(spec.type === "string" ? ["x"] : [])],
    ]);
    if (REFUSED.test(r.stderr)) refused.push(name);
  }
  // The flags that are refused exist (the check above can see a refusal) …
  assert.ok(refused.includes("pin-store") && refused.includes("trust-first-use"), refused.join());
  // … and the entry names none of them; each flag it names is accepted with --public-key.
  for (const name of refused) assert.ok(!named.has(name), `the entry names --${name}:\n${entry}`);
  for (const name of ["revocation", "dns", "allow-expired", "allow-missing-revocation", "json"]) {
    assert.ok(named.has(name), `--${name}`);
  }
});

Deno.test("verify-schema and verify-skill --json: one signature_format vocabulary; developer_name null without a discovery document", async () => {
  await withTempDir(async (dir) => {
    const key = generateKeyPair();
    const priv = `${dir}/private.pem`;
    const pub = `${dir}/public.pem`;
    const wk = `${dir}/schemapin.json`;
    await Deno.writeTextFile(priv, privateKeyToPem(key), { mode: 0o600 });
    await Deno.writeTextFile(pub, key.publicKey.pem);
    await Deno.writeTextFile(
      wk,
      JSON.stringify(buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Dev" })),
    );
    const schema = `${dir}/calc.json`;
    await Deno.writeTextFile(
      schema,
      JSON.stringify({ name: "calc", description: "Adds.", parameters: { type: "object" } }),
    );
    const pins = `${dir}/pins.json`;
    const verifySchema = async (sig: string, ...source: string[]) => {
      const r = await runInProcess([
        ...["verify-schema", schema, "--signature", sig, "--domain", "example.com"],
        ...source,
        "--json",
      ]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      return await assertJsonOutput(r.stdout);
    };
    for (const format of ["bare", "document"]) {
      const sig = `${dir}/calc.${format}.sig`;
      const s = await runInProcess([
        ...["sign-schema", schema, "--key", priv, "--format", format, "--out", sig],
        ...(format === "document" ? ["--domain", "example.com"] : []),
      ]);
      assert.equal(s.code, 0, s.stderr);
      const byKey = await verifySchema(sig, "--public-key", pub);
      assert.equal(byKey.signature_format, format);
      assert.equal(byKey.developer_name, null, "no discovery document: no developer name");
      const byDoc = await verifySchema(
        sig,
        "--discovery",
        wk,
        "--pin-store",
        pins,
        "--trust-first-use",
      );
      assert.equal(byDoc.signature_format, format);
      assert.equal(byDoc.developer_name, "Dev");
    }

    await withSkill(async (skill) => {
      const s = await runInProcess([
        "sign-skill",
        skill.dir,
        "--key",
        priv,
        "--domain",
        "example.com",
      ]);
      assert.equal(s.code, 0, s.stderr);
      const verifySkill = async (...source: string[]) => {
        const r = await runInProcess([
          ...["verify-skill", skill.dir, "--domain", "example.com", ...source, "--json"],
        ]);
        assert.equal(r.code, 0, r.stdout + r.stderr);
        return await assertJsonOutput(r.stdout);
      };
      const byKey = await verifySkill("--public-key", pub);
      assert.equal(byKey.signature_format, "document", "a 1.4 document, as verify-schema says");
      assert.equal(byKey.developer_name, null);
      const byDoc = await verifySkill("--discovery", wk, "--pin-store", pins, "--trust-first-use");
      assert.equal(byDoc.signature_format, "document");
      assert.equal(byDoc.developer_name, "Dev");
    });
  });
});
