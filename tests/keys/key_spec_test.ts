// A key spec loaded with the passphrase of an encrypted key (cli/keys/key_spec.ts): the
// passphrase is looked up only for an encrypted key, an unused passphrase file is noted, an
// agent key names its spec in every failure, and usage mistakes carry details.usage.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { encryptPrivateKeyPem } from "../../lib/crypto/encrypted_key.ts";
import { generateKeyPair, privateKeyToPem } from "../../lib/crypto/keys.ts";
import {
  type KeySpecOptions,
  loadPrivateKeyWithPassphrase,
  loadPublicKeyWithPassphrase,
  loadSignerWithPassphrase,
} from "../../cli/keys/key_spec.ts";
import { PASSPHRASE_ENV, readEnvironment } from "../../cli/keys/passphrase.ts";

const PASS = "correct horse battery";
const key = generateKeyPair();

/** Files in memory: `read` answers from `files`, else IO_FAILED naming the path. */
function sources(
  files: Record<string, string>,
  extra: Partial<KeySpecOptions> = {},
): KeySpecOptions & { notes: string[]; asked: string[] } {
  const notes: string[] = [];
  const asked: string[] = [];
  return {
    read: (path) => {
      if (!(path in files)) {
        return Promise.reject(new SchemaPinError("IO_FAILED", `cannot read ${path}`, { path }));
      }
      return Promise.resolve(new TextEncoder().encode(files[path]));
    },
    getEnv: () => undefined,
    prompt: (question) => (asked.push(question), Promise.resolve(undefined)),
    onNote: (message) => void notes.push(message),
    notes,
    asked,
    ...extra,
  };
}

const encrypted = () => encryptPrivateKeyPem(key, PASS, { iterations: 100_000 });

Deno.test("key spec: an encrypted key opens with the passphrase file, no note", async () => {
  const s = sources({ "k.pem": await encrypted(), "pass": PASS + "\n" }, {
    passphraseFile: "pass",
  });
  const got = await loadPrivateKeyWithPassphrase("k.pem", s);
  assert.equal(got.publicKey.fingerprint, key.publicKey.fingerprint);
  assert.deepEqual(s.notes, []);
});

Deno.test("key spec: a passphrase file for a key that needs none is noted", async () => {
  const s = sources({ "pub.pem": key.publicKey.pem, "k.pem": privateKeyToPem(key) }, {
    passphraseFile: "pass",
    keySource: "named.pem",
  });
  const pub = await loadPublicKeyWithPassphrase("pub.pem", s);
  assert.equal(pub.fingerprint, key.publicKey.fingerprint);
  const signer = await loadSignerWithPassphrase("k.pem", s);
  assert.equal(signer.publicKey.fingerprint, key.publicKey.fingerprint);
  assert.deepEqual(s.notes, [
    "named.pem is a public key; --passphrase-file is not used",
    "named.pem is not encrypted; --passphrase-file is not used",
  ]);
});

Deno.test("key spec: an encrypted key with nobody to ask is a usage mistake", async () => {
  const s = sources({ "k.pem": await encrypted() });
  await assert.rejects(
    loadPublicKeyWithPassphrase("k.pem", s),
    (e: unknown) =>
      e instanceof SchemaPinError && e.details.usage === true &&
      e.message.startsWith("k.pem needs a passphrase") && e.message.includes(PASSPHRASE_ENV),
  );
  assert.deepEqual(s.asked, ["Passphrase for k.pem: "]);
});

Deno.test("key spec: a wrong passphrase is KEY_INVALID, not a usage mistake", async () => {
  const s = sources({ "k.pem": await encrypted() }, { getEnv: () => "n0t-it" });
  await assert.rejects(
    loadPrivateKeyWithPassphrase("k.pem", s),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "KEY_INVALID" && e.details.usage !== true &&
      !e.message.includes("n0t-it"),
  );
});

Deno.test("key spec: a passphrase file does not go with an agent key", async () => {
  const s = sources({}, { passphraseFile: "pass" });
  await assert.rejects(
    loadSignerWithPassphrase("ssh-agent:k.pub", { ...s, label: "--key ssh-agent:k.pub" }),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" && e.details.usage === true &&
      e.details.key === "ssh-agent:k.pub" &&
      e.message.startsWith("--passphrase-file does not go with --key ssh-agent:k.pub: "),
  );
});

Deno.test("key spec: every failure of an agent key starts with its label", async () => {
  const s = sources({});
  await assert.rejects(
    loadSignerWithPassphrase("ssh-agent:missing.pub", { ...s, label: "--key X" }),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "IO_FAILED" &&
      e.message === "--key X: cannot read missing.pub" &&
      e.details.key === "ssh-agent:missing.pub" &&
      e.details.path === "missing.pub",
  );
  await assert.rejects(
    loadSignerWithPassphrase("ssh-agent:missing.pub", s),
    (e: unknown) =>
      e instanceof SchemaPinError && e.message === "ssh-agent:missing.pub: cannot read missing.pub",
  );
});

Deno.test("key spec: misuse names the function and the argument", async () => {
  await assert.rejects(
    loadPrivateKeyWithPassphrase(42 as unknown as string, sources({})),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
      e.message.startsWith("loadPrivateKeyWithPassphrase: path must be a string"),
  );
  await assert.rejects(
    loadSignerWithPassphrase("k.pem", {} as KeySpecOptions),
    (e: unknown) =>
      e instanceof SchemaPinError &&
      e.message.startsWith(
        "loadSignerWithPassphrase: options must be KeySpecOptions (with prompt())",
      ),
  );
});

Deno.test("readEnvironment: set, empty and unset variables", () => {
  Deno.env.set("SCHEMAPIN_TEST_READ_ENV", "");
  try {
    assert.equal(readEnvironment("SCHEMAPIN_TEST_READ_ENV"), "");
  } finally {
    Deno.env.delete("SCHEMAPIN_TEST_READ_ENV");
  }
  assert.equal(readEnvironment("SCHEMAPIN_TEST_READ_ENV"), undefined);
});
