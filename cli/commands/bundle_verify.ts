/**
 * `schemapin bundle verify`: verify a signed trust bundle against the authority allow-list
 * (§21.4).
 *
 * @module
 */
import { bundleDomains, bundleVerificationJson } from "../bundle/json_fields.ts";
import { type TrustBundleVerification, verifyTrustBundle } from "../../lib/bundle/verify.ts";
import {
  checkAuthorityKeyOptions,
  readAuthorityKeyFiles,
  verifyTrustBundleWithKey,
} from "../bundle/verify_key.ts";
import { sourceName } from "../../lib/schema/input.ts";
import { asUsage, type CliIO, EXIT_OK, parseCommandArgs, requirePositionals } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { reportInputFailure } from "./schema_inputs.ts";
import {
  authorityStoreFromFlags,
  readBundleFile,
  verificationHint,
  verificationNotes,
} from "./bundle_trust.ts";
import { readInput } from "./io.ts";
import { exitCodeFor } from "../exit_codes.ts";
import type { FlagTable } from "../args/flags.ts";
import { AUTHORITY_FLAGS, jsonFlag, KEY_SOURCE_FLAGS } from "./flag_groups.ts";

/** The `--json` format of `bundle verify` (and of each input of `bundle merge`). */
const VERIFY_FORMAT = "ok, file, kid, fingerprint, first_use, signed_at, expires_at, " +
  "documents, revocations, warnings";

/** The flags of `bundle verify`. */
export const VERIFY_FLAGS = {
  ...AUTHORITY_FLAGS,
  "public-key": {
    ...KEY_SOURCE_FLAGS["public-key"],
    help: "the authority's public key (PEM) as the only trusted authority, whatever kid the " +
      "bundle names; nothing is recorded; not with the allow-list flags or " +
      "--trust-first-use-authority",
  },
  revocation: {
    ...KEY_SOURCE_FLAGS.revocation,
    help: "with --public-key: a revocation document; the bundle fails with KEY_REVOKED when " +
      "it lists the authority key",
  },
  ...jsonFlag(`schemapin.bundle.verify/1: ${VERIFY_FORMAT}`),
  // Old spelling, kept for one release (its meaning here was the authority, not a tool key).
  "trust-first-use": { type: "boolean", help: "", deprecated: "trust-first-use-authority" },
} as const satisfies FlagTable;

/** `bundle verify BUNDLE (--authority KID=FP | --authority-key KID=PEM)… [--trust-first-use-authority]`. */
export async function runBundleVerify(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("bundle verify", args, VERIFY_FLAGS);
  const publicKey = values["public-key"];
  const allowList =
    (["authority", "authority-key", "authority-store", "trust-first-use-authority"] as const)
      .filter((f) => values[f] !== undefined).map((f) => `--${f}`);
  asUsage(
    "bundle verify",
    () => checkAuthorityKeyOptions({ publicKey, revocation: values.revocation, allowList }),
  );
  const [file] = requirePositionals("bundle verify", positionals, 1, "one BUNDLE");
  const json = values.json === true;
  let result: TrustBundleVerification;
  let persisted = false;
  try {
    const value = await readBundleFile(file, io);
    if (publicKey !== undefined) {
      const { key, revocation } = await readAuthorityKeyFiles(
        { publicKey, revocation: values.revocation },
        (p) => readInput(p, io),
      );
      result = await verifyTrustBundleWithKey(value, key, {
        source: sourceName(file),
        ...(revocation ? { revocation } : {}),
      });
    } else {
      const flags = await authorityStoreFromFlags("bundle verify", values, io);
      persisted = flags.persisted;
      result = await verifyTrustBundle(value, flags.store, {
        allowFirstUse: values["trust-first-use-authority"] === true,
        source: sourceName(file),
      });
    }
  } catch (e) {
    return await reportInputFailure(e, json, io);
  }
  if (json) {
    await io.stdout(jsonOutput("bundle.verify", bundleVerificationJson(sourceName(file), result)));
  }
  if (!result.valid) {
    if (!json) {
      await io.stderr(`error: ${result.errorCode}: ${result.errorMessage}\n`);
      await io.stderr(verificationHint(result));
    }
    return exitCodeFor(result.errorCode, "verdict");
  }
  await io.stderr(
    verificationNotes(file, result, { persisted, path: values["authority-store"] }),
  );
  if (!json) {
    const { documents, revocations } = bundleDomains(result.verified!.bundle);
    const list = (xs: string[]) => (xs.length > 0 ? xs.join(", ") : "none");
    await io.stdout(
      `verified: ${sourceName(file)}\n` +
        `authority: ${result.kid} ${result.fingerprint}${result.firstUse ? " (first use)" : ""}\n` +
        `signed_at: ${result.signedAt ?? "-"}  expires_at: ${result.expiresAt ?? "never"}\n` +
        `documents: ${list(documents)}\nrevocations: ${list(revocations)}\n`,
    );
  }
  return EXIT_OK;
}
