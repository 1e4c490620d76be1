// A PEM key given where a JSON document is expected (issue 15 item 7): `--discovery
// public.pem` says "this is a PEM public key, not a discovery document (use --public-key
// FILE)", a private key says so too, also for --revocation, --bundle, bundle files and
// --resolver-dir documents; exit 2 (the resolver-dir document stays DISCOVERY_INVALID).
import assert from "node:assert/strict";
import { describePemLabel, pemInsteadOf, pemLabelOf } from "../../lib/crypto/pem.ts";
import { runInProcess, withTempDir } from "./run.ts";

const enc = new TextEncoder();

Deno.test("pemLabelOf: the first line's label, only at the start", () => {
  const cases: [string, string | undefined][] = [
    ["-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n", "PUBLIC KEY"],
    ["\ufeff-----BEGIN EC PRIVATE KEY-----\r\n", "EC PRIVATE KEY"], // BOM, CRLF
    ["\n  -----BEGIN ENCRYPTED PRIVATE KEY-----", "ENCRYPTED PRIVATE KEY"],
    ["-----BEGIN CERTIFICATE-----", "CERTIFICATE"],
    // Not PEM: JSON (even holding a PEM), text before the armor, a broken BEGIN line.
    ['{"public_key_pem":"-----BEGIN PUBLIC KEY-----\\n"}', undefined],
    ["key:\n-----BEGIN PUBLIC KEY-----\n", undefined],
    ["-----BEGIN PUBLIC KEY----", undefined],
    ["-----BEGIN -----", undefined],
    ["----- BEGIN PUBLIC KEY-----", undefined],
    ["", undefined],
  ];
  for (const [text, label] of cases) {
    assert.equal(pemLabelOf(enc.encode(text)), label, JSON.stringify(text));
  }
});

Deno.test("describePemLabel and pemInsteadOf", () => {
  assert.equal(describePemLabel("PUBLIC KEY"), "a PEM public key");
  assert.equal(describePemLabel("RSA PUBLIC KEY"), "a PEM public key");
  assert.equal(describePemLabel("PRIVATE KEY"), "a PEM private key");
  assert.equal(describePemLabel("EC PRIVATE KEY"), "a PEM private key");
  assert.equal(describePemLabel("ENCRYPTED PRIVATE KEY"), "an encrypted PEM private key");
  assert.equal(describePemLabel("CERTIFICATE"), "a PEM certificate");
  assert.equal(describePemLabel("X509 CRL"), "a PEM file (X509 CRL)");
  assert.equal(
    pemInsteadOf(enc.encode("-----BEGIN PUBLIC KEY-----\n"), "discovery document"),
    "this is a PEM public key, not a discovery document",
  );
  assert.equal(pemInsteadOf(enc.encode("{}"), "discovery document"), undefined);
  assert.equal(pemInsteadOf(enc.encode("{"), "discovery document"), undefined);
});

/** Keys (plain and encrypted), a signed schema and skill, made with the CLI. */
async function fixture(dir: string) {
  assert.equal((await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/k`])).code, 0);
  await Deno.writeTextFile(`${dir}/pass.txt`, "correct horse\n");
  const enc = await runInProcess([
    "keygen",
    "--out",
    `${dir}/e`,
    "--encrypt",
    "--passphrase-file",
    `${dir}/pass.txt`,
  ]);
  assert.equal(enc.code, 0, enc.stderr);
  await Deno.writeTextFile(`${dir}/tool.json`, JSON.stringify({ name: "calc" }));
  const sig = await runInProcess([
    "sign-schema",
    `${dir}/tool.json`,
    "--key",
    `${dir}/k/private.pem`,
    "--out",
    `${dir}/tool.json.sig`,
  ]);
  assert.equal(sig.code, 0, sig.stderr);
  await Deno.mkdir(`${dir}/skill`);
  await Deno.writeTextFile(`${dir}/skill/SKILL.md`, "---\nname: demo\n---\nhi\n");
  const skill = await runInProcess([
    "sign-skill",
    `${dir}/skill`,
    "--key",
    `${dir}/k/private.pem`,
    "--domain",
    "example.com",
  ]);
  assert.equal(skill.code, 0, skill.stderr);
  await Deno.mkdir(`${dir}/trust`);
  await Deno.copyFile(`${dir}/k/public.pem`, `${dir}/trust/example.com.json`);
  await Deno.writeTextFile(`${dir}/broken.json`, "{");
  await Deno.writeTextFile(`${dir}/empty.json`, "{}");
  return {
    pub: `${dir}/k/public.pem`,
    priv: `${dir}/k/private.pem`,
    encrypted: `${dir}/e/private.pem`,
    schema: [`${dir}/tool.json`, "--signature", `${dir}/tool.json.sig`],
    skill: `${dir}/skill`,
    trust: `${dir}/trust`,
    broken: `${dir}/broken.json`,
    dir,
  };
}

Deno.test("a PEM key where a JSON document is expected: exit 2, says what it is", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    const D = ["--domain", "example.com"];
    const PUB_DISCOVERY = "this is a PEM public key, not a discovery document";
    const cases: [string[], number, string][] = [
      [
        ["verify-schema", ...f.schema, ...D, "--discovery", f.pub],
        2,
        `error: INPUT_INVALID: ${f.pub}: ${PUB_DISCOVERY} (use --public-key FILE)\n`,
      ],
      [
        ["verify-schema", ...f.schema, ...D, "--discovery", f.priv],
        2,
        `error: INPUT_INVALID: ${f.priv}: this is a PEM private key, not a discovery document ` +
        "(use --public-key FILE with its public key, e.g. the public.pem keygen wrote)\n",
      ],
      [
        ["verify-schema", ...f.schema, ...D, "--discovery", f.encrypted],
        2,
        `error: INPUT_INVALID: ${f.encrypted}: this is an encrypted PEM private key, not a ` +
        "discovery document (use --public-key FILE with its public key, e.g. the public.pem " +
        "keygen wrote)\n",
      ],
      [
        ["verify-skill", f.skill, ...D, "--discovery", f.pub],
        2,
        `error: INPUT_INVALID: ${f.pub}: ${PUB_DISCOVERY} (use --public-key FILE)\n`,
      ],
      [
        ["verify-schema", ...f.schema, ...D, "--public-key", f.pub, "--revocation", f.pub],
        2,
        `error: INPUT_INVALID: ${f.pub}: this is a PEM public key, not a revocation document\n`,
      ],
      [
        ["verify-schema", ...f.schema, ...D, "--bundle", f.pub],
        2,
        `error: INPUT_INVALID: ${f.pub}: this is a PEM public key, not a trust bundle\n`,
      ],
      [
        ["bundle", "verify", f.priv, "--public-key", f.pub],
        2,
        `error: INPUT_INVALID: ${f.priv}: this is a PEM private key, not a trust bundle\n`,
      ],
      [
        ["bundle", "create", "--out", `${dir}/b.json`, "--discovery", `example.com=${f.pub}`],
        2,
        `error: INPUT_INVALID: ${f.pub}: ${PUB_DISCOVERY}\n`,
      ],
      [
        ["pins", "add", "calc@example.com", "--discovery", f.pub, "--pin-store", `${dir}/p`],
        2,
        `error: INPUT_INVALID: ${f.pub}: ${PUB_DISCOVERY} (use --key FILE)\n`,
      ],
      [
        ["dns", "record", "--key", f.pub, "--discovery", f.priv],
        2,
        "", // dns record takes no --discovery: an unknown option, not about the file
      ],
      [
        ["dns", "check", "example.com", "--discovery", f.priv, "--dns-server", "127.0.0.1:9"],
        2,
        `error: INPUT_INVALID: ${f.priv}: this is a PEM private key, not a discovery document ` +
        "(use --key FILE)\n",
      ],
    ];
    for (const [args, code, stderr] of cases) {
      const r = await runInProcess(args);
      assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
      if (stderr !== "") assert.equal(r.stderr, stderr, args.join(" "));
      assert.doesNotMatch(r.stderr, /JSON_INVALID|byte 0|unexpected/i, args.join(" "));
    }
    // Not PEM: JSON that is broken or not a discovery document keeps its own message.
    const broken = await runInProcess([
      "verify-schema",
      ...f.schema,
      ...D,
      "--discovery",
      f.broken,
    ]);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /^error: JSON_INVALID: discovery document /);
    assert.doesNotMatch(broken.stderr, /PEM/);
    const empty = await runInProcess([
      "verify-schema",
      ...f.schema,
      ...D,
      "--discovery",
      `${dir}/empty.json`,
    ]);
    assert.notEqual(empty.code, 0);
    assert.doesNotMatch(empty.stderr, /PEM/);
  });
});

Deno.test("a PEM key as a --resolver-dir document: DISCOVERY_INVALID saying it is PEM", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    const r = await runInProcess([
      "verify-schema",
      ...f.schema,
      "--domain",
      "example.com",
      "--resolver-dir",
      f.trust,
    ]);
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /DISCOVERY_INVALID: .*example\.com\.json: this is a PEM public key, not a discovery document/,
    );
  });
});
