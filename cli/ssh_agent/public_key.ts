/**
 * Public keys as SSH writes them: an OpenSSH public key line (`ecdsa-sha2-nistp256 AAAA…
 * comment`, the `.pub` file) and the key blob inside it (RFC 5656 §3.1: `string
 * "ecdsa-sha2-nistp256"`, `string "nistp256"`, `string Q` with Q the SEC1 point). A PEM
 * `PUBLIC KEY` is accepted too, so the key given to an agent signer can be the same file a
 * discovery document publishes.
 *
 * Only `ecdsa-sha2-nistp256` keys are SchemaPin keys (§3: ECDSA P-256). Every other type is
 * refused naming it; FIDO security keys (`sk-…@openssh.com`) with the reason: a FIDO key does
 * not sign the data it is given but a structure of its own (the SHA-256 of the application,
 * a flags byte, a counter and the SHA-256 of the data), so its signature is not an ECDSA
 * signature over SchemaPin's signing input and no verifier would accept it.
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import { encodeBase64, scanBase64 } from "../../lib/crypto/base64.ts";
import { derBitString, derOid, derSequence, OID } from "../../lib/crypto/der.ts";
import { sha256 } from "../../lib/crypto/hash.ts";
import { parsePublicKeyPem, type PublicKey, publicKeyFromDer } from "../../lib/crypto/keys.ts";
import { concatBytes, SshReader, sshString } from "./wire.ts";

/** The one SSH key type SchemaPin can use. */
export const P256_KEY_TYPE = "ecdsa-sha2-nistp256";

const P256_HINT = "SchemaPin signs with ECDSA P-256 only (§3): use an ecdsa-sha2-nistp256 key " +
  "(`ssh-keygen -t ecdsa -b 256`, a YubiKey PIV key of algorithm ECCP256, or a Secure Enclave " +
  "key such as Secretive's)";

const FIDO_REASON = "a FIDO security key does not sign the data it is given but a structure of " +
  "its own (SHA-256 of the application, flags, a counter and SHA-256 of the data), so its " +
  "signature is not an ECDSA signature over SchemaPin's signing input and would not verify";

/** What each refused SSH key type is, in words. */
const FOREIGN_TYPES: Record<string, string> = {
  "ssh-ed25519": "an Ed25519 key",
  "ssh-rsa": "an RSA key",
  "ssh-dss": "a DSA key",
  "ecdsa-sha2-nistp384": "an ECDSA P-384 key",
  "ecdsa-sha2-nistp521": "an ECDSA P-521 key",
};

/** An SSH public key that SchemaPin can sign with. */
export interface SshPublicKey {
  /** The ECDSA P-256 public key. */
  readonly publicKey: PublicKey;
  /** The SSH key blob (RFC 5656 §3.1), the name an agent knows the key by. */
  readonly keyBlob: Uint8Array;
  /** The comment of the OpenSSH line (`""` when none, or for a PEM key). */
  readonly comment: string;
  /** OpenSSH's fingerprint, `SHA256:` + unpadded Base64 of SHA-256(blob), as `ssh-add -l` shows. */
  readonly sshFingerprint: string;
}

/**
 * Why an SSH key of type `type` cannot be used, or undefined for `ecdsa-sha2-nistp256`.
 *
 * @example
 * ```ts
 * import { refusedKeyType } from "./public_key.ts";
 * refusedKeyType("ssh-ed25519"); // "an Ed25519 key (ssh-ed25519), not ECDSA P-256. …"
 * ```
 */
export function refusedKeyType(type: string): string | undefined {
  if (type === P256_KEY_TYPE) return undefined;
  const shown = JSON.stringify(type).slice(1, -1);
  if (type.startsWith("sk-")) {
    return `a FIDO security key (${shown}), refused: ${FIDO_REASON}. ${P256_HINT}`;
  }
  if (type.endsWith("-cert-v01@openssh.com")) {
    return `an OpenSSH certificate (${shown}), not a public key: give the key's own .pub ` +
      `(an ${P256_KEY_TYPE} key), not its -cert.pub`;
  }
  const what = FOREIGN_TYPES[type] ?? "an SSH key of another type";
  return `${what} (${shown}), not ECDSA P-256. ${P256_HINT}`;
}

function keyError(
  source: string | undefined,
  message: string,
  details: Record<string, unknown> = {},
): SchemaPinError {
  const where = source === undefined ? "SSH public key" : `SSH public key in ${source}`;
  return new SchemaPinError("KEY_INVALID", `${where}: ${message}`, {
    ...(source === undefined ? {} : { source }),
    ...details,
  });
}

/**
 * `SHA256:` + unpadded Base64 of SHA-256 of a key blob: OpenSSH's fingerprint of a key.
 *
 * @example
 * ```ts
 * import { sshFingerprint } from "./public_key.ts";
 * sshFingerprint(new Uint8Array()); // "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU"
 * ```
 */
export function sshFingerprint(blob: Uint8Array): string {
  return "SHA256:" + encodeBase64(sha256(blob)).replace(/=+$/, "");
}

/**
 * The key blob of a P-256 public key (RFC 5656 §3.1), with the uncompressed point.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "../../lib/crypto/keys.ts";
 * import { sshKeyBlob } from "./public_key.ts";
 * sshKeyBlob(generateKeyPair().publicKey).length; // 104
 * ```
 */
export function sshKeyBlob(publicKey: PublicKey): Uint8Array<ArrayBuffer> {
  return concatBytes(sshString(P256_KEY_TYPE), sshString("nistp256"), sshString(publicKey.point));
}

/**
 * Reads a key blob: the P-256 public key it holds.
 *
 * @throws {SchemaPinError} `KEY_INVALID` for a blob of another type (naming it) or a malformed
 *   one (naming the field and the byte).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "../../lib/crypto/keys.ts";
 * import { publicKeyFromSshBlob, sshKeyBlob } from "./public_key.ts";
 * const { publicKey } = generateKeyPair();
 * publicKeyFromSshBlob(sshKeyBlob(publicKey)).fingerprint === publicKey.fingerprint; // true
 * ```
 */
export function publicKeyFromSshBlob(blob: Uint8Array, source?: string): PublicKey {
  const r = new SshReader(blob, (message, offset) => {
    throw keyError(source, `malformed key data: ${message} (byte ${offset})`, { offset });
  });
  const type = r.text("key type");
  const refused = refusedKeyType(type);
  if (refused !== undefined) throw keyError(source, `this is ${refused}`, { keyType: type });
  const curve = r.text("curve name");
  if (curve !== "nistp256") {
    throw keyError(source, `the ${P256_KEY_TYPE} key names curve ${JSON.stringify(curve)}`);
  }
  const q = r.string("public point Q");
  r.finish("key data");
  const spki = derSequence(
    derSequence(derOid(OID.ecPublicKey), derOid(OID.prime256v1)),
    derBitString(q),
  );
  try {
    return publicKeyFromDer(spki);
  } catch (e) {
    if (!(e instanceof SchemaPinError)) throw e;
    throw keyError(source, e.message.replace(/^public key: /, "the key's point Q: "), e.details);
  }
}

/**
 * Parses the public key of an SSH agent signer: an OpenSSH public key line (`ecdsa-sha2-nistp256
 * AAAA… comment`, a `.pub` file) or a PEM `PUBLIC KEY`. Lines starting with `#` and blank lines
 * are ignored; exactly one key must remain.
 *
 * @param text The file's text.
 * @param source Where it came from (a file name), for messages and `details.source`.
 * @throws {SchemaPinError} `KEY_INVALID`: a key that is not `ecdsa-sha2-nistp256`, naming its
 *   type (Ed25519, RSA, P-384, P-521; a FIDO `sk-` key with the reason), a private key, a
 *   line whose type and key data disagree, malformed Base64 or key data.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { parseSshPublicKey } from "./public_key.ts";
 * const { publicKey } = generateKeyPair();
 * const fromPem = parseSshPublicKey(publicKey.pem, "signer.pem");
 * fromPem.sshFingerprint; // "SHA256:…", as `ssh-add -l` shows it
 * const line = `ecdsa-sha2-nistp256 ${btoa(String.fromCharCode(...fromPem.keyBlob))} me@host`;
 * parseSshPublicKey(line, "id_ecdsa.pub").publicKey.fingerprint === publicKey.fingerprint; // true
 * ```
 */
export function parseSshPublicKey(text: string, source?: string): SshPublicKey {
  checkArg("parseSshPublicKey", "text", text, "string");
  checkArg("parseSshPublicKey", "source", source, "string", true);
  if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(text)) {
    throw keyError(
      source,
      "a private key was given where its public key was expected: give the .pub file " +
        "(`ssh-keygen -y -f KEY > KEY.pub`); with an SSH agent the private key stays in the agent",
      { keyType: "private key" },
    );
  }
  if (text.includes("-----BEGIN ")) {
    const publicKey = parsePublicKeyPem(text, source);
    const keyBlob = sshKeyBlob(publicKey);
    return Object.freeze({
      publicKey,
      keyBlob,
      comment: "",
      sshFingerprint: sshFingerprint(keyBlob),
    });
  }
  if (text.includes("---- BEGIN SSH2 PUBLIC KEY ----")) {
    throw keyError(
      source,
      "this is an RFC 4716 (SSH2) public key file; convert it to an OpenSSH line with " +
        "`ssh-keygen -i -f KEY.pub`",
    );
  }
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/).map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  if (lines.length !== 1) {
    throw keyError(
      source,
      lines.length === 0
        ? "no key: expected an OpenSSH public key line (`ecdsa-sha2-nistp256 AAAA… comment`) " +
          "or a PEM PUBLIC KEY"
        : `${lines.length} keys; give exactly one`,
    );
  }
  const [type, data, ...rest] = lines[0].split(/\s+/);
  const refused = refusedKeyType(type);
  if (refused !== undefined) throw keyError(source, `this is ${refused}`, { keyType: type });
  if (data === undefined) throw keyError(source, `the ${type} line has no key data`);
  const blob = scanBase64(data);
  if (!(blob instanceof Uint8Array)) {
    throw keyError(
      source,
      `the key data is not valid Base64: ${blob.problem} at offset ${blob.offset}`,
    );
  }
  const blobType = new SshReader(blob, (message) => {
    throw keyError(source, `malformed key data: ${message}`);
  }).text("key type");
  if (blobType !== type) {
    throw keyError(
      source,
      `the line says ${type} but its key data is ${JSON.stringify(blobType).slice(1, -1)}`,
      { keyType: blobType },
    );
  }
  const publicKey = publicKeyFromSshBlob(blob, source);
  return Object.freeze({
    publicKey,
    keyBlob: blob,
    comment: rest.join(" "),
    sshFingerprint: sshFingerprint(blob),
  });
}
