/**
 * How the verify commands name the inputs of a trust plan in their messages: by the options
 * that give them (`--public-key`, `--resolver-dir`, `--ca-file`, `--dns-server`), with the
 * CLI's advice. The library (lib/trust/load.ts, lib/schema/input.ts, lib/dns/resolve.ts) names
 * them in its own terms unless told.
 *
 * @module
 */
import type { PemKeyHint } from "../../lib/schema/input.ts";
import type { TrustInputNames } from "../../lib/trust/load.ts";

/**
 * What to add when a PEM key is given where the option `flag` takes a key instead
 * (`--discovery public.pem` → "… not a discovery document (use --public-key FILE)").
 *
 * @example
 * ```ts
 * import { keyOptionHint } from "./input_names.ts";
 * keyOptionHint("--key").publicKey; // "use --key FILE"
 * ```
 */
export function keyOptionHint(flag: string): PemKeyHint {
  return {
    publicKey: `use ${flag} FILE`,
    privateKey: flag === "--public-key"
      ? "use --public-key FILE with its public key, e.g. the public.pem keygen wrote"
      : `use ${flag} FILE`,
  };
}

/**
 * The names of a plan's inputs in the messages of `command` (guard takes no key file, so a PEM
 * key given as its `--discovery` names no option).
 *
 * @example
 * ```ts
 * import { trustInputNames } from "./input_names.ts";
 * trustInputNames("verify-schema").resolverDir; // "--resolver-dir"
 * ```
 */
export function trustInputNames(command: string): TrustInputNames {
  return {
    publicKey: "--public-key",
    publicKeyAdvice: "give public.pem (`schemapin keygen` writes it; " +
      "`openssl pkey -in KEY -pubout` derives it), and keep the private key off this machine",
    ...(command === "guard" ? {} : { keyHint: keyOptionHint("--public-key") }),
    resolverDir: "--resolver-dir",
    caFile: "--ca-file",
    dnsServer: "--dns-server",
  };
}
