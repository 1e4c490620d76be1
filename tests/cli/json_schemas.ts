/**
 * The JSON Schemas of the CLI's `--json` outputs (schemas/cli/), compiled with Ajv (npm), a
 * validator this project did not write; `assertJsonOutput` checks one printed output against
 * the schema its `format` names.
 */
import assert from "node:assert/strict";
// Test-only: locked in tests/deno.lock; tests/deno.json imports stay those of deno.json.
// deno-lint-ignore no-import-prefix
import Ajv2020 from "npm:ajv@8.20.0/dist/2020.js";

/** Where the schemas live. */
export const SCHEMA_DIR: URL = new URL("../../schemas/cli/", import.meta.url);

/** A compiled schema. */
export type Validate = ((value: unknown) => boolean) & { errors?: unknown[] | null };

async function load(): Promise<Map<string, Validate>> {
  // deno-lint-ignore no-explicit-any
  const Ajv = ((Ajv2020 as any).default ?? Ajv2020) as any;
  // strictRequired off: the shared "error present exactly when ok is false" rule names
  // properties that each output schema defines.
  const ajv = new Ajv({ strict: true, strictRequired: false, allErrors: true });
  const schemas: Record<string, unknown>[] = [];
  for await (const e of Deno.readDir(SCHEMA_DIR)) {
    if (!e.name.endsWith(".schema.json")) continue;
    schemas.push(JSON.parse(await Deno.readTextFile(new URL(e.name, SCHEMA_DIR))));
  }
  for (const s of schemas) ajv.addSchema(s);
  const out = new Map<string, Validate>();
  for (const s of schemas) {
    const format = (s.properties as Record<string, { const?: string }> | undefined)?.format?.const;
    if (format === undefined) continue; // common.schema.json
    out.set(format, ajv.getSchema(s.$id as string) as Validate);
  }
  return out;
}

let loaded: Promise<Map<string, Validate>> | undefined;

/** Every output schema, compiled, keyed by the `format` it describes. */
export function schemaValidators(): Promise<Map<string, Validate>> {
  return loaded ??= load();
}

/**
 * Parses `stdout` as one JSON object, checks it against the schema its `format` names and
 * returns it.
 */
export async function assertJsonOutput(stdout: string): Promise<Record<string, unknown>> {
  const value = JSON.parse(stdout);
  const validate = (await schemaValidators()).get(value?.format);
  assert.ok(validate, `no schema in schemas/cli for format ${JSON.stringify(value?.format)}`);
  assert.ok(validate(value), JSON.stringify(validate.errors, null, 2));
  return value;
}
