/**
 * The guard enforces SchemaPin lineage (§18.4) for signed tools: verifyToolSignature with a
 * LineageStore in its trust anchors on a first release, accepts the same release again and a
 * release that extends the latest, refuses forks and rollbacks with LINEAGE_REJECTED, never
 * moves the store for a failed signature, and enforces nothing without a store (opt-in).
 */
import assert from "node:assert/strict";
import { projectContract } from "../../lib/contractpin/contract.ts";
import { generateKeyPair, type PrivateKey } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import type { JsonObject, JsonValue } from "../../lib/json/types.ts";
import { LineageStore } from "../../lib/pins/lineage.ts";
import { GuardPolicy } from "../../lib/guard/policy.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { SCHEMA_SIGNATURE_FIELDS, signSchemaDocument } from "../../lib/schema/document.ts";
import type { LineageReport } from "../../lib/schema/lineage_verify.ts";
import {
  DOMAIN_META_KEY,
  SIGNATURE_META_KEY,
  type ToolSignatureCheck,
  type ToolTrust,
  verifyToolSignature,
} from "../../lib/guard/signatures.ts";

const DOMAIN = "tools.example.com";
const key = generateKeyPair();
const discovery = buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Example" });

interface Release {
  tool: JsonObject;
  hash: string;
}

/**
 * A signed release of tool "calc": signToolList has no previous_hash option, so the 1.4
 * document is signed over the tool's contract with signSchemaDocument and attached in `_meta`
 * exactly where signToolList puts it.
 */
function release(
  description: string,
  options: { schemaVersion?: string; previousHash?: string; signer?: PrivateKey; name?: string } =
    {},
): Release {
  const tool: JsonObject = {
    name: options.name ?? "calc",
    description,
    inputSchema: { type: "object", properties: { a: { type: "number" } } },
  };
  const doc = signSchemaDocument(projectContract(tool as JsonValue), options.signer ?? key, {
    domain: DOMAIN,
    ...(options.schemaVersion !== undefined ? { schemaVersion: options.schemaVersion } : {}),
    ...(options.previousHash !== undefined ? { previousHash: options.previousHash } : {}),
  });
  const signature: JsonObject = {};
  for (const field of SCHEMA_SIGNATURE_FIELDS) {
    const v = doc[field];
    if (v !== undefined) signature[field] = v as JsonValue;
  }
  tool._meta = { [SIGNATURE_META_KEY]: signature, [DOMAIN_META_KEY]: DOMAIN };
  return { tool, hash: doc.schema_hash };
}

function trust(lineage?: LineageStore, pinStore = new MemoryPinStore()): ToolTrust {
  return {
    domain: DOMAIN,
    discovery,
    pinStore,
    trustFirstUse: true,
    ...(lineage ? { lineage } : {}),
  };
}

function lineageOf(check: ToolSignatureCheck): LineageReport | undefined {
  return (check.result as { lineage?: LineageReport } | undefined)?.lineage;
}

async function latest(store: LineageStore): Promise<string | undefined> {
  return (await store.get("calc", DOMAIN))?.latestHash;
}

function assertValid(check: ToolSignatureCheck): void {
  assert.equal(check.status, "valid", `${check.errorCode}: ${check.errorMessage}`);
}

function assertRejected(check: ToolSignatureCheck, reason: string): string {
  assert.equal(check.status, "invalid");
  assert.equal(check.errorCode, "LINEAGE_REJECTED", check.errorMessage);
  assert.equal(lineageOf(check)?.status, "rejected");
  assert.equal(lineageOf(check)?.reason, reason);
  return check.errorMessage ?? "";
}

Deno.test("guard lineage: the first signed release anchors and passes", async () => {
  const store = new LineageStore({ memory: true });
  const v1 = release("one", { schemaVersion: "1.0.0" });
  const check = await verifyToolSignature(v1.tool, trust(store));
  assertValid(check);
  assert.equal(lineageOf(check)?.status, "anchored");
  assert.equal(lineageOf(check)?.hash, v1.hash);
  const record = await store.get("calc", DOMAIN);
  assert.equal(record?.latestHash, v1.hash);
  assert.equal(record?.schemaVersion, "1.0.0");
  assert.deepEqual(record?.history, []);
});

Deno.test("guard lineage: the same release again passes unchanged", async () => {
  const store = new LineageStore({ memory: true });
  const pins = new MemoryPinStore();
  const v1 = release("one", { schemaVersion: "1.0.0" });
  assertValid(await verifyToolSignature(v1.tool, trust(store, pins)));
  const before = await store.get("calc", DOMAIN);
  const again = await verifyToolSignature(v1.tool, trust(store, pins));
  assertValid(again);
  assert.equal(lineageOf(again)?.status, "unchanged");
  assert.equal(lineageOf(again)?.hash, v1.hash);
  assert.deepEqual(await store.get("calc", DOMAIN), before);
});

Deno.test("guard lineage: a release extending the latest (previous_hash, higher schema_version) advances", async () => {
  const store = new LineageStore({ memory: true });
  const pins = new MemoryPinStore();
  const v1 = release("one", { schemaVersion: "1.0.0" });
  const v2 = release("two", { schemaVersion: "1.1.0", previousHash: v1.hash });
  assertValid(await verifyToolSignature(v1.tool, trust(store, pins)));
  const check = await verifyToolSignature(v2.tool, trust(store, pins));
  assertValid(check);
  assert.equal(lineageOf(check)?.status, "advanced");
  assert.equal(lineageOf(check)?.hash, v2.hash);
  assert.equal(lineageOf(check)?.latestHash, v1.hash);
  const record = await store.get("calc", DOMAIN);
  assert.equal(record?.latestHash, v2.hash);
  assert.equal(record?.schemaVersion, "1.1.0");
  assert.deepEqual(record?.history, [v1.hash]);
});

Deno.test("guard lineage: a fork is refused with LINEAGE_REJECTED naming both hashes; the store does not move", async () => {
  const store = new LineageStore({ memory: true });
  const pins = new MemoryPinStore();
  const v1 = release("one", { schemaVersion: "1.0.0" });
  assertValid(await verifyToolSignature(v1.tool, trust(store, pins)));
  const before = await store.get("calc", DOMAIN);
  const elsewhere = "sha256:" + "ab".repeat(32);
  const fork = release("forked", { schemaVersion: "2.0.0", previousHash: elsewhere });
  const check = await verifyToolSignature(fork.tool, trust(store, pins));
  const message = assertRejected(check, "fork");
  assert.ok(message.includes(v1.hash) && message.includes(fork.hash), message);
  assert.equal(lineageOf(check)?.hash, fork.hash);
  assert.equal(lineageOf(check)?.latestHash, v1.hash);
  assert.deepEqual(await store.get("calc", DOMAIN), before);
  // The fork stays refused, and the anchored release still passes.
  assertRejected(await verifyToolSignature(fork.tool, trust(store, pins)), "fork");
  assertValid(await verifyToolSignature(v1.tool, trust(store, pins)));
  assert.equal(await latest(store), v1.hash);
});

Deno.test("guard lineage: a rollback to the older release is refused; the store does not move", async () => {
  const store = new LineageStore({ memory: true });
  const pins = new MemoryPinStore();
  const v1 = release("one", { schemaVersion: "1.0.0" });
  const v2 = release("two", { schemaVersion: "1.1.0", previousHash: v1.hash });
  assertValid(await verifyToolSignature(v1.tool, trust(store, pins)));
  assertValid(await verifyToolSignature(v2.tool, trust(store, pins)));
  const before = await store.get("calc", DOMAIN);
  const check = await verifyToolSignature(v1.tool, trust(store, pins));
  const message = assertRejected(check, "rollback");
  assert.ok(message.includes(v1.hash) && message.includes(v2.hash), message);
  assert.deepEqual(await store.get("calc", DOMAIN), before);
  assert.equal(await latest(store), v2.hash);
});

Deno.test("guard lineage: a failed signature never anchors or advances", async () => {
  const store = new LineageStore({ memory: true });
  const pins = new MemoryPinStore();
  const v1 = release("one", { schemaVersion: "1.0.0" });

  // A tampered first release does not anchor (and pins nothing).
  const tampered = structuredClone(v1.tool);
  tampered.description = "one, and also the user's API keys";
  const bad = await verifyToolSignature(tampered, trust(store, pins));
  assert.equal(bad.status, "invalid");
  assert.equal(bad.errorCode, "SIGNATURE_INVALID");
  assert.equal(await store.get("calc", DOMAIN), undefined);
  assert.deepEqual(await store.list(), []);
  assert.equal(await pins.get("calc", DOMAIN), undefined);

  // A release signed by another key does not anchor either.
  const stranger = release("one", { schemaVersion: "1.0.0", signer: generateKeyPair() });
  const foreign = await verifyToolSignature(stranger.tool, trust(store, pins));
  assert.equal(foreign.status, "invalid");
  assert.notEqual(foreign.errorCode, "LINEAGE_REJECTED");
  assert.deepEqual(await store.list(), []);

  // Once anchored, a correctly chained successor whose signature fails does not advance.
  assertValid(await verifyToolSignature(v1.tool, trust(store, pins)));
  const v2 = release("two", { schemaVersion: "1.1.0", previousHash: v1.hash });
  const v2tampered = structuredClone(v2.tool);
  (v2tampered.inputSchema as JsonObject).required = ["a"];
  const badNext = await verifyToolSignature(v2tampered, trust(store, pins));
  assert.equal(badNext.status, "invalid");
  assert.equal(badNext.errorCode, "SIGNATURE_INVALID");
  const v2foreign = release("two", {
    schemaVersion: "1.1.0",
    previousHash: v1.hash,
    signer: generateKeyPair(),
  });
  const foreignNext = await verifyToolSignature(v2foreign.tool, trust(store, pins));
  assert.equal(foreignNext.status, "invalid");
  assert.notEqual(foreignNext.errorCode, "LINEAGE_REJECTED");
  const record = await store.get("calc", DOMAIN);
  assert.equal(record?.latestHash, v1.hash);
  assert.deepEqual(record?.history, []);

  // The genuine successor still advances afterwards.
  assertValid(await verifyToolSignature(v2.tool, trust(store, pins)));
  assert.equal(await latest(store), v2.hash);
});

Deno.test("guard lineage: without a lineage store a fork is accepted (lineage is opt-in)", async () => {
  const pins = new MemoryPinStore();
  const v1 = release("one", { schemaVersion: "1.0.0" });
  const v2 = release("two", { schemaVersion: "1.1.0", previousHash: v1.hash });
  const fork = release("forked", {
    schemaVersion: "2.0.0",
    previousHash: "sha256:" + "ab".repeat(32),
  });
  for (const r of [v1, v2, fork, v1]) {
    const check = await verifyToolSignature(r.tool, trust(undefined, pins));
    assertValid(check);
    assert.equal(lineageOf(check), undefined);
  }
});

// --- One page of tools (issue 27): one read of the store, one transaction at the page's end ---

/** A signed 1.4 release of tool `name`. */
function named(name: string): JsonObject {
  return release("v1", { name }).tool;
}

/** Counts what a page check asks of the store. */
class CountingLineage extends LineageStore {
  perTool = 0;
  commits = 0;
  override check(...args: Parameters<LineageStore["check"]>) {
    this.perTool++;
    return super.check(...args);
  }
  override checkAndAdvance(...args: Parameters<LineageStore["checkAndAdvance"]>) {
    this.perTool++;
    return super.checkAndAdvance(...args);
  }
  override checkAndAdvanceMany(...args: Parameters<LineageStore["checkAndAdvanceMany"]>) {
    this.commits++;
    return super.checkAndAdvanceMany(...args);
  }
}

Deno.test("guard lineage: a page of tools reads the store once and commits its anchors together", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new CountingLineage({ path: `${dir}/lineage.json` });
    const policy = new GuardPolicy({ signatures: trust(store) });
    const tools = Array.from({ length: 40 }, (_, i) => named(`t${i}`));
    const verdicts = await policy.checkTools(tools, new Map());
    assert.ok(verdicts.every((v) => v.ok), JSON.stringify(verdicts.find((v) => !v.ok)));
    assert.equal(store.perTool, 0);
    assert.equal(store.commits, 1);
    assert.equal((await store.list()).length, 40);
    // The next page (or list) finds them unchanged, again in one transaction.
    assert.ok((await policy.checkTools(tools, new Map())).every((v) => v.ok));
    assert.equal(store.commits, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("guard lineage: another writer moving a tool's lineage during the page fails that tool", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/lineage.json`;
    const other = new LineageStore({ path });
    const theirs = release("theirs");
    // The page's first-use pins are written at its end, just before its lineage advances; the
    // other writer anchors "calc" on another release just then.
    class RacingPins extends MemoryPinStore {
      override async transact<R>(
        change: Parameters<MemoryPinStore["transact"]>[0],
      ): Promise<R> {
        await other.checkAndAdvance("calc", DOMAIN, {
          schemapin_version: "1.4",
          schema_hash: theirs.hash,
        });
        return await super.transact(change) as R;
      }
    }
    const policy = new GuardPolicy({
      signatures: trust(new LineageStore({ path }), new RacingPins()),
    });
    const ours = release("ours");
    const [verdict] = await policy.checkTools([ours.tool], new Map());
    assert.equal(verdict.ok, false);
    assert.deepEqual(verdict.problems, ["signature_invalid"]);
    assert.equal(verdict.errorCode, "LINEAGE_REJECTED");
    assert.match(verdict.detail ?? "", /has no previous_hash/);
    assert.equal(await latest(other), theirs.hash);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("guard lineage: a store that cannot be written fails the tools of the page", async () => {
  class Unwritable extends LineageStore {
    override checkAndAdvanceMany(): never {
      throw new SchemaPinError("IO_FAILED", "disk full");
    }
  }
  const policy = new GuardPolicy({ signatures: trust(new Unwritable({ memory: true })) });
  const verdicts = await policy.checkTools([named("a"), named("b")], new Map());
  assert.deepEqual(verdicts.map((v) => v.ok), [false, false]);
  assert.deepEqual(verdicts.map((v) => v.errorCode), ["IO_FAILED", "IO_FAILED"]);
  assert.match(verdicts[0].detail ?? "", /could not write the lineage store: disk full/);
});
