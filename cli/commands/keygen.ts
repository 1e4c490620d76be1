/**
 * `schemapin keygen --out-dir DIR`: a new P-256 key pair as `private.pem` (mode 0600) and
 * `public.pem`. `private.pem` is an encrypted PKCS #8 key unless `--unencrypted` is asked for:
 * SchemaPin §9 wants private keys stored with "encryption at rest", and minisign and cosign
 * encrypt by default too (issue 27).
 *
 * @module
 */
import { DEFAULT_PBKDF2_ITERATIONS } from "../../lib/crypto/encrypted_key.ts";
import { keyPairPaths } from "../keys/key_files.ts";
import { createKeyPairFiles } from "../discovery/key_pair.ts";
import {
  type Command,
  EXIT_OK,
  notice,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { withForceHint } from "./io.ts";
import { readPassphrase } from "./private_key.ts";
import { booleanFlag, type FlagTable, optionList, valueFlag } from "../args/flags.ts";
import { FORCE_FLAGS, jsonFlag, PASSPHRASE_FLAGS } from "./flag_groups.ts";

const FLAGS = {
  "out-dir": valueFlag(
    "DIR",
    "the folder for private.pem and public.pem (required; created with mode 0700)",
  ),
  ...FORCE_FLAGS,
  ...PASSPHRASE_FLAGS,
  unencrypted: booleanFlag(
    "write private.pem NOT encrypted: anyone who can read the file can sign as you. " +
      "For CI and throwaway keys; the default encrypts it with a passphrase",
  ),
  "write-discovery": booleanFlag(
    "also write DIR/schemapin.json, the discovery document to publish at " +
      "https://DOMAIN/.well-known/schemapin.json (needs --developer)",
  ),
  developer: valueFlag("NAME", "developer name for the discovery document"),
  contact: valueFlag("C", "security contact for the discovery document"),
  ...jsonFlag("schemapin.keygen/1: ok, fingerprint, public_key_pem, private_key_path, encrypted"),
  // Old spellings, kept for one release (docs/cli-vocabulary.md).
  out: { type: "string", help: "", deprecated: "out-dir" },
  "well-known": { type: "boolean", help: "", deprecated: "write-discovery" },
  // Encryption is the default now: --encrypt asks for nothing more (noted when given).
  encrypt: booleanFlag(
    "(the default now) kept so that scripts written for 0.1 still run; prints a note",
  ),
} as const satisfies FlagTable;

const HELP = `schemapin keygen — generate an ECDSA P-256 signing key pair

Usage: schemapin keygen --out-dir DIR [--passphrase-file FILE | --unencrypted] [--force] [--json]
       [--write-discovery --developer NAME [--contact C]]

Writes DIR/private.pem (PKCS#8, file mode 0600) and DIR/public.pem (SPKI), creating DIR
(mode 0700) if needed, and prints the public key's fingerprint. Existing key files are never
replaced unless --force is given; if anything fails, no key file is left behind.

private.pem is encrypted (PKCS#8 PBES2, ${DEFAULT_PBKDF2_ITERATIONS} PBKDF2 iterations, AES-256-CBC;
OpenSSL reads it) with a passphrase from --passphrase-file FILE, else $SCHEMAPIN_PASSPHRASE,
else the terminal (typed twice, not echoed). With none of them keygen stops (exit 2) rather
than write a key in the clear; --unencrypted writes a plain key (CI, a throwaway key).
docs/keys.md has the details.

Options:
${optionList(FLAGS)}

Exit codes: 0 written; 2 bad arguments, existing files without --force, a write error, or
no passphrase (no --passphrase-file, no $SCHEMAPIN_PASSPHRASE, no terminal) without
--unencrypted.

Examples:
  schemapin keygen --out-dir ./keys
  SCHEMAPIN_PASSPHRASE=… schemapin keygen --out-dir ./keys
  schemapin keygen --out-dir ./ci-keys --unencrypted
`;

/** The `keygen` command. */
export const keygenCommand: Command = {
  name: "keygen",
  summary: "generate a P-256 key pair (private.pem 0600, public.pem)",
  help: HELP,
  flags: FLAGS,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs("keygen", args, FLAGS);
    requirePositionals("keygen", positionals, 0, "no positional arguments");
    const dir = values["out-dir"];
    if (!dir) throw new UsageError("keygen: --out-dir DIR is required");
    if (values["write-discovery"] && values.developer === undefined) {
      throw new UsageError("keygen: --write-discovery needs --developer NAME");
    }
    if (
      !values["write-discovery"] && (values.developer !== undefined || values.contact !== undefined)
    ) {
      throw new UsageError("keygen: --developer and --contact go with --write-discovery");
    }
    const encrypt = values.unencrypted !== true;
    if (values.encrypt === true) {
      if (!encrypt) throw new UsageError("keygen: --encrypt and --unencrypted exclude each other");
      notice("note: keygen: --encrypt is the default now; it can be left out\n");
    }
    if (!encrypt && values["passphrase-file"] !== undefined) {
      throw new UsageError("keygen: --passphrase-file and --unencrypted exclude each other");
    }
    const { privatePath, publicPath } = keyPairPaths(dir, false);
    const sources = {
      command: "keygen",
      passphraseFile: values["passphrase-file"],
      otherwise: "or give --unencrypted to write the key NOT encrypted",
    };
    let created;
    try {
      created = await createKeyPairFiles(dir, {
        ...(encrypt ? { passphrase: () => readPassphrase(io, sources, privatePath, true) } : {}),
        ...(values["write-discovery"]
          ? { discovery: { developerName: values.developer!, contact: values.contact } }
          : {}),
        overwrite: values.force === true,
      });
    } catch (e) {
      throw withForceHint(e);
    }
    const { key, paths: { discoveryPath: wellKnownPath } } = created;
    if (!encrypt) {
      await io.stderr(
        `warning: ${privatePath} is NOT encrypted (--unencrypted): anyone who can read it ` +
          "can sign as you\n",
      );
    }
    await io.stdout(
      values.json
        ? jsonOutput("keygen", {
          ok: true,
          fingerprint: key.publicKey.fingerprint,
          public_key_pem: key.publicKey.pem,
          private_key_path: privatePath,
          encrypted: encrypt,
          ...(wellKnownPath ? { well_known_path: wellKnownPath } : {}),
        })
        : `${key.publicKey.fingerprint}\nwrote ${privatePath} (${
          encrypt ? "encrypted, " : ""
        }mode 0600) and ${publicPath}` +
          (wellKnownPath ? ` and ${wellKnownPath}\n` : "\n"),
    );
    return EXIT_OK;
  },
};
