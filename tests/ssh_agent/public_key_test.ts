// SSH public keys (cli/ssh_agent/public_key.ts), without I/O: an OpenSSH line or a PEM key
// becomes our PublicKey; every other SSH key type is refused naming it, FIDO `sk-` keys with
// the reason. Key lines are built here from RFC 4251 / RFC 5656 (tests/ssh_agent/helpers.ts);
// the lines ssh-keygen writes are checked in ssh_agent_test.ts.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { parseSshPublicKey } from "../../cli/ssh_agent/public_key.ts";
import { b64, cat, keyLine, p256Blob, str } from "./helpers.ts";

const key = generateKeyPair();
const blob = p256Blob(key.publicKey.point);

function refused(text: string, pattern: RegExp, keyType?: string): void {
  assert.throws(() => parseSshPublicKey(text, "k.pub"), (e: unknown) => {
    assert.ok(e instanceof SchemaPinError);
    assert.equal(e.code, "KEY_INVALID");
    assert.match(e.message, /^SSH public key in k\.pub: /);
    assert.match(e.message, pattern);
    if (keyType !== undefined) assert.equal(e.details.keyType, keyType);
    return true;
  });
}

Deno.test("an OpenSSH ecdsa-sha2-nistp256 line: the same key, its comment, OpenSSH's fingerprint", () => {
  const parsed = parseSshPublicKey(keyLine("ecdsa-sha2-nistp256", blob, "me@host two words"));
  assert.equal(parsed.publicKey.fingerprint, key.publicKey.fingerprint);
  assert.equal(parsed.comment, "me@host two words");
  assert.deepEqual([...parsed.keyBlob], [...blob]);
  const digest = createHash("sha256").update(blob).digest("base64").replace(/=+$/, "");
  assert.equal(parsed.sshFingerprint, `SHA256:${digest}`);
  // No comment, CRLF, a BOM, comment lines and blank lines around it
  const bare = `\uFEFF# my key\r\n\r\necdsa-sha2-nistp256 ${b64(blob)}\r\n`;
  assert.equal(parseSshPublicKey(bare).comment, "");
  assert.equal(parseSshPublicKey(bare).publicKey.fingerprint, key.publicKey.fingerprint);
});

Deno.test("a PEM PUBLIC KEY: the same key and the blob an agent would list", () => {
  const parsed = parseSshPublicKey(key.publicKey.pem, "k.pem");
  assert.equal(parsed.publicKey.fingerprint, key.publicKey.fingerprint);
  assert.deepEqual([...parsed.keyBlob], [...blob]);
  assert.equal(parsed.comment, "");
});

Deno.test("other SSH key types are refused naming the type, P-256 named as the way out", () => {
  const rest = b64(cat(str("x"), str("y")));
  for (
    const [type, words] of [
      ["ssh-ed25519", /an Ed25519 key \(ssh-ed25519\), not ECDSA P-256/],
      ["ssh-rsa", /an RSA key \(ssh-rsa\), not ECDSA P-256/],
      ["ssh-dss", /a DSA key \(ssh-dss\)/],
      ["ecdsa-sha2-nistp384", /an ECDSA P-384 key \(ecdsa-sha2-nistp384\)/],
      ["ecdsa-sha2-nistp521", /an ECDSA P-521 key \(ecdsa-sha2-nistp521\)/],
      ["ssh-foo@example.com", /an SSH key of another type \(ssh-foo@example\.com\)/],
    ] as const
  ) {
    refused(`${type} ${rest} c`, words, type);
    refused(`${type} ${rest} c`, /ssh-keygen -t ecdsa -b 256/, type);
  }
});

Deno.test("FIDO sk- keys are refused with the reason: FIDO signs a structure of its own", () => {
  // sk-ecdsa-sha2-nistp256@openssh.com: string type, string "nistp256", string Q, string application
  const skEcdsa = cat(
    str("sk-ecdsa-sha2-nistp256@openssh.com"),
    str("nistp256"),
    str(key.publicKey.point),
    str("ssh:"),
  );
  const skEd = cat(str("sk-ssh-ed25519@openssh.com"), str(new Uint8Array(32)), str("ssh:"));
  for (
    const [type, data] of [
      ["sk-ecdsa-sha2-nistp256@openssh.com", skEcdsa],
      ["sk-ssh-ed25519@openssh.com", skEd],
    ] as const
  ) {
    refused(keyLine(type, data), /a FIDO security key \(sk-/, type);
    refused(keyLine(type, data), /not an ECDSA signature over SchemaPin's signing input/, type);
  }
});

Deno.test("malformed lines and blobs: KEY_INVALID saying what is wrong", () => {
  refused("", /no key: expected an OpenSSH public key line/);
  refused(
    `${keyLine("ecdsa-sha2-nistp256", blob)}${keyLine("ecdsa-sha2-nistp256", blob)}`,
    /2 keys/,
  );
  refused("ecdsa-sha2-nistp256", /has no key data/);
  refused("ecdsa-sha2-nistp256 AAA*", /not valid Base64/);
  // the line's type and the blob's disagree
  const edBlob = cat(str("ssh-ed25519"), str(new Uint8Array(32)));
  refused(
    keyLine("ecdsa-sha2-nistp256", edBlob),
    /says ecdsa-sha2-nistp256 but its key data is ssh-ed25519/,
  );
  // truncated: the point's length runs past the end
  refused(
    keyLine("ecdsa-sha2-nistp256", blob.subarray(0, 80)),
    /malformed key data: public point Q/,
  );
  // trailing bytes
  refused(keyLine("ecdsa-sha2-nistp256", cat(blob, new Uint8Array([0]))), /unexpected bytes/);
  // another curve name inside an ecdsa-sha2-nistp256 blob
  const wrongCurve = cat(str("ecdsa-sha2-nistp256"), str("nistp384"), str(key.publicKey.point));
  refused(keyLine("ecdsa-sha2-nistp256", wrongCurve), /names curve "nistp384"/);
  // a point that is not on the curve
  const off = key.publicKey.point.slice();
  off[64] ^= 1;
  refused(keyLine("ecdsa-sha2-nistp256", p256Blob(off)), /not on the P-256 curve/);
  // a private key, an RFC 4716 file, a certificate
  refused(
    "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
    /a private key was given .*ssh-keygen -y -f KEY/,
  );
  refused(
    "---- BEGIN SSH2 PUBLIC KEY ----\nAAAA\n---- END SSH2 PUBLIC KEY ----\n",
    /ssh-keygen -i/,
  );
  refused(
    keyLine("ecdsa-sha2-nistp256-cert-v01@openssh.com", cat(str("x"))),
    /an OpenSSH certificate/,
  );
});
