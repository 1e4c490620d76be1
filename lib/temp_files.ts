/**
 * Moved to lib/runtime/temp_files.ts (next to the atomic writes that use it); this re-export
 * keeps old import paths working until they are updated.
 *
 * @module
 */
export * from "./runtime/temp_files.ts";
