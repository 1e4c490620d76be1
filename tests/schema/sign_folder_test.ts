// A folder of schemas signed (cli/schema/sign_folder.ts), without the CLI: every schema
// signed into <outDir>/<name>.sig and counted in order, a schema that cannot be signed its
// own failure, and a batch that would replace a file refused before anything is written.
import assert from "node:assert/strict";
import { keySigner } from "../../cli/keys/signer.ts";
import { privateKeySigner } from "../../lib/crypto/signer.ts";
import { verifySchemaSignature } from "../../lib/crypto/ecdsa.ts";
import { canonicalizeSchemapinV1Bytes } from "../../lib/json/canonical_schemapin.ts";
import type { SignedBatchItem } from "../../lib/schema/batch.ts";
import { signSchemaFolder } from "../../cli/schema/sign_folder.ts";
import { rejectsWith } from "../schema_pin_error.ts";
import { SIGNER, toolSchema } from "./_fixtures.ts";
import { withTempDir } from "../cli/run.ts";

const read = (path: string) => Deno.readFile(path);

type Request = Parameters<typeof signSchemaFolder>[0];

/** A bare-signature request for `<dir>/in` into `<dir>/sigs`, with `over` on top. */
function request(dir: string, over: Partial<Request> = {}): Request {
  return {
    dir: `${dir}/in`,
    pattern: "*.json",
    outDir: `${dir}/sigs`,
    format: "bare",
    signer: keySigner(SIGNER),
    read,
    ...over,
  };
}

function schemas(dir: string): void {
  Deno.mkdirSync(`${dir}/in`);
  Deno.writeTextFileSync(`${dir}/in/a.json`, JSON.stringify(toolSchema("a")));
  Deno.writeTextFileSync(`${dir}/in/b.json`, "{");
  Deno.writeTextFileSync(`${dir}/in/c.json`, JSON.stringify(toolSchema("c")));
}

Deno.test("signSchemaFolder: each schema signed and counted in order; a bad one fails alone", async () => {
  await withTempDir(async (dir) => {
    schemas(dir);
    const seen: SignedBatchItem[] = [];
    const outcome = await signSchemaFolder(
      request(dir, { threads: 0, onItem: (item) => void seen.push(item) }),
    );
    assert.deepEqual(seen.map((i) => i.path), ["a", "b", "c"].map((n) => `${dir}/in/${n}.json`));
    assert.equal(outcome.total, 3);
    assert.equal(outcome.failed, 1);
    assert.equal(outcome.worst, 2); // JSON_INVALID
    assert.deepEqual(outcome.results.map((r) => r.ok), [true, false, true]);
    assert.equal(outcome.results[0].out, `${dir}/sigs/a.json.sig`);
    assert.equal((outcome.results[1].error as { code: string }).code, "JSON_INVALID");
    const sig = Deno.readTextFileSync(`${dir}/sigs/a.json.sig`).trim();
    assert.equal(outcome.results[0].signature, sig);
    const canonical = canonicalizeSchemapinV1Bytes(toolSchema("a"));
    assert.ok(verifySchemaSignature(canonical, sig, SIGNER.publicKey).valid);
  });
});

Deno.test("signSchemaFolder: a signer without its key in this process signs too (documents)", async () => {
  await withTempDir(async (dir) => {
    schemas(dir);
    Deno.removeSync(`${dir}/in/b.json`);
    const outcome = await signSchemaFolder(request(dir, {
      format: "document",
      signer: privateKeySigner(SIGNER), // not keySigner: no private key to hand to threads
      docOptions: { domain: "example.com", signedAt: 1_700_000_000_000 },
    }));
    assert.equal(outcome.failed, 0);
    const doc = JSON.parse(Deno.readTextFileSync(`${dir}/sigs/c.json.sig`));
    assert.equal(doc.domain, "example.com");
    assert.deepEqual(outcome.results[1].document, doc);
  });
});

Deno.test("signSchemaFolder: an existing signature file stops the batch before it writes", async () => {
  await withTempDir(async (dir) => {
    schemas(dir);
    Deno.mkdirSync(`${dir}/sigs`);
    Deno.writeTextFileSync(`${dir}/sigs/a.json.sig`, "old\n");
    await rejectsWith(
      signSchemaFolder(request(dir)),
      "IO_FAILED",
      /1 signature file\(s\) already exist .*add --force to replace them/,
    );
    assert.equal(Deno.readTextFileSync(`${dir}/sigs/a.json.sig`), "old\n");
    assert.throws(() => Deno.statSync(`${dir}/sigs/c.json.sig`));
  });
});

Deno.test("signSchemaFolder: a missing folder or a signer that is not one is refused", async () => {
  await withTempDir(async (dir) => {
    await rejectsWith(
      signSchemaFolder(request(dir, { dir: `${dir}/none` })),
      "IO_FAILED",
    );
    await rejectsWith(
      signSchemaFolder(request(dir, { dir, signer: SIGNER as never })),
      "INPUT_INVALID",
      /signSchemaFolder: options\.signer must be a Signer/,
    );
    assert.throws(() => Deno.statSync(`${dir}/sigs`), "nothing created");
  });
});
