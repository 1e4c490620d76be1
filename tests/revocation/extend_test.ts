// extendRevocationDocument (lib/revocation/document.ts): what `schemapin revoke --out FILE`
// writes — a new document for the domain, or the given one with one more revoked key.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  buildRevocationDocument,
  extendRevocationDocument,
} from "../../lib/revocation/document.ts";

const A = "sha256:" + "a".repeat(64);
const B = "sha256:" + "b".repeat(64);
const NOW = Date.parse("2026-03-01T00:00:00Z");

function inputInvalid(pattern: RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof SchemaPinError, String(e));
    assert.equal(e.code, "INPUT_INVALID");
    assert.match(e.message, pattern);
    return true;
  };
}

Deno.test("extendRevocationDocument: a new document for the domain, or the given one extended", () => {
  const fresh = extendRevocationDocument(undefined, "Example.COM", A, "superseded", { now: NOW });
  assert.equal(fresh.domain, "example.com");
  assert.equal(fresh.updated_at, "2026-03-01T00:00:00Z");
  assert.deepEqual(fresh.revoked_keys, [
    { fingerprint: A, revoked_at: "2026-03-01T00:00:00Z", reason: "superseded" },
  ]);
  const parsed = JSON.parse(JSON.stringify(fresh));
  const later = extendRevocationDocument(parsed, "example.com", B, "key_compromise", {
    source: "rev.json",
    now: NOW + 1000,
  });
  assert.deepEqual(later.revoked_keys.map((k) => k.fingerprint), [A, B]);
  assert.equal(later.updated_at, "2026-03-01T00:00:01Z");
  // The domain given is compared after normalisation.
  const mixed = extendRevocationDocument(parsed, "EXAMPLE.com", B, "superseded");
  assert.equal(mixed.revoked_keys.length, 2);
});

Deno.test("extendRevocationDocument refuses a malformed document, another domain's, a key already revoked", () => {
  assert.throws(
    () =>
      extendRevocationDocument({ domain: 1 }, "example.com", A, "superseded", {
        source: "rev.json",
      }),
    (e) => {
      inputInvalid(/^rev\.json: /)(e);
      assert.deepEqual((e as SchemaPinError).details, { path: "rev.json" });
      return true;
    },
  );
  const other = JSON.parse(JSON.stringify(buildRevocationDocument("other.example")));
  assert.throws(
    () => extendRevocationDocument(other, "example.com", A, "superseded", { source: "rev.json" }),
    inputInvalid(/^rev\.json is the revocation document of other\.example, not example\.com$/),
  );
  const once = extendRevocationDocument(undefined, "example.com", A, "superseded");
  assert.throws(
    () =>
      extendRevocationDocument(JSON.parse(JSON.stringify(once)), "example.com", A, "superseded"),
    inputInvalid(/is already revoked/),
  );
  assert.throws(
    () => extendRevocationDocument(undefined, "example.com", A, "bored"),
    inputInvalid(/unknown revocation reason/),
  );
  assert.throws(
    () => extendRevocationDocument(undefined, "not a domain", A, "superseded"),
    inputInvalid(/invalid domain/),
  );
});
