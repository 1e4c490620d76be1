import assert from "node:assert/strict";
import {
  addRevokedKey,
  buildRevocationDocument,
  checkRevocation,
  findRevokedKey,
  isRevocationReason,
  isRevokedInList,
  parseRevocationDocument,
  REVOCATION_REASONS,
} from "../../lib/revocation/document.ts";
import { fingerprintPublicKey } from "../../lib/crypto/keys.ts";
import { isSchemaPinError } from "../../lib/errors.ts";
import { interopJson, interopText } from "../schema/_fixtures.ts";

const SIGNER_FP = fingerprintPublicKey(interopText("signer_public.pem"));
const OTHER_FP = fingerprintPublicKey(interopText("other_public.pem"));
const FP = (c: string) => "sha256:" + c.repeat(64);
const invalid = (re: RegExp) => (e: unknown) =>
  isSchemaPinError(e, "DISCOVERY_INVALID") && re.test(e.message);

function doc(entries: unknown[] = [], extra: Record<string, unknown> = {}) {
  return {
    schemapin_version: "1.2",
    domain: "example.com",
    updated_at: "2026-02-11T00:00:00Z",
    revoked_keys: entries,
    ...extra,
  };
}

Deno.test("the reference revocation documents parse and revoke the right keys", () => {
  const rev = parseRevocationDocument(interopJson("revocations.json"), "revocations.json");
  assert.equal(rev.domain, "example.com");
  assert.equal(findRevokedKey(rev, OTHER_FP)?.reason, "key_compromise");
  assert.equal(findRevokedKey(rev, SIGNER_FP), undefined);
  const signerRevoked = parseRevocationDocument(interopJson("revocations_signer_revoked.json"));
  assert.equal(findRevokedKey(signerRevoked, SIGNER_FP)?.reason, "superseded");
});

Deno.test("checkRevocation: either source revokes (§8.7)", () => {
  const rev = parseRevocationDocument(doc([
    { fingerprint: FP("a"), revoked_at: "2026-02-10T00:00:00Z", reason: "privilege_withdrawn" },
  ]));
  assert.deepEqual(checkRevocation(FP("b"), { revoked_keys: [FP("b")] }, rev), {
    revoked: true,
    source: "discovery",
  });
  assert.deepEqual(checkRevocation(FP("a"), { revoked_keys: [] }, rev), {
    revoked: true,
    source: "revocation_document",
    reason: "privilege_withdrawn",
    revokedAt: "2026-02-10T00:00:00Z",
  });
  assert.deepEqual(checkRevocation(FP("a"), {}, undefined), { revoked: false });
  assert.deepEqual(checkRevocation(FP("c"), { revoked_keys: [FP("b")] }, rev), { revoked: false });
  assert.equal(isRevokedInList(FP("b"), undefined), false);
});

Deno.test("a revocation entry without one of the four reasons fails the whole document", () => {
  for (const reason of REVOCATION_REASONS) {
    assert.equal(isRevocationReason(reason), true);
    parseRevocationDocument(
      doc([{ fingerprint: FP("a"), revoked_at: "2026-02-10T00:00:00Z", reason }]),
    );
  }
  for (const reason of ["lost", "KEY_COMPROMISE", "", null, undefined]) {
    const entry: Record<string, unknown> = {
      fingerprint: FP("a"),
      revoked_at: "2026-02-10T00:00:00Z",
    };
    if (reason !== undefined) entry.reason = reason;
    assert.throws(
      () => parseRevocationDocument(doc([entry]), "r.json"),
      invalid(/^r\.json: revoked_keys\[0\]\.reason/),
    );
  }
});

Deno.test("malformed revocation documents are rejected, naming the problem", () => {
  const cases: [unknown, RegExp][] = [
    [[], /JSON object/],
    [doc([], { schemapin_version: undefined }), /schemapin_version is missing/],
    [doc([], { schemapin_version: "2.0" }), /not a 1\.x version/],
    [doc([], { domain: "http://example.com" }), /domain/],
    [doc([], { domain: undefined }), /domain is missing/],
    [doc([], { updated_at: "2026-02-11" }), /updated_at/],
    [doc([], { revoked_keys: undefined }), /revoked_keys is missing/],
    [doc([], { revoked_keys: {} }), /must be an array/],
    [doc(["sha256:" + "a".repeat(64)]), /revoked_keys\[0\] must be an object/],
    [
      doc([{ fingerprint: "abc", revoked_at: "2026-02-10T00:00:00Z", reason: "superseded" }]),
      /fingerprint/,
    ],
    [doc([{ fingerprint: FP("a"), revoked_at: "yesterday", reason: "superseded" }]), /revoked_at/],
  ];
  for (const [value, re] of cases) {
    assert.throws(() => parseRevocationDocument(value), invalid(re), re.source);
  }
});

Deno.test("buildRevocationDocument and addRevokedKey", () => {
  const t0 = Date.UTC(2026, 1, 11);
  const empty = buildRevocationDocument("Example.com", t0);
  assert.deepEqual(empty, {
    schemapin_version: "1.2",
    domain: "example.com",
    updated_at: "2026-02-11T00:00:00Z",
    revoked_keys: [],
  });
  const one = addRevokedKey(empty, FP("a"), "superseded", t0 + 1000);
  assert.equal(one.updated_at, "2026-02-11T00:00:01Z");
  assert.deepEqual(one.revoked_keys, [{
    fingerprint: FP("a"),
    revoked_at: "2026-02-11T00:00:01Z",
    reason: "superseded",
  }]);
  assert.equal(empty.revoked_keys.length, 0, "the input is not modified");
  assert.deepEqual(parseRevocationDocument(JSON.parse(JSON.stringify(one))), one);
  const bad = (e: unknown) => isSchemaPinError(e, "INPUT_INVALID");
  assert.throws(
    () => addRevokedKey(one, FP("a"), "superseded"),
    (e) => bad(e) && /already revoked/.test((e as Error).message),
  );
  assert.throws(() => addRevokedKey(one, FP("b"), "stolen"), bad);
  assert.throws(() => addRevokedKey(one, "sha256:zz", "superseded"), bad);
  assert.throws(() => buildRevocationDocument("localhost"), bad);
});
