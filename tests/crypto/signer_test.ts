// Signers (lib/crypto/signer.ts) and the …WithSigner signing entry points: with an in-memory
// key they produce exactly the bytes of the synchronous functions (RFC 6979 is
// deterministic), so the async path adds nothing but the signer; what a signer returns is
// checked — malformed, another key's, high-S — before it is used.
import assert from "node:assert/strict";
import { p256 } from "@noble/curves/nist.js";
import { decodeBase64Strict } from "../../lib/crypto/base64.ts";
import { decodeEcdsaDer, encodeEcdsaDer } from "../../lib/crypto/der.ts";
import {
  signDigest,
  signDocument,
  signSchema,
  verifyDocumentSignature,
  verifySchemaSignature,
} from "../../lib/crypto/ecdsa.ts";
import { sha256 } from "../../lib/crypto/hash.ts";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import {
  privateKeySigner,
  signDocumentWithSigner,
  type Signer,
  signSchemaWithSigner,
} from "../../lib/crypto/signer.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  signSchemaBase64,
  signSchemaBase64WithSigner,
  signSchemaDocument,
  signSchemaDocumentWithSigner,
} from "../../lib/schema/document.ts";
import { signSkillDocument, signSkillDocumentWithSigner } from "../../lib/skill/document.ts";
import { hashSkillFiles } from "../../lib/skill/hash.ts";
import { signSkillDir, signSkillDirWithSigner } from "../../lib/skill/sign.ts";
import { createTrustBundle } from "../../lib/bundle/bundle.ts";
import { signTrustBundle, signTrustBundleWithSigner } from "../../lib/bundle/sign.ts";
import { signLock, signLockWithSigner } from "../../cli/contractpin/lock_signature.ts";
import { buildLock, lockServerEntry, serializeLock } from "../../lib/contractpin/lock.ts";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import { signToolList, signToolListWithSigner } from "../../lib/guard/signatures.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import { withTempDir } from "../cli/run.ts";

const N = p256.Point.Fn.ORDER;
const enc = (s: string) => new TextEncoder().encode(s);
const KEY = generateKeyPair();
const SIGNER = privateKeySigner(KEY);
const canonical = enc('{"name":"calculate_sum"}');
const AT = Date.UTC(2026, 4, 1);

Deno.test("privateKeySigner: signMessage is ECDSA over SHA-256(message)", async () => {
  assert.equal(SIGNER.publicKey, KEY.publicKey);
  const der = await SIGNER.signMessage(canonical);
  assert.deepEqual([...der], [...signDigest(sha256(canonical), KEY)]);
});

Deno.test("…WithSigner over an in-memory key: the very bytes of the synchronous functions", async () => {
  assert.equal(await signSchemaWithSigner(canonical, SIGNER), signSchema(canonical, KEY));
  assert.equal(await signDocumentWithSigner(canonical, SIGNER), signDocument(canonical, KEY));
  const schema = { name: "add", b: 1, a: 2 };
  assert.equal(await signSchemaBase64WithSigner(schema, SIGNER), signSchemaBase64(schema, KEY));
  const docOptions = { signedAt: AT, domain: "example.com", schemaVersion: "2.0.0" };
  assert.deepEqual(
    await signSchemaDocumentWithSigner(schema, SIGNER, docOptions),
    signSchemaDocument(schema, KEY, docOptions),
  );
  const hash = hashSkillFiles([{ path: "SKILL.md", content: enc("# s") }]);
  const skillOptions = { skillName: "s", domain: "example.com", signedAt: AT };
  assert.deepEqual(
    await signSkillDocumentWithSigner(hash, SIGNER, skillOptions),
    signSkillDocument(hash, KEY, skillOptions),
  );
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/SKILL.md`, "---\nname: pdf\n---\n");
    const options = { domain: "example.com", signedAt: AT };
    assert.deepEqual(
      await signSkillDirWithSigner(dir, SIGNER, options),
      await signSkillDir(dir, KEY, options),
    );
  });
  const bundle = createTrustBundle("2026-01-01T00:00:00Z");
  assert.deepEqual(
    await signTrustBundleWithSigner(bundle, SIGNER, "k", AT, AT + 1000),
    signTrustBundle(bundle, KEY, "k", AT, AT + 1000),
  );
  const tools = [{ name: "echo", description: "Echo", inputSchema: { type: "object" } }];
  const lock = JSON.parse(serializeLock(buildLock({
    srv: lockServerEntry(
      { transport: "stdio", command: ["node", "s.js"] },
      digestToolList(tools as JsonValue[]),
      [],
    ),
  }, new Date(AT))));
  const lockOptions = { signedAt: AT, domain: "example.com", signerKid: "k1" };
  assert.deepEqual(
    await signLockWithSigner(lock, SIGNER, lockOptions),
    signLock(lock, KEY, lockOptions),
  );
  const listOptions = { domain: "example.com", signedAt: AT, schemaVersion: "1" };
  assert.deepEqual(
    await signToolListWithSigner(tools, SIGNER, listOptions),
    signToolList(tools, KEY, listOptions),
  );
});

/** A signer that returns what `make` makes of the in-memory signature. */
function twisted(make: (der: Uint8Array, message: Uint8Array) => unknown): Signer {
  return {
    publicKey: KEY.publicKey,
    description: "the test signer",
    signMessage: (message) =>
      Promise.resolve(make(signDigest(sha256(message), KEY), message) as Uint8Array),
  };
}

Deno.test("a high-S signature from a signer is normalised to low-S (s → n − s) and verifies", async () => {
  const highS = twisted((der) => {
    const { r, s } = decodeEcdsaDer(der);
    return encodeEcdsaDer({ r, s: N - s }); // signDigest is low-S, so this is high-S
  });
  const schemaSig = await signSchemaWithSigner(canonical, highS);
  assert.equal(schemaSig, signSchema(canonical, KEY));
  assert.ok(decodeEcdsaDer(decodeBase64Strict(schemaSig, "s")).s <= N / 2n);
  const docSig = await signDocumentWithSigner(canonical, highS);
  assert.deepEqual(verifyDocumentSignature(canonical, docSig, KEY.publicKey), { valid: true });
});

Deno.test("what a signer returns is checked: malformed, nothing, another key's, other bytes", async () => {
  const cases: [Signer, RegExp][] = [
    [twisted(() => new Uint8Array([0x30, 0])), /the test signer: the signer returned a malformed/],
    [twisted(() => "MEUCIQ…"), /returned no signature bytes/],
    [
      twisted((_, m) => signDigest(sha256(m), generateKeyPair())),
      /does not verify under its public key sha256:/,
    ],
    [twisted(() => signDigest(sha256(enc("other")), KEY)), /does not verify/],
  ];
  for (const [signer, pattern] of cases) {
    for (const sign of [signSchemaWithSigner, signDocumentWithSigner]) {
      await assert.rejects(sign(canonical, signer), (e: unknown) => {
        assert.ok(e instanceof SchemaPinError);
        assert.equal(e.code, "KEY_INVALID");
        assert.match(e.message, pattern);
        return true;
      });
    }
  }
  // A signer's own errors come through unchanged.
  const failing: Signer = {
    publicKey: KEY.publicKey,
    signMessage: () => Promise.reject(new SchemaPinError("IO_FAILED", "agent gone")),
  };
  await assert.rejects(signSchemaWithSigner(canonical, failing), /agent gone/);
});

Deno.test("…WithSigner misuse: INPUT_INVALID naming the function and the argument", async () => {
  const bad = [undefined, null, 42, "key", {}, KEY, { publicKey: KEY.publicKey }];
  for (const signer of bad) {
    await assert.rejects(
      signSchemaWithSigner(canonical, signer as unknown as Signer),
      (e: unknown) => {
        assert.ok(e instanceof SchemaPinError);
        assert.equal(e.code, "INPUT_INVALID");
        assert.match(e.message, /^signSchemaWithSigner: signer must be a Signer/);
        return true;
      },
    );
  }
  await assert.rejects(
    signSchemaDocumentWithSigner({}, KEY as unknown as Signer),
    /signSchemaDocumentWithSigner: signer must be a Signer \(privateKeySigner, sshAgentSigner\), got an object/,
  );
  assert.throws(() => privateKeySigner(KEY.publicKey as never), /privateKeySigner: privateKey/);
  // The verifiers agree with the sync path on a document signed through a signer.
  const sig = await signSchemaWithSigner(canonical, SIGNER);
  assert.deepEqual(verifySchemaSignature(canonical, sig, KEY.publicKey), { valid: true });
});
