/**
 * The values of the bundle commands' own options, read from their text: the `DOMAIN=FILE`
 * documents of `--discovery` and `--revocation` (`bundle create`, `bundle add`), where `bundle
 * add` and `bundle sign` write (`--out`), and the authority precedence of `bundle merge
 * --precedence KID,…`. A misuse is a `usageError` (lib/errors.ts) naming the option; the
 * library takes the values (lib/bundle/file.ts, lib/bundle/merge.ts).
 *
 * @module
 */
import { usageError } from "../../lib/errors.ts";
import { checkKid } from "../../lib/bundle/bundle.ts";
import type { BundleDocumentFiles } from "../../lib/bundle/file.ts";

/**
 * The documents of `--discovery` and `--revocation` values, `DOMAIN=FILE` each (`bundle create`,
 * `bundle add`): a bundle holds many domains, so each value names its domain.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) naming the option, for
 *   a value that is not `DOMAIN=FILE`.
 *
 * @example
 * ```ts
 * import { bundleDocumentFiles } from "./option_values.ts";
 * bundleDocumentFiles({ discovery: ["example.com=schemapin.json"] }).discovery;
 * // [["example.com", "schemapin.json"]]
 * ```
 */
export function bundleDocumentFiles(
  values: { discovery?: readonly string[]; revocation?: readonly string[] },
): BundleDocumentFiles {
  const split = (option: string) => (value: string): [string, string] => {
    const at = value.indexOf("=");
    if (at <= 0 || at === value.length - 1) {
      throw usageError(`--${option} ${JSON.stringify(value)} is not DOMAIN=FILE`, { option });
    }
    return [value.slice(0, at), value.slice(at + 1)];
  };
  return {
    discovery: (values.discovery ?? []).map(split("discovery")),
    revocation: (values.revocation ?? []).map(split("revocation")),
  };
}

/**
 * Where `bundle add` and `bundle sign` write the bundle read from `file`: `out` when given,
 * else `file` itself (in place); a bundle read from stdin (`-`) without `out` goes to stdout
 * (`undefined`), which then cannot carry a `--json` summary as well.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) for `json` with the
 *   bundle going to stdout.
 *
 * @example
 * ```ts
 * import { bundleOutputPath } from "./option_values.ts";
 * bundleOutputPath("bundle.json", undefined, false); // "bundle.json"
 * bundleOutputPath("-", undefined, false); // undefined (stdout)
 * ```
 */
export function bundleOutputPath(
  file: string,
  out: string | undefined,
  json: boolean,
): string | undefined {
  const path = out ?? (file === "-" ? undefined : file);
  if (path === undefined && json) {
    throw usageError("the bundle goes to stdout; give --out FILE to use --json", {
      option: "json",
    });
  }
  return path;
}

/**
 * The authority precedence of `--precedence KID,…` (highest first): each kid well formed
 * (`checkKid` of lib/bundle/bundle.ts) and listed once; none when `text` is not given.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) naming the option and
 *   the kid at fault.
 *
 * @example
 * ```ts
 * import { parseAuthorityPrecedence } from "./option_values.ts";
 * parseAuthorityPrecedence("acme,partner"); // ["acme", "partner"]
 * ```
 */
export function parseAuthorityPrecedence(text: string | undefined): string[] {
  if (text === undefined) return [];
  const kids = text.split(",");
  kids.forEach((kid, i) => {
    const problem = checkKid(kid);
    if (problem) {
      throw usageError(`--precedence ${JSON.stringify(text)}: ${problem}`, {
        option: "precedence",
      });
    }
    if (kids.indexOf(kid) !== i) {
      throw usageError(`--precedence lists ${JSON.stringify(kid)} twice`, {
        option: "precedence",
      });
    }
  });
  return kids;
}
