// Naive reference: sign every DIR/*.json into OUTDIR/<name>.sig (bare Base64), the way a Node
// script using the reference SDK's signSchema does it: per schema, read and JSON.parse it,
// canonicalize, SHA-256, crypto.sign over SHA-256(hash), writeFileSync (no fsync, no
// temporary file).
//
//   node bench/reference/sign_batch.mjs DIR OUTDIR PRIVATE.pem [-q]
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createPrivateKey, sign } from "node:crypto";
import { canonicalize, sha256 } from "./common.mjs";

const [dir, outDir, keyPath, quiet] = process.argv.slice(2);
const key = createPrivateKey(readFileSync(keyPath, "utf8"));
mkdirSync(outDir, { recursive: true });
const names = readdirSync(dir).filter((n) => n.endsWith(".json")).sort();
let out = "";
for (const name of names) {
  const schema = JSON.parse(readFileSync(`${dir}/${name}`, "utf8"));
  const signature = sign("sha256", sha256(canonicalize(schema)), key).toString("base64");
  writeFileSync(`${outDir}/${name}.sig`, signature + "\n");
  if (quiet !== "-q") out += `signed ${dir}/${name}\n`;
}
process.stdout.write(out + `${names.length} of ${names.length} schema(s) signed\n`);
