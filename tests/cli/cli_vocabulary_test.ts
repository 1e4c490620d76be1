// docs/cli-vocabulary.md: its generated tables equal what scripts/cli_vocabulary.ts prints
// from the commands' flag tables (a new or renamed flag updates the page, or this fails).
import assert from "node:assert/strict";
import type { Command } from "../../cli/commands/command.ts";
import { loadCommands } from "../../cli/commands/registry.ts";
import { BEGIN, END, vocabularyTables, withTables } from "../../scripts/cli_vocabulary.ts";

const DOC = new URL("../../docs/cli-vocabulary.md", import.meta.url);

Deno.test("docs/cli-vocabulary.md is generated from the flag tables", async () => {
  const doc = await Deno.readTextFile(DOC);
  const want = withTables(doc, vocabularyTables(await loadCommands()));
  assert.equal(
    doc,
    want,
    "docs/cli-vocabulary.md is out of date: deno run --allow-read --allow-write=docs " +
      "scripts/cli_vocabulary.ts",
  );
});

Deno.test("the vocabulary lists every flag with its commands, and deprecated spellings apart", () => {
  const fake: Command[] = [
    {
      name: "a",
      summary: "",
      help: "",
      flags: {
        out: { type: "string", value: "FILE", help: "the file | written" },
        into: { type: "string", help: "", deprecated: "out" },
      },
      run: () => Promise.resolve(0),
    },
    {
      name: "b",
      summary: "",
      help: "",
      flags: [
        {
          name: "c",
          flags: { out: { type: "string", value: "FILE", help: "the file | written" } },
        },
        { name: "d", flags: { json: { type: "boolean", help: "print JSON (format d/1)" } } },
      ],
      run: () => Promise.resolve(0),
    },
  ];
  const text = vocabularyTables(fake);
  assert.ok(text.startsWith(BEGIN) && text.trimEnd().endsWith(END));
  assert.match(text, /\| `-o, --out FILE` \| the file \\\| written \| a, b c \|/);
  assert.match(text, /\| `a` \| `--into` \| `--out` \|/);
  assert.doesNotMatch(text, /`--into [A-Z]/);
  // Two wordings of one flag: the meaning they share, marked as varying.
  const json = { type: "boolean", help: "print JSON (format e/1)" } as const;
  const more = [...fake, { ...fake[0], name: "e", flags: { json } }];
  assert.match(
    vocabularyTables(more),
    /\| `--json` \| print JSON \(wording varies by command\) \| b d, e \|/,
  );
  // A page without the marker is refused, never overwritten whole.
  assert.throws(() => withTables("# no marker\n", text), /no <!-- generated/);
});
