// The bundle authority allow-list: seeding, memory and file stores.
import assert from "node:assert/strict";
import { isSchemaPinError } from "../../lib/errors.ts";
import {
  FileBundleAuthorityStore,
  makeAuthorityRecord,
  MemoryBundleAuthorityStore,
  removeBundleAuthority,
  seedBundleAuthority,
  seedBundleAuthorityFromPem,
} from "../../lib/bundle/authority.ts";
import { verifyTrustBundle } from "../../lib/bundle/verify.ts";
import { signTrustBundle } from "../../lib/bundle/sign.ts";
import { withTempDir } from "../cli/run.ts";
import { AUTH_1, AUTH_2, DEV_A, raw, unsignedBundle } from "./_helpers.ts";

const FP1 = AUTH_1.publicKey.fingerprint;
const FP2 = AUTH_2.publicKey.fingerprint;

Deno.test("seeding: idempotent for the same key, KEY_PIN_MISMATCH for another", async () => {
  const store = new MemoryBundleAuthorityStore();
  const first = await seedBundleAuthority(store, "auth", FP1, Date.UTC(2026, 0, 1));
  assert.equal(first.status, "added");
  assert.equal(first.record.pinnedAt, "2026-01-01T00:00:00Z");
  assert.equal((await seedBundleAuthority(store, "auth", FP1)).status, "exists");
  await assert.rejects(
    () => seedBundleAuthority(store, "auth", FP2),
    (e) => isSchemaPinError(e, "KEY_PIN_MISMATCH") && e.message.includes(FP1),
  );
  assert.equal((await store.get("auth"))?.fingerprint, FP1, "the first seed stays");
  const fromPem = await seedBundleAuthorityFromPem(store, "auth-2", AUTH_2.publicKey.pem);
  assert.equal(fromPem.record.fingerprint, FP2);
  assert.deepEqual((await store.list()).map((r) => r.kid), ["auth", "auth-2"]);
  assert.equal(await removeBundleAuthority(store, "auth"), true);
  assert.equal(await removeBundleAuthority(store, "auth"), false);
});

Deno.test("seeding rejects bad kids, fingerprints and keys", async () => {
  const store = new MemoryBundleAuthorityStore();
  const input = (e: unknown) => isSchemaPinError(e, "INPUT_INVALID");
  await assert.rejects(() => seedBundleAuthority(store, "", FP1), input);
  await assert.rejects(() => seedBundleAuthority(store, "k\n", FP1), input);
  await assert.rejects(() => seedBundleAuthority(store, "k", FP1.toUpperCase()), input);
  await assert.rejects(() => seedBundleAuthority(store, "k", "sha256:abc"), input);
  await assert.rejects(
    () =>
      seedBundleAuthorityFromPem(
        store,
        "k",
        "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
      ),
    (e) => isSchemaPinError(e, "KEY_INVALID"),
  );
  assert.throws(
    () => makeAuthorityRecord({ kid: "k", fingerprint: FP1, source: "trusted" as never }),
    input,
  );
  assert.deepEqual(await store.list(), []);
});

Deno.test("the file store persists seeds and first-use pins, in the pin store's format", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/state/bundle_authorities.json`;
    const store = new FileBundleAuthorityStore(path);
    assert.deepEqual(await store.list(), [], "a missing file is empty");
    await seedBundleAuthority(store, "auth-1", FP1, Date.UTC(2026, 0, 1));
    const bundle = raw(
      signTrustBundle(
        unsignedBundle({ "example.com": DEV_A }),
        AUTH_2,
        "auth-2",
        "2026-05-20T00:00:00Z",
      ),
    );
    const r = await verifyTrustBundle(bundle, new FileBundleAuthorityStore(path), {
      allowFirstUse: true,
      now: Date.UTC(2026, 5, 1),
    });
    assert.equal(r.firstUse, true);
    const file = JSON.parse(await Deno.readTextFile(path));
    assert.deepEqual(file, {
      schemapin_bundle_authorities_version: 1,
      authorities: [
        { kid: "auth-1", fingerprint: FP1, pinned_at: "2026-01-01T00:00:00Z", source: "seeded" },
        { kid: "auth-2", fingerprint: FP2, pinned_at: "2026-06-01T00:00:00Z", source: "first_use" },
      ],
    });
    assert.equal((await Deno.stat(`${dir}/state`)).mode! & 0o777, 0o700);
    // A fresh handle reads the same allow-list.
    assert.equal((await new FileBundleAuthorityStore(path).get("auth-2"))?.source, "first_use");
  });
});

Deno.test("the file store refuses corrupt or foreign files and never overwrites them", async () => {
  await withTempDir(async (dir) => {
    const cases: [string, string][] = [
      ["not json", "{"],
      ["foreign", JSON.stringify({ schemapin_pins_version: 1, pins: [] })],
      ["bad list", JSON.stringify({ schemapin_bundle_authorities_version: 1, authorities: {} })],
      [
        "bad entry",
        JSON.stringify({
          schemapin_bundle_authorities_version: 1,
          authorities: [{
            kid: "k",
            fingerprint: "sha256:x",
            pinned_at: "2026-01-01T00:00:00Z",
            source: "seeded",
          }],
        }),
      ],
      [
        "twice",
        JSON.stringify({
          schemapin_bundle_authorities_version: 1,
          authorities: [1, 2].map(() => ({
            kid: "k",
            fingerprint: FP1,
            pinned_at: "2026-01-01T00:00:00Z",
            source: "seeded",
          })),
        }),
      ],
    ];
    for (const [name, text] of cases) {
      const path = `${dir}/${name.replace(" ", "_")}.json`;
      await Deno.writeTextFile(path, text);
      const store = new FileBundleAuthorityStore(path);
      await assert.rejects(() => store.list(), (e) => isSchemaPinError(e, "INPUT_INVALID"), name);
      await assert.rejects(
        () => seedBundleAuthority(store, "other", FP2),
        (e) => isSchemaPinError(e, "INPUT_INVALID"),
        name,
      );
      assert.equal(await Deno.readTextFile(path), text, `${name}: left untouched`);
    }
  });
});

Deno.test("concurrent first uses through two file handles keep one consistent record", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/a.json`;
    const results = await Promise.all(
      [AUTH_1, AUTH_2].map((key) =>
        seedBundleAuthority(
          new FileBundleAuthorityStore(path),
          "same-kid",
          key.publicKey.fingerprint,
        )
          .then(() => "ok", (e) => (isSchemaPinError(e, "KEY_PIN_MISMATCH") ? "mismatch" : "other"))
      ),
    );
    assert.deepEqual(results.sort(), ["mismatch", "ok"]);
    assert.equal((await new FileBundleAuthorityStore(path).list()).length, 1);
  });
});
