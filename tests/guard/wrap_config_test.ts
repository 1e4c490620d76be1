/**
 * What `guard wrap` decides about a client config (cli/guard/wrap_plan.ts, with the reading,
 * edits and backup of cli/mcp_config/), on configs written here and in-memory files: each
 * entry's lock entry, the loopback ports, the problems that stop a wrap, the read-back check,
 * the backup policy and unwrap restoring the backup's exact bytes. The command itself is tested in wrap_test.ts.
 */
import assert from "node:assert/strict";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import {
  buildLock,
  type LockServer,
  lockServerEntry,
  serializeLock,
} from "../../lib/contractpin/lock.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  describeWrapProblem,
  lockIdentityOf,
  planWrap,
  wrapConfigFile,
  type WrapRequest,
} from "../../cli/guard/wrap_plan.ts";
import {
  type ClientConfigFile,
  parseClientConfigFile,
  readClientConfigFile,
} from "../../cli/mcp_config/read.ts";
import {
  applyWrap,
  BACKUP_SUFFIX,
  type ConfigFiles,
  unwrapConfigFile,
  wrappedEntry,
  writeWrappedConfig,
} from "../../cli/mcp_config/wrap.ts";
import { withTempDir } from "../cli/run.ts";

const CONFIG = `{
  // servers
  "mcpServers": {
    "fs": { "command": "npx", "args": ["-y", "server-fs"], "cwd": "tools" },
    "web": { "url": "https://mcp.example.test/mcp" },
    "new": { "command": "node", "args": ["new.js"] },
    "off": { "command": "node", "args": ["off.js"], "disabled": true },
    "vars": { "url": "https://\${HOST}/mcp" }
  }
}
`;
const enc = new TextEncoder();

function configOf(text: string, path = "/proj/.cursor/mcp.json"): ClientConfigFile {
  return parseClientConfigFile(enc.encode(text), { path, real: path, mode: 0o100640 }, {
    projectDir: "/proj",
  });
}

/** A lock pinning `names` of `config` as contract init --config records them. */
function lockOf(config: ClientConfigFile, names: Record<string, string>) {
  const servers: Record<string, LockServer> = {};
  for (const e of config.entries) {
    if (!e.target || !(e.name in names)) continue;
    servers[names[e.name]] = lockServerEntry(
      lockIdentityOf(e.target, config.path),
      digestToolList([{ name: "t" }]),
    );
  }
  return buildLock(servers);
}

/** In-memory files: what was written, with its mode. */
function memoryFiles(initial: Record<string, string> = {}) {
  const files = new Map(Object.entries(initial).map(([k, v]) => [k, { text: v, mode: 0o644 }]));
  const api: ConfigFiles = {
    exists: (p) => Promise.resolve(files.has(p)),
    read: (p) => Promise.resolve(enc.encode(files.get(p)!.text)),
    write: (p, text, mode) => {
      files.set(p, { text, mode });
      return Promise.resolve();
    },
  };
  return { api, files };
}

const INV = { program: ["/opt/bin/schemapin"], lockPath: "/proj/contractpin.lock" };

Deno.test("wrap plan: lock entries by name or name@…, ports from the first one, problems", () => {
  const config = configOf(CONFIG);
  assert.equal(config.mode, 0o640);
  // relative cwd: resolved against the config's folder, as the lock records it
  const fs = config.entries.find((e) => e.name === "fs")!;
  const id = lockIdentityOf(fs.target!, config.path);
  assert.equal(id.transport === "stdio" && id.cwd, "/proj/.cursor/tools");

  const lock = lockOf(config, { fs: "fs", web: "web@prod", vars: "vars" });
  const plan = planWrap(config, lock, {
    lockPath: INV.lockPath,
    firstPort: 9000,
    mode: "filter",
  });
  const byName = Object.fromEntries(plan.outcomes.map((o) => [o.name, o]));
  assert.deepEqual(byName.fs, {
    name: "fs",
    status: "wrapped",
    transport: "stdio",
    lockName: "fs",
  });
  const web = byName.web;
  assert.ok(web.status === "wrapped" && web.transport === "http");
  assert.equal(web.port, 9000);
  assert.equal(web.local, "http://127.0.0.1:9000/mcp");
  assert.deepEqual(web.guardArgs, [
    ...["guard", "--listen", "127.0.0.1:9000", "--upstream", "https://mcp.example.test/mcp"],
    ...["--lock", INV.lockPath, "--server", "web@prod", "--mode", "filter"],
  ]);
  assert.deepEqual(byName.new, {
    name: "new",
    status: "unguarded",
    disabled: false,
    problem: { kind: "not_pinned" },
  });
  assert.equal(byName.off.status === "unguarded" && byName.off.disabled, true);
  assert.deepEqual(byName.vars, {
    name: "vars",
    status: "unguarded",
    disabled: false,
    problem: { kind: "url_variable" },
  });
  assert.equal(plan.hadWrapped, false);
  assert.deepEqual(plan.edits.map((e) => e.kind), ["stdio", "http"]);

  // Pinned under its name, from another definition.
  const other = lockOf(configOf(CONFIG.replace('"new.js"', '"old.js"')), { new: "new@v1" });
  const again = planWrap(config, other, { lockPath: INV.lockPath, firstPort: 9000 });
  assert.deepEqual(again.outcomes.find((o) => o.name === "new"), {
    name: "new",
    status: "unguarded",
    disabled: false,
    problem: { kind: "pinned_differently", candidates: ["new@v1"] },
  });

  assert.throws(
    () => planWrap(configOf('{"mcpServers": {}}'), lock, { lockPath: "/l", firstPort: 1 }),
    (e: SchemaPinError) => e.code === "INPUT_INVALID" && /has no MCP servers/.test(e.message),
  );
});

Deno.test("wrap: the edit reads back, the backup is written once, unwrap restores the bytes", async () => {
  const config = configOf(CONFIG);
  const lock = lockOf(config, { fs: "fs", web: "web" });
  const plan = planWrap(config, lock, { lockPath: INV.lockPath, firstPort: 9000 });
  const context = { projectDir: "/proj" };
  const result = applyWrap(config, plan.edits, INV, context);
  assert.match(result.text, /\/\/ servers/); // comments kept
  const { api, files } = memoryFiles();
  const written = await writeWrappedConfig(config, result.text, plan.hadWrapped, api);
  assert.deepEqual(written, {
    backupWritten: true,
    backupPath: config.real + BACKUP_SUFFIX,
  });
  assert.equal(files.get(written.backupPath)?.text, CONFIG);
  assert.equal(files.get(config.real)?.mode, 0o640);

  // Read back: fs and web are wrapped now; a second plan wraps nothing and keeps the backup.
  const wrapped = configOf(result.text);
  const states = wrapped.entries.map((e) => wrappedEntry(wrapped.doc, e));
  assert.deepEqual(states.map((s) => s?.kind), ["stdio", "http", undefined, undefined, undefined]);
  assert.deepEqual(states[0], { kind: "stdio", shown: "npx -y server-fs", lockName: "fs" });
  assert.deepEqual(states[1], { kind: "http", shown: "https://mcp.example.test/mcp", port: 9000 });
  const second = planWrap(wrapped, lock, { lockPath: INV.lockPath, firstPort: 9000 });
  assert.equal(second.hadWrapped, true);
  assert.deepEqual(second.edits, []);
  const kept = await writeWrappedConfig(wrapped, wrapped.text, true, api);
  assert.equal(kept.backupWritten, false);
  assert.equal(files.get(kept.backupPath)?.text, CONFIG);

  // Unwrap: the backup's exact bytes; without a backup, the commands restored in place.
  const back = await unwrapConfigFile(wrapped, api);
  assert.equal(back.exact, true);
  assert.deepEqual(back.unwrapped.map((u) => u.name), ["fs", "web"]);
  assert.equal(files.get(config.real)?.text, CONFIG);
  const bare = memoryFiles();
  const inPlace = await unwrapConfigFile(wrapped, bare.api);
  assert.equal(inPlace.exact, false);
  assert.equal(inPlace.backupExists, false);
  const restored = configOf(bare.files.get(config.real)!.text);
  assert.ok(restored.entries.every((e) => wrappedEntry(restored.doc, e) === undefined));
  // Nothing wrapped: nothing written.
  const none = memoryFiles();
  assert.deepEqual((await unwrapConfigFile(config, none.api)).unwrapped, []);
  assert.equal(none.files.size, 0);
});

Deno.test("readClientConfigFile: reads a symlinked config where it lives, with its mode", async () => {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-test-" });
  try {
    const real = `${dir}/real.json`;
    await Deno.writeTextFile(real, CONFIG, { mode: 0o640 });
    await Deno.symlink(real, `${dir}/link.json`);
    const config = await readClientConfigFile(`${dir}/link.json`, (p) => Deno.readFile(p), {
      projectDir: dir,
    });
    assert.equal(config.path, `${dir}/link.json`);
    assert.equal(config.real, await Deno.realPath(real));
    assert.equal(config.mode, 0o640);
    assert.deepEqual(config.entries.map((e) => e.name), ["fs", "web", "new", "off", "vars"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readClientConfigFile: a missing file, a dangling link and a bad config fail", async () => {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-test-" });
  try {
    // What `read` throws is passed on (the CLI's names the file).
    await assert.rejects(
      readClientConfigFile(`${dir}/none.json`, () => Promise.reject(new Error("no such file")), {}),
      /no such file/,
    );
    // Read, but not found where it leads: IO_FAILED naming the path.
    await Deno.symlink(`${dir}/gone.json`, `${dir}/dangling.json`);
    await assert.rejects(
      readClientConfigFile(`${dir}/dangling.json`, () => Promise.resolve(enc.encode(CONFIG)), {}),
      (e) =>
        (e as SchemaPinError).code === "IO_FAILED" &&
        (e as SchemaPinError).message.startsWith(`cannot inspect ${dir}/dangling.json: `),
    );
    await Deno.writeTextFile(`${dir}/bad.json`, "{");
    await assert.rejects(
      readClientConfigFile(`${dir}/bad.json`, (p) => Deno.readFile(p), {}),
      (e) => (e as SchemaPinError).code === "JSON_INVALID",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readClientConfigFile: arguments of the wrong type are INPUT_INVALID", async () => {
  const read = (p: string) => Deno.readFile(p);
  for (const args of [[undefined, read, {}], ["c.json", undefined, {}], ["c.json", read, null]]) {
    await assert.rejects(
      (readClientConfigFile as (...a: unknown[]) => Promise<unknown>)(...args),
      (e) => (e as SchemaPinError).code === "INPUT_INVALID",
    );
  }
});

Deno.test("describeWrapProblem: why an entry cannot run through the guard, and what to do", () => {
  const lock = "/proj/contractpin.lock";
  assert.equal(
    describeWrapProblem({ kind: "unusable", problem: "no command" }, "c.json", lock),
    "no command",
  );
  assert.equal(
    describeWrapProblem({ kind: "not_pinned" }, "my config.json", lock),
    `not pinned in ${lock}; pin it first: schemapin contract init --force --config ` +
      "'my config.json' (or --discover)",
  );
  assert.equal(
    describeWrapProblem({ kind: "pinned_differently", candidates: ["a", "a@2"] }, "c.json", lock),
    `${lock} pins a, a@2 from a different definition; re-pin it: schemapin contract init ` +
      "--force --config c.json",
  );
  assert.match(describeWrapProblem({ kind: "url_variable" }, "c.json", lock), /^its URL holds/);
});

Deno.test("describeWrapProblem: a problem that is not an object is INPUT_INVALID", () => {
  for (const p of [undefined, "not_pinned"]) {
    assert.throws(
      () => describeWrapProblem(p as never, "c.json", "l.lock"),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  }
});

const SMALL = `{
  "mcpServers": {
    "fs": { "command": "npx", "args": ["-y", "server-fs"] },
    "web": { "url": "https://mcp.example.test/mcp" },
    "new": { "command": "node", "args": ["new.js"] }
  }
}
`;

/** SMALL and a lock pinning fs and web, on disk; the files as the CLI has them. */
async function onDisk(
  dir: string,
  text = SMALL,
  names: Record<string, string> = { fs: "fs", web: "web" },
) {
  const configPath = `${dir}/mcp.json`;
  await Deno.writeTextFile(configPath, text);
  const context = { projectDir: dir };
  const parsed = parseClientConfigFile(enc.encode(text), {
    path: configPath,
    real: configPath,
    mode: 0o644,
  }, context);
  await Deno.writeTextFile(
    `${dir}/contractpin.lock`,
    serializeLock(lockOf(parsed, names)),
  );
  const files: ConfigFiles = {
    exists: (p) => Deno.stat(p).then(() => true, () => false),
    read: (p) => Deno.readFile(p),
    write: (p, text, mode) => Deno.writeTextFile(p, text, { mode }),
  };
  const request: WrapRequest = {
    configPath,
    context,
    lock: `${dir}/contractpin.lock`,
    schemapinCommand: "/opt/bin/schemapin",
    env: () => undefined,
  };
  return { configPath, files, request };
}

Deno.test("wrapConfigFile: blocked by an unpinned server; --partial wraps the others", async () => {
  await withTempDir(async (dir) => {
    const { configPath, files, request } = await onDisk(dir);
    const blocked = await wrapConfigFile(request, files);
    assert.equal(blocked.blocked, true);
    assert.equal(blocked.written, undefined);
    assert.equal(blocked.lockPath, `${dir}/contractpin.lock`);
    assert.equal(await Deno.readTextFile(configPath), SMALL, "nothing written");
    const partial = await wrapConfigFile({ ...request, partial: true, port: "9100" }, files);
    assert.equal(partial.blocked, false);
    assert.deepEqual(partial.written, {
      program: ["/opt/bin/schemapin"],
      backupWritten: true,
      backupPath: (await Deno.realPath(configPath)) + BACKUP_SUFFIX,
      droppedComments: [],
    });
    assert.equal(await Deno.readTextFile(partial.written!.backupPath), SMALL);
    const web = partial.plan.outcomes.find((o) => o.name === "web");
    assert.equal(web?.status === "wrapped" && web.transport === "http" && web.port, 9100);
    // Again: everything pinned is wrapped already; nothing to change, nothing written.
    const again = await wrapConfigFile({ ...request, partial: true }, files);
    assert.equal(again.written, undefined);
    assert.equal(again.blocked, false);
  });
});

Deno.test("wrapConfigFile: the schemapin on PATH when no command is given", async () => {
  await withTempDir(async (dir) => {
    const { files, request } = await onDisk(dir);
    await Deno.mkdir(`${dir}/bin`);
    await Deno.writeTextFile(`${dir}/bin/schemapin`, "#!/bin/sh\n", { mode: 0o755 });
    const env = (n: string) => (n === "PATH" ? `${dir}/bin` : undefined);
    const { schemapinCommand: _, ...rest } = request;
    const result = await wrapConfigFile({ ...rest, env, partial: true }, files);
    assert.deepEqual(result.written?.program, [`${dir}/bin/schemapin`]);
  });
});

Deno.test("wrapConfigFile: requests that cannot be used are usage errors; a missing lock is not", async () => {
  await withTempDir(async (dir) => {
    const { files, request } = await onDisk(dir);
    const cases: [Partial<WrapRequest>, string][] = [
      [{ mode: "block" }, "--mode must be enforce, filter or audit (got block)"],
      [{ port: "0" }, "--port must be a port number (got 0)"],
      [{ port: "8931.5" }, "--port must be a port number (got 8931.5)"],
      [{ schemapinCommand: "" }, "--schemapin-command is empty"],
    ];
    for (const [change, message] of cases) {
      await assert.rejects(
        wrapConfigFile({ ...request, ...change }, files),
        (e) => e instanceof SchemaPinError && e.details.usage === true && e.message === message,
        message,
      );
    }
    // No usable schemapin on PATH: a usage error naming --schemapin-command.
    const { schemapinCommand: _, ...noCommand } = request;
    await assert.rejects(
      wrapConfigFile({ ...noCommand, partial: true }, files),
      (e) =>
        e instanceof SchemaPinError && e.details.usage === true &&
        e.message.startsWith("no schemapin on PATH; install schemapin on PATH") &&
        e.message.endsWith("--schemapin-command PATH"),
    );
    assert.equal(await Deno.readTextFile(request.configPath), SMALL, "nothing written");
    await assert.rejects(
      wrapConfigFile({ ...request, lock: `${dir}/none.lock` }, files),
      (e) => !(e instanceof SchemaPinError && e.details.usage === true),
    );
    const two = SMALL.replace(
      '"new": { "command": "node", "args": ["new.js"] }',
      '"new": { "url": "https://b.example.test/mcp" }',
    );
    const full = await onDisk(dir, two, { web: "web", new: "new" });
    await assert.rejects(
      wrapConfigFile({ ...full.request, port: "65535", partial: true }, full.files),
      (e) =>
        e instanceof SchemaPinError && e.details.usage === true &&
        e.message === "no port left above --port",
    );
    for (const [r, f] of [[undefined, files], [request, null]]) {
      await assert.rejects(
        wrapConfigFile(r as never, f as never),
        (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID" && !e.details.usage,
      );
    }
  });
});
