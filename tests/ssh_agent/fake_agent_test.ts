// The SSH agent client against a fake agent on a Unix socket (tests/ssh_agent/helpers.ts,
// written from draft-miller-ssh-agent and RFC 5656, no lib/ code): what it sends, and every
// kind of bad answer — a refusal, truncated and oversized messages, wrong types, malformed
// signatures, silence, a dropped connection — ends in a clear IO_FAILED, never a hang or a
// signature that does not verify. The real OpenSSH agent is in ssh_agent_test.ts.
import assert from "node:assert/strict";
import { p256 } from "@noble/curves/nist.js";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { signDigest, verifyDigest, verifySchemaSignature } from "../../lib/crypto/ecdsa.ts";
import { sha256 } from "../../lib/crypto/hash.ts";
import { signSchemaWithSigner } from "../../lib/crypto/signer.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { sshAgentSigner } from "../../cli/ssh_agent/client.ts";
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

const KEY = generateKeyPair();
const BLOB = p256Blob(KEY.publicKey.point);
const LINE = keyLine("ecdsa-sha2-nistp256", BLOB, "fake");

/** The agent's answer to REQUEST_IDENTITIES (11): our key and one Ed25519 key. */
function identities(): Uint8Array {
  const ed = cat(str("ssh-ed25519"), str(new Uint8Array(32)));
  return message(12, cat(u32(2), str(ed), str("an ed25519 key"), str(BLOB), str("fake")));
}

/** A correct signature over SHA-256(data) as the agent would make it, r and s given back. */
function sign(data: Uint8Array): { r: bigint; s: bigint } {
  return derScalars(signDigest(sha256(data), KEY));
}

function signResponse(r: bigint, s: bigint, type = "ecdsa-sha2-nistp256"): Uint8Array {
  return message(14, str(cat(str(type), str(cat(mpint(r), mpint(s))))));
}

/** A fake agent that lists our key and answers sign requests with `onSign`. */
function agent(onSign: (data: Uint8Array, contents: Uint8Array) => FakeAnswer) {
  return (type: number, contents: Uint8Array): FakeAnswer => {
    if (type === 11) return identities();
    if (type !== 13) return message(5);
    // string key blob, string data, uint32 flags
    const view = new DataView(contents.buffer, contents.byteOffset, contents.length);
    const blobLength = view.getUint32(0);
    const dataLength = view.getUint32(4 + blobLength);
    const data = contents.subarray(8 + blobLength, 8 + blobLength + dataLength);
    return onSign(data, contents);
  };
}

async function rejects(
  promise: Promise<unknown>,
  agent: string,
  pattern: RegExp,
  code = "IO_FAILED",
): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof SchemaPinError, String(e));
    assert.equal(e.code, code, e.message);
    assert.equal(e.details.agent, agent, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}

Deno.test("fake agent: the sign request names the agent's blob, carries the data, flags 0; low-S DER comes back", async () => {
  let seen: Uint8Array | undefined;
  await withFakeAgent(
    agent((data, contents) => {
      seen = contents.slice();
      const { r, s } = sign(data);
      return signResponse(r, s > N / 2n ? s : N - s); // high-S on purpose
    }),
    async (socket) => {
      const signer = await sshAgentSigner(LINE, { socket });
      assert.equal(signer.publicKey.fingerprint, KEY.publicKey.fingerprint);
      assert.equal(signer.description, `the SSH agent at ${socket}`);
      const data = enc("the data");
      const der = await signer.signMessage(data);
      assert.deepEqual([...seen!], [...cat(str(BLOB), str(data), u32(0))]);
      const { s } = derScalars(der);
      assert.ok(s <= N / 2n, "normalised to low-S");
      assert.deepEqual(verifyDigest(sha256(data), der, KEY.publicKey), { valid: true });
      // Through the signing entry point: §4.1 over SHA-256(SHA-256(canonical))
      const canonical = enc('{"name":"t"}');
      const signature = await signSchemaWithSigner(canonical, signer);
      assert.deepEqual(verifySchemaSignature(canonical, signature, KEY.publicKey), { valid: true });
      // The agent was sent SHA-256(canonical), 32 bytes
      const sentData = seen!.subarray(8 + BLOB.length, 8 + BLOB.length + 32);
      assert.deepEqual([...sentData], [...sha256(canonical)]);
    },
  );
});

Deno.test("fake agent: SSH_AGENT_FAILURE to a sign request (and the legacy codes 30, 102) is a refusal", async () => {
  for (const failure of [5, 30, 102]) {
    await withFakeAgent(agent(() => message(failure)), async (socket) => {
      const signer = await sshAgentSigner(LINE, { socket, source: "k.pub" });
      await rejects(
        signer.signMessage(enc("x")),
        "refused",
        new RegExp(
          `the SSH agent at .* refused to sign with the key ${KEY.publicKey.fingerprint} ` +
            `\\(SHA256:[A-Za-z0-9+/]+, k\\.pub\\).*ssh-add -c`,
        ),
      );
    });
  }
});

Deno.test("fake agent: a refused key list, and a key the agent does not hold (both fingerprints and what it holds)", async () => {
  await withFakeAgent(() => message(5), async (socket) => {
    await rejects(sshAgentSigner(LINE, { socket }), "refused", /refused to list its keys/);
  });
  const other = keyLine("ecdsa-sha2-nistp256", p256Blob(generateKeyPair().publicKey.point));
  await withFakeAgent(agent(() => "close"), async (socket) => {
    await rejects(
      sshAgentSigner(other, { socket, source: "other.pub" }),
      "not-loaded",
      /does not hold the key sha256:[0-9a-f]{64} \(SHA256:\S+, other\.pub\): add it with `ssh-add`.*it holds ssh-ed25519 SHA256:\S+ \(an ed25519 key\); ecdsa-sha2-nistp256 SHA256:\S+ \(fake\)/,
    );
  });
  await withFakeAgent(() => message(12, u32(0)), async (socket) => {
    await rejects(sshAgentSigner(LINE, { socket }), "not-loaded", /it holds no keys/);
  });
});

Deno.test("fake agent: malformed replies are IO_FAILED malformed-reply, naming what is wrong", async () => {
  const cases: [string, (data: Uint8Array) => FakeAnswer, RegExp][] = [
    [
      "truncated message",
      () => cat(u32(100), new Uint8Array([14, 0, 0])),
      /ends after 3 of its 100 bytes \(truncated\)/,
    ],
    ["header only", () => u32(100), /ends after its header \(truncated\)/],
    ["oversized length", () => cat(u32(0x7fffffff), new Uint8Array(16)), /2147483647 bytes/],
    ["just over the cap", () => u32(256 * 1024 + 1), /262145 bytes announced/],
    ["zero length", () => u32(0), /length 0/],
    ["another message type", () => message(99), /message type 99 in answer to the sign request/],
    [
      "a signature string longer than the message",
      () => message(14, cat(u32(500), new Uint8Array(10))),
      /signature: length 500 but only 10 bytes left/,
    ],
    [
      "trailing bytes after the signature",
      (d) => {
        const { r, s } = sign(d);
        const ok = signResponse(r, s);
        return message(14, cat(ok.subarray(5), new Uint8Array([0])));
      },
      /unexpected bytes/,
    ],
    [
      "a signature of another type",
      (d) => signResponse(sign(d).r, sign(d).s, "ssh-ed25519"),
      /a signature of type "ssh-ed25519"/,
    ],
    [
      "an mpint with a needless leading zero",
      (d) => {
        const { r, s } = sign(d);
        const padded = str(cat(new Uint8Array([0, 0]), mpint(r).subarray(4)));
        return message(14, str(cat(str("ecdsa-sha2-nistp256"), str(cat(padded, mpint(s))))));
      },
      /r has a needless leading zero byte/,
    ],
    [
      "a negative mpint",
      () =>
        message(
          14,
          str(cat(str("ecdsa-sha2-nistp256"), str(cat(str(new Uint8Array([0x80])), mpint(1n))))),
        ),
      /r is negative/,
    ],
    ["r = 0", () => signResponse(0n, 1n), /r or s is not in 1 … n − 1/],
    ["s = n", () => signResponse(1n, N), /r or s is not in 1 … n − 1/],
  ];
  for (const [name, answer, pattern] of cases) {
    await withFakeAgent(agent(answer), async (socket) => {
      const signer = await sshAgentSigner(LINE, { socket });
      await rejects(signer.signMessage(enc("data")), "malformed-reply", pattern).catch((e) => {
        throw new Error(`${name}: ${e.message}`);
      });
    });
  }
  // A malformed key list: more keys announced than could fit
  await withFakeAgent(() => message(12, cat(u32(1000), new Uint8Array(16))), async (socket) => {
    await rejects(sshAgentSigner(LINE, { socket }), "malformed-reply", /1000 keys announced/);
  });
});

Deno.test("fake agent: silence is a timeout, a dropped connection says so", async () => {
  await withFakeAgent(agent(() => "hang"), async (socket) => {
    const signer = await sshAgentSigner(LINE, { socket, timeoutMs: 200 });
    const started = Date.now();
    await rejects(
      signer.signMessage(enc("x")),
      "timeout",
      /did not answer the sign request within 0\.2 s/,
    );
    assert.ok(Date.now() - started < 5000);
  });
  await withFakeAgent(() => "hang", async (socket) => {
    await rejects(
      sshAgentSigner(LINE, { socket, timeoutMs: 200 }),
      "timeout",
      /did not answer the request for its keys/,
    );
  });
  await withFakeAgent(agent(() => "close"), async (socket) => {
    const signer = await sshAgentSigner(LINE, { socket });
    await rejects(
      signer.signMessage(enc("x")),
      "closed",
      /closed the connection without answering the sign request$/,
    );
  });
});

Deno.test("fake agent: a signature by another key, or over other data, is caught before it is used", async () => {
  const other = generateKeyPair();
  await withFakeAgent(
    agent((data) => {
      const { r, s } = derScalars(signDigest(sha256(data), other));
      return signResponse(r, s);
    }),
    async (socket) => {
      const signer = await sshAgentSigner(LINE, { socket });
      await assert.rejects(signSchemaWithSigner(enc("{}"), signer), (e: unknown) => {
        assert.ok(e instanceof SchemaPinError);
        assert.equal(e.code, "KEY_INVALID");
        assert.match(e.message, /does not verify under its public key sha256:/);
        return true;
      });
    },
  );
});

Deno.test("no agent: $SSH_AUTH_SOCK unset, a socket that does not exist, nothing listening", async () => {
  const saved = Deno.env.get("SSH_AUTH_SOCK");
  try {
    Deno.env.delete("SSH_AUTH_SOCK");
    await rejects(
      sshAgentSigner(LINE),
      "unavailable",
      /no SSH agent: \$SSH_AUTH_SOCK is not set; start one with `eval "\$\(ssh-agent\)"`/,
    );
    Deno.env.set("SSH_AUTH_SOCK", "");
    await rejects(sshAgentSigner(LINE), "unavailable", /\$SSH_AUTH_SOCK is not set/);
    const dir = await Deno.makeTempDir({ prefix: "schemapin-no-agent-" });
    try {
      Deno.env.set("SSH_AUTH_SOCK", `${dir}/gone.sock`);
      await rejects(sshAgentSigner(LINE), "unavailable", /gone\.sock does not exist/);
      // A socket file nobody listens on any more (a hard link keeps it after the listener
      // closes and removes its own name)
      const live = `${dir}/live.sock`;
      const dead = `${dir}/dead.sock`;
      const listener = Deno.listen({ transport: "unix", path: live });
      Deno.linkSync(live, dead);
      listener.close();
      await rejects(
        sshAgentSigner(LINE, { socket: dead }),
        "unavailable",
        /nothing is listening at .*dead\.sock \(the agent has exited\)/,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  } finally {
    if (saved === undefined) Deno.env.delete("SSH_AUTH_SOCK");
    else Deno.env.set("SSH_AUTH_SOCK", saved);
  }
});

Deno.test("sshAgentSigner: misuse is INPUT_INVALID; a non-P-256 key is KEY_INVALID before the agent is asked", async () => {
  for (const bad of [undefined, null, 42, {}]) {
    await assert.rejects(sshAgentSigner(bad as unknown as string), (e: unknown) => {
      assert.ok(e instanceof SchemaPinError);
      assert.equal(e.code, "INPUT_INVALID");
      return true;
    });
  }
  await assert.rejects(sshAgentSigner(LINE, { timeoutMs: 0 }), /timeoutMs must be a positive/);
  const ed = keyLine("ssh-ed25519", cat(str("ssh-ed25519"), str(new Uint8Array(32))));
  await assert.rejects(sshAgentSigner(ed, { socket: "/nonexistent" }), (e: unknown) => {
    assert.ok(e instanceof SchemaPinError);
    assert.equal(e.code, "KEY_INVALID");
    assert.match(e.message, /Ed25519/);
    return true;
  });
  // A PublicKey object works as well as a line
  await withFakeAgent(agent((d) => signResponse(sign(d).r, sign(d).s)), async (socket) => {
    const signer = await sshAgentSigner(KEY.publicKey, { socket });
    assert.equal(signer.publicKey.fingerprint, KEY.publicKey.fingerprint);
    assert.ok(p256.Point.fromBytes(signer.publicKey.point));
  });
});
