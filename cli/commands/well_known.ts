/**
 * `schemapin well-known`: print (or write) a `.well-known/schemapin.json` discovery document.
 *
 * @module
 */
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import {
  type Command,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { documentText } from "./json_output.ts";
import { loadKeyForPublicKey } from "./private_key.ts";
import { writeFileAtomic } from "./io.ts";
import { type FlagTable, listFlag, optionList, valueFlag } from "../args/flags.ts";
import { FORCE_FLAGS, PASSPHRASE_FLAGS } from "./flag_groups.ts";

const FLAGS = {
  key: valueFlag(
    "KEY.pem",
    "the current public (or private) key, PEM; only its public half is published",
  ),
  ...PASSPHRASE_FLAGS,
  developer: valueFlag("NAME", "developer name shown to users (required)"),
  contact: valueFlag("C", "security contact"),
  "revocation-endpoint": valueFlag("URL", "https:// URL of the standalone revocation document"),
  revoked: listFlag("FP", "a revoked key's sha256: fingerprint (repeatable)"),
  out: valueFlag("FILE", "write to FILE instead of stdout (refuses to replace without --force)"),
  ...FORCE_FLAGS,
} as const satisfies FlagTable;

const HELP = `schemapin well-known — build a .well-known/schemapin.json discovery document

Usage: schemapin well-known --key PUBLIC.pem --developer NAME [--contact C]
           [--revocation-endpoint URL] [--revoked FINGERPRINT]… [--out FILE] [--force]

Prints the discovery document (schema_version "1.4") to publish at
https://DOMAIN/.well-known/schemapin.json. --key may also be a private key; only its public
half is published. --revoked may be repeated; each value is a sha256: fingerprint.

Options:
${optionList(FLAGS)}

Exit codes: 0 written; 2 bad arguments, unreadable or invalid key, bad URL or fingerprint.

Example:
  schemapin well-known --key keys/public.pem --developer "Example Corp" \\
      --contact security@example.com > schemapin.json
`;

/** The `well-known` command. */
export const wellKnownCommand: Command = {
  name: "well-known",
  summary: "build a .well-known/schemapin.json discovery document",
  help: HELP,
  flags: FLAGS,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs("well-known", args, FLAGS);
    requirePositionals("well-known", positionals, 0, "no positional arguments");
    if (!values.key) throw new UsageError("well-known: --key PUBLIC.pem is required");
    if (values.developer === undefined) {
      throw new UsageError("well-known: --developer NAME is required");
    }
    const key = await loadKeyForPublicKey(values.key, io, {
      command: "well-known",
      passphraseFile: values["passphrase-file"],
    });
    const doc = buildDiscoveryDocument({
      publicKey: key,
      developerName: values.developer,
      contact: values.contact,
      revocationEndpoint: values["revocation-endpoint"],
      revokedKeys: values.revoked,
    });
    const text = documentText(doc);
    if (values["revocation-endpoint"] !== undefined) {
      // Offline verification of this document fails closed without the endpoint's document
      // (DISCOVERY_FETCH_FAILED): say so when it is written, not when a client trips on it.
      await io.stderr(
        `warning: this document names revocation_endpoint ${values["revocation-endpoint"]}: ` +
          "a client verifying offline (--discovery FILE) then also needs that document " +
          "(--revocation FILE, or a bundle holding it) or --allow-missing-revocation; " +
          "--well-known fetches it\n",
      );
    }
    if (values.out !== undefined) {
      await writeFileAtomic(values.out, text, { overwrite: values.force === true });
      await io.stdout(`wrote ${values.out} (key ${key.fingerprint})\n`); // a result, as keygen's
    } else {
      await io.stdout(text);
    }
    return EXIT_OK;
  },
};
