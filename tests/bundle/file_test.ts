// A bundle as the user's file (lib/bundle/file.ts) and the two ways of naming the trusted
// authority (cli/bundle/verify_key.ts), without the CLI.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { MemoryBundleAuthorityStore } from "../../lib/bundle/authority.ts";
import {
  addFilesToBundle,
  formatTrustBundle,
  parseTrustBundleFile,
  parseUnsignedTrustBundleFile,
} from "../../lib/bundle/file.ts";
import { signTrustBundle } from "../../lib/bundle/sign.ts";
import { createTrustBundle } from "../../lib/bundle/bundle.ts";
import { authorityAllowList, verifyTrustBundleWithKey } from "../../cli/bundle/verify_key.ts";
import { parseRevocationDocument } from "../../lib/revocation/document.ts";
import {
  AUTH_1,
  AUTH_2,
  clone,
  DEV_A,
  revocationDoc,
  unsignedBundle,
  wellKnown,
} from "./_helpers.ts";

const enc = new TextEncoder();
const NOW = Date.parse("2026-05-02T00:00:00Z");

function filesOf(files: Record<string, unknown>): (path: string) => Promise<Uint8Array> {
  return (path) =>
    Object.hasOwn(files, path)
      ? Promise.resolve(enc.encode(JSON.stringify(files[path])))
      : Promise.reject(new SchemaPinError("IO_FAILED", `cannot read ${path}`, { path }));
}

Deno.test("bundle file: documents added from files; malformed ones are INPUT_INVALID", async () => {
  const read = filesOf({
    "a.json": wellKnown(DEV_A),
    "r.json": revocationDoc("a.example"),
    "bad.json": { schema_version: "1.4" },
  });
  const bundle = await addFilesToBundle(createTrustBundle("2026-05-01T00:00:00Z"), {
    discovery: [["a.example", "a.json"]],
    revocation: [["a.example", "r.json"]],
  }, read);
  assert.deepEqual(bundle.documents.map((d) => d.domain), ["a.example"]);
  assert.deepEqual(bundle.revocations.map((r) => r.domain), ["a.example"]);
  // A text round trip gives the same bundle back.
  assert.deepEqual(parseTrustBundleFile(JSON.parse(formatTrustBundle(bundle)), "b.json"), bundle);
  for (
    const [files, re] of [
      [{ discovery: [["b.example", "bad.json"]] }, /bad\.json/],
      [{ discovery: [["a.example", "a.json"]] }, /a\.example/], // already there, no replace
    ] as const
  ) {
    await assert.rejects(addFilesToBundle(bundle, files, read), (e: unknown) => {
      assert.ok(e instanceof SchemaPinError);
      assert.equal(e.code, "INPUT_INVALID", e.message);
      assert.match(e.message, re);
      return true;
    });
  }
  const replaced = await addFilesToBundle(bundle, { discovery: [["a.example", "a.json"]] }, read, {
    replace: true,
  });
  assert.equal(replaced.documents.length, 1);
  assert.throws(() => parseTrustBundleFile({ documents: [] }, "-"), (e: SchemaPinError) => {
    assert.equal(e.code, "INPUT_INVALID");
    assert.equal(e.details.code, "DISCOVERY_INVALID");
    assert.match(e.message, /^stdin/);
    return true;
  });
});

Deno.test("bundle authorities: the allow-list of one run; a key given for any kid; revoked", async () => {
  const signed = clone(
    signTrustBundle(unsignedBundle({ "a.example": DEV_A }), AUTH_1, "acme", NOW),
  );
  const allowed = await authorityAllowList(new Map([["acme", AUTH_1.publicKey.fingerprint]]));
  assert.ok(allowed instanceof MemoryBundleAuthorityStore);
  assert.equal((await allowed.get("acme"))?.fingerprint, AUTH_1.publicKey.fingerprint);
  // A store that records the kid with another key: KEY_PIN_MISMATCH, not a silent re-seed.
  await assert.rejects(
    (async () => {
      const dir = await Deno.makeTempDir();
      try {
        const path = `${dir}/authorities.json`;
        await authorityAllowList(new Map([["acme", AUTH_2.publicKey.fingerprint]]), path);
        await authorityAllowList(new Map([["acme", AUTH_1.publicKey.fingerprint]]), path);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    })(),
    (e: SchemaPinError) => e.code === "KEY_PIN_MISMATCH",
  );

  const ok = await verifyTrustBundleWithKey(signed, AUTH_1.publicKey, { now: NOW, source: "b" });
  assert.equal(ok.valid, true, ok.errorMessage);
  assert.equal(ok.kid, "acme");
  const other = await verifyTrustBundleWithKey(signed, AUTH_2.publicKey, { now: NOW });
  assert.equal(other.valid, false);
  const revocation = {
    document: parseRevocationDocument(
      revocationDoc("acme.example", AUTH_1.publicKey.fingerprint),
      "rev.json",
    ),
    source: "rev.json",
  };
  const revoked = await verifyTrustBundleWithKey(signed, AUTH_1.publicKey, {
    now: NOW,
    revocation,
  });
  assert.equal(revoked.valid, false);
  assert.equal(revoked.errorCode, "KEY_REVOKED");
  assert.equal(revoked.verified, undefined);
  assert.match(revoked.errorMessage!, /revoked in rev\.json \(key_compromise, /);
});

Deno.test("bundle file to add to: an unsigned bundle parses as parseTrustBundleFile does", () => {
  const value = clone(unsignedBundle({ "a.example": DEV_A }));
  assert.deepEqual(
    parseUnsignedTrustBundleFile(value, "b.json"),
    parseTrustBundleFile(value, "b.json"),
  );
});

Deno.test("bundle file to add to: a signed bundle is refused, naming the file", () => {
  const signed = clone(
    signTrustBundle(unsignedBundle({ "a.example": DEV_A }), AUTH_1, "acme", NOW),
  );
  for (const [path, shown] of [["signed.json", "signed.json"], ["-", "stdin"]]) {
    assert.throws(
      () => parseUnsignedTrustBundleFile(signed, path),
      (e: unknown) =>
        e instanceof SchemaPinError && e.code === "INPUT_INVALID" && e.details.path === path &&
        e.message.startsWith(`${shown} is a signed bundle; adding documents would invalidate`),
    );
  }
});

Deno.test("bundle file to add to: a malformed unsigned bundle is INPUT_INVALID", () => {
  const value = { ...clone(unsignedBundle({ "a.example": DEV_A })), documents: "none" };
  assert.throws(
    () => parseUnsignedTrustBundleFile(value, "bad.json"),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" && /bad\.json/.test(e.message),
  );
});
