// A saved tools/list the user names (cli/mcp/saved_tools.ts): a file or stdin, with what cannot
// be read or is not a tool list reported as bad input (not as a server failure).
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { readSavedToolListing } from "../../cli/mcp/saved_tools.ts";

const enc = new TextEncoder();
const stdin = (text: string) => () => Promise.resolve(enc.encode(text));
const noStdin = () => Promise.reject(new Error("stdin must not be read"));

function isError(code: string, message: RegExp) {
  return (e: unknown) => e instanceof SchemaPinError && e.code === code && message.test(e.message);
}

Deno.test("saved tools: a file and stdin give the listing, pages followed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/tools.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify([{ tools: [{ name: "a" }], nextCursor: "2" }, { tools: [{ name: "b" }] }]),
    );
    const listing = await readSavedToolListing(file, noStdin);
    assert.deepEqual(listing.tools.map((t) => (t as { name: string }).name), ["a", "b"]);
    assert.equal(listing.pages, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const fromStdin = await readSavedToolListing("-", stdin('{"tools":[{"name":"a"}]}'));
  assert.deepEqual(fromStdin.tools.map((t) => (t as { name: string }).name), ["a"]);
});

Deno.test("saved tools: a missing file is IO_FAILED; a file that is not a tool list INPUT_INVALID", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(
      readSavedToolListing(`${dir}/missing.json`, noStdin),
      isError("IO_FAILED", /missing\.json: no such file/),
    );
    await Deno.writeTextFile(`${dir}/bad.json`, "{not json");
    await assert.rejects(
      readSavedToolListing(`${dir}/bad.json`, noStdin),
      isError("INPUT_INVALID", /bad\.json/),
    );
    await Deno.writeTextFile(`${dir}/empty.json`, "[]");
    await assert.rejects(
      readSavedToolListing(`${dir}/empty.json`, noStdin),
      isError("INPUT_INVALID", /an empty array holds no tools\/list page/),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("saved tools: stdin that is not JSON or not a tool list is refused, naming stdin", async () => {
  await assert.rejects(readSavedToolListing("-", stdin("{")), isError("JSON_INVALID", /stdin/));
  await assert.rejects(
    readSavedToolListing("-", stdin('{"tools":"none"}')),
    isError("INPUT_INVALID", /^stdin/),
  );
});
