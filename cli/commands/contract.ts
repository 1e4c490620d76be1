/**
 * `schemapin contract init|verify|sign|approve|digest|dump` — contractpin.lock, the pinned contracts of MCP
 * tools (contractpin spec). Exit codes are the spec's §6: 0 match, 1 drift or an unreachable
 * server, 2 could not run.
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import {
  type CliIO,
  type Command,
  describeError,
  EXIT_OK,
  EXIT_USAGE,
  pickSubcommand,
  subcommandFlags,
  type Subcommands,
} from "./command.ts";
import { jsonError, plainMessage, wantsJson } from "./json_output.ts";
import { CONTRACT_DIGEST_FLAGS, runContractDigest } from "./contract_digest.ts";
import { CONTRACT_DUMP_FLAGS, CONTRACT_DUMP_USAGE, runContractDump } from "./contract_dump.ts";
import { CONTRACT_INIT_FLAGS, runContractInit } from "./contract_init.ts";
import { MCP_LIMIT_FLAGS, MCP_TIMEOUT_FLAGS, ownOptions } from "./contract_shared.ts";
import { CONTRACT_VERIFY_FLAGS, runContractVerify } from "./contract_verify.ts";
import {
  CONTRACT_SIGN_FLAGS,
  CONTRACT_SIGN_HELP,
  runContractSign,
  VERIFY_SIGNATURE_HELP,
} from "./contract_sign.ts";
import { LOCK_TRUST_FLAGS } from "./lock_signature.ts";
import { SKILL_SIGNATURE_HELP } from "./skill_signature.ts";
import { CONTRACT_APPROVE_FLAGS, runContractApprove } from "./contract_approve.ts";
import { optionList } from "../args/flags.ts";

/** Each subcommand's run and flag table, in help order (the completions read the tables). */
const SUBCOMMANDS = {
  init: { run: runContractInit, flags: CONTRACT_INIT_FLAGS },
  verify: { run: runContractVerify, flags: CONTRACT_VERIFY_FLAGS },
  sign: { run: runContractSign, flags: CONTRACT_SIGN_FLAGS },
  approve: { run: runContractApprove, flags: CONTRACT_APPROVE_FLAGS },
  digest: { run: runContractDigest, flags: CONTRACT_DIGEST_FLAGS },
  dump: { run: runContractDump, flags: CONTRACT_DUMP_FLAGS },
} as const satisfies Subcommands;

const HELP =
  `schemapin contract — pin the contracts (description, schemas, annotations) of MCP tools

Usage:
  schemapin contract init [--lock FILE] [--force] [--config FILE] [--discover [--project DIR]]
      [--server NAME [--env NAME[=VALUE]]… [--cwd DIR] -- CMD ARGS…]
      [--http NAME=URL [--header 'Name: value']…]… [--sse NAME=URL …]… [--file NAME=PATH]…
      [--client-capabilities roots,sampling,…] [--snapshot FILE | --no-snapshot]
      [--allow-literal-secrets] [--strict-text] [--json] [limits]
      [--require-skill-signature --domain D (key source…)]
  schemapin contract verify [--lock FILE] [--server NAME]… [--allow-new]
      [--json | --format human|json|sarif|github] [--header 'Name: value']…
      [--config FILE] [--snapshot FILE] [--no-diff] [--strict-text] [limits]
      [--require-signed-lock [--signature FILE]] [--require-skill-signature]
      [--domain D (--public-key FILE | --discovery FILE [--revocation FILE] |
      --bundle FILE | --resolver-dir DIR | --well-known [--ca-file FILE])
      [--dns [--dns-server IP[:PORT]]] [--pin-store FILE] [--trust-first-use]
      [--allow-expired] [--allow-missing-revocation]]
  schemapin contract sign [--lock FILE] -k/--key PRIVATE.pem|ssh-agent:PUBFILE
      [--passphrase-file FILE] [--domain D] [--signer-kid KID]
      [--expires-in DURATION | --expires-at TIME] [--signature FILE] [-f/--force] [--json]
      [-q/--quiet]
  schemapin contract approve [--lock FILE] [--server NAME]… [--tool NAME]… [--prompt NAME]…
      [--resource URI]… [--resource-template TEMPLATE]… [--instructions] [--skill URI]…
      [--allow-dynamic-skills] [--yes] [--snapshot FILE] [--config FILE]
      [--header 'Name: value']… [--json] [limits]
      [--require-skill-signature --domain D (key source…)]
  schemapin contract digest FILE [--json] [--tool-definition | --raw] [--canonical]
${CONTRACT_DUMP_USAGE}

init     pins every server (tools/list, all pages) into the lock (default contractpin.lock)
         and a readable snapshot next to it; nothing is written when a server fails.
         --force re-pins an existing lock's servers plus any given; --config pins the
         servers of an MCP client config; --discover those of every client config found
         here and under $HOME (one it cannot run is skipped with the reason).
verify   compares live servers with the lock: drifted (with the changed fields), added and
         removed tools, prompts, resources and instructions. Added tools fail unless
         --allow-new; an unreachable server fails.
approve  shows each change as verify finds it (the diff, hidden text as code points) and pins
         only what is approved: asked per change on a terminal (approve? [y/N]); elsewhere
         only with --yes and the names (--tool, --prompt, --resource, --resource-template,
         --instructions, --skill; --server for a name that changed on several), never
         implicitly. A lock changed during the review is not overwritten (exit 2: approve
         again); a skill is pinned from the bytes shown, and refused (exit 1, nothing
         written) when its listing contradicts its bytes or it changed before the write.
${CONTRACT_SIGN_HELP}
digest   prints tool and server digests of a saved tools/list result ({"tools":[…]}, a
         JSON-RPC response, or an array of pages).
dump     saves one server's definitions (every kind the lock pins) as the JSON --file reads,
         the server given as init takes one; exit 1 when it fails (nothing is written).

HTTP servers are reached with Streamable HTTP, else the legacy HTTP+SSE transport (--sse
chooses it). \${VAR} in a command, env value, URL or header is expanded at run time and the
lock keeps the reference; a stdio command holding a literal credential is refused (exit 2)
unless --allow-literal-secrets. init and verify report hidden text (invisible or unexpected
text) in every live definition as warnings; --strict-text makes each a failure (exit 1).
See docs/contractpin.md (transports, client capabilities, secrets, hidden text, approve,
signed locks, discovery, CI) and docs/contractpin-surface.md (prompts, resources).

Options of init:
${ownOptions(CONTRACT_INIT_FLAGS, MCP_LIMIT_FLAGS, LOCK_TRUST_FLAGS)}

Options of verify:
${ownOptions(CONTRACT_VERIFY_FLAGS, MCP_LIMIT_FLAGS, LOCK_TRUST_FLAGS)}

Options of sign:
${optionList(CONTRACT_SIGN_FLAGS)}

Options of approve:
${ownOptions(CONTRACT_APPROVE_FLAGS, MCP_LIMIT_FLAGS, LOCK_TRUST_FLAGS)}

Options of digest:
${optionList(CONTRACT_DIGEST_FLAGS)}

Options of dump:
${ownOptions(CONTRACT_DUMP_FLAGS, MCP_TIMEOUT_FLAGS, { "max-pages": MCP_LIMIT_FLAGS["max-pages"] })}

${VERIFY_SIGNATURE_HELP}

${SKILL_SIGNATURE_HELP}

Limits (init, verify, approve; dump takes all but --concurrency):
${optionList(MCP_LIMIT_FLAGS)}

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
  schemapin contract init --require-skill-signature --domain example.com --well-known \\
      --server docs -- python docs_server.py
  schemapin contract approve
  schemapin contract approve --yes --server search --tool fetch
  schemapin contract digest tools.json
  schemapin contract dump --server everything -o everything.json -- \\
      npx -y @modelcontextprotocol/server-everything
`;

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
  flags: subcommandFlags(SUBCOMMANDS),
  async run(args: string[], io: CliIO): Promise<number> {
    // `schemapin contract` alone prints the help (exit 2), `schemapin contract help` too (0).
    if (args.length === 0 || args[0] === "help") {
      await io.stdout(HELP);
      return args.length === 0 ? EXIT_USAGE : EXIT_OK;
    }
    const { subcommand, rest } = pickSubcommand("contract", SUBCOMMANDS, args, {
      quoteAsTyped: true,
    });
    try {
      return await subcommand.run(rest, io);
    } catch (e) {
      // Every error a subcommand throws is about its input (arguments, lock, config, dump):
      // §6 exit 2. Server failures are results, reported by the subcommands themselves.
      if (e instanceof SchemaPinError) {
        if (wantsJson(rest)) await io.stdout(jsonError(e.code, plainMessage(e)));
        await io.stderr(describeError(e).message + "\n");
        return EXIT_USAGE;
      }
      throw e;
    }
  },
};
