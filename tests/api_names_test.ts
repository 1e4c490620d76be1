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
import { LineageStore } from "../pins.ts";

const repo = new URL("../", import.meta.url);
const entries = await apiNames();

/**
 * The operations the SchemaPin 1.4 specification names for every SDK, in this project's
 * camelCase, with their kind and the section that requires them (issue 36: they were made
 * internal once to fit a cap on names, and must never leave the public API again). Each must
 * be exported by some entry point; where is up to api/exported-names.txt.
 */
export const SPEC_REQUIRED: readonly (readonly [name: string, kind: string, section: string])[] = [
  // §15.1: the offline verification of a schema and a skill
  ["verifySchemaOffline", "function", "§15.1"],
  ["verifySkillOffline", "function", "§15.1"],
  // §17: the DNS TXT cross-check (verify_schema_offline_with_dns, verify_skill_offline_with_dns)
  ["verifySchemaOfflineWithDns", "function", "§17"],
  ["verifySkillOfflineWithDns", "function", "§17"],
  // §18.3: "Implementations MUST provide a chain-verification helper" (verify_chain)
  ["verifyChain", "function", "§18.3"],
  // §18.4: the verifier's lineage store; check_and_advance is its method checkAndAdvance
  ["LineageStore", "class", "§18.4"],
  // §20: verify_schema_for_a2a, the context, the cap, and the AllowedDomains helpers "Each SDK
  // MUST expose" (is_unrestricted, allows, intersect)
  ["verifySchemaForA2a", "function", "§20.4"],
  ["A2aVerificationContext", "interface", "§20.2"],
  ["A2A_MAX_DELEGATION_DEPTH", "variable", "§20.4"],
  ["isUnrestricted", "function", "§20.5"],
  ["allows", "function", "§20.5"],
  ["intersect", "function", "§20.5"],
  // §21.4: the bundle authority's and the agents' operations, and the JSON-RPC envelope
  // helpers "the libraries define"
  ["signTrustBundle", "function", "§21.4"],
  ["seedBundleAuthority", "function", "§21.4"],
  ["verifyTrustBundle", "function", "§21.4"],
  ["mergeTrustBundles", "function", "§21.4"],
  ["buildTrustBundleRequest", "function", "§21.4"],
  ["buildTrustBundleResponse", "function", "§21.4"],
  ["parseTrustBundleResponse", "function", "§21.4"],
];

/** The spec-required names no entry point exports with their kind, as messages. */
export function missingSpecNames(
  exported: readonly { entry: string; names: readonly { kind: string; name: string }[] }[],
  required: typeof SPEC_REQUIRED = SPEC_REQUIRED,
): string[] {
  const kinds = new Map<string, Set<string>>();
  for (const e of exported) {
    for (const n of e.names) {
      if (!kinds.has(n.name)) kinds.set(n.name, new Set());
      kinds.get(n.name)!.add(n.kind);
    }
  }
  return required.filter(([name, kind]) => !kinds.get(name)?.has(kind)).map(([name, kind, at]) =>
    `${name} (${kind}, ${at} of the SchemaPin specification) is not exported by any entry point`
  );
}

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
      // A name that came back (issue 36) says so: "exported again by `./pins`".
      const again = [...instead.matchAll(/exported again by ((?:`[^`]+`(?:, )?)+)/g)]
        .flatMap(([, list]) => [...list.matchAll(/`([^`]+)`/g)].map(([, e]) => e));
      if (names.has(name) && !again.includes(entry!)) {
        problems.push(`${entry} exports ${name} again; update the migration notes`);
      }
      for (
        const [, other] of instead.matchAll(
          /(?:still exported|exported again) by ((?:`[^`]+`(?:, )?)+)/g,
        )
      ) {
        for (const [, e] of other.matchAll(/`([^`]+)`/g)) {
          if (!byEntry.get(e)?.has(name)) {
            problems.push(`${name}: "exported by ${e}" is not so`);
          }
        }
      }
    }
  }
  assert.ok(rows >= 250, `only ${rows} rows in the migration tables`);
  assert.deepEqual(problems, [], problems.join("\n"));
});

Deno.test("the names the SchemaPin specification requires of an SDK are exported", () => {
  const missing = missingSpecNames(entries);
  assert.deepEqual(
    missing,
    [],
    `${missing.join("\n")}\nThe specification requires these of every SDK (issue 36): ` +
      "export them from the entry point of their task.",
  );
  // §18.4 check_and_advance(tool_id, domain, signature) is LineageStore's checkAndAdvance.
  assert.equal(typeof LineageStore.prototype.checkAndAdvance, "function");
  assert.equal(LineageStore.prototype.checkAndAdvance.length >= 3, true);
});

Deno.test("the spec-names check finds a name that left the API, or changed kind", () => {
  const full = entries.map((e) => ({ entry: e.entry, names: [...e.names] }));
  assert.deepEqual(missingSpecNames(full), []);
  const without = full.map((e) => ({ ...e, names: e.names.filter((n) => n.name !== "allows") }));
  assert.deepEqual(missingSpecNames(without), [
    "allows (function, §20.5 of the SchemaPin specification) is not exported by any entry point",
  ]);
  const retyped = full.map((e) => ({
    ...e,
    names: e.names.map((n) => n.name === "LineageStore" ? { ...n, kind: "interface" } : n),
  }));
  assert.match(missingSpecNames(retyped).join(), /^LineageStore \(class, §18\.4/);
  assert.equal(missingSpecNames([]).length, SPEC_REQUIRED.length);
});

Deno.test("lineDiff marks removed and added lines", () => {
  assert.equal(lineDiff("a\nb\nc", "a\nc\nd"), "- b\n+ d");
  assert.equal(lineDiff("x", "x"), "");
});
