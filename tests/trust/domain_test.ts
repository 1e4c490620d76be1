// The domain of a verification (cli/trust/domain.ts): --domain checked and normalised, or the
// one the signed document names, never two that differ; every refusal is a usage error.
import assert from "node:assert/strict";
import { isUsageError } from "../../lib/errors.ts";
import { domainOption } from "../../cli/dns/domain_option.ts";
import { verificationDomain } from "../../cli/trust/domain.ts";
import { throwsWith } from "../schema_pin_error.ts";

function refused(f: () => unknown, message: string): void {
  const e = throwsWith(f, "INPUT_INVALID");
  assert.ok(isUsageError(e), e.message);
  assert.equal(e.message, message);
}

Deno.test("domainOption: normalised", () => {
  assert.equal(domainOption("Example.COM"), "example.com");
  assert.equal(domainOption("tools.example.test"), "tools.example.test");
});

Deno.test("domainOption: missing or not a host name", () => {
  refused(() => domainOption(undefined), "--domain D is required");
  const e = throwsWith(() => domainOption("not a domain"), "INPUT_INVALID");
  assert.ok(isUsageError(e));
  assert.match(e.message, /^--domain "not a domain": /);
});

Deno.test("verificationDomain: the given one, the named one, or both when they agree", () => {
  assert.equal(verificationDomain(undefined, "Example.COM"), "example.com");
  assert.equal(verificationDomain("example.com", undefined), "example.com");
  assert.equal(verificationDomain("EXAMPLE.com", "example.COM"), "example.com");
});

Deno.test("verificationDomain: neither, an unusable named one, or two that differ", () => {
  refused(
    () => verificationDomain(undefined, undefined),
    "--domain D is required: the signature does not name its domain",
  );
  assert.match(
    throwsWith(() => verificationDomain(undefined, "a b"), "INPUT_INVALID").message,
    /^--domain D is required: the signature document's domain "a b" is not usable \(/,
  );
  refused(
    () => verificationDomain("example.com", "other.example"),
    '--domain example.com differs from the domain the signature document names ("other.example"); leave --domain out to use the document\'s',
  );
  // A malformed --domain is refused as such, even when the document names a good one.
  assert.match(
    throwsWith(() => verificationDomain("a b", "example.com"), "INPUT_INVALID").message,
    /^--domain "a b": /,
  );
});
