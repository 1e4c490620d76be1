/**
 * `schemapin sign-tools`: sign every tool of an MCP server (or a saved `tools/list`) and
 * write a `tools/list` document whose tools carry their signatures in `_meta`, with a
 * manifest tool → signature — what a publisher serves, and `schemapin guard --signatures`
 * checks.
 *
 * @module
 */
import { ServerFailure } from "../../lib/mcp/errors.ts";
import { signedToolListDocument, signToolListWithSigner } from "../../lib/guard/signatures.ts";
import { checkToolsSource, listToolsToSign, toolListSignOptions } from "../guard/sign_tools.ts";
import {
  asUsage,
  type CliIO,
  type Command,
  EXIT_FAILED,
  EXIT_OK,
  parseCommandArgs,
  UsageError,
} from "./command.ts";
import { writeFileAtomic } from "./io.ts";
import { loadSigner } from "./private_key.ts";
import { type FlagTable, optionList, valueFlag } from "../args/flags.ts";
import { FORCE_FLAGS, KEY_FLAGS, SIGNATURE_METADATA_FLAGS } from "./flag_groups.ts";
import { MCP_TIMEOUT_FLAGS } from "./contract_shared.ts";
import { requireDomainFlag } from "./schema_inputs.ts";
import { expiryOption } from "./signature_options.ts";

const { domain: _domain, ...SIGNATURE_EXPIRY_FLAGS } = SIGNATURE_METADATA_FLAGS;

/** The flags of `sign-tools`. */
const SIGN_TOOLS_FLAGS = {
  ...KEY_FLAGS,
  domain: {
    ...SIGNATURE_METADATA_FLAGS.domain,
    help: "the publisher's domain (RFC 1123 host name; its discovery document has the " +
      "public key), written into every signature document (required)",
  },
  server: valueFlag("NAME", "run the server command after -- (NAME names it in messages)"),
  file: valueFlag("FILE", "a saved tools/list instead of a live server (- for stdin)"),
  out: valueFlag("FILE", "write the document to FILE (default stdout)"),
  ...FORCE_FLAGS,
  ...SIGNATURE_EXPIRY_FLAGS,
  "schema-version": valueFlag("V", "version tag written into every signature document"),
  ...MCP_TIMEOUT_FLAGS,
} as const satisfies FlagTable;

const HELP = `schemapin sign-tools — sign the contracts of an MCP server's tools

Usage:
  schemapin sign-tools --key PRIVATE.pem|ssh-agent:PUBFILE --domain D
      (--server NAME -- CMD ARGS… | --file TOOLS.json)
      [--out FILE] [--force] [--expires-in DURATION | --expires-at TIME] [--signer-kid KID]
      [--schema-version V] [--passphrase-file FILE]

Fetches the server's tools (initialize, then tools/list, all pages) or reads a saved
tools/list (--file), and signs each tool's contract (contractpin §2) as a SchemaPin 1.4 schema
signature document. The output is the tools/list with every tool unchanged but for two _meta
keys, _meta["dev.schemapin/signature"] and _meta["dev.schemapin/domain"], and a manifest at the
top, _meta["dev.schemapin/manifest"]. Clients check them with
\`schemapin guard --signatures --domain D …\`; docs/guard.md ("Publishers") has the details.

--key ssh-agent:PUBFILE signs with a key held by the SSH agent at $SSH_AUTH_SOCK, asked for
before the server is started (docs/ssh-agent.md).

Options:
${optionList(SIGN_TOOLS_FLAGS)}

Exit codes: 0 signed; 1 the server could not be reached or listed; 2 bad arguments, an
unreadable or malformed key or tools file, a tool list with duplicate names, or an SSH agent
that is missing, does not hold the key or refuses to sign (the message names the --key
value).

Examples:
  schemapin sign-tools --key keys/private.pem --domain acme.example --server acme \\
      --out tools.signed.json -- node server.js
  schemapin sign-tools --key keys/private.pem --domain acme.example --file tools.json \\
      --expires-in 180d > tools.signed.json
  schemapin sign-tools --key ssh-agent:release.pub --domain acme.example --file tools.json \\
      --out tools.signed.json
`;

function seconds(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) {
    throw new UsageError(`sign-tools: --${flag} must be a positive number of seconds`);
  }
  return n * 1000;
}

/** The `sign-tools` command. */
export const signToolsCommand: Command = {
  name: "sign-tools",
  summary: "sign every tool contract of an MCP server (signatures in _meta, for guard)",
  help: HELP,
  flags: SIGN_TOOLS_FLAGS,
  async run(args: string[], io: CliIO): Promise<number> {
    const dash = args.indexOf("--");
    const own = dash < 0 ? args : args.slice(0, dash);
    const command = dash < 0 ? [] : args.slice(dash + 1);
    const { values, positionals } = parseCommandArgs("sign-tools", own, SIGN_TOOLS_FLAGS);
    if (positionals.length > 0) {
      throw new UsageError(`sign-tools: unexpected argument ${JSON.stringify(positionals[0])}`);
    }
    if (values.key === undefined) {
      throw new UsageError("sign-tools: --key PRIVATE.pem is required (or ssh-agent:PUBFILE)");
    }
    const domain = requireDomainFlag("sign-tools", values.domain);
    const source = { server: values.server, file: values.file, command };
    asUsage("sign-tools", () => checkToolsSource(source));
    const now = Math.floor(Date.now() / 1000) * 1000;
    const signOptions = asUsage("sign-tools", () =>
      toolListSignOptions({
        domain,
        signedAt: now,
        expiresAt: expiryOption("sign-tools", values, now),
        signerKid: values["signer-kid"],
        schemaVersion: values["schema-version"],
      }));
    const startupTimeoutMs = seconds("startup-timeout", values["startup-timeout"]);
    const requestTimeoutMs = seconds("timeout", values.timeout);
    const signer = await loadSigner(values.key, io, {
      command: "sign-tools",
      passphraseFile: values["passphrase-file"],
    });
    let listed;
    try {
      listed = await listToolsToSign(source, {
        startupTimeoutMs,
        requestTimeoutMs,
        readStdin: () => io.readStdin(),
      });
    } catch (e) {
      if (!(e instanceof ServerFailure)) throw e;
      await io.stderr(`error: ${e.message}\n${e.stderr ? `server stderr:\n${e.stderr}\n` : ""}`);
      return EXIT_FAILED;
    }
    const { listing, where } = listed;
    for (const notice of listing.notices) await io.stderr(`notice: ${where}: ${notice}\n`);
    const signed = await signToolListWithSigner(listing.tools, signer, signOptions);
    const text = JSON.stringify(signedToolListDocument(signed), null, 2) + "\n";
    if (values.out !== undefined) {
      await writeFileAtomic(values.out, text, { overwrite: values.force === true });
    } else {
      await io.stdout(text);
    }
    await io.stderr(
      `signed ${signed.tools.length} tool(s) of ${where} for ${domain} with key ` +
        `${signer.publicKey.fingerprint}${values.out !== undefined ? ` → ${values.out}` : ""}\n`,
    );
    return EXIT_OK;
  },
};
