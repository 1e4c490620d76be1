// `--key ssh-agent:PUBFILE` in every signing command (issue 27 item 2), run for real: OpenSSH's
// own `ssh-agent -D` on a temporary socket holding a P-256 key made by `ssh-keygen`, and the
// CLI as a process with the task's permission flags and $SSH_AUTH_SOCK. Each command's output
// is checked by the matching verify command (with the key as `ssh-keygen -e -m PKCS8` exports
// it) and by the independent oracle: canonical bytes from tests/oracle/ (no lib/ code), SHA-256
// from node:crypto and `openssl dgst -sha256 -verify`. Then the refusals: no agent, a key not
// loaded, an Ed25519 key, --passphrase-file, a missing PUBFILE — exit 2, the --key value
// named, nothing written. And scripts/release_sign.ts with an agent key.
//
// Needs ssh-agent, ssh-add and ssh-keygen (openssh-client; .ci/run installs it) and openssl.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { parsePublicKeyPem } from "../../lib/crypto/keys.ts";
import { verifyToolSignature } from "../../lib/guard/signatures.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { oracleSchemapinV1 } from "../oracle/canonical.ts";
import { oracleParse } from "../oracle/json.ts";
import { childCommand } from "../process.ts";
import { ok, onPath, run } from "./openssh.ts";
import { ignoreWithout } from "../required_tool.ts";
import { type CliResult, exists, runCliProcess, runInProcess } from "../cli/run.ts";
import { baseTools, writeTools } from "../guard/helpers.ts";
import {
  cat,
  derScalars,
  enc,
  type FakeAnswer,
  keyLine,
  message,
  mpint,
  N,
  p256Blob,
  str,
  u32,
  withFakeAgent,
} from "./helpers.ts";
import { generateKeyPair, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { signDigest } from "../../lib/crypto/ecdsa.ts";
import { sha256 } from "../../lib/crypto/hash.ts";

const DOMAIN = "example.com";

const installedBy = ".ci/run (apt-get install openssh-client openssl)";
const noTools = [
  ignoreWithout("ssh-agent", onPath("ssh-agent"), installedBy),
  ignoreWithout("ssh-add", onPath("ssh-add"), installedBy),
  ignoreWithout("ssh-keygen", onPath("ssh-keygen"), installedBy),
  ignoreWithout("openssl", onPath("openssl"), installedBy),
].some((ignored) => ignored);

/** What a test gets: a folder holding the keys' public halves, and the agent's socket. */
interface Agent {
  /** The test's folder (the CLI runs there): `key.pub` (loaded), `key.pem` (its PEM export),
   * `unloaded.pub`, `ed25519.pub`. */
  readonly dir: string;
  readonly socket: string;
  /** $SSH_AUTH_SOCK for the CLI. */
  readonly env: Record<string, string>;
}

/**
 * Runs `fn` in a fresh folder with a fresh `ssh-agent -D` holding a P-256 key (`key`); the
 * private keys are removed from the folder once the agent holds them (the tool never needs
 * them).
 */
async function withAgent(fn: (agent: Agent) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-agent-cli-" });
  const socket = `${dir}/agent.sock`;
  const make = (name: string, ...type: string[]) =>
    ok("ssh-keygen", ["-q", ...type, "-N", "", "-C", `${name}@test`, "-f", `${dir}/${name}`]);
  await Promise.all([
    make("key", "-t", "ecdsa", "-b", "256"),
    make("unloaded", "-t", "ecdsa", "-b", "256"),
    make("ed25519", "-t", "ed25519"),
  ]);
  await Deno.writeTextFile(
    `${dir}/key.pem`,
    await ok("ssh-keygen", ["-e", "-m", "PKCS8", "-f", `${dir}/key.pub`]),
  );
  const agent = childCommand("ssh-agent", {
    args: ["-D", "-a", socket],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (let i = 0; !(await exists(socket)); i++) {
      if (i > 200) throw new Error("ssh-agent did not create its socket in 10 s");
      await new Promise((r) => setTimeout(r, 50));
    }
    const env = { SSH_AUTH_SOCK: socket };
    await ok("ssh-add", ["-q", `${dir}/key`], env);
    for (const name of ["key", "unloaded", "ed25519"]) await Deno.remove(`${dir}/${name}`);
    await fn({ dir, socket, env });
  } finally {
    agent.kill("SIGTERM");
    await agent.status;
    await Deno.remove(dir, { recursive: true });
  }
}

/** The CLI in the agent's folder, with $SSH_AUTH_SOCK. */
function cli(a: Agent, args: string[], env: Record<string, string> = a.env): Promise<CliResult> {
  return runCliProcess(args, { cwd: a.dir, env });
}

function assertOk(r: CliResult, what: string) {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
}

// ---------------------------------------------------------------------------------------------
// The oracle

/** schemapin-v1 canonical bytes by tests/oracle (a second parser and canonicalizer). */
function oracleBytes(value: unknown): Uint8Array {
  return enc(oracleSchemapinV1(oracleParse(enc(JSON.stringify(value)))));
}

/** OpenSSL: is `signature` (Base64 DER) ECDSA P-256 over SHA-256(message) by key.pem? */
async function opensslVerifies(a: Agent, message: Uint8Array, signature: string): Promise<boolean> {
  const work = await Deno.makeTempDir({ dir: a.dir, prefix: "oracle-" });
  try {
    await Deno.writeFile(`${work}/message`, message);
    await Deno.writeFile(
      `${work}/signature`,
      Uint8Array.from(atob(signature), (c) => c.charCodeAt(0)),
    );
    const r = await run("openssl", [
      "dgst",
      "-sha256",
      "-verify",
      `${a.dir}/key.pem`,
      "-signature",
      `${work}/signature`,
      `${work}/message`,
    ]);
    return r.code === 0 && r.stdout.includes("Verified OK");
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/** The oracle's verdict on a signature document: its canonical form with `signature: ""`. */
async function oracleVerifiesDocument(
  a: Agent,
  document: { signature?: string },
): Promise<boolean> {
  return await opensslVerifies(a, oracleBytes({ ...document, signature: "" }), document.signature!);
}

function lowS(signature: string): boolean {
  return derScalars(Uint8Array.from(atob(signature), (c) => c.charCodeAt(0))).s <= N / 2n;
}

/** The P-256 key's schemapin fingerprint (from OpenSSH's PEM export). */
async function fingerprint(a: Agent): Promise<string> {
  return parsePublicKeyPem(await Deno.readTextFile(`${a.dir}/key.pem`)).fingerprint;
}

async function writeDiscovery(a: Agent): Promise<string> {
  const path = `${a.dir}/schemapin.json`;
  const publicKey = parsePublicKeyPem(await Deno.readTextFile(`${a.dir}/key.pem`));
  await Deno.writeTextFile(
    path,
    JSON.stringify(buildDiscoveryDocument({ publicKey, developerName: "Agent CLI Test" })),
  );
  return path;
}

const SCHEMA = {
  name: "calculate_sum",
  description: "Calculates the sum",
  parameters: { b: "integer", a: "integer" },
};

// ---------------------------------------------------------------------------------------------
// Every signing command through the agent

Deno.test({
  name: "sign-schema --key ssh-agent:key.pub: a bare signature verify-schema and the oracle accept",
  ignore: noTools,
  async fn() {
    await withAgent(async (a) => {
      await Deno.writeTextFile(`${a.dir}/tool.json`, JSON.stringify(SCHEMA));
      const r = await cli(a, ["sign-schema", "tool.json", "--key", "ssh-agent:key.pub"]);
      assertOk(r, "sign-schema");
      const signature = r.stdout.trim();
      assert.ok(lowS(signature));
      await Deno.writeTextFile(`${a.dir}/tool.json.sig`, r.stdout);
      const v = await cli(a, [
        ...["verify-schema", "tool.json", "--signature", "tool.json.sig"],
        ...["--public-key", "key.pem", "--domain", DOMAIN],
      ]);
      assertOk(v, "verify-schema");
      // Oracle: §4.1's message is SHA-256(canonical); OpenSSL hashes it once more.
      const message = createHash("sha256").update(oracleBytes(SCHEMA)).digest();
      assert.equal(await opensslVerifies(a, message, signature), true);
      assert.equal(await opensslVerifies(a, oracleBytes(SCHEMA), signature), false);
      // The same key as a PEM public key names the same agent key.
      const again = await cli(a, ["sign-schema", "tool.json", "--key", "ssh-agent:key.pem"]);
      assertOk(again, "sign-schema with key.pem");
      assert.equal(await opensslVerifies(a, message, again.stdout.trim()), true);
    });
  },
});

Deno.test({
  name: "sign-schema --key ssh-agent: a 1.4 document (--out) and a batch on the main thread",
  ignore: noTools,
  async fn() {
    await withAgent(async (a) => {
      await Deno.writeTextFile(`${a.dir}/tool.json`, JSON.stringify(SCHEMA));
      const r = await cli(a, [
        ...["sign-schema", "tool.json", "--key", "ssh-agent:key.pub", "--format", "document"],
        ...["--domain", DOMAIN, "--schema-version", "1.2.0", "--out", "tool.json.sig", "--json"],
      ]);
      assertOk(r, "sign-schema --format document");
      const document = JSON.parse(await Deno.readTextFile(`${a.dir}/tool.json.sig`));
      assert.deepEqual(JSON.parse(r.stdout).document, document);
      assert.equal(
        document.schema_hash,
        "sha256:" + createHash("sha256").update(oracleBytes(SCHEMA)).digest("hex"),
      );
      assert.equal(await oracleVerifiesDocument(a, document), true);
      assert.equal(await oracleVerifiesDocument(a, { ...document, domain: "evil.example" }), false);
      const v = await cli(a, [
        ...["verify-schema", "tool.json", "--signature", "tool.json.sig"],
        ...["--public-key", "key.pem", "--domain", DOMAIN],
      ]);
      assertOk(v, "verify-schema");

      // A batch: SCHEMAPIN_BATCH_THREADS would put it on worker threads; with an agent key it
      // runs here, and says so.
      await Deno.mkdir(`${a.dir}/schemas`);
      for (let i = 0; i < 5; i++) {
        await Deno.writeTextFile(
          `${a.dir}/schemas/t${i}.json`,
          JSON.stringify({ ...SCHEMA, name: `tool_${i}` }),
        );
      }
      const b = await cli(a, [
        ...["sign-schema", "--batch", "schemas", "--out-dir", "sigs"],
        ...["--key", "ssh-agent:key.pub"],
      ], { ...a.env, SCHEMAPIN_BATCH_THREADS: "2" });
      assertOk(b, "sign-schema --batch");
      assert.match(b.stderr, /signs on the main thread; SCHEMAPIN_BATCH_THREADS is not used/);
      assert.match(b.stdout, /5 of 5 schema\(s\) signed/);
      for (let i = 0; i < 5; i++) {
        const schema = { ...SCHEMA, name: `tool_${i}` };
        const signature = (await Deno.readTextFile(`${a.dir}/sigs/t${i}.json.sig`)).trim();
        const message = createHash("sha256").update(oracleBytes(schema)).digest();
        assert.equal(await opensslVerifies(a, message, signature), true, `t${i}`);
      }
      const vb = await cli(a, [
        ...["verify-schema", "--batch", "schemas", "--signature-dir", "sigs"],
        ...["--domain", DOMAIN, "--discovery", await writeDiscovery(a)],
        ...["--pin-store", "pins.json", "--trust-first-use"],
      ]);
      assertOk(vb, "verify-schema --batch");
    });
  },
});

Deno.test({
  name: "sign-skill --key ssh-agent:key.pub: verify-skill and the oracle accept .schemapin.sig",
  ignore: noTools,
  async fn() {
    await withAgent(async (a) => {
      const skill = `${a.dir}/pdf-tools`;
      await Deno.mkdir(skill);
      await Deno.writeTextFile(`${skill}/SKILL.md`, "---\nname: pdf-tools\n---\n# PDF tools\n");
      await Deno.writeTextFile(`${skill}/run.py`, "print('hi')\n");
      const r = await cli(a, [
        ...["sign-skill", "pdf-tools", "--key", "ssh-agent:key.pub", "--domain", DOMAIN],
        ...["--schema-version", "2.1.0", "-q"],
      ]);
      assertOk(r, "sign-skill");
      const document = JSON.parse(await Deno.readTextFile(`${skill}/.schemapin.sig`));
      assert.equal(document.signer_kid, await fingerprint(a));
      assert.ok(lowS(document.signature));
      assert.equal(await oracleVerifiesDocument(a, document), true);
      const v = await cli(a, [
        ...["verify-skill", "pdf-tools", "--domain", DOMAIN, "--public-key", "key.pem"],
      ]);
      assertOk(v, "verify-skill");
      // A changed file no longer verifies (the signature covers the manifest).
      await Deno.writeTextFile(`${skill}/run.py`, "print('bye')\n");
      const changed = await cli(a, [
        ...["verify-skill", "pdf-tools", "--domain", DOMAIN, "--public-key", "key.pem"],
      ]);
      assert.equal(changed.code, 1, changed.stderr);
    });
  },
});

Deno.test({
  name: "contract sign --key ssh-agent:key.pub: contract verify --require-signed-lock accepts it",
  ignore: noTools,
  async fn() {
    await withAgent(async (a) => {
      await writeTools(`${a.dir}/tools.json`, baseTools());
      const lock = `${a.dir}/contractpin.lock`;
      const init = await runInProcess([
        ...["contract", "init", "--lock", lock, "--file", `dump=${a.dir}/tools.json`],
        "--no-snapshot",
      ]);
      assert.equal(init.code, 0, init.stderr);
      const r = await cli(a, [
        ...["contract", "sign", "--lock", "contractpin.lock", "--key", "ssh-agent:key.pub"],
        ...["--domain", DOMAIN, "--json"],
      ]);
      assertOk(r, "contract sign");
      assert.equal(JSON.parse(r.stdout).key_fingerprint, await fingerprint(a));
      const document = JSON.parse(await Deno.readTextFile(`${lock}.sig`));
      assert.equal(await oracleVerifiesDocument(a, document), true);
      const v = await cli(a, [
        ...["contract", "verify", "--lock", "contractpin.lock", "--require-signed-lock"],
        ...["--domain", DOMAIN, "--public-key", "key.pem"],
      ]);
      assertOk(v, "contract verify --require-signed-lock");
      assert.match(v.stdout, /lock signature: ok/);
    });
  },
});

Deno.test({
  name: "bundle sign --key ssh-agent:key.pub: bundle verify --public-key accepts it",
  ignore: noTools,
  async fn() {
    await withAgent(async (a) => {
      const discovery = await writeDiscovery(a);
      const create = await cli(a, [
        ...["bundle", "create", "--out", "bundle.json", "--discovery", `${DOMAIN}=${discovery}`],
      ]);
      assertOk(create, "bundle create");
      const r = await cli(a, [
        ...["bundle", "sign", "bundle.json", "--key", "ssh-agent:key.pub"],
        ...["--kid", "agent-2026", "--expires-in", "30d", "--json"],
      ]);
      assertOk(r, "bundle sign");
      assert.equal(JSON.parse(r.stdout).fingerprint, await fingerprint(a));
      const bundle = JSON.parse(await Deno.readTextFile(`${a.dir}/bundle.json`));
      assert.equal(await oracleVerifiesDocument(a, bundle), true);
      const v = await cli(a, ["bundle", "verify", "bundle.json", "--public-key", "key.pem"]);
      assertOk(v, "bundle verify");
      const fp = await fingerprint(a);
      const v2 = await cli(a, [
        "bundle",
        "verify",
        "bundle.json",
        "--authority",
        `agent-2026=${fp}`,
      ]);
      assertOk(v2, "bundle verify --authority");
    });
  },
});

Deno.test({
  name: "sign-tools --key ssh-agent:key.pub: every tool's signature checks (guard's check, oracle)",
  ignore: noTools,
  async fn() {
    await withAgent(async (a) => {
      await writeTools(`${a.dir}/tools.json`, baseTools());
      const r = await cli(a, [
        ...["sign-tools", "--key", "ssh-agent:key.pub", "--domain", DOMAIN],
        ...["--file", "tools.json", "--out", "tools.signed.json"],
      ]);
      assertOk(r, "sign-tools");
      assert.match(r.stderr, new RegExp(`with key ${await fingerprint(a)}`));
      const signed = JSON.parse(await Deno.readTextFile(`${a.dir}/tools.signed.json`));
      assert.equal(signed.tools.length, baseTools().length);
      const publicKey = parsePublicKeyPem(await Deno.readTextFile(`${a.dir}/key.pem`));
      const discovery = buildDiscoveryDocument({ publicKey, developerName: "Agent CLI Test" });
      const pins = new MemoryPinStore();
      for (const tool of signed.tools) {
        // What `guard --signatures` runs on each tool.
        const check = await verifyToolSignature(tool, {
          domain: DOMAIN,
          discovery,
          pinStore: pins,
          trustFirstUse: true,
        });
        assert.equal(check.status, "valid", JSON.stringify(check));
        assert.equal(
          await oracleVerifiesDocument(a, tool._meta["dev.schemapin/signature"]),
          true,
          tool.name,
        );
      }
    });
  },
});

// ---------------------------------------------------------------------------------------------
// Refusals: exit 2, the --key value named, nothing written

async function refused(
  a: Agent,
  args: string[],
  env: Record<string, string>,
  message: RegExp,
): Promise<void> {
  await Deno.writeTextFile(`${a.dir}/tool.json`, JSON.stringify(SCHEMA));
  const r = await cli(a, ["sign-schema", "tool.json", ...args, "--out", "out.sig"], env);
  assert.equal(r.code, 2, `${args.join(" ")}: exit ${r.code}\n${r.stderr}`);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, message);
  assert.equal(await exists(`${a.dir}/out.sig`), false, "nothing written");
}

Deno.test({
  name: "--key ssh-agent: no agent, key not loaded, Ed25519, --passphrase-file, missing PUBFILE",
  ignore: noTools,
  async fn() {
    await withAgent(async (a) => {
      const agentKey = ["--key", "ssh-agent:key.pub"];
      // No agent: $SSH_AUTH_SOCK unset (empty), or naming a socket that is gone.
      await refused(
        a,
        agentKey,
        { SSH_AUTH_SOCK: "" },
        /^error: IO_FAILED: --key ssh-agent:key\.pub: no SSH agent: \$SSH_AUTH_SOCK is not set/m,
      );
      await refused(
        a,
        agentKey,
        { SSH_AUTH_SOCK: `${a.dir}/gone.sock` },
        /--key ssh-agent:key\.pub: no SSH agent: .*gone\.sock does not exist/,
      );
      // A key the agent does not hold: both fingerprints named.
      await refused(
        a,
        ["--key", "ssh-agent:unloaded.pub"],
        a.env,
        /--key ssh-agent:unloaded\.pub: the SSH agent at .* does not hold the key sha256:[0-9a-f]{64} \(SHA256:/,
      );
      // Not a P-256 key.
      await refused(
        a,
        ["--key", "ssh-agent:ed25519.pub"],
        a.env,
        /--key ssh-agent:ed25519\.pub: .*ssh-ed25519/,
      );
      // The agent holds the key: there is no passphrase to give.
      await Deno.writeTextFile(`${a.dir}/pass.txt`, "secret\n");
      await refused(
        a,
        [...agentKey, "--passphrase-file", "pass.txt"],
        a.env,
        /--passphrase-file does not go with --key ssh-agent:key\.pub/,
      );
      // A PUBFILE that is not there, or not given.
      await refused(
        a,
        ["--key", "ssh-agent:missing.pub"],
        a.env,
        /--key ssh-agent:missing\.pub: .*missing\.pub/,
      );
      await refused(a, ["--key", "ssh-agent:"], a.env, /--key ssh-agent:: give the key's public/);
      // A private key given as PUBFILE: its public half is wanted.
      await Deno.writeTextFile(
        `${a.dir}/private.pem`,
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
      );
      await refused(
        a,
        ["--key", "ssh-agent:private.pem"],
        a.env,
        /--key ssh-agent:private\.pem: .*a private key was given where its public key was expected/,
      );

      // The other commands fail the same way, writing nothing.
      const skill = `${a.dir}/skill`;
      await Deno.mkdir(skill);
      await Deno.writeTextFile(`${skill}/SKILL.md`, "# s\n");
      const s = await cli(a, [
        ...["sign-skill", "skill", "--key", "ssh-agent:unloaded.pub", "--domain", DOMAIN],
      ]);
      assert.equal(s.code, 2, s.stderr);
      assert.match(s.stderr, /--key ssh-agent:unloaded\.pub: .*does not hold the key/);
      assert.equal(await exists(`${skill}/.schemapin.sig`), false);
      const j = await cli(a, [
        ...["sign-schema", "tool.json", "--key", "ssh-agent:unloaded.pub", "--json"],
      ]);
      assert.equal(j.code, 2, j.stderr);
      const error = JSON.parse(j.stdout).error;
      assert.equal(error.code, "IO_FAILED");
      assert.match(error.message, /^--key ssh-agent:unloaded\.pub: /);
    });
  },
});

// ---------------------------------------------------------------------------------------------
// An agent that refuses (a confirmation declined, a key not touched): a fake agent, since
// OpenSSH's own cannot be made to refuse after it has signed

/** A fake agent holding `key` that signs the first `signs` requests and then refuses. */
function refusingAgent(key: ReturnType<typeof generateKeyPair>, signs: number) {
  const blob = p256Blob(key.publicKey.point);
  let signed = 0;
  return (type: number, contents: Uint8Array): FakeAnswer => {
    if (type === 11) return message(12, cat(u32(1), str(blob), str("fake")));
    if (type !== 13 || signed >= signs) return message(5); // SSH_AGENT_FAILURE
    signed++;
    const view = new DataView(contents.buffer, contents.byteOffset, contents.length);
    const blobLength = view.getUint32(0);
    const dataLength = view.getUint32(4 + blobLength);
    const data = contents.subarray(8 + blobLength, 8 + blobLength + dataLength);
    const { r, s } = derScalars(signDigest(sha256(data), key));
    return message(14, str(cat(str("ecdsa-sha2-nistp256"), str(cat(mpint(r), mpint(s))))));
  };
}

Deno.test("--key ssh-agent: an agent that refuses to sign: exit 2 naming the --key value, nothing written; a batch stops", async () => {
  const key = generateKeyPair();
  const dir = await Deno.makeTempDir({ prefix: "schemapin-agent-refuses-" });
  try {
    await Deno.writeTextFile(
      `${dir}/fake.pub`,
      keyLine("ecdsa-sha2-nistp256", p256Blob(key.publicKey.point)),
    );
    await Deno.writeTextFile(`${dir}/private.pem`, privateKeyToPem(key));
    const skill = `${dir}/skill`;
    await Deno.mkdir(skill);
    await Deno.writeTextFile(`${skill}/SKILL.md`, "# s\n");
    await withFakeAgent(refusingAgent(key, 0), async (socket) => {
      const r = await runCliProcess(
        ["sign-skill", "skill", "--key", "ssh-agent:fake.pub", "--domain", DOMAIN],
        { cwd: dir, env: { SSH_AUTH_SOCK: socket } },
      );
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /^error: IO_FAILED: --key ssh-agent:fake\.pub: the SSH agent at .* refused to sign/m,
      );
      assert.equal(await exists(`${skill}/.schemapin.sig`), false);
    });

    // A batch: two schemas signed, then the agent refuses: the batch stops there (exit 2)
    // rather than failing every schema left; a signature it committed before is kept, as the file key
    // would have made it.
    await Deno.mkdir(`${dir}/schemas`);
    for (let i = 0; i < 5; i++) {
      await Deno.writeTextFile(`${dir}/schemas/t${i}.json`, JSON.stringify({ name: `t${i}` }));
    }
    await withFakeAgent(refusingAgent(key, 2), async (socket) => {
      const r = await runCliProcess(
        ["sign-schema", "--batch", "schemas", "--out-dir", "sigs", "--key", "ssh-agent:fake.pub"],
        { cwd: dir, env: { SSH_AUTH_SOCK: socket } },
      );
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--key ssh-agent:fake\.pub: the SSH agent at .* refused to sign/);
      assert.equal((r.stderr.match(/refused to sign/g) ?? []).length, 1, r.stderr);
    });
    // The same key from its file makes the same bytes the agent made (RFC 6979, low-S).
    const files = await Array.fromAsync(Deno.readDir(`${dir}/sigs`)).catch(() => []);
    for (const f of files.filter((f) => f.name.endsWith(".sig"))) {
      const name = f.name.replace(/\.sig$/, "");
      const fromFile = await runInProcess([
        "sign-schema",
        `${dir}/schemas/${name}`,
        "--key",
        `${dir}/private.pem`,
      ]);
      assert.equal(await Deno.readTextFile(`${dir}/sigs/${f.name}`), fromFile.stdout, f.name);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---------------------------------------------------------------------------------------------
// The release signing script

Deno.test({
  name: "scripts/release_sign.ts --key ssh-agent:key.pub: SHA256SUMS.sig verified as users do",
  ignore: noTools,
  async fn() {
    await withAgent(async (a) => {
      await Deno.mkdir(`${a.dir}/release`);
      const sums = "0".repeat(64) + "  schemapin-x86_64-unknown-linux-gnu.tar.xz\n";
      await Deno.writeTextFile(`${a.dir}/release/SHA256SUMS`, sums);
      const script = new URL("../../scripts/release_sign.ts", import.meta.url).pathname;
      const r = await run(
        Deno.execPath(),
        [
          ...["run", "--quiet", "--allow-read", "--allow-write", "--allow-run", "--allow-env"],
          script,
          ...["--dir", "release", "--key", "ssh-agent:key.pub", "--public-key", "key.pem"],
          ...["--version", "v9.9.9-test"],
        ],
        { ...a.env, NO_COLOR: "1" },
        a.dir,
      );
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /wrote release\/SHA256SUMS\.sig/);
      const document = JSON.parse(await Deno.readTextFile(`${a.dir}/release/SHA256SUMS.sig`));
      assert.equal(document.schema_version, "9.9.9-test");
      assert.equal(await oracleVerifiesDocument(a, document), true);
      assert.deepEqual(Object.keys(document.file_manifest), ["SHA256SUMS"]);

      // No agent: exit 2 with the CLI's message, no signature left.
      await Deno.remove(`${a.dir}/release/SHA256SUMS.sig`);
      const none = await run(
        Deno.execPath(),
        [
          ...["run", "--quiet", "--allow-read", "--allow-write", "--allow-run", "--allow-env"],
          script,
          ...["--dir", "release", "--key", "ssh-agent:key.pub", "--public-key", "key.pem"],
          ...["--version", "v9.9.9-test"],
        ],
        { SSH_AUTH_SOCK: "", NO_COLOR: "1" },
        a.dir,
      );
      assert.equal(none.code, 2, none.stdout + none.stderr);
      assert.match(none.stderr, /--key ssh-agent:key\.pub: no SSH agent/);
      assert.equal(await exists(`${a.dir}/release/SHA256SUMS.sig`), false);
    });
  },
});
