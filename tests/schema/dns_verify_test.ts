// verifySchemaOfflineWithDns (§17, issue 36): the DNS TXT cross-check of the library, with the
// TXT records from a resolver function the caller gives — the §17.2 table (absent, match,
// mismatch, malformed, no answer), run before any pin is written and only once the signature
// verified, through the public entry points (./schema, ./discovery). The default resolver is
// the library's DNS client, tested against the small DNS server of tests/fixtures/network.
import assert from "node:assert/strict";
import { MemoryPinStore, SchemaPinError, signSchemaDocument } from "../../mod.ts";
import { verifySchemaOfflineWithDns } from "../../schema.ts";
import { type DnsTxtResolver, dnsTxtResolver } from "../../discovery.ts";
import { seedPin } from "../../pins.ts";
import { formatDnsTxtRecord } from "../../lib/dns/txt.ts";
import { startFakeDns } from "../fixtures/network/dns.ts";
import { discoveryFor, OTHER, SIGNER, toolSchema } from "./_fixtures.ts";

const DOMAIN = "example.com";
const NAME = `_schemapin.${DOMAIN}`;
const FP = SIGNER.publicKey.fingerprint;
const MATCH = formatDnsTxtRecord(FP, "k-2026");

/** A resolver answering `records` for NAME (and nothing elsewhere), recording its calls. */
function table(records: readonly (string | readonly string[])[]) {
  const calls: string[] = [];
  const resolveTxt: DnsTxtResolver = (name) => {
    calls.push(name);
    return Promise.resolve(name === NAME ? records : []);
  };
  return { resolveTxt, calls };
}

/** A resolver that rejects with `error`. */
function failing(error: unknown): DnsTxtResolver {
  return () => Promise.reject(error);
}

function options(pinStore = new MemoryPinStore(), schema: unknown = toolSchema()) {
  return {
    schema,
    signature: signSchemaDocument(toolSchema(), SIGNER, { domain: DOMAIN }),
    toolId: "calculate_sum",
    domain: DOMAIN,
    discovery: discoveryFor(SIGNER),
    pinStore,
    trustFirstUse: true,
  };
}

// Positive: what passes.

Deno.test("with DNS: a record naming the discovery key verifies, pins, and reports the match", async () => {
  const pins = new MemoryPinStore();
  const { resolveTxt, calls } = table([[MATCH]]);
  const result = await verifySchemaOfflineWithDns(options(pins), { resolveTxt });
  assert.equal(result.valid, true, result.errorMessage);
  assert.equal(result.keyPinning, "first_use");
  assert.deepEqual(calls, [NAME]);
  assert.deepEqual(result.dns, {
    name: NAME,
    server: "the given resolver",
    state: "match",
    fingerprint: FP,
    kid: "k-2026",
    text: MATCH,
  });
  assert.equal((await pins.list()).length, 1);
});

Deno.test("with DNS: no record (none, or none with v=schemapin1) has no effect", async () => {
  for (const records of [[], [["v=spf1 -all"]], ["google-site-verification=x"]]) {
    const result = await verifySchemaOfflineWithDns(options(), table(records));
    assert.equal(result.valid, true, JSON.stringify(records));
    assert.equal(result.dns?.state, "absent");
    assert.deepEqual(result.warnings, []);
  }
});

Deno.test("with DNS: records as strings or as chunks (RFC 1464); the first v=schemapin1 wins", async () => {
  const cases: (string | string[])[][] = [
    [MATCH],
    [[MATCH.slice(0, 10), MATCH.slice(10, 50), MATCH.slice(50)]],
    [["v=spf1 -all"], `  fp = ${FP} ; v = schemapin1 ; future=yes`],
  ];
  for (const records of cases) {
    const result = await verifySchemaOfflineWithDns(options(), table(records));
    assert.equal(result.dns?.state, "match", JSON.stringify(records));
    assert.equal(result.valid, true);
  }
  const two = await verifySchemaOfflineWithDns(
    options(),
    table([MATCH, formatDnsTxtRecord(OTHER.publicKey.fingerprint)]),
  );
  assert.equal(two.valid, true);
  assert.deepEqual(two.warnings, ["dns_multiple_records"]);
});

Deno.test("with DNS: node:dns's NXDOMAIN and no-data errors mean no record", async () => {
  for (const code of ["ENOTFOUND", "ENODATA"]) {
    const error = Object.assign(new Error(`queryTxt ${code} ${NAME}`), { code });
    const result = await verifySchemaOfflineWithDns(options(), { resolveTxt: failing(error) });
    assert.equal(result.valid, true, code);
    assert.equal(result.dns?.state, "absent");
  }
});

Deno.test('with DNS: onLookupFailure "warn" turns no answer into a warning', async () => {
  const result = await verifySchemaOfflineWithDns(options(), {
    resolveTxt: failing(new Error("connection refused")),
    onLookupFailure: "warn",
  });
  assert.equal(result.valid, true, result.errorMessage);
  assert.deepEqual(result.warnings, ["dns_lookup_failed"]);
  assert.equal(result.dns?.state, "lookup_failed");
  assert.equal(result.dns?.reason, "connection refused");
});

Deno.test("with DNS: the library's own client (dnsTxtResolver) asks the given name server", async () => {
  const dns = await startFakeDns({ txt: { [NAME]: [[MATCH]] } });
  try {
    const resolveTxt = dnsTxtResolver({ nameServer: dns.server, timeoutMs: 2000 });
    const result = await verifySchemaOfflineWithDns(options(), { resolveTxt });
    assert.equal(result.valid, true, result.errorMessage);
    assert.equal(result.dns?.state, "match");
    assert.equal(result.dns?.server, dns.server);
    assert.equal(dns.queries, 1);
  } finally {
    await dns.stop();
  }
});

// Negative: what fails, and that it fails before a pin is written.

Deno.test("with DNS: a record naming another key is DOMAIN_MISMATCH and pins nothing", async () => {
  const pins = new MemoryPinStore();
  const other = OTHER.publicKey.fingerprint;
  const result = await verifySchemaOfflineWithDns(
    options(pins),
    table([formatDnsTxtRecord(other)]),
  );
  assert.equal(result.valid, false);
  assert.equal(result.errorCode, "DOMAIN_MISMATCH");
  assert.match(result.errorMessage!, new RegExp(`${other}.*${FP}`));
  assert.equal(result.dns?.state, "mismatch");
  assert.deepEqual(await pins.list(), []);
});

Deno.test("with DNS: an already pinned key still fails when DNS names another", async () => {
  const pins = new MemoryPinStore();
  await seedPin(pins, "calculate_sum", DOMAIN, FP);
  const result = await verifySchemaOfflineWithDns(
    options(pins),
    table([formatDnsTxtRecord(OTHER.publicKey.fingerprint)]),
  );
  assert.equal(result.errorCode, "DOMAIN_MISMATCH");
  assert.equal(result.valid, false);
});

Deno.test("with DNS: a malformed record is DISCOVERY_INVALID and pins nothing", async () => {
  for (const record of ["v=schemapin1; fp=sha256:not-hex", "v=schemapin1", "v=schemapin1; x"]) {
    const pins = new MemoryPinStore();
    const result = await verifySchemaOfflineWithDns(options(pins), table([record]));
    assert.equal(result.errorCode, "DISCOVERY_INVALID", record);
    assert.equal(result.dns?.state, "malformed");
    assert.deepEqual(await pins.list(), []);
  }
});

Deno.test("with DNS: no answer fails closed (DISCOVERY_FETCH_FAILED), SERVFAIL included", async () => {
  const servfail = Object.assign(new Error("queryTxt ESERVFAIL"), { code: "ESERVFAIL" });
  for (const error of [new Error("timeout"), servfail, "a string thrown"]) {
    const pins = new MemoryPinStore();
    const result = await verifySchemaOfflineWithDns(options(pins), {
      resolveTxt: failing(error),
    });
    assert.equal(result.errorCode, "DISCOVERY_FETCH_FAILED", String(error));
    assert.match(result.errorMessage!, /could not be looked up at the given resolver/);
    assert.equal(result.dns?.state, "lookup_failed");
    assert.deepEqual(await pins.list(), []);
  }
});

Deno.test("with DNS: the library's client reports a SERVFAIL name server and fails closed", async () => {
  const dns = await startFakeDns({ rcode: 2 });
  try {
    const resolveTxt = dnsTxtResolver({ nameServer: dns.server, timeoutMs: 1000 });
    const result = await verifySchemaOfflineWithDns(options(), { resolveTxt });
    assert.equal(result.errorCode, "DISCOVERY_FETCH_FAILED");
    assert.match(result.errorMessage!, new RegExp(`at ${dns.server}: .*SERVFAIL`));
  } finally {
    await dns.stop();
  }
});

Deno.test("with DNS: nothing is looked up when the signature, the domain or the pin fails first", async () => {
  const { resolveTxt, calls } = table([[MATCH]]);
  const changed = await verifySchemaOfflineWithDns(
    options(new MemoryPinStore(), { ...toolSchema(), description: "rm -rf /" }),
    { resolveTxt },
  );
  assert.equal(changed.errorCode, "SIGNATURE_INVALID");
  assert.equal(changed.dns, undefined);
  const badDomain = await verifySchemaOfflineWithDns({ ...options(), domain: "http://x" }, {
    resolveTxt,
  });
  assert.equal(badDomain.valid, false);
  const pins = new MemoryPinStore();
  await seedPin(pins, "calculate_sum", DOMAIN, OTHER.publicKey.fingerprint);
  const pinned = await verifySchemaOfflineWithDns(options(pins), { resolveTxt });
  assert.equal(pinned.errorCode, "KEY_PIN_MISMATCH");
  assert.deepEqual(calls, []);
});

Deno.test("with DNS: misuse throws INPUT_INVALID naming the function and the argument", async () => {
  const cases: [unknown, unknown, RegExp][] = [
    [undefined, {}, /verifySchemaOfflineWithDns: options must be an object/],
    [options(), null, /verifySchemaOfflineWithDns: dns must be an object/],
    [options(), { resolveTxt: "8.8.8.8" }, /dns\.resolveTxt must be a function/],
    [
      options(),
      { resolveTxt: table([]).resolveTxt, onLookupFailure: "ignore" },
      /"fail" or "warn"/,
    ],
  ];
  for (const [opts, dns, message] of cases) {
    await assert.rejects(
      // deno-lint-ignore no-explicit-any
      verifySchemaOfflineWithDns(opts as any, dns as any),
      (e: unknown) =>
        e instanceof SchemaPinError && e.code === "INPUT_INVALID" && message.test(e.message),
    );
  }
});

Deno.test("with DNS: a resolver that resolves to something other than records is misuse", async () => {
  const shapes: unknown[] = [undefined, "v=schemapin1", [42], [["ok", 7]], { records: [] }];
  for (const shape of shapes) {
    const resolveTxt = (() => Promise.resolve(shape)) as unknown as DnsTxtResolver;
    await assert.rejects(
      verifySchemaOfflineWithDns(options(), { resolveTxt }),
      (e: unknown) =>
        e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
        /^verifySchemaOfflineWithDns: .*resolveTxt resolved to/.test(e.message),
      JSON.stringify(shape),
    );
  }
});
