/**
 * What the library says about an option a caller can change, in the library's own terms (its
 * options by field name). A CLI that names its flags instead turns these phrases into its words
 * (cli/library_words.ts); they live here, with no imports, so that module stays light.
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
