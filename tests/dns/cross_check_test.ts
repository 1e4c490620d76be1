// §17 end to end without dnsmasq: the DNS TXT cross-check through verify-schema, verify-skill,
// the library and `dns check`, against a small UDP server whose answers are written byte by
// byte from RFC 1035 (tests/fixtures/network/dns.ts), and the usage errors of `dns`. These run
// everywhere, so a flow that stops applying the cross-check fails here even on a machine
// without dnsmasq; tests/dns/dnsmasq_test.ts holds only what needs a real DNS server.
import assert from "node:assert/strict";
import { lookupDnsTxt } from "../../lib/dns/check.ts";
import { formatDnsTxtRecord } from "../../lib/dns/txt.ts";
import { verifySchemaWithResolver } from "../../lib/schema/resolver_verify.ts";
import { LocalFileResolver } from "../../lib/discovery/resolvers.ts";
import { signSchemaBase64 } from "../../lib/schema/document.ts";
import { signSkillDir } from "../../lib/skill/sign.ts";
import { formatSkillSignatureDocument } from "../../lib/skill/document.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { type FakeDns, startFakeDns } from "../fixtures/network/dns.ts";
import { discoveryFor, OTHER, SIGNER, toolSchema } from "../schema/_fixtures.ts";
import { runCliProcess, runInProcess, withTempDir } from "../cli/run.ts";
import { assertJsonOutput } from "../cli/json_schemas.ts";

const ZONE = "example.test";
const FP = SIGNER.publicKey.fingerprint;
const BAD = OTHER.publicKey.fingerprint;
const HOSTS = ["match", "mismatch", "malformed", "chunks", "several", "nothing", "failing"];

/** The zone: lookup name → TXT records (each a list of character-strings). */
const ZONE_RECORDS: Record<string, string[][]> = {
  [`_schemapin.match.${ZONE}`]: [[formatDnsTxtRecord(FP, "k-2026")]],
  [`_schemapin.mismatch.${ZONE}`]: [[formatDnsTxtRecord(BAD)]],
  [`_schemapin.malformed.${ZONE}`]: [["v=schemapin1; fp=sha256:not-hex"]],
  // One record in three character-strings (concatenated in order).
  [`_schemapin.chunks.${ZONE}`]: [[
    "v=schemapin1; ",
    `kid=k; fp=${FP.slice(0, 40)}`,
    FP.slice(40),
  ]],
  [`_schemapin.several.${ZONE}`]: [["v=spf1 -all"], [`  fp = ${FP} ; v = schemapin1 ; x=1`]],
  [`_schemapin.other.${ZONE}`]: [["v=spf1 -all"]],
};

async function withZone(fn: (dns: FakeDns) => Promise<void>): Promise<void> {
  const dns = await startFakeDns({ txt: ZONE_RECORDS });
  try {
    await fn(dns);
  } finally {
    await dns.stop();
  }
}

async function withServer(
  mode: Parameters<typeof startFakeDns>[0],
  fn: (dns: FakeDns) => Promise<void>,
): Promise<void> {
  const dns = await startFakeDns(mode);
  try {
    await fn(dns);
  } finally {
    await dns.stop();
  }
}

Deno.test("lookupDnsTxt: present, chunks, several, malformed, absent (NXDOMAIN, no v=schemapin1)", async () => {
  await withZone(async (dns) => {
    const look = (host: string) =>
      lookupDnsTxt(`${host}.${ZONE}`, { nameServer: dns.server, timeoutMs: 2000 });
    const match = await look("match");
    assert.equal(match.state, "present");
    assert.deepEqual(match.record, { v: "schemapin1", fp: FP, kid: "k-2026" });
    assert.equal((await look("mismatch")).record?.fp, BAD);
    assert.equal((await look("malformed")).state, "malformed");
    assert.equal((await look("chunks")).record?.fp, FP);
    const several = await look("several");
    assert.deepEqual([several.record?.fp, several.records], [FP, 2]);
    assert.equal((await look("other")).state, "absent");
    assert.equal((await look("nothing")).state, "absent");
    assert.ok(dns.queries >= 7);
  });
});

Deno.test("hostile DNS servers: SERVFAIL, REFUSED, silence, garbage, wrong id are failures", async () => {
  const modes = [{ rcode: 2 }, { rcode: 5 }, { silent: true }, { garbage: true }, {
    wrongId: true,
  }] as const;
  for (const mode of modes) {
    const fake = await startFakeDns(mode);
    try {
      const started = Date.now();
      const r = await lookupDnsTxt(`match.${ZONE}`, { nameServer: fake.server, timeoutMs: 600 });
      assert.equal(r.state, "failed", JSON.stringify(mode));
      // The 600 ms deadline, not the default 5 s (with room for a loaded machine).
      assert.ok(Date.now() - started < 4000);
      assert.ok(fake.queries >= 1);
    } finally {
      await fake.stop();
    }
  }
  for (const rcode of [0, 3]) {
    const fake = await startFakeDns({ rcode });
    try {
      assert.equal(
        (await lookupDnsTxt(`x.${ZONE}`, { nameServer: fake.server, timeoutMs: 600 })).state,
        "absent",
      );
    } finally {
      await fake.stop();
    }
  }
});

async function setup(dir: string) {
  const trust = `${dir}/trust`;
  await Deno.mkdir(trust);
  for (const host of HOSTS) {
    await Deno.writeTextFile(`${trust}/${host}.${ZONE}.json`, JSON.stringify(discoveryFor(SIGNER)));
  }
  const schema = `${dir}/calc.json`;
  await Deno.writeTextFile(schema, JSON.stringify(toolSchema()));
  await Deno.writeTextFile(`${schema}.sig`, signSchemaBase64(toolSchema(), SIGNER));
  const skill = `${dir}/skill`;
  await Deno.mkdir(skill);
  await Deno.writeTextFile(`${skill}/SKILL.md`, "---\nname: pdf-tools\n---\nHello\n");
  const { document } = await signSkillDir(skill, SIGNER, { domain: `mismatch.${ZONE}` });
  await Deno.writeTextFile(`${skill}/.schemapin.sig`, formatSkillSignatureDocument(document));
  return { trust, schema, skill, pins: `${dir}/pins.json` };
}

Deno.test("verify-schema --dns: the §17.2 table, checked before any pin is written", async () => {
  await withZone(async (dns) => {
    await withTempDir(async (dir) => {
      const s = await setup(dir);
      const run = (host: string, server: string | undefined, ...more: string[]) =>
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
          ...(server === undefined ? [] : ["--dns", "--dns-server", server]),
          ...more,
        ]);
      const pinned = async (host: string) =>
        (await Deno.readTextFile(s.pins).catch(() => "")).includes(`@${host}.${ZONE}`);

      // Control: without --dns, every host verifies (the failures below are the DNS check's).
      for (const host of ["mismatch", "malformed"]) {
        const r = await run(host, undefined);
        assert.equal(r.code, 0, r.stderr);
        await Deno.remove(s.pins);
      }

      const ok = await run("match", dns.server);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stderr, /dns: _schemapin\.match\.example\.test publishes .*: matches/);
      assert.equal((await run("chunks", dns.server)).code, 0);
      assert.equal((await run("several", dns.server)).code, 0);
      const absent = await run("nothing", dns.server);
      assert.equal(absent.code, 0, absent.stderr);
      assert.match(absent.stderr, /absent: no effect/);

      for (
        const [host, code] of [["mismatch", "DOMAIN_MISMATCH"], ["malformed", "DISCOVERY_INVALID"]]
      ) {
        const r = await run(host, dns.server);
        assert.equal(r.code, 1, `${host}: ${r.stderr}`);
        assert.match(r.stdout + r.stderr, new RegExp(code), host);
        assert.equal(await pinned(host), false, `${host}: no pin`);
      }
      const mismatch = await run("mismatch", dns.server);
      assert.match(mismatch.stdout, /^FAIL calculate_sum@mismatch\.example\.test: DOMAIN_MISMATCH/);
      assert.match(mismatch.stderr, new RegExp(`publishes key ${BAD}, but the discovery`));
      for (
        const [host, code] of [["mismatch", "DOMAIN_MISMATCH"], ["malformed", "DISCOVERY_INVALID"]]
      ) {
        const r = await run(host, dns.server, "--json");
        assert.equal(r.code, 1, r.stdout);
        const json = await assertJsonOutput(r.stdout);
        assert.equal((json.error as { code: string }).code, code);
        assert.equal((json.dns as { state: string }).state, host);
      }
      await withServer({ rcode: 2 }, async (servfail) => {
        const failed = await run("failing", servfail.server, "--timeout", "1");
        assert.equal(failed.code, 1, failed.stderr);
        assert.match(
          failed.stdout + failed.stderr,
          /DISCOVERY_FETCH_FAILED: .*SERVFAIL.*failing closed/,
        );
        assert.equal(await pinned("failing"), false);
      });
    });
  });
});

Deno.test("verify-skill --dns: a mismatching TXT record fails before any pin", async () => {
  await withZone(async (dns) => {
    await withTempDir(async (dir) => {
      const s = await setup(dir);
      const args = (...more: string[]) => [
        "verify-skill",
        s.skill,
        "--domain",
        `mismatch.${ZONE}`,
        "--resolver-dir",
        s.trust,
        "--pin-store",
        s.pins,
        "--trust-first-use",
        ...more,
      ];
      const r = await runInProcess(args("--dns", "--dns-server", dns.server));
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout + r.stderr, /DOMAIN_MISMATCH/);
      assert.equal(await Deno.readTextFile(s.pins).catch(() => ""), "");
      const control = await runInProcess(args());
      assert.equal(control.code, 0, control.stderr);
    });
  });
});

Deno.test("library: the same table through verifySchemaWithResolver", async () => {
  await withZone(async (dns) => {
    await withTempDir(async (dir) => {
      const s = await setup(dir);
      const schema = toolSchema();
      const base = {
        schema,
        signature: signSchemaBase64(schema, SIGNER),
        toolId: "calculate_sum",
        resolver: new LocalFileResolver(s.trust),
        pinStore: new MemoryPinStore(),
        trustFirstUse: true,
      };
      const verify = (host: string, dnsOptions?: Parameters<typeof lookupDnsTxt>[1] & object) =>
        verifySchemaWithResolver({
          ...base,
          domain: `${host}.${ZONE}`,
          ...(dnsOptions ? { dns: dnsOptions } : {}),
        });
      const match = await verify("match", { nameServer: dns.server });
      assert.equal(match.valid, true, match.errorMessage);
      assert.equal(match.dns?.state, "match");
      const mismatch = await verify("mismatch", { nameServer: dns.server });
      assert.equal(mismatch.errorCode, "DOMAIN_MISMATCH");
      assert.equal(mismatch.keyPinning, "not_pinned");
      assert.equal(await base.pinStore.get("calculate_sum", `mismatch.${ZONE}`), undefined);
      assert.equal(
        (await verify("malformed", { nameServer: dns.server })).errorCode,
        "DISCOVERY_INVALID",
      );
      assert.equal((await verify("nothing", { nameServer: dns.server })).dns?.state, "absent");
      // Control: without dns, the mismatching host verifies and is pinned.
      const plain = await verify("mismatch");
      assert.equal(plain.valid, true, plain.errorMessage);
      assert.equal(plain.dns, undefined);

      await withServer({ silent: true }, async (silent) => {
        const closed = await verify("failing", { nameServer: silent.server, timeoutMs: 400 });
        assert.equal(closed.errorCode, "DISCOVERY_FETCH_FAILED");
        const warned = await verifySchemaWithResolver({
          ...base,
          domain: `failing.${ZONE}`,
          dns: { nameServer: silent.server, timeoutMs: 400, onLookupFailure: "warn" },
        });
        assert.equal(warned.valid, true, warned.errorMessage);
        assert.ok(warned.warnings.includes("dns_lookup_failed"));
      });
    });
  });
});

Deno.test("dns check: match, mismatch, malformed, absent, lookup failure (real process too)", async () => {
  await withZone(async (dns) => {
    await withTempDir(async (dir) => {
      const pub = `${dir}/public.pem`;
      await Deno.writeTextFile(pub, SIGNER.publicKey.pem);
      const check = await runCliProcess([
        "dns",
        "check",
        `match.${ZONE}`,
        "--dns-server",
        dns.server,
        "--key",
        pub,
        "--json",
      ]);
      assert.equal(check.code, 0, check.stderr);
      const json = await assertJsonOutput(check.stdout);
      assert.equal(json.format, "schemapin.dns.check/1");
      assert.equal(json.ok, true);
      assert.equal(json.state, "match");
      assert.equal(json.expected, SIGNER.publicKey.fingerprint);
      assert.equal(json.expected_source, pub);
      const expect: [string[], number, RegExp][] = [
        [["dns", "check", `match.${ZONE}`, "--dns-server", dns.server], 0, /^OK _schemapin\.match/],
        [
          ["dns", "check", `mismatch.${ZONE}`, "--dns-server", dns.server, "--key", pub],
          1,
          /^MISMATCH/,
        ],
        [["dns", "check", `malformed.${ZONE}`, "--dns-server", dns.server], 1, /^MALFORMED/],
        [["dns", "check", `nothing.${ZONE}`, "--dns-server", dns.server], 1, /^ABSENT/],
      ];
      for (const [args, code, re] of expect) {
        const r = await runInProcess(args);
        assert.equal(r.code, code, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
        assert.match(r.stdout, re);
      }
      await withServer({ rcode: 5 }, async (refused) => {
        const r = await runInProcess([
          "dns",
          "check",
          `match.${ZONE}`,
          "--dns-server",
          refused.server,
        ]);
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stdout, /^FAIL/);
      });
    });
  });
});

Deno.test("dns record: the TXT record and the zone-file line; usage errors are exit 2", async () => {
  await withTempDir(async (dir) => {
    const pub = `${dir}/public.pem`;
    await Deno.writeTextFile(pub, SIGNER.publicKey.pem);
    const rec = await runCliProcess(["dns", "record", "--key", pub, "--kid", "k-2026"]);
    assert.equal(rec.code, 0, rec.stderr);
    assert.equal(rec.stdout, formatDnsTxtRecord(FP, "k-2026") + "\n");
    const zone = await runInProcess(["dns", "record", "--key", pub, "--domain", "example.com"]);
    assert.equal(zone.stdout, `_schemapin.example.com. IN TXT "${formatDnsTxtRecord(FP)}"\n`);
    const usage = [
      ["dns"],
      ["dns", "bogus"],
      ["dns", "record"],
      ["dns", "record", "--key", pub, "--kid", "a;b"],
      ["dns", "record", "--key", pub, "--domain", "http://x.com"],
      ["dns", "check"],
      ["dns", "check", "http://example.com"],
      ["dns", "check", "example.com", "--dns-server", "dns.google"],
      ["dns", "check", "example.com", "--fingerprint", "sha256:00"],
      ["dns", "check", "example.com", "--key", pub, "--fingerprint", FP],
      ["dns", "check", "example.com", "--timeout", "-1"],
      ["dns", "record", "--key", `${dir}/missing.pem`],
    ];
    for (const args of usage) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    }
  });
});
