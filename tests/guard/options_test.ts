// The options of a guard run checked before anything is read or started (cli/guard/options.ts):
// the transport, the mode, the timeouts and limits, the checks and what goes with them; the
// server's name in the log, and the audit log's file. The command is run in
// tests/cli/guard_*_test.ts.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  checkGuardOptions,
  type GuardOptionsContext,
  type GuardOptionsText,
  guardServerName,
  openGuardAuditLog,
  startGuardCore,
} from "../../cli/guard/options.ts";
import { prepareGuard } from "../../cli/guard/setup.ts";
import { DEFAULT_SERVER_LIMITS } from "../../lib/http/server.ts";
import { LineageStore } from "../../lib/pins/lineage.ts";
import type { TrustPlan } from "../../lib/trust/load.ts";
import { withTempDir } from "../cli/run.ts";
import { buildLock, lockServerEntry, serializeLock } from "../../lib/contractpin/lock.ts";
import { digestToolList } from "../../lib/contractpin/digest.ts";

const PLAN = { domain: "example.com" } as TrustPlan;
const STDIO: GuardOptionsContext = {
  command: ["/usr/local/bin/node", "server.js"],
  trustOptions: ["domain", "discovery", "pin-store"],
  trustPlan: () => PLAN,
};
const LISTEN: GuardOptionsContext = { ...STDIO, command: [] };
const HTTP = { listen: "127.0.0.1:0", upstream: "https://mcp.example.com/mcp" };

/** Asserts that the options are a usage error with exactly this message. */
function refused(values: GuardOptionsText, context: GuardOptionsContext, message: string) {
  assert.throws(
    () => checkGuardOptions(values, context),
    (e) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" && e.details.usage === true &&
      e.message === message,
    message,
  );
}

Deno.test("checkGuardOptions: a stdio guard with the default lock and mode", () => {
  const run = checkGuardOptions({}, STDIO);
  assert.equal(run.mode, "enforce");
  assert.deepEqual(run.command, ["/usr/local/bin/node", "server.js"]);
  assert.equal(run.listen, undefined);
  assert.equal(run.startupTimeoutMs, undefined);
  assert.equal(run.setup.lock?.path, "contractpin.lock");
  assert.equal(run.setup.trust, undefined);
  assert.equal(run.setup.signatures, false);
  assert.equal(run.setup.lineage, undefined);
  assert.equal(guardServerName(run), "node", "the file name of the command");
  assert.equal(
    guardServerName(run, { serverName: "acme" } as never),
    "acme",
    "the lock entry's name before the command's",
  );
});

Deno.test("checkGuardOptions: --listen with its upstream, transport, limits and timeouts", () => {
  const run = checkGuardOptions({
    ...HTTP,
    mode: "filter",
    "upstream-transport": "sse",
    "idle-timeout": "5",
    "startup-timeout": "1.5",
    "list-timeout": "2",
    server: "acme-http",
  }, LISTEN);
  assert.equal(run.mode, "filter");
  assert.deepEqual(run.listen, {
    hostname: "127.0.0.1",
    port: 0,
    upstream: HTTP.upstream,
    transport: "sse",
    limits: { ...DEFAULT_SERVER_LIMITS, idleTimeoutMs: 5000 },
  });
  assert.equal(run.startupTimeoutMs, 1500);
  assert.equal(run.requestTimeoutMs, 2000);
  assert.equal(guardServerName(run), "acme-http");
  assert.equal(guardServerName(checkGuardOptions(HTTP, LISTEN)), "mcp.example.com");
  assert.equal(checkGuardOptions(HTTP, LISTEN).listen?.transport, "auto");
});

Deno.test("checkGuardOptions: signatures take the trust plan and the lineage store", () => {
  const store = new LineageStore({ memory: true });
  let asked = 0;
  const context = { ...STDIO, lineage: () => (asked++, store) };
  const run = checkGuardOptions(
    { signatures: true, domain: "example.com", lineage: true, "pin-store": "p.json" },
    context,
  );
  assert.equal(run.setup.trust, PLAN);
  assert.equal(run.setup.lineage, store);
  assert.equal(run.setup.lock, undefined, "signatures alone: no default lock");
  assert.equal(run.setup.verify?.pinStore, "p.json");
  assert.equal(asked, 1);
  const signed = checkGuardOptions(
    { "require-signed-lock": true, domain: "example.com", lock: "l.lock" },
    STDIO,
  );
  assert.equal(signed.setup.lock?.path, "l.lock");
  assert.equal(signed.setup.requireSignedLock, true);
  assert.throws(
    () => signed.setup.lock?.chooseServer?.(["a", "b"]),
    (e) =>
      e instanceof SchemaPinError && e.details.usage === true &&
      e.message === "l.lock pins 2 servers; choose one with --server NAME (a, b)",
  );
});

Deno.test("checkGuardOptions: the transport options that do not fit", () => {
  refused({ mode: "block" }, STDIO, "--mode must be enforce, filter or audit (got block)");
  refused({ listen: "8931" }, LISTEN, "--listen and --upstream go together");
  refused(HTTP, STDIO, "give either a command after -- or --listen/--upstream");
  refused({}, LISTEN, "the server command goes after -- (or use --listen/--upstream)");
  refused(
    {},
    { ...STDIO, command: [""] },
    "the server command goes after -- (or use --listen/--upstream)",
  );
  refused({ "allow-remote": true }, STDIO, "--allow-remote goes with --listen");
  refused(
    { ...HTTP, listen: "8931x" },
    LISTEN,
    '--listen expects HOST:PORT or PORT (got "8931x")',
  );
  refused(
    { ...HTTP, "upstream-transport": "ws" },
    LISTEN,
    '--upstream-transport expects auto, streamable-http or sse (got "ws")',
  );
  refused(
    { "upstream-transport": "sse" },
    STDIO,
    "--upstream-transport goes with --listen/--upstream",
  );
  refused({ "header-timeout": "5" }, STDIO, "--header-timeout goes with --listen");
  refused({ ...HTTP, "handshake-timeout": "5" }, LISTEN, "--handshake-timeout applies to TLS only");
  refused(
    { "startup-timeout": "0" },
    STDIO,
    "--startup-timeout must be a positive number of seconds (got 0)",
  );
  assert.throws(
    () => checkGuardOptions({ ...HTTP, upstream: "ftp://x/mcp" }, LISTEN),
    (e) =>
      e instanceof SchemaPinError && e.details.usage === true && /^--upstream: /.test(e.message),
  );
});

Deno.test("checkGuardOptions: the check options that do not fit", () => {
  refused({ signatures: true }, STDIO, "--signatures needs --domain D");
  refused({ "require-signed-lock": true }, STDIO, "--require-signed-lock needs --domain D");
  refused({ lineage: true }, STDIO, "--lineage goes with --signatures");
  refused(
    { "lineage-store": "l.json", "require-signed-lock": true, domain: "example.com" },
    STDIO,
    "--lineage-store goes with --signatures",
  );
  refused(
    { discovery: "d.json" } as GuardOptionsText,
    STDIO,
    "--discovery goes with --signatures or --require-signed-lock",
  );
  refused(
    { "require-signed-lock": true, domain: "example.com", lock: "-" },
    STDIO,
    "--require-signed-lock needs --lock FILE (its signature is FILE.sig)",
  );
  const bad = new Error("from the trust plan");
  assert.throws(
    () =>
      checkGuardOptions({ signatures: true, domain: "x" }, {
        ...STDIO,
        trustPlan: () => {
          throw bad;
        },
      }),
    (e) => e === bad,
  );
  let asked = false;
  refused(
    { lineage: true },
    { ...STDIO, lineage: () => (asked = true, undefined) },
    "--lineage goes with --signatures",
  );
  assert.equal(asked, false, "the lineage store is not asked for before the options are good");
  for (const [values, context] of [[undefined, STDIO], [{}, "ctx"]]) {
    assert.throws(
      () => checkGuardOptions(values as never, context as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID" && !e.details.usage,
    );
  }
});

Deno.test("openGuardAuditLog: the file, or the stderr sink given", async () => {
  await withTempDir((dir) => {
    const lines: string[] = [];
    const log = openGuardAuditLog(checkGuardOptions({}, STDIO), "acme", (l) => lines.push(l));
    log.record({ decision: "started", message: "checking" });
    assert.equal(lines.length, 1);
    assert.equal(JSON.parse(lines[0]).server, "acme");
    const path = `${dir}/audit.jsonl`;
    const toFile = openGuardAuditLog(checkGuardOptions({ log: path }, STDIO), "acme", () => {
      throw new Error("not stderr");
    });
    toFile.record({ decision: "started", message: "checking" });
    assert.equal(JSON.parse(Deno.readTextFileSync(path)).decision, "started");
    return Promise.resolve();
  });
});

Deno.test("openGuardAuditLog: a file that cannot be opened is IO_FAILED; bad arguments", async () => {
  await withTempDir((dir) => {
    const path = `${dir}/missing/audit.jsonl`;
    assert.throws(
      () => openGuardAuditLog(checkGuardOptions({ log: path }, STDIO), "acme"),
      (e) =>
        e instanceof SchemaPinError && e.code === "IO_FAILED" &&
        e.message.startsWith(`cannot open --log ${path}: `),
    );
    return Promise.resolve();
  });
  const run = checkGuardOptions({}, STDIO);
  for (const [r, name] of [[undefined, "acme"], [run, 42]]) {
    assert.throws(
      () => openGuardAuditLog(r as never, name as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  }
  assert.throws(() => guardServerName(undefined as never), SchemaPinError);
});

/** A lock of one stdio server `acme` with no tools, written to `<dir>/contractpin.lock`. */
function writeAcmeLock(dir: string): string {
  const lock = `${dir}/contractpin.lock`;
  const entry = lockServerEntry(
    { transport: "stdio", command: ["node", "a.js"] },
    digestToolList([]),
  );
  Deno.writeTextFileSync(lock, serializeLock(buildLock({ acme: entry })));
  return lock;
}

Deno.test("startGuardCore: the core under the server's name, its log started with the checks", async () => {
  await withTempDir(async (dir) => {
    const lock = writeAcmeLock(dir);
    const run = checkGuardOptions({ lock, mode: "filter" }, STDIO);
    const setup = await prepareGuard(run.setup, { read: (p) => Deno.readFile(p) });
    const lines: string[] = [];
    const { core, serverName } = startGuardCore(run, setup, (l) => lines.push(l));
    assert.equal(serverName, "acme", "the lock entry's name");
    assert.equal(core.mode, "filter");
    assert.equal(lines.length, 1);
    const started = JSON.parse(lines[0]);
    assert.equal(started.decision, "started");
    assert.equal(started.message, `checking lock ${lock} (acme)`);
  });
});

Deno.test("startGuardCore: an unopenable log throws and nothing is started; bad setup", async () => {
  await withTempDir(async (dir) => {
    const lock = writeAcmeLock(dir);
    const run = checkGuardOptions({ lock, log: `${dir}/no/such/dir/audit.jsonl` }, STDIO);
    const setup = await prepareGuard(run.setup, { read: (p) => Deno.readFile(p) });
    assert.throws(
      () => startGuardCore(run, setup),
      (e) => e instanceof SchemaPinError && e.code === "IO_FAILED",
    );
    assert.throws(
      () => startGuardCore(run, undefined as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  });
});
