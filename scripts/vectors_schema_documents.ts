/**
 * The 1.4 schema signature document part of the conformance corpus (proposed file
 * `vectors/schema_signature_documents.json`). Run alone, it prints the JSON to stdout.
 *
 * Every entry is made with the fixed, published, test-only key in
 * `tests/fixtures/vector_key.pem` (RFC 6979 signing: regenerating gives the same bytes) and
 * checked with `verifySchemaOffline` before it is returned; a disagreement throws.
 *
 * @module
 */
import { parsePrivateKeyPem, type PrivateKey } from "../lib/crypto/keys.ts";
import { signDocument } from "../lib/crypto/ecdsa.ts";
import {
  SCHEMA_SIGNATURE_FIELDS,
  schemaHash,
  type SchemaSignatureDocument,
  schemaSignatureSigningInput,
  signSchemaDocument,
} from "../lib/schema/document.ts";
import { verifySchemaOffline } from "../lib/schema/verify.ts";
import { MemoryPinStore } from "../lib/pins/store.ts";
import { parseRfc3339 } from "../lib/time/rfc3339.ts";

const SCHEMA = {
  name: "calculate_sum",
  description: "Calculates the sum",
  inputSchema: {
    type: "object",
    properties: { b: { type: "integer" }, a: { type: "integer" } },
    required: ["a", "b"],
  },
};
const SIGNED_AT = Date.parse("2026-05-01T10:00:00Z");
const VERIFY_AT = "2026-06-01T00:00:00Z";
const PREVIOUS = "sha256:" + "a1".repeat(32);

interface Entry {
  name: string;
  note: string;
  schema: unknown;
  document: Record<string, unknown>;
  signing_input: string;
  verify_at: string;
  expect: "valid" | { error: string };
  warnings?: string[];
}

function resign(sk: PrivateKey, doc: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...doc };
  copy.signature = signDocument(schemaSignatureSigningInput(copy as never), sk);
  return copy;
}

function entries(sk: PrivateKey): Omit<Entry, "signing_input">[] {
  const full = signSchemaDocument(SCHEMA, sk, {
    signedAt: SIGNED_AT,
    expiresAt: "2026-11-01T10:00:00Z",
    domain: "example.com",
    signerKid: "example-2026-05",
    schemaVersion: "2.1.0",
    previousHash: PREVIOUS,
  }) as unknown as Record<string, unknown>;
  const minimal = signSchemaDocument(SCHEMA, sk, { signedAt: SIGNED_AT }) as unknown as Record<
    string,
    unknown
  >;
  const base = { schema: SCHEMA, verify_at: VERIFY_AT };
  return [
    { ...base, name: "full", note: "every known field", document: full, expect: "valid" },
    { ...base, name: "minimal", note: "required fields only", document: minimal, expect: "valid" },
    {
      ...base,
      name: "declared-canonicalization",
      note: 'canonicalization "schemapin-v1" declared and signed',
      document: resign(sk, { ...minimal, canonicalization: "schemapin-v1" }),
      expect: "valid",
    },
    {
      ...base,
      name: "unknown-field",
      note: "unknown fields are not signed and do not affect verification (reported)",
      document: { ...full, x_vendor_note: "not covered by the signature" },
      expect: "valid",
      warnings: ["unprotected_fields"],
    },
    {
      ...base,
      name: "tampered-schema-version",
      note: "a signed field changed after signing",
      document: { ...full, schema_version: "2.1.1" },
      expect: { error: "SIGNATURE_INVALID" },
    },
    {
      ...base,
      name: "stripped-expires-at",
      note: "expires_at removed after signing",
      document: Object.fromEntries(Object.entries(full).filter(([k]) => k !== "expires_at")),
      expect: { error: "SIGNATURE_INVALID" },
    },
    {
      ...base,
      name: "schema-changed",
      note: "authentic document, but the schema no longer hashes to schema_hash",
      schema: { ...SCHEMA, description: "Calculates the difference" },
      document: full,
      expect: { error: "SIGNATURE_INVALID" },
    },
    {
      ...base,
      name: "expired",
      note: "verified more than 300 s after expires_at",
      document: full,
      verify_at: "2026-11-01T10:05:01Z",
      expect: { error: "SIGNATURE_EXPIRED" },
    },
    {
      ...base,
      name: "expiry-skew-boundary",
      note: "verified exactly 300 s after expires_at: still valid",
      document: full,
      verify_at: "2026-11-01T10:05:00Z",
      expect: "valid",
    },
    {
      ...base,
      name: "expires-at-not-rfc3339",
      note: "a signed expires_at that is not strict RFC 3339 fails as expired",
      document: resign(sk, { ...minimal, expires_at: "2099-01-01 00:00:00Z" }),
      expect: { error: "SIGNATURE_EXPIRED" },
    },
    {
      ...base,
      name: "unknown-canonicalization",
      note: "an unknown canonicalization id fails before any key or signature work",
      document: resign(sk, { ...minimal, canonicalization: "jcs" }),
      expect: { error: "CANONICALIZATION_UNSUPPORTED" },
    },
    {
      ...base,
      name: "other-domain",
      note: "signed for another domain than the one verified (example.com)",
      document: resign(sk, { ...minimal, domain: "other.example" }),
      expect: { error: "DOMAIN_MISMATCH" },
    },
  ];
}

/**
 * Builds the vectors, verifying each with this implementation.
 *
 * @example
 * ```ts ignore
 * const data = await makeSchemaDocumentVectors();
 * ```
 */
export async function makeSchemaDocumentVectors(): Promise<unknown> {
  const pem = await Deno.readTextFile(new URL("../tests/fixtures/vector_key.pem", import.meta.url));
  const sk = parsePrivateKeyPem(pem, "tests/fixtures/vector_key.pem");
  const discovery = {
    schema_version: "1.4",
    developer_name: "Vector Key (test only)",
    public_key_pem: sk.publicKey.pem,
  };
  const problems: string[] = [];
  const out: Entry[] = [];
  for (const e of entries(sk)) {
    const signing_input = new TextDecoder().decode(
      schemaSignatureSigningInput(e.document as unknown as SchemaSignatureDocument),
    );
    const r = await verifySchemaOffline({
      schema: e.schema,
      signature: e.document,
      domain: "example.com",
      toolId: "calculate_sum",
      discovery,
      pinStore: new MemoryPinStore(),
      trustFirstUse: true,
      now: parseRfc3339(e.verify_at),
    });
    const got = r.valid ? "valid" : r.errorCode;
    const want = e.expect === "valid" ? "valid" : e.expect.error;
    if (got !== want) problems.push(`${e.name}: expected ${want}, got ${got} (${r.errorMessage})`);
    if (e.warnings && JSON.stringify(r.warnings) !== JSON.stringify(e.warnings)) {
      problems.push(`${e.name}: expected warnings ${e.warnings}, got ${r.warnings}`);
    }
    out.push({
      name: e.name,
      note: e.note,
      verify_at: e.verify_at,
      expect: e.expect,
      ...(e.warnings ? { warnings: e.warnings } : {}),
      schema: e.schema,
      document: e.document,
      signing_input,
    });
  }
  if (problems.length > 0) {
    throw new Error("schema document vectors disagree:\n  " + problems.join("\n  "));
  }
  return {
    description: "SchemaPin 1.4 schema signature documents (schemapin's definition of the " +
      "'by extension' schema signature of spec §16.1/§18.1): a JSON document mirroring " +
      ".schemapin.sig with schema_hash = sha256:hex(SHA-256(schemapin-v1 canonical schema)). " +
      "signing_input = schemapin-v1 canonical form of the document's known fields with " +
      'signature set to ""; signature = Base64 DER ECDSA P-256 over SHA-256(signing_input). ' +
      "Verify each document against `schema` for domain example.com at time `verify_at` " +
      "(300 s expiry skew); `expect` is valid or the error code.",
    spec: "SchemaPin 1.4 §4, §4b.5, §15.1, §16, §18, §19",
    known_fields: [...SCHEMA_SIGNATURE_FIELDS],
    key: {
      note: "published test-only key (same as signatures.json); never trust it",
      public_key_pem: sk.publicKey.pem,
      public_key_fingerprint: sk.publicKey.fingerprint,
    },
    schema_hash_of_schema: schemaHash(SCHEMA),
    documents: out,
  };
}

if (import.meta.main) {
  console.log(JSON.stringify(await makeSchemaDocumentVectors(), null, 2));
}
