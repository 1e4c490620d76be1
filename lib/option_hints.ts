/**
 * What the library says about an option a caller can change or a remedy to apply, in the
 * library's own terms (its options by field name; the lock to re-create): issue 36 item 2, no
 * library message names a flag or builds a command line. A CLI that names its flags and commands
 * instead turns these phrases into its words (cli/library_words.ts); they live here, in one file
 * with no imports, so the error printer that every command loads stays light.
 *
 * @module
 */

/** What a key of another kind is told (a CLI adds its own key generator). */
export const KEY_KIND_HINT = "SchemaPin keys are ECDSA P-256 (spec §3); make one with " +
  "`openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`";

/** How a skill walk's refusal says its file cap can be raised (`maxEntries`). */
export const RAISE_MAX_ENTRIES = "raise it with the maxEntries option if this is intended";

/** How a skill walk's refusal says its byte cap can be raised (`maxBytes`). */
export const RAISE_MAX_BYTES = "raise it with the maxBytes option if this is intended";

/** How the page cap's refusal says it can be raised (`maxPages`). */
export const RAISE_MAX_PAGES =
  "raise it with the maxPages option if the server really has that many";

/** What a 401 or 403 answer of an MCP server over HTTP is told. */
export const CREDENTIALS_HINT =
  " (pass credentials in a header, e.g. 'Authorization: Bearer ${TOKEN}')";

// The contractpin messages: each ends with (or, for a header, starts with) one of these.

/**
 * The last words of the error for a lock of another format version (§5), before its `)`.
 *
 * @example
 * ```ts
 * import { UNSUPPORTED_LOCK_VERSION } from "./option_hints.ts";
 * console.log(UNSUPPORTED_LOCK_VERSION); // "upgrade schemapin, or re-create the lock"
 * ```
 */
export const UNSUPPORTED_LOCK_VERSION = "upgrade schemapin, or re-create the lock";

/**
 * The last words of the error for a lock whose counts contradict its items (§5), before its `)`.
 *
 * @example
 * ```ts
 * import { LOCK_INCONSISTENT } from "./option_hints.ts";
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
 * import { LOCK_EDITED } from "./option_hints.ts";
 * LOCK_EDITED.startsWith("the lock was edited by hand"); // true
 * ```
 */
export const LOCK_EDITED = "the lock was edited by hand — re-create it";

/**
 * Every lock error's last words (before its `)`) whose fix is to pin the servers again.
 *
 * @example
 * ```ts
 * import { LOCK_EDITED, RECREATE_LOCK } from "./option_hints.ts";
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
 * import { ALLOW_DYNAMIC_SKILLS } from "./option_hints.ts";
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
 * import { ALLOW_LITERAL_SECRETS } from "./option_hints.ts";
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
 * import { LITERAL_SECRETS_ALLOWED } from "./option_hints.ts";
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
 * import { HEADER_INSTEAD } from "./option_hints.ts";
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
 * import { HEADER_TEMPLATE } from "./option_hints.ts";
 * console.log(HEADER_TEMPLATE); // "header"
 * ```
 */
export const HEADER_TEMPLATE = "header";
