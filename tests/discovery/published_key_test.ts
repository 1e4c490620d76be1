// The key `dns check` compares a record with (expectedDnsKey, cli/discovery/published_key.ts):
// from the one source given, read through the caller's callbacks; the `.well-known` fetch's
// client closed whatever happens. The command is run in tests/cli/.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  discoveryKeyOf,
  type DnsKeySources,
  expectedDnsKey,
} from "../../cli/discovery/published_key.ts";
import { discoveryFor, OTHER } from "../schema/_fixtures.ts";

const FP = "sha256:" + "ab".repeat(32);

/** Sources that record what was asked; `files` are the discovery documents. */
function sources(files: Record<string, unknown> = {}) {
  const asked: string[] = [];
  const api: DnsKeySources = {
    keyFingerprint: (path) => (asked.push(`key ${path}`), Promise.resolve(FP)),
    readJson: (path) => {
      asked.push(`json ${path}`);
      return path in files ? Promise.resolve(files[path]) : Promise.reject(new Error("no file"));
    },
    https: () => (asked.push("https"), Promise.resolve({})),
    name: (path) => `<${path}>`,
  };
  return { api, asked };
}

Deno.test("expectedDnsKey: a key file, a fingerprint, a discovery file, or none", async () => {
  const s = sources({ "d.json": discoveryFor(OTHER) });
  assert.deepEqual(await expectedDnsKey({ key: "k.pem" }, "example.com", s.api), {
    fingerprint: FP,
    source: "<k.pem>",
  });
  assert.deepEqual(await expectedDnsKey({ fingerprint: FP }, "example.com", s.api), {
    fingerprint: FP,
    source: "--fingerprint",
  });
  const fromFile = await expectedDnsKey({ discovery: "d.json" }, "example.com", s.api);
  assert.equal(fromFile?.fingerprint, discoveryKeyOf(discoveryFor(OTHER), "x").fingerprint);
  assert.equal(fromFile?.source, "<d.json>");
  assert.equal(await expectedDnsKey({}, "example.com", s.api), undefined);
  assert.deepEqual(s.asked, ["key k.pem", "json d.json"]);
});

Deno.test("expectedDnsKey: what the sources throw, a malformed document, misuse", async () => {
  const s = sources({ "bad.json": { schema_version: "1.4" } });
  await assert.rejects(expectedDnsKey({ discovery: "none.json" }, "example.com", s.api), /no file/);
  await assert.rejects(
    expectedDnsKey({ discovery: "bad.json" }, "example.com", s.api),
    (e) =>
      e instanceof SchemaPinError && e.code === "DISCOVERY_INVALID" &&
      /<bad\.json>/.test(e.message),
  );
  const refused = new Error("wrong passphrase");
  await assert.rejects(
    expectedDnsKey({ key: "k.pem" }, "example.com", {
      ...s.api,
      keyFingerprint: () => Promise.reject(refused),
    }),
    (e) => e === refused,
  );
  await assert.rejects(
    expectedDnsKey({ "well-known": true }, "example.com", {
      ...s.api,
      https: () => Promise.reject(refused),
    }),
    (e) => e === refused,
  );
  for (
    const [options, domain, api] of [[undefined, "x.com", s.api], [{}, 5, s.api], [
      {},
      "x.com",
      null,
    ]]
  ) {
    await assert.rejects(
      expectedDnsKey(options as never, domain as never, api as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  }
});

Deno.test("expectedDnsKey: the .well-known client is closed when the fetch fails", async () => {
  let closed = 0;
  const client = { close: () => void closed++ } as unknown as Deno.HttpClient;
  const s = sources();
  await assert.rejects(
    expectedDnsKey({ "well-known": true }, "localhost", {
      ...s.api,
      https: () => Promise.resolve({ client, connectTimeoutMs: 500, readTimeoutMs: 500 }),
    }),
  );
  assert.equal(closed, 1);
});
