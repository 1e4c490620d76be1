// createKeyPairFiles (cli/discovery/key_pair.ts): a key pair and its discovery document
// written as one call; nothing asked for and nothing written when a check refuses.
import assert from "node:assert/strict";
import { createKeyPairFiles } from "../../cli/discovery/key_pair.ts";
import { isSchemaPinError } from "../../lib/errors.ts";
import { parsePrivateKeyPem } from "../../lib/crypto/keys.ts";
import { withTempDir } from "../cli/run.ts";

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) out.push(e.name);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return out.sort();
}

Deno.test("createKeyPairFiles: an unencrypted pair whose private.pem holds the key returned", async () => {
  await withTempDir(async (dir) => {
    const { key, paths } = await createKeyPairFiles(`${dir}/k`);
    assert.deepEqual(await names(`${dir}/k`), ["private.pem", "public.pem"]);
    const pem = await Deno.readTextFile(paths.privatePath);
    assert.equal(parsePrivateKeyPem(pem).publicKey.fingerprint, key.publicKey.fingerprint);
    assert.equal(await Deno.readTextFile(paths.publicPath), key.publicKey.pem);
    assert.equal((await Deno.stat(paths.privatePath)).mode! & 0o777, 0o600);
  });
});

Deno.test("createKeyPairFiles: encrypted with the passphrase, and the discovery document of the key", async () => {
  await withTempDir(async (dir) => {
    const { key, paths } = await createKeyPairFiles(dir, {
      passphrase: () => Promise.resolve("correct horse battery staple"),
      discovery: { developerName: "Example Corp", contact: "security@example.com" },
    });
    assert.match(await Deno.readTextFile(paths.privatePath), /BEGIN ENCRYPTED PRIVATE KEY/);
    const doc = JSON.parse(await Deno.readTextFile(paths.discoveryPath!));
    assert.equal(doc.developer_name, "Example Corp");
    assert.equal(doc.public_key_pem, key.publicKey.pem);
  });
});

Deno.test("createKeyPairFiles: an existing file is refused before the passphrase is asked for", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/public.pem`, "keep me");
    let asked = false;
    await assert.rejects(
      createKeyPairFiles(dir, { passphrase: () => (asked = true, Promise.resolve("p")) }),
      (e) => isSchemaPinError(e) && e.code === "IO_FAILED" && e.details.exists === true,
    );
    assert.equal(asked, false);
    assert.equal(await Deno.readTextFile(`${dir}/public.pem`), "keep me");
    assert.deepEqual(await names(dir), ["public.pem"]);
  });
});

Deno.test("createKeyPairFiles: a developer name the document refuses writes nothing and asks nothing", async () => {
  await withTempDir(async (dir) => {
    let asked = false;
    await assert.rejects(
      createKeyPairFiles(`${dir}/k`, {
        passphrase: () => (asked = true, Promise.resolve("p")),
        discovery: { developerName: "  " },
      }),
      (e) => isSchemaPinError(e) && e.code === "INPUT_INVALID",
    );
    assert.equal(asked, false);
    assert.deepEqual(await names(`${dir}/k`), []);
  });
});

Deno.test("createKeyPairFiles: a refused passphrase leaves nothing behind", async () => {
  await withTempDir(async (dir) => {
    await assert.rejects(
      createKeyPairFiles(`${dir}/k`, { passphrase: () => Promise.reject(new Error("cancelled")) }),
      /cancelled/,
    );
    assert.deepEqual(await names(`${dir}/k`), []);
  });
});

Deno.test("createKeyPairFiles: overwrite replaces an existing pair; a folder that cannot be made fails", async () => {
  await withTempDir(async (dir) => {
    const first = await createKeyPairFiles(dir);
    const second = await createKeyPairFiles(dir, { overwrite: true });
    assert.notEqual(first.key.publicKey.fingerprint, second.key.publicKey.fingerprint);
    await Deno.writeTextFile(`${dir}/file`, "x");
    await assert.rejects(
      createKeyPairFiles(`${dir}/file/k`),
      (e) => isSchemaPinError(e) && e.code === "IO_FAILED",
    );
  });
});

Deno.test("createKeyPairFiles: a folder that is not a string is a misuse", async () => {
  await assert.rejects(
    createKeyPairFiles(42 as unknown as string),
    (e) => isSchemaPinError(e) && /createKeyPairFiles/.test(e.message),
  );
});
