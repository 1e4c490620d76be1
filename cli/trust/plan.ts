/**
 * The key-source options of a verification checked into a {@linkcode TrustPlan} (lib/trust/load.ts
 * loads it): which sources go together — an explicit `--public-key`, a `--discovery` document,
 * or a chain of `--bundle`, `--resolver-dir` and `--well-known` (§14) — and the options that
 * only make sense with some of them (`--revocation`, `--ca-file`, `--timeout`, `--dns-server`,
 * the authority allow-list of a signed bundle, §21.4). Nothing is read or fetched here: a
 * contradiction is refused before anything has an effect, as a `usageError` naming the option.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { usageError } from "../../lib/errors.ts";
import {
  type AuthorityOptionValues,
  checkAuthorityOptions,
  hasAuthorityOptions,
} from "../bundle/authority_options.ts";
import { type DnsServer, parseDnsServer } from "../../lib/dns/resolve.ts";
import type { TrustPlan, TrustSource } from "../../lib/trust/load.ts";

/**
 * The key-source options of a verification, by option name, as given (text).
 *
 * @example
 * ```ts
 * import type { TrustOptionValues } from "./plan.ts";
 * const given: TrustOptionValues = { "well-known": true, timeout: "5" };
 * ```
 */
export interface TrustOptionValues extends AuthorityOptionValues {
  /** `--discovery FILE`. */
  discovery?: string;
  /** `--bundle FILE`. */
  bundle?: string;
  /** `--well-known`. */
  "well-known"?: boolean;
  /** `--resolver-dir DIR`. */
  "resolver-dir"?: string;
  /** `--revocation FILE`. */
  revocation?: string;
  /** `--ca-file FILE` (extra CA certificates for --well-known). */
  "ca-file"?: string;
  /** `--timeout SECONDS` (network connect/read and DNS deadlines). */
  timeout?: string;
  /** `--dns` (DNS TXT cross-check, §17). */
  dns?: boolean;
  /** `--dns-server IP[:PORT]`. */
  "dns-server"?: string;
  /** `--allow-missing-revocation`. */
  "allow-missing-revocation"?: boolean;
  /** `--public-key FILE`: an explicit trust anchor, never pinned. */
  "public-key"?: string;
  /** `--pin-store FILE` (refused with `--public-key`). */
  "pin-store"?: string;
  /** `--trust-first-use` (refused with `--public-key`). */
  "trust-first-use"?: boolean;
}

/**
 * `--timeout SECONDS` (0 < s ≤ 600, decimals allowed) in milliseconds, `undefined` when not
 * given.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` for any other text.
 *
 * @example
 * ```ts
 * import { timeoutOption } from "./plan.ts";
 * timeoutOption("2.5"); // 2500
 * ```
 */
export function timeoutOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const s = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(s > 0 && s <= 600)) {
    throw usageError(
      `--timeout ${JSON.stringify(text)} must be a number of seconds, > 0 and ≤ 600`,
      { option: "timeout" },
    );
  }
  return Math.round(s * 1000);
}

/**
 * `--dns-server IP[:PORT]`, parsed (`parseDnsServer` of lib/dns/resolve.ts); `undefined` when
 * not given. With `requireDns`, it is refused without `--dns`.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` for a malformed server, or one
 *   given without `--dns`.
 *
 * @example
 * ```ts
 * import { dnsServerOption } from "./plan.ts";
 * dnsServerOption({ dns: true, "dns-server": "127.0.0.1:5353" }); // { host: "127.0.0.1", port: 5353 }
 * ```
 */
export function dnsServerOption(
  values: { dns?: boolean; "dns-server"?: string },
  requireDns = true,
): DnsServer | undefined {
  const text = values["dns-server"];
  if (text === undefined) return undefined;
  if (requireDns && !values.dns) {
    throw usageError("--dns-server goes with --dns", { option: "dns-server" });
  }
  try {
    return parseDnsServer(text);
  } catch (e) {
    throw usageError(`--dns-server: ${(e as Error).message}`, { option: "dns-server" });
  }
}

/** The sources given that can form a chain, in the order their options appear in `order`. */
function chainOrder(order: readonly string[], values: TrustOptionValues): TrustSource[] {
  const sources = (["bundle", "resolver-dir", "well-known"] as const).filter((f) =>
    f === "well-known" ? values["well-known"] === true : values[f] !== undefined
  );
  const at = (option: string) => {
    const i = order.findIndex((a) => a === `--${option}` || a.startsWith(`--${option}=`));
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  return sources.sort((a, b) => at(a) - at(b));
}

/**
 * Checks every key-source and DNS option of a verification of `domain` — which sources, their
 * combinations, `--timeout`, `--dns-server`, the form of the authority values, no empty path —
 * and returns the plan of what loading the trust will read and fetch. `order` is the command
 * line (or any list of `--bundle`, `--resolver-dir`, `--well-known`): a chain tries its sources
 * in that order, the default order being bundle, resolver folder, `.well-known`. How messages
 * name the plan's inputs is the loader's `names` (`trustInputNames`, cli/trust/input_names.ts).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` naming the options that do not
 *   go together, or the malformed value.
 *
 * @example
 * ```ts
 * import { planTrust } from "./plan.ts";
 * const plan = planTrust({ bundle: "b.json", "well-known": true }, "example.com", [
 *   "--well-known",
 *   "--bundle",
 * ]);
 * plan.chain; // ["well-known", "bundle"]
 * ```
 */
export function planTrust(
  values: TrustOptionValues,
  domain: string,
  order: readonly string[] = [],
): TrustPlan {
  checkArg("planTrust", "values", values, "object");
  checkArg("planTrust", "domain", domain, "string");
  const chain = chainOrder(order, values);
  const publicKey = values["public-key"];
  if (publicKey !== undefined) {
    const others = [
      ...(values.discovery !== undefined ? ["--discovery"] : []),
      ...chain.map((f) => `--${f}`),
    ];
    if (others.length > 0) {
      throw usageError(`--public-key is the key source; it does not go with ${others.join(", ")}`);
    }
    if (publicKey === "") throw usageError("--public-key needs a path");
    for (const option of ["pin-store", "trust-first-use"] as const) {
      if (values[option] !== undefined) {
        throw usageError(
          `--${option} does not go with --public-key (an explicit key is never pinned)`,
        );
      }
    }
  } else if (values.discovery !== undefined ? chain.length > 0 : chain.length === 0) {
    throw usageError(
      "give exactly one key source (--discovery FILE or --public-key FILE), or one or more of " +
        "--bundle FILE, --resolver-dir DIR and --well-known (a chain, in the order given)",
    );
  }
  if (!values["well-known"]) {
    if (values["ca-file"] !== undefined) throw usageError("--ca-file goes with --well-known");
    if (values.timeout !== undefined && !values.dns) {
      throw usageError("--timeout goes with --well-known or --dns");
    }
  }
  const timeoutMs = timeoutOption(values.timeout);
  if (
    (values.discovery !== undefined || values.bundle === undefined) && hasAuthorityOptions(values)
  ) {
    throw usageError(
      "--authority, --authority-key, --authority-store and --trust-first-use-authority go " +
        "with --bundle FILE",
    );
  }
  if (
    values.discovery === undefined && publicKey === undefined && values.revocation !== undefined
  ) {
    throw usageError(
      "--revocation goes with --discovery or --public-key; a bundle, --resolver-dir and " +
        "--well-known supply their own revocation documents",
    );
  }
  checkAuthorityOptions(values);
  for (const option of ["discovery", "revocation", "bundle", "resolver-dir", "ca-file"] as const) {
    if (values[option] === "") throw usageError(`--${option} needs a path`);
  }
  const server = dnsServerOption(values);
  return {
    domain,
    chain,
    publicKey,
    discovery: values.discovery,
    revocation: values.revocation,
    bundle: values.bundle,
    resolverDir: values["resolver-dir"],
    caFile: values["ca-file"],
    httpsTimeoutMs: timeoutMs,
    requireSignedBundle: hasAuthorityOptions(values),
    allowFirstUseAuthority: values["trust-first-use-authority"] === true,
    allowMissingRevocation: values["allow-missing-revocation"] === true,
    dns: values.dns
      ? { ...(server ? { server } : {}), ...(timeoutMs ? { timeoutMs } : {}) }
      : undefined,
  };
}
