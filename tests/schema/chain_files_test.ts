// The chain check between two signature files (cli/schema/chain_files.ts), without the CLI.
import assert from "node:assert/strict";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { signSchemaDocument } from "../../lib/schema/document.ts";
import { checkChainFiles } from "../../cli/schema/chain_files.ts";
import { rejectsWith } from "../schema_pin_error.ts";
import { withTempDir } from "../cli/run.ts";

const key = generateKeyPair();
const read = async (path: string) => {
  try {
    return await Deno.readFile(path);
  } catch {
    throw new SchemaPinError("IO_FAILED", `cannot read ${path}`, { path });
  }
};

async function versions(dir: string): Promise<string> {
  const v1 = signSchemaDocument({ name: "add", v: 1 }, key, { schemaVersion: "1" });
  const v2 = signSchemaDocument({ name: "add", v: 2 }, key, { previousHash: v1.schema_hash });
  const v3 = signSchemaDocument({ name: "add", v: 3 }, key, { schemaVersion: "3" });
  await Deno.writeTextFile(`${dir}/v1.sig`, JSON.stringify(v1));
  await Deno.writeTextFile(`${dir}/v2.sig`, JSON.stringify(v2));
  await Deno.writeTextFile(`${dir}/v3.sig`, JSON.stringify(v3));
  return v1.schema_hash;
}

Deno.test("checkChainFiles: a document whose previous_hash names the other succeeds it", async () => {
  await withTempDir(async (dir) => {
    const hash = await versions(dir);
    const v2 = JSON.parse(await Deno.readTextFile(`${dir}/v2.sig`));
    assert.equal(v2.previous_hash, hash);
    assert.deepEqual(await checkChainFiles(`${dir}/v2.sig`, `${dir}/v1.sig`, read), {
      valid: true,
      hash: v2.schema_hash,
    });
  });
});

Deno.test("checkChainFiles: no previous_hash, or one naming another document, fails", async () => {
  await withTempDir(async (dir) => {
    await versions(dir);
    const none = await checkChainFiles(`${dir}/v3.sig`, `${dir}/v1.sig`, read);
    assert.equal(none.valid, false);
    const mismatch = await checkChainFiles(`${dir}/v2.sig`, `${dir}/v3.sig`, read);
    assert.equal(mismatch.valid, false);
    assert.notEqual(
      (none as { reason: string }).reason,
      (mismatch as { reason: string }).reason,
    );
  });
});

Deno.test("checkChainFiles: a missing, malformed or non-document file is an input error", async () => {
  await withTempDir(async (dir) => {
    await versions(dir);
    await rejectsWith(checkChainFiles(`${dir}/none.sig`, `${dir}/v1.sig`, read), "IO_FAILED");
    await Deno.writeTextFile(`${dir}/bad.sig`, "{");
    await rejectsWith(
      checkChainFiles(`${dir}/v2.sig`, `${dir}/bad.sig`, read),
      "JSON_INVALID",
      /^signature document /,
    );
    await Deno.writeTextFile(`${dir}/list.sig`, "[]");
    await rejectsWith(
      checkChainFiles(`${dir}/list.sig`, `${dir}/v1.sig`, read),
      "INPUT_INVALID",
      /is not a signature document/,
    );
  });
});
