import assert from "node:assert/strict";
import {
  formatSchemaSignatureDocument,
  parseSchemaSignatureDocument,
  schemaHash,
  schemaSignatureSigningInput,
  signSchemaBase64,
  signSchemaDocument,
} from "../../lib/schema/document.ts";
import { verifyDocumentSignature, verifySchemaSignature } from "../../lib/crypto/ecdsa.ts";
import { canonicalizeSchemapinV1Bytes } from "../../lib/json/canonical_schemapin.ts";
import { sha256Hex } from "../../lib/crypto/hash.ts";
import { isSchemaPinError } from "../../lib/errors.ts";
import { SIGNER, toolSchema } from "./_fixtures.ts";

const T0 = Date.UTC(2026, 4, 1, 10);
const H = (c: string) => "sha256:" + c.repeat(64);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("a bare signature is §4.1's double hash over the canonical schema", () => {
  const schema = toolSchema();
  const sig = signSchemaBase64(schema, SIGNER);
  assert.deepEqual(
    verifySchemaSignature(canonicalizeSchemapinV1Bytes(schema), sig, SIGNER.publicKey),
    { valid: true },
  );
  assert.throws(
    () => signSchemaBase64({ n: 2 ** 53 }, SIGNER),
    (e) => isSchemaPinError(e, "SCHEMA_CANONICALIZATION_FAILED"),
  );
});

Deno.test("signSchemaDocument writes a 1.4 document signed over its known fields", () => {
  const schema = toolSchema();
  const doc = signSchemaDocument(schema, SIGNER, {
    signedAt: T0,
    expiresAt: T0 + 86_400_000,
    domain: "Example.com",
    signerKid: "example-2026-05",
    schemaVersion: "2.1.0",
    previousHash: H("a"),
    canonicalization: "schemapin-v1",
  });
  assert.equal(doc.schemapin_version, "1.4");
  assert.equal(doc.schema_hash, "sha256:" + sha256Hex(canonicalizeSchemapinV1Bytes(schema)));
  assert.equal(doc.schema_hash, schemaHash(schema));
  assert.equal(doc.signed_at, "2026-05-01T10:00:00Z");
  assert.equal(doc.expires_at, "2026-05-02T10:00:00Z");
  assert.equal(doc.domain, "example.com");
  // The signing input is the canonical document with signature "" — exactly.
  const input = text(schemaSignatureSigningInput(doc));
  assert.equal(
    input,
    `{"canonicalization":"schemapin-v1","domain":"example.com","expires_at":"2026-05-02T10:00:00Z",` +
      `"previous_hash":"${H("a")}","schema_hash":"${doc.schema_hash}","schema_version":"2.1.0",` +
      `"schemapin_version":"1.4","signature":"","signed_at":"2026-05-01T10:00:00Z",` +
      `"signer_kid":"example-2026-05"}`,
  );
  assert.deepEqual(
    verifyDocumentSignature(schemaSignatureSigningInput(doc), doc.signature, SIGNER.publicKey),
    { valid: true },
  );
  // Round trip through the file format.
  const parsed = parseSchemaSignatureDocument(JSON.parse(formatSchemaSignatureDocument(doc)));
  assert.deepEqual(parsed.document, doc);
  assert.deepEqual(parsed.unknownFields, []);
  assert.deepEqual(Object.keys(JSON.parse(formatSchemaSignatureDocument(doc))), [
    "schemapin_version",
    "schema_hash",
    "signature",
    "signed_at",
    "expires_at",
    "domain",
    "signer_kid",
    "schema_version",
    "previous_hash",
    "canonicalization",
  ]);
});

Deno.test("unknown fields are reported and left out of the signing input", () => {
  const doc = signSchemaDocument(toolSchema(), SIGNER, { signedAt: T0 });
  const withExtra = { ...doc, note: "unsigned", __proto__x: 1 };
  const parsed = parseSchemaSignatureDocument(withExtra);
  assert.deepEqual(parsed.unknownFields, ["note", "__proto__x"]);
  assert.deepEqual(schemaSignatureSigningInput(parsed.document), schemaSignatureSigningInput(doc));
});

Deno.test("signSchemaDocument refuses bad metadata", () => {
  const bad = (opts: Parameters<typeof signSchemaDocument>[2], code = "INPUT_INVALID") =>
    assert.throws(
      () => signSchemaDocument(toolSchema(), SIGNER, { signedAt: T0, ...opts }),
      (e) => isSchemaPinError(e, code as never),
      JSON.stringify(opts),
    );
  bad({ expiresAt: T0 });
  bad({ expiresAt: T0 - 1000 });
  bad({ expiresAt: "2026-06-01 10:00:00Z" });
  bad({ domain: "https://example.com" });
  bad({ previousHash: "sha256:abc" });
  bad({ previousHash: schemaHash(toolSchema()) });
  bad({ schemaVersion: "" });
  bad({ signerKid: "" });
  bad({ canonicalization: "jcs" }, "CANONICALIZATION_UNSUPPORTED");
});

Deno.test("parseSchemaSignatureDocument rejects malformed documents naming the field", () => {
  const doc = signSchemaDocument(toolSchema(), SIGNER, { signedAt: T0 }) as unknown as Record<
    string,
    unknown
  >;
  const cases: [Record<string, unknown> | unknown, RegExp][] = [
    ["MEUCIQ==", /must be a JSON object/],
    [{ ...doc, schemapin_version: "1.3" }, /start at 1\.4/],
    [{ ...doc, schemapin_version: "2.0" }, /not a supported 1\.x/],
    [{ ...doc, schemapin_version: 1.4 }, /must be a string/],
    [{ ...doc, schema_hash: undefined }, /schema_hash is missing/],
    [{ ...doc, schema_hash: "sha256:" + "A".repeat(64) }, /lower case/],
    [{ ...doc, signature: "" }, /signature is empty/],
    [{ ...doc, signature: undefined }, /signature is missing/],
    [{ ...doc, signed_at: "2026-05-01" }, /signed_at/],
    [{ ...doc, domain: "example.com:443" }, /domain/],
    [{ ...doc, previous_hash: "abc" }, /previous_hash/],
    [{ ...doc, schema_version: 2 }, /schema_version must be a string/],
    [{ ...doc, signer_kid: [] }, /signer_kid must be a string/],
  ];
  for (const [value, re] of cases) {
    const v = value && typeof value === "object"
      ? Object.fromEntries(Object.entries(value).filter(([, x]) => x !== undefined))
      : value;
    assert.throws(
      () => parseSchemaSignatureDocument(v, "tool.sig"),
      (e) =>
        isSchemaPinError(e, "INPUT_INVALID") && re.test((e as Error).message) &&
        (e as Error).message.startsWith("tool.sig: "),
      re.source,
    );
  }
  // expires_at and canonicalization are judged at verification time, with their own codes.
  const lenient = parseSchemaSignatureDocument({ ...doc, expires_at: 12, canonicalization: "jcs" });
  assert.equal(lenient.document.expires_at, 12);
  assert.equal(lenient.document.canonicalization, "jcs");
  assert.deepEqual(parseSchemaSignatureDocument({ ...doc, schemapin_version: "1.5" }).warnings, [
    "signature_version_newer",
  ]);
});
