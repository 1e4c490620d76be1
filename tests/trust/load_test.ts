// Trust composition (lib/trust/load.ts) on real files, without the CLI: which source a plan
// reads, that every local input is checked before anything remote, that a signed bundle is
// used only against the caller's allow-list (§21.4), and the helpers that finish a
// verification with its trust inputs. The CLI's flag checks are tested in tests/cli/.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { privateKeyToPem } from "../../lib/crypto/keys.ts";
import { addDiscoveryToBundle, createTrustBundle } from "../../lib/bundle/bundle.ts";
import { signTrustBundle } from "../../lib/bundle/sign.ts";
import { MemoryBundleAuthorityStore, seedBundleAuthority } from "../../lib/bundle/authority.ts";
import { FilePinStore } from "../../lib/pins/store.ts";
import {
  explicitKeyPinStore,
  findInBundleFile,
  httpsFetchOptions,
  loadTrust,
  loadTrustAndDnsHook,
  type TrustEnv,
  type TrustInputs,
  trustPinStore,
  withTrustInputs,
} from "../../lib/trust/load.ts";
import { parseSignatureFile, readJsonInput, refusePem } from "../../lib/schema/input.ts";
import { discoveryFor, OTHER, SIGNER } from "../schema/_fixtures.ts";
import { withTempDir } from "../cli/run.ts";
import { trustInputNames } from "../../cli/trust/input_names.ts";

const DOMAIN = "tools.example.test";
/** How the verify commands name the plan's inputs (cli/trust/input_names.ts). */
const CLI_NAMES = trustInputNames("verify-schema");
const enc = new TextEncoder();

/** Reads real files, and records every path read, in order. */
function recordingEnv(extra: Partial<TrustEnv> = {}): TrustEnv & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    read: async (path) => {
      reads.push(path);
      try {
        return await Deno.readFile(path);
      } catch {
        throw new SchemaPinError("IO_FAILED", `cannot read ${path}`, { path });
      }
    },
    ...extra,
  };
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<SchemaPinError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof SchemaPinError, String(e));
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}`);
}

Deno.test("trust: a discovery file and a revocation file are read and checked", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/d.json`, JSON.stringify(discoveryFor()));
    Deno.writeTextFileSync(
      `${dir}/r.json`,
      JSON.stringify({
        schemapin_version: "1.2",
        domain: DOMAIN,
        updated_at: "2026-01-01T00:00:00Z",
        revoked_keys: [],
      }),
    );
    const env = recordingEnv();
    const { trust, dnsHook } = await loadTrustAndDnsHook(
      { domain: DOMAIN, discovery: `${dir}/d.json`, revocation: `${dir}/r.json`, chain: [] },
      env,
    );
    assert.equal(dnsHook, undefined);
    assert.deepEqual(env.reads, [`${dir}/d.json`, `${dir}/r.json`]);
    assert.equal(trust.discoverySource, `${dir}/d.json`);
    assert.equal(trust.revocationSource, `${dir}/r.json`);
    assert.equal(trust.explicitKey, undefined);
  });
});

Deno.test("trust: a PEM key as the discovery document names the option that takes a key", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/public.pem`, SIGNER.publicKey.pem);
    const plan = { domain: DOMAIN, discovery: `${dir}/public.pem`, chain: [] };
    const withFlag = await rejectsWith(
      loadTrust(plan, recordingEnv({ names: CLI_NAMES })),
      "INPUT_INVALID",
    );
    assert.match(withFlag.message, /not a discovery document \(use --public-key FILE\)$/);
    const without = await rejectsWith(loadTrust(plan, recordingEnv()), "INPUT_INVALID");
    assert.doesNotMatch(without.message, /use --public-key/);
  });
});

Deno.test("trust: an explicit public key is the anchor; a private key is refused", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/public.pem`, SIGNER.publicKey.pem);
    Deno.writeTextFileSync(`${dir}/private.pem`, privateKeyToPem(SIGNER));
    const trust = await loadTrust(
      { domain: DOMAIN, publicKey: `${dir}/public.pem`, chain: [] },
      recordingEnv({ names: CLI_NAMES }),
    );
    assert.equal(trust.explicitKey, SIGNER.publicKey.fingerprint);
    assert.equal(trust.discoverySource, `--public-key ${dir}/public.pem`);
    // Without the caller's names, the library names the key in its own terms.
    const plain = await loadTrust(
      { domain: DOMAIN, publicKey: `${dir}/public.pem`, chain: [] },
      recordingEnv(),
    );
    assert.equal(plain.discoverySource, `public key ${dir}/public.pem`);
    const e = await rejectsWith(
      loadTrust({ domain: DOMAIN, publicKey: `${dir}/private.pem`, chain: [] }, recordingEnv()),
      "KEY_INVALID",
    );
    assert.match(e.message, /holds a private key/);
  });
});

Deno.test("trust: a bundle is found by domain; a signed one only against the allow-list", async () => {
  await withTempDir(async (dir) => {
    const bundle = addDiscoveryToBundle(createTrustBundle(), DOMAIN, discoveryFor());
    Deno.writeTextFileSync(`${dir}/b.json`, JSON.stringify(bundle));
    const plan = { domain: DOMAIN, bundle: `${dir}/b.json`, chain: ["bundle" as const] };
    const trust = await loadTrust(plan, recordingEnv());
    assert.equal(trust.discoverySource, `${dir}/b.json (documents: ${DOMAIN})`);
    // Another domain: KEY_NOT_FOUND naming the file.
    const missing = await rejectsWith(
      findInBundleFile(`${dir}/b.json`, "other.example.test", plan, recordingEnv()),
      "KEY_NOT_FOUND",
    );
    assert.match(missing.message, /has no discovery document for other\.example\.test/);
    // An unsigned bundle where a signed one is required: BUNDLE_UNSIGNED.
    await rejectsWith(
      loadTrust({ ...plan, requireSignedBundle: true }, recordingEnv()),
      "BUNDLE_UNSIGNED",
    );

    const signed = signTrustBundle(bundle, OTHER, "authority-1", new Date());
    Deno.writeTextFileSync(`${dir}/s.json`, JSON.stringify(signed));
    const signedPlan = { ...plan, bundle: `${dir}/s.json` };
    // No authority: the default store is empty, so the signature cannot be trusted.
    await rejectsWith(loadTrust(signedPlan, recordingEnv()), "BUNDLE_AUTHORITY_UNTRUSTED");
    let asked = 0;
    const store = new MemoryBundleAuthorityStore();
    await seedBundleAuthority(store, "authority-1", OTHER.publicKey.fingerprint);
    const env = recordingEnv({ authorityStore: () => (asked++, Promise.resolve(store)) });
    const ok = await loadTrust(signedPlan, env);
    assert.equal(asked, 1);
    assert.equal(ok.discoverySource, `${dir}/s.json (documents: ${DOMAIN})`);
  });
});

Deno.test("trust: a missing resolver folder stops the chain before any request", async () => {
  await withTempDir(async (dir) => {
    const e = await rejectsWith(
      loadTrust(
        { domain: DOMAIN, resolverDir: `${dir}/nope`, chain: ["resolver-dir", "well-known"] },
        recordingEnv({ names: CLI_NAMES }),
      ),
      "IO_FAILED",
    );
    assert.equal(e.message, `--resolver-dir ${dir}/nope: no such file or directory`);
    Deno.writeTextFileSync(`${dir}/file`, "");
    const notDir = await rejectsWith(
      loadTrust(
        { domain: DOMAIN, resolverDir: `${dir}/file`, chain: ["resolver-dir"] },
        recordingEnv({ names: CLI_NAMES }),
      ),
      "IO_FAILED",
    );
    assert.equal(notDir.message, `--resolver-dir ${dir}/file is not a directory`);
  });
});

Deno.test("trust: the HTTPS options take the deadline and refuse a CA file without a certificate", async () => {
  assert.deepEqual(await httpsFetchOptions({}, recordingEnv().read), {});
  assert.deepEqual(await httpsFetchOptions({ timeoutMs: 1500 }, recordingEnv().read), {
    connectTimeoutMs: 1500,
    readTimeoutMs: 1500,
  });
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/ca.pem`, "not a certificate\n");
    const e = await rejectsWith(
      httpsFetchOptions({ caFile: `${dir}/ca.pem` }, recordingEnv().read),
      "INPUT_INVALID",
    );
    assert.match(e.message, /holds no PEM certificate/);
  });
});

Deno.test("trust: the pin store and the finished result follow the trust inputs", async () => {
  const fp = SIGNER.publicKey.fingerprint;
  const explicit: TrustInputs = {
    discovery: {},
    discoverySource: "--public-key k",
    explicitKey: fp,
  };
  const pins = explicitKeyPinStore(fp);
  assert.equal((await pins.get("t", DOMAIN))?.fingerprint, fp);
  assert.deepEqual(await pins.list(), []);
  assert.ok(!(trustPinStore(explicit) instanceof FilePinStore));
  const fromFile: TrustInputs = { discovery: {}, discoverySource: "d.json", warnings: ["w"] };
  assert.ok(trustPinStore(fromFile, "/tmp/pins.json") instanceof FilePinStore);
  const result = withTrustInputs(
    { valid: true, toolId: "t", keyPinning: "first_use", warnings: [] } as unknown as Parameters<
      typeof withTrustInputs
    >[0],
    explicit,
  );
  assert.equal(result.keyPinning, "not_checked");
  assert.equal(result.discoverySource, "--public-key k");
  const other = withTrustInputs(
    { valid: true, toolId: "t", keyPinning: "pinned", warnings: [] } as unknown as Parameters<
      typeof withTrustInputs
    >[0],
    fromFile,
  );
  assert.equal(other.keyPinning, "pinned");
  assert.deepEqual(other.warnings, ["w"]);
});

Deno.test("inputs: JSON files name what they should be; PEM keys and bad signature files are refused", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/bad.json`, "{");
    const read = recordingEnv().read;
    const e = await rejectsWith(readJsonInput(`${dir}/bad.json`, read, "schema"), "JSON_INVALID");
    assert.match(e.message, /^schema /);
    assert.equal(e.details?.path, `${dir}/bad.json`);
  });
  assert.throws(
    () => refusePem(enc.encode(privateKeyToPem(SIGNER)), "-", "schema"),
    (e) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" && e.message.startsWith("stdin: "),
  );
  assert.equal(parseSignatureFile(enc.encode(" QUJD \n"), "s.sig"), "QUJD");
  assert.deepEqual(parseSignatureFile(enc.encode('{"a":1}'), "s.sig"), { a: 1 });
  for (const bad of ["", "not base64!", "\xff"]) {
    assert.throws(
      () => parseSignatureFile(bad === "\xff" ? new Uint8Array([0xff]) : enc.encode(bad), "s.sig"),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  }
});
