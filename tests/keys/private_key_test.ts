// Loading keys in the library (lib/keys/): the passphrase file format, PEM private keys
// (encrypted or not) with the passphrase as a callback, public keys from any key PEM, key specs
// (a file or ssh-agent:PUBFILE) as signers, and a new key pair written to a folder.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  encryptedPrivateKeyParameters,
  encryptPrivateKeyPem,
} from "../../lib/crypto/encrypted_key.ts";
import { generateKeyPair, privateKeyToPem } from "../../lib/crypto/keys.ts";
import {
  loadKeyForPublicKey,
  loadPrivateKey,
  MAX_PASSPHRASE_BYTES,
  passphraseFromFile,
  privateKeyFromPem,
  publicKeyFromAnyPem,
  publicKeyFromPem,
  readKeyText,
} from "../../cli/keys/private_key.ts";
import {
  isSshAgentKey,
  keySigner,
  loadSigner,
  privateKeyOf,
  SSH_AGENT_KEY_PREFIX,
} from "../../cli/keys/signer.ts";
import { keyPairPaths, writeKeyPairFiles } from "../../cli/keys/key_files.ts";
import { withTempDir } from "../cli/run.ts";

const PASS = "correct horse battery staple";
const enc = new TextEncoder();

function rejectsWith(code: string, pattern?: RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof SchemaPinError, String(e));
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  };
}

/** A fast encrypted PEM (few iterations: these tests are not about the KDF's cost). */
function encrypted(iterations = 1000): Promise<string> {
  return encryptPrivateKeyPem(generateKeyPair(), PASS, { iterations });
}

Deno.test("passphraseFromFile: the first line, without \\n or \\r\\n, and the bytes zeroed", async () => {
  let seen: Uint8Array | undefined;
  const read = (text: string) => (_: string) => {
    seen = enc.encode(text);
    return Promise.resolve(seen);
  };
  assert.equal(await passphraseFromFile("p", { read: read(`${PASS}\r\nsecond`) }), PASS);
  assert.ok(seen!.every((b) => b === 0), "the file's bytes are zeroed");
  assert.equal(await passphraseFromFile("p", { read: read(`${PASS}\n`) }), PASS);
  assert.equal(await passphraseFromFile("p", { read: read(PASS) }), PASS);
});

Deno.test("passphraseFromFile refuses an empty first line, non-UTF-8, a passphrase too long, a missing file", async () => {
  const bytes = (b: Uint8Array) => () => Promise.resolve(b);
  await assert.rejects(
    passphraseFromFile("p.txt", { read: bytes(enc.encode("\nsecond")) }),
    rejectsWith("INPUT_INVALID", /passphrase file p\.txt is empty/),
  );
  await assert.rejects(
    passphraseFromFile("-", { read: bytes(new Uint8Array([0xff, 0xfe])), source: "stdin" }),
    rejectsWith("INPUT_INVALID", /passphrase file stdin is not UTF-8 text/),
  );
  await assert.rejects(
    passphraseFromFile("p", { read: bytes(enc.encode("x".repeat(MAX_PASSPHRASE_BYTES + 1))) }),
    rejectsWith("INPUT_INVALID", /longer than 1024 bytes/),
  );
  await withTempDir(async (dir) => {
    await assert.rejects(
      passphraseFromFile(`${dir}/none.txt`),
      rejectsWith("IO_FAILED", /cannot read .*none\.txt: no such file or directory/),
    );
  });
});

Deno.test("privateKeyFromPem: an unencrypted key never asks; an encrypted one asks once, naming its source", async () => {
  const key = generateKeyPair();
  let asked = 0;
  const passphrase = () => {
    asked++;
    return Promise.resolve(PASS);
  };
  const plain = await privateKeyFromPem(privateKeyToPem(key), "k.pem", { passphrase });
  assert.equal(plain.encrypted, false);
  assert.equal(plain.key.publicKey.fingerprint, key.publicKey.fingerprint);
  assert.equal(asked, 0);
  const pem = await encryptPrivateKeyPem(key, PASS, { iterations: 200_000 });
  let source = "";
  const warnings: string[] = [];
  const opened = await privateKeyFromPem(pem, "enc.pem", {
    passphrase: (s) => {
      source = s;
      return passphrase();
    },
    onWarning: (w) => void warnings.push(w),
  });
  assert.equal(opened.encrypted, true);
  assert.equal(opened.key.publicKey.fingerprint, key.publicKey.fingerprint);
  assert.equal(source, "enc.pem");
  assert.equal(asked, 1);
  assert.deepEqual(warnings, [], "600k-style iteration counts are not weak");
});

Deno.test("privateKeyFromPem warns (without a newline) about a weakly encrypted key, naming it", async () => {
  const pem = await encrypted(2048);
  assert.equal(encryptedPrivateKeyParameters(pem).iterations, 2048);
  const warnings: string[] = [];
  await privateKeyFromPem(pem, "old.pem", {
    passphrase: () => Promise.resolve(PASS),
    onWarning: (w) => void warnings.push(w),
  });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^old\.pem is encrypted with only 2048 PBKDF2 iterations; re-encrypt/);
  assert.doesNotMatch(warnings[0], /\n/);
});

Deno.test("privateKeyFromPem refuses an encrypted key with no passphrase source, a wrong passphrase, not a key", async () => {
  const pem = await encrypted();
  await assert.rejects(
    privateKeyFromPem(pem, "enc.pem"),
    rejectsWith("KEY_INVALID", /enc\.pem is an encrypted private key and no passphrase/),
  );
  await assert.rejects(
    privateKeyFromPem(pem, "enc.pem", { passphrase: () => Promise.resolve("wrong") }),
    rejectsWith("KEY_INVALID", /wrong passphrase or corrupted key/),
  );
  await assert.rejects(
    privateKeyFromPem(generateKeyPair().publicKey.pem, "pub.pem"),
    rejectsWith("KEY_INVALID"),
  );
  // What the passphrase callback throws comes through unchanged.
  const cancelled = new Error("cancelled");
  await assert.rejects(
    privateKeyFromPem(pem, "enc.pem", { passphrase: () => Promise.reject(cancelled) }),
    (e) => e === cancelled,
  );
});

Deno.test("publicKeyFromPem and publicKeyFromAnyPem: a public key, or the public half of a private key", async () => {
  const key = generateKeyPair();
  const fp = key.publicKey.fingerprint;
  const fromPublic = await publicKeyFromPem(key.publicKey.pem, "pub.pem");
  assert.deepEqual([fromPublic.key.fingerprint, fromPublic.from, fromPublic.encrypted], [
    fp,
    "public",
    false,
  ]);
  const pem = await encryptPrivateKeyPem(key, PASS, { iterations: 1000 });
  const fromEncrypted = await publicKeyFromPem(pem, "enc.pem", {
    passphrase: () => Promise.resolve(PASS),
  });
  assert.deepEqual([fromEncrypted.key.fingerprint, fromEncrypted.from, fromEncrypted.encrypted], [
    fp,
    "private",
    true,
  ]);
  assert.equal(publicKeyFromAnyPem(privateKeyToPem(key), "k.pem").fingerprint, fp);
  assert.equal(publicKeyFromAnyPem(key.publicKey.pem, "k.pem").fingerprint, fp);
});

Deno.test("publicKeyFromPem and publicKeyFromAnyPem refuse garbage and (without a passphrase) an encrypted key", async () => {
  await assert.rejects(publicKeyFromPem("not a key", "x.pem"), rejectsWith("KEY_INVALID"));
  assert.throws(() => publicKeyFromAnyPem("not a key", "x.pem"), rejectsWith("KEY_INVALID"));
  const pem = await encrypted();
  assert.throws(() => publicKeyFromAnyPem(pem, "enc.pem"), rejectsWith("KEY_INVALID"));
  await assert.rejects(publicKeyFromPem(pem, "enc.pem"), rejectsWith("KEY_INVALID"));
});

Deno.test("loadPrivateKey and loadKeyForPublicKey read through the reader given, or the file system", async () => {
  const key = generateKeyPair();
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/k.pem`, privateKeyToPem(key));
    assert.equal(
      (await loadPrivateKey(`${dir}/k.pem`)).key.publicKey.fingerprint,
      key.publicKey.fingerprint,
    );
    const read: string[] = [];
    const loaded = await loadKeyForPublicKey("-", {
      read: (p) => {
        read.push(p);
        return Promise.resolve(enc.encode(key.publicKey.pem));
      },
      source: "stdin",
    });
    assert.deepEqual(read, ["-"]);
    assert.equal(loaded.key.fingerprint, key.publicKey.fingerprint);
  });
});

Deno.test("loadPrivateKey / readKeyText refuse a missing file and text that is not UTF-8, naming the path", async () => {
  await withTempDir(async (dir) => {
    await assert.rejects(
      loadPrivateKey(`${dir}/missing.pem`),
      rejectsWith("IO_FAILED", /cannot read .*missing\.pem: no such file or directory/),
    );
    await Deno.writeFile(`${dir}/bin.pem`, new Uint8Array([0xc3, 0x28]));
    await assert.rejects(
      readKeyText(`${dir}/bin.pem`, { source: "other name" }),
      rejectsWith("INPUT_INVALID", /bin\.pem is not valid UTF-8 text/),
    );
    await assert.rejects(
      loadKeyForPublicKey(`${dir}/bin.pem`),
      rejectsWith("INPUT_INVALID", /bin\.pem is not valid UTF-8 text/),
    );
  });
});

Deno.test("key specs: ssh-agent:PUBFILE is an agent key; keySigner and loadSigner remember the private key", async () => {
  assert.equal(isSshAgentKey(`${SSH_AGENT_KEY_PREFIX}id_ecdsa.pub`), true);
  assert.equal(isSshAgentKey("keys/private.pem"), false);
  assert.equal(isSshAgentKey("ssh-agent"), false);
  const key = generateKeyPair();
  assert.equal(privateKeyOf(keySigner(key)), key);
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/k.pem`, privateKeyToPem(key));
    const signer = await loadSigner(`${dir}/k.pem`);
    assert.equal(signer.publicKey.fingerprint, key.publicKey.fingerprint);
    assert.equal(privateKeyOf(signer)?.publicKey.fingerprint, key.publicKey.fingerprint);
  });
});

Deno.test("loadSigner refuses ssh-agent: without a file, an unreadable PUBFILE, a PUBFILE that is a private key", async () => {
  await assert.rejects(loadSigner("ssh-agent:"), rejectsWith("INPUT_INVALID", /names no public/));
  await withTempDir(async (dir) => {
    await assert.rejects(
      loadSigner(`ssh-agent:${dir}/none.pub`),
      rejectsWith("IO_FAILED", /cannot read .*none\.pub/),
    );
    await Deno.writeTextFile(`${dir}/k.pem`, privateKeyToPem(generateKeyPair()));
    await assert.rejects(loadSigner(`ssh-agent:${dir}/k.pem`), rejectsWith("KEY_INVALID"));
    // A file key that does not exist is the file loader's error.
    await assert.rejects(loadSigner(`${dir}/none.pem`), rejectsWith("IO_FAILED"));
  });
  assert.equal(privateKeyOf({} as never), undefined);
});

Deno.test("writeKeyPairFiles: private.pem 0600 (encrypted with a passphrase), public.pem, schemapin.json", async () => {
  await withTempDir(async (dir) => {
    const key = generateKeyPair();
    const paths = await writeKeyPairFiles(`${dir}/keys/`, key, {
      passphrase: PASS,
      discovery: "{}\n",
    });
    assert.deepEqual(paths, keyPairPaths(`${dir}/keys`, true));
    assert.equal(paths.privatePath, `${dir}/keys/private.pem`);
    assert.equal((await Deno.stat(`${dir}/keys`)).mode! & 0o777, 0o700);
    assert.equal((await Deno.stat(paths.privatePath)).mode! & 0o777, 0o600);
    const pem = await Deno.readTextFile(paths.privatePath);
    const opened = await privateKeyFromPem(pem, "p", { passphrase: () => Promise.resolve(PASS) });
    assert.equal(opened.encrypted, true);
    assert.equal(opened.key.publicKey.fingerprint, key.publicKey.fingerprint);
    assert.equal(await Deno.readTextFile(paths.publicPath), key.publicKey.pem);
    assert.equal(await Deno.readTextFile(paths.discoveryPath!), "{}\n");
    // Unencrypted, and replacing what is there.
    await writeKeyPairFiles(`${dir}/keys`, key, { overwrite: true });
    assert.match(await Deno.readTextFile(paths.privatePath), /^-----BEGIN PRIVATE KEY-----/);
    assert.equal(keyPairPaths("k", false).discoveryPath, undefined);
  });
});

Deno.test("writeKeyPairFiles refuses existing files (removing what it wrote) and a folder it cannot create", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/keys`);
    await Deno.writeTextFile(`${dir}/keys/public.pem`, "old\n");
    await assert.rejects(
      writeKeyPairFiles(`${dir}/keys`, generateKeyPair()),
      (e) => {
        rejectsWith("IO_FAILED", /public\.pem already exists; refusing to overwrite it$/)(e);
        assert.equal((e as SchemaPinError).details.exists, true);
        return true;
      },
    );
    assert.deepEqual([...Deno.readDirSync(`${dir}/keys`)].map((e) => e.name), ["public.pem"]);
    assert.equal(await Deno.readTextFile(`${dir}/keys/public.pem`), "old\n");
    await Deno.writeTextFile(`${dir}/file`, "");
    await assert.rejects(
      writeKeyPairFiles(`${dir}/file/keys`, generateKeyPair()),
      rejectsWith("IO_FAILED", /cannot create .*file\/keys/),
    );
  });
});
