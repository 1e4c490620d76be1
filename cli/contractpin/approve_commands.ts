/**
 * The `schemapin contract approve` command lines (`approveCommand` of approve_command.ts) for
 * changes, one per server: what `contract verify` prints after its report and what
 * `contract approve` prints for the changes left.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { approvableChanges, type ApproveTarget } from "./approve_plan.ts";
import { approveCommand, type ApproveCommandOptions } from "./approve_command.ts";
import type { VerifyReport } from "../../lib/contractpin/report.ts";
import type { ItemKind } from "../../lib/contractpin/surface.ts";

/**
 * The `schemapin contract approve` commands ({@linkcode approveCommands}) for every change of a
 * verify report that can be approved (`approvableChanges` of approve_plan.ts), one
 * per server.
 *
 * @example
 * ```ts ignore
 * import { reportApproveCommands } from "./approve_commands.ts";
 * for (const { argv } of reportApproveCommands(report, { yes: false })) console.log(argv.join(" "));
 * ```
 */
export function reportApproveCommands(
  report: VerifyReport,
  options: ApproveCommandOptions = {},
): { server: string; argv: string[] }[] {
  checkArg("reportApproveCommands", "report", report, "object");
  const changes = report.servers.flatMap((s) =>
    approvableChanges(s).map((c) => ({ ...c, server: s.name }))
  );
  return approveCommands(report.lock, changes, options);
}

/**
 * The `schemapin contract approve` commands (`approveCommand`) that approve the given changes,
 * one per server in the order the servers first appear.
 *
 * @example
 * ```ts
 * import { approveCommands } from "./approve_commands.ts";
 * approveCommands("contractpin.lock", [
 *   { server: "a", tool: "x" },
 *   { server: "b", tool: "y" },
 *   { server: "a", tool: "z", kind: "prompt" },
 * ]).map((c) => c.argv.slice(3).join(" "));
 * // ["--server a --tool x --prompt z --yes", "--server b --tool y --yes"]
 * ```
 */
export function approveCommands(
  lockPath: string,
  changes: readonly { readonly server: string; readonly tool: string; readonly kind?: ItemKind }[],
  options: ApproveCommandOptions = {},
): { server: string; argv: string[] }[] {
  const byServer = new Map<string, ApproveTarget[]>();
  for (const c of changes) {
    const target = { kind: c.kind ?? "tool", key: c.tool };
    byServer.set(c.server, [...(byServer.get(c.server) ?? []), target]);
  }
  return [...byServer].map(([server, names]) => ({
    server,
    argv: approveCommand(lockPath, server, names, options),
  }));
}
