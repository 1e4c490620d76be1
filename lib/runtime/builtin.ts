/**
 * Node's built-in modules loaded synchronously, when first needed, through
 * `process.getBuiltinModule` (Node.js 20.16+ and 22.3+, Bun, Deno 2) — instead of a static
 * `import` (under Deno any of `node:fs`, `node:crypto`, … starts the Node compatibility layer:
 * ~40 ms added to every command, issue 14) or a top-level `await import(…)` (which makes the
 * module graph asynchronous, so Node's `require()` of the library fails with
 * `ERR_REQUIRE_ASYNC_MODULE`).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";

/**
 * The built-in module `id` (`"node:fs"`, …).
 *
 * @throws {SchemaPinError} `IO_FAILED` when the runtime has no `process.getBuiltinModule`
 *   (Node.js before 20.16), naming what is needed.
 *
 * @example
 * ```ts
 * import type * as NodeFs from "node:fs";
 * import { nodeBuiltin } from "./builtin.ts";
 * const fs = nodeBuiltin<typeof NodeFs>("node:fs");
 * typeof fs.readFileSync; // "function"
 * ```
 */
export function nodeBuiltin<T>(id: string): T {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
    .process;
  if (typeof process?.getBuiltinModule !== "function") {
    throw new SchemaPinError(
      "IO_FAILED",
      `schemapin: this runtime has no process.getBuiltinModule to load ${id}; ` +
        `use Node.js 20.16+ or 22.3+, Bun or Deno 2`,
    );
  }
  return process.getBuiltinModule(id) as T;
}
