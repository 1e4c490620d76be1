/**
 * `schemapin contract init|verify|sign|approve|digest|dump` — contractpin.lock, the pinned contracts of MCP
 * tools (contractpin spec). Exit codes are the spec's §6: 0 match, 1 drift or an unreachable
 * server, 2 could not run.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import {
  type CliIO,
  type Command,
  describeError,
  EXIT_OK,
  EXIT_USAGE,
  UsageError,
} from "./command.ts";
import { jsonError, wantsJson } from "./json_output.ts";
import { CONTRACT_DIGEST_FLAGS, runContractDigest } from "./contract_digest.ts";
import { CONTRACT_DUMP_FLAGS, CONTRACT_DUMP_USAGE, runContractDump } from "./contract_dump.ts";
import { CONTRACT_INIT_FLAGS, runContractInit } from "./contract_init.ts";
import { LIMITS_HELP, MCP_LIMIT_FLAGS, MCP_TIMEOUT_FLAGS } from "./contract_shared.ts";
import { CONTRACT_VERIFY_FLAGS, runContractVerify } from "./contract_verify.ts";
import {
  CONTRACT_SIGN_FLAGS,
  CONTRACT_SIGN_HELP,
  LOCK_TRUST_FLAGS,
  runContractSign,
  VERIFY_SIGNATURE_HELP,
} from "./contract_sign.ts";
import { CONTRACT_APPROVE_FLAGS, runContractApprove } from "./contract_approve.ts";
import { type FlagTable, optionList } from "./flags.ts";
import { didYouMean } from "./suggest.ts";

/** The flags of each subcommand, in help order (the completions read them). */
const SUBCOMMAND_FLAGS = [
  { name: "init", flags: CONTRACT_INIT_FLAGS },
  { name: "verify", flags: CONTRACT_VERIFY_FLAGS },
  { name: "sign", flags: CONTRACT_SIGN_FLAGS },
  { name: "approve", flags: CONTRACT_APPROVE_FLAGS },
  { name: "digest", flags: CONTRACT_DIGEST_FLAGS },
  { name: "dump", flags: CONTRACT_DUMP_FLAGS },
] as const;

/**
 * The option list of `table` without the flags of `shared` (the limits and the signature
 * check are listed once, in their own sections).
 */
function ownOptions(table: FlagTable, ...shared: FlagTable[]): string {
  const own = Object.entries(table).filter(([name]) => !shared.some((g) => Object.hasOwn(g, name)));
  return optionList(Object.fromEntries(own));
}

const HELP =
  `schemapin contract — pin the contracts (description, schemas, annotations) of MCP tools

Usage:
  schemapin contract init [--lock FILE] [--force] [--config FILE] [--discover [--project DIR]]
      [--server NAME [--env NAME[=VALUE]]… [--cwd DIR] -- CMD ARGS…]
      [--http NAME=URL [--header 'Name: value']…]… [--sse NAME=URL …]… [--file NAME=PATH]…
      [--client-capabilities roots,sampling,…] [--snapshot FILE | --no-snapshot]
      [--allow-literal-secrets] [--strict-text] [--json] [limits]
  schemapin contract verify [--lock FILE] [--server NAME]… [--allow-new]
      [--json | --format human|json|sarif|github] [--header 'Name: value']…
      [--config FILE] [--snapshot FILE] [--no-diff] [--strict-text] [limits]
      [--require-signed-lock [--signature FILE] --domain D (--public-key FILE |
      --discovery FILE [--revocation FILE] | --bundle FILE | --resolver-dir DIR |
      --well-known [--ca-file FILE]) [--dns [--dns-server IP[:PORT]]] [--pin-store FILE]
      [--trust-first-use] [--allow-expired] [--allow-missing-revocation]]
  schemapin contract sign [--lock FILE] -k/--key PRIVATE.pem [--passphrase-file FILE]
      [--domain D] [--signer-kid KID] [--expires-in DURATION | --expires-at TIME]
      [--signature FILE] [-f/--force] [--json] [-q/--quiet]
  schemapin contract approve [--lock FILE] [--server NAME]… [--tool NAME]… [--prompt NAME]…
      [--resource URI]… [--resource-template TEMPLATE]… [--instructions] [--yes]
      [--snapshot FILE] [--config FILE] [--header 'Name: value']… [--json] [limits]
  schemapin contract digest FILE [--json] [--tool-definition | --raw] [--canonical]
${CONTRACT_DUMP_USAGE}

HTTP servers are reached with Streamable HTTP; one that refuses it (400/404/405 on the first
POST) is reached with the legacy HTTP+SSE transport (2024-11-05) on the same URL, which --sse
chooses directly. The lock records both as "http"; verify detects the transport again.

Client capabilities: servers may list other tools to clients that announce roots, sampling
or elicitation. init announces none unless --client-capabilities names them (for the servers
given on this command line); the lock entry records them and verify asks the same way. Pin
one entry per capability set your clients use, and give the guard each with --server.

init     enumerates every server (tools/list, all pages) and writes the lock (default
         contractpin.lock) and a readable snapshot next to it (contractpin.snapshot.json).
         With an existing lock, --force re-pins its servers plus any given. Nothing is
         written when a server fails.
         --config FILE reads an MCP client config (mcpServers, or VS Code's servers; JSONC).
         --discover finds the configs of Claude Desktop, Claude Code, Cursor, VS Code,
         Windsurf and Cline (user files under $HOME, project files under --project, default
         .), lists them and pins every server it can run; one it cannot (disabled, unset
         variable, \${input:…}, unknown type, literal credential, fails to start) is
         skipped with the reason. A name two configs use for different servers becomes
         NAME@<config> in the lock. Then \`schemapin guard wrap CONFIG\` puts the guard in.
verify   compares live servers with the lock: drifted (with the changed fields), added,
         removed tools. Added tools fail unless --allow-new. An unreachable server fails.
         Prompts, resources, resource templates and the server instructions are pinned and
         compared the same way when the lock pins them (docs/contractpin-surface.md); a
         kind the lock does not pin (an older lock) is listed as "not pinned", not a failure.
         A --file dump may carry "prompts", "resources", "resourceTemplates" (arrays) and
         "instructions" (string or null) beside "tools".
         With --config, servers are run as the client config defines them and a changed
         command or URL is reported.
approve  shows each change of the live servers (as verify finds them): drifted with the
         diff from the snapshot, added with the whole definition, removed, and hidden text
         (invisible characters shown as code points); on a terminal it asks per change
         (approve? [y/N]); elsewhere it needs --yes and --tool NAME for each change to
         approve (--prompt NAME, --resource URI, --resource-template TEMPLATE,
         --instructions for the other kinds; --server NAME picks the server of a name
         that changed on several) and
         never approves anything implicitly. Only approved entries change in the lock and
         snapshot; each touched server's tool_count and digest are recomputed. Exit 0 when
         nothing is left, 1 when changes remain (CI keeps failing), 2 bad input, or the
         lock changed during the review (nothing is written then: approve again).
         A signature next to the lock (LOCK.sig) must then be renewed (contract sign).
${CONTRACT_SIGN_HELP}
digest   prints tool and server digests of a saved tools/list result ({"tools":[…]}, a
         JSON-RPC response, or an array of pages); --tool-definition digests one tool definition,
         --raw any JSON value, --canonical prints the canonical bytes instead.
dump     saves one server's definitions — tools, prompts, resources, resource templates
         and instructions, every kind the lock pins — as the JSON --file reads
         ({"tools":[…],"prompts":[…],…}, all pages in one), given as init takes a server.
         Pin or verify it with --file NAME=FILE; edit a copy to see what verify reports
         when the server changes. Written atomically; an existing FILE is replaced only
         with --force; -o - writes it to stdout. Exit 1 when the server fails (nothing is
         written).

Secrets: \${VAR} in a command, env value, URL or header is expanded from the environment at
run time and the lock keeps the reference. --header values are never written; env values
that look secret are stored as \${NAME}; credentials are stripped from URLs. A stdio command
holding a literal credential (--api-key=…, a token, 'Authorization: Bearer …', a URL with a
password or ?api_key=) is refused (exit 2) with the \${VAR} form to use instead;
--allow-literal-secrets writes it as given. Reports never print such arguments.
A --header before the first --http applies to every HTTP server.

Hidden text: init and verify scan every live tool definition (descriptions, every schema
string, object keys, annotations, _meta) for text a person cannot see or would not expect:
Unicode tag characters (decoded), zero-width characters, bidi controls, other invisible
format/control characters, variation selectors in a row or with nothing to vary, HTML
comments, runs of 20 spaces/tabs or 5 line breaks, base64-looking blobs of 64+ characters.
Deterministic rules, no model, no network (docs/contractpin.md "Hidden text in descriptions" lists their
false positives). Each finding names server, tool, JSON Pointer and offset. By default they
are warnings and never change the exit code: init prints "warning:" lines on stderr before
writing (a first pin does not trust hidden text silently); verify prints them in its report
(SARIF level warning, GitHub ::warning, --json hidden_text). --strict-text makes each one a
failure: init writes nothing (exit 1), verify exits 1 (--json error HIDDEN_TEXT when nothing
else failed).

Options of init:
${ownOptions(CONTRACT_INIT_FLAGS, MCP_LIMIT_FLAGS)}

Options of verify:
${ownOptions(CONTRACT_VERIFY_FLAGS, MCP_LIMIT_FLAGS, LOCK_TRUST_FLAGS)}

Options of sign:
${optionList(CONTRACT_SIGN_FLAGS)}

Options of approve:
${ownOptions(CONTRACT_APPROVE_FLAGS, MCP_LIMIT_FLAGS)}

Options of digest:
${optionList(CONTRACT_DIGEST_FLAGS)}

Options of dump:
${ownOptions(CONTRACT_DUMP_FLAGS, MCP_TIMEOUT_FLAGS, { "max-pages": MCP_LIMIT_FLAGS["max-pages"] })}

${VERIFY_SIGNATURE_HELP}

Limits (init, verify, approve; dump takes all but --concurrency):
${LIMITS_HELP}

Exit codes: 0 every server matches; 1 drift, added/removed tool, or a server could not be
reached (init: a server could not be pinned); 2 bad arguments, missing or corrupt lock,
unknown lock version.

Examples:
  schemapin contract init --server everything -- npx -y @modelcontextprotocol/server-everything
  schemapin contract init --discover
  schemapin contract init --force --http search=https://mcp.example.com/mcp \\
      --header 'Authorization: Bearer \${SEARCH_TOKEN}'
  schemapin contract verify
  schemapin contract verify --format sarif > contractpin.sarif
  schemapin contract sign --key keys/private.pem --domain example.com --expires-in 180d
  schemapin contract verify --require-signed-lock --domain example.com --well-known
  schemapin contract approve
  schemapin contract approve --yes --server search --tool fetch
  schemapin contract digest tools.json
  schemapin contract dump --server everything -o everything.json -- \\
      npx -y @modelcontextprotocol/server-everything
`;

const SUBCOMMANDS: Record<string, (args: string[], io: CliIO) => Promise<number>> = {
  init: runContractInit,
  verify: runContractVerify,
  sign: runContractSign,
  approve: runContractApprove,
  digest: runContractDigest,
  dump: runContractDump,
};

/**
 * The `contract` command group.
 *
 * @example
 * ```ts ignore
 * await contractCommand.run(["verify", "--lock", "contractpin.lock"], io);
 * ```
 */
export const contractCommand: Command = {
  name: "contract",
  summary: "pin MCP tool contracts in contractpin.lock and verify live servers against it",
  help: HELP,
  flags: SUBCOMMAND_FLAGS,
  async run(args: string[], io: CliIO): Promise<number> {
    const [sub, ...rest] = args;
    if (sub === undefined) {
      await io.stdout(HELP);
      return EXIT_USAGE;
    }
    if (sub === "help") {
      await io.stdout(HELP);
      return EXIT_OK;
    }
    const run = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
    if (!run) {
      const names = Object.keys(SUBCOMMANDS);
      throw new UsageError(
        `contract: unknown subcommand "${sub}"${didYouMean(sub, names)} (${names.join(", ")})`,
      );
    }
    try {
      return await run(rest, io);
    } catch (e) {
      // Every error a subcommand throws is about its input (arguments, lock, config, dump):
      // §6 exit 2. Server failures are results, reported by the subcommands themselves.
      if (e instanceof SchemaPinError) {
        if (wantsJson(rest)) await io.stdout(jsonError(e.code, e.message));
        await io.stderr(describeError(e).message + "\n");
        return EXIT_USAGE;
      }
      throw e;
    }
  },
};
