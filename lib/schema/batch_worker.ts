/**
 * The worker thread of {@linkcode BatchPool} (`batch_pool.ts`): the elliptic-curve work of a
 * batch, with the same library functions the main thread would call, so a result is the same
 * bytes whichever thread made it.
 *
 * - `precheck`: {@linkcode precheckSchemaSignature} for each schema and signature; answers the
 *   ids of the checks that passed (the main thread's flow still runs every step).
 * - `sign`: {@linkcode signOne} for each schema (deterministic RFC 6979 signatures).
 *
 * A {@linkcode SchemaPinError} is sent back as `{code, message, details}` and rebuilt; any other
 * error fails the whole task.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import {
  type PrivateKey,
  privateKeyFromPkcs8Der,
  type PublicKey,
  publicKeyFromDer,
} from "../crypto/keys.ts";
import type { SchemaDocumentOptions } from "./document.ts";
import { precheckSchemaSignature } from "./verify.ts";
import { toHex } from "../crypto/hash.ts";
import { type SignedSchema, signOne } from "./sign_one.ts";

/** A task for a worker thread (one message). */
export type BatchTask =
  | {
    kind: "precheck";
    /** The public key, SubjectPublicKeyInfo DER. */
    spki: Uint8Array;
    items: { schema: unknown; signature: string | Record<string, unknown> }[];
  }
  | {
    kind: "sign";
    /** The private key, PKCS #8 DER. */
    pkcs8: Uint8Array;
    docOptions: SchemaDocumentOptions | undefined;
    items: { schema: unknown; file: string }[];
  };

/** What a `sign` task answers for one schema. */
export type SignOutcome = SignedSchema | { error: SentError };

/** A SchemaPinError as it crosses threads. */
export interface SentError {
  code: SchemaPinError["code"];
  message: string;
  details: SchemaPinError["details"];
}

let publicKey: { der: string; key: PublicKey } | undefined;
let privateKey: { der: string; key: PrivateKey } | undefined;

function runTask(task: BatchTask): unknown[] {
  if (task.kind === "precheck") {
    const der = toHex(task.spki);
    if (publicKey?.der !== der) publicKey = { der, key: publicKeyFromDer(task.spki) };
    const key = publicKey.key;
    return task.items.map((it) => precheckSchemaSignature(it.schema, it.signature, key));
  }
  const der = toHex(task.pkcs8);
  if (privateKey?.der !== der) privateKey = { der, key: privateKeyFromPkcs8Der(task.pkcs8) };
  const key = privateKey.key;
  return task.items.map((it) => {
    try {
      return signOne(it.schema, key, task.docOptions, it.file);
    } catch (e) {
      if (!(e instanceof SchemaPinError)) throw e;
      return { error: { code: e.code, message: e.message, details: e.details } };
    }
  });
}

// Only when loaded as a worker (a module worker has no `document` and `self` is its global).
const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent) => void) | null;
  postMessage?: (m: unknown) => void;
  WorkerGlobalScope?: unknown;
};
if (scope.WorkerGlobalScope !== undefined && typeof scope.postMessage === "function") {
  const post = scope.postMessage.bind(globalThis);
  scope.onmessage = (e: MessageEvent<{ id: number; task: BatchTask }>) => {
    const { id, task } = e.data;
    try {
      post({ id, ok: true, value: runTask(task) });
    } catch (err) {
      post({ id, ok: false, message: err instanceof Error ? err.message : String(err) });
    }
  };
}
