/**
 * `schemapin revoke`: build or extend a standalone revocation document (§8.5, §8.6).
 *
 * @module
 */
import { extendRevocationDocument, REVOCATION_REASONS } from "../../lib/revocation/document.ts";
import {
  type Command,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { documentText } from "./json_output.ts";
import { loadKeyForPublicKey } from "./private_key.ts";
import { exists, writeFileAtomic } from "./io.ts";
import { readJsonFile, requireDomainFlag } from "./schema_inputs.ts";
import { type FlagTable, optionList, valueFlag } from "../args/flags.ts";
import { PASSPHRASE_FLAGS } from "./flag_groups.ts";

const FLAGS = {
  domain: valueFlag("D", "the domain whose key is revoked (required)"),
  fingerprint: valueFlag("FP", "the revoked key's sha256: fingerprint"),
  key: valueFlag("KEY.pem", "or the revoked key itself (public or private PEM)"),
  ...PASSPHRASE_FLAGS,
  reason: valueFlag("REASON", "one of the reasons above (required)"),
  out: valueFlag(
    "FILE",
    "the revocation document to create or extend (no --force needed: it is extended " +
      "in place)",
  ),
  // Old spelling, kept for one release (docs/cli-vocabulary.md).
  into: { type: "string", help: "", deprecated: "out" },
} as const satisfies FlagTable;

const HELP = `schemapin revoke — build or extend a standalone revocation document

Usage: schemapin revoke --domain D (--fingerprint FP | --key KEY.pem) --reason REASON
           [--out FILE]

Without --out, prints a new revocation document for D revoking the key. With --out FILE,
adds the key to FILE (creating it if missing) and rewrites it atomically; the file must be
for the same domain (a revocation document is extended in place, so no --force is needed).
Publish it at the discovery document's revocation_endpoint (docs/keys.md: rotating a key).

Reasons (§8.6): ${REVOCATION_REASONS.join(", ")}

Options:
${optionList(FLAGS)}

Exit codes: 0 written; 2 bad arguments, a malformed FILE (named), a key already revoked in it.

Example:
  schemapin revoke --domain example.com --key old/public.pem --reason superseded \\
      --out schemapin-revocations.json
`;

/** The `revoke` command. */
export const revokeCommand: Command = {
  name: "revoke",
  summary: "build or extend a standalone revocation document",
  help: HELP,
  flags: FLAGS,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs("revoke", args, FLAGS);
    requirePositionals("revoke", positionals, 0, "no positional arguments");
    const domain = requireDomainFlag("revoke", values.domain);
    if ((values.fingerprint === undefined) === (values.key === undefined)) {
      throw new UsageError("revoke: give exactly one of --fingerprint FP and --key FILE");
    }
    if (values.reason === undefined) {
      throw new UsageError(`revoke: --reason is required (${REVOCATION_REASONS.join(", ")})`);
    }
    const fingerprint = values.fingerprint ??
      (await loadKeyForPublicKey(values.key!, io, {
        command: "revoke",
        passphraseFile: values["passphrase-file"],
      })).fingerprint;
    const existing = values.out !== undefined && await exists(values.out)
      ? await readJsonFile(values.out, io, "revocation document")
      : undefined;
    const next = extendRevocationDocument(existing, domain, fingerprint, values.reason, {
      source: values.out,
    });
    const text = documentText(next);
    if (values.out !== undefined) {
      await writeFileAtomic(values.out, text, { overwrite: true });
      await io.stderr(
        `revoked ${fingerprint} (${values.reason}) in ${values.out}: ` +
          `${next.revoked_keys.length} key(s) listed\n`,
      );
    } else {
      await io.stdout(text);
    }
    return EXIT_OK;
  },
};
