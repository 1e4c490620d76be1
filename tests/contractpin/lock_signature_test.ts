// Signed locks, the pure core (cli/contractpin/lock_signature.ts): signLock writes a 1.4
// schema signature document over the lock's canonical value; verifyLockSignature runs
// verify-schema's flow with the pin contractpin:lock@DOMAIN. Expectations come from the
// format's definition (sorted compact JSON, SHA-256 via node:crypto), not from the code.
import assert from "node:assert/strict";
import { oracleSchemapinV1 } from "../oracle/canonical.ts";
import { oracleParse } from "../oracle/json.ts";
import { createHash } from "node:crypto";
import { isSchemaPinError } from "../../lib/errors.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { LocalFileResolver } from "../../lib/discovery/resolvers.ts";
import {
  buildLock,
  lockServerEntry,
  parseLock,
  serializeLock,
} from "../../lib/contractpin/lock.ts";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import {
  LOCK_SIGNATURE_TOOL_ID,
  lockHash,
  signLock,
  verifyLockSignature,
} from "../../cli/contractpin/lock_signature.ts";
import { discoveryFor, OTHER, SIGNER } from "../schema/_fixtures.ts";
import { withTempDir } from "../cli/run.ts";

const DOMAIN = "example.com";
const DAY = 86_400_000;

function lockText(): string {
  const tools = digestToolList([
    { name: "echo", description: "Echo back", inputSchema: { type: "object" } },
    { name: "add", description: "Add two numbers", inputSchema: { type: "object" } },
  ] as JsonValue[]);
  return serializeLock(buildLock({
    srv: lockServerEntry(
      { transport: "stdio", command: ["node", "server.js"], env: { K: "${K}" } },
      tools,
      ["roots"],
    ),
  }, new Date(Date.UTC(2026, 0, 1))));
}
const lockValue = () => JSON.parse(lockText());

/** schemapin-v1 canonical text by the project's independent oracle (tests/oracle: no lib/ code). */
const oracleCanonical = (value: unknown) =>
  oracleSchemapinV1(oracleParse(new TextEncoder().encode(JSON.stringify(value))));

function verify(
  lock: unknown,
  signature: unknown,
  extra: Partial<Parameters<typeof verifyLockSignature>[0]> = {},
) {
  return verifyLockSignature({
    lock,
    signature,
    domain: DOMAIN,
    discovery: discoveryFor(SIGNER),
    pinStore: new MemoryPinStore(),
    trustFirstUse: true,
    ...extra,
  });
}

// ---------------------------------------------------------------------------------------------
// positive

Deno.test("lock signature: signed and verified; schema_hash is SHA-256 of the oracle's canonical lock", async () => {
  const lock = lockValue();
  const doc = signLock(lock, SIGNER, { domain: DOMAIN, signerKid: "k1" });
  const expected = "sha256:" +
    createHash("sha256").update(oracleCanonical(lock)).digest("hex");
  assert.equal(doc.schema_hash, expected);
  assert.equal(lockHash(lock), expected);
  assert.equal(doc.schemapin_version, "1.4");
  const pins = new MemoryPinStore();
  const r = await verify(lock, doc, { pinStore: pins });
  assert.equal(r.valid, true, r.errorMessage);
  assert.equal(r.toolId, "contractpin:lock");
  assert.equal(r.keyPinning, "first_use");
  assert.equal(r.signerKid, "k1");
  assert.equal(r.schemaHash, expected);
  assert.equal(
    (await pins.get(LOCK_SIGNATURE_TOOL_ID, DOMAIN))?.fingerprint,
    SIGNER.publicKey.fingerprint,
  );
});

Deno.test("lock signature: reformatting (whitespace, key order) keeps it valid; parseLock's value hashes the same", async () => {
  const lock = lockValue();
  const doc = signLock(lock, SIGNER);
  const reordered = JSON.parse(JSON.stringify(
    Object.fromEntries(Object.entries(lock).reverse()),
  ));
  assert.equal((await verify(reordered, doc)).valid, true);
  const parsed = parseLock(new TextEncoder().encode(lockText()));
  assert.equal(lockHash(parsed), doc.schema_hash);
  assert.equal((await verify(parsed, doc)).valid, true);
});

Deno.test("lock signature: an expired signature passes only with allowExpired, with a warning", async () => {
  const lock = lockValue();
  const doc = signLock(lock, SIGNER, {
    signedAt: Date.now() - 10 * DAY,
    expiresAt: Date.now() - DAY,
  });
  const r = await verify(lock, doc, { allowExpired: true });
  assert.equal(r.valid, true);
  assert.equal(r.expired, true);
  assert.deepEqual(r.warnings, ["signature_expired"]);
});

Deno.test("lock signature: verified through a resolver (a local folder)", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/${DOMAIN}.json`, JSON.stringify(discoveryFor(SIGNER)));
    const lock = lockValue();
    const r = await verifyLockSignature({
      lock,
      signature: signLock(lock, SIGNER),
      domain: DOMAIN,
      resolver: new LocalFileResolver(dir),
      pinStore: new MemoryPinStore(),
      trustFirstUse: true,
    });
    assert.equal(r.valid, true, r.errorMessage);
    assert.match(r.discoverySource ?? "", /example\.com\.json/);
  });
});

Deno.test("lock signature: a tool's pin under the same domain is a different pin", async () => {
  const lock = lockValue();
  const pins = new MemoryPinStore();
  // A tool named like the lock id cannot exist in MCP; a pin for a tool with another key
  // must not affect the lock's pin.
  await pins.transact((m) => {
    m.set(`contractpin.lock@${DOMAIN}`, {
      toolId: "contractpin.lock",
      domain: DOMAIN,
      fingerprint: OTHER.publicKey.fingerprint,
      pinnedAt: "2026-01-01T00:00:00Z",
      source: "seeded",
    });
    return { changed: true, result: undefined };
  });
  const r = await verify(lock, signLock(lock, SIGNER), { pinStore: pins });
  assert.equal(r.valid, true, r.errorMessage);
});

// ---------------------------------------------------------------------------------------------
// negative

Deno.test("lock signature: a digest edited after signing fails, naming the change", async () => {
  const lock = lockValue();
  const doc = signLock(lock, SIGNER);
  lock.servers.srv.tools.add.digest = "sha256:" + "1".repeat(64);
  const r = await verify(lock, doc);
  assert.equal(r.valid, false);
  assert.equal(r.errorCode, "SIGNATURE_INVALID");
  assert.match(r.errorMessage!, /the lock was changed after it was signed/);
  assert.equal(r.keyPinning, "not_pinned");
});

Deno.test("lock signature: expired fails with SIGNATURE_EXPIRED", async () => {
  const lock = lockValue();
  const doc = signLock(lock, SIGNER, {
    signedAt: Date.now() - 10 * DAY,
    expiresAt: Date.now() - DAY,
  });
  const r = await verify(lock, doc);
  assert.equal(r.errorCode, "SIGNATURE_EXPIRED");
  assert.equal(r.expired, true);
});

Deno.test("lock signature: another key fails and pins nothing", async () => {
  const lock = lockValue();
  const pins = new MemoryPinStore();
  const r = await verify(lock, signLock(lock, OTHER), { pinStore: pins });
  assert.equal(r.errorCode, "SIGNATURE_INVALID");
  assert.deepEqual(await pins.list(), []);
});

Deno.test("lock signature: a revoked key fails with KEY_REVOKED", async () => {
  const lock = lockValue();
  const r = await verify(lock, signLock(lock, SIGNER), {
    discovery: discoveryFor(SIGNER, { revoked_keys: [SIGNER.publicKey.fingerprint] }),
  });
  assert.equal(r.errorCode, "KEY_REVOKED");
});

Deno.test("lock signature: a pinned different key fails with KEY_PIN_MISMATCH", async () => {
  const lock = lockValue();
  const pins = new MemoryPinStore();
  assert.equal(
    (await verify(lock, signLock(lock, OTHER), {
      pinStore: pins,
      discovery: discoveryFor(OTHER),
    })).valid,
    true,
  );
  const r = await verify(lock, signLock(lock, SIGNER), { pinStore: pins });
  assert.equal(r.errorCode, "KEY_PIN_MISMATCH");
});

Deno.test("lock signature: a document for another domain fails with DOMAIN_MISMATCH", async () => {
  const lock = lockValue();
  const r = await verify(lock, signLock(lock, SIGNER, { domain: "example.org" }));
  assert.equal(r.errorCode, "DOMAIN_MISMATCH");
});

Deno.test("lock signature: a bare Base64 signature or a malformed document is SIGNATURE_INVALID", async () => {
  const lock = lockValue();
  const doc = signLock(lock, SIGNER);
  const bare = await verify(lock, doc.signature);
  assert.equal(bare.errorCode, "SIGNATURE_INVALID");
  assert.match(bare.errorMessage!, /not a SchemaPin 1\.4 signature document/);
  const { schema_hash: _h, ...missing } = doc;
  assert.equal((await verify(lock, missing)).errorCode, "SIGNATURE_INVALID");
  assert.equal((await verify(lock, null)).errorCode, "SIGNATURE_INVALID");
  assert.equal(
    (await verify(lock, { ...doc, signed_at: "yesterday" })).errorCode,
    "SIGNATURE_INVALID",
  );
});

Deno.test("lock signature: a value that is not a lock is refused (INPUT_INVALID), never signed", () => {
  for (const bad of [{}, { ...lockValue(), contractpin: "9" }, [], "lock", { servers: {} }]) {
    assert.throws(() => signLock(bad, SIGNER), (e) => isSchemaPinError(e, "INPUT_INVALID"));
    assert.throws(() => lockHash(bad), (e) => isSchemaPinError(e, "INPUT_INVALID"));
  }
});

Deno.test("lock signature: bad metadata and misuse throw INPUT_INVALID", async () => {
  const lock = lockValue();
  const now = Date.now();
  assert.throws(
    () => signLock(lock, SIGNER, { signedAt: now, expiresAt: now - 1000 }),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  assert.throws(
    () => signLock(lock, SIGNER, { domain: "not a domain" }),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  assert.throws(
    () => signLock(lock, SIGNER, { signerKid: "" }),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  await assert.rejects(
    verify(lock, signLock(lock, SIGNER), { resolver: new LocalFileResolver("/nonexistent") }),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  await assert.rejects(
    verifyLockSignature({
      lock,
      signature: signLock(lock, SIGNER),
      domain: DOMAIN,
      pinStore: new MemoryPinStore(),
    }),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
});
