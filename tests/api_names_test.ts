// The public API is a decision (issue 25 item 5): the names the entry points export — values
// and types, as `deno doc --json` lists them — are snapshotted in api/exported-names.txt, and
// this test regenerates the snapshot and fails on any difference, with the diff and the
// command that updates it, and when the entry points export more than MAX_NAMES together.
import assert from "node:assert/strict";
import {
  apiNames,
  formatApiNames,
  lineDiff,
  MAX_NAMES,
  SNAPSHOT_PATH,
  totalNames,
  UPDATE_COMMAND,
} from "../scripts/api_names.ts";
import { ENTRY_POINTS } from "./entry_points.ts";

const repo = new URL("../", import.meta.url);
const entries = await apiNames();

Deno.test("api/exported-names.txt lists what the entry points export", async () => {
  const expected = formatApiNames(entries);
  const current = await Deno.readTextFile(new URL(SNAPSHOT_PATH, repo));
  assert.ok(
    current === expected,
    `${SNAPSHOT_PATH} is stale; the public API changed:\n${lineDiff(current, expected)}\n` +
      `If the change is meant, update the snapshot with:\n  ${UPDATE_COMMAND}\n` +
      "and list removed names in docs/migration-0.2.md.",
  );
});

Deno.test(`the entry points export at most ${MAX_NAMES} names together`, () => {
  const total = totalNames(entries);
  const per = entries.map((e) => `${e.entry}: ${e.names.length}`).join(", ");
  assert.ok(
    total <= MAX_NAMES,
    `${total} names over the entry points (${per}); at most ${MAX_NAMES}. Make a name internal ` +
      "(off the entry points), or raise MAX_NAMES in scripts/api_names.ts as a decision.",
  );
});

Deno.test("every entry point of deno.json is in the snapshot, none is empty", () => {
  assert.deepEqual(entries.map((e) => e.file), [...ENTRY_POINTS]);
  for (const e of entries) assert.ok(e.names.length > 0, `${e.entry} exports nothing`);
});

Deno.test("the names are values and types alike, each with its kind", () => {
  const kinds = new Set(entries.flatMap((e) => e.names.map((n) => n.kind.split("+")).flat()));
  for (const k of ["function", "class", "interface", "typeAlias", "variable"]) {
    assert.ok(kinds.has(k), `no ${k} among the names: ${[...kinds].join(", ")}`);
  }
  const root = entries.find((e) => e.entry === ".")!;
  assert.ok(root.names.some((n) => n.name === "SchemaPinError" && n.kind === "class"));
  assert.ok(root.names.some((n) => n.name === "ErrorCode" && n.kind === "typeAlias"));
});

Deno.test("docs/migration-0.2.md: no name it lists as removed is exported again unnoticed", async () => {
  const doc = await Deno.readTextFile(new URL("docs/migration-0.2.md", repo));
  const byEntry = new Map(entries.map((e) => [e.entry, new Set(e.names.map((n) => n.name))]));
  const problems: string[] = [];
  let rows = 0;
  for (const section of doc.split(/^### /m).slice(1)) {
    const entry = /^`([^`]+)`/.exec(section)?.[1];
    const names = entry === undefined ? undefined : byEntry.get(entry);
    if (!names) continue;
    for (const [, name, instead] of section.matchAll(/^\| `(\w+)` +\| \w+ +\| (.*?) *\|$/gm)) {
      rows++;
      if (names.has(name)) {
        problems.push(`${entry} exports ${name} again; update the migration notes`);
      }
      for (const [, other] of instead.matchAll(/still exported by ((?:`[^`]+`(?:, )?)+)/g)) {
        for (const [, e] of other.matchAll(/`([^`]+)`/g)) {
          if (!byEntry.get(e)?.has(name)) {
            problems.push(`${name}: "still exported by ${e}" is not so`);
          }
        }
      }
    }
  }
  assert.ok(rows >= 250, `only ${rows} rows in the migration tables`);
  assert.deepEqual(problems, [], problems.join("\n"));
});

Deno.test("lineDiff marks removed and added lines", () => {
  assert.equal(lineDiff("a\nb\nc", "a\nc\nd"), "- b\n+ d");
  assert.equal(lineDiff("x", "x"), "");
});
