/**
 * `schemapin guard`: enforce contract locks and SchemaPin signatures live, between an MCP
 * client and server (stdio: wrap the server command; HTTP: a loopback reverse proxy).
 *
 * @module
 */
import { basename } from "node:path";
import { SchemaPinError } from "../errors.ts";
import { DEFAULT_LOCK_FILE } from "../contractpin/lock.ts";
import { ServerFailure } from "../mcp/errors.ts";
import { parseEndpoint } from "../contractpin/secrets.ts";
import { AuditLog, openAuditSink } from "../guard/audit.ts";
import { prepareGuard } from "../guard/setup.ts";
import {
  parseListenAddress,
  runUntilSignalled,
  startListeningGuard,
  type UpstreamTransportChoice,
} from "../guard/listen.ts";
import type { GuardMode } from "../guard/policy.ts";
import { runStdioGuard } from "../guard/stdio.ts";
import {
  asUsage,
  type CliIO,
  type Command,
  EXIT_FAILED,
  parseCommandArgs,
  UsageError,
} from "./command.ts";
import {
  checkTrustFlags,
  reportInputFailure,
  requireDomainFlag,
  trustEnv,
  type TrustPlan,
} from "./schema_inputs.ts";
import { describeFsError, readInput } from "./io.ts";
import { LOCK_TRUST_FLAGS, printLockSignatureNotes } from "./lock_signature.ts";
import { runGuardWrap, UNWRAP_FLAGS, WRAP_FLAGS, WRAP_HELP } from "./guard_wrap.ts";
import { didYouMean } from "./suggest.ts";
import { LineLog } from "../http/line_log.ts";
import { parseServerLimits, SERVER_LIMIT_FLAGS } from "./server_flags.ts";
import { booleanFlag, type FlagTable, optionList, valueFlag } from "./flags.ts";
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
      [--signatures] [--require-signed-lock] [--domain D (--discovery FILE | --bundle FILE |
      --resolver-dir DIR | --well-known | --public-key FILE) [the other verify-schema options]
      [--lineage | --lineage-store FILE]]
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
  hidden text each finding is an audit line ("warn"); with --strict-text the tool fails

Modes: enforce (default) refuses a list with a failing tool and then every tools/call;
filter removes failing tools; audit only logs. The audit log (--log FILE, default stderr)
is JSON Lines, never tool arguments or results. Lock checks run with --lock, or by default
(./contractpin.lock) unless --signatures is given without --require-signed-lock.

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
const TRUST_FLAGS = Object.keys(GUARD_TRUST_FLAGS) as (keyof typeof GUARD_TRUST_FLAGS)[];

function seconds(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) {
    throw new UsageError(`guard: --${flag} must be a positive number of seconds (got ${text})`);
  }
  return n * 1000;
}

/** The lock's only server, when --server is not given; a usage error when it has several. */
function onlyServer(file: string): (names: readonly string[]) => string {
  return (names) => {
    throw new UsageError(
      `guard: ${file} pins ${names.length} servers; choose one with --server NAME` +
        (names.length ? ` (${names.join(", ")})` : ""),
    );
  };
}

/** The `guard` command. */
export const guardCommand: Command = {
  name: "guard",
  summary: "guard an MCP server live: check every tools/list against the lock and signatures",
  help: HELP,
  // The plain form (`guard … -- CMD`, `guard --listen`) is the subcommand without a name.
  flags: [
    { name: "", flags: GUARD_FLAGS },
    { name: "wrap", flags: WRAP_FLAGS },
    { name: "unwrap", flags: UNWRAP_FLAGS },
  ],
  async run(args: string[], io: CliIO): Promise<number> {
    if (args[0] === "wrap" || args[0] === "unwrap") {
      return await runGuardWrap(args[0], args.slice(1), io);
    }
    const dash = args.indexOf("--");
    const own = dash < 0 ? args : args.slice(0, dash);
    const command = dash < 0 ? [] : args.slice(dash + 1);
    const { values, positionals } = parseCommandArgs("guard", own, GUARD_FLAGS);
    if (positionals.length > 0) {
      const hint = didYouMean(positionals[0], ["wrap", "unwrap"]);
      throw new UsageError(
        hint === ""
          ? `guard: unexpected argument ${JSON.stringify(positionals[0])}; put the server ` +
            `command after --`
          : `guard: unknown subcommand ${JSON.stringify(positionals[0])}${hint} (wrap, unwrap; ` +
            `a server command goes after --)`,
      );
    }
    const mode = (values.mode ?? "enforce") as GuardMode;
    if (!["enforce", "filter", "audit"].includes(mode)) {
      throw new UsageError(`guard: --mode must be enforce, filter or audit (got ${values.mode})`);
    }
    const http = values.listen !== undefined || values.upstream !== undefined;
    if (http) {
      if (values.listen === undefined || values.upstream === undefined) {
        throw new UsageError("guard: --listen and --upstream go together");
      }
      if (command.length > 0) {
        throw new UsageError("guard: give either a command after -- or --listen/--upstream");
      }
    } else {
      if (command.length === 0 || command[0] === "") {
        throw new UsageError(
          "guard: the server command goes after -- (or use --listen/--upstream)",
        );
      }
      if (values["allow-remote"]) throw new UsageError("guard: --allow-remote goes with --listen");
    }
    const listen = http
      ? asUsage("guard", () => parseListenAddress(values.listen!, values["allow-remote"] === true))
      : undefined;
    if (http) {
      try {
        parseEndpoint(values.upstream!);
      } catch (e) {
        throw new UsageError(`guard: --upstream: ${(e as Error).message}`);
      }
    }
    const upstreamTransport = values["upstream-transport"] ?? "auto";
    if (!["auto", "streamable-http", "sse"].includes(upstreamTransport)) {
      throw new UsageError(
        `guard: --upstream-transport expects auto, streamable-http or sse ` +
          `(got ${JSON.stringify(upstreamTransport)})`,
      );
    }
    if (values["upstream-transport"] !== undefined && !http) {
      throw new UsageError("guard: --upstream-transport goes with --listen/--upstream");
    }
    for (
      const flag of [
        "max-connections",
        "header-timeout",
        "idle-timeout",
        "request-timeout",
      ] as const
    ) {
      if (values[flag] !== undefined && !http) {
        throw new UsageError(`guard: --${flag} goes with --listen`);
      }
    }
    const limits = parseServerLimits("guard", values, false);
    const startupTimeoutMs = seconds("startup-timeout", values["startup-timeout"]);
    const requestTimeoutMs = seconds("list-timeout", values["list-timeout"]);

    // Signatures: the trust inputs of verify-schema. Every flag is checked here; the
    // documents are loaded after the lock, so that nothing is fetched before all of the
    // arguments and local inputs are known to be good.
    let plan: TrustPlan | undefined;
    const signedLock = values["require-signed-lock"] === true;
    if (values.signatures || signedLock) {
      if (values.domain === undefined) {
        throw new UsageError(
          `guard: ${values.signatures ? "--signatures" : "--require-signed-lock"} needs --domain D`,
        );
      }
      plan = checkTrustFlags("guard", values, requireDomainFlag("guard", values.domain), own);
    }
    if (!values.signatures && (values.lineage || values["lineage-store"] !== undefined)) {
      throw new UsageError(
        `guard: --${values.lineage ? "lineage" : "lineage-store"} goes with --signatures`,
      );
    }
    if (!(values.signatures || signedLock)) {
      for (const flag of TRUST_FLAGS) {
        if (values[flag] !== undefined) {
          throw new UsageError(`guard: --${flag} goes with --signatures or --require-signed-lock`);
        }
      }
    }

    // The lock (with --lock, or by default when signatures are not asked for), the trust
    // documents (loaded once, for the lock's signature and the tools' signatures alike), and
    // --require-signed-lock's check, before anything is started (lib/guard/setup.ts).
    const lockPath = values.lock ?? DEFAULT_LOCK_FILE;
    const withLock = values.lock !== undefined || !values.signatures || signedLock;
    if (withLock && signedLock && lockPath === "-") {
      throw new UsageError(
        "guard: --require-signed-lock needs --lock FILE (its signature is FILE.sig)",
      );
    }
    const lineage = lineageStoreFromFlags(values);
    let setup;
    try {
      setup = await prepareGuard({
        ...(withLock
          ? { lock: { path: lockPath, server: values.server, chooseServer: onlyServer(lockPath) } }
          : {}),
        trust: plan,
        requireSignedLock: signedLock,
        signatures: values.signatures === true,
        verify: {
          pinStore: values["pin-store"],
          trustFirstUse: values["trust-first-use"] === true,
          allowExpired: values["allow-expired"] === true,
          allowMissingRevocation: values["allow-missing-revocation"] === true,
        },
        strictText: values["strict-text"] === true,
        ...(lineage ? { lineage } : {}),
      }, plan ? trustEnv(plan, io) : { read: (path) => readInput(path, io) });
    } catch (e) {
      if (e instanceof UsageError) throw e;
      return await reportInputFailure(e, false, io);
    }
    const { lock, lockSignature: check } = setup;
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
    const serverName = values.server ?? lock?.serverName ??
      (http ? new URL(values.upstream!).host : basename(command[0]));

    // --listen without --log: stderr through a bounded queue, so that a stderr nobody reads
    // neither blocks the guard (the sink of the stdio guard writes synchronously) nor grows.
    const stderrLog = listen
      ? new LineLog({ name: "schemapin guard", write: (t) => io.stderr(t) })
      : undefined;
    let sink;
    try {
      sink = stderrLog && values.log === undefined
        ? (line: string) => stderrLog.line(line)
        : openAuditSink(values.log);
    } catch (e) {
      throw new SchemaPinError(
        "IO_FAILED",
        `cannot open --log ${values.log}: ${describeFsError(e)}`,
      );
    }
    const log = new AuditLog(serverName, mode, sink);
    const core = setup.core({ mode, log, serverName });
    log.record({ decision: "started", message: `checking ${setup.checks}` });

    if (listen && stderrLog) {
      // The guard's own lines share the bounded queue with the audit log (when it is stderr).
      const say = (text: string) => stderrLog.line(text);
      // auto: a GET that opens an event stream starting with `endpoint` is a legacy server.
      const { guard, transport } = await startListeningGuard({
        upstream: values.upstream!,
        hostname: listen.hostname,
        port: listen.port,
        core,
        serverName,
        startupTimeoutMs,
        requestTimeoutMs,
        limits,
        onEvent: (message) => say(`schemapin guard: ${message}\n`),
        transport: upstreamTransport as UpstreamTransportChoice,
      }).catch(async (e) => {
        await stderrLog.close(1000); // the lines so far, before the error
        throw e;
      });
      say(
        `schemapin guard: listening on ${guard.url} (upstream ${
          new URL(values.upstream!).origin
        }, ${transport === "sse" ? "legacy HTTP+SSE" : "Streamable HTTP"})\n`,
      );
      const failure = await runUntilSignalled(guard);
      if (failure) {
        // Not exit 2: the setup was good, the listener failed while running.
        log.record({ decision: "stopped", exit_code: EXIT_FAILED, message: failure.message });
        say(
          `error: schemapin guard: the listener failed while running, exiting with status 1 ` +
            `(a runtime failure, not a bad setup; restart it): ${failure.message}\n`,
        );
        await stderrLog.close(1000);
        return EXIT_FAILED;
      }
      log.record({ decision: "stopped" });
      await stderrLog.close(1000);
      return 0;
    }
    try {
      return await runStdioGuard({
        command,
        core,
        serverName,
        startupTimeoutMs,
        requestTimeoutMs,
      });
    } catch (e) {
      if (!(e instanceof ServerFailure)) throw e;
      log.record({ decision: "server_failed", message: e.message });
      await io.stderr(`error: ${e.message}\n`);
      return EXIT_FAILED;
    }
  },
};
