/**
 * `contract init --discover`, the terminal's side: the lines that say what was found and what
 * is skipped. Reading the configs and planning their servers is `discoverServers`
 * (cli/mcp_config/discover.ts).
 *
 * @module
 */
import type { ClientConfigLocation } from "../mcp_config/formats.ts";
import type { Discovery } from "../mcp_config/discover.ts";
import type { CliIO } from "./command.ts";

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Prints what was found and what is skipped (stdout: it is the result of discovery). */
export async function printDiscovery(d: Discovery, io: CliIO): Promise<void> {
  if (d.found.length === 0) {
    await io.stdout(
      `found no MCP client config; looked in:\n${
        d.looked.map((l) => `  ${l.label}: ${l.path}\n`).join("")
      }`,
    );
    return;
  }
  await io.stdout(`found ${plural(d.found.length, "MCP client config")}:\n`);
  const width = Math.max(...d.found.map((f) => f.location.label.length));
  for (const f of d.found) {
    const names = f.entries.map((e) => e.name + (e.guarded ? " (guarded)" : "")).join(", ") ||
      "no servers";
    await io.stdout(`  ${f.location.label.padEnd(width)}  ${f.location.path}: ${names}\n`);
  }
  for (const s of d.servers) {
    if (s.lockName !== s.configName) {
      await io.stdout(
        `renamed ${s.configName} (${s.from.label}) to ${s.lockName} in the lock: another config ` +
          `uses the name for a different server\n`,
      );
    }
    if (s.alsoIn.length > 0) {
      await io.stdout(
        `same server ${s.lockName} in ${s.from.label} and ${
          s.alsoIn.map((l) => l.label).join(", ")
        }: pinned once\n`,
      );
    }
  }
  for (const s of d.skipped) await printSkipped(io, s.name, s.from, s.reason);
}

/** One `skipped` line (a multi-line reason is indented). */
export async function printSkipped(
  io: CliIO,
  name: string,
  from: ClientConfigLocation,
  reason: string,
): Promise<void> {
  await io.stdout(
    `skipped ${name} (${from.label}, ${from.path}): ${reason.replaceAll("\n", "\n    ")}\n`,
  );
}
