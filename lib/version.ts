/**
 * The schemapin version. Kept equal to `version` in deno.json (a test checks it), embedded
 * here so a compiled binary never reads files relative to its source at run time.
 *
 * @example
 * ```ts
 * import { VERSION } from "jsr:@schemapin/schemapin";
 * console.log(`schemapin ${VERSION}`);
 * ```
 */
export const VERSION = "0.1.0";
