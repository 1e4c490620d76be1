// What `schemapin serve` publishes (cli/trust/publish.ts), without the server: every document
// validated, at its path, byte for byte, and a bad setup refused before anything is served;
// then the static responder (cli/http/static.ts) on those documents.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { buildRevocationDocument } from "../../lib/revocation/document.ts";
import { createTrustBundle } from "../../lib/bundle/bundle.ts";
import {
  BUNDLE_PATH,
  DEFAULT_REVOCATION_PATH,
  loadPublishedDocuments,
} from "../../cli/trust/publish.ts";
import { respondStatic, staticDocument } from "../../cli/http/static.ts";
import { discoveryFor, SIGNER } from "../schema/_fixtures.ts";

const enc = new TextEncoder();

/** A reader over in-memory files. */
function filesOf(files: Record<string, unknown>): (path: string) => Promise<Uint8Array> {
  return (path) => {
    if (!Object.hasOwn(files, path)) {
      return Promise.reject(new SchemaPinError("IO_FAILED", `cannot read ${path}`, { path }));
    }
    const v = files[path];
    return Promise.resolve(enc.encode(typeof v === "string" ? v : JSON.stringify(v, null, 1)));
  };
}

const REVOCATION = buildRevocationDocument("tools.example.test", 0);

Deno.test("publish: each document at its path, exact bytes, its cache policy", async () => {
  const files = {
    "d.json": discoveryFor(SIGNER, {
      revocation_endpoint: "https://tools.example.test/keys/revoked.json",
    }),
    "r.json": REVOCATION,
    "b.json": createTrustBundle(0),
  };
  const read = filesOf(files);
  const docs = await loadPublishedDocuments(
    { discovery: "d.json", revocation: "r.json", bundle: "b.json" },
    read,
  );
  assert.deepEqual(docs.map((d) => [d.path, d.cacheControl]), [
    ["/.well-known/schemapin.json", "public, max-age=300"],
    ["/keys/revoked.json", "no-cache"],
    [BUNDLE_PATH, "public, max-age=300"],
  ]);
  assert.deepEqual(docs[0].bytes, await read("d.json"));
  assert.deepEqual(docs[1].bytes, await read("r.json"));
});

Deno.test("publish: no revocation_endpoint → the default path, with a warning", async () => {
  const warnings: string[] = [];
  const docs = await loadPublishedDocuments(
    { discovery: "d.json", revocation: "r.json" },
    filesOf({ "d.json": discoveryFor(), "r.json": REVOCATION }),
    (m) => void warnings.push(m),
  );
  assert.deepEqual(docs.map((d) => d.path), [
    "/.well-known/schemapin.json",
    DEFAULT_REVOCATION_PATH,
  ]);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /declares no revocation_endpoint.*where clients will not look/);
});

Deno.test("publish: bad setups are INPUT_INVALID naming the file, before anything is served", async () => {
  const endpoint = "https://tools.example.test/.well-known/revoked.json";
  const cases: [Record<string, unknown>, { revocation?: string; bundle?: string }, RegExp][] = [
    [{ "d.json": "{" }, {}, /^discovery document .*d\.json/],
    [{ "d.json": { schema_version: "1.4" } }, {}, /d\.json/],
    [{ "d.json": discoveryFor(), "r.json": "[]" }, { revocation: "r.json" }, /r\.json/],
    [{ "d.json": discoveryFor(), "b.json": { documents: 1 } }, { bundle: "b.json" }, /b\.json/],
    [
      { "d.json": discoveryFor(SIGNER, { revocation_endpoint: endpoint }) },
      {},
      /declares revocation_endpoint .*must be published too/,
    ],
    [
      {
        "d.json": discoveryFor(SIGNER, {
          revocation_endpoint: "https://tools.example.test/.well-known/schemapin.json",
        }),
        "r.json": REVOCATION,
      },
      { revocation: "r.json" },
      /the discovery document's own path/,
    ],
  ];
  for (const [files, extra, re] of cases) {
    await assert.rejects(
      loadPublishedDocuments({ discovery: "d.json", ...extra }, filesOf(files)),
      (e: unknown) => {
        assert.ok(e instanceof SchemaPinError);
        assert.equal(e.code, "INPUT_INVALID", e.message);
        assert.match(e.message, re);
        return true;
      },
    );
  }
  // The missing revocation document says which endpoint it is, for the caller's message.
  await assert.rejects(
    loadPublishedDocuments(
      { discovery: "d.json" },
      filesOf({ "d.json": discoveryFor(SIGNER, { revocation_endpoint: endpoint }) }),
    ),
    (e: SchemaPinError) => e.details.revocationEndpoint === endpoint && !e.details.usage,
  );
});

Deno.test("publish: with the revocation option named, a missing document is a usage error", async () => {
  const endpoint = "https://tools.example.test/keys/revoked.json";
  const files = filesOf({
    "d.json": discoveryFor(SIGNER, { revocation_endpoint: endpoint }),
    "r.json": REVOCATION,
  });
  await assert.rejects(
    loadPublishedDocuments({ discovery: "d.json", revocationOption: "--revocation" }, files),
    (e) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" && e.details.usage === true &&
      e.details.revocationEndpoint === endpoint &&
      e.message === `d.json declares revocation_endpoint ${endpoint}; give its document with ` +
          "--revocation FILE (clients fail closed without it)",
  );
  // Given: served as without the option.
  const docs = await loadPublishedDocuments(
    { discovery: "d.json", revocation: "r.json", revocationOption: "--revocation" },
    files,
  );
  assert.deepEqual(docs.map((d) => d.path), ["/.well-known/schemapin.json", "/keys/revoked.json"]);
});

Deno.test("static: 200 with ETag, 304 on If-None-Match, HEAD without body, 404, 405", async () => {
  const bytes = enc.encode('{"a": 1}\n');
  const doc = staticDocument(bytes, "no-cache");
  const routes = new Map([["/doc.json", doc]]);
  const at = (init: RequestInit = {}, path = "/doc.json") =>
    respondStatic(routes, new Request(`https://example.test${path}`, init));
  const ok = at();
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("content-type"), "application/json; charset=utf-8");
  assert.equal(ok.headers.get("x-content-type-options"), "nosniff");
  assert.equal(ok.headers.get("cache-control"), "no-cache");
  assert.equal(ok.headers.get("content-length"), String(bytes.length));
  assert.deepEqual(new Uint8Array(await ok.arrayBuffer()), bytes);
  assert.match(doc.etag, /^"[0-9a-f]{32}"$/);
  assert.equal(ok.headers.get("etag"), doc.etag);
  assert.equal(at({ headers: { "if-none-match": `"x", ${doc.etag}` } }).status, 304);
  assert.equal(at({ headers: { "if-none-match": '"x"' } }).status, 200);
  const head = at({ method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.body, null);
  assert.equal(at({}, "/other").status, 404);
  const post = at({ method: "POST", body: "x" });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("allow"), "GET, HEAD");
  for (const r of [head, post]) await r.body?.cancel();
  await at({}, "/other").body?.cancel();
});
