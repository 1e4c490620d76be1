/**
 * The signature part of the conformance corpus: `vectors/signatures.json`, written by
 * `scripts/make_vectors.ts` (`deno task vectors`). Run alone, it prints the JSON to stdout.
 *
 * Every entry is made with the fixed, published, test-only key in
 * `tests/fixtures/vector_key.pem`. Signing is deterministic (RFC 6979), so regenerating gives
 * the same bytes. Each entry's verdict is checked with this implementation before it is
 * returned; a disagreement throws and nothing is written.
 *
 * @module
 */

import { canonicalizeSchemapinV1 } from "../lib/json/canonical_schemapin.ts";
import { decodeBase64Strict, encodeBase64 } from "../lib/crypto/base64.ts";
import { decodeEcdsaDer, derInteger, derSequence, encodeEcdsaDer } from "../lib/crypto/der.ts";
import {
  derToP1363,
  type SignatureCheck,
  signDigest,
  signDocument,
  signSchema,
  verifyDocumentSignature,
  verifySchemaSignature,
} from "../lib/crypto/ecdsa.ts";
import { sha256, sha256Hex, toHex } from "../lib/crypto/hash.ts";
import { parsePrivateKeyPem, type PrivateKey } from "../lib/crypto/keys.ts";
import { p256 } from "@noble/curves/nist.js";

const N = p256.Point.Fn.ORDER;
const utf8 = (s: string) => new TextEncoder().encode(s);

/** Schemas to sign, as JSON text (so that a `"__proto__"` name stays an ordinary key). */
const SCHEMAS: readonly { name: string; json: string }[] = [
  {
    name: "spec-4-example",
    json:
      '{ "description": "Calculates the sum", "name": "calculate_sum", "parameters": { "b": "integer", "a": "integer"} }',
  },
  {
    name: "nested-mcp-tool",
    json: JSON.stringify({
      name: "search_files",
      description: "Search files under a root for a pattern.",
      inputSchema: {
        type: "object",
        properties: {
          root: { type: "string", description: "directory" },
          pattern: { type: "string" },
          options: {
            type: "object",
            properties: { caseSensitive: { type: "boolean", default: false } },
            required: [],
          },
        },
        required: ["root", "pattern"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, destructiveHint: false },
    }),
  },
  {
    name: "unicode",
    // keys beyond U+FFFF sort by code point (§4.3); U+2028, "/", "<" and non-ASCII stay literal
    json:
      '{"name":"unicode_tool","description":"café, 中文, \\u2028 </script> & \\"q\\" \\\\ \\t \\u0001","inputSchema":{"properties":{"\\ud83d\\ude00":{"type":"string"},"\\uffff":{"type":"string"},"z":{"type":"string"},"ключ":{"type":"number"}}}}',
  },
  {
    name: "numbers",
    json:
      '{"name":"numbers","values":[0,-0,1.0,1e3,-17,0.1,1.5,-0.25,1e-7,0.000001,123.456,9007199254740991,-9007199254740991,5e-324]}',
  },
  {
    name: "proto-key",
    // an ordinary key that JavaScript must not treat as the prototype (§4.8)
    json: '{"name":"proto_tool","__proto__":{"isAdmin":true},"constructor":"c"}',
  },
  { name: "empty-object", json: "{}" },
];

/** A skill signature document (§4b.5) with `signature` set to "" — the document signing input. */
const DOCUMENT = JSON.stringify({
  schemapin_version: "1.4",
  skill_name: "example-skill",
  skill_hash: "sha256:" + "ab".repeat(32),
  algorithm: "ECDSA-SHA256",
  signed_at: "2026-01-01T00:00:00Z",
  domain: "example.com",
  signer_kid: "sha256:" + "cd".repeat(32),
  file_manifest: { "SKILL.md": "sha256:" + "ef".repeat(32) },
  signature: "",
});

type Expect = "valid" | "invalid";
type Reason = "malformed" | "mismatch" | "single-hash" | "document";

interface Entry {
  name: string;
  expect: Expect;
  reason?: Reason;
  note?: string;
  [field: string]: unknown;
}

function withHighS(signatureB64: string): string {
  const { r, s } = decodeEcdsaDer(decodeBase64Strict(signatureB64, "signature"));
  return encodeBase64(encodeEcdsaDer({ r, s: N - s }));
}

/**
 * One corpus entry: a `schema` (ECDSA over SHA-256(SHA-256(canonical)), §4.1) or a
 * `document` (ECDSA over SHA-256(canonical), §4b.5) with its canonical form and digests.
 */
function entry(
  kind: "schema" | "document",
  name: string,
  value: unknown,
  signature: string,
  expect: Expect,
  reason?: Reason,
  note?: string,
): Entry {
  const canonical = canonicalizeSchemapinV1(value);
  const bytes = utf8(canonical);
  return {
    name,
    expect,
    ...(reason ? { reason } : {}),
    ...(note ? { note } : {}),
    [kind]: value,
    canonical,
    canonical_sha256: sha256Hex(bytes),
    ecdsa_digest: sha256Hex(kind === "schema" ? sha256(bytes) : bytes),
    signature,
  };
}

function schemaEntries(sk: PrivateKey): Entry[] {
  const entries: Entry[] = [];
  for (const { name, json } of SCHEMAS) {
    const schema = JSON.parse(json);
    const sig = signSchema(utf8(canonicalizeSchemapinV1(schema)), sk);
    entries.push(entry("schema", name, schema, sig, "valid"));
  }

  const base = JSON.parse(SCHEMAS[0].json);
  const bytes = utf8(canonicalizeSchemapinV1(base));
  const good = signSchema(bytes, sk);
  const der = decodeBase64Strict(good, "signature");
  const { r, s } = decodeEcdsaDer(der);
  entries.push(
    entry(
      "schema",
      "high-s",
      base,
      withHighS(good),
      "valid",
      undefined,
      "s replaced by n − s; high-S signatures are valid P-256 signatures and MUST verify",
    ),
    entry(
      "schema",
      "single-hash",
      base,
      encodeBase64(signDigest(sha256(bytes), sk)),
      "invalid",
      "single-hash",
      "ECDSA over SHA-256(canonical) instead of SHA-256(SHA-256(canonical)) (a signer bug)",
    ),
    entry(
      "schema",
      "tampered",
      { ...base, description: "Calculates the sum!" },
      good,
      "invalid",
      "mismatch",
      "the signature of spec-4-example over a changed schema",
    ),
  );
  const malformed: [string, string, string][] = [
    [
      "malformed-non-minimal-integer",
      "r with a redundant leading zero byte",
      (() => {
        const rHex = r.toString(16).padStart(64, "0");
        const rBytes = [0, 0, ...rHex.match(/../g)!.map((h) => parseInt(h, 16))];
        const rawR = new Uint8Array([2, rBytes.length, ...rBytes]);
        return encodeBase64(derSequence(rawR, derInteger(s)));
      })(),
    ],
    [
      "malformed-trailing-bytes",
      "a zero byte after the DER SEQUENCE",
      encodeBase64(new Uint8Array([...der, 0])),
    ],
    [
      "malformed-long-form-length",
      "SEQUENCE length in non-minimal long form",
      encodeBase64(new Uint8Array([0x30, 0x81, ...der.subarray(1)])),
    ],
    ["malformed-r-zero", "r = 0", encodeBase64(derSequence(derInteger(0n), derInteger(s)))],
    ["malformed-s-equals-n", "s = n", encodeBase64(derSequence(derInteger(r), derInteger(N)))],
    ["malformed-raw-r-s", "IEEE P1363 r‖s instead of DER", encodeBase64(derToP1363(der))],
    ["malformed-base64-unpadded", "Base64 padding removed", good.replace(/=+$/, "")],
    [
      "malformed-base64-whitespace",
      "a line break inside the Base64",
      good.slice(0, 20) + "\n" + good.slice(20),
    ],
  ];
  for (const [name, note, signature] of malformed) {
    entries.push(entry("schema", name, base, signature, "invalid", "malformed", note));
  }
  return entries;
}

function documentEntries(sk: PrivateKey): Entry[] {
  const document = JSON.parse(DOCUMENT);
  const bytes = utf8(canonicalizeSchemapinV1(document));
  const good = signDocument(bytes, sk);
  return [
    entry("document", "skill-signature-document", document, good, "valid"),
    entry(
      "document",
      "document-high-s",
      document,
      withHighS(good),
      "valid",
      undefined,
      "s replaced by n − s; MUST verify",
    ),
    entry(
      "document",
      "document-signed-as-schema",
      document,
      signSchema(bytes, sk),
      "invalid",
      "mismatch",
      "ECDSA over SHA-256(SHA-256(canonical)): the schema construction, not the document one",
    ),
    entry(
      "document",
      "document-tampered",
      { ...document, domain: "evil.example" },
      good,
      "invalid",
      "mismatch",
      "the signature of skill-signature-document over a changed document",
    ),
  ];
}

function verdict(check: SignatureCheck): { expect: Expect; reason?: Reason } {
  return check.valid ? { expect: "valid" } : { expect: "invalid", reason: check.reason };
}

/**
 * Builds the data of `vectors/signatures.json` and checks every entry's verdict.
 *
 * @throws {Error} if this implementation disagrees with an entry's `expect` / `reason`.
 *
 * @example
 * ```ts
 * import { makeSignatureVectors } from "./vectors_signatures.ts";
 * const data = await makeSignatureVectors();
 * await Deno.writeTextFile("vectors/signatures.json", JSON.stringify(data, null, 2) + "\n");
 * ```
 */
export async function makeSignatureVectors(): Promise<unknown> {
  const pem = await Deno.readTextFile(new URL("../tests/fixtures/vector_key.pem", import.meta.url));
  const sk = parsePrivateKeyPem(pem, "tests/fixtures/vector_key.pem");
  const schema_signatures = schemaEntries(sk);
  const document_signatures = documentEntries(sk);

  const problems: string[] = [];
  const check = (entry: Entry, got: SignatureCheck) => {
    const v = verdict(got);
    if (v.expect !== entry.expect || v.reason !== entry.reason) {
      problems.push(
        `${entry.name}: expected ${entry.expect}/${entry.reason}, got ${JSON.stringify(got)}`,
      );
    }
  };
  for (const e of schema_signatures) {
    check(
      e,
      verifySchemaSignature(utf8(e.canonical as string), e.signature as string, sk.publicKey),
    );
  }
  for (const e of document_signatures) {
    check(
      e,
      verifyDocumentSignature(utf8(e.canonical as string), e.signature as string, sk.publicKey),
    );
  }
  if (problems.length > 0) {
    throw new Error("signature vectors disagree:\n  " + problems.join("\n  "));
  }

  return {
    description: "SchemaPin signature vectors: ECDSA P-256 / SHA-256, signatures are Base64 " +
      "(RFC 4648, padded) of DER ECDSA-Sig-Value. Schema signatures (§4.1) are ECDSA over " +
      "SHA-256(SHA-256(canonical)); document signatures (skill §4b.5, trust bundle §21.3) are " +
      "ECDSA over SHA-256(canonical). `ecdsa_digest` is the hex digest the ECDSA operation " +
      "signs. `expect` is valid or invalid; `reason` says why (malformed, mismatch, " +
      "single-hash). Verifiers MUST accept high-S signatures.",
    spec: "SchemaPin 1.4 §3, §4, §4.1, §4b.5, §8.2, §21.3",
    key: {
      note: "published test-only key; never trust it for anything",
      private_key_pem: pem,
      public_key_pem: sk.publicKey.pem,
      public_key_fingerprint: sk.publicKey.fingerprint,
      public_key_point_hex: toHex(sk.publicKey.point),
    },
    schema_signatures,
    document_signatures,
  };
}

if (import.meta.main) {
  console.log(JSON.stringify(await makeSignatureVectors(), null, 2));
}
