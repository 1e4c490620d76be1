// §17 against a real DNS server: dnsmasq on 127.0.0.1 serving _schemapin TXT records — an
// independent implementation of the wire format (chunks, several records, a truncated UDP
// answer retried over TCP, REFUSED outside its zone), through the lookup, verify-schema --dns
// and `dns check`. Only what needs dnsmasq is here: the §17.2 table, the library, the
// hostile-server failures, `dns record` and the usage errors run without it in
// tests/dns/cross_check_test.ts. Where dnsmasq is missing these tests say so and skip, except
// on CI (CI=true), where .ci/run installs dnsmasq-base and its absence fails.
import assert from "node:assert/strict";
import { lookupDnsTxt } from "../../lib/dns/check.ts";
import { formatDnsTxtRecord } from "../../lib/dns/txt.ts";
import { signSchemaBase64 } from "../../lib/schema/document.ts";
import { type Dnsmasq, findDnsmasq, startDnsmasq } from "../fixtures/network/dns.ts";
import { discoveryFor, OTHER, SIGNER, toolSchema } from "../schema/_fixtures.ts";
import { runCliProcess, runInProcess, withTempDir } from "../cli/run.ts";
import { ignoreWithout } from "../required_tool.ts";
import { assertJsonOutput } from "../cli/json_schemas.ts";

const ZONE = "example.test";
const FP = SIGNER.publicKey.fingerprint;
const BAD = OTHER.publicKey.fingerprint;
const dnsmasq = findDnsmasq();
const noDnsmasq = ignoreWithout("dnsmasq", dnsmasq !== undefined, ".ci/run (Debian: dnsmasq-base)");

const RECORDS: [string, ...string[]][] = [
  [`_schemapin.match.${ZONE}`, formatDnsTxtRecord(FP, "k-2026")],
  [`_schemapin.mismatch.${ZONE}`, formatDnsTxtRecord(BAD)],
  [`_schemapin.malformed.${ZONE}`, "v=schemapin1; fp=sha256:not-hex"],
  // One record in three chunks (RFC 1464: concatenated in order).
  [`_schemapin.chunks.${ZONE}`, "v=schemapin1; ", `kid=k; fp=${FP.slice(0, 40)}`, FP.slice(40)],
  // Several records: unrelated ones are skipped, the v=schemapin1 one counts.
  [`_schemapin.several.${ZONE}`, "v=spf1 -all"],
  [`_schemapin.several.${ZONE}`, `  fp = ${FP} ; v = schemapin1 ; future=yes`],
  [`_schemapin.other.${ZONE}`, "v=spf1 -all"],
  // More than 512 bytes: the UDP answer is truncated, the lookup retries over TCP.
  ...Array.from(
    { length: 4 },
    (_, i): [string, string] => [`_schemapin.big.${ZONE}`, `pad${i}=${"x".repeat(200)}`],
  ),
  [`_schemapin.big.${ZONE}`, formatDnsTxtRecord(FP)],
];

async function withDnsmasq(fn: (d: Dnsmasq) => Promise<void>): Promise<void> {
  const d = await startDnsmasq(dnsmasq!, ZONE, RECORDS);
  try {
    await fn(d);
  } finally {
    await d.stop();
  }
}

Deno.test({
  name: "dnsmasq: match, mismatch, malformed, chunks, several records, absent, TCP",
  ignore: noDnsmasq,
  fn: () =>
    withDnsmasq(async (d) => {
      const look = (host: string) =>
        lookupDnsTxt(`${host}.${ZONE}`, { nameServer: d.server, timeoutMs: 2000 });
      const match = await look("match");
      assert.equal(match.state, "present");
      assert.deepEqual(match.record, { v: "schemapin1", fp: FP, kid: "k-2026" });
      assert.equal((await look("mismatch")).record?.fp, BAD);
      assert.equal((await look("malformed")).state, "malformed");
      assert.equal((await look("chunks")).record?.fp, FP);
      const several = await look("several");
      assert.equal(several.record?.fp, FP);
      assert.equal(several.records, 2);
      assert.equal((await look("other")).state, "absent");
      assert.equal((await look("nothing")).state, "absent"); // NXDOMAIN
      const big = await look("big");
      assert.equal(big.record?.fp, FP);
      assert.equal(big.records, 5);
      // A name outside the server's zone: REFUSED is a failure, never "absent".
      const refused = await lookupDnsTxt("x.elsewhere.test", {
        nameServer: d.server,
        timeoutMs: 2000,
      });
      assert.equal(refused.state, "failed");
      assert.match(refused.reason!, /REFUSED/);
    }),
});

async function setup(dir: string) {
  const trust = `${dir}/trust`;
  await Deno.mkdir(trust);
  for (
    const host of ["match", "mismatch", "malformed", "chunks", "several", "nothing"]
  ) {
    await Deno.writeTextFile(`${trust}/${host}.${ZONE}.json`, JSON.stringify(discoveryFor(SIGNER)));
  }
  const schema = `${dir}/calc.json`;
  await Deno.writeTextFile(schema, JSON.stringify(toolSchema()));
  await Deno.writeTextFile(`${schema}.sig`, signSchemaBase64(toolSchema(), SIGNER));
  return { trust, schema, pins: `${dir}/pins.json` };
}

Deno.test({
  name: "verify-schema --dns with dnsmasq: match, chunks, several, absent, mismatch, malformed",
  ignore: noDnsmasq,
  fn: () =>
    withDnsmasq(async (d) => {
      await withTempDir(async (dir) => {
        const s = await setup(dir);
        const run = (host: string, server = d.server, ...more: string[]) =>
          runInProcess([
            "verify-schema",
            s.schema,
            "--signature",
            `${s.schema}.sig`,
            "--domain",
            `${host}.${ZONE}`,
            "--resolver-dir",
            s.trust,
            "--pin-store",
            s.pins,
            "--trust-first-use",
            "--dns",
            "--dns-server",
            server,
            ...more,
          ]);
        const pinned = async (host: string) =>
          (await Deno.readTextFile(s.pins).catch(() => "")).includes(`@${host}.${ZONE}`);
        const ok = await run("match");
        assert.equal(ok.code, 0, ok.stderr);
        assert.match(ok.stderr, /dns: _schemapin\.match\.example\.test publishes .*: matches/);
        assert.equal((await run("chunks")).code, 0);
        assert.equal((await run("several")).code, 0);
        const absent = await run("nothing");
        assert.equal(absent.code, 0, absent.stderr);
        assert.match(absent.stderr, /absent: no effect/);
        const cases: [string, string][] = [["mismatch", "DOMAIN_MISMATCH"], [
          "malformed",
          "DISCOVERY_INVALID",
        ]];
        for (const [host, code] of cases) {
          const r = await run(host, d.server, "--json");
          assert.equal(r.code, 1, r.stdout);
          const json = await assertJsonOutput(r.stdout);
          assert.equal((json.error as { code: string }).code, code);
          assert.equal((json.dns as { state: string }).state, host);
          assert.equal(await pinned(host), false, `${host}: no pin`);
        }
      });
    }),
});

Deno.test({
  name: "dns check with dnsmasq (real process, the task's permissions)",
  ignore: noDnsmasq,
  fn: () =>
    withDnsmasq(async (d) => {
      await withTempDir(async (dir) => {
        const pub = `${dir}/public.pem`;
        await Deno.writeTextFile(pub, SIGNER.publicKey.pem);
        const check = await runCliProcess([
          "dns",
          "check",
          `match.${ZONE}`,
          "--dns-server",
          d.server,
          "--key",
          pub,
          "--json",
        ]);
        assert.equal(check.code, 0, check.stderr);
        assert.equal((await assertJsonOutput(check.stdout)).state, "match");
        const expect: [string[], number, RegExp][] = [
          [["dns", "check", `match.${ZONE}`, "--dns-server", d.server], 0, /^OK _schemapin\.match/],
          [
            ["dns", "check", `mismatch.${ZONE}`, "--dns-server", d.server, "--key", pub],
            1,
            /^MISMATCH/,
          ],
          [["dns", "check", `malformed.${ZONE}`, "--dns-server", d.server], 1, /^MALFORMED/],
          [["dns", "check", `nothing.${ZONE}`, "--dns-server", d.server], 1, /^ABSENT/],
          [["dns", "check", `x.elsewhere.test`, "--dns-server", d.server], 1, /^FAIL/],
        ];
        for (const [args, code, re] of expect) {
          const r = await runInProcess(args);
          assert.equal(r.code, code, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
          assert.match(r.stdout, re);
        }
      });
    }),
});
