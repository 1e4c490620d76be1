/**
 * SchemaPin signatures on MCP tools, carried in each tool's `_meta` — what `schemapin
 * sign-tools` writes, what {@linkcode signToolList} attaches for server authors, and what
 * `schemapin guard --signatures` checks.
 *
 * **What is signed.** The tool's contract object (contractpin spec §2: `name`, `description`,
 * `inputSchema`, and `outputSchema` / `annotations` when present), canonicalized with
 * schemapin-v1 (SchemaPin §4). `title`, `_meta` and every other member are outside the
 * contract, so attaching a signature never changes what it signs, and a signed tool keeps its
 * contractpin digest.
 *
 * **Where.** Two `_meta` keys, in the `dev.schemapin/` prefix this project owns:
 *
 * - `_meta["dev.schemapin/signature"]` — a SchemaPin 1.4 schema signature document (the JSON
 *   object of `lib/schema/document.ts`: `schemapin_version`, `schema_hash`, `signature`,
 *   `signed_at`, optional `expires_at`, `domain`, `signer_kid`, `schema_version`,
 *   `previous_hash`, `canonicalization`). Documents are what this project writes: only they
 *   can expire (§16) and name their domain. A bare Base64 signature string (v1.3, §4.1) over
 *   the same canonical contract is also accepted when verifying, for signers that only speak
 *   v1.3.
 * - `_meta["dev.schemapin/domain"]` — optional: the publisher's domain. When present it must
 *   equal the domain the verifier trusts (the verifier's domain is the only source of the pin
 *   key, §15.1; this key only lets a mismatch fail early and clearly).
 *
 * Verification is `verifySchemaOffline` with the tool name as the tool id: the same
 * discovery documents, revocation, TOFU pins (`name@domain`) and expiry rules as
 * `schemapin verify-schema`.
 *
 * @module
 */
import { type ErrorCode, SchemaPinError } from "../errors.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { parsePrivateKeyPem, type PrivateKey } from "../crypto/keys.ts";
import { checkDomain } from "../dns/domain.ts";
import { isJsonObject, projectContract } from "../contractpin/contract.ts";
import { digestToolList } from "../contractpin/digest.ts";
import type { Signer } from "../crypto/signer.ts";
import {
  SCHEMA_SIGNATURE_FIELDS,
  type SchemaDocumentOptions,
  type SchemaSignatureDocument,
  signSchemaDocument,
  signSchemaDocumentWithSigner,
} from "../schema/document.ts";
import type { BeforePinHook, OfflineFlowOptions } from "../schema/flow.ts";
import { type SchemaVerificationResult, verifySchemaOfflineWithHook } from "../schema/verify.ts";
import type { LineageBatch, LineageStore } from "../pins/lineage.ts";
import { advanceLineage, lineageBeforePinHook } from "../schema/lineage_verify.ts";
import { formatRfc3339 } from "../time/rfc3339.ts";
import { checkArg, checkSignerArg } from "../arguments.ts";

/**
 * `_meta` key of a tool's SchemaPin signature (a 1.4 schema signature document).
 *
 * @example
 * ```ts
 * import { SIGNATURE_META_KEY } from "./signatures.ts";
 * console.log(SIGNATURE_META_KEY); // "dev.schemapin/signature"
 * ```
 */
export const SIGNATURE_META_KEY = "dev.schemapin/signature";
/**
 * `_meta` key of the publisher's domain (optional).
 *
 * @example
 * ```ts
 * import { DOMAIN_META_KEY } from "./signatures.ts";
 * console.log(DOMAIN_META_KEY); // "dev.schemapin/domain"
 * ```
 */
export const DOMAIN_META_KEY = "dev.schemapin/domain";
/**
 * `_meta` key, on a signed `tools/list` result, of the manifest tool → signature.
 *
 * @example
 * ```ts
 * import { MANIFEST_META_KEY } from "./signatures.ts";
 * console.log(MANIFEST_META_KEY); // "dev.schemapin/manifest"
 * ```
 */
export const MANIFEST_META_KEY = "dev.schemapin/manifest";

/** Metadata for {@linkcode signToolList}. */
export interface SignToolListOptions {
  /** The publisher's domain (validated, §9): written into every document and `_meta`. */
  domain: string;
  /** Signing time (default now). */
  signedAt?: Date | number;
  /** Expiry (§16): a time, or a strict RFC 3339 string. */
  expiresAt?: Date | number | string;
  /** A key id, informational. */
  signerKid?: string;
  /** A version tag (§18.1) written into every document. */
  schemaVersion?: string;
}

/** One manifest entry: what was signed for a tool. */
export interface ToolSignatureEntry {
  /** The contractpin tool digest (contractpin §4.1) of the signed contract. */
  digest: string;
  /** `schema_hash` of the document: SHA-256 of the schemapin-v1 canonical contract. */
  schema_hash: string;
  /** The Base64 signature of the document. */
  signature: string;
}

/** The manifest tool → signature of a signed tool list. */
export interface ToolSignatureManifest {
  /** The publisher's domain. */
  domain: string;
  /** When the list was signed, RFC 3339. */
  signed_at: string;
  /** Entries by tool name, in the order served. */
  tools: Record<string, ToolSignatureEntry>;
}

/** The result of {@linkcode signToolList}. */
export interface SignedToolList {
  /** The tools, each a copy with the signature (and domain) added to its `_meta`. */
  tools: JsonObject[];
  /** What was signed, tool by tool. */
  manifest: ToolSignatureManifest;
}

/**
 * The `tools/list` document a publisher serves for a signed tool list (`schemapin sign-tools`
 * writes it): the signed tools, and the manifest under `_meta["dev.schemapin/manifest"]`
 * ({@linkcode MANIFEST_META_KEY}).
 *
 * @example
 * ```ts
 * import { signedToolListDocument, signToolList } from "./signatures.ts";
 * import { generateKeyPair } from "../crypto/keys.ts";
 * const signed = signToolList(
 *   [{ name: "add", description: "Adds", inputSchema: { type: "object" } }],
 *   generateKeyPair(),
 *   { domain: "example.com" },
 * );
 * Object.keys(signedToolListDocument(signed)); // ["tools", "_meta"]
 * ```
 */
export function signedToolListDocument(signed: SignedToolList): JsonObject {
  return {
    tools: signed.tools,
    _meta: { [MANIFEST_META_KEY]: signed.manifest as unknown as JsonObject },
  };
}

function orderedDocument(doc: SchemaSignatureDocument): JsonObject {
  const out: JsonObject = {};
  for (const field of SCHEMA_SIGNATURE_FIELDS) {
    const v = doc[field];
    if (v !== undefined) out[field] = v as JsonValue;
  }
  return out;
}

/**
 * Signs every tool of a `tools/list` result: each tool's contract (contractpin §2,
 * canonicalized with schemapin-v1) becomes a 1.4 schema signature document, attached as
 * `_meta["dev.schemapin/signature"]` with `_meta["dev.schemapin/domain"]`. Other `_meta`
 * members and every other tool member are kept as they were; the input is not modified.
 *
 * @param tools the tools as the server serves them (all pages); validated here
 * @param privateKey the publisher's P-256 key, parsed or as PEM text
 * @param options the domain (required) and optional expiry, key id, version tag
 * @throws {SchemaPinError} `INPUT_INVALID` for a tool that is not an object, has no string
 * name, repeats a name, or has a `_meta` that is not an object, and for bad metadata;
 * `KEY_INVALID` for a bad key; `SCHEMA_CANONICALIZATION_FAILED` for a contract with no
 * canonical form
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { signToolList } from "./signatures.ts";
 * const { tools } = signToolList(
 *   [{ name: "add", description: "Add two numbers", inputSchema: { type: "object" } }],
 *   generateKeyPair(),
 *   { domain: "example.com" },
 * );
 * console.log(Object.keys(tools[0]._meta as object)); // ["dev.schemapin/signature", "dev.schemapin/domain"]
 * ```
 */
export function signToolList(
  tools: readonly unknown[],
  privateKey: PrivateKey | string,
  options: SignToolListOptions,
): SignedToolList {
  let key: PrivateKey | undefined;
  const list = prepareToolList(tools, options, () => {
    key = typeof privateKey === "string"
      ? parsePrivateKeyPem(privateKey, "private key")
      : privateKey;
  });
  return assembleToolList(
    list,
    list.entries.map((entry) => signSchemaDocument(entry.contract, key!, list.documentOptions)),
  );
}

/**
 * {@linkcode signToolList} with a `Signer` — a key held elsewhere, such as in an SSH agent
 * (`sshAgentSigner`): the same tools and manifest; each tool's 1.4 schema signature document
 * is signed by the signer (one signature per tool, in the order served).
 *
 * @throws {SchemaPinError} what `signToolList` throws, `INPUT_INVALID` for something that is
 *   not a signer, and the signer's errors (`IO_FAILED` from an agent; `KEY_INVALID` for a
 *   signature that does not verify).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeySigner } from "../crypto/signer.ts";
 * import { signToolListWithSigner } from "./signatures.ts";
 * const { manifest } = await signToolListWithSigner(
 *   [{ name: "add", description: "Add two numbers", inputSchema: { type: "object" } }],
 *   privateKeySigner(generateKeyPair()),
 *   { domain: "example.com" },
 * );
 * console.log(Object.keys(manifest.tools)); // ["add"]
 * ```
 */
export async function signToolListWithSigner(
  tools: readonly unknown[],
  signer: Signer,
  options: SignToolListOptions,
): Promise<SignedToolList> {
  const list = prepareToolList(
    tools,
    options,
    () => checkSignerArg("signToolListWithSigner", "signer", signer),
  );
  const documents: SchemaSignatureDocument[] = [];
  for (const entry of list.entries) {
    documents.push(
      await signSchemaDocumentWithSigner(entry.contract, signer, list.documentOptions),
    );
  }
  return assembleToolList(list, documents);
}

/** A tool list checked and projected, ready to sign. */
interface PreparedToolList {
  readonly domain: string;
  readonly signedAt: Date | number;
  readonly documentOptions: SchemaDocumentOptions;
  readonly digested: ReturnType<typeof digestToolList>;
  readonly entries: readonly {
    readonly raw: JsonObject;
    readonly name: string;
    readonly meta: JsonObject | undefined;
    readonly contract: JsonValue;
  }[];
}

/** Checks the list and the domain, then runs `checkKey`, then checks and projects each tool. */
function prepareToolList(
  tools: readonly unknown[],
  options: SignToolListOptions,
  checkKey: () => void,
): PreparedToolList {
  if (!Array.isArray(tools)) {
    throw new SchemaPinError("INPUT_INVALID", "signToolList: tools must be an array");
  }
  const dc = checkDomain(options?.domain);
  if (!dc.ok) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `signToolList: invalid domain ${JSON.stringify(options?.domain)}: ${dc.reason}`,
    );
  }
  checkKey();
  const signedAt = options.signedAt ?? Math.floor(Date.now() / 1000) * 1000;
  // Names are checked once for the whole list (duplicates are malformed, contractpin §4.4).
  const digested = digestToolList(tools as readonly JsonValue[], "signToolList");
  const entries = tools.map((tool, i) => {
    const raw = tool as JsonObject;
    const name = raw.name as string;
    const meta = Object.hasOwn(raw, "_meta") ? raw._meta : undefined;
    if (meta !== undefined && !isJsonObject(meta)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `signToolList: tools[${i}] (${JSON.stringify(name)}) has a _meta that is not an object`,
        { index: i, tool: name },
      );
    }
    return { raw, name, meta, contract: projectContract(tool as JsonValue, `tools[${i}]`) };
  });
  const documentOptions: SchemaDocumentOptions = {
    signedAt,
    domain: dc.domain,
    ...(options.expiresAt !== undefined ? { expiresAt: options.expiresAt } : {}),
    ...(options.signerKid !== undefined ? { signerKid: options.signerKid } : {}),
    ...(options.schemaVersion !== undefined ? { schemaVersion: options.schemaVersion } : {}),
  };
  return { domain: dc.domain, signedAt, documentOptions, digested, entries };
}

/** The signed tools and the manifest, from the prepared list and one document per tool. */
function assembleToolList(
  list: PreparedToolList,
  documents: readonly SchemaSignatureDocument[],
): SignedToolList {
  const manifest: ToolSignatureManifest = {
    domain: list.domain,
    signed_at: formatRfc3339(list.signedAt),
    tools: Object.create(null),
  };
  const out = list.entries.map(({ raw, name, meta }, i) => {
    const doc = documents[i];
    manifest.tools[name] = {
      digest: list.digested.tools.get(name)!.digest,
      schema_hash: doc.schema_hash,
      signature: doc.signature,
    };
    const newMeta: JsonObject = {};
    for (const [k, v] of Object.entries(meta ?? {})) {
      if (k !== SIGNATURE_META_KEY && k !== DOMAIN_META_KEY) newMeta[k] = v;
    }
    newMeta[SIGNATURE_META_KEY] = orderedDocument(doc);
    newMeta[DOMAIN_META_KEY] = list.domain;
    const copy: JsonObject = {};
    for (const [k, v] of Object.entries(raw)) copy[k] = k === "_meta" ? newMeta : v;
    if (meta === undefined) copy._meta = newMeta;
    return copy;
  });
  return { tools: out, manifest };
}

/** What a tool carries in `_meta`, read without judging the signature. */
export type ToolSignatureField =
  | { readonly kind: "unsigned"; readonly reason: string }
  | { readonly kind: "malformed"; readonly reason: string }
  | {
    readonly kind: "signed";
    readonly signature: string | Readonly<Record<string, unknown>>;
    readonly domain?: string;
  };

/**
 * Reads a tool's `_meta` signature and domain keys (see the module documentation).
 *
 * @example
 * ```ts
 * import { readToolSignature } from "./signatures.ts";
 * readToolSignature({ name: "a" }).kind; // "unsigned"
 * ```
 */
export function readToolSignature(tool: JsonObject): ToolSignatureField {
  checkArg("readToolSignature", "tool", tool, "object");
  const meta = Object.hasOwn(tool, "_meta") ? tool._meta : undefined;
  if (meta === undefined || meta === null) {
    return { kind: "unsigned", reason: "the tool has no _meta" };
  }
  if (!isJsonObject(meta)) return { kind: "malformed", reason: "_meta is not an object" };
  if (!Object.hasOwn(meta, SIGNATURE_META_KEY)) {
    return { kind: "unsigned", reason: `_meta has no ${JSON.stringify(SIGNATURE_META_KEY)}` };
  }
  const sig = meta[SIGNATURE_META_KEY];
  if (typeof sig !== "string" && !isJsonObject(sig)) {
    return {
      kind: "malformed",
      reason: `_meta[${JSON.stringify(SIGNATURE_META_KEY)}] must be a signature document ` +
        `object or a Base64 string`,
    };
  }
  if (!Object.hasOwn(meta, DOMAIN_META_KEY)) return { kind: "signed", signature: sig };
  const domain = meta[DOMAIN_META_KEY];
  if (typeof domain !== "string") {
    return {
      kind: "malformed",
      reason: `_meta[${JSON.stringify(DOMAIN_META_KEY)}] must be a string`,
    };
  }
  return { kind: "signed", signature: sig, domain };
}

/**
 * The trust inputs of tool signature verification (those of `verify-schema`), plus an
 * optional hook run after a signature verified and before a pin is written (the DNS TXT
 * cross-check of `--dns`).
 */
export type ToolTrust = Omit<OfflineFlowOptions, "confirmFirstUse"> & {
  /** Runs before a first-use pin is written; a failure fails the tool (nothing is pinned). */
  beforePin?: BeforePinHook<SchemaVerificationResult>;
};

/**
 * {@linkcode ToolTrust} with lineage to enforce (§18.4): a signed tool must be the same
 * release as the latest known one, or extend it (`LINEAGE_REJECTED` otherwise); the store
 * moves forward only once the tool verified. Set by the CLI (`guard --lineage`) through
 * cli/guard/setup.ts; not on the library's entry points (the lineage store is not).
 */
export type LineageToolTrust = ToolTrust & {
  /**
   * The lineage store; or, while the guard checks one page of tools, a batch over it that
   * the page's advances are committed through (lib/guard/policy.ts).
   */
  lineage?: LineageStore | LineageBatch;
};

/** The outcome of {@linkcode verifyToolSignature}. */
export interface ToolSignatureCheck {
  /** `valid`; `unsigned` (no signature in `_meta`); `invalid` (any verification failure). */
  readonly status: "valid" | "unsigned" | "invalid";
  /** The SchemaPin error code when invalid (`SIGNATURE_INVALID`, `KEY_REVOKED`, …). */
  readonly errorCode?: ErrorCode;
  /** Why the tool is not `valid` (unsigned or invalid), for people. */
  readonly errorMessage?: string;
  /** The full verification result, when verification ran. */
  readonly result?: SchemaVerificationResult;
}

/**
 * Verifies the SchemaPin signature a tool carries in `_meta` over its contract: the §15.1
 * flow of {@linkcode verifySchemaOffline} with tool id = the tool's name and the trust of
 * `trust` (discovery document, revocation, pins, expiry). Never writes a pin unless the
 * signature verified and first use is allowed (`trustFirstUse`).
 *
 * @example
 * ```ts
 * import { generateKeyPair, MemoryPinStore } from "jsr:@schemapin/schemapin";
 * import { buildDiscoveryDocument } from "jsr:@schemapin/schemapin/discovery";
 * import { signToolList, verifyToolSignature } from "./signatures.ts";
 * const key = generateKeyPair();
 * const { tools } = signToolList([{ name: "add", inputSchema: { type: "object" } }], key, {
 *   domain: "example.com",
 * });
 * const check = await verifyToolSignature(tools[0], {
 *   domain: "example.com",
 *   discovery: buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Example" }),
 *   pinStore: new MemoryPinStore(),
 *   trustFirstUse: true,
 * });
 * if (check.status !== "valid") console.error(check.errorCode, check.errorMessage);
 * ```
 */
export async function verifyToolSignature(
  tool: JsonObject,
  trust: LineageToolTrust,
): Promise<ToolSignatureCheck> {
  checkArg("verifyToolSignature", "tool", tool, "object");
  checkArg("verifyToolSignature", "trust", trust, "object");
  const field = readToolSignature(tool);
  if (field.kind === "unsigned") return { status: "unsigned", errorMessage: field.reason };
  if (field.kind === "malformed") {
    return { status: "invalid", errorCode: "SIGNATURE_INVALID", errorMessage: field.reason };
  }
  if (field.domain !== undefined) {
    const dc = checkDomain(field.domain);
    const expected = checkDomain(trust.domain);
    if (!dc.ok || !expected.ok || dc.domain !== expected.domain) {
      return {
        status: "invalid",
        errorCode: "DOMAIN_MISMATCH",
        errorMessage: `the tool names domain ${JSON.stringify(field.domain)} in _meta, but the ` +
          `trusted domain is ${JSON.stringify(trust.domain)}`,
      };
    }
  }
  let contract: JsonObject;
  try {
    contract = projectContract(tool);
  } catch (e) {
    return {
      status: "invalid",
      errorCode: "INPUT_INVALID",
      errorMessage: (e as Error).message,
    };
  }
  const { beforePin, lineage, ...flow } = trust;
  const result = await verifySchemaOfflineWithHook({
    ...flow,
    schema: contract,
    signature: field.signature,
    toolId: contract.name as string,
  }, lineage ? lineageBeforePinHook(lineage, beforePin) : beforePin);
  if (lineage) await advanceLineage(lineage, result);
  if (result.valid) return { status: "valid", result };
  return {
    status: "invalid",
    errorCode: result.errorCode,
    errorMessage: result.errorMessage,
    result,
  };
}
