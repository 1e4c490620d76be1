// `--public-key FILE` (issue 15 item 6): verify-schema, verify-skill and bundle verify with a
// public key the user holds as the trust anchor — valid, tampered, wrong key, revoked through
// --revocation, no pin written, conflicting key sources and a private key (exit 2), a missing
// key file (exit 2 naming it). Everything is made with the CLI itself (keygen, sign-*, revoke).
import assert from "node:assert/strict";
import { exists, runInProcess, withTempDir } from "./run.ts";
import { assertJsonOutput } from "./json_schemas.ts";

const DOMAIN = "example.com";

/** Two key pairs, a signed schema, a signed skill, a signed bundle and a revocation of key a. */
async function fixture(dir: string) {
  for (const k of ["a", "b"]) {
    const r = await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/${k}`]);
    assert.equal(r.code, 0, r.stderr);
  }
  await Deno.writeTextFile(
    `${dir}/tool.json`,
    JSON.stringify({ name: "calc", description: "adds", inputSchema: { type: "object" } }),
  );
  const sig = await runInProcess([
    "sign-schema",
    `${dir}/tool.json`,
    "--key",
    `${dir}/a/private.pem`,
    "--domain",
    DOMAIN,
    "--out",
    `${dir}/tool.json.sig`,
  ]);
  assert.equal(sig.code, 0, sig.stderr);
  await Deno.mkdir(`${dir}/skill`);
  await Deno.writeTextFile(`${dir}/skill/SKILL.md`, "---\nname: demo\n---\nhello\n");
  const skill = await runInProcess([
    "sign-skill",
    `${dir}/skill`,
    "--key",
    `${dir}/a/private.pem`,
    "--domain",
    DOMAIN,
  ]);
  assert.equal(skill.code, 0, skill.stderr);
  assert.equal((await runInProcess(["bundle", "create", "--out", `${dir}/b.json`])).code, 0);
  const signed = await runInProcess([
    "bundle",
    "sign",
    `${dir}/b.json`,
    "--key",
    `${dir}/a/private.pem`,
    "--kid",
    "acme-2026",
  ]);
  assert.equal(signed.code, 0, signed.stderr);
  const rev = await runInProcess([
    "revoke",
    "--domain",
    DOMAIN,
    "--key",
    `${dir}/a/public.pem`,
    "--reason",
    "key_compromise",
    "--into",
    `${dir}/revoked.json`,
  ]);
  assert.equal(rev.code, 0, rev.stderr);
  return {
    pubA: `${dir}/a/public.pem`,
    pubB: `${dir}/b/public.pem`,
    privA: `${dir}/a/private.pem`,
    revoked: `${dir}/revoked.json`,
  };
}

/** The three commands, each with `--public-key KEY` and `more`. */
function commands(dir: string, key: string, ...more: string[]): [string, string[]][] {
  return [
    ["verify-schema", [
      "verify-schema",
      `${dir}/tool.json`,
      "--signature",
      `${dir}/tool.json.sig`,
      "--domain",
      DOMAIN,
      "--public-key",
      key,
      ...more,
    ]],
    ["verify-skill", [
      "verify-skill",
      `${dir}/skill`,
      "--domain",
      DOMAIN,
      "--public-key",
      key,
      ...more,
    ]],
    ["bundle verify", ["bundle", "verify", `${dir}/b.json`, "--public-key", key, ...more]],
  ];
}

/** Runs `fn` with SCHEMAPIN_HOME in `dir/home`, so a default pin store would land there. */
async function withHome<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const saved = Deno.env.get("SCHEMAPIN_HOME");
  Deno.env.set("SCHEMAPIN_HOME", `${dir}/home`);
  try {
    return await fn();
  } finally {
    if (saved === undefined) Deno.env.delete("SCHEMAPIN_HOME");
    else Deno.env.set("SCHEMAPIN_HOME", saved);
  }
}

Deno.test("--public-key: the signer's key verifies (exit 0) and no pin or home folder is written", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    await withHome(dir, async () => {
      for (const [name, args] of commands(dir, f.pubA)) {
        const r = await runInProcess(args);
        assert.equal(r.code, 0, `${name}: ${r.stderr}`);
        if (name === "bundle verify") {
          assert.match(r.stdout, /^verified: .*b\.json\nauthority: acme-2026 sha256:/);
        } else {
          assert.match(r.stdout, /^OK .*@example\.com: .*\(key from --public-key, not pinned/);
        }
        const json = await runInProcess([...args, "--json"]);
        assert.equal(json.code, 0, json.stderr);
        const out = await assertJsonOutput(json.stdout);
        assert.equal(out.format, `schemapin.${name.replace(" ", ".")}/1`, name);
        assert.equal(out.ok, true, name);
        assert.equal(out.error, undefined, name);
        if (name !== "bundle verify") {
          assert.equal(out.key_pinning, "not_checked", name);
          assert.match(out.discovery_source as string, /^--public-key .*a\/public\.pem$/);
        }
      }
      assert.equal(await exists(`${dir}/home`), false, "no pin store was created");
    });
  });
});

Deno.test("--public-key: a tampered schema, skill or bundle is exit 1", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    await Deno.writeTextFile(
      `${dir}/tool.json`,
      JSON.stringify({ name: "calc", description: "ADDS", inputSchema: { type: "object" } }),
    );
    await Deno.writeTextFile(`${dir}/skill/SKILL.md`, "---\nname: demo\n---\nhello!\n");
    const bundle = JSON.parse(await Deno.readTextFile(`${dir}/b.json`));
    bundle.signed_at = "2020-01-01T00:00:00Z";
    await Deno.writeTextFile(`${dir}/b.json`, JSON.stringify(bundle));
    await withHome(dir, async () => {
      for (const [name, args] of commands(dir, f.pubA)) {
        const r = await runInProcess(args);
        assert.equal(r.code, 1, `${name}: ${r.stdout}${r.stderr}`);
        assert.match(r.stderr, /SIGNATURE_INVALID/, name);
      }
      assert.equal(await exists(`${dir}/home`), false);
    });
  });
});

Deno.test("--public-key: another key is exit 1 (never a pin mismatch to rotate)", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    await withHome(dir, async () => {
      for (const [name, args] of commands(dir, f.pubB)) {
        const r = await runInProcess(args);
        assert.equal(r.code, 1, `${name}: ${r.stdout}${r.stderr}`);
        const expected = name === "bundle verify" ? /KEY_PIN_MISMATCH/ : /SIGNATURE_INVALID/;
        assert.match(r.stderr, expected, name);
      }
      assert.equal(await exists(`${dir}/home`), false);
    });
  });
});

Deno.test("--public-key with --revocation: a revoked key is exit 1 (KEY_REVOKED)", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    await withHome(dir, async () => {
      for (const [name, args] of commands(dir, f.pubA, "--revocation", f.revoked)) {
        const r = await runInProcess(args);
        assert.equal(r.code, 1, `${name}: ${r.stdout}${r.stderr}`);
        assert.match(r.stderr, /KEY_REVOKED/, name);
      }
      // The same document does not touch another key: key b's failure is its signature.
      const other = await runInProcess(
        commands(dir, f.pubB, "--revocation", f.revoked)[0][1],
      );
      assert.equal(other.code, 1);
      assert.match(other.stderr, /SIGNATURE_INVALID/);
    });
  });
});

Deno.test("--public-key: a private key, a missing file, a malformed key are exit 2 naming the file", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    await Deno.writeTextFile(`${dir}/garbage.pem`, "not a key\n");
    for (const [name, args] of commands(dir, f.privA)) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, `${name}: ${r.stderr}`);
      assert.match(
        r.stderr,
        /KEY_INVALID: --public-key .*a\/private\.pem holds a private key; verifying needs only the public key/,
        name,
      );
    }
    for (const [name, args] of commands(dir, `${dir}/nothere.pem`)) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, `${name}: ${r.stderr}`);
      assert.match(r.stderr, /IO_FAILED: .*nothere\.pem/, name);
    }
    for (const [name, args] of commands(dir, `${dir}/garbage.pem`)) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, `${name}: ${r.stderr}`);
      assert.match(r.stderr, /garbage\.pem/, name);
    }
    const missingRev = await runInProcess(
      commands(dir, f.pubA, "--revocation", `${dir}/norev.json`)[0][1],
    );
    assert.equal(missingRev.code, 2);
    assert.match(missingRev.stderr, /norev\.json/);
  });
});

Deno.test("--public-key conflicts with the other key sources and with pinning flags (exit 2)", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    const cases: [string[], RegExp][] = [
      [["--discovery", `${dir}/a/schemapin.json`], /it does not go with --discovery/],
      [["--bundle", `${dir}/b.json`], /it does not go with --bundle/],
      [["--resolver-dir", dir], /it does not go with --resolver-dir/],
      [["--well-known"], /it does not go with --well-known/],
      [["--pin-store", `${dir}/pins.json`], /--pin-store does not go with --public-key/],
      [["--trust-first-use"], /--trust-first-use does not go with --public-key/],
    ];
    for (const [more, message] of cases) {
      for (const [name, args] of commands(dir, f.pubA, ...more).slice(0, 2)) {
        const r = await runInProcess(args);
        assert.equal(r.code, 2, `${name} ${more.join(" ")}: ${r.stderr}`);
        assert.match(r.stderr, message, `${name} ${more.join(" ")}`);
      }
    }
    const bundleCases: [string[], RegExp][] = [
      [["--authority", "acme-2026=sha256:" + "0".repeat(64)], /does not go with --authority$/m],
      [["--authority-key", `acme-2026=${f.pubA}`], /does not go with --authority-key/],
      [["--trust-first-use"], /does not go with --trust-first-use/],
    ];
    for (const [more, message] of bundleCases) {
      const r = await runInProcess(commands(dir, f.pubA, ...more)[2][1]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
    }
    const revOnly = await runInProcess([
      "bundle",
      "verify",
      `${dir}/b.json`,
      "--revocation",
      f.revoked,
    ]);
    assert.equal(revOnly.code, 2);
    assert.match(revOnly.stderr, /--revocation goes with --public-key/);
    assert.equal(await exists(`${dir}/pins.json`), false);
  });
});
