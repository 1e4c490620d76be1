// Naive reference: hash a skill folder the way the reference SDK's canonicalizeSkill does it —
// readdirSync(withFileTypes) recursively, lstatSync each file, readFileSync it whole,
// createHash per file, "sha256:" + hex into a manifest object, then the root hash — but with
// the §4b 1.4 entry and root construction, so its skill_hash can be checked against ours.
// Prints the elapsed time of the hashing itself (after start-up) and the skill_hash.
//
//   node bench/reference/skill_hash.mjs DIR [--json]
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { since } from "./common.mjs";

const [dir, json] = process.argv.slice(2);
const start = process.hrtime.bigint();

function be64(n) {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

const entries = [];
function walk(abs, rel) {
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (rel === "" && entry.name === ".schemapin.sig") continue;
    const full = `${abs}/${entry.name}`;
    const st = lstatSync(full);
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) walk(full, path);
    else entries.push({ path, full });
  }
}
walk(dir, "");
const pathBuf = (p) => Buffer.from(p, "utf8");
entries.sort((a, b) => Buffer.compare(pathBuf(a.path), pathBuf(b.path)));
const manifest = {};
const root = createHash("sha256");
for (const e of entries) {
  const content = readFileSync(e.full);
  const p = pathBuf(e.path);
  const digest = createHash("sha256").update(Buffer.from([0x66])).update(be64(p.length))
    .update(p).update(be64(content.length)).update(content).digest();
  manifest[e.path] = "sha256:" + digest.toString("hex");
  root.update(be64(p.length)).update(p).update(digest);
}
const skillHash = "sha256:" + root.digest("hex");
const ms = since(start);
process.stderr.write(`reference hashed ${entries.length} files in ${ms.toFixed(1)} ms\n`);
if (json === "--json") {
  process.stdout.write(JSON.stringify({ skill_hash: skillHash, file_manifest: manifest }, null, 2));
} else {
  let text = "";
  for (const [path, digest] of Object.entries(manifest)) text += `${digest}  ${path}\n`;
  process.stdout.write(text + `skill_hash ${skillHash} (${entries.length} files)\n`);
}
