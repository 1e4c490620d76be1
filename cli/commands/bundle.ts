/**
 * `schemapin bundle …`: trust bundles (§13, §21) — create, add, sign, verify, merge, show.
 * Each subcommand lives in its own `bundle_<name>.ts`; this file holds the help text and the
 * table of subcommands (`runSubcommand`, cli/commands/command.ts).
 *
 * @module
 */
import { type Command, runSubcommand, subcommandFlags, type Subcommands } from "./command.ts";
import { ADD_FLAGS, CREATE_FLAGS, runBundleAdd, runBundleCreate } from "./bundle_create.ts";
import { runBundleSign, SIGN_FLAGS } from "./bundle_sign.ts";
import { runBundleVerify, VERIFY_FLAGS } from "./bundle_verify.ts";
import { MERGE_FLAGS, runBundleMerge } from "./bundle_merge.ts";
import { runBundleShow, SHOW_FLAGS } from "./bundle_show.ts";
import { optionList } from "../args/flags.ts";

const HELP = `schemapin bundle — offline trust bundles, signed bundles and their authorities

Usage:
  schemapin bundle create --out FILE [--discovery DOMAIN=FILE …] [--revocation DOMAIN=FILE …]
      [--force] [--json]
  schemapin bundle add BUNDLE [--discovery DOMAIN=FILE …] [--revocation DOMAIN=FILE …]
      [--replace] [--out FILE [--force]] [--json]
  schemapin bundle sign BUNDLE --key PRIVATE.pem|ssh-agent:PUBFILE --kid KID
      [--expires-in DURATION | --expires-at TIME] [--passphrase-file FILE] [--out FILE [--force]]
      [--json]
  schemapin bundle verify BUNDLE (--authority KID=FINGERPRINT | --authority-key KID=PEM)…
      [--authority-store FILE] [--trust-first-use-authority] [--json]
  schemapin bundle verify BUNDLE --public-key AUTHORITY.pem [--revocation FILE] [--json]
  schemapin bundle merge --out FILE IN… [--force] [--precedence KID,…]
      (authority options as for verify) [--trust-first-use-authority] [--json]
  schemapin bundle show BUNDLE [--json]

A trust bundle carries discovery documents (one per domain) and revocation documents for
offline verification (§13). A signed bundle (§21) carries its authority's key itself, so verify
accepts it only when the kid is in your allow-list with the same key fingerprint, obtained out
of band (--authority, --authority-key, --authority-store), or when you opt in with
--trust-first-use-authority. docs/bundles.md explains the allow-list, the signing input and
the verify steps.

create   makes an unsigned bundle from .well-known/schemapin.json files (--discovery) and
         standalone revocation documents (--revocation); only their known fields are kept.
add      adds documents to an unsigned bundle (in place, or to --out); --replace overwrites
         a domain's existing entry. Signed bundles are refused: re-create and sign instead.
sign     stamps the authority (KID and the key's public half), signed_at and expires_at and
         signs the §21.3 signing input. Writes in place, or to --out (BUNDLE - : stdout).
         --key ssh-agent:PUBFILE signs through the SSH agent (docs/ssh-agent.md).
verify   runs the §21.4 steps (signed, well formed, not expired, an allowed authority, the
         signature); the error code names the step that failed.
merge    verifies every IN like verify, then writes --out, unsigned (sign it): one entry per
         domain, chosen by --precedence, then the newer bundle, then the earlier IN.
show     prints a bundle's contents without verifying it.

Options of create:
${optionList(CREATE_FLAGS)}

Options of add:
${optionList(ADD_FLAGS)}

Options of sign:
${optionList(SIGN_FLAGS)}

Options of verify:
${optionList(VERIFY_FLAGS)}

Options of merge:
${optionList(MERGE_FLAGS)}

Options of show:
${optionList(SHOW_FLAGS)}

Exit codes: 0 done / verified; 1 verification failed (unsigned, expired, untrusted or
mismatched authority, bad signature); 2 bad arguments or an unreadable or malformed file
(the message names the file and the field).

Examples:
  schemapin bundle create --out bundle.json --discovery example.com=schemapin.json \\
      --revocation example.com=revocations.json
  schemapin bundle sign bundle.json --key authority.pem --kid acme-bundles-2026 --expires-in 90d
  schemapin bundle verify bundle.json --authority acme-bundles-2026=sha256:8120d9…
  schemapin bundle verify bundle.json --public-key authority-public.pem
  schemapin bundle merge --out merged.json a.json b.json --authority-key acme=acme.pem \\
      --authority-key partner=partner.pem --precedence acme,partner
`;

/** Each subcommand's run and flag table, in the order of the help. */
const SUBCOMMANDS = {
  create: { run: runBundleCreate, flags: CREATE_FLAGS },
  add: { run: runBundleAdd, flags: ADD_FLAGS },
  sign: { run: runBundleSign, flags: SIGN_FLAGS },
  verify: { run: runBundleVerify, flags: VERIFY_FLAGS },
  merge: { run: runBundleMerge, flags: MERGE_FLAGS },
  show: { run: runBundleShow, flags: SHOW_FLAGS },
} as const satisfies Subcommands;

/** The `bundle` command. */
export const bundleCommand: Command = {
  name: "bundle",
  summary: "trust bundles: create, add, sign, verify (authority allow-list), merge, show",
  help: HELP,
  flags: subcommandFlags(SUBCOMMANDS),
  run: (args, io) => runSubcommand("bundle", SUBCOMMANDS, args, io),
};
