// Signing through OpenSSH's own ssh-agent (issue 27 item 2): a real `ssh-agent -D` on a
// temporary socket, keys made by `ssh-keygen` and loaded with `ssh-add`. Every kind of
// SchemaPin signature is made by the agent and checked twice: by our verifiers (the §15.1
// flows) and by an independent oracle — the canonical bytes from tests/oracle/ (no lib/ code),
// SHA-256 from node:crypto, and `openssl dgst -sha256 -verify` with the public key as
// `ssh-keygen -e -m PKCS8` exports it. And the refusals: a key not loaded, Ed25519, RSA,
// P-384 and P-521 keys, a confirm-constrained key the agent will not use, a request larger
// than the agent accepts.
//
// Needs ssh-agent, ssh-add and ssh-keygen (openssh-client; .ci/run installs it) and openssl.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { MemoryBundleAuthorityStore, seedBundleAuthority } from "../../lib/bundle/authority.ts";
import { createTrustBundle } from "../../lib/bundle/bundle.ts";
import { signTrustBundleWithSigner } from "../../lib/bundle/sign.ts";
import { verifyTrustBundle } from "../../lib/bundle/verify.ts";
import { signLockWithSigner, verifyLockSignature } from "../../cli/contractpin/lock_signature.ts";
import { verifySchemaSignature } from "../../lib/crypto/ecdsa.ts";
import type { PublicKey } from "../../lib/crypto/key_types.ts";
import { parsePublicKeyPem } from "../../lib/crypto/keys.ts";
import {
  signDocumentWithSigner,
  type Signer,
  signSchemaWithSigner,
} from "../../lib/crypto/signer.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { signToolListWithSigner, verifyToolSignature } from "../../lib/guard/signatures.ts";
import { canonicalizeSchemapinV1Bytes } from "../../lib/json/canonical_schemapin.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { signSchemaDocumentWithSigner } from "../../lib/schema/document.ts";
import { verifySchemaOffline } from "../../lib/schema/verify.ts";
import { signSkillDirWithSigner } from "../../lib/skill/sign.ts";
import { verifySkillOffline } from "../../lib/skill/verify.ts";
import { sshAgentSigner } from "../../cli/ssh_agent/client.ts";
import { parseSshPublicKey } from "../../cli/ssh_agent/public_key.ts";
import { buildLock, lockServerEntry, serializeLock } from "../../lib/contractpin/lock.ts";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import { oracleSchemapinV1 } from "../oracle/canonical.ts";
import { oracleParse } from "../oracle/json.ts";
import { childCommand } from "../process.ts";
import { ok, onPath, run } from "./openssh.ts";
import { ignoreWithout } from "../required_tool.ts";
import { derScalars, enc, N } from "./helpers.ts";

const DOMAIN = "example.com";

const installedBy = ".ci/run (apt-get install openssh-client)";
const noOpenSsh = [
  ignoreWithout("ssh-agent", onPath("ssh-agent"), installedBy),
  ignoreWithout("ssh-add", onPath("ssh-add"), installedBy),
  ignoreWithout("ssh-keygen", onPath("ssh-keygen"), installedBy),
].some((ignored) => ignored);

// ---------------------------------------------------------------------------------------------
// Keys, made once by ssh-keygen (no passphrase: ssh-add loads them without a prompt)

const KEYS = noOpenSsh ? "" : await Deno.makeTempDir({ prefix: "schemapin-ssh-keys-" });
if (!noOpenSsh) {
  globalThis.addEventListener("unload", () => {
    try {
      Deno.removeSync(KEYS, { recursive: true });
    } catch { /* gone */ }
  });
  const make = (name: string, ...type: string[]) =>
    ok("ssh-keygen", ["-q", ...type, "-N", "", "-C", `${name}@schemapin-test`, "-f", key(name)]);
  await Promise.all([
    make("p256", "-t", "ecdsa", "-b", "256"),
    make("unloaded", "-t", "ecdsa", "-b", "256"),
    make("confirm", "-t", "ecdsa", "-b", "256"),
    make("p384", "-t", "ecdsa", "-b", "384"),
    make("p521", "-t", "ecdsa", "-b", "521"),
    make("ed25519", "-t", "ed25519"),
    make("rsa", "-t", "rsa", "-b", "2048"),
  ]);
  // The public key as OpenSSH itself exports it (PKCS #8 = SubjectPublicKeyInfo PEM).
  await Deno.writeTextFile(
    `${KEYS}/p256.pem`,
    await ok("ssh-keygen", ["-e", "-m", "PKCS8", "-f", key("p256") + ".pub"]),
  );
  // A program that declines every confirmation (ssh-add -c): the agent asks it, it says no.
  await Deno.writeTextFile(`${KEYS}/askpass`, "#!/bin/sh\nexit 1\n", { mode: 0o755 });
}

function key(name: string): string {
  return `${KEYS}/${name}`;
}
const pub = (name: string) => Deno.readTextFileSync(key(name) + ".pub");

/** Runs `fn` with a fresh `ssh-agent -D` holding `add` (and `confirm`, added with -c). */
async function withAgent(
  fn: (socket: string) => Promise<void>,
  add: string[] = ["p256", "p384", "p521", "ed25519", "rsa"],
  confirm: string[] = [],
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-ssh-agent-" });
  const socket = `${dir}/agent.sock`;
  const agent = childCommand("ssh-agent", {
    args: ["-D", "-a", socket],
    env: { SSH_ASKPASS: `${KEYS}/askpass`, SSH_ASKPASS_REQUIRE: "force", DISPLAY: ":none" },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (let i = 0; !(await Deno.lstat(socket).then(() => true, () => false)); i++) {
      if (i > 200) throw new Error("ssh-agent did not create its socket in 10 s");
      await new Promise((r) => setTimeout(r, 50));
    }
    const env = { SSH_AUTH_SOCK: socket };
    for (const name of add) await ok("ssh-add", ["-q", key(name)], env);
    for (const name of confirm) await ok("ssh-add", ["-q", "-c", key(name)], env);
    await fn(socket);
  } finally {
    agent.kill("SIGTERM");
    await agent.status;
    await Deno.remove(dir, { recursive: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The oracle

/** schemapin-v1 canonical bytes by tests/oracle (a second parser and canonicalizer). */
function oracleBytes(value: unknown): Uint8Array {
  return enc(oracleSchemapinV1(oracleParse(enc(JSON.stringify(value)))));
}

/** OpenSSL: is `signature` (Base64 DER) ECDSA P-256 over SHA-256(message) by OpenSSH's export of p256? */
async function opensslVerifies(message: Uint8Array, signature: string): Promise<boolean> {
  await Deno.writeFile(`${KEYS}/message`, message);
  await Deno.writeFile(
    `${KEYS}/signature`,
    Uint8Array.from(atob(signature), (c) => c.charCodeAt(0)),
  );
  const r = await run("openssl", [
    "dgst",
    "-sha256",
    "-verify",
    `${KEYS}/p256.pem`,
    "-signature",
    `${KEYS}/signature`,
    `${KEYS}/message`,
  ]);
  return r.code === 0 && r.stdout.includes("Verified OK");
}

/** The oracle's verdict on a signature document: its canonical form with `signature: ""`. */
async function oracleVerifiesDocument(document: { signature?: string }): Promise<boolean> {
  return await opensslVerifies(oracleBytes({ ...document, signature: "" }), document.signature!);
}

function lowS(signature: string): boolean {
  return derScalars(Uint8Array.from(atob(signature), (c) => c.charCodeAt(0))).s <= N / 2n;
}

async function p256Signer(socket: string): Promise<Signer> {
  return await sshAgentSigner(pub("p256"), { socket, source: "p256.pub" });
}

function discoveryFor(publicKey: PublicKey) {
  return buildDiscoveryDocument({ publicKey, developerName: "Agent Test" });
}

// ---------------------------------------------------------------------------------------------
// Keys as ssh-keygen writes them

Deno.test({
  name: "ssh-keygen's .pub: the key OpenSSH exports as PKCS #8, OpenSSH's own SHA256 fingerprint",
  ignore: noOpenSsh,
  async fn() {
    const parsed = parseSshPublicKey(pub("p256"), "p256.pub");
    const pem = parsePublicKeyPem(await Deno.readTextFile(`${KEYS}/p256.pem`));
    assert.equal(parsed.publicKey.fingerprint, pem.fingerprint);
    assert.equal(parsed.comment, "p256@schemapin-test");
    const listed = await ok("ssh-keygen", ["-l", "-E", "sha256", "-f", key("p256") + ".pub"]);
    assert.equal(listed.split(" ")[1], parsed.sshFingerprint);
    // The PEM export names the same agent key
    assert.deepEqual(parseSshPublicKey(pem.pem).keyBlob, parsed.keyBlob);
  },
});

// ---------------------------------------------------------------------------------------------
// Every kind of signature, made by the agent

Deno.test({
  name: "ssh-agent: a bare §4.1 schema signature — the agent is sent SHA-256(canonical)",
  ignore: noOpenSsh,
  async fn() {
    await withAgent(async (socket) => {
      const signer = await p256Signer(socket);
      const schema = {
        name: "calculate_sum",
        description: "Calculates the sum",
        parameters: { b: "integer", a: "integer" },
      };
      const canonical = canonicalizeSchemapinV1Bytes(schema);
      assert.deepEqual(canonical, oracleBytes(schema));
      const signature = await signSchemaWithSigner(canonical, signer);
      assert.ok(lowS(signature));
      assert.deepEqual(verifySchemaSignature(canonical, signature, signer.publicKey), {
        valid: true,
      });
      const pins = new MemoryPinStore();
      const flow = await verifySchemaOffline({
        schema,
        signature,
        toolId: "calculate_sum",
        domain: DOMAIN,
        discovery: discoveryFor(signer.publicKey),
        pinStore: pins,
        trustFirstUse: true,
      });
      assert.equal(flow.valid, true, flow.errorMessage);
      // Oracle: OpenSSL hashes its input once, so the input is SHA-256(canonical) — §4.1's
      // message — and the ECDSA digest is SHA-256(SHA-256(canonical)).
      const message = createHash("sha256").update(oracleBytes(schema)).digest();
      assert.equal(await opensslVerifies(message, signature), true);
      assert.equal(await opensslVerifies(oracleBytes(schema), signature), false);
      // Sending the canonical bytes themselves would be the single hash: rejected as a signer bug.
      const wrong = await signDocumentWithSigner(canonical, signer);
      const check = verifySchemaSignature(canonical, wrong, signer.publicKey);
      assert.equal(check.valid, false);
      assert.equal(!check.valid && check.reason, "single-hash");
    });
  },
});

Deno.test({
  name: "ssh-agent: a 1.4 schema signature document — the agent is sent the canonical document",
  ignore: noOpenSsh,
  async fn() {
    await withAgent(async (socket) => {
      const signer = await p256Signer(socket);
      const schema = { name: "add", description: "Adds two numbers", inputSchema: {} };
      const document = await signSchemaDocumentWithSigner(schema, signer, {
        domain: DOMAIN,
        schemaVersion: "1.0.0",
        expiresAt: Date.now() + 86_400_000,
      });
      assert.ok(lowS(document.signature));
      const flow = await verifySchemaOffline({
        schema,
        signature: document,
        toolId: "add",
        domain: DOMAIN,
        discovery: discoveryFor(signer.publicKey),
        pinStore: new MemoryPinStore(),
        trustFirstUse: true,
      });
      assert.equal(flow.valid, true, flow.errorMessage);
      assert.equal(
        document.schema_hash,
        "sha256:" + createHash("sha256").update(oracleBytes(schema)).digest("hex"),
      );
      assert.equal(await oracleVerifiesDocument(document), true);
      assert.equal(
        await oracleVerifiesDocument({ ...document, schema_version: "1.0.1" } as typeof document),
        false,
      );
    });
  },
});

Deno.test({
  name: "ssh-agent: a skill folder (§4b.5), a trust bundle (§21.3), a contract lock, a tool list",
  ignore: noOpenSsh,
  async fn() {
    await withAgent(async (socket) => {
      const signer = await p256Signer(socket);
      const discovery = discoveryFor(signer.publicKey);

      // Skill folder
      const dir = await Deno.makeTempDir({ prefix: "schemapin-agent-skill-" });
      try {
        await Deno.writeTextFile(`${dir}/SKILL.md`, "---\nname: pdf-tools\n---\n# PDF tools\n");
        await Deno.writeTextFile(`${dir}/run.py`, "print('hi')\n");
        const { document } = await signSkillDirWithSigner(dir, signer, { domain: DOMAIN });
        assert.equal(document.signer_kid, signer.publicKey.fingerprint);
        await Deno.writeTextFile(`${dir}/.schemapin.sig`, JSON.stringify(document));
        const flow = await verifySkillOffline({
          dir,
          domain: DOMAIN,
          discovery,
          pinStore: new MemoryPinStore(),
          trustFirstUse: true,
        });
        assert.equal(flow.valid, true, flow.errorMessage);
        assert.equal(await oracleVerifiesDocument(document), true);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }

      // Trust bundle
      const bundle = createTrustBundle("2026-01-01T00:00:00Z");
      const signed = await signTrustBundleWithSigner(
        bundle,
        signer,
        "agent-authority",
        new Date(),
      );
      const store = new MemoryBundleAuthorityStore();
      await seedBundleAuthority(store, "agent-authority", signer.publicKey.fingerprint);
      const verified = await verifyTrustBundle(signed, store);
      assert.equal(verified.valid, true, JSON.stringify(verified));
      assert.equal(await oracleVerifiesDocument(signed), true);

      // Contract lock
      const tools = [
        { name: "echo", description: "Echo back", inputSchema: { type: "object" } },
      ] as JsonValue[];
      const lock = JSON.parse(serializeLock(buildLock({
        srv: lockServerEntry(
          { transport: "stdio", command: ["node", "server.js"] },
          digestToolList(tools),
          [],
        ),
      }, new Date(Date.UTC(2026, 0, 1)))));
      const lockSig = await signLockWithSigner(lock, signer, { domain: DOMAIN });
      const lockFlow = await verifyLockSignature({
        lock,
        signature: lockSig,
        domain: DOMAIN,
        discovery,
        pinStore: new MemoryPinStore(),
        trustFirstUse: true,
      });
      assert.equal(lockFlow.valid, true, lockFlow.errorMessage);
      assert.equal(await oracleVerifiesDocument(lockSig), true);

      // Tool list (sign-tools)
      const list = await signToolListWithSigner(
        [...tools, { name: "add", description: "Add", inputSchema: { type: "object" } }],
        signer,
        { domain: DOMAIN },
      );
      const pins = new MemoryPinStore();
      for (const tool of list.tools) {
        const check = await verifyToolSignature(tool, {
          domain: DOMAIN,
          discovery,
          pinStore: pins,
          trustFirstUse: true,
        });
        assert.equal(check.status, "valid", JSON.stringify(check));
        const meta = tool._meta as Record<string, { signature: string }>;
        assert.equal(await oracleVerifiesDocument(meta["dev.schemapin/signature"]), true);
      }
    });
  },
});

Deno.test({
  name: "ssh-agent: the key given as OpenSSH's PEM export or as a PublicKey is the same agent key",
  ignore: noOpenSsh,
  async fn() {
    await withAgent(async (socket) => {
      const pem = await Deno.readTextFile(`${KEYS}/p256.pem`);
      const fromPem = await sshAgentSigner(pem, { socket });
      const fromKey = await sshAgentSigner(parsePublicKeyPem(pem), { socket });
      const canonical = enc('{"name":"t"}');
      for (const signer of [fromPem, fromKey]) {
        const signature = await signSchemaWithSigner(canonical, signer);
        assert.deepEqual(verifySchemaSignature(canonical, signature, signer.publicKey), {
          valid: true,
        });
      }
      // The agent's default socket is $SSH_AUTH_SOCK
      const saved = Deno.env.get("SSH_AUTH_SOCK");
      Deno.env.set("SSH_AUTH_SOCK", socket);
      try {
        const signer = await sshAgentSigner(pub("p256"));
        assert.equal(signer.description, `the SSH agent at ${socket}`);
      } finally {
        if (saved === undefined) Deno.env.delete("SSH_AUTH_SOCK");
        else Deno.env.set("SSH_AUTH_SOCK", saved);
      }
    });
  },
});

// ---------------------------------------------------------------------------------------------
// Refusals

async function rejects(
  promise: Promise<unknown>,
  code: string,
  pattern: RegExp,
  agent?: string,
): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof SchemaPinError, String(e));
    assert.equal(e.code, code, e.message);
    if (agent !== undefined) assert.equal(e.details.agent, agent, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}

Deno.test({
  name: "ssh-agent: a key the agent does not hold — both fingerprints, and what it holds",
  ignore: noOpenSsh,
  async fn() {
    await withAgent(async (socket) => {
      const unloaded = parseSshPublicKey(pub("unloaded"));
      await rejects(
        sshAgentSigner(pub("unloaded"), { socket, source: "unloaded.pub" }),
        "IO_FAILED",
        new RegExp(
          `does not hold the key ${unloaded.publicKey.fingerprint} \\(${
            unloaded.sshFingerprint.replace(/[+/]/g, "\\$&")
          }, unloaded\\.pub\\): add it with \`ssh-add\`.*it holds ecdsa-sha2-nistp256 SHA256:\\S+ \\(p256@schemapin-test\\)`,
        ),
        "not-loaded",
      );
    }, ["p256"]);
  },
});

Deno.test({
  name: "ssh-agent: Ed25519, RSA, P-384 and P-521 keys are refused naming the type, though loaded",
  ignore: noOpenSsh,
  async fn() {
    await withAgent(async (socket) => {
      for (
        const [name, words] of [
          ["ed25519", /an Ed25519 key \(ssh-ed25519\), not ECDSA P-256/],
          ["rsa", /an RSA key \(ssh-rsa\), not ECDSA P-256/],
          ["p384", /an ECDSA P-384 key \(ecdsa-sha2-nistp384\), not ECDSA P-256/],
          ["p521", /an ECDSA P-521 key \(ecdsa-sha2-nistp521\), not ECDSA P-256/],
        ] as const
      ) {
        await rejects(sshAgentSigner(pub(name), { socket }), "KEY_INVALID", words);
      }
    });
  },
});

Deno.test({
  name: "ssh-agent: a key added with ssh-add -c whose confirmation is declined — SSH_AGENT_FAILURE",
  ignore: noOpenSsh,
  async fn() {
    await withAgent(
      async (socket) => {
        // Listing works; the agent refuses when asked to sign (its askpass says no).
        const signer = await sshAgentSigner(pub("confirm"), { socket, source: "confirm.pub" });
        await rejects(
          signSchemaWithSigner(enc("{}"), signer),
          "IO_FAILED",
          /refused to sign with the key sha256:[0-9a-f]{64} \(SHA256:\S+, confirm\.pub\) \(SSH_AGENT_FAILURE\)/,
          "refused",
        );
      },
      ["p256"],
      ["confirm"],
    );
  },
});

Deno.test({
  name: "ssh-agent: a request over 256 KiB is dropped by OpenSSH's agent, and the error says why",
  ignore: noOpenSsh,
  async fn() {
    await withAgent(async (socket) => {
      const signer = await p256Signer(socket);
      const big = enc(JSON.stringify({ signature: "", pad: "x".repeat(300 * 1024) }));
      await assert.rejects(signDocumentWithSigner(big, signer), (e: unknown) => {
        assert.ok(e instanceof SchemaPinError, String(e));
        assert.equal(e.code, "IO_FAILED");
        assert.match(e.message, /OpenSSH's ssh-agent drops messages over 262144 bytes/);
        return true;
      });
      // A document just under the limit is signed.
      const under = enc(JSON.stringify({ signature: "", pad: "x".repeat(200 * 1024) }));
      const signature = await signDocumentWithSigner(under, signer);
      assert.equal(await opensslVerifies(under, signature), true);
    }, ["p256"]);
  },
});
