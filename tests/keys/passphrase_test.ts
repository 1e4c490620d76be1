// The order of a passphrase's sources in the library (cli/keys/passphrase.ts): the file, then
// SCHEMAPIN_PASSPHRASE, then the caller's prompt; its usage mistakes carry details.usage.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { lookUpPassphrase, PASSPHRASE_ENV } from "../../cli/keys/passphrase.ts";

const bytes = (text: string) => () => Promise.resolve(new TextEncoder().encode(text));
const env = (value?: string) => (name: string) => name === PASSPHRASE_ENV ? value : undefined;
const answers = (...list: (string | undefined)[]) => {
  const asked: string[] = [];
  return { asked, prompt: (q: string) => (asked.push(q), Promise.resolve(list.shift())) };
};
const isUsage = (message: RegExp) => (e: unknown) =>
  e instanceof SchemaPinError && e.code === "INPUT_INVALID" && e.details.usage === true &&
  message.test(e.message);

Deno.test("passphrase: the file wins over the variable, with a note", async () => {
  const notes: string[] = [];
  const { prompt, asked } = answers("typed");
  const got = await lookUpPassphrase("k.pem", {
    passphraseFile: "p.txt",
    read: bytes("from-file\r\nsecond"),
    getEnv: env("from-env"),
    prompt,
    onNote: (m) => void notes.push(m),
  });
  assert.equal(got, "from-file");
  assert.deepEqual(notes, [`--passphrase-file is used; ${PASSPHRASE_ENV} is ignored`]);
  assert.deepEqual(asked, []);
});

Deno.test("passphrase: the variable wins over the prompt", async () => {
  const { prompt, asked } = answers("typed");
  assert.equal(await lookUpPassphrase("k.pem", { getEnv: env("from-env"), prompt }), "from-env");
  assert.deepEqual(asked, []);
});

Deno.test("passphrase: the prompt, once or twice (confirm)", async () => {
  const once = answers("typed");
  assert.equal(await lookUpPassphrase("k.pem", { getEnv: env(), prompt: once.prompt }), "typed");
  assert.deepEqual(once.asked, ["Passphrase for k.pem: "]);
  const twice = answers("new", "new");
  assert.equal(
    await lookUpPassphrase("the new key", { getEnv: env(), prompt: twice.prompt }, true),
    "new",
  );
  assert.deepEqual(twice.asked, ["New passphrase for the new key: ", "Repeat the passphrase: "]);
});

Deno.test("passphrase: an unreadable environment is no note, the file is read", async () => {
  const got = await lookUpPassphrase("k.pem", {
    passphraseFile: "p.txt",
    read: bytes("pw\n"),
    getEnv: () => {
      throw new Error("no permission");
    },
    prompt: () => Promise.resolve(undefined),
  });
  assert.equal(got, "pw");
});

Deno.test("passphrase: an empty variable is a usage mistake", async () => {
  await assert.rejects(
    lookUpPassphrase("k.pem", { getEnv: env(""), prompt: answers("x").prompt }),
    isUsage(/^SCHEMAPIN_PASSPHRASE is set but empty; set it to the passphrase or unset it$/),
  );
});

Deno.test("passphrase: nobody to ask names the sources and the other way out", async () => {
  await assert.rejects(
    lookUpPassphrase("k.pem", {
      getEnv: env(),
      prompt: answers(undefined).prompt,
      otherwise: "or give --unencrypted",
    }),
    isUsage(
      /^k\.pem needs a passphrase: give --passphrase-file FILE or set SCHEMAPIN_PASSPHRASE \(there is no terminal to ask on\); or give --unencrypted$/,
    ),
  );
});

Deno.test("passphrase: an empty, cancelled or mismatched answer is a usage mistake", async () => {
  const lookup = (...list: (string | undefined)[]) => ({ getEnv: env(), ...answers(...list) });
  await assert.rejects(lookUpPassphrase("k", lookup("")), isUsage(/^the passphrase is empty$/));
  await assert.rejects(
    lookUpPassphrase("k", lookup("a", undefined), true),
    isUsage(/^passphrase entry cancelled$/),
  );
  await assert.rejects(
    lookUpPassphrase("k", lookup("a", "b"), true),
    isUsage(/^the two passphrases differ; nothing was written$/),
  );
});

Deno.test("passphrase: an empty file is the file's error, not a usage mistake", async () => {
  await assert.rejects(
    lookUpPassphrase("k", {
      passphraseFile: "p.txt",
      read: bytes("\nrest"),
      getEnv: env(),
      prompt: answers("x").prompt,
    }),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" && e.details.usage !== true &&
      /passphrase file p\.txt is empty/.test(e.message),
  );
});

Deno.test("passphrase: what the prompt throws goes through unchanged", async () => {
  const cancelled = new Error("cancelled by the user");
  await assert.rejects(
    lookUpPassphrase("k", { getEnv: env(), prompt: () => Promise.reject(cancelled) }),
    (e: unknown) => e === cancelled,
  );
});
