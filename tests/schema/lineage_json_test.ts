// The --json fields of lineage: chain checks (§18.3) and lineage decisions (§18.4).
import assert from "node:assert/strict";
import { isSchemaPinError } from "../../lib/errors.ts";
import { chainCheckJson, lineageReportJson } from "../../cli/schema/lineage_json.ts";

const H1 = "sha256:" + "1".repeat(64);
const H2 = "sha256:" + "2".repeat(64);

Deno.test("lineageReportJson: snake_case, only the fields that are set, status first", () => {
  const json = lineageReportJson({ status: "advanced", hash: H2, latestHash: H1, store: "l.json" });
  assert.deepEqual(Object.entries(json), [
    ["status", "advanced"],
    ["hash", H2],
    ["latest_hash", H1],
    ["store", "l.json"],
  ]);
});

Deno.test("lineageReportJson: a rejection carries its reason", () => {
  assert.deepEqual(lineageReportJson({ status: "rejected", reason: "fork" }), {
    status: "rejected",
    reason: "fork",
  });
});

Deno.test("lineageReportJson: misuse is INPUT_INVALID", () => {
  assert.throws(
    () => lineageReportJson(undefined as never),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
});

Deno.test("chainCheckJson: a valid chain is ok with its hash", () => {
  assert.deepEqual(chainCheckJson({ valid: true, hash: H1 }), { ok: true, hash: H1 });
});

Deno.test("chainCheckJson: a mismatch is CHAIN_MISMATCH with both hashes", () => {
  const json = chainCheckJson({
    valid: false,
    reason: "mismatch",
    expected: H1,
    observed: H2,
    message: "previous_hash differs",
  });
  assert.deepEqual(json, {
    ok: false,
    error: { code: "CHAIN_MISMATCH", message: "previous_hash differs" },
    reason: "mismatch",
    expected: H1,
    observed: H2,
  });
});

Deno.test("chainCheckJson: a legacy document is CHAIN_LEGACY naming the sides", () => {
  const json = chainCheckJson({
    valid: false,
    reason: "legacy",
    legacy: ["previous"],
    message: "legacy",
  });
  assert.equal((json.error as { code: string }).code, "CHAIN_LEGACY");
  assert.deepEqual(json.legacy, ["previous"]);
  assert.equal("valid" in json, false);
});

Deno.test("chainCheckJson: misuse is INPUT_INVALID", () => {
  assert.throws(() => chainCheckJson(null as never), (e) => isSchemaPinError(e, "INPUT_INVALID"));
});
