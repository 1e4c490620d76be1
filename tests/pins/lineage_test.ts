import assert from "node:assert/strict";
import { LineageBatch, LineageStore } from "../../lib/pins/lineage.ts";
import {
  compareVersions,
  type LineageSignature,
  parseNumericVersion,
  verifyChain,
} from "../../lib/pins/chain.ts";
import { isSchemaPinError } from "../../lib/errors.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { tempDir } from "../schema/_fixtures.ts";

const H = (c: string) => "sha256:" + c.repeat(64);
const sig = (hash: string, extra: Partial<LineageSignature> = {}): LineageSignature => ({
  schemapin_version: "1.4",
  schema_hash: hash,
  ...extra,
});

Deno.test("verifyChain succeeds when previous_hash names the previous hash", () => {
  assert.deepEqual(verifyChain(sig(H("b"), { previous_hash: H("a") }), sig(H("a"))), {
    valid: true,
    hash: H("b"),
  });
  // Skill documents chain through skill_hash.
  assert.equal(
    verifyChain(
      { schemapin_version: "1.4", skill_hash: H("b"), previous_hash: H("a") },
      { schemapin_version: "1.4", skill_hash: H("a") },
    ).valid,
    true,
  );
});

Deno.test("verifyChain tells 'no previous hash' from 'mismatch' and names both hashes", () => {
  for (const prev of [undefined, ""]) {
    const r = verifyChain(sig(H("b"), { previous_hash: prev }), sig(H("a")));
    assert.equal(r.valid, false);
    assert.equal(!r.valid && r.reason, "no_previous_hash");
  }
  const m = verifyChain(sig(H("b"), { previous_hash: H("c") }), sig(H("a")));
  assert.equal(m.valid, false);
  if (!m.valid && m.reason === "mismatch") {
    assert.equal(m.expected, H("a"));
    assert.equal(m.observed, H("c"));
    assert.ok(m.message.includes(H("a")) && m.message.includes(H("c")));
  } else {
    assert.fail("expected a mismatch");
  }
  assert.throws(
    () => verifyChain(sig(H("b"), { previous_hash: H("a") }), { schemapin_version: "1.4" }),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
});

// §4b: verifiers "MUST NOT anchor lineage (Section 18)" on legacy documents; §18.4: "A legacy
// 1.3 document MUST be refused as a lineage anchor". The expectations below are that text.
const legacySkill = (hash: string, extra: Partial<LineageSignature> = {}): LineageSignature => ({
  schemapin_version: "1.3",
  skill_hash: hash,
  ...extra,
});

Deno.test("verifyChain refuses a legacy current document even when its previous_hash matches", () => {
  const r = verifyChain(legacySkill(H("b"), { previous_hash: H("a") }), sig(H("a")));
  assert.equal(r.valid, false);
  assert.equal(!r.valid && r.reason, "legacy");
  if (r.valid || r.reason !== "legacy") return assert.fail("expected legacy");
  assert.deepEqual(r.legacy, ["current"]);
  assert.match(r.message, /the current document \(schemapin_version "1\.3"\)/);
  assert.match(r.message, /not covered by its signature/);
  assert.match(r.message, /§18\.4/);
});

Deno.test("verifyChain refuses a legacy previous document (the anchor) even when hashes match", () => {
  const r = verifyChain(
    { schemapin_version: "1.4", skill_hash: H("b"), previous_hash: H("a") },
    legacySkill(H("a")),
  );
  assert.equal(r.valid, false);
  if (r.valid || r.reason !== "legacy") return assert.fail("expected legacy");
  assert.deepEqual(r.legacy, ["previous"]);
  assert.match(r.message, /the previous document \(schemapin_version "1\.3"\)/);
});

Deno.test("verifyChain names both documents when both are legacy", () => {
  const r = verifyChain(legacySkill(H("b"), { previous_hash: H("a") }), legacySkill(H("a")));
  if (r.valid || r.reason !== "legacy") return assert.fail("expected legacy");
  assert.deepEqual(r.legacy, ["current", "previous"]);
  assert.match(r.message, /current document .* and the previous document .* are legacy/);
});

Deno.test("verifyChain: legacy is decided before no_previous_hash and mismatch", () => {
  for (const prev of [undefined, "", H("c")]) {
    const r = verifyChain(legacySkill(H("b"), { previous_hash: prev }), sig(H("a")));
    assert.equal(!r.valid && r.reason, "legacy", String(prev));
  }
  // A 1.4 current whose previous_hash is wrong, chained to a legacy document: still legacy.
  const r = verifyChain(sig(H("b"), { previous_hash: H("c") }), legacySkill(H("a")));
  assert.equal(!r.valid && r.reason, "legacy");
});

Deno.test("verifyChain treats every version below 1.4, and a missing one, as legacy", () => {
  for (
    const version of ["1.3", "1.0", "1.3.9", "0.9", "1.", "v1.4", "", "1.4".padStart(5, " ")]
  ) {
    const r = verifyChain(
      { schemapin_version: version, skill_hash: H("b"), previous_hash: H("a") },
      sig(H("a")),
    );
    assert.equal(!r.valid && r.reason, "legacy", JSON.stringify(version));
  }
  for (const version of [undefined, 1.4, null]) {
    const r = verifyChain(
      {
        schemapin_version: version,
        skill_hash: H("b"),
        previous_hash: H("a"),
      } as unknown as LineageSignature,
      sig(H("a")),
    );
    assert.equal(!r.valid && r.reason, "legacy", String(version));
  }
});

Deno.test("verifyChain accepts 1.4 and later on both sides (the contrast)", () => {
  for (const version of ["1.4", "1.5", "2.0", "1.10"]) {
    const r = verifyChain(
      { schemapin_version: version, skill_hash: H("b"), previous_hash: H("a") },
      { schemapin_version: version, skill_hash: H("a") },
    );
    assert.deepEqual(r, { valid: true, hash: H("b") }, version);
  }
});

Deno.test("verifyChain refuses the reference SDK's legacy skill document as an anchor", async () => {
  const doc = parseJson(
    await Deno.readFile(
      new URL("../fixtures/interop/reference-js/legacy_skill/.schemapin.sig", import.meta.url),
    ),
  ) as unknown as LineageSignature;
  const r = verifyChain(
    { schemapin_version: "1.4", skill_hash: H("b"), previous_hash: doc.skill_hash },
    doc,
  );
  assert.equal(!r.valid && r.reason, "legacy");
});

Deno.test("versions compare numerically", () => {
  assert.deepEqual(parseNumericVersion("2.10.0"), [2, 10, 0]);
  assert.deepEqual(parseNumericVersion("3"), [3, 0, 0]);
  assert.deepEqual(parseNumericVersion("1.2.3-beta.1"), [1, 2, 3]);
  for (const bad of ["v1.0.0", "1.2.3.4", "", "one", "1..2"]) {
    assert.equal(parseNumericVersion(bad), undefined, bad);
  }
  assert.ok(compareVersions("1.10.0", "1.9.9")! > 0);
  assert.ok(compareVersions("2.0.0", "10.0.0")! < 0);
  assert.equal(compareVersions("1.0", "1.0.0"), 0);
  assert.equal(compareVersions("x", "1.0.0"), undefined);
});

Deno.test("LineageStore: anchor, unchanged, advance", async () => {
  const store = new LineageStore({ memory: true });
  assert.deepEqual(
    await store.checkAndAdvance("t", "example.com", sig(H("a"), { schema_version: "1.9.0" })),
    { status: "anchored", hash: H("a") },
  );
  assert.deepEqual(await store.checkAndAdvance("t", "example.com", sig(H("a"))), {
    status: "unchanged",
    hash: H("a"),
  });
  assert.deepEqual(
    await store.checkAndAdvance(
      "t",
      "Example.com",
      sig(H("b"), { previous_hash: H("a"), schema_version: "1.10.0" }),
    ),
    { status: "advanced", from: H("a"), to: H("b") },
  );
  const r = await store.get("t", "example.com");
  assert.equal(r?.latestHash, H("b"));
  assert.equal(r?.schemaVersion, "1.10.0");
  assert.deepEqual(r?.history, [H("a")]);
});

Deno.test("LineageStore rejects forks, rollbacks, missing links, non-increasing versions, legacy", async () => {
  const store = new LineageStore({ memory: true });
  await store.checkAndAdvance("t", "example.com", sig(H("a"), { schema_version: "1.0.0" }));
  await store.checkAndAdvance(
    "t",
    "example.com",
    sig(H("b"), { previous_hash: H("a"), schema_version: "1.1.0" }),
  );
  const reason = async (s: LineageSignature) => {
    const o = await store.checkAndAdvance("t", "example.com", s);
    return o.status === "rejected" ? o.reason : o.status;
  };
  assert.equal(await reason(sig(H("c"))), "missing_previous_hash");
  assert.equal(await reason(sig(H("c"), { previous_hash: H("e") })), "fork");
  assert.equal(await reason(sig(H("a"))), "rollback");
  assert.equal(await reason(sig(H("a"), { previous_hash: H("f") })), "rollback");
  assert.equal(
    await reason(sig(H("c"), { previous_hash: H("b"), schema_version: "1.1.0" })),
    "version_not_increasing",
  );
  assert.equal(
    await reason(sig(H("c"), { previous_hash: H("b"), schema_version: "1.0.9" })),
    "version_not_increasing",
  );
  assert.equal(
    await reason(sig(H("c"), { previous_hash: H("b"), schema_version: "next" })),
    "version_unparseable",
  );
  assert.equal(
    await reason({ schemapin_version: "1.3", schema_hash: H("c"), previous_hash: H("b") }),
    "legacy",
  );
  assert.equal((await store.get("t", "example.com"))?.latestHash, H("b"), "nothing moved");
  // A legacy document cannot anchor either.
  const fresh = new LineageStore({ memory: true });
  assert.equal(
    (await fresh.checkAndAdvance("u", "example.com", {
      schemapin_version: "1.3",
      skill_hash: H("a"),
    })).status,
    "rejected",
  );
  assert.equal(await fresh.get("u", "example.com"), undefined);
  await assert.rejects(() =>
    fresh.override("u", "example.com", { schemapin_version: "1.2", skill_hash: H("a") })
  );
  // Operator override after inspection.
  await store.override("t", "example.com", sig(H("9")));
  assert.equal((await store.get("t", "example.com"))?.latestHash, H("9"));
  assert.equal((await store.remove("t", "example.com"))?.latestHash, H("9"), "the record it had");
  assert.equal(await store.get("t", "example.com"), undefined);
  assert.equal(await store.remove("t", "example.com"), undefined, "none left to remove");
  await assert.rejects(() => store.remove("t", "not a domain"), (e) => isSchemaPinError(e));
});

Deno.test("LineageStore persists to a file with the same locked format", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const path = `${dir}/lineage.json`;
    await new LineageStore({ path }).checkAndAdvance(
      "__proto__",
      "example.com",
      sig(H("a"), { schema_version: "2.0.0" }),
    );
    const again = new LineageStore({ path });
    assert.equal(
      (await again.checkAndAdvance(
        "__proto__",
        "example.com",
        sig(H("b"), { previous_hash: H("a"), schema_version: "2.1.0" }),
      )).status,
      "advanced",
    );
    const value = parseJson(await Deno.readFile(path)) as { lineage: Record<string, unknown>[] };
    assert.equal((value as Record<string, unknown>).schemapin_lineage_version, 1);
    assert.equal(value.lineage[0].tool_id, "__proto__");
    assert.equal(value.lineage[0].latest_hash, H("b"));
    assert.deepEqual((await again.list()).map((r) => r.toolId), ["__proto__"]);
    await Deno.writeTextFile(path, "{}");
    await assert.rejects(
      () => again.get("x", "example.com"),
      (e) => isSchemaPinError(e, "INPUT_INVALID"),
    );
  } finally {
    await cleanup();
  }
});

// --- Batches (issue 27: one read and one transaction per batch, not one rewrite per schema) ---

const T = (signature: LineageSignature, toolId = "t") => ({
  toolId,
  domain: "example.com",
  signature,
});

Deno.test("checkAndAdvanceMany decides in order: the same tool twice anchors, then advances", async () => {
  const store = new LineageStore({ memory: true });
  const outcomes = await store.checkAndAdvanceMany([
    T(sig(H("a"), { schema_version: "1.0.0" })),
    T(sig(H("b"), { previous_hash: H("a"), schema_version: "1.1.0" })),
    T(sig(H("c")), "u"),
  ]);
  assert.deepEqual(outcomes.map((o) => o.status), ["anchored", "advanced", "anchored"]);
  assert.equal((await store.get("t", "example.com"))?.latestHash, H("b"));
  assert.deepEqual((await store.get("t", "example.com"))?.history, [H("a")]);
});

Deno.test("checkAndAdvanceMany refuses in order too: a rollback and a fork after an advance", async () => {
  const store = new LineageStore({ memory: true });
  const outcomes = await store.checkAndAdvanceMany([
    T(sig(H("a"))),
    T(sig(H("b"), { previous_hash: H("a") })),
    T(sig(H("a"))), // the release the lineage just moved past
    T(sig(H("c"), { previous_hash: H("a") })), // names a superseded hash
    T({ schemapin_version: "1.3", skill_hash: H("d") }),
  ]);
  assert.deepEqual(
    outcomes.map((o) => o.status === "rejected" ? o.reason : o.status),
    ["anchored", "advanced", "rollback", "fork", "legacy"],
  );
  assert.equal((await store.get("t", "example.com"))?.latestHash, H("b"));
});

Deno.test("checkAndAdvanceMany: a bad tool id fails the whole call and writes nothing", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const store = new LineageStore({ path: `${dir}/lineage.json` });
    await assert.rejects(
      () => store.checkAndAdvanceMany([T(sig(H("a"))), T(sig(H("b")), "")]),
      (e) => isSchemaPinError(e, "INPUT_INVALID"),
    );
    await assert.rejects(() => Deno.stat(`${dir}/lineage.json`), Deno.errors.NotFound);
    await assert.rejects(
      () => store.checkAndAdvanceMany("nope" as never),
      (e) => isSchemaPinError(e, "INPUT_INVALID"),
    );
  } finally {
    await cleanup();
  }
});

Deno.test("checkAndAdvanceMany of legacy documents only never opens the file", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const path = `${dir}/lineage.json`;
    await Deno.writeTextFile(path, "not json"); // would fail to parse if it were read
    const outcomes = await new LineageStore({ path }).checkAndAdvanceMany([
      T({ schemapin_version: "1.3", skill_hash: H("a") }),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ["rejected"]);
  } finally {
    await cleanup();
  }
});

Deno.test("LineageBatch: check and checkAndAdvance answer from a snapshot and write nothing", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const path = `${dir}/lineage.json`;
    const batch = new LineageBatch(new LineageStore({ path }));
    assert.equal(batch.path, path);
    assert.equal((await batch.check("t", "example.com", sig(H("a")))).status, "anchored");
    assert.equal((await batch.checkAndAdvance("t", "example.com", sig(H("a")))).status, "anchored");
    // Later items of the batch see the advance…
    assert.equal((await batch.check("t", "example.com", sig(H("a")))).status, "unchanged");
    const fork = await batch.check("t", "example.com", sig(H("c"), { previous_hash: H("x") }));
    assert.equal(fork.status === "rejected" && fork.reason, "fork");
    // …but nothing reached the file.
    await assert.rejects(() => Deno.stat(path), Deno.errors.NotFound);
    const outcomes = await batch.commit([T(sig(H("a")))]);
    assert.deepEqual(outcomes, [{ status: "anchored", hash: H("a") }]);
    assert.equal((await new LineageStore({ path }).get("t", "example.com"))?.latestHash, H("a"));
  } finally {
    await cleanup();
  }
});

Deno.test("LineageBatch.commit decides again under the lock: another writer's advance wins", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const path = `${dir}/lineage.json`;
    const other = new LineageStore({ path });
    await other.checkAndAdvance("t", "example.com", sig(H("a")));
    const batch = new LineageBatch(new LineageStore({ path }));
    const staged = sig(H("b"), { previous_hash: H("a") });
    assert.equal((await batch.checkAndAdvance("t", "example.com", staged)).status, "advanced");
    // Another verifier moves the lineage on before the batch commits.
    await other.checkAndAdvance("t", "example.com", sig(H("c"), { previous_hash: H("a") }));
    const [outcome] = await batch.commit([T(staged)]);
    assert.equal(outcome.status === "rejected" && outcome.reason, "fork");
    assert.equal((await other.get("t", "example.com"))?.latestHash, H("c"));
    // After a commit the snapshot is read again: the other writer's record is seen.
    assert.equal((await batch.check("t", "example.com", sig(H("c")))).status, "unchanged");
  } finally {
    await cleanup();
  }
});

Deno.test("LineageBatch: advances never committed are forgotten at the next commit", async () => {
  const store = new LineageStore({ memory: true });
  const batch = new LineageBatch(store);
  await batch.checkAndAdvance("t", "example.com", sig(H("a"))); // its verification failed later
  await batch.checkAndAdvance("u", "example.com", sig(H("b")));
  assert.deepEqual(
    (await batch.commit([T(sig(H("b")), "u")])).map((o) => o.status),
    ["anchored"],
  );
  assert.equal(await store.get("t", "example.com"), undefined);
  assert.equal((await batch.check("t", "example.com", sig(H("f")))).status, "anchored");
});

Deno.test("LineageBatch refuses a missing store and a malformed file", async () => {
  assert.throws(
    () => new LineageBatch(undefined as never),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  const { dir, cleanup } = await tempDir();
  try {
    const path = `${dir}/lineage.json`;
    await Deno.writeTextFile(path, "{}");
    const batch = new LineageBatch(new LineageStore({ path }));
    await assert.rejects(
      () => batch.check("t", "example.com", sig(H("a"))),
      (e) => isSchemaPinError(e, "INPUT_INVALID"),
    );
  } finally {
    await cleanup();
  }
});
