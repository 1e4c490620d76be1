/**
 * Where a finding is in the lock file: the 1-based line of a server, tool or other item entry
 * in lock text written by `serializeLock` (lib/contractpin/lock.ts), for the SARIF results and
 * GitHub annotations (cli/contractpin/report_sarif.ts, report_github.ts).
 *
 * @module
 */
import type { ItemKind } from "../../lib/contractpin/surface.ts";

/**
 * Finds the 1-based line of a server (and tool) entry in lock text written by
 * `serializeLock`, for annotations; 1 when it cannot be found (a reformatted lock).
 *
 * @example
 * ```ts
 * import { lockLine } from "./report_lock_line.ts";
 * lockLine('{\n  "servers": {\n    "s": {\n', "s"); // 3
 * ```
 */
export function lockLine(
  lockText: string,
  server: string,
  tool?: string,
  kind?: ItemKind,
): number {
  const lines = lockText.split("\n");
  const serverKey = `    ${JSON.stringify(server)}: {`;
  let i = lines.findIndex((l) => l === serverKey);
  if (i < 0) return 1;
  if (kind !== undefined && kind !== "tool") {
    // docs/contractpin-surface.md §4: `"prompts": {` … `"items": {` … `"KEY": {`.
    const member = kind === "instructions" ? "instructions" : `${kind}s`;
    const memberKey = `      ${JSON.stringify(member)}: {`;
    for (let j = i + 1; j < lines.length && !/^ {4}\}/.test(lines[j]); j++) {
      if (lines[j] !== memberKey) continue;
      i = j;
      if (tool === undefined || kind === "instructions") break;
      const itemKey = `          ${JSON.stringify(tool)}: {`;
      for (let m = j + 1; m < lines.length && !/^ {6}\}/.test(lines[m]); m++) {
        if (lines[m] === itemKey) {
          i = m;
          break;
        }
      }
      break;
    }
    return i + 1;
  }
  if (tool !== undefined) {
    const toolKey = `        ${JSON.stringify(tool)}: {`;
    for (let j = i + 1; j < lines.length && !/^ {4}\}/.test(lines[j]); j++) {
      if (lines[j] === toolKey) {
        i = j;
        break;
      }
    }
  }
  return i + 1;
}
