/**
 * The flag groups commands build their tables from (lib/cli/flags.ts): one entry per flag
 * name, so a flag means the same in every command that takes it (docs/cli-vocabulary.md is
 * generated from these tables by scripts/cli_vocabulary.ts).
 *
 * @module
 */
import type { FlagTable } from "./flags.ts";

/** `--json`: the result as JSON on stdout (`help` names the command's format). */
export function jsonFlag(
  format: string,
): { readonly json: { readonly type: "boolean"; readonly help: string } } {
  return {
    json: {
      type: "boolean",
      help: `print the result as JSON (format ${format}); an error is JSON too`,
    },
  } as const;
}

/** `-q, --quiet`: only failures, warnings and the summary. */
export const QUIET_FLAGS = {
  quiet: {
    type: "boolean",
    help: "print only failures and warnings; no progress line",
  },
} as const satisfies FlagTable;

/** `-f, --force`: replace an existing output file. */
export const FORCE_FLAGS = {
  force: { type: "boolean", help: "replace an existing output file" },
} as const satisfies FlagTable;

/** `-k, --key FILE` and `--passphrase-file FILE`: the signing key. */
export const KEY_FLAGS = {
  key: {
    type: "string",
    value: "KEY.pem",
    help: "the signing key: a PEM private key (PKCS#8, encrypted PKCS#8: asks for the " +
      "passphrase, or SEC1), or ssh-agent:PUBFILE for a key held by ssh-agent " +
      "(docs/ssh-agent.md)",
  },
  "passphrase-file": {
    type: "string",
    value: "FILE",
    help: "the passphrase of an encrypted key: the file's first line (else " +
      "$SCHEMAPIN_PASSPHRASE, else a prompt on the terminal)",
  },
} as const satisfies FlagTable;

/** `--passphrase-file FILE` alone (keygen). */
export const PASSPHRASE_FLAGS = {
  "passphrase-file": KEY_FLAGS["passphrase-file"],
} as const satisfies FlagTable;

/** The signature-document metadata flags (lib/cli/signature_options.ts). */
export const SIGNATURE_METADATA_FLAGS = {
  domain: {
    type: "string",
    value: "D",
    help: "the publisher's domain (RFC 1123 host name), written into the signature document",
  },
  "signer-kid": { type: "string", value: "KID", help: "the signing key's id (signer_kid)" },
  "expires-in": {
    type: "string",
    value: "DURATION",
    help: "the signature expires after DURATION (30d, 12h, 90m, 2w, 1d12h; §16)",
  },
  "expires-at": {
    type: "string",
    value: "TIME",
    help: "the signature expires at TIME (strict RFC 3339, e.g. 2026-11-01T10:00:00Z)",
  },
} as const satisfies FlagTable;

/** `--domain D` of the verify commands. */
export const VERIFY_DOMAIN_FLAGS = {
  domain: {
    type: "string",
    value: "D",
    help: "the publisher's domain (RFC 1123 host name; the pin key); default: the domain " +
      "a signed 1.4 document names (a different --domain is an error)",
  },
} as const satisfies FlagTable;

/** The authority allow-list of signed trust bundles. */
export const AUTHORITY_FLAGS = {
  authority: {
    type: "string",
    multiple: true,
    value: "KID=FINGERPRINT",
    help: "allow bundles signed by KID with this key fingerprint (sha256:…, obtained out of " +
      "band); repeatable",
  },
  "authority-key": {
    type: "string",
    multiple: true,
    value: "KID=PEM",
    help: "the same, from the authority's public key file; repeatable",
  },
  "authority-store": {
    type: "string",
    value: "FILE",
    help: "persisted allow-list (JSON, locked atomic updates): consulted, --authority and " +
      "--authority-key entries are seeded into it, and a first-use authority is recorded there",
  },
  "trust-first-use-authority": {
    type: "boolean",
    help: "accept a signed bundle from an authority not in the allow-list (explicit opt-in; " +
      "recorded in --authority-store if given)",
  },
} as const satisfies FlagTable;

/**
 * Where a verifier finds the publisher's key (SchemaPin §14): a discovery file, a bundle, a
 * resolver folder, `.well-known` over HTTPS, or an explicit public key; with revocation.
 */
export const KEY_SOURCE_FLAGS = {
  discovery: {
    type: "string",
    value: "FILE",
    help: "the domain's .well-known/schemapin.json, saved locally",
  },
  bundle: {
    type: "string",
    value: "FILE",
    help: "a trust bundle holding the domain's documents (unsigned, or signed and verified " +
      "against the --authority allow-list; with any --authority flag an unsigned bundle is " +
      "refused)",
  },
  ...AUTHORITY_FLAGS,
  "resolver-dir": {
    type: "string",
    value: "DIR",
    help: "read DIR/DOMAIN.json and DIR/DOMAIN.revocations.json (DIR must exist). --bundle, " +
      "--resolver-dir and --well-known together form a chain in the order given: the first " +
      'source that has the domain wins; only "not found" falls through',
  },
  "well-known": {
    type: "boolean",
    help: "fetch https://DOMAIN/.well-known/schemapin.json (and its revocation_endpoint): " +
      "HTTPS only, no redirects, 64 KiB cap, timeouts; HTTPS_PROXY/NO_PROXY and DENO_CERT " +
      "are honoured",
  },
  "ca-file": {
    type: "string",
    value: "FILE",
    help: "extra CA certificate(s), PEM, for --well-known (a private CA)",
  },
  "public-key": {
    type: "string",
    value: "FILE",
    help: "the signer's public key (PEM, SPKI) as the trust anchor instead of a discovery " +
      "document: nothing is pinned or written; a --revocation document still applies",
  },
  revocation: {
    type: "string",
    value: "FILE",
    help: "the domain's standalone revocation document (with --discovery or --public-key)",
  },
  "allow-missing-revocation": {
    type: "boolean",
    help: "accept a discovery document whose revocation_endpoint document is not supplied " +
      "or cannot be fetched (air-gapped use; default: fail closed)",
  },
} as const satisfies FlagTable;

/** `--timeout SECONDS` of the network verifiers. */
export const NETWORK_TIMEOUT_FLAGS = {
  timeout: {
    type: "string",
    value: "SECONDS",
    help: "network deadlines (default: connect 5, read 10, DNS 5)",
  },
} as const satisfies FlagTable;

/** The DNS TXT cross-check (§17). */
export const DNS_FLAGS = {
  dns: {
    type: "boolean",
    help: "cross-check the key with the _schemapin.DOMAIN TXT record (§17): absent = no " +
      "effect; mismatch = DOMAIN_MISMATCH; malformed = DISCOVERY_INVALID; no answer fails closed",
  },
  "dns-server": {
    type: "string",
    value: "IP[:PORT]",
    help: "the name server for --dns (default: /etc/resolv.conf)",
  },
} as const satisfies FlagTable;

/** The pin store and trust on first use. */
export const PIN_FLAGS = {
  "pin-store": {
    type: "string",
    value: "FILE",
    help: "pin file (default $SCHEMAPIN_HOME/pins.json or ~/.schemapin/pins.json)",
  },
  "trust-first-use": {
    type: "boolean",
    help: "pin an unknown key without asking (explicit opt-in)",
  },
} as const satisfies FlagTable;

/** Lineage enforced by the verifiers and the guard (§18.4; lib/cli/lineage_store.ts). */
export const LINEAGE_FLAGS = {
  lineage: {
    type: "boolean",
    help: "enforce lineage (§18.4): accept the same release, or one whose previous_hash names " +
      "the latest known hash (then move it forward); refuse forks, rollbacks and legacy " +
      "signatures (exit 1). Store: lineage.json beside the pin store",
  },
  "lineage-store": {
    type: "string",
    value: "FILE",
    help: "lineage file (implies --lineage; default: lineage.json beside the pin store, " +
      "$SCHEMAPIN_HOME/lineage.json or ~/.schemapin/lineage.json)",
  },
} as const satisfies FlagTable;

/** `--allow-expired`. */
export const EXPIRY_FLAGS = {
  "allow-expired": { type: "boolean", help: "accept an expired signature, with a warning" },
} as const satisfies FlagTable;

/** The caps of a skill folder walk. */
export const LIMIT_FLAGS = {
  "max-entries": { type: "string", value: "N", help: "most files allowed (default 10000)" },
  "max-bytes": {
    type: "string",
    value: "SIZE",
    help: "most bytes allowed (default 256M; K, M, G suffixes)",
  },
} as const satisfies FlagTable;
