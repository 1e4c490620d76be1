// The pin export format (`pins export` / `pins import`, cli/pins/pin_export.ts) and the domain
// patterns `pins rotate` refuses for one pin, without the CLI.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { domainPatternOf, makePinRecord, MemoryPinStore } from "../../lib/pins/store.ts";
import { importPins, parsePinExport, pinExportDocument } from "../../cli/pins/pin_export.ts";

const FP = "sha256:" + "ab".repeat(32);
const RECORDS = [
  makePinRecord({
    toolId: "calculate_sum",
    domain: "example.com",
    fingerprint: FP,
    pinnedAt: "2026-01-02T03:04:05Z",
    source: "seeded",
  }),
  makePinRecord({
    toolId: "a@b",
    domain: "tools.example.test",
    fingerprint: FP,
    pinnedAt: "2026-01-02T03:04:05Z",
    source: "first_use",
    developerName: "Dev",
  }),
];

Deno.test("pin export: the document round-trips through JSON into an import", async () => {
  const doc = pinExportDocument(RECORDS);
  assert.equal(doc.schemapin_pins_version, 1);
  assert.deepEqual(doc.pins[1], {
    tool_id: "a@b",
    domain: "tools.example.test",
    fingerprint: FP,
    pinned_at: "2026-01-02T03:04:05Z",
    source: "first_use",
    developer_name: "Dev",
  });
  const back = parsePinExport(JSON.parse(JSON.stringify(doc)), "export.json");
  assert.deepEqual(back, RECORDS);
  const outcome = await importPins(new MemoryPinStore(), back);
  assert.deepEqual(outcome.added, ["calculate_sum@example.com", "a@b@tools.example.test"]);
});

Deno.test("pin export: anything else is INPUT_INVALID naming the file and the record", () => {
  const cases: [unknown, RegExp][] = [
    [[], /x\.json is not a schemapin pin export/],
    [{ schemapin_pins_version: 2, pins: [] }, /is not a schemapin pin export/],
    [{ schemapin_pins_version: 1 }, /x\.json: "pins" must be an array/],
    [{ schemapin_pins_version: 1, pins: [{ tool_id: "t" }] }, /x\.json: pins\[0\]/],
  ];
  for (const [value, re] of cases) {
    assert.throws(() => parsePinExport(value, "x.json", "-"), (e: unknown) => {
      assert.ok(e instanceof SchemaPinError);
      assert.equal(e.code, "INPUT_INVALID");
      assert.match(e.message, re);
      return true;
    });
  }
  assert.throws(
    () => parsePinExport({}, "stdin", "-"),
    (e: SchemaPinError) => e.details.path === "-",
  );
});

Deno.test("domain patterns: *@D and a bare D mean every pin of D", () => {
  assert.equal(domainPatternOf("*@example.com"), "example.com");
  assert.equal(domainPatternOf("example.com"), "example.com");
  assert.equal(domainPatternOf("calculate_sum@example.com"), undefined);
  assert.equal(domainPatternOf("a@*@example.com"), undefined);
  assert.equal(domainPatternOf("*x@example.com"), undefined);
});
