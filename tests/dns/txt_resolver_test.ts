// The resolvers of the §17 cross-check (lib/dns/txt_resolver.ts, issue 36): dnsTxtResolver, the
// library's DNS client as a function (exported by ./discovery), and lookupDnsTxtWith, which
// reads what any resolver says with the record selection of lookupDnsTxt.
import assert from "node:assert/strict";
import { dnsTxtResolver } from "../../discovery.ts";
import { SchemaPinError } from "../../mod.ts";
import { lookupDnsTxt } from "../../lib/dns/check.ts";
import { formatDnsTxtRecord } from "../../lib/dns/txt.ts";
import { lookupDnsTxtWith } from "../../lib/dns/txt_resolver.ts";
import { startFakeDns } from "../fixtures/network/dns.ts";

const FP = "sha256:" + "ab".repeat(32);
const RECORD = formatDnsTxtRecord(FP);
const NAME = "_schemapin.example.test";

function isInputInvalid(pattern: RegExp) {
  return (e: unknown) =>
    e instanceof SchemaPinError && e.code === "INPUT_INVALID" && pattern.test(e.message);
}

// Positive

Deno.test("dnsTxtResolver: the records of a name, each as its chunks; NXDOMAIN is []", async () => {
  const dns = await startFakeDns({
    txt: { [NAME]: [["v=spf1 -all"], [RECORD.slice(0, 9), RECORD.slice(9)]] },
  });
  try {
    const resolveTxt = dnsTxtResolver({ nameServer: dns.server, timeoutMs: 2000 });
    assert.deepEqual(await resolveTxt(NAME), [["v=spf1 -all"], [
      RECORD.slice(0, 9),
      RECORD.slice(9),
    ]]);
    assert.deepEqual(await resolveTxt("_schemapin.nothing.example.test"), []);
  } finally {
    await dns.stop();
  }
});

Deno.test("lookupDnsTxtWith: the same lookup as lookupDnsTxt, for the built-in and any resolver", async () => {
  const dns = await startFakeDns({ txt: { [NAME]: [["v=spf1 -all"], [RECORD]] } });
  try {
    const builtIn = dnsTxtResolver({ nameServer: dns.server, timeoutMs: 2000 });
    const direct = await lookupDnsTxt("example.test", { nameServer: dns.server, timeoutMs: 2000 });
    assert.deepEqual(await lookupDnsTxtWith("example.test", builtIn), direct);
    const given = await lookupDnsTxtWith("example.test.", (name) => builtIn(name));
    assert.deepEqual(given, { ...direct, server: "the given resolver" });
    assert.equal(given.state, "present");
    assert.equal(given.name, NAME); // one trailing dot stripped (§17.4)
  } finally {
    await dns.stop();
  }
});

Deno.test("lookupDnsTxtWith: ENOTFOUND and ENODATA (node:dns) are an absent record", async () => {
  for (const code of ["ENOTFOUND", "ENODATA"]) {
    const lookup = await lookupDnsTxtWith(
      "example.test",
      () => Promise.reject(Object.assign(new Error(code), { code })),
    );
    assert.equal(lookup.state, "absent", code);
  }
});

// Negative

Deno.test("dnsTxtResolver: no answer rejects with DISCOVERY_FETCH_FAILED naming the server", async () => {
  for (const mode of [{ rcode: 2 }, { rcode: 5 }, { silent: true }] as const) {
    const dns = await startFakeDns(mode);
    try {
      const resolveTxt = dnsTxtResolver({ nameServer: dns.server, timeoutMs: 500 });
      await assert.rejects(resolveTxt(NAME), (e: unknown) => {
        assert.ok(e instanceof SchemaPinError);
        assert.equal(e.code, "DISCOVERY_FETCH_FAILED");
        assert.equal(e.details.server, dns.server);
        assert.equal(e.details.remote, true);
        assert.match(e.message, new RegExp(`^no answer for ${NAME} from ${dns.server}: `));
        return true;
      }, JSON.stringify(mode));
    } finally {
      await dns.stop();
    }
  }
});

Deno.test("dnsTxtResolver: a bad name server, timeout or options is refused before any query", () => {
  const cases: [unknown, RegExp][] = [
    [{ nameServer: "dns.google" }, /not an IP address/],
    [{ nameServer: "127.0.0.1:99999" }, /port is out of range/],
    [{ timeoutMs: 0 }, /timeoutMs must be a positive number/],
    [{ timeoutMs: Number.NaN }, /timeoutMs must be a positive number/],
    [{ timeoutMs: "5s" }, /timeoutMs must be a number/],
    [null, /dnsTxtResolver: options must be an object/],
  ];
  for (const [options, message] of cases) {
    assert.throws(
      () => dnsTxtResolver(options as never),
      isInputInvalid(message),
      JSON.stringify(options),
    );
  }
});

Deno.test("lookupDnsTxtWith: a rejection other than no-records is a failed lookup, never absent", async () => {
  const errors = [
    new Error("timeout"),
    Object.assign(new Error("SERVFAIL"), { code: "ESERVFAIL" }),
    Object.assign(new Error("refused"), { code: "EREFUSED" }),
    42,
  ];
  for (const error of errors) {
    const lookup = await lookupDnsTxtWith("example.test", () => Promise.reject(error));
    assert.equal(lookup.state, "failed", String(error));
    assert.equal(lookup.server, "the given resolver");
    assert.equal(lookup.reason, error instanceof Error ? error.message : String(error));
  }
});

Deno.test("lookupDnsTxtWith: an invalid domain, a non-function or a wrong shape is INPUT_INVALID", async () => {
  const ok = () => Promise.resolve([]);
  await assert.rejects(lookupDnsTxtWith("http://x", ok), isInputInvalid(/invalid domain/));
  await assert.rejects(
    lookupDnsTxtWith("example.test", "8.8.8.8" as never),
    isInputInvalid(/resolveTxt must be a function/),
  );
  for (const shape of [null, "text", [null], [[1]]]) {
    await assert.rejects(
      lookupDnsTxtWith("example.test", () => Promise.resolve(shape as never), "caller"),
      isInputInvalid(/^caller: .*resolveTxt resolved to/),
      JSON.stringify(shape),
    );
  }
});
