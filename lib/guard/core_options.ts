/**
 * What a `GuardCore` is made with (`core.ts` re-exports it): the policy, the mode,
 * the audit log, the server's name, the policies pinned per client capabilities, and the words
 * for what a person can do about a problem.
 *
 * @module
 */
import type { ItemKind } from "../contractpin/surface.ts";
import type { AuditLog } from "./audit.ts";
import type { GuardMode, GuardPolicy } from "./policy.ts";

/** What the core needs. */
export interface GuardCoreOptions {
  /** What is checked. */
  readonly policy: GuardPolicy;
  /** What happens to a list that fails. */
  readonly mode: GuardMode;
  /** Where decisions are recorded. */
  readonly log: AuditLog;
  /** The server's name, for messages. */
  readonly serverName: string;
  /**
   * The policy for a client that announced these capability names (sorted, `experimental`
   * left out), when the lock pins an entry for exactly them; undefined: the default policy.
   */
  readonly policyFor?: (capabilities: readonly string[]) => GuardPolicy | undefined;
  /**
   * The words for what a person can do about a problem, in the guard's refusals and log
   * lines: a sentence for each fact (the refusal joins them with spaces), and for `unpinned`
   * the words in parentheses after "the lock does not pin prompts: prompts/list passes
   * unchecked". The default names no command and no option: an application gives its own (the
   * `schemapin` CLI names its commands).
   */
  readonly remedyText?: (
    fact:
      | {
        /** Changes to the lock entry a person may review and approve. */
        readonly about: "approve";
        /** The lock file. */
        readonly lockFile: string;
        /** The server's entry in the lock. */
        readonly server: string;
        /** What changed besides skills: tool names, and other items by kind and key. */
        readonly changed: readonly (string | { readonly kind: ItemKind; readonly key: string })[];
        /** The URIs of the `SKILL.md` of changed skills. */
        readonly skills: readonly string[];
      }
      | {
        /** The lock pins no entry for the capabilities the client announced. */
        readonly about: "capabilities";
        /** Those capability names. */
        readonly capabilities: readonly string[];
      }
      | {
        /**
         * `hidden_text`: definitions hold hidden text and the policy fails it (`strictText`);
         * `unsigned_skills`: skills pinned without a verified signature (the policy's
         * `requireSkillSignature`); `unsigned_tools`: tools without a valid signature.
         */
        readonly about: "hidden_text" | "unsigned_skills" | "unsigned_tools";
      }
      | {
        /** A list of a kind the lock does not pin passed unchecked. */
        readonly about: "unpinned";
        /** What the lock does not pin: `prompts`, `resources`, `resource templates`, `skills`. */
        readonly what: string;
      },
  ) => string;
}
