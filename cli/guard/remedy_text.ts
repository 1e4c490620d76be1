/**
 * The CLI's words for what a person can do about a guard refusal (`GuardCoreOptions.remedyText`):
 * the `schemapin` commands and flags that approve changes, pin an entry for a client's
 * capabilities, require skill signatures or sign tools. The library's default names none
 * (lib/guard/refusal_text.ts); `schemapin guard` runs a {@linkcode CliGuardCore} that gives
 * these (./setup.ts).
 *
 * @module
 */
import { shellLine } from "../../lib/contractpin/display_text.ts";
import { approveCommand } from "../contractpin/approve_command.ts";
import { GuardCore, type GuardCoreOptions } from "../../lib/guard/core.ts";
import { checkArg } from "../../lib/arguments.ts";

/**
 * The words of `schemapin guard`'s remedies: the exact `schemapin contract approve` command of
 * the changes (issue 17 item 1: it shows these very changes and pins only them), and the
 * commands and flags of the other remedies.
 *
 * @example
 * ```ts
 * import { guardRemedyText } from "./remedy_text.ts";
 * guardRemedyText({ about: "approve", lockFile: "contractpin.lock", server: "fx", changed: ["echo"], skills: [] });
 * // "If these changes are expected, review and approve them with `schemapin contract approve --server fx --tool echo`, then restart the client."
 * ```
 */
export const guardRemedyText: NonNullable<GuardCoreOptions["remedyText"]> = (fact) => {
  switch (fact.about) {
    case "approve": {
      const approve = shellLine([
        ...approveCommand(fact.lockFile, fact.server, fact.changed, { yes: false }),
        // Skills are approved one by one with --skill URI (docs/guard.md, "Skills served over
        // MCP").
        ...fact.skills.flatMap((uri) => ["--skill", uri]),
      ]);
      return `If these changes are expected, review and approve them with \`${approve}\`, then ` +
        `restart the client.`;
    }
    case "capabilities": {
      const caps = fact.capabilities;
      return `The client announced the capabilities ${caps.join(", ")}, and servers may list ` +
        `other tools to such clients: pin an entry for them with \`schemapin contract init ` +
        `--client-capabilities ${caps.join(",")}\` (same command or URL, another name).`;
    }
    case "hidden_text":
      return "Their definitions hold text a person cannot see or would not expect (the audit log " +
        "names each place); the guard runs with --strict-text.";
    case "unsigned_skills":
      return "Skills must be pinned with their SchemaPin signature verified: `schemapin contract " +
        "init` or `approve` with skill signatures required records each check in the lock.";
    case "unsigned_tools":
      return "Tools must carry a valid SchemaPin signature over their contract " +
        '(_meta "dev.schemapin/signature", made with `schemapin sign-tools`) by a key the ' +
        "domain publishes and that is neither revoked nor expired.";
    case "unpinned":
      return `re-run \`schemapin contract init\` to pin ${fact.what === "skills" ? "them" : "it"}`;
  }
};

/**
 * The {@linkcode GuardCore} of `schemapin guard`: its refusals and log lines say what to do in
 * the CLI's words ({@linkcode guardRemedyText}) unless `options.remedyText` says otherwise.
 *
 * @example
 * ```ts
 * import { AuditLog } from "../../lib/guard/audit.ts";
 * import { GuardPolicy } from "../../lib/guard/policy.ts";
 * import { parseLock } from "../../lib/contractpin/lock.ts";
 * import { CliGuardCore } from "./remedy_text.ts";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const core = new CliGuardCore({
 *   policy: new GuardPolicy({ lock: { serverName: "fx", entry: lock.servers["fx"] } }),
 *   mode: "enforce",
 *   log: new AuditLog("fx", "enforce", () => {}),
 *   serverName: "fx",
 * });
 * core.mode; // "enforce"
 * ```
 */
export class CliGuardCore extends GuardCore {
  /** A core with the given options, speaking in the CLI's words. */
  constructor(options: GuardCoreOptions) {
    checkArg("GuardCore", "options", options, "object");
    super({ ...options, remedyText: options.remedyText ?? guardRemedyText });
  }
}
