// A skill folder's hash as JSON fields (cli/skill/hash_json.ts), as hash-skill --json prints them.
import assert from "node:assert/strict";
import { hashSkillFiles } from "../../lib/skill/hash.ts";
import { skillHashJson } from "../../cli/skill/hash_json.ts";
import { throwsWith } from "../schema_pin_error.ts";

const enc = new TextEncoder();

Deno.test("skillHashJson: the hash, the count, the bytes and the manifest", () => {
  const hash = hashSkillFiles([
    { path: "SKILL.md", content: enc.encode("# demo\n") },
    { path: "scripts/run.sh", content: enc.encode("echo hi\n") },
  ]);
  const fields = skillHashJson(hash);
  assert.deepEqual(Object.keys(fields), ["skill_hash", "files", "total_bytes", "file_manifest"]);
  assert.equal(fields.skill_hash, hash.skillHash);
  assert.equal(fields.files, 2);
  assert.equal(fields.total_bytes, 15);
  assert.deepEqual(Object.keys(fields.file_manifest), ["SKILL.md", "scripts/run.sh"]);
  assert.match(fields.file_manifest["SKILL.md"], /^sha256:[0-9a-f]{64}$/);
});

Deno.test("skillHashJson refuses what is not a hash", () => {
  for (const bad of [undefined, null, "sha256:ab"]) {
    throwsWith(
      () => skillHashJson(bad as never),
      "INPUT_INVALID",
      /skillHashJson: hash must be an object/,
    );
  }
});
