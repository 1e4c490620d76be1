// The options of `dns record` and `dns check` (cli/dns/options.ts): the record to publish
// built from a fingerprint, kid and domain; the domain and the key source of a check. Each
// mistake is a usage error naming the option. The commands are run in tests/cli/.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { checkDnsCheckOptions, dnsRecordToPublish } from "../../cli/dns/options.ts";

const FP = "sha256:" + "ab".repeat(32);

function usage(message: string) {
  return (e: unknown) =>
    e instanceof SchemaPinError && e.code === "INPUT_INVALID" && e.details.usage === true &&
    e.message === message;
}

Deno.test("dnsRecordToPublish: the TXT value, with its name and kid when given", async () => {
  const fingerprint = () => Promise.resolve(FP);
  assert.deepEqual(await dnsRecordToPublish({}, fingerprint), {
    value: `v=schemapin1; fp=${FP}`,
    fingerprint: FP,
  });
  const full = await dnsRecordToPublish(
    { kid: "acme-2026-04", domain: "Example.COM" },
    fingerprint,
  );
  assert.deepEqual(full, {
    name: "_schemapin.example.com",
    value: `v=schemapin1; kid=acme-2026-04; fp=${FP}`,
    fingerprint: FP,
    kid: "acme-2026-04",
  });
  assert.deepEqual(Object.keys(full), ["name", "value", "fingerprint", "kid"], "the JSON order");
});

Deno.test("dnsRecordToPublish: a bad kid or domain is refused before the key is loaded", async () => {
  let loaded = 0;
  const fingerprint = () => (loaded++, Promise.resolve(FP));
  await assert.rejects(
    dnsRecordToPublish({ kid: "a b" }, fingerprint),
    usage(
      "--kid: the kid may hold printable ASCII only, without spaces, ';', '=', '\"' or '\\'",
    ),
  );
  await assert.rejects(
    dnsRecordToPublish({ kid: "" }, fingerprint),
    usage("--kid: the kid is empty"),
  );
  await assert.rejects(
    dnsRecordToPublish({ domain: "https://example.com" }, fingerprint),
    (e) =>
      e instanceof SchemaPinError && e.details.usage === true &&
      e.message.startsWith('--domain "https://example.com": '),
  );
  assert.equal(loaded, 0);
  const bad = new Error("no key");
  await assert.rejects(dnsRecordToPublish({}, () => Promise.reject(bad)), (e) => e === bad);
  for (const [options, f] of [[undefined, fingerprint], [{}, "fp"]]) {
    await assert.rejects(
      dnsRecordToPublish(options as never, f as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID" && !e.details.usage,
    );
  }
});

Deno.test("checkDnsCheckOptions: the domain (a trailing dot allowed) and one key source", () => {
  assert.equal(checkDnsCheckOptions("Tools.Example.test.", {}), "tools.example.test");
  assert.equal(checkDnsCheckOptions("example.com", { fingerprint: FP }), "example.com");
  assert.equal(
    checkDnsCheckOptions("example.com", { "well-known": true, "ca-file": "ca.pem" }),
    "example.com",
  );
});

Deno.test("checkDnsCheckOptions: options that do not fit are usage errors", () => {
  assert.throws(
    () => checkDnsCheckOptions("exa mple.com", {}),
    (e) =>
      e instanceof SchemaPinError && e.details.usage === true &&
      e.message.startsWith('"exa mple.com": '),
  );
  assert.throws(
    () => checkDnsCheckOptions("example.com", { key: "k.pem", "well-known": true }),
    usage("give at most one of --key, --fingerprint, --discovery, --well-known"),
  );
  assert.throws(
    () => checkDnsCheckOptions("example.com", { "ca-file": "ca.pem" }),
    usage("--ca-file goes with --well-known"),
  );
  assert.throws(
    () => checkDnsCheckOptions("example.com", { fingerprint: "sha256:AB" }),
    usage("--fingerprint must be sha256: and 64 lower-case hex digits"),
  );
  for (const [domain, options] of [[undefined, {}], ["example.com", null]]) {
    assert.throws(
      () => checkDnsCheckOptions(domain as never, options as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID" && !e.details.usage,
    );
  }
});
