/**
 * The library's entry points: the files deno.json "exports" names (`mod.ts`, `schema.ts`, …,
 * `contractpin.ts`, `guard.ts`), relative to the checkout, in the order deno.json lists them.
 * Tests that scan "the published entry points" take them from here, so a new entry point is
 * covered without editing each test.
 *
 * @module
 */

const config = JSON.parse(
  Deno.readTextFileSync(new URL("../deno.json", import.meta.url)),
) as { exports: Record<string, string> };

/** `"./schema"` → `"schema.ts"`, for every export. */
export const ENTRY_POINTS: readonly string[] = Object.values(config.exports).map((path) =>
  path.replace(/^\.\//, "")
);

/** The export names (`"."`, `"./schema"`, …) with their files. */
export const EXPORTS: Readonly<Record<string, string>> = config.exports;
