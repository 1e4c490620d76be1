/**
 * A second, independent implementation of the legacy (1.3) skill signer as the reference
 * SchemaPin SDKs behave (see tests/fixtures/interop/REFERENCE-DIVERGENCES.md, "Skills"): it
 * shares no code with lib/, so tests can make reference-style folders the checked-in fixture
 * does not cover (a nested `.schemapin.sig`, a "1.4" label). It is checked against the
 * reference JavaScript SDK's own `legacy_skill` fixture in hash_test.ts.
 *
 * Behaviour reproduced: recursive walk; entries that are not directories are files; a file
 * named `.schemapin.sig` is skipped at every depth; symbolic links are skipped; per file
 * `hex(SHA-256(relative path ‖ content))`; root `SHA-256` over the hex digests concatenated
 * in path order; ECDSA P-256 with SHA-256 over the 32-byte root, DER, Base64. The document is
 * written as `JSON.stringify(doc, null, 2) + "\n"`; with `expiresAt` it is labelled "1.4" and
 * carries `expires_at` after `signed_at`, still signing only the root hash.
 */
import { createHash, createSign } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";

const SIG = ".schemapin.sig";

function walk(root: string, rel: string, out: Map<string, string>): void {
  const here = rel === "" ? root : `${root}/${rel}`;
  const entries = readdirSync(here, { withFileTypes: true });
  const files = entries.filter((e) => !e.isDirectory()).map((e) => e.name).sort();
  const dirs = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  for (const name of files) {
    if (name === SIG) continue; // at every depth
    const path = rel === "" ? name : `${rel}/${name}`;
    if (lstatSync(`${root}/${path}`).isSymbolicLink()) continue;
    const digest = createHash("sha256")
      .update(Buffer.from(path, "utf-8"))
      .update(readFileSync(`${root}/${path}`))
      .digest("hex");
    out.set(path, "sha256:" + digest);
  }
  for (const name of dirs) walk(root, rel === "" ? name : `${rel}/${name}`, out);
}

/** The legacy manifest and root hash of `dir`, computed the reference SDKs' way. */
export function referenceLegacyHash(
  dir: string,
): { manifest: Record<string, string>; rootHash: Buffer } {
  const map = new Map<string, string>();
  walk(dir, "", map);
  const paths = [...map.keys()].sort();
  const manifest: Record<string, string> = {};
  for (const p of paths) manifest[p] = map.get(p)!;
  const rootHash = createHash("sha256")
    .update(paths.map((p) => map.get(p)!.slice("sha256:".length)).join(""), "utf-8")
    .digest();
  return { manifest, rootHash };
}

/** Options of {@linkcode referenceLegacySign}. */
export interface ReferenceLegacySignOptions {
  privateKeyPem: string;
  domain: string;
  skillName: string;
  signerKid: string;
  signedAt: string;
  /** When given, the document is labelled "1.4" and carries it (still legacy-signed). */
  expiresAt?: string;
}

/** Signs `dir` as the reference SDKs do and writes `dir/.schemapin.sig`; returns the document. */
export function referenceLegacySign(
  dir: string,
  o: ReferenceLegacySignOptions,
): Record<string, unknown> {
  const { manifest, rootHash } = referenceLegacyHash(dir);
  const signature = createSign("SHA256").update(rootHash).sign(o.privateKeyPem).toString(
    "base64",
  );
  const doc: Record<string, unknown> = {
    schemapin_version: o.expiresAt === undefined ? "1.3" : "1.4",
    skill_name: o.skillName,
    skill_hash: "sha256:" + rootHash.toString("hex"),
    signature,
    signed_at: o.signedAt,
    ...(o.expiresAt === undefined ? {} : { expires_at: o.expiresAt }),
    domain: o.domain,
    signer_kid: o.signerKid,
    file_manifest: manifest,
  };
  writeFileSync(`${dir}/${SIG}`, JSON.stringify(doc, null, 2) + "\n", "utf-8");
  return doc;
}
