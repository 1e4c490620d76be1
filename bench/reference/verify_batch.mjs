// Naive reference: verify every DIR/*.json against SIGDIR/<name>.sig (bare Base64), the way a
// Node script using the reference SDK's verifySchemaOffline does it: per schema, read and
// JSON.parse it, load the discovery key and fingerprint, check revoked_keys, check-and-pin in
// an in-memory map, canonicalize, SHA-256, and crypto.verify over SHA-256(hash). The pin map is
// read once from PINS (if present) and written back once at the end with writeFileSync
// (no lock, no fsync, no temporary file).
//
//   node bench/reference/verify_batch.mjs DIR SIGDIR DISCOVERY.json PINS.json DOMAIN [-q]
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { verify } from "node:crypto";
import { canonicalize, loadPublicKey, sha256 } from "./common.mjs";

const [dir, sigDir, discoveryPath, pinsPath, domain, quiet] = process.argv.slice(2);
const discovery = JSON.parse(readFileSync(discoveryPath, "utf8"));
const pins = new Map(
  existsSync(pinsPath) ? Object.entries(JSON.parse(readFileSync(pinsPath, "utf8"))) : [],
);
const names = readdirSync(dir).filter((n) => n.endsWith(".json")).sort();
let valid = 0;
let out = "";
for (const name of names) {
  const schema = JSON.parse(readFileSync(`${dir}/${name}`, "utf8"));
  const signature = readFileSync(`${sigDir}/${name}.sig`, "utf8").trim();
  const { key, fingerprint } = loadPublicKey(discovery.public_key_pem);
  let ok = !(discovery.revoked_keys ?? []).includes(fingerprint);
  const pinKey = `${schema.name}@${domain}`;
  const pinned = pins.get(pinKey);
  if (ok && pinned !== undefined && pinned !== fingerprint) ok = false;
  if (ok) {
    const hash = sha256(canonicalize(schema));
    ok = verify("sha256", hash, key, Buffer.from(signature, "base64"));
  }
  if (ok && pinned === undefined) pins.set(pinKey, fingerprint);
  if (ok) valid++;
  if (!ok || quiet !== "-q") out += `${ok ? "OK  " : "FAIL"} ${dir}/${name}\n`;
}
writeFileSync(pinsPath, JSON.stringify(Object.fromEntries(pins)));
process.stdout.write(out + `${valid} of ${names.length} schema(s) verified\n`);
process.exitCode = valid === names.length ? 0 : 1;
