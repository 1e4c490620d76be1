/**
 * What `loadTrustedVerifier` (lib/trust/verify.ts) takes for a verify command, lineage
 * included: the options of `trustVerifierOptions` (./schema_inputs.ts) and the store that
 * `--lineage` or `--lineage-store FILE` asks for (./lineage_store.ts). Its own module, so that a
 * verification without lineage loads neither the store nor its chain code.
 *
 * @module
 */
import type { TrustedVerifierOptions } from "../../lib/trust/verify.ts";
import type { TrustOptionValues } from "../trust/plan.ts";
import type { CliIO } from "./command.ts";
import { lineageStoreFromFlags } from "./lineage_store.ts";
import { type TrustPlan, trustVerifierOptions } from "./schema_inputs.ts";

/**
 * What `loadTrustedVerifier` takes for a verify command's `plan`: its files read through `io`,
 * and the pin, lineage and expiry flags among `values`.
 *
 * @example
 * ```ts ignore
 * const verifier = await loadTrustedVerifier(verifierOptions(plan, values, io));
 * ```
 */
export function verifierOptions(
  plan: TrustPlan,
  values: TrustOptionValues & {
    lineage?: boolean;
    "lineage-store"?: string;
    "allow-expired"?: boolean;
  },
  io: CliIO,
): TrustedVerifierOptions {
  return {
    ...trustVerifierOptions(plan, values, io),
    // --lineage: checked before any pin is written, moved forward once verification passed.
    lineage: lineageStoreFromFlags(values),
  };
}
