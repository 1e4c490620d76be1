// parseCommandArgs (cli/commands/command.ts): a command's arguments parsed strictly against its flag
// table, with the tokens in the order given (contract's --http/--header pairs depend on it),
// deprecated spellings rewritten, and every mistake a UsageError in our words.
import assert from "node:assert/strict";
import { parseCommandArgs, setNoticeSink, UsageError } from "../../cli/commands/command.ts";
import { booleanFlag, listFlag, valueFlag } from "../../cli/args/flags.ts";

const TABLE = {
  http: listFlag("URL", "a server"),
  header: listFlag("NAME=VALUE", "a header of the --http before it"),
  out: valueFlag("FILE", "where to write"),
  json: booleanFlag("print JSON"),
  into: { type: "string", help: "", deprecated: "out" },
} as const;

Deno.test("parseCommandArgs: values, positionals and the options' tokens in order", () => {
  const parsed = parseCommandArgs("demo", [
    "--http",
    "https://a",
    "--header",
    "A=1",
    "x",
    "--http=https://b",
    "-o",
    "f.json",
    "--json",
  ], TABLE);
  assert.deepEqual({ ...parsed.values }, {
    http: ["https://a", "https://b"],
    header: ["A=1"],
    out: "f.json",
    json: true,
  });
  assert.deepEqual(parsed.positionals, ["x"]);
  assert.deepEqual(
    parsed.tokens.filter((t) => t.kind === "option").map((t) => [t.name, t.value]),
    [["http", "https://a"], ["header", "A=1"], ["http", "https://b"], ["out", "f.json"], [
      "json",
      undefined,
    ]],
  );
});

Deno.test("parseCommandArgs: a deprecated spelling is parsed under its new name, with a note", () => {
  const notes: string[] = [];
  const previous = setNoticeSink((t) => notes.push(t));
  try {
    const parsed = parseCommandArgs("demo", ["--into", "f.json"], TABLE);
    assert.equal(parsed.values.out, "f.json");
    assert.deepEqual(parsed.tokens.map((t) => t.name), ["out"]);
  } finally {
    setNoticeSink(previous);
  }
  assert.deepEqual(notes, ["note: demo: --into is deprecated; use --out (-o)\n"]);
});

Deno.test("parseCommandArgs: mistakes are UsageErrors naming the command and the flag", () => {
  const cases: [string[], RegExp][] = [
    [["--htp", "https://a"], /^demo: unknown option --htp; did you mean --http\?$/],
    [["--out"], /^demo: --out needs a value$/],
    [["--json=yes"], /^demo: --json takes no value/],
    [["--out", "--json"], /^demo: --out needs a value but is followed by --json/],
    [["-z"], /^demo: unknown option -z$/],
  ];
  for (const [args, message] of cases) {
    assert.throws(
      () => parseCommandArgs("demo", args, TABLE),
      (e) => e instanceof UsageError && message.test(e.message),
      args.join(" "),
    );
  }
});
