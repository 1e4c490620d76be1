// §14 resolvers on real files: LocalFileResolver (domain validated before it is a path),
// ChainResolver (what falls through, what stops; a revoked key is never bypassed), and
// verifySchemaWithResolver.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  ChainResolver,
  LocalFileResolver,
  resolveTrustDocuments,
  type SchemaResolver,
} from "../../lib/discovery/resolvers.ts";
import { verifySchemaWithResolver } from "../../lib/schema/resolver_verify.ts";
import { signSchemaBase64 } from "../../lib/schema/document.ts";
import { addRevokedKey, buildRevocationDocument } from "../../lib/revocation/document.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { TrustBundleResolver } from "../../lib/bundle/resolver.ts";
import { discoveryFor, OTHER, SIGNER, toolSchema } from "../schema/_fixtures.ts";
import { withTempDir } from "../cli/run.ts";

const DOMAIN = "tools.example.test";
const schema = toolSchema();
const signature = signSchemaBase64(schema, SIGNER);

async function writeJson(path: string, value: unknown): Promise<void> {
  await Deno.writeTextFile(path, JSON.stringify(value));
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<SchemaPinError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SchemaPinError, String(e));
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}`);
}

const revokedDoc = () =>
  addRevokedKey(
    buildRevocationDocument(DOMAIN, Date.UTC(2026, 4, 1)),
    SIGNER.publicKey.fingerprint,
    "key_compromise",
    Date.UTC(2026, 4, 1),
  );

/** Two resolver folders: `revoked` (key revoked) and `clean`. */
async function dirs(root: string) {
  const revoked = `${root}/revoked`;
  const clean = `${root}/clean`;
  const broken = `${root}/broken`;
  const empty = `${root}/empty`;
  for (const d of [revoked, clean, broken, empty]) await Deno.mkdir(d);
  await writeJson(`${revoked}/${DOMAIN}.json`, discoveryFor(SIGNER));
  await writeJson(`${revoked}/${DOMAIN}.revocations.json`, revokedDoc());
  await writeJson(`${clean}/${DOMAIN}.json`, discoveryFor(SIGNER));
  await Deno.writeTextFile(`${broken}/${DOMAIN}.json`, '{"schema_version": "1.4",');
  return { revoked, clean, broken, empty };
}

Deno.test("LocalFileResolver: reads {domain}.json; the domain is validated before any path", async () => {
  await withTempDir(async (root) => {
    const d = await dirs(root);
    const r = new LocalFileResolver(d.clean);
    assert.deepEqual(await r.resolveDiscovery(DOMAIN), discoveryFor(SIGNER));
    assert.deepEqual(await r.resolveDiscovery("TOOLS.Example.TEST"), discoveryFor(SIGNER));
    assert.equal(await r.resolveDiscovery("absent.example.test"), undefined);
    assert.equal(await r.resolveRevocation(DOMAIN), undefined);
    // A file outside the folder that a traversal would reach.
    await writeJson(`${root}/secret.json`, discoveryFor(OTHER));
    for (
      const bad of [
        "../secret",
        "../secret.json",
        "/etc/passwd",
        "a/../../secret",
        "..",
        "x\\y.com",
        "http://tools.example.test",
        "tools.example.test:443",
      ]
    ) {
      await rejectsWith(r.resolveDiscovery(bad), "INPUT_INVALID");
    }
    await rejectsWith(
      new LocalFileResolver(d.broken).resolveDiscovery(DOMAIN),
      "DISCOVERY_INVALID",
    );
    await Deno.mkdir(`${d.empty}/${DOMAIN}.json`);
    await rejectsWith(new LocalFileResolver(d.empty).resolveDiscovery(DOMAIN), "IO_FAILED");
  });
});

Deno.test("resolveTrustDocuments: validates the document and key; nothing found is KEY_NOT_FOUND", async () => {
  await withTempDir(async (root) => {
    const d = await dirs(root);
    const trust = await resolveTrustDocuments(new LocalFileResolver(d.revoked), DOMAIN);
    assert.equal(trust.discoverySource, `${d.revoked}/${DOMAIN}.json`);
    assert.equal(trust.revocationSource, `${d.revoked}/${DOMAIN}.revocations.json`);
    assert.deepEqual(trust.revocation, revokedDoc());
    const e = await rejectsWith(
      resolveTrustDocuments(new LocalFileResolver(d.empty), DOMAIN),
      "KEY_NOT_FOUND",
    );
    assert.equal(e.details.notFound, true);
    await writeJson(`${d.empty}/${DOMAIN}.json`, {
      ...discoveryFor(SIGNER),
      public_key_pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----",
    });
    await rejectsWith(
      resolveTrustDocuments(new LocalFileResolver(d.empty), DOMAIN),
      "DISCOVERY_INVALID",
    );
    await writeJson(`${d.clean}/${DOMAIN}.revocations.json`, { schemapin_version: "1.2" });
    await rejectsWith(
      resolveTrustDocuments(new LocalFileResolver(d.clean), DOMAIN),
      "DISCOVERY_INVALID",
    );
    await rejectsWith(
      resolveTrustDocuments(new LocalFileResolver(d.clean), "../x"),
      "INPUT_INVALID",
    );
  });
});

/** A resolver that records the domains it was asked about. */
function spy(inner: SchemaResolver, log: string[], tag: string): SchemaResolver {
  return {
    resolveDiscovery: (domain) => (log.push(tag), inner.resolveDiscovery(domain)),
    resolveRevocation: (domain, doc) =>
      inner.resolveRevocation?.(domain, doc) ?? Promise.resolve(undefined),
    sourceName: (domain) => `${tag}:${domain}`,
  };
}

Deno.test("ChainResolver: not found falls through; malformed and failures stop the chain", async () => {
  await withTempDir(async (root) => {
    const d = await dirs(root);
    const log: string[] = [];
    const chain = new ChainResolver([
      spy(new LocalFileResolver(d.empty), log, "empty"),
      spy(new LocalFileResolver(d.clean), log, "clean"),
      spy(new LocalFileResolver(d.revoked), log, "revoked"),
    ]);
    const trust = await resolveTrustDocuments(chain, DOMAIN);
    assert.equal(trust.discoverySource, `clean:${DOMAIN}`);
    assert.equal(trust.revocation, undefined);
    assert.deepEqual(log, ["empty", "clean"]);
    assert.deepEqual(await chain.resolveDiscovery(DOMAIN), discoveryFor(SIGNER));

    const stopLog: string[] = [];
    const broken = new ChainResolver([
      spy(new LocalFileResolver(d.broken), stopLog, "broken"),
      spy(new LocalFileResolver(d.clean), stopLog, "clean"),
    ]);
    await rejectsWith(resolveTrustDocuments(broken, DOMAIN), "DISCOVERY_INVALID");
    assert.deepEqual(stopLog, ["broken"]);

    const failing: SchemaResolver = {
      resolveDiscovery: () =>
        Promise.reject(new SchemaPinError("DISCOVERY_FETCH_FAILED", "timeout", { remote: true })),
    };
    const failLog: string[] = [];
    await rejectsWith(
      resolveTrustDocuments(
        new ChainResolver([failing, spy(new LocalFileResolver(d.clean), failLog, "clean")]),
        DOMAIN,
      ),
      "DISCOVERY_FETCH_FAILED",
    );
    assert.deepEqual(failLog, [], "a network failure must not fall back to another source");

    const notFound: SchemaResolver = {
      resolveDiscovery: () =>
        Promise.reject(
          new SchemaPinError("DISCOVERY_FETCH_FAILED", "HTTP 404", { notFound: true }),
        ),
    };
    const viaNotFound = await resolveTrustDocuments(
      new ChainResolver([notFound, new LocalFileResolver(d.clean)]),
      DOMAIN,
    );
    assert.equal(viaNotFound.discoverySource, `${d.clean}/${DOMAIN}.json`);
    const all = await rejectsWith(
      resolveTrustDocuments(new ChainResolver([new LocalFileResolver(d.empty), notFound]), DOMAIN),
      "DISCOVERY_FETCH_FAILED",
    );
    assert.match(all.message, /no resolver has a discovery document/);
    await rejectsWith(resolveTrustDocuments(chain, "../../etc"), "INPUT_INVALID");
    assert.throws(() => new ChainResolver([]), SchemaPinError);
  });
});

Deno.test("a revoked key reported by the first resolver is not bypassed by the next", async () => {
  await withTempDir(async (root) => {
    const d = await dirs(root);
    const base = {
      schema,
      signature,
      toolId: "calculate_sum",
      domain: DOMAIN,
      trustFirstUse: true,
    };
    const pins = new MemoryPinStore();
    const revokedFirst = await verifySchemaWithResolver({
      ...base,
      pinStore: pins,
      resolver: new ChainResolver([
        new LocalFileResolver(d.revoked),
        new LocalFileResolver(d.clean),
      ]),
    });
    assert.equal(revokedFirst.valid, false);
    assert.equal(revokedFirst.errorCode, "KEY_REVOKED");
    assert.equal(await pins.get("calculate_sum", DOMAIN), undefined);
    // Also through a bundle listing the key in revoked_keys, ahead of a clean folder.
    const bundle = TrustBundleResolver.fromUnsigned({
      schemapin_bundle_version: "1.2",
      created_at: "2026-05-15T00:00:00Z",
      documents: [{
        domain: DOMAIN,
        ...discoveryFor(SIGNER),
        revoked_keys: [SIGNER.publicKey.fingerprint],
      }],
      revocations: [],
    });
    const viaBundle = await verifySchemaWithResolver({
      ...base,
      pinStore: pins,
      resolver: new ChainResolver([bundle, new LocalFileResolver(d.clean)]),
    });
    assert.equal(viaBundle.errorCode, "KEY_REVOKED");
    // Order is precedence: the clean source first verifies (and pins).
    const cleanFirst = await verifySchemaWithResolver({
      ...base,
      pinStore: pins,
      resolver: new ChainResolver([
        new LocalFileResolver(d.clean),
        new LocalFileResolver(d.revoked),
      ]),
    });
    assert.equal(cleanFirst.valid, true, cleanFirst.errorMessage);
    assert.equal(cleanFirst.keyPinning, "first_use");
    assert.equal(cleanFirst.discoverySource, `${d.clean}/${DOMAIN}.json`);
  });
});

Deno.test("verify*WithResolver: failures are results; the domain is checked before resolving", async () => {
  await withTempDir(async (root) => {
    const d = await dirs(root);
    const asked: string[] = [];
    const resolver = spy(new LocalFileResolver(d.clean), asked, "clean");
    const base = {
      schema,
      toolId: "calculate_sum",
      pinStore: new MemoryPinStore(),
      trustFirstUse: true,
    };
    const bad = await verifySchemaWithResolver({
      ...base,
      signature,
      domain: "http://tools.example.test",
      resolver,
    });
    assert.equal(bad.errorCode, "INPUT_INVALID");
    assert.deepEqual(asked, []);
    const missing = await verifySchemaWithResolver({
      ...base,
      signature,
      domain: "nope.example.test",
      resolver,
    });
    assert.equal(missing.errorCode, "KEY_NOT_FOUND");
    assert.equal(missing.keyPinning, "not_checked");
    const forged = await verifySchemaWithResolver({
      ...base,
      signature: signSchemaBase64(schema, OTHER),
      domain: DOMAIN,
      resolver,
    });
    assert.equal(forged.errorCode, "SIGNATURE_INVALID");
    assert.equal(await base.pinStore.get("calculate_sum", DOMAIN), undefined);
    // The declared revocation endpoint, unavailable from this resolver: fail closed, unless opted out.
    await writeJson(
      `${d.clean}/${DOMAIN}.json`,
      discoveryFor(SIGNER, { revocation_endpoint: `https://${DOMAIN}/r.json` }),
    );
    const closed = await verifySchemaWithResolver({ ...base, signature, domain: DOMAIN, resolver });
    assert.equal(closed.errorCode, "DISCOVERY_FETCH_FAILED");
    const optOut = await verifySchemaWithResolver({
      ...base,
      signature,
      domain: DOMAIN,
      resolver,
      allowMissingRevocation: true,
    });
    assert.equal(optOut.valid, true, optOut.errorMessage);
    assert.ok(optOut.warnings.includes("revocation_document_missing"));
    await assert.rejects(
      () =>
        verifySchemaWithResolver({
          ...base,
          signature,
          domain: DOMAIN,
          resolver,
          pinStore: undefined as never,
        }),
      { name: "SchemaPinError", code: "INPUT_INVALID", message: /options\.pinStore/ },
    );
  });
});
