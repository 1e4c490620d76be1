/**
 * `schemapin fingerprint KEY.pem`: the §8.2 fingerprint of a public or private key.
 *
 * @module
 */
import { publicKeyFromAnyPem } from "../keys/private_key.ts";
import { type Command, EXIT_OK, parseCommandArgs, requirePositionals } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { sourceName } from "../../lib/schema/input.ts";
import { type FlagTable, optionList } from "../args/flags.ts";
import { jsonFlag } from "./flag_groups.ts";
import { readTextInput } from "./io.ts";

const FLAGS = {
  ...jsonFlag("schemapin.fingerprint/1: ok, fingerprint, public_key_pem"),
} as const satisfies FlagTable;

const HELP = `schemapin fingerprint — print the SHA-256 fingerprint of a P-256 key

Usage: schemapin fingerprint [--json] KEY.pem|-

KEY.pem is a public key (PUBLIC KEY) or a private key (PRIVATE KEY or EC PRIVATE KEY); for a
private key the fingerprint of its public key is printed. The fingerprint is "sha256:" and
the lowercase hex SHA-256 of the DER SubjectPublicKeyInfo (SchemaPin spec §8.2) — the value
revocation lists, pins and DNS TXT records carry.

Options:
${optionList(FLAGS)}

Exit codes: 0 printed; 2 unreadable file or a key that is not ECDSA P-256.

Example:
  schemapin fingerprint keys/public.pem
`;

/** The `fingerprint` command. */
export const fingerprintCommand: Command = {
  name: "fingerprint",
  summary: "print the sha256: fingerprint of a public or private key",
  help: HELP,
  flags: FLAGS,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs("fingerprint", args, FLAGS);
    const [file] = requirePositionals("fingerprint", positionals, 1, "KEY.pem");
    const key = publicKeyFromAnyPem(await readTextInput(file, io), sourceName(file));
    await io.stdout(
      values.json
        ? jsonOutput("fingerprint", {
          ok: true,
          fingerprint: key.fingerprint,
          public_key_pem: key.pem,
        })
        : key.fingerprint + "\n",
    );
    return EXIT_OK;
  },
};
