/**
 * `schemapin sign-skill`: sign a skill folder (§4b.5) and write `DIR/.schemapin.sig`,
 * pretty-printed and atomically; on any error nothing is written.
 *
 * @module
 */
import { sourceName } from "../../lib/schema/input.ts";
import { showPath } from "../../lib/skill/fs.ts";
import {
  previousHashOf,
  type SignSkillDirOptions,
  signSkillDirWithSigner,
  writeSkillSignature,
} from "../../lib/skill/sign.ts";
import {
  type Command,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { readInput } from "./io.ts";
import { expiryOption } from "./signature_options.ts";
import { limitsFromArgs } from "./skill_limits.ts";
import { skillProgress } from "./progress.ts";
import { loadSigner } from "./private_key.ts";
import { requireDomainFlag } from "./schema_inputs.ts";
import { type FlagTable, optionList, valueFlag } from "../args/flags.ts";
import {
  jsonFlag,
  KEY_FLAGS,
  LIMIT_FLAGS,
  QUIET_FLAGS,
  SIGNATURE_METADATA_FLAGS,
} from "./flag_groups.ts";

const FLAGS = {
  ...KEY_FLAGS,
  domain: {
    ...SIGNATURE_METADATA_FLAGS.domain,
    help: "the publisher's domain, whose .well-known/schemapin.json holds the public key " +
      "(required)",
  },
  name: valueFlag(
    "N",
    "skill_name (default: name: in SKILL.md front matter, else the folder name); " +
      "verifiers pin the key under N@D",
  ),
  "expires-in": SIGNATURE_METADATA_FLAGS["expires-in"],
  "expires-at": SIGNATURE_METADATA_FLAGS["expires-at"],
  "schema-version": valueFlag("V", "version tag of this release (e.g. 2.1.0), §18"),
  "previous-hash": valueFlag("H", "skill_hash (sha256:…) of the previous signed release, §18"),
  previous: valueFlag("SIGFILE", "take previous_hash from that release's .schemapin.sig"),
  "signer-kid": {
    ...SIGNATURE_METADATA_FLAGS["signer-kid"],
    help: "the signing key's id (default: the key's sha256: fingerprint)",
  },
  ...LIMIT_FLAGS,
  ...jsonFlag("schemapin.sign-skill/1: ok, out, document"),
  quiet: {
    ...QUIET_FLAGS.quiet,
    help: "no progress line (on a terminal, one counts the files while the folder is " +
      "listed, then the files and bytes hashed)",
  },
} as const satisfies FlagTable;

const HELP = `schemapin sign-skill — sign a skill folder (SchemaPin §4b)

Usage:
  schemapin sign-skill DIR --key PRIVATE.pem|ssh-agent:PUBFILE --domain D [--name N]
      [--expires-in DURATION | --expires-at TIME] [--schema-version V]
      [--previous-hash H | --previous SIGFILE] [--signer-kid KID]
      [--max-entries N] [--max-bytes SIZE] [--passphrase-file FILE] [--json] [-q]

Hashes every file of DIR (§4b), signs the 1.4 signature document over its schemapin-v1
canonical form (expiry, domain, versions and manifest are all covered) and writes
DIR/.schemapin.sig pretty-printed and atomically, replacing an older one; if anything fails,
nothing is written. A symbolic link, FIFO, socket or device in DIR, a non-UTF-8 file name, or a
folder over the caps (10000 files, 256 MiB) is refused with the path named. docs/signing.md
("Skill folders") has the rest.

--key ssh-agent:PUBFILE signs with a key held by the SSH agent at $SSH_AUTH_SOCK, named by its
public half in PUBFILE; the agent is sent the canonical document, at most 256 KiB for
OpenSSH's agent (docs/ssh-agent.md).

Options:
${optionList(FLAGS)}

Exit codes: 0 signed; 2 bad arguments, an unreadable or malformed key or previous
signature, a folder that cannot be hashed (the message names the path), or an SSH agent
that is missing, does not hold the key or refuses to sign (the message names the --key
value).

Examples:
  schemapin sign-skill ./pdf-tools --key keys/private.pem --domain example.com
  schemapin sign-skill ./pdf-tools --key keys/private.pem --domain example.com \\
      --expires-in 180d --schema-version 2.1.0 --previous old/.schemapin.sig
  schemapin sign-skill ./pdf-tools --key ssh-agent:yubikey.pub --domain example.com
`;

/** The `sign-skill` command. */
export const signSkillCommand: Command = {
  name: "sign-skill",
  summary: "sign a skill folder (§4b) and write DIR/.schemapin.sig",
  help: HELP,
  flags: FLAGS,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs("sign-skill", args, FLAGS);
    const [dir] = requirePositionals("sign-skill", positionals, 1, "DIR");
    if (!values.key) {
      throw new UsageError("sign-skill: --key PRIVATE.pem is required (or ssh-agent:PUBFILE)");
    }
    const domain = requireDomainFlag("sign-skill", values.domain);
    if (values["previous-hash"] !== undefined && values.previous !== undefined) {
      throw new UsageError("sign-skill: give --previous-hash or --previous, not both");
    }
    const limits = limitsFromArgs("sign-skill", values);
    const now = Math.floor(Date.now() / 1000) * 1000; // signed_at in whole seconds
    const metadata = { signedAt: now, expiresAt: expiryOption("sign-skill", values, now) };
    // Everything that can fail cheaply fails before the folder is hashed.
    const signer = await loadSigner(values.key, io, {
      command: "sign-skill",
      passphraseFile: values["passphrase-file"],
    });
    const previousHash = values.previous !== undefined
      ? previousHashOf(await readInput(values.previous, io), sourceName(values.previous))
      : values["previous-hash"];

    const options: SignSkillDirOptions = { ...limits, ...metadata, domain };
    if (values.name !== undefined) options.skillName = values.name;
    if (values["schema-version"] !== undefined) options.schemaVersion = values["schema-version"];
    if (previousHash !== undefined) options.previousHash = previousHash;
    if (values["signer-kid"] !== undefined) options.signerKid = values["signer-kid"];

    const progress = skillProgress(io, "sign-skill", values.quiet === true);
    let signed;
    try {
      signed = await signSkillDirWithSigner(dir, signer, { ...options, ...progress.options });
    } finally {
      progress.done();
    }
    const out = await writeSkillSignature(dir, signed.document);
    if (values.json) {
      await io.stdout(jsonOutput("sign-skill", { ok: true, out, document: signed.document }));
    } else {
      const d = signed.document;
      await io.stdout(
        `signed ${showPath(d.skill_name)} for ${d.domain}: ${signed.hash.entries.length} files, ` +
          `${signed.hash.totalBytes} bytes\n` +
          `skill_hash ${d.skill_hash}\n` +
          (d.expires_at !== undefined ? `expires_at ${d.expires_at}\n` : "") +
          `wrote ${showPath(out)}\n`,
      );
    }
    return EXIT_OK;
  },
};
