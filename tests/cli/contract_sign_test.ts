/**
 * Signed locks in the CLI (issue 17 item 2): `contract sign`, `contract verify
 * --require-signed-lock` and `guard --require-signed-lock`, run for real (files, keys, a guard
 * process in front of an SDK server). Exit codes per ARCHITECTURE.md, "Exit codes": 0 verified,
 * 1 verification failed (no server contacted / nothing started), 2 bad input.
 */
import assert from "node:assert/strict";
import { parsePrivateKeyPem } from "../../lib/crypto/keys.ts";
import { signLock } from "../../cli/contractpin/lock_signature.ts";
import { formatSchemaSignatureDocument } from "../../lib/schema/document.ts";
import { completionSpec } from "../../cli/commands/completions.ts";
import { contractCommand } from "../../cli/commands/contract.ts";
import {
  baseTools,
  connectGuarded,
  makePublisher,
  type Publisher,
  runCliProcess,
  runInProcess,
  sdkCommand,
  withTempDir,
  writeLock,
  writeTools,
} from "../guard/helpers.ts";

const DOMAIN = "example.com";
const DAY = 86_400_000;

interface Setup {
  dir: string;
  lock: string;
  sig: string;
  pub: Publisher;
  other: Publisher;
}

/** A lock pinning a file dump, and two publishers (keys + discovery documents). */
async function setup(dir: string): Promise<Setup> {
  await writeTools(`${dir}/tools.json`, baseTools());
  const lock = `${dir}/contractpin.lock`;
  const init = await runInProcess([
    ...["contract", "init", "--lock", lock, "--file", `dump=${dir}/tools.json`],
    "--no-snapshot",
  ]);
  assert.equal(init.code, 0, init.stderr);
  return {
    dir,
    lock,
    sig: `${lock}.sig`,
    pub: await makePublisher(dir, "pub"),
    other: await makePublisher(dir, "other"),
  };
}

function sign(s: Setup, extra: string[] = [], key = s.pub.keyFile) {
  return runInProcess(["contract", "sign", "--lock", s.lock, "--key", key, ...extra]);
}

function verify(s: Setup, extra: string[] = [], discovery = s.pub.discoveryFile) {
  return runInProcess([
    ...["contract", "verify", "--lock", s.lock, "--require-signed-lock", "--domain", DOMAIN],
    ...["--discovery", discovery, "--pin-store", `${s.dir}/pins.json`, "--trust-first-use"],
    ...extra,
  ]);
}

/** A signature written by the library (for times the CLI refuses, like a past expiry). */
async function writeSignature(s: Setup, options: Parameters<typeof signLock>[2]) {
  const key = parsePrivateKeyPem(await Deno.readTextFile(s.pub.keyFile));
  const lock = JSON.parse(await Deno.readTextFile(s.lock));
  await Deno.writeTextFile(s.sig, formatSchemaSignatureDocument(signLock(lock, key, options)));
}

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

// ---------------------------------------------------------------------------------------------
// positive

Deno.test("contract sign + verify --require-signed-lock: ok, the key pinned as contractpin:lock@DOMAIN", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const signed = await sign(s, ["--domain", DOMAIN, "--signer-kid", "k1", "--expires-in", "30d"]);
    assert.equal(signed.code, 0, signed.stderr);
    assert.match(signed.stdout, /^signed .*contractpin\.lock \(sha256:[0-9a-f]{64}\) with sha256:/);
    const doc = JSON.parse(await Deno.readTextFile(s.sig));
    assert.deepEqual(Object.keys(doc), [
      "schemapin_version",
      "schema_hash",
      "signature",
      "signed_at",
      "expires_at",
      "domain",
      "signer_kid",
    ]);
    assert.equal(doc.domain, DOMAIN);
    const r = await verify(s);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^lock signature: ok .*contractpin\.lock\.sig: signed by sha256:/);
    assert.match(r.stdout, /pinned on first use/);
    assert.match(r.stdout, /match: 1\/1 servers match/);
    const pins = await Deno.readTextFile(`${dir}/pins.json`);
    assert.match(pins, /contractpin:lock/);
    // Second run: the pin matches.
    const again = await verify(s, ["--json"]);
    assert.equal(again.code, 0, again.stderr);
    const json = JSON.parse(again.stdout);
    assert.equal(json.lock_signature.status, "valid");
    assert.equal(json.lock_signature.key_pinning, "pinned");
    assert.equal(json.lock_signature.lock_hash, doc.schema_hash);
    assert.equal(json.lock_signature.signer_kid, "k1");
  });
});

Deno.test("contract verify --require-signed-lock: a reformatted lock (whitespace, key order) still verifies", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    assert.equal((await sign(s)).code, 0);
    const value = JSON.parse(await Deno.readTextFile(s.lock));
    const reversed = Object.fromEntries(Object.entries(value).reverse());
    await Deno.writeTextFile(s.lock, JSON.stringify(reversed));
    const r = await verify(s);
    assert.equal(r.code, 0, r.stderr);
  });
});

Deno.test("contract verify --require-signed-lock --allow-expired: accepted with a warning", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    await writeSignature(s, { signedAt: Date.now() - 10 * DAY, expiresAt: Date.now() - DAY });
    const r = await verify(s, ["--allow-expired"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: lock signature: the signature has expired/);
    assert.match(r.stdout, /EXPIRED, accepted because of --allow-expired/);
  });
});

Deno.test("contract sign --force replaces the signature; --public-key verifies without pins", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    assert.equal((await sign(s, [], s.other.keyFile)).code, 0);
    const replaced = await sign(s, ["-f", "--json"]);
    assert.equal(replaced.code, 0, replaced.stderr);
    const out = JSON.parse(replaced.stdout);
    assert.equal(out.format, "schemapin.contract.sign/1");
    assert.equal(out.key_fingerprint, s.pub.key.publicKey.fingerprint);
    await Deno.writeTextFile(`${dir}/public.pem`, s.pub.key.publicKey.pem);
    const ok = await runInProcess([
      ...["contract", "verify", "--lock", s.lock, "--require-signed-lock", "--domain", DOMAIN],
      ...["--public-key", `${dir}/public.pem`],
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /key from --public-key, not pinned/);
    assert.equal(await exists(`${dir}/pins.json`), false);
  });
});

Deno.test("guard --require-signed-lock starts with a correctly signed lock and serves", async () => {
  await withTempDir(async (dir) => {
    const pub = await makePublisher(dir);
    const lock = `${dir}/contractpin.lock`;
    await writeLock(lock, "one", baseTools());
    await writeTools(`${dir}/served.json`, baseTools());
    const signed = await runInProcess(["contract", "sign", "--lock", lock, "-k", pub.keyFile]);
    assert.equal(signed.code, 0, signed.stderr);
    const g = await connectGuarded(
      [
        ...["--lock", lock, "--require-signed-lock", "--domain", DOMAIN],
        ...["--discovery", pub.discoveryFile, "--pin-store", `${dir}/pins.json`],
        ...["--trust-first-use", "--log", `${dir}/guard.log`],
      ],
      sdkCommand(),
      { env: { FIXTURE_TOOLS: `${dir}/served.json` } },
    );
    try {
      const listed = await g.client.listTools();
      assert.deepEqual(listed.tools.map((t: { name: string }) => t.name), [
        "echo",
        "add",
        "read_file",
      ]);
    } finally {
      await g.close();
    }
    const log = await Deno.readTextFile(`${dir}/guard.log`);
    assert.match(log, /lock signature: ok/);
  });
});

// ---------------------------------------------------------------------------------------------
// negative

Deno.test("contract verify --require-signed-lock: a digest edited after signing fails (1), no server contacted", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    assert.equal((await sign(s)).code, 0);
    const text = await Deno.readTextFile(s.lock);
    const digest = /"digest": "(sha256:[0-9a-f]{64})"/.exec(text)![1];
    await Deno.writeTextFile(s.lock, text.replace(digest, "sha256:" + "0".repeat(64)));
    // The dump is gone: contacting the server would report it unreachable.
    await Deno.remove(`${dir}/tools.json`);
    const r = await verify(s, ["--json"]);
    assert.equal(r.code, 1);
    const json = JSON.parse(r.stdout);
    assert.equal(json.ok, false);
    assert.equal(json.error.code, "SIGNATURE_INVALID");
    assert.match(json.error.message, /changed after it was signed/);
    assert.deepEqual(json.servers, []);
    assert.equal(json.lock_signature.status, "invalid");
    const human = await verify(s);
    assert.equal(human.code, 1);
    assert.match(human.stdout, /lock signature: FAIL .*SIGNATURE_INVALID\nFAIL: .*no server was/);
    assert.doesNotMatch(human.stdout, /UNREACHABLE/);
    const sarif = JSON.parse((await verify(s, ["--format", "sarif"])).stdout);
    assert.equal(sarif.runs[0].results[0].ruleId, "contractpin/lock-signature");
    assert.equal(sarif.runs[0].results[0].level, "error");
    const gh = await verify(s, ["--format", "github"]);
    assert.match(
      gh.stdout,
      /^::error file=.*contractpin\.lock\.sig,line=1,title=contract lock signature::/,
    );
  });
});

Deno.test("contract verify --require-signed-lock: expired fails with SIGNATURE_EXPIRED", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    await writeSignature(s, { signedAt: Date.now() - 10 * DAY, expiresAt: Date.now() - DAY });
    const r = await verify(s);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error: SIGNATURE_EXPIRED/);
  });
});

Deno.test("contract verify --require-signed-lock: signed by another key fails, nothing pinned", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    assert.equal((await sign(s, [], s.other.keyFile)).code, 0);
    const r = await verify(s);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /SIGNATURE_INVALID/);
    assert.equal(await exists(`${dir}/pins.json`), false);
  });
});

Deno.test("contract verify --require-signed-lock: a revoked key fails with KEY_REVOKED", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    assert.equal((await sign(s)).code, 0);
    const doc = JSON.parse(await Deno.readTextFile(s.pub.discoveryFile));
    doc.revoked_keys = [s.pub.key.publicKey.fingerprint];
    await Deno.writeTextFile(`${dir}/revoked.json`, JSON.stringify(doc));
    const r = await verify(s, [], `${dir}/revoked.json`);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /KEY_REVOKED/);
  });
});

Deno.test("contract verify --require-signed-lock: an unsigned lock fails (1) and says how to sign", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const r = await verify(s);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /contractpin\.lock\.sig does not exist: the lock is not signed/);
    assert.match(r.stderr, /schemapin contract sign --lock/);
    // Without --require-signed-lock an unsigned lock is not required.
    const plain = await runInProcess(["contract", "verify", "--lock", s.lock]);
    assert.equal(plain.code, 0, plain.stderr);
  });
});

Deno.test("contract verify --require-signed-lock: a malformed .sig fails (1) naming the file", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    for (const content of ["not json", "", '{"schemapin_version":"1.4"}', '"MEUCIQ=="']) {
      await Deno.writeTextFile(s.sig, content);
      const r = await verify(s, ["--json"]);
      assert.equal(r.code, 1, content);
      const json = JSON.parse(r.stdout);
      assert.equal(json.error.code, "SIGNATURE_INVALID", content);
      assert.match(json.error.message, /contractpin\.lock\.sig/);
    }
  });
});

Deno.test("contract verify --require-signed-lock: a first use nobody confirmed fails, no pin written", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    assert.equal((await sign(s)).code, 0);
    const r = await runInProcess([
      ...["contract", "verify", "--lock", s.lock, "--require-signed-lock", "--domain", DOMAIN],
      ...["--discovery", s.pub.discoveryFile, "--pin-store", `${dir}/pins.json`],
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /KEY_NOT_FOUND/);
    assert.match(r.stderr, /pins add contractpin:lock@example\.com/);
    assert.equal(await exists(`${dir}/pins.json`), false);
  });
});

Deno.test("contract verify: signature flags are checked before anything is read (exit 2)", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const V = ["contract", "verify", "--lock", s.lock];
    const cases: [string[], RegExp][] = [
      [[...V, "--require-signed-lock"], /--domain D is required/],
      [[...V, "--require-signed-lock", "--domain", DOMAIN], /exactly one key source/],
      [[...V, "--domain", DOMAIN], /--domain goes with --require-signed-lock/],
      [[...V, "--signature", s.sig], /--signature goes with --require-signed-lock/],
      [[...V, "--require-signed-lock", "--domain", "a b", "--public-key", "x"], /--domain/],
      [
        [...V, "--require-signed-lock", "--domain", DOMAIN, "--discovery", `${dir}/missing.json`],
        /missing\.json/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.match(r.stderr, message, args.join(" "));
    }
  });
});

Deno.test("contract sign: the --force rule, and nothing written on any failure (exit 2)", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    assert.equal((await sign(s)).code, 0);
    const before = await Deno.readTextFile(s.sig);
    const again = await sign(s);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already exists; nothing was written — add --force/);
    assert.equal(await Deno.readTextFile(s.sig), before);
    await Deno.remove(s.sig);
    await Deno.writeTextFile(`${dir}/corrupt.lock`, '{"contractpin":"1"}');
    await Deno.writeTextFile(`${dir}/bad.pem`, "not a key");
    const failures: [string[], RegExp][] = [
      [["--lock", `${dir}/corrupt.lock`, "--key", s.pub.keyFile], /corrupt\.lock/],
      [["--lock", `${dir}/missing.lock`, "--key", s.pub.keyFile], /missing\.lock/],
      [["--lock", s.lock, "--key", `${dir}/bad.pem`], /bad\.pem/],
      [["--lock", s.lock], /--key PRIVATE\.pem is required/],
      [["--lock", s.lock, "-k", s.pub.keyFile, "--expires-at", "2020-01-01T00:00:00Z"], /past/],
      [["--lock", s.lock, "-k", s.pub.keyFile, "--expires-in", "soon"], /--expires-in/],
      [["--lock", s.lock, "-k", s.pub.keyFile, "--domain", "not a domain"], /--domain/],
      [["--lock", s.lock, "-k", s.pub.keyFile, "--signer-kid", ""], /--signer-kid is empty/],
      [["--lock", "-", "-k", s.pub.keyFile], /--lock must name the lock file/],
    ];
    for (const [args, message] of failures) {
      const r = await runInProcess(["contract", "sign", ...args]);
      assert.equal(r.code, 2, args.join(" "));
      assert.match(r.stderr, message, args.join(" "));
    }
    const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.includes(".sig"));
    assert.deepEqual(left, []);
  });
});

Deno.test("guard --require-signed-lock refuses to start with an unsigned, tampered or wrongly signed lock", async () => {
  await withTempDir(async (dir) => {
    const pub = await makePublisher(dir);
    const other = await makePublisher(dir, "other");
    const lock = `${dir}/contractpin.lock`;
    await writeLock(lock, "one", baseTools());
    const marker = `${dir}/started`;
    const guard = () =>
      runInProcess([
        ...["guard", "--lock", lock, "--require-signed-lock", "--domain", DOMAIN],
        ...["--discovery", pub.discoveryFile, "--pin-store", `${dir}/pins.json`],
        ...["--trust-first-use", "--", "touch", marker],
      ]);
    const unsigned = await guard();
    assert.equal(unsigned.code, 1);
    assert.match(unsigned.stderr, /does not exist: the lock is not signed/);
    assert.match(unsigned.stderr, /refusing to start/);
    assert.equal(
      (await runInProcess(["contract", "sign", "--lock", lock, "-k", other.keyFile]))
        .code,
      0,
    );
    const wrong = await guard();
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /SIGNATURE_INVALID/);
    assert.equal(
      (await runInProcess(["contract", "sign", "--lock", lock, "-k", pub.keyFile, "-f"])).code,
      0,
    );
    const text = await Deno.readTextFile(lock);
    await Deno.writeTextFile(lock, text.replace('"command": [', '"command": [\n        "evil",'));
    const tampered = await guard();
    assert.equal(tampered.code, 1);
    assert.match(tampered.stderr, /changed after it was signed/);
    assert.equal(await exists(marker), false, "the server was never started");
    // --listen: the same check before anything listens.
    const listen = await runInProcess([
      ...["guard", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9/mcp"],
      ...["--lock", lock, "--require-signed-lock", "--domain", DOMAIN],
      ...["--discovery", pub.discoveryFile, "--pin-store", `${dir}/pins.json`],
      "--trust-first-use",
    ]);
    assert.equal(listen.code, 1);
    assert.match(listen.stderr, /changed after it was signed[\s\S]*refusing to start/);
    assert.doesNotMatch(listen.stderr, /listening on/);
    assert.equal(await exists(`${dir}/pins.json`), false);
    const usage = await runInProcess([
      ...["guard", "--lock", lock, "--require-signed-lock", "--", "touch", marker],
    ]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--require-signed-lock needs --domain D/);
  });
});

Deno.test("init --force over a signed lock: the signature is kept, a warning says it must be renewed, verify then fails", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    assert.equal((await sign(s)).code, 0);
    const sigBefore = await Deno.readTextFile(s.sig);
    const tools = baseTools();
    tools[0].description = "changed upstream";
    await writeTools(`${dir}/tools.json`, tools);
    const init = await runInProcess([
      ...["contract", "init", "--force", "--lock", s.lock, "--file", `dump=${dir}/tools.json`],
      "--no-snapshot",
    ]);
    assert.equal(init.code, 0, init.stderr);
    assert.match(
      init.stderr,
      /contractpin\.lock\.sig no longer covers .*contractpin\.lock; renew it/,
    );
    assert.equal(await Deno.readTextFile(s.sig), sigBefore);
    const r = await verify(s);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /changed after it was signed/);
    // Without a signature next to it, init says nothing about one.
    await Deno.remove(s.sig);
    const again = await runInProcess([
      ...["contract", "init", "--force", "--lock", s.lock, "--file", `dump=${dir}/tools.json`],
      "--no-snapshot",
    ]);
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /no longer covers/);
  });
});

Deno.test("contract verify --require-signature (deprecated): still checks the signature, with a note", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    assert.equal((await sign(s)).code, 0);
    const trust = ["--discovery", s.pub.discoveryFile, "--pin-store", `${dir}/pins.json`];
    const r = await runInProcess([
      ...["contract", "verify", "--lock", s.lock, "--require-signature", "--domain", DOMAIN],
      ...trust,
      "--trust-first-use",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^lock signature: ok /);
    assert.match(
      r.stderr,
      /^note: contract verify: --require-signature is deprecated; use --require-signed-lock\n/,
    );
    // The old spelling is the same flag: a tampered lock still fails under it.
    const lock = await Deno.readTextFile(s.lock);
    await Deno.writeTextFile(
      s.lock,
      lock.replace(/"sha256:[0-9a-f]{64}"/, `"sha256:${"0".repeat(64)}"`),
    );
    const bad = await runInProcess([
      ...["contract", "verify", "--lock", s.lock, "--require-signature=true", "--domain", DOMAIN],
      ...trust,
    ]);
    assert.equal(bad.code, 2, bad.stderr); // a boolean flag takes no value, under either name
    const tampered = await runInProcess([
      ...["contract", "verify", "--lock", s.lock, "--require-signature", "--domain", DOMAIN],
      ...trust,
    ]);
    assert.equal(tampered.code, 1, tampered.stderr);
    assert.match(tampered.stderr, /--require-signature is deprecated/);
    // Without either spelling the trust flags are refused, naming the new one.
    const refused = await runInProcess(["contract", "verify", "--lock", s.lock, ...trust]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--discovery goes with --require-signed-lock/);
    assert.doesNotMatch(refused.stderr, /--require-signature/);
  });
});

Deno.test("contract --help: one spelling for a signed lock; the old one is neither listed nor completed", async () => {
  const help = await runInProcess(["contract", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^ {2}--require-signed-lock {4}the lock must carry a valid signature/m);
  assert.match(help.stdout, /^ {2}--signature FILE {9}the signature FILE of the lock/m);
  assert.match(help.stdout, /^ {2}--signature FILE {9}the signature FILE to write/m);
  assert.match(help.stdout, /^ {2}--timeout SECONDS {8}seconds for each MCP request/m);
  assert.doesNotMatch(help.stdout, /^ {2}--require-signature/m);
  for (const shell of ["bash", "zsh"]) {
    const script = (await runInProcess(["completions", shell])).stdout;
    const verifyLine = script.split("\n").find((l) => /^\s+verify\) flags=/.test(l)) ?? "";
    assert.match(verifyLine, /--require-signed-lock/, shell);
    assert.doesNotMatch(verifyLine, /--require-signature/, shell);
  }
});

Deno.test("contract: one flag table per subcommand; each is completed with its own flags only", () => {
  const spec = completionSpec(contractCommand);
  assert.deepEqual(spec.subcommands.map((s) => s.name), [
    "init",
    "verify",
    "sign",
    "approve",
    "digest",
    "dump",
  ]);
  const sub = (name: string) => spec.subcommands.find((s) => s.name === name)!.flags;
  for (const flag of ["--key", "-k", "--passphrase-file", "--signature", "--force", "-f"]) {
    assert.ok(sub("sign").includes(flag), `sign ${flag}`);
  }
  for (const flag of ["--require-signed-lock", "--signature", "--public-key", "--timeout"]) {
    assert.ok(sub("verify").includes(flag), `verify ${flag}`);
  }
  assert.ok(!sub("verify").includes("--key"), "verify signs nothing");
  assert.ok(!sub("sign").includes("--require-signed-lock"));
  assert.ok(!sub("sign").includes("--timeout"), "sign contacts no server");
  assert.ok(!sub("init").includes("--signature"));
  // docs/contractpin-skills.md, "Signed skills": init and approve take the key sources for
  // --require-skill-signature, never the lock signature's own flags.
  for (const name of ["init", "approve"]) {
    for (const flag of ["--require-skill-signature", "--discovery", "--public-key"]) {
      assert.ok(sub(name).includes(flag), `${name} ${flag}`);
    }
    assert.ok(!sub(name).includes("--require-signed-lock"), `${name} --require-signed-lock`);
  }
  assert.ok(!sub("approve").includes("--signature"));
  assert.deepEqual([...sub("digest")].sort(), [
    "--canonical",
    "--help",
    "--json",
    "--raw",
    "--tool-definition",
  ]);
});

Deno.test("--lock -: verify reads the lock from stdin once and checks those bytes; the guard refuses it with --require-signed-lock", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    assert.equal((await sign(s)).code, 0);
    const lockText = await Deno.readTextFile(s.lock);
    const trust = ["--discovery", s.pub.discoveryFile, "--pin-store", `${dir}/pins.json`];
    const argv = ["contract", "verify", "--lock", "-", "--require-signed-lock", "--domain", DOMAIN];
    const ok = await runCliProcess([...argv, "--signature", s.sig, ...trust, "--trust-first-use"], {
      stdin: lockText,
      cwd: dir,
    });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /lock signature: ok/);
    // The same signature over an edited lock on stdin fails (the bytes checked are stdin's).
    const edited = lockText.replace(/"sha256:[0-9a-f]{64}"/, `"sha256:${"0".repeat(64)}"`);
    const bad = await runCliProcess([...argv, "--signature", s.sig, ...trust], {
      stdin: edited,
      cwd: dir,
    });
    assert.equal(bad.code, 1, bad.stderr);
    assert.doesNotMatch(bad.stderr, /internal error/);
    const guard = await runCliProcess([
      ...["guard", "--lock", "-", "--require-signed-lock", "--domain", DOMAIN, ...trust],
      ...["--", "true"],
    ], { stdin: lockText, cwd: dir });
    assert.equal(guard.code, 2, guard.stderr);
    assert.match(guard.stderr, /--require-signed-lock needs --lock FILE/);
  });
});

Deno.test("contract verify --require-signed-lock: a signature file over 64 KiB is refused unread (exit 1)", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    assert.equal((await sign(s)).code, 0);
    const doc = await Deno.readTextFile(s.sig);
    // A valid document padded with whitespace: still JSON, but no signature is that large.
    await Deno.writeTextFile(s.sig, doc + " ".repeat(70 * 1024));
    const r = await verify(s);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /SIGNATURE_INVALID: .*is \d+ bytes: not a signature document \(at most 65536\)/,
    );
    await Deno.writeTextFile(s.sig, doc + " ".repeat(1024)); // small whitespace is fine
    assert.equal((await verify(s)).code, 0);
  });
});
