/**
 * Signing a lock file (`schemapin contract sign`): the signature file refused when it exists
 * (unless `force`) before the key is asked for, the lock read and validated, then signed
 * ({@linkcode signLockWithSigner}, cli/contractpin/lock_signature.ts) and the document written
 * through the caller's files.
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import type { Signer } from "../../lib/crypto/signer.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { exists } from "../../lib/runtime/atomic_write.ts";
import {
  formatSchemaSignatureDocument,
  type SchemaSignatureDocument,
} from "../../lib/schema/document.ts";
import type { ContractFiles } from "../../lib/contractpin/files.ts";
import { parseLock } from "../../lib/contractpin/lock.ts";
import { type LockSignOptions, signLockWithSigner } from "./lock_signature.ts";

/**
 * What {@linkcode signLockFile} signs, and where it writes.
 *
 * @example
 * ```ts
 * import type { SignLockFileRequest } from "./sign_lock.ts";
 * const request: SignLockFileRequest = {
 *   lockPath: "contractpin.lock",
 *   sigPath: "contractpin.lock.sig",
 *   options: { domain: "example.com" },
 * };
 * ```
 */
export interface SignLockFileRequest {
  /** The lock file. */
  readonly lockPath: string;
  /** The signature file to write. */
  readonly sigPath: string;
  /** Replace an existing signature file (otherwise it is refused, before the key is asked for). */
  readonly force?: boolean;
  /** The signature's metadata (signing time, expiry, domain, signer kid). */
  readonly options?: LockSignOptions;
}

/**
 * What {@linkcode signLockFile} wrote: the signature document, and the signer that made it.
 *
 * @example
 * ```ts ignore
 * import type { SignedLockFile } from "./sign_lock.ts";
 * const { document, signer }: SignedLockFile = await signLockFile(request, files, loadSigner);
 * console.log(document.schema_hash, signer.publicKey.fingerprint);
 * ```
 */
export interface SignedLockFile {
  /** The signature document written. */
  readonly document: SchemaSignatureDocument;
  /** The signer that made it (its public key names the key). */
  readonly signer: Signer;
}

/**
 * Signs the lock at `request.lockPath` into `request.sigPath`: an existing signature file is
 * refused unless `force` — checked before `loadSigner` is called, so no passphrase is asked
 * for in vain — then the lock is read with `files.read` and validated (a corrupt lock names
 * its file), signed by the signer `loadSigner` gives, and the document written with
 * `files.write`.
 *
 * @throws {SchemaPinError} `IO_FAILED` for a signature file that exists (without `force`) or
 *   cannot be checked; what `files` and `loadSigner` throw; as `parseLock` for a corrupt
 *   lock; `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts ignore
 * import { signLockFile } from "./sign_lock.ts";
 * const { document } = await signLockFile(
 *   { lockPath: "contractpin.lock", sigPath: "contractpin.lock.sig", options: { domain: "example.com" } },
 *   { read: (p) => Deno.readFile(p), write: (p, text) => Deno.writeTextFile(p, text) },
 *   () => sshAgentSigner(publicKeyText),
 * );
 * document.schema_hash; // "sha256:…"
 * ```
 */
export async function signLockFile(
  request: SignLockFileRequest,
  files: Pick<ContractFiles, "read" | "write">,
  loadSigner: () => Promise<Signer>,
): Promise<SignedLockFile> {
  checkArg("signLockFile", "request", request, "object");
  checkArg("signLockFile", "request.lockPath", request.lockPath, "string");
  checkArg("signLockFile", "request.sigPath", request.sigPath, "string");
  checkArg("signLockFile", "files", files, "object");
  checkArg("signLockFile", "loadSigner", loadSigner, "function");
  const { lockPath, sigPath } = request;
  if (request.force !== true && await exists(sigPath)) {
    throw new SchemaPinError(
      "IO_FAILED",
      `${sigPath} already exists; nothing was written — add --force to replace it`,
      { path: sigPath },
    );
  }
  const bytes = await files.read(lockPath);
  parseLock(bytes, lockPath); // a corrupt lock is bad input, naming the file
  const lock = parseJson(bytes, lockPath);
  const signer = await loadSigner();
  const document = await signLockWithSigner(lock, signer, request.options ?? {});
  await files.write(sigPath, formatSchemaSignatureDocument(document));
  return { document, signer };
}
