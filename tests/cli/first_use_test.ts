// First use, as a newcomer meets it (issue 26 item 3): a key that was found but is not pinned
// gets its own hint naming the exact command to run next; the first pin names the pin-store
// file it went to; `well-known --revocation-endpoint` warns what offline verification needs.
import assert from "node:assert/strict";
import { runInProcess, withTempDir } from "./run.ts";

const TOOL = '{"name":"calc","description":"adds","inputSchema":{"type":"object"}}';

/** A key, a signed tool and skill, and the discovery document, in `dir`. */
async function published(dir: string): Promise<void> {
  const must = async (args: string[]) => {
    const r = await runInProcess(args);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  };
  await must(["keygen", "--out-dir", `${dir}/k`, "--unencrypted"]);
  await Deno.writeTextFile(`${dir}/tool.json`, TOOL);
  await must([
    "sign-schema",
    `${dir}/tool.json`,
    "--key",
    `${dir}/k/private.pem`,
    "--domain",
    "example.com",
    "--format",
    "document",
    "--out",
    `${dir}/tool.sig`,
  ]);
  await Deno.mkdir(`${dir}/skill`);
  await Deno.writeTextFile(`${dir}/skill/SKILL.md`, "---\nname: skill\n---\n# Skill\n");
  await must([
    "sign-skill",
    `${dir}/skill`,
    "--key",
    `${dir}/k/private.pem`,
    "--domain",
    "example.com",
  ]);
  await must([
    "well-known",
    "--key",
    `${dir}/k/public.pem`,
    "--developer",
    "Example",
    "--out",
    `${dir}/wk.json`,
  ]);
}

/** The command the hint names (the line after "pin it on first use:"), as argv. */
function hintedCommand(stderr: string): string[] {
  const m = /pin it on first use:\n {2}schemapin (.*)\n/.exec(stderr);
  assert.ok(m, stderr);
  // The paths of these tests need no quoting: split on spaces.
  return m[1].split(" ");
}

for (const kind of ["verify-schema", "verify-skill"] as const) {
  Deno.test(`${kind}: a found but unpinned key names the next command; running it pins and says where`, async () => {
    await withTempDir(async (dir) => {
      await published(dir);
      const pins = `${dir}/pins.json`;
      const args = kind === "verify-schema"
        ? ["verify-schema", `${dir}/tool.json`, "--signature", `${dir}/tool.sig`]
        : ["verify-skill", `${dir}/skill`];
      const first = await runInProcess([
        ...args,
        "--discovery",
        `${dir}/wk.json`,
        "--pin-store",
        pins,
      ]);
      assert.equal(first.code, 1, first.stderr);
      assert.match(first.stdout, /^FAIL .*: KEY_NOT_FOUND\n/);
      assert.match(
        first.stderr,
        /hint: the key was found, it is just not pinned yet: compare sha256:[0-9a-f]{64}/,
      );
      assert.match(
        first.stderr,
        /or seed the pin: schemapin pins add \S+@example\.com --fingerprint sha256:/,
      );
      const next = hintedCommand(first.stderr);
      assert.equal(next.at(-1), "--trust-first-use");
      assert.deepEqual(next.slice(0, -1), [
        ...args,
        "--discovery",
        `${dir}/wk.json`,
        "--pin-store",
        pins,
      ]);
      await assert.rejects(Deno.stat(pins), Deno.errors.NotFound, "nothing pinned by the failure");
      const second = await runInProcess(next);
      assert.equal(second.code, 0, second.stderr);
      assert.match(
        second.stdout,
        new RegExp(`pinned on first use in ${pins.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\)`),
      );
      // The next run finds the pin: no first use, no file named.
      const third = await runInProcess([
        ...args,
        "--discovery",
        `${dir}/wk.json`,
        "--pin-store",
        pins,
      ]);
      assert.equal(third.code, 0, third.stderr);
      assert.match(third.stdout, /\(pin matches/);
      assert.doesNotMatch(third.stdout, /pinned on first use/);
    });
  });
}

Deno.test("a changed key gets the rotation hint, never the first-use one", async () => {
  await withTempDir(async (dir) => {
    await published(dir);
    const pins = `${dir}/pins.json`;
    const r = await runInProcess([
      "pins",
      "add",
      "calc@example.com",
      "--fingerprint",
      `sha256:${"ab".repeat(32)}`,
      "--pin-store",
      pins,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const v = await runInProcess([
      "verify-schema",
      `${dir}/tool.json`,
      "--signature",
      `${dir}/tool.sig`,
      "--discovery",
      `${dir}/wk.json`,
      "--pin-store",
      pins,
    ]);
    assert.equal(v.code, 1);
    assert.match(v.stderr, /KEY_PIN_MISMATCH/);
    assert.doesNotMatch(v.stderr, /not pinned yet|--trust-first-use/);
  });
});

Deno.test("well-known --revocation-endpoint warns what offline verification will need; without it, no warning", async () => {
  await withTempDir(async (dir) => {
    assert.equal(
      (await runInProcess(["keygen", "--out-dir", `${dir}/k`, "--unencrypted"])).code,
      0,
    );
    const base = ["well-known", "--key", `${dir}/k/public.pem`, "--developer", "E"];
    const withEndpoint = await runInProcess([
      ...base,
      "--revocation-endpoint",
      "https://example.com/revocations.json",
    ]);
    assert.equal(withEndpoint.code, 0, withEndpoint.stderr);
    assert.match(
      withEndpoint.stderr,
      /warning: this document names revocation_endpoint https:\/\/example\.com\/revocations\.json: a client verifying offline \(--discovery FILE\) then also needs that document \(--revocation FILE/,
    );
    const plain = await runInProcess(base);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stderr, "");
  });
});
