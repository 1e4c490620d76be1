/**
 * Regenerates the published conformance corpus in `vectors/` (`deno task vectors`).
 *
 * Expected outputs come from the handwritten cases in `vectors_canonical.ts` and the fixed
 * test key of `vectors_signatures.ts`; this script checks the implementation against them
 * and refuses to write anything if they disagree.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { parseJson } from "../lib/json/parse.ts";
import { canonicalizeSchemapinV1 } from "../lib/json/canonical_schemapin.ts";
import { canonicalizeJcs } from "../lib/json/canonical_jcs.ts";
import { projectContract } from "../lib/contractpin/contract.ts";
import { MAX_JSON_DEPTH } from "../lib/json/parse.ts";
import { type ContractCase, CONTRACTPIN_CASES, SCHEMAPIN_CASES } from "./vectors_canonical.ts";
import { makeSignatureVectors } from "./vectors_signatures.ts";
import { makeSchemaDocumentVectors } from "./vectors_schema_documents.ts";
import type { JsonValue } from "../lib/json/types.ts";

const encoder = new TextEncoder();
const problems: string[] = [];

function caseBytes(c: { text?: string; bytes?: number[] }): Uint8Array {
  return c.bytes ? new Uint8Array(c.bytes) : encoder.encode(c.text!);
}

function schemapinVectors() {
  return SCHEMAPIN_CASES.map((c) => {
    const bytes = caseBytes(c);
    let got: string | { stage: string; code: string };
    let stage: "parse" | "canonicalize" = "parse";
    try {
      const value = parseJson(bytes);
      stage = "canonicalize";
      got = canonicalizeSchemapinV1(value);
    } catch (e) {
      got = { stage, code: (e as { code?: string }).code ?? String(e) };
    }
    if (c.canonical !== undefined && got !== c.canonical) {
      problems.push(
        `${c.name}: expected ${c.canonical}, implementation gave ${JSON.stringify(got)}`,
      );
    }
    if (c.reject && (typeof got === "string" || got.stage !== c.reject.stage)) {
      problems.push(
        `${c.name}: expected rejection at ${c.reject.stage}, got ${JSON.stringify(got)}`,
      );
    }
    const entry: Record<string, unknown> = {
      name: c.name,
      input_base64: btoa(String.fromCharCode(...bytes)),
    };
    if (c.text !== undefined && c.text.length <= 300) entry.input_text = c.text;
    if (c.canonical !== undefined) entry.canonical = c.canonical;
    if (c.reject) entry.reject = c.reject;
    return entry;
  });
}

function contractVectors() {
  return CONTRACTPIN_CASES.map((c: ContractCase) => {
    const value = c.project ? projectContract(c.input as JsonValue) : c.input;
    const got = canonicalizeJcs(value);
    if (got !== c.canonical) {
      problems.push(`${c.name}: expected ${c.canonical}, implementation gave ${got}`);
    }
    const digest = "sha256:" +
      createHash("sha256").update(encoder.encode(c.canonical)).digest("hex");
    return { name: c.name, input: c.input, project: c.project, canonical: c.canonical, digest };
  });
}

/**
 * Builds every corpus file's content (file name → JSON text), checking the implementation
 * against the handwritten expectations; throws listing every disagreement.
 *
 * @example
 * ```ts ignore
 * const files = await buildVectors();
 * ```
 */
export async function buildVectors(): Promise<Record<string, string>> {
  problems.length = 0;
  const canonicalization = {
    canonicalization: "schemapin-v1",
    spec: "SchemaPin 1.4 §4; see vectors/README.md",
    max_depth: MAX_JSON_DEPTH,
    vectors: schemapinVectors(),
  };
  const contractpin = contractVectors();
  const signatures = await makeSignatureVectors();
  if (problems.length > 0) {
    throw new Error(
      "the implementation disagrees with the expected outputs:\n  " + problems.join("\n  "),
    );
  }
  const text = (value: unknown) => JSON.stringify(value, null, 2) + "\n";
  return {
    "canonicalization.json": text(canonicalization),
    "contractpin.json": text(contractpin),
    "signatures.json": text(signatures),
    "schema_signature_documents.json": text(await makeSchemaDocumentVectors()),
  };
}

if (import.meta.main) {
  let files: Record<string, string>;
  try {
    files = await buildVectors();
  } catch (e) {
    console.error(`vectors NOT written: ${(e as Error).message}`);
    Deno.exit(1);
  }
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(new URL(`../vectors/${name}`, import.meta.url), text);
    console.log(`wrote vectors/${name}`);
  }
}
