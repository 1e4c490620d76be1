// The server of fixed documents (listenStatic, cli/http/static.ts) for real over HTTPS: each
// document at its path, 404 elsewhere, every answered request told to onResponse; an address
// that cannot be used and misuse are INPUT_INVALID.
import assert from "node:assert/strict";
import { listenStatic, type StaticServerOptions } from "../../cli/http/static.ts";
import { makeTestPki } from "../fixtures/network/pki.ts";
import { throwsWith } from "../schema_pin_error.ts";

const pkiDir = await Deno.makeTempDir({ prefix: "schemapin-static-" });
const pki = await makeTestPki(pkiDir, "localhost", ["127.0.0.1"]);
globalThis.addEventListener("unload", () => Deno.removeSync(pkiDir, { recursive: true }));
const TLS = { cert: await Deno.readTextFile(pki.cert), key: await Deno.readTextFile(pki.key) };
const CA = await Deno.readTextFile(pki.caCert);
const DOC = {
  path: "/doc.json",
  bytes: new TextEncoder().encode('{"a":1}'),
  cacheControl: "no-cache",
};

function options(extra: Partial<StaticServerOptions> = {}): StaticServerOptions {
  return { hostname: "127.0.0.1", port: 0, tls: TLS, documents: [DOC], ...extra };
}

Deno.test("listenStatic: serves each document at its path and tells onResponse", async () => {
  const seen: string[] = [];
  const server = listenStatic(options({
    onResponse: (request, client, response) =>
      seen.push(`${client} ${new URL(request.url).pathname} ${response.status}`),
  }));
  const client = Deno.createHttpClient({ caCerts: [CA] });
  try {
    const base = `https://localhost:${server.addr.port}`;
    const ok = await fetch(`${base}/doc.json`, { client });
    assert.equal(ok.status, 200);
    assert.equal(await ok.text(), '{"a":1}');
    assert.equal(ok.headers.get("cache-control"), "no-cache");
    const missing = await fetch(`${base}/other`, { client });
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    assert.deepEqual(seen, ["127.0.0.1 /doc.json 200", "127.0.0.1 /other 404"]);
  } finally {
    client.close();
    await server.shutdown(1_000);
    await server.finished;
  }
});

Deno.test("listenStatic: says where it listens, with the paths it serves", async () => {
  const events: string[] = [];
  const server = listenStatic(options({
    hostname: "::1",
    documents: [DOC, { ...DOC, path: "/other.json" }],
    onEvent: (m) => events.push(m),
  }));
  try {
    assert.deepEqual(events, [
      `listening on https://[::1]:${server.addr.port}/ (/doc.json, /other.json)`,
    ]);
  } finally {
    await server.shutdown(1_000);
    await server.finished;
  }
});

Deno.test("listenStatic: an address already in use is INPUT_INVALID naming it", async () => {
  const first = listenStatic(options());
  try {
    const port = first.addr.port;
    const events: string[] = [];
    throwsWith(
      () => listenStatic(options({ port, onEvent: (m) => events.push(m) })),
      "INPUT_INVALID",
      new RegExp(`^cannot serve on 127\\.0\\.0\\.1:${port}: `),
    );
    assert.deepEqual(events, [], "no listening line for a server that did not start");
  } finally {
    await first.shutdown(1_000);
    await first.finished;
  }
});

Deno.test("listenStatic refuses options that are not options", () => {
  for (const bad of [undefined, null, "127.0.0.1"]) {
    throwsWith(
      () => listenStatic(bad as unknown as StaticServerOptions),
      "INPUT_INVALID",
      /^listenStatic: options must be/,
    );
  }
});

Deno.test("listenStatic refuses a missing address, TLS pair or document list", () => {
  const cases: [Partial<Record<keyof StaticServerOptions, unknown>>, RegExp][] = [
    [{ hostname: 1 }, /options\.hostname must be/],
    [{ port: "8443" }, /options\.port must be/],
    [{ tls: undefined }, /options\.tls must be/],
    [{ tls: { cert: TLS.cert } }, /options\.tls\.key must be/],
    [{ documents: undefined }, /options\.documents must be/],
  ];
  for (const [extra, message] of cases) {
    throwsWith(
      () => listenStatic({ ...options(), ...extra } as unknown as StaticServerOptions),
      "INPUT_INVALID",
      message,
    );
  }
});
