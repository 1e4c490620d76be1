// A signed lock checked from disk (cli/contractpin/lock_signature_check.ts), without the CLI:
// the signature file next to the lock, the key from a trust plan (lib/trust/load.ts), the pin
// contractpin:lock@DOMAIN in a real pin file. What is a failed verification (missing,
// oversized, not JSON, another key) and what is unusable input (a bad trust file) is the
// contract the CLI's exit codes rest on (tests/cli/contract_sign_test.ts runs the commands).
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { buildLock, lockServerEntry, serializeLock } from "../../lib/contractpin/lock.ts";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import { signLock } from "../../cli/contractpin/lock_signature.ts";
import {
  checkLockSignature,
  lockSignaturePath,
  MAX_LOCK_SIGNATURE_BYTES,
  runLockSignatureCheck,
} from "../../cli/contractpin/lock_signature_check.ts";
import { formatSchemaSignatureDocument } from "../../lib/schema/document.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import type { TrustEnv, TrustPlan } from "../../lib/trust/load.ts";
import { discoveryFor, OTHER, SIGNER } from "../schema/_fixtures.ts";
import { withTempDir } from "../cli/run.ts";

const DOMAIN = "example.com";
const env: TrustEnv = { read: (p) => Deno.readFile(p) };

function lockText(): string {
  const tools = digestToolList([{ name: "echo", inputSchema: { type: "object" } }] as JsonValue[]);
  return serializeLock(buildLock({
    srv: lockServerEntry({ transport: "stdio", command: ["node", "server.js"] }, tools),
  }, new Date(Date.UTC(2026, 0, 1))));
}

/** A lock, its signature by `signer`, and a discovery document for SIGNER, in `dir`. */
function setUp(dir: string, signer = SIGNER) {
  const lockPath = `${dir}/contractpin.lock`;
  const text = lockText();
  Deno.writeTextFileSync(lockPath, text);
  const doc = signLock(JSON.parse(text), signer, { domain: DOMAIN });
  Deno.writeTextFileSync(lockSignaturePath(lockPath), formatSchemaSignatureDocument(doc));
  Deno.writeTextFileSync(`${dir}/d.json`, JSON.stringify(discoveryFor(SIGNER)));
  const plan: TrustPlan = { domain: DOMAIN, discovery: `${dir}/d.json`, chain: [] };
  return {
    plan,
    lockPath,
    sigPath: lockSignaturePath(lockPath),
    lockBytes: new TextEncoder().encode(text),
    pinStore: `${dir}/pins.json`,
  };
}

Deno.test("lock signature check: a valid signature pins the key on first use", async () => {
  await withTempDir(async (dir) => {
    const s = setUp(dir);
    const first = await checkLockSignature({ ...s, env, trustFirstUse: true });
    assert.equal(first.valid, true, first.errorMessage);
    assert.equal(first.keyPinning, "first_use");
    assert.equal(first.discoverySource, `${dir}/d.json`);
    const again = await checkLockSignature({ ...s, env });
    assert.equal(again.keyPinning, "pinned");
  });
});

Deno.test("lock signature check: missing, oversized, not JSON or another key fail the check", async () => {
  await withTempDir(async (dir) => {
    const s = setUp(dir, OTHER);
    const other = await checkLockSignature({ ...s, env, trustFirstUse: true });
    assert.equal(other.errorCode, "SIGNATURE_INVALID");

    Deno.writeTextFileSync(s.sigPath, "not json");
    const notJson = await checkLockSignature({ ...s, env, trustFirstUse: true });
    assert.match(notJson.errorMessage!, /is not a signature document/);

    Deno.writeTextFileSync(s.sigPath, " ".repeat(MAX_LOCK_SIGNATURE_BYTES + 1));
    const huge = await checkLockSignature({ ...s, env, trustFirstUse: true });
    assert.match(huge.errorMessage!, /bytes: not a signature document/);

    Deno.removeSync(s.sigPath);
    const missing = await checkLockSignature({ ...s, env, trustFirstUse: true });
    assert.equal(missing.errorCode, "SIGNATURE_INVALID");
    assert.match(missing.errorMessage!, /does not exist: the lock is not signed/);
    // None of them pinned anything.
    assert.throws(() => Deno.statSync(s.pinStore), Deno.errors.NotFound);
  });
});

Deno.test("lock signature check: a bad trust file throws before the signature is read", async () => {
  await withTempDir(async (dir) => {
    const s = setUp(dir);
    Deno.removeSync(s.sigPath);
    Deno.writeTextFileSync(`${dir}/d.json`, "{");
    await assert.rejects(
      checkLockSignature({ ...s, env }),
      (e) => e instanceof SchemaPinError && e.code === "JSON_INVALID",
    );
  });
});

Deno.test("lock signature check: an explicit key pins nothing; not required is not checked", async () => {
  await withTempDir(async (dir) => {
    const s = setUp(dir);
    Deno.writeTextFileSync(`${dir}/public.pem`, SIGNER.publicKey.pem);
    const plan: TrustPlan = { domain: DOMAIN, publicKey: `${dir}/public.pem`, chain: [] };
    const check = await runLockSignatureCheck(
      { required: true, sigPath: s.sigPath, plan },
      { ...s, env },
    );
    assert.equal(check.status, "valid");
    assert.equal(check.explicitKey, true);
    assert.equal(check.result?.keyPinning, "not_checked");
    assert.throws(() => Deno.statSync(s.pinStore), Deno.errors.NotFound);
    assert.deepEqual(
      await runLockSignatureCheck({ required: false, sigPath: s.sigPath }, { ...s, env }),
      { status: "not_checked", required: false, file: s.sigPath },
    );
  });
});
