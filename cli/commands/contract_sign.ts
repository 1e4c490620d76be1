/**
 * `schemapin contract sign` (issue 17 item 2): writes `<lock>.sig`, a SchemaPin 1.4 signature
 * document over the lock (cli/contractpin/sign_lock.ts, `signLockFile`); and the help of the
 * check that `contract verify --require-signed-lock` makes of it (cli/commands/lock_signature.ts).
 *
 * @module
 */
import { DEFAULT_LOCK_FILE } from "../../lib/contractpin/lock.ts";
import { LOCK_SIGNATURE_TOOL_ID } from "../contractpin/lock_signature.ts";
import { signLockFile } from "../contractpin/sign_lock.ts";
import { signJsonFields } from "../contractpin/json_fields.ts";
import { lockSignatureFile } from "../contractpin/lock_signature_check.ts";
import { asUsage, type CliIO, EXIT_OK, UsageError } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { readInput, writeFileAtomic } from "./io.ts";
import { parseContractArgs } from "./contract_shared.ts";
import { signatureMetadata } from "./signature_options.ts";
import { loadSigner } from "./private_key.ts";
import { type FlagTable, optionList, valueFlag } from "../args/flags.ts";
import {
  FORCE_FLAGS,
  jsonFlag,
  KEY_FLAGS,
  QUIET_FLAGS,
  SIGNATURE_METADATA_FLAGS,
} from "./flag_groups.ts";
import { LOCK_TRUST_FLAGS } from "./lock_signature.ts";

const CMD = "contract sign";

/** Help of `contract sign` (part of `schemapin contract --help`). */
export const CONTRACT_SIGN_HELP =
  `sign     writes LOCK.sig (default contractpin.lock.sig, or --signature FILE), a SchemaPin
         1.4 signature of the lock's values, with sign-schema's key and metadata flags.`;

/** Help of the lock-signature check of `contract verify` (its flags listed from the table). */
export const VERIFY_SIGNATURE_HELP =
  `Signed locks (contract verify --require-signed-lock): before any server is contacted,
LOCK.sig (--signature FILE) must be a valid signature of the lock by the key of --domain D,
found as verify-schema finds it and pinned as ${LOCK_SIGNATURE_TOOL_ID}@DOMAIN; otherwise exit 1
and no server is contacted. --timeout stays the seconds for each MCP request. Without
--require-signed-lock these options are refused. See docs/contractpin.md "Signed locks".

${optionList(LOCK_TRUST_FLAGS)}`;

/** The flags of `contract sign`. */
export const CONTRACT_SIGN_FLAGS = {
  lock: valueFlag("FILE", "the lock to sign (default contractpin.lock)"),
  ...KEY_FLAGS,
  ...SIGNATURE_METADATA_FLAGS,
  signature: valueFlag("FILE", "the signature FILE to write (default LOCK.sig)"),
  ...FORCE_FLAGS,
  ...jsonFlag("schemapin.contract.sign/1"),
  ...QUIET_FLAGS,
} as const satisfies FlagTable;

/** Runs `schemapin contract sign`. */
export async function runContractSign(args: string[], io: CliIO): Promise<number> {
  const { values } = parseContractArgs(CMD, args, CONTRACT_SIGN_FLAGS);
  if (!values.key) {
    throw new UsageError(`${CMD}: --key PRIVATE.pem is required (or ssh-agent:PUBFILE)`);
  }
  const lockPath = values.lock ?? DEFAULT_LOCK_FILE;
  if (lockPath === "-" || lockPath === "") {
    throw new UsageError(`${CMD}: --lock must name the lock file (the signature goes next to it)`);
  }
  const sigPath = asUsage(CMD, () => lockSignatureFile(lockPath, values.signature));
  const now = Math.floor(Date.now() / 1000) * 1000; // whole seconds in signed_at
  const options = signatureMetadata(CMD, values, now);
  // The one rule for outputs (cli/args/flags.ts): an existing signature is replaced only with
  // --force — checked before the key (and its passphrase) is asked for.
  const force = values.force === true;
  const signed = await signLockFile(
    { lockPath, sigPath, force, options },
    {
      read: (path) => readInput(path, io),
      write: (path, text) => writeFileAtomic(path, text, { overwrite: force }),
    },
    () => loadSigner(values.key!, io, { command: CMD, passphraseFile: values["passphrase-file"] }),
  );
  if (values.json) {
    await io.stdout(jsonOutput("contract.sign", signJsonFields(lockPath, sigPath, signed)));
  } else if (!values.quiet) {
    await io.stdout(
      `signed ${lockPath} (${signed.document.schema_hash}) with ` +
        `${signed.signer.publicKey.fingerprint}\n` +
        `wrote ${sigPath}\n`,
    );
  }
  return EXIT_OK;
}
