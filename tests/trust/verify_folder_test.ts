// A folder of schemas verified with trust (cli/trust/verify_folder.ts), on real files and
// without the CLI: each schema counted in order with its JSON fields and exit code.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { signSchemaBase64 } from "../../lib/schema/document.ts";
import { listBatch } from "../../lib/schema/batch.ts";
import { loadTrustedVerifier } from "../../lib/trust/verify.ts";
import { type TrustedBatchItem, verifySchemaFolder } from "../../cli/trust/verify_folder.ts";
import { discoveryFor, OTHER, SIGNER, toolSchema } from "../schema/_fixtures.ts";
import { withTempDir } from "../cli/run.ts";

const read = async (path: string) => {
  try {
    return await Deno.readFile(path);
  } catch {
    throw new SchemaPinError("IO_FAILED", `cannot read ${path}`, { path });
  }
};

async function verifierIn(dir: string) {
  Deno.writeTextFileSync(`${dir}/d.json`, JSON.stringify(discoveryFor(SIGNER)));
  return await loadTrustedVerifier({
    plan: { domain: "example.com", discovery: `${dir}/d.json`, chain: [] },
    env: { read },
    pinStore: `${dir}/pins.json`,
    trustFirstUse: true,
  });
}

Deno.test("verifySchemaFolder: each schema's fields and code, in order", async () => {
  await withTempDir(async (dir) => {
    Deno.mkdirSync(`${dir}/s`);
    const write = (name: string, key = SIGNER) => {
      const schema = toolSchema(name);
      Deno.writeTextFileSync(`${dir}/s/${name}.json`, JSON.stringify(schema));
      Deno.writeTextFileSync(`${dir}/s/${name}.json.sig`, signSchemaBase64(schema, key));
    };
    write("a");
    write("b", OTHER);
    Deno.writeTextFileSync(`${dir}/s/c.json`, "{}"); // unsigned
    const seen: TrustedBatchItem[] = [];
    const outcome = await verifySchemaFolder(await verifierIn(dir), {
      dir: `${dir}/s`,
      listing: listBatch(`${dir}/s`, "*.json"),
      sigDir: `${dir}/s`,
      read,
      threads: 0,
      onItem: (item) => void seen.push(item),
    });
    assert.equal(seen.length, 3);
    assert.equal(outcome.total, 3);
    assert.equal(outcome.failed, 2);
    const [a, b, c] = outcome.results;
    assert.equal(a.ok, true);
    assert.equal(a.tool_id, "a");
    assert.equal(a.signature_file, `${dir}/s/a.json.sig`);
    assert.equal(a.key_pinning, "first_use");
    assert.equal((b.error as { code: string }).code, "SIGNATURE_INVALID");
    assert.equal(c.ok, false);
    assert.equal(c.signature_file, undefined, "an unsigned schema has no result");
    assert.equal(outcome.worst, 1); // a bad signature and an unsigned schema are both exit 1
  });
});

Deno.test("verifySchemaFolder: an empty listing verifies nothing", async () => {
  await withTempDir(async (dir) => {
    const outcome = await verifySchemaFolder(await verifierIn(dir), {
      dir,
      listing: { files: [], skipped: ["sub"] },
      sigDir: dir,
      read,
    });
    assert.deepEqual([outcome.total, outcome.failed, outcome.results], [0, 0, []]);
    assert.deepEqual(outcome.skipped, ["sub"]);
  });
});

Deno.test("verifySchemaFolder: a listed schema that is gone is its own failure, exit 2", async () => {
  await withTempDir(async (dir) => {
    const outcome = await verifySchemaFolder(await verifierIn(dir), {
      dir,
      listing: { files: ["gone.json"], skipped: [] },
      sigDir: dir,
      read,
    });
    assert.equal(outcome.failed, 1);
    assert.equal(outcome.worst, 2);
    assert.deepEqual(outcome.results[0], {
      file: `${dir}/gone.json`,
      ok: false,
      error: { code: "IO_FAILED", message: `cannot read ${dir}/gone.json` },
    });
  });
});

Deno.test("verifySchemaFolder refuses a verifier that is not one", async () => {
  await withTempDir(async (dir) => {
    await assert.rejects(
      () =>
        verifySchemaFolder({} as never, {
          dir,
          listing: { files: [], skipped: [] },
          sigDir: dir,
          read,
        }),
      /verifySchemaFolder: verifier must be a verifier/,
    );
  });
});

Deno.test("verifySchemaFolder refuses a listing that is not one", async () => {
  await withTempDir(async (dir) => {
    const verifier = await verifierIn(dir);
    await assert.rejects(
      () => verifySchemaFolder(verifier, { dir, listing: undefined as never, sigDir: dir, read }),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  });
});
