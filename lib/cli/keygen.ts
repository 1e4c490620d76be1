/**
 * `schemapin keygen --out DIR`: a new P-256 key pair as `private.pem` (mode 0600) and
 * `public.pem`.
 *
 * @module
 */
import { generateKeyPair, privateKeyToPem } from "../crypto/keys.ts";
import { SchemaPinError } from "../errors.ts";
import {
  type Command,
  EXIT_OK,
  jsonOutput,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { describeFsError, exists, writeFileAtomic } from "./io.ts";

const HELP = `schemapin keygen — generate an ECDSA P-256 signing key pair

Usage: schemapin keygen --out DIR [--force] [--json]

Writes DIR/private.pem (PKCS#8, file mode 0600) and DIR/public.pem (SPKI), creating DIR
(mode 0700) if needed, and prints the public key's fingerprint. Existing key files are never
replaced unless --force is given; if anything fails, no key file is left behind.

Options:
  --out DIR   directory for the two files (required)
  --force     replace existing private.pem/public.pem
  --json      print {"fingerprint", "public_key_pem", "private_key_path"}

Exit codes: 0 written; 2 bad arguments, existing files without --force, or a write error.

Example:
  schemapin keygen --out ./keys
`;

/** The `keygen` command. */
export const keygenCommand: Command = {
  name: "keygen",
  summary: "generate a P-256 key pair (private.pem 0600, public.pem)",
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs("keygen", args, {
      out: { type: "string" },
      force: { type: "boolean" },
      json: { type: "boolean" },
    });
    requirePositionals("keygen", positionals, 0, "no positional arguments");
    const dir = values.out;
    if (!dir) throw new UsageError("keygen: --out DIR is required");
    const privatePath = `${dir.replace(/\/+$/, "") || "/"}/private.pem`;
    const publicPath = `${dir.replace(/\/+$/, "") || "/"}/public.pem`;
    const force = values.force === true;
    if (!force) {
      for (const path of [privatePath, publicPath]) {
        if (await exists(path)) {
          throw new SchemaPinError(
            "IO_FAILED",
            `${path} already exists; refusing to overwrite a key (use --force)`,
            { path },
          );
        }
      }
    }
    try {
      await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw new SchemaPinError("IO_FAILED", `cannot create ${dir}: ${describeFsError(e)}`, {
        path: dir,
      });
    }
    const key = generateKeyPair();
    await writeFileAtomic(privatePath, privateKeyToPem(key), { mode: 0o600, overwrite: force });
    try {
      await writeFileAtomic(publicPath, key.publicKey.pem, { mode: 0o644, overwrite: force });
    } catch (e) {
      if (!force) await Deno.remove(privatePath).catch(() => {});
      throw e;
    }
    await io.stdout(
      values.json
        ? jsonOutput({
          fingerprint: key.publicKey.fingerprint,
          public_key_pem: key.publicKey.pem,
          private_key_path: privatePath,
        })
        : `${key.publicKey.fingerprint}\nwrote ${privatePath} (mode 0600) and ${publicPath}\n`,
    );
    return EXIT_OK;
  },
};
