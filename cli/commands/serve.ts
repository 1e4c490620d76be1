/**
 * `schemapin serve`: the publisher's `.well-known` server — a discovery document at
 * `/.well-known/schemapin.json`, its revocation document at the path its `revocation_endpoint`
 * names, and optionally a trust bundle, over HTTPS. The documents are validated at start and
 * given their paths and caching (cli/trust/publish.ts: a malformed one is exit 2, never served),
 * then served byte for byte (cli/http/static.ts: headers, ETag, 404/405) by the server of
 * lib/http/server.ts (connection cap, timeouts, survives running out of file descriptors). With
 * `--access-log`, one line per request on stderr through a bounded queue (cli/http/line_log.ts).
 * SIGINT/SIGTERM stop it gracefully (in-flight requests get 5 s), exit 0; a listener that fails
 * for good while serving is exit 1 (cli/http/until_signal.ts; a supervisor restarts it).
 *
 * @module
 */
import { WELL_KNOWN_PATH } from "../../lib/discovery/well_known.ts";
import { BUNDLE_PATH, DEFAULT_REVOCATION_PATH, loadPublishedDocuments } from "../trust/publish.ts";
import { accessLogLine, listenStatic } from "../http/static.ts";
import { checkTlsPem } from "../http/tls_pem.ts";
import {
  asUsage,
  type Command,
  EXIT_FAILED,
  EXIT_OK,
  parseCommandArgs,
  UsageError,
} from "./command.ts";
import { readInput, readTextInput } from "./io.ts";
import { runUntilSignalled } from "../http/until_signal.ts";
import { LineLog } from "../http/line_log.ts";
import { SERVER_LIMIT_FLAGS } from "./server_flags.ts";
import { listenPortFrom, serverLimitsFrom } from "../http/server_limits.ts";
import { booleanFlag, type FlagTable, optionList, valueFlag } from "../args/flags.ts";

/** Milliseconds requests in progress get after SIGINT/SIGTERM. */
const SHUTDOWN_GRACE_MS = 5_000;
/** Milliseconds the log gets to drain at exit (a stalled stderr must not keep the process). */
const LOG_FLUSH_MS = 1_000;

/** The flags of `serve` (its connection limits are listed under the help's Limits). */
const OWN_FLAGS = {
  discovery: valueFlag(
    "FILE",
    "the discovery document to publish (schemapin well-known makes one)",
  ),
  revocation: valueFlag(
    "FILE",
    "the standalone revocation document to publish (schemapin revoke makes one)",
  ),
  bundle: valueFlag("FILE", "a trust bundle to publish as well"),
  "tls-cert": valueFlag("FILE", "TLS certificate chain, PEM"),
  "tls-key": valueFlag("FILE", "TLS private key, PEM (unencrypted); not a signing key"),
  port: valueFlag("PORT", "TCP port (default 8443; 0 picks a free one)"),
  hostname: valueFlag("H", "address to listen on (default 0.0.0.0)"),
  "access-log": booleanFlag(
    "log one line per request on stderr: time, client, method, path, status, length",
  ),
} as const satisfies FlagTable;

const SERVE_FLAGS = {
  ...OWN_FLAGS,
  ...SERVER_LIMIT_FLAGS,
  // Old spellings, kept for one release (docs/cli-vocabulary.md: -k/--key is a signing key).
  cert: { type: "string", help: "", deprecated: "tls-cert" },
  key: { type: "string", help: "", deprecated: "tls-key" },
} as const satisfies FlagTable;

const HELP = `schemapin serve — serve .well-known/schemapin.json over HTTPS (for publishers)

Usage:
  schemapin serve --discovery FILE [--revocation FILE] [--bundle FILE] --tls-cert CERT.pem
      --tls-key KEY.pem [--port P] [--hostname H] [--access-log] [limits]

Serves, over HTTPS only:
  ${WELL_KNOWN_PATH}                the --discovery document
  <path of its revocation_endpoint>          the --revocation document
                                             (${DEFAULT_REVOCATION_PATH} if none declared)
  ${BUNDLE_PATH}         the --bundle trust bundle
and 404 for anything else. Documents are validated at start and served byte for byte; a
discovery document that declares a revocation_endpoint needs --revocation. SIGINT or SIGTERM
stops the server after in-flight requests finish (at most 5 s). See docs/discovery.md
(caching, HTTP/1.1, the log, running under a supervisor).

Options:
${optionList(OWN_FLAGS)}

Limits (a connection that breaks one is closed; the server keeps serving):
${optionList(SERVER_LIMIT_FLAGS)}

Exit codes: 0 stopped by SIGINT/SIGTERM; 1 the listener failed while serving (a runtime
failure, logged as such: restart it, e.g. systemd Restart=on-failure); 2 bad arguments, a
malformed document, or a certificate/key or address that cannot be used.

Example:
  schemapin serve --discovery schemapin.json --revocation revocations.json \\
      --tls-cert /etc/ssl/tools.example.com.pem --tls-key /etc/ssl/tools.example.com.key --port 443
`;

/** The `serve` command. */
export const serveCommand: Command = {
  name: "serve",
  summary: "serve .well-known/schemapin.json (and revocations) over HTTPS",
  help: HELP,
  flags: SERVE_FLAGS,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs("serve", args, SERVE_FLAGS);
    if (positionals.length > 0) throw new UsageError("serve: takes no positional arguments");
    for (const flag of ["discovery", "tls-cert", "tls-key"] as const) {
      if (values[flag] === undefined) throw new UsageError(`serve: --${flag} FILE is required`);
      if (values[flag] === "-") throw new UsageError(`serve: --${flag} must be a file, not stdin`);
    }
    for (const flag of ["revocation", "bundle"] as const) {
      if (values[flag] === "-") throw new UsageError(`serve: --${flag} must be a file, not stdin`);
    }
    const port = asUsage("serve", () => listenPortFrom(values.port, 8443));
    const limits = asUsage("serve", () => serverLimitsFrom(values, true));
    const hostname = values.hostname ?? "0.0.0.0";
    // Validated: malformed is INPUT_INVALID (exit 2); a declared endpoint without --revocation
    // is a usage error.
    const documents = await asUsage("serve", () =>
      loadPublishedDocuments(
        {
          discovery: values.discovery!,
          revocation: values.revocation,
          bundle: values.bundle,
          revocationOption: "--revocation",
        },
        (path) => readInput(path, io),
        (message) => io.stderr(`warning: ${message}\n`),
      ));
    const cert = await readTextInput(values["tls-cert"]!, io);
    const key = await readTextInput(values["tls-key"]!, io);
    checkTlsPem(cert, key, `--tls-cert ${values["tls-cert"]}`, `--tls-key ${values["tls-key"]}`);

    const log = new LineLog({ name: "schemapin serve", write: (t) => io.stderr(t) });
    const server = listenStatic({
      hostname,
      port,
      tls: { cert, key },
      limits,
      documents,
      onEvent: (message) => log.line(`schemapin serve: ${message}\n`),
      onError: (e) => log.line(`error: ${(e as Error)?.message ?? e}\n`),
      ...(values["access-log"] === true
        ? {
          onResponse: (request: Request, client: string, response: Response) =>
            log.line(accessLogLine(request, client, response, new Date())),
        }
        : {}),
    });

    const failure = await runUntilSignalled(server, { graceMs: SHUTDOWN_GRACE_MS });
    if (failure) {
      // Not exit 2: the setup was good, the listener failed while serving.
      await log.close(
        LOG_FLUSH_MS,
        `error: schemapin serve: the listener failed while serving, exiting with status 1 ` +
          `(a runtime failure, not a bad setup; restart it): ${failure.message}\n`,
      );
      return EXIT_FAILED;
    }
    await log.close(LOG_FLUSH_MS, "schemapin serve: stopped\n");
    return EXIT_OK;
  },
};
