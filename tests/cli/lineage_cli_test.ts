// Lineage enforced by the verifiers (issue 27 item 3, §18.4): verify-schema and verify-skill
// with --lineage / --lineage-store, the lineage command, and guard's flag rules. Every test
// works in its own temporary folder; the race runs real processes.
import assert from "node:assert/strict";
import { generateKeyPair, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { runCliProcess, runInProcess, withTempDir } from "./run.ts";
import { assertJsonOutput } from "./json_schemas.ts";
import { withSkill } from "../skill/trees.ts";

const key = generateKeyPair();

interface Env {
  dir: string;
  key: string;
  discovery: string;
  pins: string;
  lineage: string;
}

async function setup(dir: string): Promise<Env> {
  const env = {
    dir,
    key: `${dir}/private.pem`,
    discovery: `${dir}/schemapin.json`,
    pins: `${dir}/pins.json`,
    lineage: `${dir}/lineage.json`,
  };
  await Deno.writeTextFile(env.key, privateKeyToPem(key), { mode: 0o600 });
  await Deno.writeTextFile(
    env.discovery,
    JSON.stringify(buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Dev" })),
  );
  return env;
}

/** Signs `description` of tool "calc" as a 1.4 document; returns its files and schema_hash. */
async function release(
  env: Env,
  name: string,
  description: string,
  extra: string[] = [],
): Promise<{ schema: string; sig: string; hash: string }> {
  const schema = `${env.dir}/${name}.json`;
  const sig = `${schema}.sig`;
  await Deno.writeTextFile(schema, JSON.stringify({ name: "calc", description }));
  const r = await runInProcess([
    "sign-schema",
    schema,
    "--key",
    env.key,
    "--domain",
    "example.com",
    "--format",
    "document",
    "--out",
    sig,
    ...extra,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const hash = JSON.parse(await Deno.readTextFile(sig)).schema_hash as string;
  return { schema, sig, hash };
}

/** A release of "calc" naming `previous` as its previous_hash, with `schemaVersion`. */
function chained(
  env: Env,
  name: string,
  description: string,
  previous: { hash: string },
  schemaVersion: string,
): Promise<{ schema: string; sig: string; hash: string }> {
  return release(env, name, description, [
    "--schema-version",
    schemaVersion,
    "--previous-hash",
    previous.hash,
  ]);
}

function verifyArgs(env: Env, r: { schema: string; sig: string }, ...extra: string[]) {
  return [
    "verify-schema",
    r.schema,
    "--signature",
    r.sig,
    "--discovery",
    env.discovery,
    "--pin-store",
    env.pins,
    "--trust-first-use",
    "--lineage",
    ...extra,
  ];
}

async function latest(env: Env): Promise<string | undefined> {
  try {
    const doc = JSON.parse(await Deno.readTextFile(env.lineage));
    return doc.lineage.find((r: { tool_id: string }) => r.tool_id === "calc")?.latest_hash;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

Deno.test("lineage: first sighting anchors beside the pin store; the same release is unchanged", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const v1 = await release(env, "v1", "one", ["--schema-version", "1.0.0"]);
    const first = await runInProcess(verifyArgs(env, v1, "--json"));
    assert.equal(first.code, 0, first.stderr);
    const out = await assertJsonOutput(first.stdout);
    assert.deepEqual(out.lineage, { status: "anchored", hash: v1.hash, store: env.lineage });
    assert.equal(await latest(env), v1.hash);
    const again = await runInProcess(verifyArgs(env, v1));
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /lineage unchanged/);
    assert.equal(await latest(env), v1.hash);
  });
});

Deno.test("lineage: a release naming the latest hash with a higher version advances the store", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const v1 = await release(env, "v1", "one", ["--schema-version", "1.0.0"]);
    assert.equal((await runInProcess(verifyArgs(env, v1))).code, 0);
    const v2 = await chained(env, "v2", "two", v1, "1.10.0");
    const r = await runInProcess(verifyArgs(env, v2, "--json"));
    assert.equal(r.code, 0, r.stderr);
    const out = await assertJsonOutput(r.stdout);
    assert.deepEqual(out.lineage, {
      status: "advanced",
      hash: v2.hash,
      latest_hash: v1.hash,
      store: env.lineage,
    });
    assert.equal(await latest(env), v2.hash);
  });
});

Deno.test("lineage: a rollback to the older release is refused, naming both hashes", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const v1 = await release(env, "v1", "one", ["--schema-version", "1.0.0"]);
    const v2 = await chained(env, "v2", "two", v1, "1.1.0");
    assert.equal((await runInProcess(verifyArgs(env, v1))).code, 0);
    assert.equal((await runInProcess(verifyArgs(env, v2))).code, 0);
    const back = await runInProcess(verifyArgs(env, v1, "--json"));
    assert.equal(back.code, 1);
    const out = await assertJsonOutput(back.stdout);
    assert.equal((out.error as { code: string }).code, "LINEAGE_REJECTED");
    const msg = (out.error as { message: string }).message;
    assert.ok(msg.includes(v1.hash) && msg.includes(v2.hash), msg);
    assert.equal((out.lineage as { reason: string }).reason, "rollback");
    assert.equal(await latest(env), v2.hash);
  });
});

Deno.test("lineage: a fork (previous_hash naming another hash) is refused, naming both hashes", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const v1 = await release(env, "v1", "one");
    assert.equal((await runInProcess(verifyArgs(env, v1))).code, 0);
    const elsewhere = "sha256:" + "ab".repeat(32);
    const fork = await release(env, "fork", "forked", ["--previous-hash", elsewhere]);
    const r = await runInProcess(verifyArgs(env, fork));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /LINEAGE_REJECTED/);
    assert.match(r.stderr, /fork/);
    assert.ok(r.stderr.includes(v1.hash) && r.stderr.includes(fork.hash), r.stderr);
    assert.equal(await latest(env), v1.hash);
  });
});

Deno.test("lineage: a new release without previous_hash is refused, naming both hashes", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const v1 = await release(env, "v1", "one");
    assert.equal((await runInProcess(verifyArgs(env, v1))).code, 0);
    const loose = await release(env, "loose", "no chain");
    const r = await runInProcess(verifyArgs(env, loose, "--json"));
    assert.equal(r.code, 1);
    const out = await assertJsonOutput(r.stdout);
    assert.equal((out.lineage as { reason: string }).reason, "missing_previous_hash");
    const msg = (out.error as { message: string }).message;
    assert.ok(msg.includes(v1.hash) && msg.includes(loose.hash), msg);
    assert.equal(await latest(env), v1.hash);
  });
});

Deno.test("lineage: a chained release with a lower schema_version is refused", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const v1 = await release(env, "v1", "one", ["--schema-version", "2.0.0"]);
    assert.equal((await runInProcess(verifyArgs(env, v1))).code, 0);
    const lower = await chained(env, "lower", "two", v1, "1.9.0");
    const r = await runInProcess(verifyArgs(env, lower));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /LINEAGE_REJECTED.*schema_version 1\.9\.0 .*not higher than 2\.0\.0/);
    assert.equal(await latest(env), v1.hash);
  });
});

Deno.test("lineage: a bare (1.3) signature never anchors; with --lineage it fails and pins nothing", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const schema = `${dir}/bare.json`;
    await Deno.writeTextFile(schema, JSON.stringify({ name: "calc", description: "bare" }));
    const s = await runInProcess([
      "sign-schema",
      schema,
      "--key",
      env.key,
      "--out",
      `${schema}.sig`,
    ]);
    assert.equal(s.code, 0, s.stderr);
    const r = await runInProcess(
      verifyArgs(env, { schema, sig: `${schema}.sig` }, "--domain", "example.com", "--json"),
    );
    assert.equal(r.code, 1);
    const out = await assertJsonOutput(r.stdout);
    assert.equal((out.error as { code: string }).code, "LINEAGE_REJECTED");
    assert.equal((out.lineage as { reason: string }).reason, "legacy");
    assert.equal(await latest(env), undefined);
    // The refusal came before the first-use pin.
    assert.equal(await Deno.stat(env.pins).then(() => true, () => false), false);
    // Without --lineage the same signature verifies (lineage is opt-in, §18.5).
    const plain = verifyArgs(env, { schema, sig: `${schema}.sig` }, "--domain", "example.com")
      .filter((a) => a !== "--lineage");
    assert.equal((await runInProcess(plain)).code, 0);
  });
});

Deno.test("lineage: a failed verification never anchors or advances the store", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const v1 = await release(env, "v1", "one", ["--schema-version", "1.0.0"]);
    // A tampered first release: nothing anchored.
    const tampered = `${dir}/tampered.json`;
    await Deno.writeTextFile(tampered, JSON.stringify({ name: "calc", description: "evil" }));
    const bad = await runInProcess(verifyArgs(env, { schema: tampered, sig: v1.sig }));
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /SIGNATURE_INVALID/);
    assert.equal(await latest(env), undefined);
    // Anchored at v1, a tampered v2 that would chain does not advance it.
    assert.equal((await runInProcess(verifyArgs(env, v1))).code, 0);
    const v2 = await chained(env, "v2", "two", v1, "1.1.0");
    await Deno.writeTextFile(v2.schema, JSON.stringify({ name: "calc", description: "evil 2" }));
    const bad2 = await runInProcess(verifyArgs(env, v2));
    assert.equal(bad2.code, 1);
    assert.match(bad2.stderr, /SIGNATURE_INVALID/);
    assert.equal(await latest(env), v1.hash);
  });
});

Deno.test("lineage: concurrent advancers in separate processes: exactly one wins, the file stays valid", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const v1 = await release(env, "v1", "one", ["--schema-version", "1.0.0"]);
    assert.equal((await runInProcess(verifyArgs(env, v1))).code, 0);
    const rivals = [];
    for (const n of [1, 2, 3, 4]) {
      rivals.push(
        await release(env, `rival${n}`, `rival ${n}`, [
          "--schema-version",
          "1.1.0",
          "--previous-hash",
          v1.hash,
        ]),
      );
    }
    const results = await Promise.all(rivals.map((r) => runCliProcess(verifyArgs(env, r))));
    const winners = results.filter((r) => r.code === 0);
    assert.equal(winners.length, 1, results.map((r) => `${r.code} ${r.stderr}`).join("\n"));
    for (const r of results.filter((r) => r.code !== 0)) {
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /LINEAGE_REJECTED/);
    }
    const winner = rivals[results.findIndex((r) => r.code === 0)];
    const doc = JSON.parse(await Deno.readTextFile(env.lineage)); // valid JSON
    assert.equal(doc.schemapin_lineage_version, 1);
    assert.equal(doc.lineage.length, 1);
    assert.equal(doc.lineage[0].latest_hash, winner.hash);
    assert.deepEqual(doc.lineage[0].history, [v1.hash]);
  });
});

Deno.test("lineage: verify-schema --batch anchors and advances in order, and refuses a fork in a later batch", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    await Deno.mkdir(`${dir}/a`);
    await Deno.mkdir(`${dir}/b`);
    const v1 = await release(env, "a/1", "one", ["--schema-version", "1.0.0"]);
    const v2 = await chained(env, "a/2", "two", v1, "1.1.0");
    const batch = (folder: string) =>
      runInProcess([
        "verify-schema",
        "--batch",
        folder,
        "--domain",
        "example.com",
        "--discovery",
        env.discovery,
        "--pin-store",
        env.pins,
        "--trust-first-use",
        "--lineage-store",
        env.lineage,
        "--json",
      ]);
    const first = await batch(`${dir}/a`);
    assert.equal(first.code, 0, first.stderr);
    const out = await assertJsonOutput(first.stdout);
    const lineages = (out.results as { lineage?: Record<string, unknown> }[]).map((r) => r.lineage);
    assert.deepEqual(lineages, [
      { status: "anchored", hash: v1.hash, store: env.lineage },
      { status: "advanced", hash: v2.hash, latest_hash: v1.hash, store: env.lineage },
    ]);
    assert.equal(await latest(env), v2.hash);
    // A later batch: the current release is unchanged, a fork of the old one is refused.
    await Deno.copyFile(v2.schema, `${dir}/b/2.json`);
    await Deno.copyFile(v2.sig, `${dir}/b/2.json.sig`);
    await release(env, "b/3", "fork", ["--schema-version", "1.2.0", "--previous-hash", v1.hash]);
    const second = await batch(`${dir}/b`);
    assert.equal(second.code, 1, second.stderr);
    const results = (await assertJsonOutput(second.stdout)).results as {
      lineage?: { status: string; reason?: string };
      error?: { code: string };
    }[];
    assert.equal(results[0].lineage?.status, "unchanged");
    assert.equal(results[1].lineage?.status, "rejected");
    assert.equal(results[1].lineage?.reason, "fork");
    assert.equal(results[1].error?.code, "LINEAGE_REJECTED");
    assert.equal(await latest(env), v2.hash);
  });
});

Deno.test("lineage reset: the operator's override; show and list; unknown tools exit 1", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const v1 = await release(env, "v1", "one");
    const v2 = await release(env, "v2", "two", ["--previous-hash", v1.hash]);
    assert.equal((await runInProcess(verifyArgs(env, v1))).code, 0);
    assert.equal((await runInProcess(verifyArgs(env, v2))).code, 0);
    const show = await runInProcess([
      "lineage",
      "show",
      "calc@example.com",
      "--pin-store",
      env.pins,
    ]);
    assert.equal(show.code, 0, show.stderr);
    assert.ok(show.stdout.startsWith(`calc@example.com  ${v2.hash}`), show.stdout);
    const list = await runInProcess(["lineage", "list", "--lineage-store", env.lineage]);
    assert.equal(list.stdout.trim().split("\n").length, 1);
    // A rollback is refused until the operator resets the lineage.
    assert.equal((await runInProcess(verifyArgs(env, v1))).code, 1);
    const reset = await runInProcess([
      "lineage",
      "reset",
      "calc@example.com",
      "--lineage-store",
      env.lineage,
    ]);
    assert.equal(reset.code, 0, reset.stderr);
    assert.ok(reset.stderr.includes(v2.hash), reset.stderr);
    assert.equal(await latest(env), undefined);
    const again = await runInProcess(verifyArgs(env, v1));
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /lineage anchored/);
    // Nothing to reset or show: exit 1; bad arguments: exit 2.
    const none = await runInProcess([
      "lineage",
      "reset",
      "other@example.com",
      "--lineage-store",
      env.lineage,
    ]);
    assert.equal(none.code, 1);
    const noShow = await runInProcess([
      "lineage",
      "show",
      "other@example.com",
      "--lineage-store",
      env.lineage,
    ]);
    assert.equal(noShow.code, 1);
    assert.equal(
      (await runInProcess(["lineage", "reset", "--lineage-store", env.lineage])).code,
      2,
    );
    assert.equal((await runInProcess(["lineage", "rest", "calc@example.com"])).code, 2);
    const both = await runInProcess([
      "lineage",
      "list",
      "--lineage-store",
      env.lineage,
      "--pin-store",
      env.pins,
    ]);
    assert.equal(both.code, 2);
  });
});

Deno.test("lineage list|show|reset --json: the records as stored; a missing tool is LINEAGE_NOT_FOUND (exit 1)", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const v1 = await release(env, "v1", "one", ["--schema-version", "1.0.0"]);
    const v2 = await chained(env, "v2", "two", v1, "1.1.0");
    assert.equal((await runInProcess(verifyArgs(env, v1))).code, 0);
    assert.equal((await runInProcess(verifyArgs(env, v2))).code, 0);
    const stored = JSON.parse(await Deno.readTextFile(env.lineage)).lineage[0];
    const lineage = (...args: string[]) =>
      runInProcess(["lineage", ...args, "--lineage-store", env.lineage, "--json"]);
    const list = await lineage("list");
    assert.equal(list.code, 0, list.stderr);
    const listed = await assertJsonOutput(list.stdout);
    assert.deepEqual(listed.lineage, [stored]);
    assert.equal(listed.lineage_store, env.lineage);
    assert.deepEqual(stored.history, [v1.hash]);
    assert.equal(stored.latest_hash, v2.hash);
    const show = await lineage("show", "calc@example.com");
    assert.equal(show.code, 0, show.stderr);
    assert.deepEqual((await assertJsonOutput(show.stdout)).record, stored);
    const missing = await lineage("show", "other@example.com");
    assert.equal(missing.code, 1);
    const miss = await assertJsonOutput(missing.stdout);
    assert.equal(miss.ok, false);
    assert.equal((miss.error as { code: string }).code, "LINEAGE_NOT_FOUND");
    assert.match(missing.stderr, /other@example.com has no lineage/);
    const reset = await lineage("reset", "calc@example.com");
    assert.equal(reset.code, 0, reset.stderr);
    assert.deepEqual((await assertJsonOutput(reset.stdout)).previous, stored);
    assert.equal(await latest(env), undefined);
    const again = await lineage("reset", "calc@example.com");
    assert.equal(again.code, 1);
    assert.equal(
      ((await assertJsonOutput(again.stdout)).error as { code: string }).code,
      "LINEAGE_NOT_FOUND",
    );
    const empty = await assertJsonOutput((await lineage("list")).stdout);
    assert.deepEqual(empty.lineage, []);
    // A usage mistake with --json is one JSON error, exit 2.
    const bad = await lineage("show");
    assert.equal(bad.code, 2);
    assert.equal(((await assertJsonOutput(bad.stdout)).error as { code: string }).code, "USAGE");
  });
});

Deno.test("lineage: --lineage-store FILE implies --lineage and uses FILE", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    const v1 = await release(env, "v1", "one");
    const store = `${dir}/elsewhere.json`;
    const args = verifyArgs(env, v1, "--lineage-store", store).filter((a) => a !== "--lineage");
    assert.equal((await runInProcess(args)).code, 0);
    assert.equal(await latest(env), undefined);
    assert.equal(JSON.parse(await Deno.readTextFile(store)).lineage[0].latest_hash, v1.hash);
  });
});

Deno.test("lineage: verify-skill anchors, advances, and refuses a release that does not chain", async () => {
  await withTempDir(async (dir) => {
    const env = await setup(dir);
    await withSkill(async (s) => {
      const sign = (...extra: string[]) =>
        runInProcess(["sign-skill", s.dir, "--key", env.key, "--domain", "example.com", ...extra]);
      const verify = () =>
        runInProcess([
          "verify-skill",
          s.dir,
          "--discovery",
          env.discovery,
          "--pin-store",
          env.pins,
          "--trust-first-use",
          "--lineage",
          "--json",
        ]);
      assert.equal((await sign("--schema-version", "1.0.0")).code, 0);
      const first = await verify();
      assert.equal(first.code, 0, first.stderr);
      const h1 = ((await assertJsonOutput(first.stdout)).lineage as { hash: string }).hash;
      const prev = `${dir}/v1.sig`;
      await Deno.copyFile(`${s.dir}/.schemapin.sig`, prev);
      await Deno.writeTextFile(`${s.dir}/SKILL.md`, "# changed\n");
      assert.equal((await sign("--schema-version", "1.1.0", "--previous", prev)).code, 0);
      const second = await verify();
      assert.equal(second.code, 0, second.stderr);
      const out = await assertJsonOutput(second.stdout);
      assert.equal((out.lineage as { status: string }).status, "advanced");
      assert.equal((out.lineage as { latest_hash: string }).latest_hash, h1);
      await Deno.writeTextFile(`${s.dir}/SKILL.md`, "# changed again\n");
      assert.equal((await sign("--schema-version", "1.2.0")).code, 0); // no previous_hash
      const third = await verify();
      assert.equal(third.code, 1);
      assert.equal(
        ((await assertJsonOutput(third.stdout)).error as { code: string }).code,
        "LINEAGE_REJECTED",
      );
    });
  });
});

Deno.test("guard: --lineage and --lineage-store go with --signatures (exit 2)", async () => {
  for (const flags of [["--lineage"], ["--lineage-store", "/tmp/x.json"]]) {
    const r = await runInProcess(["guard", ...flags, "--", "true"]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /goes with --signatures/);
  }
});
