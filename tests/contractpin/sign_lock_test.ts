/**
 * Signing a lock file (cli/contractpin/sign_lock.ts): the document written and verifiable,
 * an existing signature replaced only with `force` and refused before the key is asked for,
 * a corrupt lock refused naming its file. The command is tested in
 * tests/cli/contract_sign_test.ts.
 */
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { privateKeySigner } from "../../lib/crypto/signer.ts";
import { buildLock, lockServerEntry, serializeLock } from "../../lib/contractpin/lock.ts";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import { verifyLockSignature } from "../../cli/contractpin/lock_signature.ts";
import { signLockFile } from "../../cli/contractpin/sign_lock.ts";
import { signJsonFields } from "../../cli/contractpin/json_fields.ts";
import { parseJson } from "../../lib/json/parse.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { discoveryFor, SIGNER } from "../schema/_fixtures.ts";
import { withTempDir } from "../cli/run.ts";

const LOCK = serializeLock(buildLock({
  a: lockServerEntry(
    { transport: "stdio", command: ["node", "a.js"] },
    digestToolList([{ name: "echo" }] as JsonValue[]),
  ),
}, new Date(Date.UTC(2026, 0, 1))));

/** Files in a folder, the signer asked for counted. */
function setup(dir: string) {
  const asked: string[] = [];
  const files = {
    read: (p: string) => Deno.readFile(p),
    write: (p: string, text: string) => Deno.writeTextFile(p, text),
  };
  const loadSigner = () => {
    asked.push("signer");
    return Promise.resolve(privateKeySigner(SIGNER));
  };
  Deno.writeTextFileSync(`${dir}/l.lock`, LOCK);
  return { asked, files, loadSigner, lockPath: `${dir}/l.lock`, sigPath: `${dir}/l.lock.sig` };
}

Deno.test("signLockFile: writes a signature document of the lock that verifies", async () => {
  await withTempDir(async (dir) => {
    const { files, loadSigner, lockPath, sigPath } = setup(dir);
    const signed = await signLockFile(
      { lockPath, sigPath, options: { domain: "example.com" } },
      files,
      loadSigner,
    );
    const { document } = signed;
    const written = parseJson(await Deno.readFile(sigPath), sigPath);
    assert.deepEqual(written, JSON.parse(JSON.stringify(document)));
    const result = await verifyLockSignature({
      lock: JSON.parse(LOCK),
      signature: written,
      domain: "example.com",
      discovery: discoveryFor(SIGNER),
      pinStore: new MemoryPinStore(),
      trustFirstUse: true,
    });
    assert.equal(result.valid, true, result.errorMessage);
    // contract sign --json: the hash signed and the key, from the result.
    assert.deepEqual(signJsonFields(lockPath, sigPath, signed), {
      ok: true,
      lock: lockPath,
      signature_file: sigPath,
      lock_hash: result.schemaHash,
      key_fingerprint: SIGNER.publicKey.fingerprint,
      document,
    });
  });
});

Deno.test("signLockFile: an existing signature is replaced with force", async () => {
  await withTempDir(async (dir) => {
    const { files, loadSigner, lockPath, sigPath } = setup(dir);
    Deno.writeTextFileSync(sigPath, "old");
    await signLockFile({ lockPath, sigPath, force: true }, files, loadSigner);
    assert.notEqual(Deno.readTextFileSync(sigPath), "old");
  });
});

Deno.test("signLockFile: an existing signature without force is refused before the key", async () => {
  await withTempDir(async (dir) => {
    const { asked, files, loadSigner, lockPath, sigPath } = setup(dir);
    Deno.symlinkSync(`${dir}/gone`, sigPath); // a dangling link counts
    await assert.rejects(
      signLockFile({ lockPath, sigPath }, files, loadSigner),
      (e) =>
        e instanceof SchemaPinError && e.code === "IO_FAILED" &&
        e.message === `${sigPath} already exists; nothing was written — add --force to replace it`,
    );
    assert.deepEqual(asked, []);
  });
});

Deno.test("signLockFile: a corrupt lock is refused naming its file, before the key", async () => {
  await withTempDir(async (dir) => {
    const { asked, files, loadSigner, lockPath, sigPath } = setup(dir);
    Deno.writeTextFileSync(lockPath, '{"version": 1}');
    await assert.rejects(
      signLockFile({ lockPath, sigPath }, files, loadSigner),
      (e) => e instanceof SchemaPinError && e.message.includes(lockPath),
    );
    assert.deepEqual(asked, []);
    assert.throws(() => Deno.lstatSync(sigPath), Deno.errors.NotFound);
  });
});

Deno.test("signLockFile: arguments of the wrong type are INPUT_INVALID", async () => {
  const files = { read: () => Promise.resolve(new Uint8Array()), write: () => Promise.resolve() };
  const signer = () => Promise.resolve(privateKeySigner(SIGNER));
  const request = { lockPath: "l.lock", sigPath: "l.lock.sig" };
  for (
    const args of [
      [undefined, files, signer],
      [{ ...request, sigPath: 1 }, files, signer],
      [request, null, signer],
      [request, files, "signer"],
    ]
  ) {
    await assert.rejects(
      (signLockFile as (...a: unknown[]) => Promise<unknown>)(...args),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  }
});
