// The key a pin is seeded with or rotated to (cli/pins/key_source.ts): exactly one of a
// fingerprint, a key file, or a discovery document (with the keys it revokes).
import assert from "node:assert/strict";
import { isUsageError, SchemaPinError } from "../../lib/errors.ts";
import { pinKeyFrom, type PinKeyReaders } from "../../cli/pins/key_source.ts";

const FP = "sha256:" + "ab".repeat(32);
const OLD = "sha256:" + "cd".repeat(32);

/** Readers that record what they were asked to read. */
function readers(read: string[]): PinKeyReaders {
  return {
    key: (path) => {
      read.push(`key ${path}`);
      return Promise.resolve({ fingerprint: FP });
    },
    discovery: (path) => {
      read.push(`discovery ${path}`);
      return Promise.resolve({ fingerprint: FP, revokedKeys: [OLD] });
    },
  };
}

Deno.test("pinKeyFrom: a fingerprint as given, nothing read", async () => {
  const read: string[] = [];
  assert.deepEqual(await pinKeyFrom({ fingerprint: FP }, readers(read)), {
    fingerprint: FP,
    revokedKeys: [],
  });
  assert.deepEqual(read, []);
});

Deno.test("pinKeyFrom: a key file's fingerprint; a discovery document's, with its revocations", async () => {
  const read: string[] = [];
  assert.deepEqual(await pinKeyFrom({ key: "k.pem" }, readers(read)), {
    fingerprint: FP,
    revokedKeys: [],
  });
  assert.deepEqual(await pinKeyFrom({ discovery: "schemapin.json" }, readers(read)), {
    fingerprint: FP,
    revokedKeys: [OLD],
  });
  assert.deepEqual(read, ["key k.pem", "discovery schemapin.json"]);
});

Deno.test("pinKeyFrom: none or several sources is a usage error, nothing read", async () => {
  const read: string[] = [];
  for (const sources of [{}, { fingerprint: FP, key: "k.pem" }, { key: "k", discovery: "d" }]) {
    await assert.rejects(
      pinKeyFrom(sources, readers(read)),
      (e) =>
        isUsageError(e) &&
        (e as Error).message === "give exactly one of --fingerprint, --key, --discovery",
    );
  }
  assert.deepEqual(read, []);
});

Deno.test("pinKeyFrom: a fingerprint that is not sha256: and 64 lower-case hex digits", async () => {
  for (const fingerprint of ["sha256:" + "AB".repeat(32), "ab".repeat(32), "sha256:abc"]) {
    await assert.rejects(
      pinKeyFrom({ fingerprint }, readers([])),
      (e) =>
        isUsageError(e) &&
        (e as Error).message === "--fingerprint must be sha256: and 64 lower-case hex digits",
    );
  }
});

Deno.test("pinKeyFrom: what a reader throws passes through; misuse is INPUT_INVALID", async () => {
  const failing: PinKeyReaders = {
    key: () => Promise.reject(new SchemaPinError("KEY_INVALID", "k.pem: not a key")),
    discovery: () => Promise.reject(new SchemaPinError("DISCOVERY_INVALID", "d.json: bad")),
  };
  await assert.rejects(
    pinKeyFrom({ key: "k.pem" }, failing),
    (e) => e instanceof SchemaPinError && e.code === "KEY_INVALID",
  );
  await assert.rejects(
    pinKeyFrom({ discovery: "d.json" }, failing),
    (e) => e instanceof SchemaPinError && e.code === "DISCOVERY_INVALID",
  );
  await assert.rejects(
    pinKeyFrom(undefined as never, failing),
    (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
  );
});
