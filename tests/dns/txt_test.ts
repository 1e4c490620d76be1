// §17 without a network: lookup names, record parsing and selection, the semantics table,
// and the DNS wire format (including hostile responses).
import assert from "node:assert/strict";
import { isIP } from "node:net";
import {
  dnsLookupName,
  formatDnsTxtRecord,
  isSchemapinRecord,
  parseDnsTxtRecord,
  selectDnsTxtRecord,
} from "../../lib/dns/txt.ts";
import { crossCheckDnsTxt, type DnsTxtLookup } from "../../lib/dns/check.ts";
import { decodeResponse, encodeTxtQuery, txtRecordsFor } from "../../lib/dns/wire.ts";
import { ipVersion, parseDnsServer, parseResolvConf } from "../../lib/dns/resolve.ts";
import { SchemaPinError } from "../../lib/errors.ts";

const FP = "sha256:" + "ab".repeat(32);
const OTHER = "sha256:" + "cd".repeat(32);

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof SchemaPinError ? e.code : `not a SchemaPinError: ${e}`;
  }
  return undefined;
}

Deno.test("lookup name: exactly one trailing dot stripped, the domain validated (§17.4)", () => {
  assert.equal(dnsLookupName("example.com"), "_schemapin.example.com");
  assert.equal(dnsLookupName("example.com."), "_schemapin.example.com");
  assert.equal(dnsLookupName("Tools.Example.COM"), "_schemapin.tools.example.com");
  for (const bad of ["example.com..", "https://example.com", "a/b.com", "example", "", "1.2.3.4"]) {
    assert.equal(code(() => dnsLookupName(bad)), "INPUT_INVALID", bad);
  }
});

Deno.test("parse: whitespace, any order, unknown fields ignored (§17.1)", () => {
  assert.deepEqual(parseDnsTxtRecord(`v=schemapin1; kid=acme-2026-04; fp=${FP}`), {
    v: "schemapin1",
    fp: FP,
    kid: "acme-2026-04",
  });
  assert.deepEqual(parseDnsTxtRecord(`  fp = ${FP} ;v= schemapin1;future=1;;`), {
    v: "schemapin1",
    fp: FP,
  });
  assert.deepEqual(parseDnsTxtRecord(`x=y; v=schemapin1; fp=${FP}; z=`), {
    v: "schemapin1",
    fp: FP,
  });
});

Deno.test("parse: malformed records are DISCOVERY_INVALID (§17.2)", () => {
  const bad = [
    "v=schemapin1",
    `v=schemapin1; fp=${FP.toUpperCase().replace("SHA256", "sha256")}`,
    "v=schemapin1; fp=sha256:abc",
    `v=schemapin1; fp=sha1:${"ab".repeat(20)}`,
    `v=schemapin1; fp=${FP}; fp=${OTHER}`,
    `v=schemapin1; v=schemapin1; fp=${FP}`,
    `v=schemapin1; fp=${FP}; garbage`,
    `v=schemapin1; fp=${FP}; =x`,
    `v=schemapin1; fp=${FP}; kid=`,
    `v=schemapin1; fp=${FP}; kid=\u00e9`,
    `v=schemapin1; fp=${FP}\u0000`,
    `v=schemapin2; fp=${FP}`,
  ];
  for (const text of bad) {
    assert.equal(code(() => parseDnsTxtRecord(text)), "DISCOVERY_INVALID", text);
  }
});

Deno.test("selection: a parsed v field, not a substring; first record wins; chunks joined", () => {
  assert.equal(isSchemapinRecord("v=schemapin10; fp=x"), false);
  assert.equal(isSchemapinRecord("xv=schemapin1"), false);
  assert.equal(isSchemapinRecord("note=v=schemapin1"), false);
  assert.equal(isSchemapinRecord(" v = schemapin1 "), true);
  assert.equal(selectDnsTxtRecord([]).state, "absent");
  assert.equal(
    selectDnsTxtRecord([["v=spf1 -all"], ["google-site-verification=x"]]).state,
    "absent",
  );
  const multi = selectDnsTxtRecord([["v=spf1"], ["v=schemapin1; ", `fp=${FP}`], [
    `v=schemapin1; fp=${OTHER}`,
  ]]);
  assert.equal(multi.state, "present");
  if (multi.state === "present") {
    assert.equal(multi.record.fp, FP);
    assert.equal(multi.candidates, 2);
    assert.equal(multi.records, 3);
  }
  // The first candidate is malformed: it is not skipped in favour of a later good one.
  assert.equal(
    selectDnsTxtRecord([["v=schemapin1; fp=bad"], [`v=schemapin1; fp=${FP}`]]).state,
    "malformed",
  );
});

Deno.test("format: v, optional kid, fp; bad input refused", () => {
  assert.equal(formatDnsTxtRecord(FP), `v=schemapin1; fp=${FP}`);
  assert.equal(formatDnsTxtRecord(FP, "k-1"), `v=schemapin1; kid=k-1; fp=${FP}`);
  assert.deepEqual(parseDnsTxtRecord(formatDnsTxtRecord(FP, "k-1")), {
    v: "schemapin1",
    fp: FP,
    kid: "k-1",
  });
  for (const kid of ["", "a b", "a;b", "a=b", 'a"b', "x".repeat(65)]) {
    assert.equal(code(() => formatDnsTxtRecord(FP, kid)), "INPUT_INVALID", kid);
  }
  assert.equal(code(() => formatDnsTxtRecord("sha256:00")), "INPUT_INVALID");
});

const lookup = (over: Partial<DnsTxtLookup>): DnsTxtLookup => ({
  name: "_schemapin.example.com",
  server: "127.0.0.1:53",
  state: "absent",
  records: 0,
  candidates: 0,
  ...over,
});

Deno.test("semantics table: absent, match, mismatch, malformed, lookup failure (§17.2)", () => {
  assert.equal(crossCheckDnsTxt(lookup({}), FP).failure, undefined);
  assert.equal(crossCheckDnsTxt(lookup({}), FP).check.state, "absent");
  const present = lookup({
    state: "present",
    record: { v: "schemapin1", fp: FP },
    candidates: 1,
    records: 1,
  });
  assert.equal(crossCheckDnsTxt(present, FP).failure, undefined);
  assert.equal(crossCheckDnsTxt(present, FP).check.state, "match");
  assert.equal(crossCheckDnsTxt(present, OTHER).failure?.errorCode, "DOMAIN_MISMATCH");
  const malformed = lookup({
    state: "malformed",
    reason: "x",
    text: "v=schemapin1",
    candidates: 1,
  });
  assert.equal(crossCheckDnsTxt(malformed, FP).failure?.errorCode, "DISCOVERY_INVALID");
  const failed = lookup({ state: "failed", reason: "SERVFAIL" });
  assert.equal(crossCheckDnsTxt(failed, FP).failure?.errorCode, "DISCOVERY_FETCH_FAILED");
  assert.equal(crossCheckDnsTxt(failed, FP, "warn").failure, undefined);
  assert.deepEqual(crossCheckDnsTxt(failed, FP, "warn").warnings, ["dns_lookup_failed"]);
  assert.deepEqual(crossCheckDnsTxt({ ...present, candidates: 2 }, FP).warnings, [
    "dns_multiple_records",
  ]);
});

/** A response to `query` with the given rcode and TXT answers (each a list of chunks). */
function response(
  query: Uint8Array,
  rcode: number,
  answers: { name?: number[]; chunks: string[] }[],
) {
  const parts: number[] = [...query];
  parts[2] = 0x81;
  parts[3] = 0x80 | rcode;
  parts[7] = answers.length;
  for (const a of answers) {
    const rdata = a.chunks.flatMap((c) => [c.length, ...[...c].map((ch) => ch.charCodeAt(0))]);
    parts.push(
      ...(a.name ?? [0xc0, 12]),
      0,
      16,
      0,
      1,
      0,
      0,
      0,
      60,
      rdata.length >> 8,
      rdata.length & 0xff,
      ...rdata,
    );
  }
  return new Uint8Array(parts);
}

Deno.test("wire: a query round-trips; TXT answers decode with chunks in order", () => {
  const q = encodeTxtQuery("_schemapin.example.com", 0xbeef);
  assert.equal(q[0], 0xbe);
  assert.equal(q[1], 0xef);
  const r = decodeResponse(
    response(q, 0, [{ chunks: ["v=schemapin1; ", `fp=${FP}`] }, { chunks: ["x"] }]),
  );
  assert.equal(r.id, 0xbeef);
  assert.equal(r.question, "_schemapin.example.com");
  assert.deepEqual(txtRecordsFor(r, "_schemapin.example.com"), [["v=schemapin1; ", `fp=${FP}`], [
    "x",
  ]]);
  assert.equal(decodeResponse(response(q, 3, [])).rcode, 3);
});

Deno.test("wire: hostile responses are refused, not misread", () => {
  const q = encodeTxtQuery("_schemapin.example.com", 7);
  const good = response(q, 0, [{ chunks: ["abc"] }]);
  const cases: [string, Uint8Array][] = [
    ["short header", good.subarray(0, 11)],
    ["a query", q],
    ["cut record", good.subarray(0, good.length - 2)],
    [
      "pointer loop",
      response(q, 0, [{ name: [0xc0, q.length], chunks: [] }]).map((b, i, _a) =>
        i === q.length ? 0xc0 : i === q.length + 1 ? q.length : b
      ) as Uint8Array,
    ],
    [
      "chunk past rdata",
      (() => {
        const r = response(q, 0, [{ chunks: ["abc"] }]);
        r[r.length - 4] = 9; // first chunk length now exceeds the record
        return r;
      })(),
    ],
  ];
  for (const [what, bytes] of cases) assert.throws(() => decodeResponse(bytes), Error, what);
  // Records for another owner are not ours.
  const stray = response(q, 0, [{
    name: [3, 101, 118, 108, 0],
    chunks: [`v=schemapin1; fp=${FP}`],
  }]);
  assert.deepEqual(txtRecordsFor(decodeResponse(stray), "_schemapin.example.com"), []);
  assert.throws(() => encodeTxtQuery("a..b", 1));
  assert.throws(() => encodeTxtQuery("x".repeat(64) + ".com", 1));
});

Deno.test("name servers: --dns-server forms and resolv.conf", () => {
  assert.deepEqual(parseDnsServer("127.0.0.1:5353"), { host: "127.0.0.1", port: 5353 });
  assert.deepEqual(parseDnsServer("127.0.0.1"), { host: "127.0.0.1", port: 53 });
  assert.deepEqual(parseDnsServer("[::1]:5353"), { host: "::1", port: 5353 });
  assert.deepEqual(parseDnsServer("::1"), { host: "::1", port: 53 });
  for (const bad of ["localhost:53", "127.0.0.1:0", "127.0.0.1:70000", "1.2.3:53", "", "[::1]:x"]) {
    assert.equal(code(() => parseDnsServer(bad)), "INPUT_INVALID", bad);
  }
  assert.deepEqual(
    parseResolvConf(
      "# c\nnameserver 10.0.0.2\nsearch x\nnameserver fe80::1%eth0\nnameserver bogus\n",
    ),
    [{ host: "10.0.0.2", port: 53 }, { host: "fe80::1", port: 53 }],
  );
});

Deno.test("ipVersion answers as node:net isIP (the name server check without node:net)", () => {
  const cases = [
    ...["", "1.2.3.4", "0.0.0.0", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5"],
    ...[" 1.2.3.4", "1.2.3.4\n", "1e1.1.1.1", "1.2.3.4:53", "::", "::1", "fe80::1%eth0", "::1%"],
    ...["::ffff:1.2.3.4", "::ffff:256.1.1.1", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1::2::3"],
    ...["[::1]", "2001:db8::", "fe80::1%a.b-c:d", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4"],
    ...["example.com", "localhost", "12345", "abcd", "g::1", ":::", "1:2:3:4:5:6:7::"],
  ];
  // and a deterministic spread of near-addresses: dotted quads and colon groups
  let x = 7;
  const next = (n: number) => ((x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff) >>> 8) % n;
  for (let i = 0; i < 3000; i++) {
    const quad = Array.from({ length: 3 + next(3) }, () => next(300));
    const groups = Array.from({ length: 2 + next(8) }, () => next(0x1ffff).toString(16));
    cases.push(quad.join("."), groups.join(":"), groups.join(":").replace(/:/, "::"));
  }
  let four = 0, six = 0;
  for (const text of cases) {
    const expected = isIP(text);
    assert.equal(ipVersion(text), expected, JSON.stringify(text));
    if (expected === 4) four++;
    if (expected === 6) six++;
  }
  assert.ok(four > 20 && six > 100 && four + six < cases.length, `${four} IPv4, ${six} IPv6`);
});
