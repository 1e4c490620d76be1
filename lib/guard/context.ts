/**
 * What the guard's decisions share within one `GuardCore`: its mode, the server's
 * name, its audit records, its policies and the words of its remedies. `core.ts` makes one per
 * core and hands it to the decision modules.
 *
 * @module
 */
import type { GuardMode, GuardPolicy } from "./policy.ts";
import type { GuardRecords } from "./records.ts";
import type { GuardSession } from "./session.ts";
import type { GuardCoreOptions } from "./core_options.ts";

/** What one core's decisions share. */
export interface GuardContext {
  /** What happens to a list that fails. */
  readonly mode: GuardMode;
  /** The server's name, for messages. */
  readonly server: string;
  /** Where the decisions are recorded. */
  readonly records: GuardRecords;
  /** The policy of a client with no entry pinned for its capabilities. */
  readonly policy: GuardPolicy;
  /** The policy pinned for a client's capabilities (see `GuardCoreOptions.policyFor`). */
  readonly policyFor: GuardCoreOptions["policyFor"];
  /** The words for what a person can do about a problem. */
  readonly remedyText: NonNullable<GuardCoreOptions["remedyText"]>;
}

/**
 * The policy a session is checked with: the one pinned for its client's capabilities, or the
 * core's default.
 *
 * @example
 * ```ts ignore
 * import { policyOf } from "./context.ts";
 * policyOf(context, session).lock?.serverName;
 * ```
 */
export function policyOf(context: GuardContext, session: GuardSession): GuardPolicy {
  return session.policy ?? context.policy;
}
