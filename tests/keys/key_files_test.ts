// A new key pair's files checked before anything is asked or written
// (cli/keys/key_files.ts, refuseExistingKeyFiles).
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { keyPairPaths, refuseExistingKeyFiles } from "../../cli/keys/key_files.ts";
import { withTempDir } from "../cli/run.ts";

const refusal = (path: string) => (e: unknown) =>
  e instanceof SchemaPinError && e.code === "IO_FAILED" && e.details.exists === true &&
  e.details.path === path && e.message === `${path} already exists; refusing to overwrite a key`;

Deno.test("refuseExistingKeyFiles: a missing folder or an empty one is free", async () => {
  await withTempDir(async (dir) => {
    await refuseExistingKeyFiles(keyPairPaths(`${dir}/new/`, true));
    await refuseExistingKeyFiles(keyPairPaths(dir, true));
  });
});

Deno.test("refuseExistingKeyFiles: each existing file is refused, the first named", async () => {
  await withTempDir(async (dir) => {
    const paths = keyPairPaths(dir, true);
    await Deno.writeTextFile(paths.discoveryPath!, "{}");
    await assert.rejects(refuseExistingKeyFiles(paths), refusal(paths.discoveryPath!));
    // without the discovery document, that file is not one of the pair's
    await refuseExistingKeyFiles(keyPairPaths(dir, false));
    await Deno.writeTextFile(paths.publicPath, "");
    await assert.rejects(refuseExistingKeyFiles(paths), refusal(paths.publicPath));
    await Deno.mkdir(paths.privatePath);
    await assert.rejects(refuseExistingKeyFiles(paths), refusal(paths.privatePath));
  });
});

Deno.test("refuseExistingKeyFiles: misuse is INPUT_INVALID", async () => {
  await assert.rejects(
    refuseExistingKeyFiles(undefined as never),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
      e.message.startsWith("refuseExistingKeyFiles: paths must be an object"),
  );
});
