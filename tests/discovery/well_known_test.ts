// WellKnownResolver and the hardened HTTPS fetch against a real TLS server on 127.0.0.1,
// reached through a real HTTP CONNECT proxy (the client's `proxy` option), with a test CA
// (`caCerts`): what users behind a corporate proxy with a private CA run.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { WellKnownResolver, wellKnownUrl } from "../../lib/discovery/well_known.ts";
import { fetchHttpsJson, MAX_DISCOVERY_BYTES } from "../../lib/discovery/http.ts";
import {
  ChainResolver,
  LocalFileResolver,
  resolveTrustDocuments,
} from "../../lib/discovery/resolvers.ts";
import { verifySchemaWithResolver } from "../../lib/schema/resolver_verify.ts";
import { signSchemaBase64 } from "../../lib/schema/document.ts";
import { addRevokedKey, buildRevocationDocument } from "../../lib/revocation/document.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { makeTestPki } from "../fixtures/network/pki.ts";
import { startConnectProxy } from "../fixtures/network/proxy.ts";
import { slowStream, startTlsServer } from "../fixtures/network/https.ts";
import { discoveryFor, SIGNER, toolSchema } from "../schema/_fixtures.ts";

const HOST = "tools.example.test";
const pkiDir = await Deno.makeTempDir({ prefix: "schemapin-pki-" });
const pki = await makeTestPki(pkiDir, HOST);
globalThis.addEventListener("unload", () => Deno.removeSync(pkiDir, { recursive: true }));
const CA = Deno.readTextFileSync(pki.caCert);
const REVOCATION_URL = `https://${HOST}/.well-known/schemapin-revocations.json`;

type Handler = (request: Request) => Response | Promise<Response>;

/** Runs `fn` with a TLS server (`handler`, certificate `cert`) behind a CONNECT proxy. */
async function withServer(
  handler: Handler,
  fn: (ctx: {
    client: Deno.HttpClient;
    requests: string[];
    connects: string[];
    resolver: (timeoutMs?: number) => WellKnownResolver;
  }) => Promise<void>,
  cert: [string, string] = [pki.cert, pki.key],
): Promise<void> {
  const server = startTlsServer(cert[0], cert[1], handler);
  const proxy = startConnectProxy((host) => (host === HOST ? server.port : undefined));
  const client = Deno.createHttpClient({ caCerts: [CA], proxy: { url: proxy.url } });
  try {
    await fn({
      client,
      requests: server.requests,
      connects: proxy.connects,
      resolver: (timeoutMs) =>
        new WellKnownResolver({ client, connectTimeoutMs: timeoutMs, readTimeoutMs: timeoutMs }),
    });
  } finally {
    client.close();
    await proxy.close();
    await server.close();
  }
}

async function rejectsWith(
  p: Promise<unknown>,
  code: string,
  re?: RegExp,
): Promise<SchemaPinError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SchemaPinError, String(e));
    assert.equal(e.code, code, e.message);
    if (re) assert.match(e.message, re);
    return e;
  }
  assert.fail(`expected ${code}`);
}

const revocation = (revoked: boolean) => {
  const doc = buildRevocationDocument(HOST, Date.UTC(2026, 0, 1));
  return revoked
    ? addRevokedKey(doc, SIGNER.publicKey.fingerprint, "key_compromise", Date.UTC(2026, 0, 2))
    : doc;
};

function site(routes: Record<string, unknown>): Handler {
  return (request) => {
    const path = new URL(request.url).pathname;
    return path in routes ? Response.json(routes[path]) : new Response("nf", { status: 404 });
  };
}

Deno.test("fetches the discovery and declared revocation documents over HTTPS via the proxy", async () => {
  const discovery = discoveryFor(SIGNER, { revocation_endpoint: REVOCATION_URL });
  await withServer(
    site({
      "/.well-known/schemapin.json": discovery,
      "/.well-known/schemapin-revocations.json": revocation(false),
    }),
    async ({ resolver, requests, connects }) => {
      const trust = await resolveTrustDocuments(resolver(), HOST);
      assert.deepEqual(trust.discovery, discovery);
      assert.deepEqual(trust.revocation, revocation(false));
      assert.equal(trust.discoverySource, `https://${HOST}/.well-known/schemapin.json`);
      assert.deepEqual(requests, [
        "GET /.well-known/schemapin.json",
        "GET /.well-known/schemapin-revocations.json",
      ]);
      assert.ok(connects.every((c) => c === `${HOST}:443`));
      const schema = toolSchema();
      const result = await verifySchemaWithResolver({
        schema,
        signature: signSchemaBase64(schema, SIGNER),
        toolId: "calculate_sum",
        domain: HOST,
        resolver: resolver(),
        pinStore: new MemoryPinStore(),
        trustFirstUse: true,
      });
      assert.equal(result.valid, true, result.errorMessage);
    },
  );
});

Deno.test("http:// and other non-domains are refused before any connection", async () => {
  await withServer(site({}), async ({ resolver, connects, client }) => {
    for (
      const bad of [
        "http://tools.example.test",
        "https://tools.example.test",
        "tools.example.test:443",
        "127.0.0.1",
        "tools.example.test/x",
        "user@tools.example.test",
      ]
    ) {
      await rejectsWith(resolver().resolveDiscovery(bad), "INPUT_INVALID");
    }
    const http = await rejectsWith(
      resolver().resolveDiscovery("http://tools.example.test"),
      "INPUT_INVALID",
    );
    assert.match(http.message, /HTTPS only/);
    await rejectsWith(
      fetchHttpsJson(`http://${HOST}/.well-known/schemapin.json`, "doc", { client }),
      "DISCOVERY_FETCH_FAILED",
      /HTTPS only/,
    );
    await rejectsWith(
      fetchHttpsJson(`https://u:p@${HOST}/x`, "doc", { client }),
      "DISCOVERY_FETCH_FAILED",
      /credentials/,
    );
    assert.deepEqual(connects, []);
    assert.throws(() => wellKnownUrl("http://x.com"), SchemaPinError);
  });
});

Deno.test("a redirect is not followed", async () => {
  await withServer((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/.well-known/schemapin.json") {
      return new Response(null, {
        status: 301,
        headers: { location: `https://${HOST}/elsewhere.json` },
      });
    }
    return Response.json(discoveryFor(SIGNER));
  }, async ({ resolver, requests }) => {
    const e = await rejectsWith(
      resolver().resolveDiscovery(HOST),
      "DISCOVERY_FETCH_FAILED",
      /redirect/,
    );
    assert.equal(e.details.status, 301);
    assert.deepEqual(requests, ["GET /.well-known/schemapin.json"]);
  });
});

Deno.test("the 64 KiB cap: 65 KiB refused (declared or streamed), 64 KiB accepted", async () => {
  const padded = (size: number) => {
    const json = JSON.stringify(discoveryFor(SIGNER));
    return json + " ".repeat(size - json.length);
  };
  await withServer((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/declared") return new Response(padded(65 * 1024));
    if (path === "/exact") return new Response(padded(MAX_DISCOVERY_BYTES));
    // Streamed without Content-Length: the cap must stop the read, not the end of the body.
    const chunk = " ".repeat(16 * 1024);
    return new Response(slowStream(["{", ...Array(1000).fill(chunk)], 1));
  }, async ({ client }) => {
    await rejectsWith(
      fetchHttpsJson(`https://${HOST}/declared`, "doc", { client }),
      "DISCOVERY_FETCH_FAILED",
      /cap/,
    );
    const started = Date.now();
    await rejectsWith(
      fetchHttpsJson(`https://${HOST}/streamed`, "doc", { client }),
      "DISCOVERY_FETCH_FAILED",
      /stopped reading/,
    );
    assert.ok(Date.now() - started < 3000, "stopped early, not after 16 MB");
    assert.deepEqual(
      await fetchHttpsJson(`https://${HOST}/exact`, "doc", { client }),
      discoveryFor(SIGNER),
    );
  });
});

Deno.test("timeouts: no response headers, and a body that drips", async () => {
  // Neither answer can come before the deadline, however loaded the machine: the headers are
  // sent only when the test ends, and the body would take 10 s. The time bounds tell the
  // deadlines given (300 ms, 500 ms) from the defaults (5 s, 10 s).
  const held: ((r: Response) => void)[] = [];
  await withServer((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/.well-known/schemapin.json") {
      return new Promise((resolve) => held.push(resolve));
    }
    return new Response(slowStream(['{"a":', ...Array(50).fill(" "), "1}"], 200));
  }, async ({ resolver, client }) => {
    let started = Date.now();
    try {
      const e = await rejectsWith(
        resolver(300).resolveDiscovery(HOST),
        "DISCOVERY_FETCH_FAILED",
        /connect timeout/,
      );
      assert.equal(e.details.timeout, "connect");
      assert.ok(Date.now() - started < 4000);
    } finally {
      held.splice(0).forEach((answer) => answer(Response.json({}))); // lets the server close
    }
    started = Date.now();
    await rejectsWith(
      fetchHttpsJson(`https://${HOST}/drip`, "doc", {
        client,
        connectTimeoutMs: 2000,
        readTimeoutMs: 500,
      }),
      "DISCOVERY_FETCH_FAILED",
      /read timeout/,
    );
    assert.ok(Date.now() - started < 4000);
  });
});

Deno.test("a certificate from an unknown CA, or for another name, fails", async () => {
  await withServer(
    site({ "/.well-known/schemapin.json": discoveryFor(SIGNER) }),
    async ({ resolver }) => {
      await rejectsWith(
        resolver().resolveDiscovery(HOST),
        "DISCOVERY_FETCH_FAILED",
        /certificate|UnknownIssuer/i,
      );
    },
    [pki.rogueCert, pki.rogueKey],
  );
  await withServer(
    site({ "/.well-known/schemapin.json": discoveryFor(SIGNER) }),
    async ({ resolver }) => {
      await rejectsWith(
        resolver().resolveDiscovery(HOST),
        "DISCOVERY_FETCH_FAILED",
        /certificate/i,
      );
    },
    [pki.otherNameCert, pki.otherNameKey],
  );
});

Deno.test("revocation endpoint unavailable or malformed: fail closed; the opt-out warns", async () => {
  const discovery = discoveryFor(SIGNER, { revocation_endpoint: REVOCATION_URL });
  const cases: [string, Handler, string][] = [
    ["404", site({ "/.well-known/schemapin.json": discovery }), "DISCOVERY_FETCH_FAILED"],
    [
      "503",
      (r) =>
        new URL(r.url).pathname === "/.well-known/schemapin.json"
          ? Response.json(discovery)
          : new Response("down", { status: 503 }),
      "DISCOVERY_FETCH_FAILED",
    ],
    [
      "not JSON",
      (r) =>
        new URL(r.url).pathname === "/.well-known/schemapin.json"
          ? Response.json(discovery)
          : new Response("{oops"),
      "DISCOVERY_INVALID",
    ],
    [
      "wrong shape",
      site({
        "/.well-known/schemapin.json": discovery,
        "/.well-known/schemapin-revocations.json": { revoked_keys: "none" },
      }),
      "DISCOVERY_INVALID",
    ],
  ];
  for (const [what, handler, code] of cases) {
    await withServer(handler, async ({ resolver }) => {
      const e = await rejectsWith(resolveTrustDocuments(resolver(), HOST), code);
      assert.equal(
        e.details.notFound,
        undefined,
        `${what}: a missing revocation list is not "not found"`,
      );
      if (code === "DISCOVERY_FETCH_FAILED") {
        const optOut = await resolveTrustDocuments(resolver(), HOST, {
          allowMissingRevocation: true,
        });
        assert.deepEqual(optOut.warnings, ["revocation_endpoint_unreachable"], what);
      } else {
        await rejectsWith(
          resolveTrustDocuments(resolver(), HOST, { allowMissingRevocation: true }),
          code,
        );
      }
    });
  }
  // A revoked key in the fetched document.
  await withServer(
    site({
      "/.well-known/schemapin.json": discovery,
      "/.well-known/schemapin-revocations.json": revocation(true),
    }),
    async ({ resolver }) => {
      const schema = toolSchema();
      const result = await verifySchemaWithResolver({
        schema,
        signature: signSchemaBase64(schema, SIGNER),
        toolId: "calculate_sum",
        domain: HOST,
        resolver: resolver(),
        pinStore: new MemoryPinStore(),
        trustFirstUse: true,
      });
      assert.equal(result.errorCode, "KEY_REVOKED");
    },
  );
});

Deno.test("404 falls through a chain; a malformed document or server error stops it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-chain-" });
  try {
    await Deno.writeTextFile(`${dir}/${HOST}.json`, JSON.stringify(discoveryFor(SIGNER)));
    await withServer(site({}), async ({ resolver }) => {
      const e = await rejectsWith(
        resolver().resolveDiscovery(HOST),
        "DISCOVERY_FETCH_FAILED",
        /HTTP 404/,
      );
      assert.equal(e.details.notFound, true);
      const trust = await resolveTrustDocuments(
        new ChainResolver([resolver(), new LocalFileResolver(dir)]),
        HOST,
      );
      assert.equal(trust.discoverySource, `${dir}/${HOST}.json`);
    });
    for (
      const [status, body, code] of [[200, '{"a":1,"a":2}', "DISCOVERY_INVALID"], [
        500,
        "x",
        "DISCOVERY_FETCH_FAILED",
      ], [200, "[]", "DISCOVERY_INVALID"]] as const
    ) {
      await withServer(() => new Response(body, { status }), async ({ resolver }) => {
        await rejectsWith(
          resolveTrustDocuments(new ChainResolver([resolver(), new LocalFileResolver(dir)]), HOST),
          code,
        );
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
