// `rotateDomainPins` (issue 37 item 2): a domain rotation moves the pins whose domain IS the
// domain given — never a subdomain, never a domain that merely shares a suffix or a prefix with
// it. Case: the domain given is folded to lower case (DNS names are case-insensitive, §9) and
// pins hold lower-case domains (makePinRecord and the pin file refuse any other), so
// `Example.COM` and `example.com` name the same pins. The CLI side is
// tests/cli/pins_rotate_domain_test.ts.
import assert from "node:assert/strict";
import {
  FilePinStore,
  makePinRecord,
  MemoryPinStore,
  type PinRecord,
  type PinStore,
  rotateDomainPins,
  seedPin,
} from "../../lib/pins/store.ts";
import { isSchemaPinError } from "../../lib/errors.ts";
import { tempDir } from "../schema/_fixtures.ts";

const OLD = "sha256:" + "a".repeat(64);
const NEW = "sha256:" + "b".repeat(64);

/** Domains around `example.com` that a suffix, prefix or substring match would wrongly take. */
const NEIGHBOURS = [
  "api.example.com", // subdomain
  "deep.api.example.com", // subdomain of a subdomain
  "evilexample.com", // shares the suffix "example.com"
  "xample.com", // a suffix of example.com
  "example.com.evil.net", // starts with example.com
  "example.co", // a prefix of example.com
  "notexample.com.example.org",
];

async function eachStore(fn: (store: PinStore, label: string) => Promise<void>): Promise<void> {
  await fn(new MemoryPinStore(), "memory");
  const { dir, cleanup } = await tempDir();
  try {
    await fn(new FilePinStore(`${dir}/pins.json`), "file");
  } finally {
    await cleanup();
  }
}

async function seedAll(store: PinStore): Promise<void> {
  for (const domain of ["example.com", ...NEIGHBOURS]) {
    await seedPin(store, "tool", domain, OLD);
  }
  await seedPin(store, "other", "example.com", OLD);
}

function byKey(pins: readonly PinRecord[]): Record<string, string> {
  return Object.fromEntries(pins.map((p) => [`${p.toolId}@${p.domain}`, p.fingerprint]));
}

Deno.test("rotateDomainPins: exactly the domain given, not its subdomains or look-alikes", async () => {
  await eachStore(async (store, label) => {
    await seedAll(store);
    const { rotated, unchanged } = await rotateDomainPins(store, "example.com", NEW);
    assert.deepEqual(rotated.map((p) => `${p.toolId}@${p.domain}`).sort(), [
      "other@example.com",
      "tool@example.com",
    ], label);
    assert.deepEqual(unchanged, [], label);
    const after = byKey(await store.list());
    assert.equal(after["tool@example.com"], NEW, label);
    assert.equal(after["other@example.com"], NEW, label);
    for (const d of NEIGHBOURS) assert.equal(after[`tool@${d}`], OLD, `${label}: ${d} moved`);
  });
});

Deno.test("rotateDomainPins: a subdomain given moves that subdomain only, not its parent", async () => {
  await eachStore(async (store, label) => {
    await seedAll(store);
    const { rotated } = await rotateDomainPins(store, "api.example.com", NEW);
    assert.deepEqual(rotated.map((p) => p.domain), ["api.example.com"], label);
    const after = byKey(await store.list());
    assert.equal(after["tool@example.com"], OLD, label);
    assert.equal(after["tool@deep.api.example.com"], OLD, label);
  });
});

Deno.test("rotateDomainPins: the domain given is case-folded; pins of other spellings are the same pins", async () => {
  await eachStore(async (store, label) => {
    // Seeded in mixed case: stored lower-case.
    await seedPin(store, "tool", "Example.COM", OLD);
    await seedPin(store, "tool", "EvilExample.com", OLD);
    assert.deepEqual((await store.list()).map((p) => p.domain), ["evilexample.com", "example.com"]);
    const { rotated } = await rotateDomainPins(store, "EXAMPLE.com", NEW);
    assert.deepEqual(rotated.map((p) => p.domain), ["example.com"], label);
    const after = byKey(await store.list());
    assert.deepEqual(after, { "tool@example.com": NEW, "tool@evilexample.com": OLD }, label);
  });
});

Deno.test("rotateDomainPins: a suffix, a parent or a neighbour of the pinned domains rotates nothing and writes nothing", async () => {
  await eachStore(async (store, label) => {
    await seedPin(store, "tool", "api.example.com", OLD);
    await seedPin(store, "tool", "evilexample.com", OLD);
    const before = await store.list();
    for (const domain of ["example.com", "ample.com", "api.example.co", "pi.example.com"]) {
      await assert.rejects(
        rotateDomainPins(store, domain, NEW),
        (e: unknown) =>
          isSchemaPinError(e) && e.code === "KEY_NOT_FOUND" &&
          e.message.includes(`no tool of ${domain} is pinned`),
        `${label}: ${domain}`,
      );
      assert.deepEqual(await store.list(), before, `${label}: ${domain}`);
    }
  });
});

Deno.test("rotateDomainPins: patterns and malformed domains are refused, nothing moves", async () => {
  await eachStore(async (store, label) => {
    await seedAll(store);
    const before = await store.list();
    for (const domain of ["*.example.com", ".example.com", "com", "example.com.", "example .com"]) {
      await assert.rejects(
        rotateDomainPins(store, domain, NEW),
        (e: unknown) => isSchemaPinError(e) && e.code === "INPUT_INVALID",
        `${label}: ${JSON.stringify(domain)}`,
      );
    }
    assert.deepEqual(await store.list(), before, label);
  });
});

Deno.test("pins hold lower-case domains only: a record or file with another spelling is refused", async () => {
  const record = makePinRecord({
    toolId: "tool",
    domain: "API.Example.COM",
    fingerprint: OLD,
    source: "seeded",
  });
  assert.equal(record.domain, "api.example.com");
  const { dir, cleanup } = await tempDir();
  try {
    const path = `${dir}/pins.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        schemapin_pins_version: 1,
        pins: [{
          tool_id: "tool",
          domain: "Example.com",
          fingerprint: OLD,
          pinned_at: "2026-05-01T10:00:00Z",
          source: "seeded",
        }],
      }),
    );
    const before = await Deno.readTextFile(path);
    await assert.rejects(
      rotateDomainPins(new FilePinStore(path), "example.com", NEW),
      (e: unknown) => isSchemaPinError(e) && /not in lower case/.test(e.message),
    );
    assert.equal(await Deno.readTextFile(path), before);
  } finally {
    await cleanup();
  }
});
