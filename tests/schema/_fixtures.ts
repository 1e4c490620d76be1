// Shared test fixtures for the schema, discovery, revocation, pins, a2a and CLI tests.
import { generateKeyPair, type PrivateKey } from "../../lib/crypto/keys.ts";
import { parseJson } from "../../lib/json/parse.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import type { PinRecord, PinStore } from "../../lib/pins/store.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";

/** The reference-SDK interop fixtures. */
export const INTEROP = new URL("../fixtures/interop/reference-js/", import.meta.url);
/** The reference signed bundle. */
export const INTEROP_BUNDLE = new URL(
  "../fixtures/interop/reference-bundle/signed_bundle.json",
  import.meta.url,
);

/** Reads and strictly parses an interop JSON fixture. */
export function interopJson(name: string): JsonValue {
  return parseJson(Deno.readFileSync(new URL(name, INTEROP)), name);
}

/** Reads an interop text fixture. */
export function interopText(name: string): string {
  return Deno.readTextFileSync(new URL(name, INTEROP));
}

/** Two test signing keys, made once per process. */
export const SIGNER: PrivateKey = generateKeyPair();
/** Another key. */
export const OTHER: PrivateKey = generateKeyPair();

/** A discovery document for `key`, with optional extra fields. */
export function discoveryFor(
  key: PrivateKey = SIGNER,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    schema_version: "1.4",
    developer_name: "Test Developer",
    public_key_pem: key.publicKey.pem,
    ...extra,
  };
}

/** A typical MCP tool schema. */
export function toolSchema(name = "calculate_sum"): Record<string, unknown> {
  return {
    name,
    description: "Calculates the sum",
    inputSchema: {
      type: "object",
      properties: { b: { type: "integer" }, a: { type: "integer" } },
      required: ["a", "b"],
    },
  };
}

/** A pin store that records every call, for ordering assertions. */
export class SpyPinStore implements PinStore {
  readonly calls: string[] = [];
  readonly inner: MemoryPinStore;
  constructor(records: PinRecord[] = []) {
    this.inner = new MemoryPinStore(records);
  }
  get(toolId: string, domain: string): Promise<PinRecord | undefined> {
    this.calls.push(`get ${toolId}@${domain}`);
    return this.inner.get(toolId, domain);
  }
  list(): Promise<PinRecord[]> {
    this.calls.push("list");
    return this.inner.list();
  }
  transact<R>(
    change: (pins: Map<string, PinRecord>) => { changed: boolean; result: R },
  ): Promise<R> {
    this.calls.push("transact");
    return this.inner.transact(change);
  }
}

/** A fresh temporary directory, removed by the returned function. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-test-" });
  return { dir, cleanup: () => Deno.remove(dir, { recursive: true }) };
}
