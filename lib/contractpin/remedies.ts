/**
 * What the contractpin messages tell the caller to do, in the library's own terms: the option
 * to set, or the lock to re-create (issue 36 item 2: no library message names a flag or builds
 * a command line). Each message ends with (or, for a header, starts with) one of these words,
 * so the CLI can name its flag or command in their place (cli/library_words.ts).
 *
 * @module
 */

/**
 * The last words of the error for a lock of another format version (§5), before its `)`.
 *
 * @example
 * ```ts
 * import { UNSUPPORTED_LOCK_VERSION } from "./remedies.ts";
 * console.log(UNSUPPORTED_LOCK_VERSION); // "upgrade schemapin, or re-create the lock"
 * ```
 */
export const UNSUPPORTED_LOCK_VERSION = "upgrade schemapin, or re-create the lock";

/**
 * The last words of the error for a lock whose counts contradict its items (§5), before its `)`.
 *
 * @example
 * ```ts
 * import { LOCK_INCONSISTENT } from "./remedies.ts";
 * console.log(LOCK_INCONSISTENT); // "the lock is inconsistent; re-create it"
 * ```
 */
export const LOCK_INCONSISTENT = "the lock is inconsistent; re-create it";

/**
 * The last words of the error for a lock whose digests contradict its items (§5), before its
 * `)`.
 *
 * @example
 * ```ts
 * import { LOCK_EDITED } from "./remedies.ts";
 * LOCK_EDITED.startsWith("the lock was edited by hand"); // true
 * ```
 */
export const LOCK_EDITED = "the lock was edited by hand — re-create it";

/**
 * Every lock error's last words (before its `)`) whose fix is to pin the servers again.
 *
 * @example
 * ```ts
 * import { LOCK_EDITED, RECREATE_LOCK } from "./remedies.ts";
 * RECREATE_LOCK.includes(LOCK_EDITED); // true
 * ```
 */
export const RECREATE_LOCK: readonly string[] = [
  UNSUPPORTED_LOCK_VERSION,
  LOCK_INCONSISTENT,
  LOCK_EDITED,
];

/**
 * The run option that pins a dynamic skill by its frontmatter (docs/contractpin-skills.md), as
 * a pin notice names it in parentheses at its end.
 *
 * @example
 * ```ts
 * import { ALLOW_DYNAMIC_SKILLS } from "./remedies.ts";
 * console.log(ALLOW_DYNAMIC_SKILLS); // "skills.allowDynamic"
 * ```
 */
export const ALLOW_DYNAMIC_SKILLS = "skills.allowDynamic";

/**
 * The option that writes a literal credential of a command to the lock (§5 "Secrets"), as a
 * warning names it in parentheses at its end.
 *
 * @example
 * ```ts
 * import { ALLOW_LITERAL_SECRETS } from "./remedies.ts";
 * console.log(ALLOW_LITERAL_SECRETS); // "allowLiteralSecrets"
 * ```
 */
export const ALLOW_LITERAL_SECRETS = "allowLiteralSecrets";

/**
 * The last words of the error for literal credentials in a command (§5 "Secrets"), before its
 * `)`: the option that writes them as they are.
 *
 * @example
 * ```ts
 * import { LITERAL_SECRETS_ALLOWED } from "./remedies.ts";
 * LITERAL_SECRETS_ALLOWED.startsWith("the allowLiteralSecrets option"); // true
 * ```
 */
export const LITERAL_SECRETS_ALLOWED =
  `the ${ALLOW_LITERAL_SECRETS} option writes the arguments as they are`;

/**
 * The last words of a warning about a credential in an endpoint URL (§5 "Secrets"): send it in
 * a header (a `HeaderTemplate` of the target) instead.
 *
 * @example
 * ```ts
 * import { HEADER_INSTEAD } from "./remedies.ts";
 * console.log(HEADER_INSTEAD); // "a header instead"
 * ```
 */
export const HEADER_INSTEAD = "a header instead";

/**
 * The first word of an error about a header template (`header NAME: …`), naming where a
 * variable was needed.
 *
 * @example
 * ```ts
 * import { HEADER_TEMPLATE } from "./remedies.ts";
 * console.log(HEADER_TEMPLATE); // "header"
 * ```
 */
export const HEADER_TEMPLATE = "header";
