/**
 * Refusals of the surface extension (docs/contractpin-surface.md), one behaviour per test:
 * bad arguments to the pure functions, locks that lie about their surface, dumps that do not
 * carry what they claim, and verification that must not pass.
 */
import assert from "node:assert/strict";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import {
  buildLock,
  lockServerEntry,
  parseLock,
  serializeLock,
} from "../../lib/contractpin/lock.ts";
import {
  digestSurface,
  digestSurfaceList,
  projectSurfaceItem,
  type SurfaceKind,
  surfaceKindDigest,
} from "../../lib/contractpin/surface.ts";
import { compareSurface, surfacePasses } from "../../lib/contractpin/verify.ts";
import { listingFromDump } from "../../lib/mcp/file.ts";
import { ServerFailure } from "../../lib/mcp/errors.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import type { JsonValue } from "../../lib/json/types.ts";

const enc = new TextEncoder();

function refused(f: () => unknown, text: string) {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof SchemaPinError, String(e));
    assert.equal(e.code, "INPUT_INVALID");
    assert.ok(e.message.includes(text), e.message);
    return true;
  });
}

function lockText(listing: Parameters<typeof digestSurface>[0]): string {
  const entry = lockServerEntry(
    { transport: "stdio", command: ["srv"] },
    digestToolList([{ name: "t" }]),
    [],
    digestSurface(listing),
  );
  return serializeLock(buildLock({ s: entry }, new Date(0)));
}

Deno.test("negative: projectSurfaceItem refuses an unknown kind and a non-object item", () => {
  refused(() => projectSurfaceItem("tools" as SurfaceKind, { name: "x" }), "kind must be one of");
  refused(() => projectSurfaceItem("prompts", null), "is not a JSON object");
  refused(() => projectSurfaceItem("prompts", [{ name: "x" }]), "is not a JSON object");
});

Deno.test("negative: a key member inherited or non-string is not a key", () => {
  const inherited = Object.create({ name: "p" });
  refused(() => projectSurfaceItem("prompts", inherited), '"name"');
  refused(() => projectSurfaceItem("resources", { uri: true }), "boolean");
  refused(() => projectSurfaceItem("resource_templates", { uriTemplate: {} }), "object");
});

Deno.test("negative: digestSurfaceList refuses a non-array and names the source", () => {
  assert.throws(() => digestSurfaceList("prompts", {} as unknown as JsonValue[]));
  refused(
    () => digestSurfaceList("prompts", [{ name: "a" }, { name: "a" }], "server x"),
    "server x",
  );
});

Deno.test("negative: surfaceKindDigest refuses what is not a map", () => {
  assert.throws(() => surfaceKindDigest({} as unknown as Map<string, string>));
});

Deno.test("negative: a kind digest edited by hand to another valid kind digest is refused", () => {
  const doc = JSON.parse(lockText({ prompts: [{ name: "a" }], resources: [{ uri: "u" }] }));
  // A syntactically valid digest, of another list: the recomputation catches it.
  doc.servers.s.prompts.digest = doc.servers.s.resources.digest;
  refused(() => parseLock(enc.encode(JSON.stringify(doc))), "/servers/s/prompts/digest");
});

Deno.test("negative: an item moved to another kind is refused (field names of the kind)", () => {
  const doc = JSON.parse(lockText({ prompts: [{ name: "a" }], resources: [{ uri: "u" }] }));
  const item = doc.servers.s.prompts.items.a;
  doc.servers.s.resources.items.a = item;
  doc.servers.s.resources.count = 2;
  refused(() => parseLock(enc.encode(JSON.stringify(doc))), "unknown resource contract field");
});

Deno.test("negative: count as a string or a float is refused", () => {
  for (const count of ["1", 1.5, null]) {
    const doc = JSON.parse(lockText({ prompts: [{ name: "a" }] }));
    doc.servers.s.prompts.count = count;
    refused(
      () => parseLock(enc.encode(JSON.stringify(doc))),
      "count must be a non-negative integer",
    );
  }
});

Deno.test("negative: protocol with a wrong type of version is refused", () => {
  const doc = JSON.parse(lockText({}));
  doc.servers.s.protocol = { era: "modern", version: 20260728 };
  refused(() => parseLock(enc.encode(JSON.stringify(doc))), "version must be a string");
});

Deno.test("negative: a JSON-RPC error dump is not a surface", async () => {
  await assert.rejects(
    listingFromDump({ jsonrpc: "2.0", id: 1, error: { code: -1, message: "x" } }, "d"),
    ServerFailure,
  );
});

Deno.test("negative: surface members must be on the first page of a page array", async () => {
  await assert.rejects(
    listingFromDump([{ tools: [], nextCursor: "a" }, { tools: [], instructions: "x" }], "d"),
    (e: unknown) => e instanceof ServerFailure && /page 2 has "instructions"/.test(e.message),
  );
});

Deno.test("negative: instructions changed from text to none is drift", () => {
  const locked = parseLock(enc.encode(lockText({ instructions: "Be brief." }))).servers.s;
  const c = compareSurface(locked, digestSurface({ instructions: null }));
  assert.equal(surfacePasses(c, true), false);
});

Deno.test("negative: an argument's description changed inside a prompt is drift of arguments", () => {
  const locked = parseLock(enc.encode(lockText({
    prompts: [{ name: "p", arguments: [{ name: "a", description: "x" }] }],
  }))).servers.s;
  const c = compareSurface(
    locked,
    digestSurface({
      prompts: [{ name: "p", arguments: [{ name: "a", description: "send ~/.ssh" }] }],
    }),
  );
  assert.deepEqual(c.kinds.prompts?.drifted[0].changedFields, ["arguments"]);
  assert.equal(surfacePasses(c, true), false);
});

Deno.test("negative: a mimeType appearing on a resource is drift", () => {
  const locked =
    parseLock(enc.encode(lockText({ resources: [{ uri: "u", name: "n" }] }))).servers.s;
  const c = compareSurface(
    locked,
    digestSurface({ resources: [{ uri: "u", name: "n", mimeType: "application/x-sh" }] }),
  );
  assert.deepEqual(c.kinds.resources?.drifted[0].changedFields, ["mimeType"]);
});

Deno.test("negative: the removal of a whole pinned kind from the listing fails verify", () => {
  const locked = parseLock(enc.encode(lockText({ resources: [{ uri: "u" }] }))).servers.s;
  const c = compareSurface(locked, digestSurface({}));
  assert.deepEqual(c.unchecked, ["resources"]);
  assert.equal(surfacePasses(c, true), false);
});
