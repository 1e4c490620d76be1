/**
 * `schemapin bundle …`: trust bundles (§13, §21) — create, add, sign, verify, merge, show.
 * Each subcommand lives in its own `bundle_<name>.ts`; this file holds the help text and the
 * dispatch.
 *
 * @module
 */
import { type CliIO, type Command, UsageError } from "./command.ts";
import { runBundleAdd, runBundleCreate } from "./bundle_create.ts";
import { runBundleSign } from "./bundle_sign.ts";
import { runBundleVerify } from "./bundle_verify.ts";
import { runBundleMerge } from "./bundle_merge.ts";
import { runBundleShow } from "./bundle_show.ts";
import { AUTHORITY_HELP } from "./bundle_trust.ts";
import { didYouMean } from "./suggest.ts";

const HELP = `schemapin bundle — offline trust bundles, signed bundles and their authorities

Usage:
  schemapin bundle create --out FILE [--discovery DOMAIN=FILE …] [--revocation DOMAIN=FILE …]
      [--force] [--json]
  schemapin bundle add BUNDLE [--discovery DOMAIN=FILE …] [--revocation DOMAIN=FILE …]
      [--replace] [--out FILE [--force]] [--json]
  schemapin bundle sign BUNDLE --key PRIVATE.pem --kid KID
      [--expires-in DURATION | --expires-at TIME] [--passphrase-file FILE] [--out FILE [--force]]
      [--json]
  schemapin bundle verify BUNDLE (--authority KID=FINGERPRINT | --authority-key KID=PEM)…
      [--authority-store FILE] [--trust-first-use-authority] [--json]
  schemapin bundle verify BUNDLE --public-key AUTHORITY.pem [--revocation FILE] [--json]
  schemapin bundle merge --out FILE IN… [--force] [--precedence KID,…]
      (authority options as for verify) [--trust-first-use-authority] [--json]
  schemapin bundle show BUNDLE [--json]

A trust bundle carries discovery documents (one per domain) and revocation documents for
offline verification (§13). An unsigned bundle is trusted because you chose the file. A
signed bundle (§21) names its authority (bundle_authority.kid) and carries the authority's
key itself, so the kid proves nothing: verify accepts it only when the kid is in your
authority allow-list with the same key fingerprint, obtained out of band (--authority,
--authority-key, or a persisted --authority-store). An unknown authority is refused unless
you opt in with --trust-first-use-authority; it is then recorded (in --authority-store, if given) only
after the signature verified, and reported as a first use.

create   makes an unsigned bundle from .well-known/schemapin.json files (--discovery) and
         standalone revocation documents (--revocation); only their known fields are kept.
add      adds documents to an unsigned bundle (in place, or to --out); --replace overwrites
         a domain's existing entry. Signed bundles are refused: re-create and sign instead.
sign     stamps bundle_authority (KID and the public key of PRIVATE.pem), signed_at and
         expires_at, sets schemapin_bundle_version "1.4" and signs the §21.3 signing input
         (known fields only, signature ""). Writes in place, or to --out (BUNDLE - : stdout).
verify   runs the six §21.4 steps: signed at all (BUNDLE_UNSIGNED), well formed and no
         duplicate domains (DISCOVERY_INVALID), not expired (BUNDLE_EXPIRED; a non-RFC-3339
         expires_at counts as expired), the allow-list (KEY_PIN_MISMATCH,
         BUNDLE_AUTHORITY_UNTRUSTED), the signature (SIGNATURE_INVALID), first-use record.
merge    verifies every IN like verify, then writes --out: one document and one revocation
         document per domain, chosen by --precedence (kids, first wins; unlisted last), then
         the newer signed_at (else created_at), then the earlier IN. The result is unsigned:
         sign it.
show     prints a bundle's contents without verifying it.

Options:
  -o, --out FILE           output file (create, merge: required; add/sign: default in place)
  --discovery DOMAIN=FILE  a domain's .well-known/schemapin.json; repeatable
  --revocation DOMAIN=FILE a domain's standalone revocation document; repeatable
  -f, --force              replace an existing --out file (in place needs no --force)
  --replace                add: replace a domain's existing entry
  -k, --key PRIVATE.pem    sign: the authority's private key (may be encrypted PKCS#8)
  --passphrase-file FILE   sign: passphrase of an encrypted --key, its first line (else
                           $SCHEMAPIN_PASSPHRASE, else a prompt on the terminal)
  --kid KID                sign: the authority key id
  --expires-in DURATION    sign: expiry from now (30d, 12h, 2w, 1d12h)
  --expires-at TIME        sign: expiry as strict RFC 3339
${AUTHORITY_HELP}
  --trust-first-use-authority  accept an authority that is not in the allow-list (explicit
                           opt-in; --trust-first-use, its old name here, still works)
  --public-key FILE        verify: the authority's public key (PEM) as the only trusted
                           authority, whatever kid the bundle names; nothing is recorded;
                           not with the allow-list flags or --trust-first-use-authority
  --revocation FILE        verify (with --public-key): a revocation document; the bundle
                           fails with KEY_REVOKED when it lists the authority key
  --precedence KID,…       merge: authority precedence, highest first
  --json                   print one JSON object (format schemapin.bundle.<subcommand>/1)

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

const SUBCOMMANDS: Record<string, (args: string[], io: CliIO) => Promise<number>> = {
  create: runBundleCreate,
  add: runBundleAdd,
  sign: runBundleSign,
  verify: runBundleVerify,
  merge: runBundleMerge,
  show: runBundleShow,
};

/** The `bundle` command. */
export const bundleCommand: Command = {
  name: "bundle",
  summary: "trust bundles: create, add, sign, verify (authority allow-list), merge, show",
  help: HELP,
  run(args, io) {
    const [sub, ...rest] = args;
    if (sub === undefined) throw new UsageError("bundle: expected a subcommand (see --help)");
    const run = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
    if (!run) {
      throw new UsageError(
        `bundle: unknown subcommand ${JSON.stringify(sub)}${
          didYouMean(sub, Object.keys(SUBCOMMANDS))
        } (${Object.keys(SUBCOMMANDS).join(", ")})`,
      );
    }
    return run(rest, io);
  },
};
