/**
 * The flag groups commands build their tables from (cli/args/flags.ts): one entry per flag
 * name, so a flag means the same in every command that takes it (docs/cli-vocabulary.md is
 * generated from these tables by scripts/cli_vocabulary.ts).
 *
 * @module
 */
import { booleanFlag, type FlagTable, listFlag, valueFlag } from "../args/flags.ts";

/** `--json`: the result as JSON on stdout (`help` names the command's format). */
export function jsonFlag(
  format: string,
): { readonly json: { readonly type: "boolean"; readonly help: string } } {
  return {
    json: booleanFlag(`print the result as JSON (format ${format}); an error is JSON too`),
  } as const;
}

/** `-q, --quiet`: only failures, warnings and the summary. */
export const QUIET_FLAGS = {
  quiet: booleanFlag("print only failures and warnings; no progress line"),
} as const satisfies FlagTable;

/** `-f, --force`: replace an existing output file. */
export const FORCE_FLAGS = {
  force: booleanFlag("replace an existing output file"),
} as const satisfies FlagTable;

/** `-k, --key FILE` and `--passphrase-file FILE`: the signing key. */
export const KEY_FLAGS = {
  key: valueFlag(
    "KEY.pem",
    "the signing key: a PEM private key (PKCS#8, encrypted PKCS#8: asks for the " +
      "passphrase, or SEC1), or ssh-agent:PUBFILE for a key held by ssh-agent " +
      "(docs/ssh-agent.md)",
  ),
  "passphrase-file": valueFlag(
    "FILE",
    "the passphrase of an encrypted key: the file's first line (else " +
      "$SCHEMAPIN_PASSPHRASE, else a prompt on the terminal)",
  ),
} as const satisfies FlagTable;

/** `--passphrase-file FILE` alone (keygen). */
export const PASSPHRASE_FLAGS = {
  "passphrase-file": KEY_FLAGS["passphrase-file"],
} as const satisfies FlagTable;

/** The signature-document metadata flags (cli/commands/signature_options.ts). */
export const SIGNATURE_METADATA_FLAGS = {
  domain: valueFlag(
    "D",
    "the publisher's domain (RFC 1123 host name), written into the signature document",
  ),
  "signer-kid": valueFlag("KID", "the signing key's id (signer_kid)"),
  "expires-in": valueFlag(
    "DURATION",
    "the signature expires after DURATION (30d, 12h, 90m, 2w, 1d12h; §16)",
  ),
  "expires-at": valueFlag(
    "TIME",
    "the signature expires at TIME (strict RFC 3339, e.g. 2026-11-01T10:00:00Z)",
  ),
} as const satisfies FlagTable;

/** `--domain D` of the verify commands. */
export const VERIFY_DOMAIN_FLAGS = {
  domain: valueFlag(
    "D",
    "the publisher's domain (RFC 1123 host name; the pin key); default: the domain " +
      "a signed 1.4 document names (a different --domain is an error)",
  ),
} as const satisfies FlagTable;

/** The authority allow-list of signed trust bundles. */
export const AUTHORITY_FLAGS = {
  authority: listFlag(
    "KID=FINGERPRINT",
    "allow bundles signed by KID with this key fingerprint (sha256:…, obtained out of " +
      "band); repeatable",
  ),
  "authority-key": listFlag(
    "KID=PEM",
    "the same, from the authority's public key file; repeatable",
  ),
  "authority-store": valueFlag(
    "FILE",
    "persisted allow-list (JSON, locked atomic updates): consulted, --authority and " +
      "--authority-key entries are seeded into it, and a first-use authority is recorded there",
  ),
  "trust-first-use-authority": booleanFlag(
    "accept a signed bundle from an authority not in the allow-list (explicit opt-in; " +
      "recorded in --authority-store if given)",
  ),
} as const satisfies FlagTable;

/**
 * Where a verifier finds the publisher's key (SchemaPin §14): a discovery file, a bundle, a
 * resolver folder, `.well-known` over HTTPS, or an explicit public key; with revocation.
 */
export const KEY_SOURCE_FLAGS = {
  discovery: valueFlag("FILE", "the domain's .well-known/schemapin.json, saved locally"),
  bundle: valueFlag(
    "FILE",
    "a trust bundle holding the domain's documents (unsigned, or signed and verified " +
      "against the --authority allow-list; with any --authority flag an unsigned bundle is " +
      "refused)",
  ),
  ...AUTHORITY_FLAGS,
  "resolver-dir": valueFlag(
    "DIR",
    "read DIR/DOMAIN.json and DIR/DOMAIN.revocations.json (DIR must exist). --bundle, " +
      "--resolver-dir and --well-known together form a chain in the order given: the first " +
      'source that has the domain wins; only "not found" falls through',
  ),
  "well-known": booleanFlag(
    "fetch https://DOMAIN/.well-known/schemapin.json (and its revocation_endpoint): " +
      "HTTPS only, no redirects, 64 KiB cap, timeouts; HTTPS_PROXY/NO_PROXY and DENO_CERT " +
      "are honoured",
  ),
  "ca-file": valueFlag("FILE", "extra CA certificate(s), PEM, for --well-known (a private CA)"),
  "public-key": valueFlag(
    "FILE",
    "the signer's public key (PEM, SPKI) as the trust anchor instead of a discovery " +
      "document: nothing is pinned or written; a --revocation document still applies",
  ),
  revocation: valueFlag(
    "FILE",
    "the domain's standalone revocation document (with --discovery or --public-key)",
  ),
  "allow-missing-revocation": booleanFlag(
    "accept a discovery document whose revocation_endpoint document is not supplied " +
      "or cannot be fetched (air-gapped use; default: fail closed)",
  ),
} as const satisfies FlagTable;

/** `--timeout SECONDS` of the network verifiers. */
export const NETWORK_TIMEOUT_FLAGS = {
  timeout: valueFlag("SECONDS", "network deadlines (default: connect 5, read 10, DNS 5)"),
} as const satisfies FlagTable;

/** The DNS TXT cross-check (§17). */
export const DNS_FLAGS = {
  dns: booleanFlag(
    "cross-check the key with the _schemapin.DOMAIN TXT record (§17): absent = no " +
      "effect; mismatch = DOMAIN_MISMATCH; malformed = DISCOVERY_INVALID; no answer fails closed",
  ),
  "dns-server": valueFlag("IP[:PORT]", "the name server for --dns (default: /etc/resolv.conf)"),
} as const satisfies FlagTable;

/** The pin store and trust on first use. */
export const PIN_FLAGS = {
  "pin-store": valueFlag(
    "FILE",
    "pin file (default $SCHEMAPIN_HOME/pins.json or ~/.schemapin/pins.json)",
  ),
  "trust-first-use": booleanFlag("pin an unknown key without asking (explicit opt-in)"),
} as const satisfies FlagTable;

/** Lineage enforced by the verifiers and the guard (§18.4; cli/commands/lineage_store.ts). */
export const LINEAGE_FLAGS = {
  lineage: booleanFlag(
    "enforce lineage (§18.4): accept the same release, or one whose previous_hash names " +
      "the latest known hash (then move it forward); refuse forks, rollbacks and legacy " +
      "signatures (exit 1). Store: lineage.json beside the pin store",
  ),
  "lineage-store": valueFlag(
    "FILE",
    "lineage file (implies --lineage; default: lineage.json beside the pin store, " +
      "$SCHEMAPIN_HOME/lineage.json or ~/.schemapin/lineage.json)",
  ),
} as const satisfies FlagTable;

/** `--allow-expired`. */
export const EXPIRY_FLAGS = {
  "allow-expired": booleanFlag("accept an expired signature, with a warning"),
} as const satisfies FlagTable;

/** The caps of a skill folder walk. */
export const LIMIT_FLAGS = {
  "max-entries": valueFlag("N", "most files allowed (default 10000)"),
  "max-bytes": valueFlag("SIZE", "most bytes allowed (default 256M; K, M, G suffixes)"),
} as const satisfies FlagTable;
