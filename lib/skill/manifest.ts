/**
 * What changed in a skill folder since it was signed: the signed `file_manifest` against the
 * manifest of the folder as it is now.
 *
 * @module
 */
import { compareBytes } from "./walk.ts";
import { checkArg } from "../arguments.ts";

/** Files added, removed and modified, each list in code point order. */
export interface ManifestChanges {
  /** In the folder, not in the signed manifest. */
  readonly added: readonly string[];
  /** In the signed manifest, not in the folder. */
  readonly removed: readonly string[];
  /** In both, with different digests. */
  readonly modified: readonly string[];
}

const encoder = new TextEncoder();

function sorted(paths: string[]): string[] {
  return paths
    .map((p) => ({ p, b: encoder.encode(p) }))
    .sort((x, y) => compareBytes(x.b, y.b))
    .map((x) => x.p);
}

/**
 * Compares a signed manifest with the current one (both `path → "sha256:…"`, own properties
 * only, so `__proto__` is an ordinary path).
 *
 * @example
 * ```ts
 * import { compareManifests } from "./manifest.ts";
 * compareManifests({ a: "sha256:1", b: "sha256:2" }, { a: "sha256:9", c: "sha256:3" });
 * // { added: ["c"], removed: ["b"], modified: ["a"] }
 * ```
 */
export function compareManifests(
  signed: Readonly<Record<string, string>>,
  current: Readonly<Record<string, string>>,
): ManifestChanges {
  checkArg("compareManifests", "signed", signed, "object");
  checkArg("compareManifests", "current", current, "object");
  const added: string[] = [];
  const removed: string[] = [];
  const modified: string[] = [];
  for (const path of Object.keys(current)) {
    if (!Object.hasOwn(signed, path)) added.push(path);
    else if (signed[path] !== current[path]) modified.push(path);
  }
  for (const path of Object.keys(signed)) {
    if (!Object.hasOwn(current, path)) removed.push(path);
  }
  return { added: sorted(added), removed: sorted(removed), modified: sorted(modified) };
}

/** True when nothing was added, removed or modified. */
export function isUnchanged(changes: ManifestChanges): boolean {
  return changes.added.length + changes.removed.length + changes.modified.length === 0;
}

/**
 * One line per change, for people: `added: x`, `removed: y`, `modified: z` (at most `limit`
 * lines, then a count of the rest).
 *
 * @example
 * ```ts
 * import { describeChanges } from "./manifest.ts";
 * describeChanges({ added: ["new.sh"], removed: [], modified: ["SKILL.md"] });
 * // ["modified: SKILL.md", "added: new.sh"]
 * ```
 */
export function describeChanges(changes: ManifestChanges, limit = 50): string[] {
  const lines = [
    ...changes.modified.map((p) => `modified: ${p}`),
    ...changes.added.map((p) => `added: ${p}`),
    ...changes.removed.map((p) => `removed: ${p}`),
  ];
  if (lines.length <= limit) return lines;
  return [...lines.slice(0, limit), `… and ${lines.length - limit} more`];
}
