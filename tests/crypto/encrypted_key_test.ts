// Encrypted PKCS #8 keys (§9 "Private Key Storage"): our files read by the real `openssl`,
// OpenSSL's files read by us, and every way a file can be wrong.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  derElement,
  derInteger,
  derNull,
  derOctetString,
  derOid,
  derSequence,
} from "../../lib/crypto/der.ts";
import {
  decryptPrivateKeyPem,
  DEFAULT_PBKDF2_ITERATIONS,
  encryptedPrivateKeyParameters,
  encryptPrivateKeyPem,
  isEncryptedPrivateKeyPem,
  MAX_PBKDF2_ITERATIONS,
} from "../../lib/crypto/encrypted_key.ts";
import {
  generateKeyPair,
  parsePrivateKeyPem,
  parsePublicKeyPem,
  type PrivateKey,
  privateKeyToPem,
  privateKeyToPkcs8Der,
} from "../../lib/crypto/keys.ts";
import { formatPem, parsePem } from "../../lib/crypto/pem.ts";
import { makeKeys, openssl } from "./openssl_keys.ts";

const keys = await makeKeys();
const enc = new TextEncoder();
const dec = new TextDecoder();
const PASS = "correct horse battery staple";

/** The P-256 key every OpenSSL-encrypted file below holds. */
const plainKey = parsePrivateKeyPem(keys.text("p256"));

async function tempFile(name: string, text: string): Promise<string> {
  const path = `${keys.dir}/${name}`;
  await Deno.writeTextFile(path, text);
  return path;
}

/** `openssl pkcs8 -topk8 …` of the test key, encrypted with `pass`. */
async function opensslEncrypt(args: string[], pass = PASS): Promise<string> {
  const out = await openssl([
    "pkcs8",
    "-topk8",
    "-in",
    keys.path("p256"),
    "-passout",
    `pass:${pass}`,
    ...args,
  ]);
  return dec.decode(out);
}

async function rejectsKeyInvalid(
  promise: Promise<unknown>,
  pattern: RegExp,
  details: Record<string, unknown> = {},
): Promise<SchemaPinError> {
  let caught: unknown;
  try {
    await promise;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof SchemaPinError, `expected SchemaPinError, got ${caught}`);
  assert.equal(caught.code, "KEY_INVALID");
  assert.match(caught.message, pattern);
  for (const [k, v] of Object.entries(details)) {
    assert.deepEqual(caught.details[k], v, `details.${k}`);
  }
  return caught;
}

function rejectsSync(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof SchemaPinError);
    assert.equal(e.code, "KEY_INVALID");
    assert.match(e.message, pattern);
    return true;
  });
}

// ------------------------------------------------------------ a hand-built encrypted file

const OIDS = {
  pbes2: "1.2.840.113549.1.5.13",
  pbkdf2: "1.2.840.113549.1.5.12",
  sha1: "1.2.840.113549.2.7",
  sha256: "1.2.840.113549.2.9",
  aes256cbc: "2.16.840.1.101.3.4.1.42",
  aes256gcm: "2.16.840.1.101.3.4.1.46",
};

interface BuildOptions {
  pass?: string;
  salt?: Uint8Array;
  iterations?: bigint;
  keyLength?: bigint;
  /** Encoded prf AlgorithmIdentifier, or null to leave it out (the SHA-1 default). */
  prf?: Uint8Array | null;
  /** The hash PBKDF2 really uses (default: SHA-1 when prf is null, else SHA-256). */
  hash?: "SHA-1" | "SHA-256";
  cipher?: "cbc" | "gcm";
  cipherOid?: string;
  /** The IV/nonce written in the parameters (encryption uses a valid one). */
  ivField?: Uint8Array;
  /** Encode aes-ICVlen explicitly (GCM). */
  gcmTagField?: bigint;
  /** The plaintext to encrypt (default: the PKCS #8 of `key`). */
  plaintext?: Uint8Array;
  /** Replace the encrypted data. */
  ciphertext?: (c: Uint8Array) => Uint8Array;
  /** Replace the whole PBKDF2-params. */
  pbkdf2Params?: Uint8Array;
  /** Bytes appended after the outer SEQUENCE's content (still inside it). */
  trailing?: Uint8Array;
}

/**
 * Builds an EncryptedPrivateKeyInfo independently of lib/crypto/encrypted_key.ts (only the DER
 * writers are shared), really encrypting with WebCrypto, with any field chosen.
 */
async function build(key: PrivateKey, o: BuildOptions = {}): Promise<string> {
  const salt = new Uint8Array(o.salt ?? crypto.getRandomValues(new Uint8Array(16)));
  const iterations = o.iterations ?? 1000n;
  const hash = o.hash ?? (o.prf === null ? "SHA-1" : "SHA-256");
  const prf = o.prf === undefined ? derSequence(derOid(OIDS.sha256), derNull()) : o.prf;
  const mode = o.cipher ?? "cbc";
  const iv = crypto.getRandomValues(new Uint8Array(mode === "cbc" ? 16 : 12));
  const base = await crypto.subtle.importKey(
    "raw",
    enc.encode(o.pass ?? PASS),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", salt, iterations: Number(iterations), hash },
    base,
    256,
  );
  const name = mode === "cbc" ? "AES-CBC" : "AES-GCM";
  const aes = await crypto.subtle.importKey("raw", bits, name, false, ["encrypt"]);
  const plaintext = new Uint8Array(o.plaintext ?? privateKeyToPkcs8Der(key));
  const params = mode === "cbc" ? { name, iv } : { name, iv, tagLength: 128 };
  let ciphertext: Uint8Array = new Uint8Array(await crypto.subtle.encrypt(params, aes, plaintext));
  if (o.ciphertext) ciphertext = o.ciphertext(ciphertext);
  const pbkdf2Params = o.pbkdf2Params ?? derSequence(
    derOctetString(salt),
    derInteger(iterations),
    ...(o.keyLength === undefined ? [] : [derInteger(o.keyLength)]),
    ...(prf === null ? [] : [prf]),
  );
  const ivField = o.ivField ?? iv;
  const cipherParams = mode === "cbc" ? derOctetString(ivField) : derSequence(
    derOctetString(ivField),
    ...(o.gcmTagField === undefined ? [] : [derInteger(o.gcmTagField)]),
  );
  const cipherOid = o.cipherOid ?? (mode === "cbc" ? OIDS.aes256cbc : OIDS.aes256gcm);
  const content = [
    derSequence(
      derOid(OIDS.pbes2),
      derSequence(
        derSequence(derOid(OIDS.pbkdf2), pbkdf2Params),
        derSequence(derOid(cipherOid), cipherParams),
      ),
    ),
    derOctetString(ciphertext),
    ...(o.trailing ? [o.trailing] : []),
  ];
  return formatPem("ENCRYPTED PRIVATE KEY", derSequence(...content));
}

// ---------------------------------------------------------------- what we write

Deno.test("we write PBES2 / PBKDF2-HMAC-SHA256 (600,000 iterations, 16-byte salt) / AES-256-CBC", async () => {
  const key = generateKeyPair();
  const pem = await encryptPrivateKeyPem(key, PASS);
  assert.match(pem, /^-----BEGIN ENCRYPTED PRIVATE KEY-----\n/);
  assert.deepEqual(encryptedPrivateKeyParameters(pem), {
    kdf: "PBKDF2",
    prf: "SHA-256",
    iterations: 600_000,
    saltLength: 16,
    cipher: "AES-256-CBC",
  });
  assert.equal(DEFAULT_PBKDF2_ITERATIONS, 600_000);
  // OpenSSL's own reading of the structure agrees.
  const parsed = dec.decode(await openssl(["asn1parse"], enc.encode(pem)));
  for (const want of [":PBES2", ":PBKDF2", ":hmacWithSHA256", ":aes-256-cbc", ":0927C0"]) {
    assert.ok(parsed.includes(want), `asn1parse output lacks ${want}:\n${parsed}`);
  }
  const back = await decryptPrivateKeyPem(pem, PASS, "ours.pem");
  assert.equal(back.publicKey.fingerprint, key.publicKey.fingerprint);
  assert.deepEqual(back.scalar, key.scalar);
});

Deno.test("`openssl pkey -passin` reads our encrypted key, and refuses a wrong passphrase", async () => {
  const key = generateKeyPair();
  const path = await tempFile("ours_for_openssl.pem", await encryptPrivateKeyPem(key, PASS));
  const pub = dec.decode(
    await openssl(["pkey", "-in", path, "-passin", `pass:${PASS}`, "-pubout"]),
  );
  assert.equal(parsePublicKeyPem(pub).fingerprint, key.publicKey.fingerprint);
  const plain = dec.decode(await openssl(["pkey", "-in", path, "-passin", `pass:${PASS}`]));
  assert.equal(plain, privateKeyToPem(key), "OpenSSL decrypts the exact PKCS #8 we wrote");
  await assert.rejects(
    openssl(["pkey", "-in", path, "-passin", "pass:not the passphrase", "-noout"]),
    /failed/,
  );
});

Deno.test("salt and IV are fresh for every encryption", async () => {
  const key = generateKeyPair();
  const a = parsePem(await encryptPrivateKeyPem(key, PASS, { iterations: 1000 })).der;
  const b = parsePem(await encryptPrivateKeyPem(key, PASS, { iterations: 1000 })).der;
  assert.equal(a.length, b.length);
  assert.notDeepEqual(a, b);
});

Deno.test("non-ASCII passphrases are their UTF-8 bytes, as OpenSSL uses them", async () => {
  const pass = "pässwörd 🔑 ключ";
  const pem = await opensslEncrypt(["-v2", "aes-256-cbc", "-iter", "1000"], pass);
  const key = await decryptPrivateKeyPem(pem, pass);
  assert.equal(key.publicKey.fingerprint, plainKey.publicKey.fingerprint);
  const viaBytes = await decryptPrivateKeyPem(pem, enc.encode(pass));
  assert.equal(viaBytes.publicKey.fingerprint, plainKey.publicKey.fingerprint);
  // NFD spelling of the same text is other bytes: no normalisation, so it does not open.
  await rejectsKeyInvalid(
    decryptPrivateKeyPem(pem, pass.normalize("NFD")),
    /wrong passphrase or corrupted key/,
  );
});

// ---------------------------------------------------------------- what OpenSSL writes

const OPENSSL_VARIANTS: { name: string; args: string[]; prf: string; cipher: string }[] = [
  { name: "pkcs8 -topk8 default", args: [], prf: "SHA-256", cipher: "AES-256-CBC" },
  {
    name: "-v2 aes-128-cbc",
    args: ["-v2", "aes-128-cbc"],
    prf: "SHA-256",
    cipher: "AES-128-CBC",
  },
  {
    name: "-v2 aes-192-cbc -v2prf hmacWithSHA512",
    args: ["-v2", "aes-192-cbc", "-v2prf", "hmacWithSHA512"],
    prf: "SHA-512",
    cipher: "AES-192-CBC",
  },
  {
    name: "-v2prf hmacWithSHA1 (prf left out: the RFC 8018 default)",
    args: ["-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA1"],
    prf: "SHA-1",
    cipher: "AES-256-CBC",
  },
  {
    name: "-v2prf hmacWithSHA384 -iter 100000",
    args: ["-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA384", "-iter", "100000"],
    prf: "SHA-384",
    cipher: "AES-256-CBC",
  },
];

for (const v of OPENSSL_VARIANTS) {
  Deno.test(`we read OpenSSL's encrypted PKCS #8: ${v.name}`, async () => {
    const pem = await opensslEncrypt(v.args);
    const params = encryptedPrivateKeyParameters(pem);
    assert.equal(params.prf, v.prf);
    assert.equal(params.cipher, v.cipher);
    const key = await decryptPrivateKeyPem(pem, PASS, "openssl.pem");
    assert.equal(key.publicKey.fingerprint, plainKey.publicKey.fingerprint);
  });
}

Deno.test("we read `openssl pkey -aes256` output (8-byte salt, 2048 iterations)", async () => {
  const pem = keys.text("p256_enc"); // made with -passout pass:x
  const params = encryptedPrivateKeyParameters(pem);
  assert.equal(params.iterations, 2048);
  assert.equal(params.saltLength, 8);
  const key = await decryptPrivateKeyPem(pem, "x");
  assert.equal(key.publicKey.fingerprint, plainKey.publicKey.fingerprint);
});

Deno.test("AES-256-GCM (RFC 5084 parameters, 16-byte tag) is read; other tag sizes are not", async () => {
  // OpenSSL 3 refuses AEAD ciphers in PKCS #8 ("AEAD ciphers not supported"), so these
  // files are built by the independent builder above.
  const key = generateKeyPair();
  const tag16 = await build(key, { cipher: "gcm", gcmTagField: 16n });
  assert.equal(encryptedPrivateKeyParameters(tag16).cipher, "AES-256-GCM");
  const b = await decryptPrivateKeyPem(tag16, PASS);
  assert.equal(b.publicKey.fingerprint, key.publicKey.fingerprint);
  // aes-ICVlen left out means its DEFAULT, 12 bytes: named, not mis-decrypted.
  const defaultTag = await build(key, { cipher: "gcm" });
  await rejectsKeyInvalid(
    decryptPrivateKeyPem(defaultTag, PASS),
    /AES-256-GCM tag length is 12 bytes; only 16 is supported/,
  );
});

Deno.test("an explicitly encoded hmacWithSHA1 (the DEFAULT) and an absent NULL are tolerated", async () => {
  const key = generateKeyPair();
  const sha1 = await build(key, { prf: derSequence(derOid(OIDS.sha1), derNull()), hash: "SHA-1" });
  assert.equal(encryptedPrivateKeyParameters(sha1).prf, "SHA-1");
  assert.equal(
    (await decryptPrivateKeyPem(sha1, PASS)).publicKey.fingerprint,
    key.publicKey.fingerprint,
  );
  // Declaring SHA-1 while the key was derived with SHA-256 does not open: the PRF is used.
  const mismatch = await build(key, { prf: derSequence(derOid(OIDS.sha1), derNull()) });
  await rejectsKeyInvalid(decryptPrivateKeyPem(mismatch, PASS), /wrong passphrase/);
  const noNull = await build(key, { prf: derSequence(derOid(OIDS.sha256)) });
  assert.equal(
    (await decryptPrivateKeyPem(noNull, PASS)).publicKey.fingerprint,
    key.publicKey.fingerprint,
  );
  const implicit = await build(key, { prf: null });
  assert.equal(encryptedPrivateKeyParameters(implicit).prf, "SHA-1");
  assert.equal(
    (await decryptPrivateKeyPem(implicit, PASS)).publicKey.fingerprint,
    key.publicKey.fingerprint,
  );
});

// ---------------------------------------------------------------- wrong passphrase, corruption

Deno.test("a wrong passphrase is KEY_INVALID 'wrong passphrase or corrupted key' (ours and OpenSSL's)", async () => {
  const ours = await encryptPrivateKeyPem(generateKeyPair(), PASS, { iterations: 1000 });
  await rejectsKeyInvalid(
    decryptPrivateKeyPem(ours, PASS + "!", "ours.pem"),
    /^encrypted private key in ours\.pem: wrong passphrase or corrupted key$/,
    { source: "ours.pem", encrypted: true },
  );
  await rejectsKeyInvalid(decryptPrivateKeyPem(ours, ""), /wrong passphrase or corrupted key/);
  await rejectsKeyInvalid(
    decryptPrivateKeyPem(keys.text("p256_enc"), "y"),
    /wrong passphrase or corrupted key/,
  );
});

Deno.test("bad padding, a bad GCM tag and a well-padded non-key all give the same message", async () => {
  const key = generateKeyPair();
  const flipLast = (c: Uint8Array) => {
    const d = new Uint8Array(c);
    d[d.length - 1] ^= 1;
    return d;
  };
  const badPadding = await build(key, { ciphertext: flipLast });
  const badTag = await build(key, { cipher: "gcm", gcmTagField: 16n, ciphertext: flipLast });
  // Correct passphrase and padding, but the plaintext is not a DER SEQUENCE.
  const garbage = await build(key, { plaintext: crypto.getRandomValues(new Uint8Array(48)) });
  const wrongPass = await build(key, { pass: "other" });
  const errors: SchemaPinError[] = [];
  for (const pem of [badPadding, badTag, garbage, wrongPass]) {
    errors.push(await rejectsKeyInvalid(decryptPrivateKeyPem(pem, PASS, "k.pem"), /./));
  }
  for (const e of errors) {
    assert.equal(e.message, "encrypted private key in k.pem: wrong passphrase or corrupted key");
    assert.deepEqual(e.details, { source: "k.pem", encrypted: true });
  }
});

Deno.test("a correctly decrypted key that is not P-256 is refused for what it is", async () => {
  const ed = dec.decode(
    await openssl([
      "pkcs8",
      "-topk8",
      "-in",
      keys.path("ed25519"),
      "-passout",
      `pass:${PASS}`,
      "-iter",
      "1000",
    ]),
  );
  await rejectsKeyInvalid(decryptPrivateKeyPem(ed, PASS, "ed.pem"), /Ed25519 private key/, {
    keyType: "Ed25519",
  });
});

// ---------------------------------------------------------------- unsupported algorithms

const UNSUPPORTED: { name: string; args: string[]; message: RegExp }[] = [
  { name: "scrypt", args: ["-scrypt"], message: /key derivation function scrypt/ },
  {
    name: "PKCS #12 3DES",
    args: ["-v1", "PBE-SHA1-3DES"],
    message: /encryption scheme PKCS #12 pbeWithSHAAnd3-KeyTripleDES-CBC/,
  },
  { name: "-v2 des3", args: ["-v2", "des3"], message: /cipher DES-EDE3-CBC/ },
  {
    name: "-v2 camellia-256-cbc",
    args: ["-v2", "camellia-256-cbc"],
    message: /cipher CAMELLIA-256-CBC/,
  },
  {
    name: "-v2prf hmacWithSHA224",
    args: ["-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA224"],
    message: /PBKDF2 PRF HMAC-SHA224/,
  },
];

for (const u of UNSUPPORTED) {
  Deno.test(`unsupported encryption is named before any passphrase is used: ${u.name}`, async () => {
    const pem = await opensslEncrypt(u.args);
    rejectsSync(() => encryptedPrivateKeyParameters(pem, "u.pem"), u.message);
    const e = await rejectsKeyInvalid(decryptPrivateKeyPem(pem, PASS, "u.pem"), u.message);
    assert.match(e.message, /is not supported.*openssl pkcs8 -topk8 -v2 aes-256-cbc/);
  });
}

Deno.test("an unknown cipher OID is named by its number", async () => {
  const pem = await build(generateKeyPair(), { cipherOid: "1.2.3.4.5" });
  await rejectsKeyInvalid(decryptPrivateKeyPem(pem, PASS), /unknown cipher 1\.2\.3\.4\.5/);
});

// ---------------------------------------------------------------- malformed parameters

Deno.test("iteration counts: 0 and more than the cap are refused without running PBKDF2", async () => {
  const key = generateKeyPair();
  const pbkdf2 = (iterations: bigint) =>
    derSequence(
      derOctetString(new Uint8Array(16)),
      derInteger(iterations),
      derSequence(derOid(OIDS.sha256), derNull()),
    );
  const zero = await build(key, { pbkdf2Params: pbkdf2(0n) });
  rejectsSync(() => encryptedPrivateKeyParameters(zero), /iteration count is 0/);
  const huge = await build(key, { pbkdf2Params: pbkdf2(BigInt(MAX_PBKDF2_ITERATIONS) + 1n) });
  const started = performance.now();
  await rejectsKeyInvalid(decryptPrivateKeyPem(huge, PASS), /more than the 10000000/);
  assert.ok(performance.now() - started < 1000, "refused before deriving");
  const absurd = await build(key, { pbkdf2Params: pbkdf2(2n ** 70n) });
  rejectsSync(() => encryptedPrivateKeyParameters(absurd), /iteration count \d+ is more than/);
});

Deno.test("salt, IV, key length, GCM nonce and tag sizes are checked", async () => {
  const key = generateKeyPair();
  const cases: [BuildOptions, RegExp][] = [
    [{ salt: new Uint8Array(4) }, /PBKDF2 salt is 4 bytes; 8 to 1024/],
    [{ ivField: new Uint8Array(8) }, /AES-256-CBC IV is 8 bytes, not 16/],
    [{ keyLength: 16n }, /key length 16 does not match AES-256-CBC \(32 bytes\)/],
    [
      { cipher: "gcm", ivField: new Uint8Array(16), gcmTagField: 16n },
      /AES-256-GCM nonce is 16 bytes, not 12/,
    ],
    [{ cipher: "gcm", gcmTagField: 8n }, /AES-256-GCM tag length is 8 bytes; only 16/],
    [
      { prf: derSequence(derOid(OIDS.sha256), derOctetString(new Uint8Array(1))) },
      /expected NULL for PBKDF2 prf parameters/,
    ],
    [
      {
        pbkdf2Params: derSequence(
          derSequence(derOid("1.2.3")),
          derInteger(1000n),
        ),
      },
      /otherSource\) is not supported/,
    ],
    [{ ciphertext: (c) => c.subarray(0, c.length - 1) }, /not a positive multiple of the AES/],
    [{ ciphertext: () => new Uint8Array() }, /encrypted data is 0 bytes/],
    [{ trailing: derNull() }, /trailing bytes after EncryptedPrivateKeyInfo/],
  ];
  for (const [options, pattern] of cases) {
    const pem = await build(key, options);
    rejectsSync(() => encryptedPrivateKeyParameters(pem, "bad.pem"), pattern);
    await rejectsKeyInvalid(decryptPrivateKeyPem(pem, PASS, "bad.pem"), pattern, {
      source: "bad.pem",
    });
  }
});

Deno.test("BER, truncation and trailing garbage in the DER are refused with a byte offset", async () => {
  const der = parsePem(await build(generateKeyPair())).der;
  assert.deepEqual([der[0], der[1]], [0x30, 0x81], "outer SEQUENCE with a one-byte long length");
  // Re-encode the AlgorithmIdentifier (at byte 3, short length) with a long-form length.
  const alg = der.subarray(3);
  assert.ok(alg[0] === 0x30 && alg[1] < 0x80);
  const ber = derElement(0x30, new Uint8Array([0x30, 0x81, alg[1], ...alg.subarray(2)]));
  rejectsSync(
    () => encryptedPrivateKeyParameters(formatPem("ENCRYPTED PRIVATE KEY", ber)),
    /non-minimal length encoding at byte 4/,
  );
  const cut = der.subarray(0, der.length - 5);
  rejectsSync(
    () => encryptedPrivateKeyParameters(formatPem("ENCRYPTED PRIVATE KEY", cut)),
    /truncated DER/,
  );
  const extra = new Uint8Array([...der, 0]);
  rejectsSync(
    () => encryptedPrivateKeyParameters(formatPem("ENCRYPTED PRIVATE KEY", extra)),
    /trailing bytes after EncryptedPrivateKeyInfo/,
  );
});

Deno.test("a PEM that is not ENCRYPTED PRIVATE KEY is refused by the decrypter", async () => {
  await rejectsKeyInvalid(
    decryptPrivateKeyPem(keys.text("p256"), PASS, "plain.pem"),
    /PEM label "PRIVATE KEY" is not "ENCRYPTED PRIVATE KEY"/,
  );
  await rejectsKeyInvalid(decryptPrivateKeyPem("hello", PASS), /not a PEM block/);
});

Deno.test("parsePrivateKeyPem says an encrypted key needs its passphrase", () => {
  assert.throws(
    () => parsePrivateKeyPem(keys.text("p256_enc"), "enc.pem"),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "KEY_INVALID" && e.details.encrypted === true &&
      /needs its passphrase/.test(e.message),
  );
});

Deno.test("isEncryptedPrivateKeyPem is true only for one ENCRYPTED PRIVATE KEY block", () => {
  assert.equal(isEncryptedPrivateKeyPem(keys.text("p256_enc")), true);
  assert.equal(isEncryptedPrivateKeyPem(keys.text("p256")), false);
  assert.equal(isEncryptedPrivateKeyPem(keys.text("p256_pub")), false);
  assert.equal(isEncryptedPrivateKeyPem(keys.text("p256_legacy_enc")), false);
  assert.equal(isEncryptedPrivateKeyPem("not pem"), false);
  assert.equal(isEncryptedPrivateKeyPem(keys.text("p256_enc") + keys.text("p256_enc")), false);
});

Deno.test("encrypting refuses an empty passphrase and out-of-range iteration counts", async () => {
  const key = generateKeyPair();
  for (
    const [pass, options, pattern] of [
      ["", {}, /passphrase is empty/],
      [new Uint8Array(), {}, /passphrase is empty/],
      [PASS, { iterations: 999 }, /iterations must be an integer from 1000/],
      [PASS, { iterations: 1000.5 }, /iterations must be an integer/],
      [PASS, { iterations: MAX_PBKDF2_ITERATIONS + 1 }, /iterations must be an integer/],
    ] as const
  ) {
    await assert.rejects(
      encryptPrivateKeyPem(key, pass, options),
      (e: unknown) =>
        e instanceof SchemaPinError && e.code === "INPUT_INVALID" && pattern.test(e.message),
    );
  }
});
