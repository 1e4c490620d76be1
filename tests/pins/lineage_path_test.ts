// defaultLineageStorePath (lib/pins/lineage.ts): lineage.json beside the pin store.
import assert from "node:assert/strict";
import { defaultLineageStorePath } from "../../lib/pins/lineage.ts";
import { defaultPinStorePath } from "../../lib/pins/store.ts";

Deno.test("defaultLineageStorePath: lineage.json in the pin store's folder", () => {
  assert.equal(defaultLineageStorePath("state/pins.json"), "state/lineage.json");
  assert.equal(defaultLineageStorePath("/var/lib/x/pins.json"), "/var/lib/x/lineage.json");
  assert.equal(defaultLineageStorePath("/pins.json"), "/lineage.json");
  assert.equal(defaultLineageStorePath("pins.json"), "./lineage.json");
  const home = defaultPinStorePath();
  assert.equal(defaultLineageStorePath(), home.slice(0, home.lastIndexOf("/")) + "/lineage.json");
  assert.notEqual(defaultLineageStorePath("a/pins.json"), defaultLineageStorePath("b/pins.json"));
});
