// The authority allow-list given as options (cli/bundle/authority_options.ts), without the CLI:
// which options count, the form of KID=FINGERPRINT and KID=PEM, the store they build, and the
// refusals (usage errors naming the option; the store's own KEY_PIN_MISMATCH).
import assert from "node:assert/strict";
import { isUsageError, SchemaPinError } from "../../lib/errors.ts";
import { publicKeyToPem } from "../../lib/crypto/keys.ts";
import {
  authorityStoreFrom,
  checkAuthorityOptions,
  hasAuthorityOptions,
} from "../../cli/bundle/authority_options.ts";
import { rejectsWith, throwsWith } from "../schema_pin_error.ts";
import { withTempDir } from "../cli/run.ts";
import { AUTH_1, AUTH_2 } from "./_helpers.ts";

const FP1 = AUTH_1.publicKey.fingerprint;
const FP2 = AUTH_2.publicKey.fingerprint;
const FILES: Record<string, string> = {
  "auth1.pem": publicKeyToPem(AUTH_1.publicKey),
  "auth2.pem": publicKeyToPem(AUTH_2.publicKey),
};

/** Reads from FILES, and refuses anything else like a missing file. */
function read(path: string): Promise<Uint8Array> {
  if (!Object.hasOwn(FILES, path)) {
    return Promise.reject(new SchemaPinError("IO_FAILED", `cannot read ${path}`, { path }));
  }
  return Promise.resolve(new TextEncoder().encode(FILES[path]));
}

Deno.test("hasAuthorityOptions: any one of the four counts; empty lists do not", () => {
  assert.equal(hasAuthorityOptions({}), false);
  assert.equal(hasAuthorityOptions({ authority: [], "authority-key": [] }), false);
  assert.equal(hasAuthorityOptions({ "trust-first-use-authority": false }), false);
  assert.equal(hasAuthorityOptions({ authority: [`a=${FP1}`] }), true);
  assert.equal(hasAuthorityOptions({ "authority-key": ["a=auth1.pem"] }), true);
  assert.equal(hasAuthorityOptions({ "authority-store": "a.json" }), true);
  assert.equal(hasAuthorityOptions({ "trust-first-use-authority": true }), true);
});

Deno.test("checkAuthorityOptions: well-formed values pass without reading anything", () => {
  checkAuthorityOptions({ authority: [`acme=${FP1}`], "authority-key": ["b=missing.pem"] });
  checkAuthorityOptions({});
});

Deno.test("checkAuthorityOptions: malformed values are usage errors naming the option", () => {
  const cases: [Parameters<typeof checkAuthorityOptions>[0], string][] = [
    [{ authority: ["acme"] }, '--authority "acme" is not KID=FINGERPRINT'],
    [{ authority: [`=${FP1}`] }, `--authority "=${FP1}" is not KID=FINGERPRINT`],
    [{ "authority-key": ["acme="] }, '--authority-key "acme=" is not KID=PEM'],
    [
      { authority: ["acme=sha256:AB"] },
      '--authority "acme=sha256:AB": the fingerprint must be sha256: and 64 lower-case hex ' +
      "digits (see `schemapin fingerprint`)",
    ],
  ];
  for (const [values, message] of cases) {
    const e = throwsWith(() => checkAuthorityOptions(values), "INPUT_INVALID");
    assert.ok(isUsageError(e));
    assert.equal(e.message, message);
  }
  const kid = throwsWith(
    () => checkAuthorityOptions({ "authority-key": [" acme=a.pem"] }),
    "INPUT_INVALID",
  );
  assert.match(kid.message, /^--authority-key " acme=a\.pem": /);
  assert.equal(kid.details.option, "authority-key");
});

Deno.test("authorityStoreFrom: an in-memory store of the given authorities", async () => {
  const { store, persisted } = await authorityStoreFrom(
    { authority: [`one=${FP1}`], "authority-key": ["two=auth2.pem"] },
    read,
  );
  assert.equal(persisted, false);
  assert.deepEqual((await store.list()).map((r) => [r.kid, r.fingerprint]), [
    ["one", FP1],
    ["two", FP2],
  ]);
});

Deno.test("authorityStoreFrom: the store file, seeded with the given authorities", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/authorities.json`;
    const first = await authorityStoreFrom(
      { authority: [`one=${FP1}`], "authority-store": path },
      read,
    );
    assert.equal(first.persisted, true);
    const again = await authorityStoreFrom({ "authority-store": path }, read);
    assert.equal((await again.store.get("one"))?.fingerprint, FP1);
  });
});

Deno.test("authorityStoreFrom: a kid given twice is a usage error, with or without the same key", async () => {
  const same = await rejectsWith(
    authorityStoreFrom({ authority: [`a=${FP1}`], "authority-key": ["a=auth1.pem"] }, read),
    "INPUT_INVALID",
  );
  assert.ok(isUsageError(same));
  assert.equal(same.message, 'authority "a" is given twice (--authority-key)');
  const other = await rejectsWith(
    authorityStoreFrom({ authority: [`a=${FP1}`, `a=${FP2}`] }, read),
    "INPUT_INVALID",
  );
  assert.equal(other.message, 'authority "a" is given twice with different keys (--authority)');
});

Deno.test("authorityStoreFrom: unreadable or wrong key files, a contradicted store", async () => {
  await rejectsWith(
    authorityStoreFrom({ "authority-key": ["a=missing.pem"] }, read),
    "IO_FAILED",
    /missing\.pem/,
  );
  FILES["not-a-key.pem"] = "hello";
  const bad = await rejectsWith(
    authorityStoreFrom({ "authority-key": ["a=not-a-key.pem"] }, read),
    "KEY_INVALID",
  );
  assert.ok(!isUsageError(bad));
  await withTempDir(async (dir) => {
    const path = `${dir}/authorities.json`;
    await authorityStoreFrom({ authority: [`a=${FP1}`], "authority-store": path }, read);
    await rejectsWith(
      authorityStoreFrom({ authority: [`a=${FP2}`], "authority-store": path }, read),
      "KEY_PIN_MISMATCH",
    );
  });
  await rejectsWith(authorityStoreFrom({}, undefined as never), "INPUT_INVALID", /read/);
});
