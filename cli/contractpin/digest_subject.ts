/**
 * What `schemapin contract digest` digests, from its `--tool-definition`, `--raw`,
 * `--canonical` and `--json` flags.
 *
 * @module
 */
import { usageError } from "../../lib/errors.ts";

/**
 * What `contract digest` digests, from its options: one tool definition (`tool`, with
 * `--tool-definition`), any JSON value (`raw`, with `--raw`), else a saved tools/list result
 * (`list`). `--canonical` prints the canonical bytes of a tool or raw value instead of the
 * digest, so it goes with one of those and not with `--json`.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) naming the options
 *   that do not go together.
 *
 * @example
 * ```ts
 * import { digestSubjectOf } from "./digest_subject.ts";
 * digestSubjectOf({ toolDefinition: true, canonical: true }); // "tool"
 * digestSubjectOf({}); // "list"
 * ```
 */
export function digestSubjectOf(options: {
  readonly toolDefinition?: boolean;
  readonly raw?: boolean;
  readonly canonical?: boolean;
  readonly json?: boolean;
}): "list" | "tool" | "raw" {
  const { toolDefinition, raw, canonical, json } = options;
  if (toolDefinition && raw) {
    throw usageError("--tool-definition and --raw exclude each other", { option: "raw" });
  }
  if (canonical && !toolDefinition && !raw) {
    throw usageError("--canonical needs --tool-definition or --raw", { option: "canonical" });
  }
  if (canonical && json) {
    throw usageError("--canonical prints bytes; it does not combine with --json", {
      option: "canonical",
    });
  }
  return toolDefinition ? "tool" : raw ? "raw" : "list";
}
