// The key-source options of a verification checked into a trust plan (cli/trust/plan.ts),
// without the CLI: which sources go together, the order of a chain, the options that need a
// particular source, the timeout and the DNS server. Every refusal is a usage error naming
// the options (the CLI prefixes the command, tests/cli/usage_before_network_test.ts).
import assert from "node:assert/strict";
import { isUsageError } from "../../lib/errors.ts";
import {
  dnsServerOption,
  planTrust,
  timeoutOption,
  type TrustOptionValues,
} from "../../cli/trust/plan.ts";
import { throwsWith } from "../schema_pin_error.ts";

const DOMAIN = "example.com";
const FP = "sha256:" + "a".repeat(64);

/** `planTrust(values)` is refused as a usage error with exactly `message`. */
function refused(values: TrustOptionValues, message: string, order: string[] = []): void {
  const e = throwsWith(() => planTrust(values, DOMAIN, order), "INPUT_INVALID");
  assert.ok(isUsageError(e), e.message);
  assert.equal(e.message, message);
}

Deno.test("planTrust: a discovery document with its revocation document and DNS", () => {
  const plan = planTrust(
    {
      discovery: "d.json",
      revocation: "r.json",
      dns: true,
      "dns-server": "127.0.0.1:5353",
      timeout: "2.5",
      "allow-missing-revocation": true,
    },
    DOMAIN,
  );
  assert.deepEqual(plan, {
    domain: DOMAIN,
    chain: [],
    publicKey: undefined,
    discovery: "d.json",
    revocation: "r.json",
    bundle: undefined,
    resolverDir: undefined,
    caFile: undefined,
    httpsTimeoutMs: 2500,
    requireSignedBundle: false,
    allowFirstUseAuthority: false,
    allowMissingRevocation: true,
    dns: { server: { host: "127.0.0.1", port: 5353 }, timeoutMs: 2500 },
  });
});

Deno.test("planTrust: a chain is tried in the order its options appear", () => {
  const values = { bundle: "b.json", "resolver-dir": "keys", "well-known": true };
  assert.deepEqual(planTrust(values, DOMAIN).chain, ["bundle", "resolver-dir", "well-known"]);
  assert.deepEqual(
    planTrust(values, DOMAIN, ["x", "--well-known", "--resolver-dir=keys", "--bundle", "b.json"])
      .chain,
    ["well-known", "resolver-dir", "bundle"],
  );
});

Deno.test("planTrust: a signed bundle with its authorities; an explicit key", () => {
  const plan = planTrust(
    { bundle: "b.json", authority: [`acme=${FP}`], "trust-first-use-authority": true },
    DOMAIN,
  );
  assert.equal(plan.requireSignedBundle, true);
  assert.equal(plan.allowFirstUseAuthority, true);
  assert.equal(plan.dns, undefined);
  const key = planTrust({ "public-key": "pub.pem", revocation: "r.json" }, DOMAIN);
  assert.equal(key.publicKey, "pub.pem");
  assert.deepEqual(key.chain, []);
});

Deno.test("planTrust: no key source, or two, is refused", () => {
  const exactlyOne = "give exactly one key source (--discovery FILE or --public-key FILE), " +
    "or one or more of --bundle FILE, --resolver-dir DIR and --well-known (a chain, in the " +
    "order given)";
  refused({}, exactlyOne);
  refused({ discovery: "d.json", bundle: "b.json" }, exactlyOne);
  refused(
    { "public-key": "p.pem", discovery: "d.json", "well-known": true },
    "--public-key is the key source; it does not go with --discovery, --well-known",
  );
  refused({ "public-key": "" }, "--public-key needs a path");
});

Deno.test("planTrust: an explicit key is never pinned", () => {
  for (const option of ["pin-store", "trust-first-use"] as const) {
    refused(
      { "public-key": "p.pem", [option]: option === "pin-store" ? "pins.json" : true },
      `--${option} does not go with --public-key (an explicit key is never pinned)`,
    );
  }
});

Deno.test("planTrust: options that go with one source only", () => {
  refused({ discovery: "d.json", "ca-file": "ca.pem" }, "--ca-file goes with --well-known");
  refused({ bundle: "b.json", timeout: "5" }, "--timeout goes with --well-known or --dns");
  refused(
    { "well-known": true, timeout: "0" },
    '--timeout "0" must be a number of seconds, > 0 and ≤ 600',
  );
  refused(
    { bundle: "b.json", revocation: "r.json" },
    "--revocation goes with --discovery or --public-key; a bundle, --resolver-dir and " +
      "--well-known supply their own revocation documents",
  );
  refused(
    { discovery: "d.json", "authority-store": "a.json" },
    "--authority, --authority-key, --authority-store and --trust-first-use-authority go with " +
      "--bundle FILE",
  );
  refused({ discovery: "d.json", "dns-server": "127.0.0.1" }, "--dns-server goes with --dns");
});

Deno.test("planTrust: malformed values and empty paths are refused", () => {
  refused(
    { bundle: "b.json", authority: ["acme=sha256:00"] },
    '--authority "acme=sha256:00": the fingerprint must be sha256: and 64 lower-case hex ' +
      "digits (see `schemapin fingerprint`)",
  );
  refused({ bundle: "" }, "--bundle needs a path");
  refused({ discovery: "d.json", revocation: "" }, "--revocation needs a path");
  refused({ "well-known": true, "ca-file": "" }, "--ca-file needs a path");
  const e = throwsWith(
    () => planTrust({ discovery: "d.json", dns: true, "dns-server": "dns.example" }, DOMAIN),
    "INPUT_INVALID",
    /^--dns-server: DNS server "dns\.example": not an IP address/,
  );
  assert.ok(isUsageError(e));
});

Deno.test("planTrust: arguments of the wrong type are misuse, not usage errors", () => {
  const e = throwsWith(() => planTrust(undefined as never, DOMAIN), "INPUT_INVALID");
  assert.ok(!isUsageError(e));
  assert.ok(!isUsageError(throwsWith(() => planTrust({}, 5 as never), "INPUT_INVALID")));
});

Deno.test("timeoutOption: seconds to milliseconds, or refused", () => {
  assert.equal(timeoutOption(undefined), undefined);
  assert.equal(timeoutOption("600"), 600_000);
  assert.equal(timeoutOption("0.001"), 1);
  for (const text of ["0", "601", "-1", "1e2", " 5", ""]) {
    assert.ok(isUsageError(throwsWith(() => timeoutOption(text), "INPUT_INVALID")), text);
  }
});

Deno.test("dnsServerOption: parsed, refused without --dns unless asked, or malformed", () => {
  assert.equal(dnsServerOption({ dns: true }), undefined);
  assert.deepEqual(dnsServerOption({ "dns-server": "::1" }, false), { host: "::1", port: 53 });
  throwsWith(() => dnsServerOption({ "dns-server": "::1" }), "INPUT_INVALID", /goes with --dns/);
  throwsWith(
    () => dnsServerOption({ dns: true, "dns-server": "127.0.0.1:70000" }),
    "INPUT_INVALID",
    /^--dns-server: .*the port is out of range/,
  );
});
