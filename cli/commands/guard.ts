/**
 * `schemapin guard`: enforce contract locks and SchemaPin signatures live, between an MCP
 * client and server (stdio: wrap the server command; HTTP: a loopback reverse proxy).
 *
 * @module
 */
import { messageInCliWords } from "../library_words.ts";
import { ServerFailure } from "../../lib/mcp/errors.ts";
import { checkGuardOptions, startGuardCore } from "../guard/options.ts";
import { prepareGuard } from "../guard/setup.ts";
import { runListeningGuard } from "../guard/listen.ts";
import { runStdioGuard } from "../../lib/guard/stdio.ts";
import {
  asUsage,
  type CliIO,
  type Command,
  EXIT_FAILED,
  findSubcommand,
  parseCommandArgs,
  subcommandFlags,
  type Subcommands,
  UsageError,
} from "./command.ts";
import {
  checkTrustFlags,
  reportInputFailure,
  requireDomainFlag,
  trustEnv,
  type TrustPlan,
} from "./schema_inputs.ts";
import { readInput } from "./io.ts";
import { LOCK_TRUST_FLAGS, printLockSignatureNotes } from "./lock_signature.ts";
import { runGuardWrap, UNWRAP_FLAGS, WRAP_FLAGS, WRAP_HELP } from "./guard_wrap.ts";
import { didYouMean } from "../args/suggest.ts";
import { LineLog } from "../http/line_log.ts";
import { serverEventText } from "../http/server_limits.ts";
import { SERVER_LIMIT_FLAGS } from "./server_flags.ts";
import { booleanFlag, type FlagTable, optionList, valueFlag } from "../args/flags.ts";
import { LINEAGE_FLAGS, NETWORK_TIMEOUT_FLAGS } from "./flag_groups.ts";
import { lineageStoreFromFlags } from "./lineage_store.ts";
import { MCP_TIMEOUT_FLAGS, ownOptions } from "./contract_shared.ts";

/** The connection limits of --listen (no TLS: no handshake timeout). */
const { "handshake-timeout": _tls, ...LISTEN_LIMIT_FLAGS } = SERVER_LIMIT_FLAGS;

/** The trust flags (verify-schema's, as for a lock signature): they go with --signatures. */
const GUARD_TRUST_FLAGS = {
  ...LOCK_TRUST_FLAGS,
  domain: {
    ...LOCK_TRUST_FLAGS.domain,
    help: "the publisher's domain (RFC 1123 host name; the pin key), with --signatures or " +
      "--require-signed-lock",
  },
  "trust-first-use": {
    ...LOCK_TRUST_FLAGS["trust-first-use"],
    help: "pin an unknown key on first use (nobody can be asked: stdin is the protocol); " +
      "otherwise seed pins with `schemapin pins add`",
  },
  timeout: {
    ...NETWORK_TIMEOUT_FLAGS.timeout,
    help: `${NETWORK_TIMEOUT_FLAGS.timeout.help}, for --well-known and --dns (fetched once, ` +
      "when the guard starts); not an MCP timeout (see --list-timeout)",
  },
} as const satisfies FlagTable;

/** The flags of \`guard [options] -- CMD\` and \`guard --listen\` (not of wrap/unwrap). */
export const GUARD_FLAGS = {
  lock: valueFlag("FILE", "the contractpin lock (default ./contractpin.lock)"),
  server: valueFlag("NAME", "the server's entry in the lock / its name in the log"),
  mode: valueFlag("MODE", "enforce, filter or audit (default enforce)"),
  log: valueFlag("FILE", "append the audit log to FILE (default stderr)"),
  signatures: booleanFlag("require SchemaPin signatures on every tool"),
  "require-signed-lock": booleanFlag(
    "refuse to start unless LOCK.sig is a valid signature of the lock by the key of " +
      "--domain (see above)",
  ),
  "require-skill-signature": booleanFlag(
    "refuse every skill served over MCP whose lock item records no verified signature " +
      "(contract init/approve --require-skill-signature); trustworthy with " +
      "--require-signed-lock (see above)",
  ),
  ...GUARD_TRUST_FLAGS,
  ...LINEAGE_FLAGS,
  listen: valueFlag("HOST:PORT", "run as a Streamable HTTP proxy on HOST:PORT (PORT 0: any)"),
  upstream: valueFlag("URL", "the HTTP server to guard (with --listen)"),
  "upstream-transport": valueFlag(
    "T",
    "auto (default), streamable-http, or sse (the legacy HTTP+SSE transport of " +
      "2024-11-05; clients then use the same transport with the guard: GET its stream URL, " +
      "POST to the endpoint it names)",
  ),
  "allow-remote": booleanFlag("allow --listen on an address that is not loopback"),
  "strict-text": booleanFlag(
    'hidden text in a tool definition fails the tool (default: a "warn" line in the ' +
      "audit log, the tool passes)",
  ),
  "startup-timeout": {
    ...MCP_TIMEOUT_FLAGS["startup-timeout"],
    help: "seconds for the server to start and answer initialize (default 90)",
  },
  "list-timeout": valueFlag("SECONDS", "seconds for each tools/list answer (default 30)"),
  ...LISTEN_LIMIT_FLAGS,
} as const satisfies FlagTable;

const HELP = `schemapin guard — check every tools/list live, between an MCP client and server

Usage:
  schemapin guard [--lock FILE] [--server NAME] [--mode enforce|filter|audit] [--log FILE]
      [--signatures] [--require-signed-lock] [--require-skill-signature]
      [--domain D (--discovery FILE | --bundle FILE | --resolver-dir DIR | --well-known |
      --public-key FILE) [the other verify-schema options] [--lineage | --lineage-store FILE]]
      [--strict-text] -- CMD ARGS…
  schemapin guard --listen 127.0.0.1:PORT --upstream URL [the same checks]
${WRAP_HELP}

The MCP client launches \`schemapin guard … -- CMD ARGS…\` instead of \`CMD ARGS…\`. The guard
starts the server and relays JSON-RPC both ways unchanged, except that every tools/list
answer (all pages) is checked first (docs/guard.md explains each check):

  lock        each tool's contract digest must equal the entry of --server in the lock
  signatures  (--signatures) each tool must carry a valid SchemaPin signature in
              _meta["dev.schemapin/signature"] (\`schemapin sign-tools\`), verified like
              verify-schema; with --lineage, also as verify-schema --lineage
  signed lock (--require-signed-lock) LOCK.sig must verify by the key of --domain, or the
              guard refuses to start (exit 1)
  skill sigs  (--require-skill-signature) every skill served over MCP must have its
              SchemaPin signature recorded in its lock item (contract init or approve
              --require-skill-signature verified it); otherwise its listing entries,
              skills/get answers and every read of its files are refused. The guard does
              not verify signatures live: each read is bound to the pinned bytes, whose
              signature was verified when they were pinned. Only a signed lock makes the
              record tamper-evident: use it with --require-signed-lock
  hidden text each finding is an audit line ("warn"); with --strict-text the tool fails

Modes: enforce (default) refuses a list with a failing tool and then every tools/call;
filter removes failing tools; audit only logs. The audit log (--log FILE, default stderr)
is JSON Lines, never tool arguments or results. Lock checks run with --lock, or by default
(./contractpin.lock) unless --signatures is given without --require-signed-lock or
--require-skill-signature.

Options:
${ownOptions(GUARD_FLAGS, LISTEN_LIMIT_FLAGS)}

Limits of --listen (see docs/guard.md):
${optionList(LISTEN_LIMIT_FLAGS)}

wrap CONFIG runs every server of an MCP client config through the guard (a backup, an
atomic write; a server that is not pinned: exit 2, nothing written, unless --partial);
unwrap puts the originals back. See docs/guard.md.

Options of wrap:
${optionList(WRAP_FLAGS)}

Options of unwrap:
${optionList(UNWRAP_FLAGS)}

Exit codes (stdio):
  0–127    the server exited by itself with this code
  1        the server failed: garbage on stdout, no answer in time, could not start, killed
           by a signal (SIGKILL, SIGSEGV, … — stderr names it), or exited with a code ≥ 128
  130/143  the guard itself received SIGINT/SIGTERM ("stopped by SIGTERM" on stderr) and
           stopped the server — never a server's status, so a supervisor can tell the two apart
  0        the client left and the server had to be stopped with SIGTERM/SIGKILL
  1        also: --require-signed-lock and the lock's signature did not verify (nothing
           was started)
  2        bad arguments, or an unreadable or malformed lock or trust file
HTTP (--listen): 0 after SIGINT/SIGTERM; 1 when the listener failed while running (a runtime
failure, logged as such, not a bad setup: restart it); 2 as above.

Examples:
  schemapin guard --lock /abs/contractpin.lock --server acme -- npx -y @acme/mcp-server
  schemapin guard --mode filter --signatures --domain acme.example \\
      --discovery /abs/acme-schemapin.json --pin-store /abs/pins.json -- node server.js
  schemapin guard --listen 127.0.0.1:8931 --upstream https://mcp.acme.example/mcp \\
      --lock contractpin.lock --server acme-http
  schemapin guard wrap ~/.cursor/mcp.json --lock ~/proj/contractpin.lock
`;

/** The verification flags (those of verify-schema): they go with --signatures. */
const TRUST_FLAGS = Object.keys(GUARD_TRUST_FLAGS);

/** `guard wrap` and `guard unwrap`, beside the plain form (`guard … -- CMD`, `guard --listen`). */
const SUBCOMMANDS = {
  wrap: { flags: WRAP_FLAGS, run: (args, io) => runGuardWrap("wrap", args, io) },
  unwrap: { flags: UNWRAP_FLAGS, run: (args, io) => runGuardWrap("unwrap", args, io) },
} as const satisfies Subcommands;
const SUBCOMMAND_WORDS = Object.keys(SUBCOMMANDS);

/** The `guard` command. */
export const guardCommand: Command = {
  name: "guard",
  summary: "guard an MCP server live: check every tools/list against the lock and signatures",
  help: HELP,
  // The plain form (`guard … -- CMD`, `guard --listen`) is the subcommand without a name.
  flags: [{ name: "", flags: GUARD_FLAGS }, ...subcommandFlags(SUBCOMMANDS)],
  async run(args: string[], io: CliIO): Promise<number> {
    const picked = findSubcommand(SUBCOMMANDS, args);
    if (picked) return await picked.subcommand.run(picked.rest, io);
    const dash = args.indexOf("--");
    const own = dash < 0 ? args : args.slice(0, dash);
    const { values, positionals } = parseCommandArgs("guard", own, GUARD_FLAGS);
    if (positionals.length > 0) {
      const hint = didYouMean(positionals[0], SUBCOMMAND_WORDS);
      throw new UsageError(
        hint === ""
          ? `guard: unexpected argument ${JSON.stringify(positionals[0])}; put the server ` +
            `command after --`
          : `guard: unknown subcommand ${JSON.stringify(positionals[0])}${hint} ` +
            `(${SUBCOMMAND_WORDS.join(", ")}; a server command goes after --)`,
      );
    }
    let plan: TrustPlan | undefined; // the CLI's plan: trustEnv reads its authority flags
    const run = asUsage("guard", () =>
      checkGuardOptions(values, {
        command: dash < 0 ? [] : args.slice(dash + 1),
        trustOptions: TRUST_FLAGS,
        trustPlan: () =>
          plan = checkTrustFlags("guard", values, requireDomainFlag("guard", values.domain), own),
        lineage: () => lineageStoreFromFlags(values),
      }));

    // The lock, the trust documents (loaded once, for the lock's signature and the tools'
    // signatures alike), and --require-signed-lock's check, before anything is started.
    let setup;
    try {
      setup = await asUsage(
        "guard",
        () =>
          prepareGuard(run.setup, plan ? trustEnv(plan, io) : { read: (p) => readInput(p, io) }),
      );
    } catch (e) {
      if (e instanceof UsageError) throw e;
      return await reportInputFailure(e, false, io);
    }
    const check = setup.lockSignature;
    // --require-signed-lock: exit 1 when the lock's signature does not verify.
    if (check) {
      await printLockSignatureNotes(check, io, "guard: ");
      if (check.status !== "valid") {
        await io.stderr(
          `error: guard: refusing to start: the lock signature did not verify ` +
            `(--require-signed-lock); nothing was started\n`,
        );
        return EXIT_FAILED;
      }
    }
    for (const w of setup.trustWarnings) await io.stderr(`warning: guard: ${w}\n`);
    if (setup.skillSignatureNote !== undefined) {
      await io.stderr(`warning: guard: --require-skill-signature: ${setup.skillSignatureNote}\n`);
    }

    // --listen without --log: stderr through a bounded queue, so that a stderr nobody reads
    // neither blocks the guard (the sink of the stdio guard writes synchronously) nor grows.
    const stderrLog = run.listen
      ? new LineLog({ name: "schemapin guard", write: (t) => io.stderr(t) })
      : undefined;
    const sink = stderrLog && ((line: string) => stderrLog.line(line));
    const { core, serverName } = startGuardCore(run, setup, sink);
    const { startupTimeoutMs, requestTimeoutMs } = run;

    if (run.listen && stderrLog) {
      // The guard's own lines share the bounded queue with the audit log (when it is stderr).
      const say = (text: string) => stderrLog.line(text);
      // auto: a GET that opens an event stream starting with `endpoint` is a legacy server.
      const failure = await runListeningGuard({
        ...run.listen,
        core,
        serverName,
        startupTimeoutMs,
        requestTimeoutMs,
        onEvent: (message) => say(`schemapin guard: ${serverEventText(message)}\n`),
      }).catch(async (e) => {
        await stderrLog.close(1000); // the lines so far, before the error
        throw e;
      });
      if (failure) {
        // Not exit 2: the setup was good, the listener failed while running.
        say(
          `error: schemapin guard: the listener failed while running, exiting with status 1 ` +
            `(a runtime failure, not a bad setup; restart it): ${failure.message}\n`,
        );
        await stderrLog.close(1000);
        return EXIT_FAILED;
      }
      await stderrLog.close(1000);
      return 0;
    }
    try {
      return await runStdioGuard({
        command: run.command,
        core,
        serverName,
        startupTimeoutMs,
        requestTimeoutMs,
      });
    } catch (e) {
      if (!(e instanceof ServerFailure)) throw e;
      core.log.record({ decision: "server_failed", message: e.message });
      await io.stderr(`error: ${messageInCliWords(e.message)}\n`);
      return EXIT_FAILED;
    }
  },
};
