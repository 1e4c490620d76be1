// The steps of the bundle commands that a library caller needs too (lib/bundle): the
// DOMAIN=FILE documents, where add and sign write, signing a bundle file, the authority
// precedence, the options of an explicit authority key, and the --json fields of create, add,
// sign and merge.
import assert from "node:assert/strict";
import { isUsageError, SchemaPinError } from "../../lib/errors.ts";
import { privateKeySigner } from "../../lib/crypto/signer.ts";
import { signTrustBundle, signTrustBundleFile } from "../../lib/bundle/sign.ts";
import {
  bundleDocumentFiles,
  bundleOutputPath,
  parseAuthorityPrecedence,
} from "../../cli/bundle/option_values.ts";
import { checkAuthorityKeyOptions } from "../../cli/bundle/verify_key.ts";
import {
  bundleMergeJson,
  bundleSummaryJson,
  signedBundleJson,
} from "../../cli/bundle/json_fields.ts";
import { MemoryBundleAuthorityStore, seedBundleAuthority } from "../../lib/bundle/authority.ts";
import { verifyAndMergeTrustBundles } from "../../cli/bundle/verify_merge.ts";
import { AUTH_1, AUTH_2, DEV_A, DEV_B, raw, unsignedBundle } from "./_helpers.ts";

const SIGNED_AT = "2026-06-01T00:00:00Z";

/** Asserts that `f` throws a usage error whose message is `message`. */
function assertUsage(f: () => unknown, message: string): void {
  assert.throws(f, (e) => isUsageError(e) && (e as Error).message === message);
}

Deno.test("bundleDocumentFiles: DOMAIN=FILE values split at the first =, in order", () => {
  assert.deepEqual(
    bundleDocumentFiles({
      discovery: ["a.example=a.json", "b.example=dir/b=1.json"],
      revocation: ["a.example=rev.json"],
    }),
    {
      discovery: [["a.example", "a.json"], ["b.example", "dir/b=1.json"]],
      revocation: [["a.example", "rev.json"]],
    },
  );
  assert.deepEqual(bundleDocumentFiles({}), { discovery: [], revocation: [] });
});

Deno.test("bundleDocumentFiles: a value that is not DOMAIN=FILE is a usage error naming it", () => {
  assertUsage(
    () => bundleDocumentFiles({ discovery: ["a.json"] }),
    '--discovery "a.json" is not DOMAIN=FILE',
  );
  assertUsage(
    () => bundleDocumentFiles({ discovery: ["=a.json"] }),
    '--discovery "=a.json" is not DOMAIN=FILE',
  );
  assertUsage(
    () => bundleDocumentFiles({ revocation: ["a.example="] }),
    '--revocation "a.example=" is not DOMAIN=FILE',
  );
});

Deno.test("bundleOutputPath: --out, else in place, else stdout for a bundle from stdin", () => {
  assert.equal(bundleOutputPath("b.json", undefined, false), "b.json");
  assert.equal(bundleOutputPath("b.json", "out.json", true), "out.json");
  assert.equal(bundleOutputPath("-", "out.json", true), "out.json");
  assert.equal(bundleOutputPath("-", undefined, false), undefined);
});

Deno.test("bundleOutputPath: --json cannot go with the bundle on stdout", () => {
  assertUsage(
    () => bundleOutputPath("-", undefined, true),
    "the bundle goes to stdout; give --out FILE to use --json",
  );
});

Deno.test("signTrustBundleFile: signs, and names the kid of a signature it replaces", async () => {
  const signer = privateKeySigner(AUTH_1);
  const first = await signTrustBundleFile(
    raw(unsignedBundle({ "a.example": DEV_A })),
    "b.json",
    signer,
    "auth-1",
    SIGNED_AT,
  );
  assert.equal(first.replacedKid, undefined);
  assert.equal(first.bundle.bundle_authority?.kid, "auth-1");
  assert.equal(first.bundle.signed_at, SIGNED_AT);
  const again = await signTrustBundleFile(raw(first.bundle), "b.json", signer, "auth-2", SIGNED_AT);
  assert.equal(again.replacedKid, "auth-1");
  assert.equal(again.bundle.bundle_authority?.kid, "auth-2");
});

Deno.test("signTrustBundleFile: a malformed bundle or bad expiry is bad input", async () => {
  const signer = privateKeySigner(AUTH_1);
  await assert.rejects(
    signTrustBundleFile({ documents: "no" }, "bad.json", signer, "auth-1", SIGNED_AT),
    (e) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
      e.details.code === "DISCOVERY_INVALID" && e.message.includes("bad.json"),
  );
  await assert.rejects(
    signTrustBundleFile(
      raw(unsignedBundle({ "a.example": DEV_A })),
      "b.json",
      signer,
      "auth-1",
      SIGNED_AT,
      "2026-05-01T00:00:00Z",
    ),
    (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID" && /not later/.test(e.message),
  );
  await assert.rejects(
    signTrustBundleFile(raw(unsignedBundle({})), "b.json", signer, "", SIGNED_AT),
    (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
  );
});

Deno.test("parseAuthorityPrecedence: kids in order; none without the option", () => {
  assert.deepEqual(parseAuthorityPrecedence("acme,partner"), ["acme", "partner"]);
  assert.deepEqual(parseAuthorityPrecedence(undefined), []);
});

Deno.test("parseAuthorityPrecedence: a malformed or repeated kid is a usage error", () => {
  assert.throws(
    () => parseAuthorityPrecedence("acme,,partner"),
    (e) => isUsageError(e) && (e as Error).message.startsWith('--precedence "acme,,partner": '),
  );
  assertUsage(() => parseAuthorityPrecedence("acme,acme"), '--precedence lists "acme" twice');
});

Deno.test("checkAuthorityKeyOptions: --public-key alone, or with --revocation", () => {
  checkAuthorityKeyOptions({ publicKey: "authority.pem", allowList: [] });
  checkAuthorityKeyOptions({ publicKey: "authority.pem", revocation: "rev.json", allowList: [] });
  checkAuthorityKeyOptions({ allowList: ["--authority"] });
});

Deno.test("checkAuthorityKeyOptions: the combinations that do not go together", () => {
  assertUsage(
    () => checkAuthorityKeyOptions({ publicKey: "a.pem", allowList: ["--authority", "--x"] }),
    "--public-key is the trusted authority key; it does not go with --authority, --x",
  );
  assertUsage(
    () => checkAuthorityKeyOptions({ publicKey: "", allowList: [] }),
    "--public-key needs a path",
  );
  assertUsage(
    () => checkAuthorityKeyOptions({ revocation: "rev.json", allowList: [] }),
    "--revocation goes with --public-key",
  );
  assertUsage(
    () => checkAuthorityKeyOptions({ publicKey: "a.pem", revocation: "", allowList: [] }),
    "--revocation needs a path",
  );
});

Deno.test("bundleSummaryJson and signedBundleJson: the fields of create, add and sign", () => {
  const bundle = unsignedBundle({ "a.example": DEV_A }, "2026-05-01T00:00:00Z");
  assert.deepEqual(bundleSummaryJson(bundle, "b.json"), {
    ok: true,
    out: "b.json",
    schemapin_bundle_version: bundle.schemapin_bundle_version,
    created_at: "2026-05-01T00:00:00Z",
    documents: ["a.example"],
    revocations: [],
  });
  const signed = signTrustBundle(bundle, AUTH_1, "auth-1", SIGNED_AT, "2026-09-01T00:00:00Z");
  assert.deepEqual(signedBundleJson("b.json", signed, AUTH_1.publicKey.fingerprint), {
    ok: true,
    out: "b.json",
    kid: "auth-1",
    fingerprint: AUTH_1.publicKey.fingerprint,
    signed_at: SIGNED_AT,
    expires_at: "2026-09-01T00:00:00Z",
    documents: ["a.example"],
    revocations: [],
  });
});

Deno.test("bundleSummaryJson and signedBundleJson: misuse is INPUT_INVALID", () => {
  const unsigned = unsignedBundle({});
  const misuse = (e: unknown) => e instanceof SchemaPinError && e.code === "INPUT_INVALID";
  assert.throws(() => signedBundleJson("b.json", unsigned, "sha256:x"), misuse);
  assert.throws(() => bundleSummaryJson({} as never, "b.json"), misuse);
  assert.throws(() => bundleSummaryJson(unsigned, 1 as never), misuse);
});

async function mergeOf(kids: string[]) {
  const store = new MemoryBundleAuthorityStore();
  await seedBundleAuthority(store, "auth-1", AUTH_1.publicKey.fingerprint);
  const bundles = kids.map((kid, i) =>
    raw(
      signTrustBundle(
        unsignedBundle({ [`d${i}.example`]: i === 0 ? DEV_A : DEV_B }),
        kid === "auth-1" ? AUTH_1 : AUTH_2,
        kid,
        SIGNED_AT,
      ),
    )
  );
  return await verifyAndMergeTrustBundles(
    bundles.map((value, i) => ({ value, source: `in${i}.json` })),
    store,
  );
}

Deno.test("bundleMergeJson: a merge, with each input's verification and the domains", async () => {
  const merge = await mergeOf(["auth-1", "auth-1"]);
  const fields = bundleMergeJson("m.json", ["in0.json", "in1.json"], merge);
  assert.equal(fields.ok, true);
  assert.equal(fields.out, "m.json");
  assert.equal(fields.error, undefined);
  assert.deepEqual((fields.inputs as { file: string }[]).map((i) => i.file), [
    "in0.json",
    "in1.json",
  ]);
  assert.deepEqual(fields.documents, ["d0.example", "d1.example"]);
});

Deno.test("bundleMergeJson: a stopped merge carries the failed input's error", async () => {
  const merge = await mergeOf(["auth-1", "auth-2"]);
  const fields = bundleMergeJson("m.json", ["in0.json", "in1.json"], merge);
  assert.equal(fields.ok, false);
  assert.deepEqual(Object.keys(fields), ["ok", "error", "out", "inputs"]);
  assert.equal((fields.error as { code: string }).code, "BUNDLE_AUTHORITY_UNTRUSTED");
  assert.throws(
    () => bundleMergeJson("m.json", "x" as never, merge),
    (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
  );
});
