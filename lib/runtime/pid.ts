/**
 * Whether another process is alive, for every runtime: used to tell the leftover temporary
 * file of a writer that died from the file of one still writing (the pin and lineage stores,
 * the batch writer of `sign-schema --batch`).
 *
 * @module
 */
import { isDeno, node, type NodeModules, processId } from "./fs.ts";

/**
 * Whether the process `pid` exists: `true`, `false`, or `undefined` when this process cannot
 * tell. The check is signal 0 (`kill(pid, 0)`: `ESRCH` means no such process, `EPERM` that it
 * exists under another user), which Deno allows only with the run permission; it is used only
 * when that permission is already granted, so it never prompts. (`/proc` is no alternative:
 * Deno requires all permissions to read it.) Without it the caller's age rule alone applies. A
 * zombie counts as alive.
 *
 * @example
 * ```ts
 * import { processAlive } from "./pid.ts";
 * import { processId } from "./fs.ts";
 * processAlive(processId()); // true
 * ```
 */
export function processAlive(pid: number): boolean | undefined {
  if (pid === processId()) return true;
  try {
    if (isDeno && Deno.permissions.querySync({ name: "run" }).state !== "granted") {
      return undefined;
    }
    // Deno's `process` global is its node:process, loaded here on first use, not at start-up.
    const process = node?.process ??
      (globalThis as unknown as { process: NodeModules["process"] }).process;
    process.kill(pid, 0); // signal 0: an existence check, nothing is sent
    return true;
  } catch (e) {
    const code = (e as { code?: string })?.code;
    if (code === "ESRCH") return false;
    if (code === "EPERM") return true;
    return undefined;
  }
}
