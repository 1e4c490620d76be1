/**
 * Writes the signed-lock conformance corpus `vectors/contractpin-lock-signature/` (issue 17
 * item 2; the format is documented in cli/contractpin/lock_signature.ts and the folder's
 * README.md):
 *
 * - `contractpin.lock` — a lock (contractpin §5) with a stdio and an HTTP server;
 * - `contractpin.lock.sig` — its signature: a SchemaPin 1.4 schema signature document over the
 *   lock's schemapin-v1 canonical value, signed with the published test-only key
 *   `tests/fixtures/vector_key.pem` (copied here as `TEST-ONLY-private.pem`);
 * - `TEST-ONLY-public.pem`, `well_known.json` — that key and its discovery document;
 * - `TEST-ONLY-other-private.pem` — a second test-only key (the wrong-key case);
 * - `expected.json` — the canonical bytes, `schema_hash`, signing input, and cases (valid,
 *   reformatted, tampered, expired, wrong key, revoked, …) with their expected verdicts.
 *
 * Run: `deno run --allow-read --allow-write=vectors scripts/vectors_lock_signature.ts`.
 * Deterministic (fixed times, RFC 6979 signatures). The canonical bytes and the hash are
 * computed twice — by lib/ and by the few independent lines below — and every case is checked
 * with `verifyLockSignature` before anything is written; a disagreement throws and nothing is
 * written.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { canonicalizeSchemapinV1 } from "../lib/json/canonical_schemapin.ts";
import { parsePrivateKeyPem, type PrivateKey } from "../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../lib/discovery/document.ts";
import { digestToolList } from "../lib/contractpin/digest.ts";
import { buildLock, lockServerEntry, serializeLock } from "../lib/contractpin/lock.ts";
import type { JsonValue } from "../lib/json/types.ts";
import {
  LOCK_SIGNATURE_TOOL_ID,
  signLock,
  verifyLockSignature,
} from "../cli/contractpin/lock_signature.ts";
import {
  formatSchemaSignatureDocument,
  type SchemaSignatureDocument,
  schemaSignatureSigningInput,
  signSchemaDocument,
} from "../lib/schema/document.ts";
import { signDocument } from "../lib/crypto/ecdsa.ts";
import { MemoryPinStore } from "../lib/pins/store.ts";

const here = new URL("../vectors/contractpin-lock-signature/", import.meta.url);
const KEY_PEM = Deno.readTextFileSync(new URL("../tests/fixtures/vector_key.pem", import.meta.url));
const OTHER_PEM = Deno.readTextFileSync(new URL("TEST-ONLY-other-private.pem", here));

const DOMAIN = "example.com";
const SIGNED_AT = "2026-05-01T10:00:00Z";
const EXPIRES_AT = "2099-01-01T00:00:00Z";
const VERIFY_AT = "2026-06-01T00:00:00Z";

const utf8 = (s: string) => new TextEncoder().encode(s);
const sha256Hex = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** The independent canonical form: names sorted by code point, compact (ASCII-only data). */
function sortedCompact(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedCompact).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const names = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${
      names.map((n) =>
        `${JSON.stringify(n)}:${sortedCompact((value as Record<string, unknown>)[n])}`
      ).join(",")
    }}`;
  }
  return JSON.stringify(value);
}

/** The lock of the corpus. */
function vectorLock(): string {
  const search = digestToolList([
    {
      name: "search_web",
      description: "Search the web and return the top results",
      inputSchema: {
        type: "object",
        properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1 } },
        required: ["query"],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: "read_file",
      description: "Read a file below the project root",
      inputSchema: { type: "object", properties: { path: { type: "string" } } },
    },
  ] as JsonValue[]);
  const notes = digestToolList([
    { name: "add_note", description: "Add a note", inputSchema: { type: "object" } },
  ] as JsonValue[]);
  return serializeLock(buildLock({
    "acme-search": lockServerEntry(
      {
        transport: "stdio",
        command: ["npx", "-y", "@acme/mcp-search@1.2.0"],
        env: { ACME_TOKEN: "${ACME_TOKEN}" },
      },
      search,
    ),
    notes: lockServerEntry({ transport: "http", url: "https://mcp.example.com/notes" }, notes),
  }, new Date(Date.parse("2026-04-30T08:00:00Z"))));
}

/** `document` with `change` applied and signed again by `key` (a well-formed variant). */
function resigned(
  document: SchemaSignatureDocument,
  change: Partial<SchemaSignatureDocument>,
  key: PrivateKey,
): SchemaSignatureDocument {
  const d = { ...document, ...change, signature: "" } as SchemaSignatureDocument;
  d.signature = signDocument(schemaSignatureSigningInput(d), key);
  return d;
}

/** One case of `expected.json`. */
interface Case {
  name: string;
  description: string;
  /** The lock's text: `contractpin.lock` itself unless given. */
  lock_text?: string;
  signature: unknown;
  domain: string;
  discovery: Record<string, unknown>;
  verify_at: string;
  expect: string;
}

/** Builds every file of the corpus (path relative to the folder → bytes). */
export async function buildLockSignatureVectors(): Promise<Record<string, Uint8Array>> {
  const key = parsePrivateKeyPem(KEY_PEM, "vector_key.pem");
  const other = parsePrivateKeyPem(OTHER_PEM, "TEST-ONLY-other-private.pem");
  const lockText = vectorLock();
  const lock = JSON.parse(lockText);
  const canonical = canonicalizeSchemapinV1(lock);
  if (canonical !== sortedCompact(lock)) throw new Error("canonical forms disagree");
  const schemaHash = "sha256:" + sha256Hex(utf8(canonical));
  const document = signLock(lock, key, {
    signedAt: Date.parse(SIGNED_AT),
    expiresAt: EXPIRES_AT,
    domain: DOMAIN,
    signerKid: "vector-2026",
    canonicalization: "schemapin-v1",
  });
  if (document.schema_hash !== schemaHash) throw new Error("schema_hash disagrees");
  const signingInput = new TextDecoder().decode(schemaSignatureSigningInput(document));
  if (signingInput !== sortedCompact({ ...document, signature: "" })) {
    throw new Error("signing inputs disagree");
  }
  const wellKnown = buildDiscoveryDocument({
    publicKey: key.publicKey,
    developerName: "SchemaPin test vectors (TEST-ONLY key, never trust it)",
  }) as unknown as Record<string, unknown>;

  // Reformatted: no whitespace, every object's names in reverse order.
  const reversed = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(reversed) : v !== null && typeof v === "object"
      ? Object.fromEntries(
        Object.keys(v).reverse().map((k) => [
          k,
          reversed((v as Record<string, unknown>)[k]),
        ]),
      )
      : v;
  // deno-lint-ignore no-explicit-any
  type Lock = Record<string, any>;
  const edited = (edit: (l: Lock) => void): string => {
    const l = JSON.parse(lockText) as Lock;
    edit(l);
    return JSON.stringify(l, null, 2) + "\n";
  };
  const expired = signLock(lock, key, {
    signedAt: Date.parse("2026-01-01T00:00:00Z"),
    expiresAt: "2026-03-01T00:00:00Z",
    domain: DOMAIN,
  });
  const base = { domain: DOMAIN, discovery: wellKnown, verify_at: VERIFY_AT };
  const cases: Case[] = [
    {
      name: "valid",
      description: "contractpin.lock and contractpin.lock.sig as published",
      signature: document,
      ...base,
      expect: "valid",
    },
    {
      name: "reformatted-lock",
      description: "the same values without whitespace and with every object's names " +
        "reversed: formatting is not signed (contractpin §5)",
      lock_text: JSON.stringify(reversed(lock)),
      signature: document,
      ...base,
      expect: "valid",
    },
    {
      name: "tampered-tool-digest",
      description: "one tool digest edited after signing",
      lock_text: edited((l) => {
        const tool = l.servers["acme-search"].tools["search_web"];
        tool.digest = "sha256:" + "0".repeat(64);
      }),
      signature: document,
      ...base,
      expect: "SIGNATURE_INVALID",
    },
    {
      name: "tampered-command",
      description: "the server command edited after signing (same digests)",
      lock_text: edited((l) => {
        l.servers["acme-search"].command = ["npx", "-y", "@evil/mcp-search"];
      }),
      signature: document,
      ...base,
      expect: "SIGNATURE_INVALID",
    },
    {
      name: "tampered-document",
      description: "the signature document's signed_at edited (the signature covers it)",
      signature: { ...document, signed_at: "2026-05-02T10:00:00Z" },
      ...base,
      expect: "SIGNATURE_INVALID",
    },
    {
      name: "expired",
      description: "expires_at 2026-03-01 is past at verify_at (beyond the 300 s skew, §16.2)",
      signature: expired,
      ...base,
      expect: "SIGNATURE_EXPIRED",
    },
    {
      name: "wrong-key",
      description: "signed by TEST-ONLY-other-private.pem, not the domain's key",
      signature: signLock(lock, other, { signedAt: Date.parse(SIGNED_AT), domain: DOMAIN }),
      ...base,
      expect: "SIGNATURE_INVALID",
    },
    {
      name: "revoked-key",
      description: "the discovery document lists the signing key in revoked_keys",
      signature: document,
      ...base,
      discovery: { ...wellKnown, revoked_keys: [key.publicKey.fingerprint] },
      expect: "KEY_REVOKED",
    },
    {
      name: "other-domain",
      description: "the document names example.com; verified for example.org",
      signature: document,
      ...base,
      domain: "example.org",
      expect: "DOMAIN_MISMATCH",
    },
    {
      name: "unsupported-canonicalization",
      description: 'a correctly signed document declaring canonicalization "jcs" (§19.3)',
      signature: resigned(document, { canonicalization: "jcs" }, key),
      ...base,
      expect: "CANONICALIZATION_UNSUPPORTED",
    },
    {
      name: "bare-base64",
      description: "a bare v1.3 Base64 signature is not a lock signature",
      signature: document.signature,
      ...base,
      expect: "SIGNATURE_INVALID",
    },
  ];
  // Every verdict checked before anything is written.
  for (const c of cases) {
    const r = await verifyLockSignature({
      lock: JSON.parse(c.lock_text ?? lockText),
      signature: c.signature,
      domain: c.domain,
      discovery: c.discovery,
      pinStore: new MemoryPinStore(),
      trustFirstUse: true,
      now: Date.parse(c.verify_at),
    });
    const got = r.valid ? "valid" : r.errorCode;
    if (got !== c.expect) throw new Error(`case ${c.name}: expected ${c.expect}, got ${got}`);
  }
  // signSchemaDocument is what signLock uses: the lock is the "schema".
  const again = signSchemaDocument(lock, key, {
    signedAt: Date.parse(SIGNED_AT),
    expiresAt: EXPIRES_AT,
    domain: DOMAIN,
    signerKid: "vector-2026",
    canonicalization: "schemapin-v1",
  });
  if (again.signature !== document.signature) throw new Error("signLock ≠ signSchemaDocument");

  const expected = {
    description: "Signed contractpin locks: see README.md",
    tool_id: LOCK_SIGNATURE_TOOL_ID,
    lock_file: "contractpin.lock",
    signature_file: "contractpin.lock.sig",
    canonical: canonical,
    schema_hash: schemaHash,
    signing_input: signingInput,
    public_key_fingerprint: key.publicKey.fingerprint,
    cases,
  };
  const json = (v: unknown) => utf8(JSON.stringify(v, null, 2) + "\n");
  return {
    "README.md": utf8(README),
    "contractpin.lock": utf8(lockText),
    "contractpin.lock.sig": utf8(formatSchemaSignatureDocument(document)),
    "TEST-ONLY-private.pem": utf8(KEY_PEM),
    "TEST-ONLY-public.pem": utf8(key.publicKey.pem),
    "TEST-ONLY-other-private.pem": utf8(OTHER_PEM),
    "well_known.json": json(wellKnown),
    "expected.json": json(expected),
  };
}

const README = `# Signed contractpin locks (issue 17 item 2)

Generated by \`scripts/vectors_lock_signature.ts\`;
\`tests/contractpin/lock_signature_vectors_test.ts\` fails when they are stale.

**The keys here are published TEST-ONLY keys** (\`TEST-ONLY-private.pem\` is
\`tests/fixtures/vector_key.pem\`): never trust them for anything.

## The format

A lock is signed by a detached file next to it, \`<lock>.sig\` (here \`contractpin.lock.sig\`);
the lock itself is unchanged (contractpin §5). The \`.sig\` file is a SchemaPin 1.4 schema
signature document whose "schema" is the lock's JSON value:

\`\`\`json
{ "schemapin_version": "1.4",
  "schema_hash": "sha256:<hex SHA-256 of the schemapin-v1 canonical lock>",
  "signature": "<Base64 DER ECDSA P-256>",
  "signed_at": "2026-05-01T10:00:00Z",
  "expires_at": "2099-01-01T00:00:00Z",
  "domain": "example.com",
  "signer_kid": "vector-2026",
  "canonicalization": "schemapin-v1" }
\`\`\`

To verify, independently of this implementation:

1. Parse the lock (strict JSON) and canonicalize the value with schemapin-v1 (SchemaPin §4:
   names sorted by code point, no whitespace). The result for \`contractpin.lock\` is
   \`expected.json\` → \`canonical\`; \`schema_hash\` is \`"sha256:" + hex(SHA-256(canonical))\`.
   The lock's formatting (whitespace, key order) is not signed: a reformatted lock keeps its
   signature (contractpin §5 "Formatting"); any changed value breaks it.
2. Rebuild the signing input: the document's known fields that are present (\`schemapin_version\`,
   \`schema_hash\`, \`signature\`, \`signed_at\`, \`expires_at\`, \`domain\`, \`signer_kid\`,
   \`schema_version\`, \`previous_hash\`, \`canonicalization\`) with \`signature\` set to \`""\`,
   canonicalized with schemapin-v1 (\`expected.json\` → \`signing_input\`). Verify the Base64
   DER ECDSA P-256 signature over SHA-256 of those bytes with the domain's key (discovery,
   revocation and pins as for any SchemaPin signature, §15.1).
3. Require \`schema_hash\` to equal the lock's hash, \`domain\` (when present) to equal the
   domain verified, a supported \`canonicalization\` (§19), and \`expires_at\` not past by more
   than 300 s (§16.2). Only a 1.4 document is a lock signature, never a bare Base64 string.
4. The key is pinned as \`contractpin:lock@DOMAIN\` (\`tool_id\`); \`:\` cannot occur in an MCP
   tool name, so a lock key's pin never collides with a tool key's pin.

## Files

- \`contractpin.lock\`, \`contractpin.lock.sig\` — a lock and its valid signature.
- \`TEST-ONLY-public.pem\`, \`well_known.json\` — the signing key and its discovery document.
- \`TEST-ONLY-other-private.pem\` — another test key (the \`wrong-key\` case).
- \`expected.json\` — \`canonical\`, \`schema_hash\`, \`signing_input\` of the published pair,
  and \`cases[]\`: \`lock_text\` (the lock's text; \`contractpin.lock\` when absent),
  \`signature\` (the \`.sig\` content as JSON), \`domain\`, \`discovery\` (the discovery document
  to use), \`verify_at\` (the verification time), and \`expect\`: \`valid\` or the SchemaPin
  error code (\`SIGNATURE_INVALID\` for a tampered lock or document, a wrong key or a bare
  signature; \`SIGNATURE_EXPIRED\`; \`KEY_REVOKED\`; \`DOMAIN_MISMATCH\`;
  \`CANONICALIZATION_UNSUPPORTED\`). Verify each with first use allowed and no pins.

With the CLI:

\`\`\`sh
schemapin contract verify --lock vectors/contractpin-lock-signature/contractpin.lock \\
    --require-signed-lock --domain example.com \\
    --public-key vectors/contractpin-lock-signature/TEST-ONLY-public.pem
\`\`\`

(verifies the signature, then tries to reach the servers of the lock, which do not exist.)
`;

if (import.meta.main) {
  const files = await buildLockSignatureVectors();
  for (const [path, bytes] of Object.entries(files)) {
    await Deno.writeFile(new URL(path, here), bytes);
  }
  console.log(`wrote ${Object.keys(files).length} files to vectors/contractpin-lock-signature/`);
}
