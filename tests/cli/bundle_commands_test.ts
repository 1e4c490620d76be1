// `schemapin bundle create|add|sign|verify|merge|show`: results, exit codes, messages.
import assert from "node:assert/strict";
import { privateKeyToPem } from "../../lib/crypto/keys.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { assertJsonOutput } from "./json_schemas.ts";
import { runCliProcess, runInProcess, withTempDir } from "./run.ts";
import {
  AUTH_1,
  AUTH_2,
  DEV_A,
  DEV_B,
  REFERENCE_BUNDLE_PATH,
  REFERENCE_KID,
  REFERENCE_PUBLIC_PATH,
  revocationDoc,
  wellKnown,
} from "../bundle/_helpers.ts";

const REF_FP = "sha256:8120d9001e5cb51e54e2910c0e5fe97bf1ed4e699587f5af94e285a9bbafa07d";
const FP1 = AUTH_1.publicKey.fingerprint;

interface Setup {
  dir: string;
  wkA: string;
  wkB: string;
  revA: string;
  key1: string;
  key2: string;
  pub1: string;
}

async function setup(dir: string): Promise<Setup> {
  const s: Setup = {
    dir,
    wkA: `${dir}/a.well-known.json`,
    wkB: `${dir}/b.well-known.json`,
    revA: `${dir}/a.revocations.json`,
    key1: `${dir}/auth1.pem`,
    key2: `${dir}/auth2.pem`,
    pub1: `${dir}/auth1.pub.pem`,
  };
  await Deno.writeTextFile(s.wkA, JSON.stringify(wellKnown(DEV_A, "Dev A")));
  await Deno.writeTextFile(s.wkB, JSON.stringify(wellKnown(DEV_B, "Dev B")));
  await Deno.writeTextFile(
    s.revA,
    JSON.stringify(revocationDoc("a.example", DEV_B.publicKey.fingerprint)),
  );
  await Deno.writeTextFile(s.key1, privateKeyToPem(AUTH_1));
  await Deno.writeTextFile(s.key2, privateKeyToPem(AUTH_2));
  await Deno.writeTextFile(s.pub1, AUTH_1.publicKey.pem);
  return s;
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  return parseJson(await Deno.readFile(path)) as Record<string, unknown>;
}

/** create + sign a bundle for a.example (and b.example) signed by auth-1. */
async function signedBundle(
  s: Setup,
  name = "signed.json",
  key = s.key1,
  kid = "auth-1",
): Promise<string> {
  const out = `${s.dir}/${name}`;
  const c = await runInProcess([
    "bundle",
    "create",
    "--out",
    out,
    "--discovery",
    `a.example=${s.wkA}`,
    "--revocation",
    `a.example=${s.revA}`,
    "--force",
  ]);
  assert.equal(c.code, 0, c.stderr);
  const g = await runInProcess([
    "bundle",
    "sign",
    out,
    "--key",
    key,
    "--kid",
    kid,
    "--expires-in",
    "30d",
  ]);
  assert.equal(g.code, 0, g.stderr);
  return out;
}

Deno.test("bundle create → sign → verify, with --json results", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const out = `${dir}/bundle.json`;
    const c = await runInProcess([
      "bundle",
      "create",
      "--out",
      out,
      "--discovery",
      `a.example=${s.wkA}`,
      "--discovery",
      `B.example=${s.wkB}`,
      "--revocation",
      `a.example=${s.revA}`,
      "--json",
    ]);
    assert.equal(c.code, 0, c.stderr);
    const cj = await assertJsonOutput(c.stdout);
    assert.equal(cj.format, "schemapin.bundle.create/1");
    assert.equal(cj.ok, true);
    assert.deepEqual(cj.documents, ["a.example", "b.example"]);
    const created = await readJson(out);
    assert.equal(created.schemapin_bundle_version, "1.2");
    assert.equal(Object.hasOwn(created, "signature"), false);

    const g = await runInProcess([
      "bundle",
      "sign",
      out,
      "--key",
      s.key1,
      "--kid",
      "auth-1",
      "--json",
    ]);
    assert.equal(g.code, 0, g.stderr);
    const sj = await assertJsonOutput(g.stdout);
    assert.equal(sj.format, "schemapin.bundle.sign/1");
    assert.equal(sj.ok, true);
    assert.equal(sj.kid, "auth-1");
    assert.equal(sj.fingerprint, FP1);
    const signed = await readJson(out);
    assert.equal(signed.schemapin_bundle_version, "1.4");
    assert.equal((signed.bundle_authority as Record<string, unknown>).kid, "auth-1");

    const v = await runInProcess([
      "bundle",
      "verify",
      out,
      "--authority",
      `auth-1=${FP1}`,
      "--json",
    ]);
    assert.equal(v.code, 0, v.stderr);
    const vj = await assertJsonOutput(v.stdout);
    assert.equal(vj.format, "schemapin.bundle.verify/1");
    assert.equal(vj.ok, true);
    assert.equal(vj.error, undefined);
    assert.equal(vj.kid, "auth-1");
    assert.equal(vj.fingerprint, FP1);
    assert.equal(vj.first_use, false);
    assert.deepEqual(vj.documents, ["a.example", "b.example"]);
    assert.deepEqual(vj.revocations, ["a.example"]);
    const t = await runInProcess(["bundle", "verify", out, "--authority-key", `auth-1=${s.pub1}`]);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /^verified: .*bundle\.json\nauthority: auth-1 sha256:/);
  });
});

Deno.test("bundle verify: the reference fixture with its authority, and every failure exit code", async () => {
  await withTempDir(async (dir) => {
    const ok = await runInProcess([
      "bundle",
      "verify",
      REFERENCE_BUNDLE_PATH,
      "--authority-key",
      `${REFERENCE_KID}=${REFERENCE_PUBLIC_PATH}`,
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    const byFp = await runInProcess([
      "bundle",
      "verify",
      REFERENCE_BUNDLE_PATH,
      "--authority",
      `${REFERENCE_KID}=${REF_FP}`,
    ]);
    assert.equal(byFp.code, 0, byFp.stderr);

    const untrusted = await runInProcess(["bundle", "verify", REFERENCE_BUNDLE_PATH]);
    assert.equal(untrusted.code, 1);
    assert.match(untrusted.stderr, /BUNDLE_AUTHORITY_UNTRUSTED/);
    assert.match(untrusted.stderr, new RegExp(`hint: .*--authority ${REFERENCE_KID}=${REF_FP}`));

    const mismatch = await runInProcess([
      "bundle",
      "verify",
      REFERENCE_BUNDLE_PATH,
      "--authority",
      `${REFERENCE_KID}=${FP1}`,
      "--json",
    ]);
    assert.equal(mismatch.code, 1);
    const mj = await assertJsonOutput(mismatch.stdout);
    assert.equal(mj.format, "schemapin.bundle.verify/1");
    assert.equal(mj.ok, false);
    assert.equal((mj.error as { code: string }).code, "KEY_PIN_MISMATCH");
    assert.equal(mj.expected_fingerprint, FP1);
    assert.equal(mj.failed_step, 4);

    const ref = JSON.parse(await Deno.readTextFile(REFERENCE_BUNDLE_PATH));
    const write = async (name: string, value: unknown) => {
      await Deno.writeTextFile(
        `${dir}/${name}`,
        typeof value === "string" ? value : JSON.stringify(value),
      );
      return `${dir}/${name}`;
    };
    const args = (
      file: string,
    ) => ["bundle", "verify", file, "--authority", `${REFERENCE_KID}=${REF_FP}`];
    const tampered = await write("tampered.json", { ...ref, signed_at: "2026-05-16T00:00:00Z" });
    const t = await runInProcess(args(tampered));
    assert.equal(t.code, 1);
    assert.match(t.stderr, /SIGNATURE_INVALID/);
    const extra = await write("extra.json", { ...ref, x_note: "hi" });
    const e = await runInProcess(args(extra));
    assert.equal(e.code, 0, e.stderr);
    assert.match(e.stderr, /not covered by the signature were ignored: x_note/);
    const expired = await write("expired.json", { ...ref, expires_at: "2020-01-01T00:00:00Z" });
    const x = await runInProcess(args(expired));
    assert.equal(x.code, 1);
    assert.match(x.stderr, /BUNDLE_EXPIRED/);
    const badExpiry = await write("bad-expiry.json", { ...ref, expires_at: "2099-01-01" });
    assert.match(
      (await runInProcess(args(badExpiry))).stderr,
      /BUNDLE_EXPIRED: .*not a strict RFC 3339/,
    );
    const unsigned = { ...ref };
    delete unsigned.signature;
    const u = await runInProcess(args(await write("unsigned.json", unsigned)));
    assert.equal(u.code, 1);
    assert.match(u.stderr, /BUNDLE_UNSIGNED/);

    // Malformed input: exit 2, naming the file and the field.
    const dup = await write("dup.json", {
      ...ref,
      documents: [ref.documents[0], ref.documents[0]],
    });
    const d = await runInProcess(args(dup));
    assert.equal(d.code, 2);
    assert.match(
      d.stderr,
      /DISCOVERY_INVALID: .*dup\.json: documents\[1\]\.domain repeats example\.com/,
    );
    const badDoc = await write("bad-doc.json", {
      ...ref,
      documents: [{ ...ref.documents[0], revoked_keys: "none" }],
    });
    const bd = await runInProcess([...args(badDoc), "--json"]);
    assert.equal(bd.code, 2);
    const bdj = await assertJsonOutput(bd.stdout);
    assert.equal(bdj.ok, false);
    const bdError = bdj.error as { code: string; message: string };
    assert.equal(bdError.code, "DISCOVERY_INVALID");
    assert.match(bdError.message, /bad-doc\.json: documents\[0\].*revoked_keys/);
    const notJson = await write("not.json", '{"a":1,}');
    const nj = await runInProcess(args(notJson));
    assert.equal(nj.code, 2);
    assert.match(nj.stderr, /JSON_INVALID: .*not\.json/);
    const missing = await runInProcess(args(`${dir}/missing.json`));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /IO_FAILED: .*missing\.json/);
  });
});

Deno.test("bundle verify: bad authority arguments are usage errors (exit 2)", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const base = ["bundle", "verify", REFERENCE_BUNDLE_PATH];
    const cases: [string[], RegExp][] = [
      [["--authority", "no-equals"], /not KID=FINGERPRINT/],
      [["--authority", `k=sha256:abc`], /fingerprint must be sha256:/],
      [["--authority", `=${FP1}`], /not KID=FINGERPRINT/],
      [
        ["--authority", `k=${FP1}`, "--authority", `k=${REF_FP}`],
        /given twice with different keys/,
      ],
      [["--authority-key", `k=${dir}/nope.pem`], /IO_FAILED/],
      [["--authority-key", `k=${s.key1}`], /KEY_INVALID/],
      [["--frobnicate"], /unknown option --frobnicate/],
      [[REFERENCE_BUNDLE_PATH], /expected one BUNDLE/],
    ];
    for (const [extra, re] of cases) {
      const r = await runInProcess([...base, ...extra]);
      assert.equal(r.code, 2, extra.join(" "));
      assert.match(r.stderr, re, extra.join(" "));
    }
  });
});

Deno.test("bundle verify --trust-first-use: opt-in, recorded in --authority-store, then enforced", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const file = await signedBundle(s);
    const store = `${dir}/authorities.json`;
    const refused = await runInProcess(["bundle", "verify", file, "--authority-store", store]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /BUNDLE_AUTHORITY_UNTRUSTED/);
    assert.equal(await Deno.stat(store).then(() => true, () => false), false, "nothing written");

    const first = await runInProcess([
      "bundle",
      "verify",
      file,
      "--authority-store",
      store,
      "--trust-first-use",
      "--json",
    ]);
    assert.equal(first.code, 0, first.stderr);
    const fj = await assertJsonOutput(first.stdout);
    assert.equal(fj.ok, true);
    assert.equal(fj.first_use, true);
    assert.match(first.stderr, /trusted on first use .*recorded in .*authorities\.json/);
    const rec = (await readJson(store)).authorities as Record<string, unknown>[];
    assert.deepEqual(rec.map((r) => [r.kid, r.fingerprint, r.source]), [[
      "auth-1",
      FP1,
      "first_use",
    ]]);

    const again = await runInProcess([
      "bundle",
      "verify",
      file,
      "--authority-store",
      store,
      "--json",
    ]);
    assert.equal(again.code, 0, again.stderr);
    const aj = await assertJsonOutput(again.stdout);
    assert.equal(aj.ok, true);
    assert.equal(aj.first_use, false);
    // Another key under the recorded kid is refused even with the opt-in.
    const forged = await signedBundle(s, "forged.json", s.key2, "auth-1");
    const f = await runInProcess([
      "bundle",
      "verify",
      forged,
      "--authority-store",
      store,
      "--trust-first-use",
    ]);
    assert.equal(f.code, 1);
    assert.match(f.stderr, /KEY_PIN_MISMATCH/);
    // Without a store, first use is accepted once and not remembered.
    const mem = await runInProcess(["bundle", "verify", forged, "--trust-first-use"]);
    assert.equal(mem.code, 0, mem.stderr);
    assert.match(mem.stderr, /not recorded/);
    // A command-line authority that contradicts the store fails (exit 1).
    const contra = await runInProcess([
      "bundle",
      "verify",
      file,
      "--authority-store",
      store,
      "--authority",
      `auth-1=${AUTH_2.publicKey.fingerprint}`,
    ]);
    assert.equal(contra.code, 1);
    assert.match(contra.stderr, /KEY_PIN_MISMATCH/);
  });
});

Deno.test("bundle add: adds, replaces on request, refuses signed bundles and duplicates", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const out = `${dir}/b.json`;
    assert.equal((await runInProcess(["bundle", "create", "--out", out])).code, 0);
    const add = await runInProcess(["bundle", "add", out, "--discovery", `a.example=${s.wkA}`]);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /updated .*documents: a\.example/);
    const dup = await runInProcess(["bundle", "add", out, "--discovery", `A.example=${s.wkB}`]);
    assert.equal(dup.code, 2);
    assert.match(dup.stderr, /already has a discovery document for a\.example/);
    const rep = await runInProcess([
      "bundle",
      "add",
      out,
      "--discovery",
      `a.example=${s.wkB}`,
      "--replace",
      "--json",
    ]);
    assert.equal(rep.code, 0, rep.stderr);
    const docs = (await readJson(out)).documents as Record<string, unknown>[];
    assert.equal(docs[0].public_key_pem, DEV_B.publicKey.pem);
    const signed = await signedBundle(s);
    const before = await Deno.readTextFile(signed);
    const refused = await runInProcess([
      "bundle",
      "add",
      signed,
      "--discovery",
      `c.example=${s.wkA}`,
    ]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /signed bundle; adding documents would invalidate/);
    assert.equal(await Deno.readTextFile(signed), before);
    assert.equal((await runInProcess(["bundle", "add", out])).code, 2, "nothing to add");
    // stdin in, stdout out.
    const piped = await runInProcess(
      ["bundle", "add", "-", "--discovery", `c.example=${s.wkA}`],
      await Deno.readTextFile(out),
    );
    assert.equal(piped.code, 0, piped.stderr);
    assert.deepEqual(
      (JSON.parse(piped.stdout).documents as { domain: string }[]).map((d) => d.domain),
      ["a.example", "c.example"],
    );
  });
});

Deno.test("bundle create: malformed inputs name the file and field (exit 2); no silent overwrite", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const bad = `${dir}/bad-wk.json`;
    await Deno.writeTextFile(bad, JSON.stringify({ ...wellKnown(DEV_A), revoked_keys: ["nope"] }));
    const r = await runInProcess([
      "bundle",
      "create",
      "--out",
      `${dir}/x.json`,
      "--discovery",
      `a.example=${bad}`,
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad-wk\.json: revoked_keys\[0\]/);
    assert.equal(await Deno.stat(`${dir}/x.json`).then(() => true, () => false), false);
    const wrongDomain = await runInProcess([
      "bundle",
      "create",
      "--out",
      `${dir}/x.json`,
      "--revocation",
      `b.example=${s.revA}`,
    ]);
    assert.equal(wrongDomain.code, 2);
    assert.match(wrongDomain.stderr, /a\.example, not b\.example/);
    const badDomain = await runInProcess([
      "bundle",
      "create",
      "--out",
      `${dir}/x.json`,
      "--discovery",
      `https://a.example=${s.wkA}`,
    ]);
    assert.equal(badDomain.code, 2);
    const noEq = await runInProcess([
      "bundle",
      "create",
      "--out",
      `${dir}/x.json`,
      "--discovery",
      s.wkA,
    ]);
    assert.equal(noEq.code, 2);
    assert.match(noEq.stderr, /not DOMAIN=FILE/);
    assert.equal((await runInProcess(["bundle", "create"])).code, 2);
    assert.equal((await runInProcess(["bundle", "create", "--out", `${dir}/y.json`])).code, 0);
    const again = await runInProcess(["bundle", "create", "--out", `${dir}/y.json`]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already exists/);
  });
});

Deno.test("bundle sign: argument and key errors exit 2 and leave the bundle alone", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const out = `${dir}/b.json`;
    await runInProcess(["bundle", "create", "--out", out, "--discovery", `a.example=${s.wkA}`]);
    const before = await Deno.readTextFile(out);
    const cases: [string[], RegExp][] = [
      [["--kid", "k"], /--key PRIVATE\.pem is required/],
      [["--key", s.key1], /--kid KID is required/],
      [["--key", s.key1, "--kid", " k"], /--kid: the kid starts or ends with whitespace/],
      [["--key", s.pub1, "--kid", "k"], /KEY_INVALID/],
      [["--key", s.key1, "--kid", "k", "--expires-in", "soon"], /not a duration/],
      [["--key", s.key1, "--kid", "k", "--expires-at", "2020-01-01T00:00:00Z"], /in the past/],
      [["--key", s.key1, "--kid", "k", "--expires-at", "2099-01-01"], /strict RFC 3339/],
      [[
        "--key",
        s.key1,
        "--kid",
        "k",
        "--expires-in",
        "1d",
        "--expires-at",
        "2099-01-01T00:00:00Z",
      ], /not both/],
    ];
    for (const [extra, re] of cases) {
      const r = await runInProcess(["bundle", "sign", out, ...extra]);
      assert.equal(r.code, 2, extra.join(" "));
      assert.match(r.stderr, re, extra.join(" "));
    }
    assert.equal(await Deno.readTextFile(out), before);
    // Re-signing says so; --out leaves the input untouched.
    const signed = `${dir}/signed.json`;
    assert.equal(
      (await runInProcess(["bundle", "sign", out, "--key", s.key1, "--kid", "a1", "--out", signed]))
        .code,
      0,
    );
    const re = await runInProcess(["bundle", "sign", signed, "--key", s.key2, "--kid", "a2"]);
    assert.equal(re.code, 0, re.stderr);
    assert.match(re.stderr, /signed by "a1"; that signature is replaced/);
    assert.equal(await Deno.readTextFile(out), before);
  });
});

Deno.test("bundle merge: verified inputs only, precedence, unsigned output", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const b1 = await signedBundle(s, "one.json", s.key1, "auth-1");
    // A second bundle from auth-2 with another key for a.example.
    const two = `${dir}/two.json`;
    await runInProcess([
      "bundle",
      "create",
      "--out",
      two,
      "--discovery",
      `a.example=${s.wkB}`,
      "--discovery",
      `z.example=${s.wkB}`,
    ]);
    await runInProcess(["bundle", "sign", two, "--key", s.key2, "--kid", "auth-2"]);
    const auth = [
      "--authority",
      `auth-1=${FP1}`,
      "--authority",
      `auth-2=${AUTH_2.publicKey.fingerprint}`,
    ];
    const out = `${dir}/merged.json`;
    const m = await runInProcess([
      "bundle",
      "merge",
      out,
      b1,
      two,
      ...auth,
      "--precedence",
      "auth-1,auth-2",
      "--json",
    ]);
    assert.equal(m.code, 0, m.stderr);
    const mj = await assertJsonOutput(m.stdout);
    assert.equal(mj.format, "schemapin.bundle.merge/1");
    assert.equal(mj.ok, true);
    assert.equal(mj.error, undefined);
    assert.equal(mj.merged, undefined);
    assert.deepEqual(mj.documents, ["a.example", "z.example"]);
    const merged = await readJson(out);
    assert.equal(Object.hasOwn(merged, "signature"), false);
    assert.equal(merged.schemapin_bundle_version, "1.2");
    const a = (merged.documents as Record<string, unknown>[]).find((d) => d.domain === "a.example");
    assert.equal(a?.public_key_pem, DEV_A.publicKey.pem, "auth-1 has precedence");
    // The same output again, with the other precedence: replacing it needs --force.
    const m2 = await runInProcess([
      "bundle",
      "merge",
      out,
      b1,
      two,
      ...auth,
      "--precedence",
      "auth-2",
      "--force",
    ]);
    assert.equal(m2.code, 0, m2.stderr);
    const a2 = ((await readJson(out)).documents as Record<string, unknown>[]).find((d) =>
      d.domain === "a.example"
    );
    assert.equal(a2?.public_key_pem, DEV_B.publicKey.pem);

    // One input that does not verify: exit 1, nothing written.
    const out3 = `${dir}/merged3.json`;
    const bad = await runInProcess([
      "bundle",
      "merge",
      out3,
      b1,
      two,
      "--authority",
      `auth-1=${FP1}`,
    ]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /BUNDLE_AUTHORITY_UNTRUSTED: .*two\.json/);
    assert.match(bad.stderr, /nothing written/);
    assert.equal(await Deno.stat(out3).then(() => true, () => false), false);
    // Unsigned inputs cannot be merged (use bundle add).
    const plain = `${dir}/plain.json`;
    await runInProcess(["bundle", "create", "--out", plain]);
    const u = await runInProcess(["bundle", "merge", out3, plain, ...auth, "--json"]);
    assert.equal(u.code, 1);
    const uj = await assertJsonOutput(u.stdout);
    assert.equal(uj.ok, false);
    const input0 = (uj.inputs as Record<string, unknown>[])[0];
    assert.equal(input0.ok, false);
    assert.equal((input0.error as { code: string }).code, "BUNDLE_UNSIGNED");
    // Usage errors.
    for (
      const extra of [[out3], [b1, b1, ...auth], [out3, b1, "--precedence", "a,,b"], [
        out3,
        b1,
        "--precedence",
        "a,a",
      ]]
    ) {
      assert.equal((await runInProcess(["bundle", "merge", ...extra])).code, 2, extra.join(" "));
    }
  });
});

Deno.test("bundle show: contents, unverified; malformed is exit 2", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const file = await signedBundle(s);
    const t = await runInProcess(["bundle", "show", file]);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /signed by: auth-1 sha256:.*NOT verified/);
    assert.match(t.stdout, /a\.example {2}Dev A {2}sha256:/);
    const j = await runInProcess(["bundle", "show", REFERENCE_BUNDLE_PATH, "--json"]);
    assert.equal(j.code, 0, j.stderr);
    const sj = await assertJsonOutput(j.stdout);
    assert.equal(sj.format, "schemapin.bundle.show/1");
    assert.equal(sj.ok, true);
    assert.equal(sj.signed, true);
    assert.equal(sj.verified, false);
    assert.deepEqual(sj.authority, { kid: REFERENCE_KID, fingerprint: REF_FP });
    assert.equal(
      (sj.documents as Record<string, unknown>[])[0].key_fingerprint,
      null,
      "the fixture's MOCK key does not parse",
    );
    await Deno.writeTextFile(
      `${dir}/bad.json`,
      JSON.stringify({ schemapin_bundle_version: "1.2", documents: [] }),
    );
    const bad = await runInProcess(["bundle", "show", `${dir}/bad.json`]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /bad\.json: created_at is missing/);
  });
});

Deno.test("bundle: help, unknown subcommands", async () => {
  const help = await runInProcess(["bundle", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /schemapin bundle verify BUNDLE/);
  assert.match(help.stdout, /Exit codes: 0/);
  const none = await runInProcess(["bundle"]);
  assert.equal(none.code, 2);
  const unknown = await runInProcess(["bundle", "frobnicate"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown subcommand "frobnicate"/);
  const proto = await runInProcess(["bundle", "constructor"]);
  assert.equal(proto.code, 2);
});

Deno.test("bundle verify as a real process (compile permission flags)", async () => {
  const ok = await runCliProcess([
    "bundle",
    "verify",
    REFERENCE_BUNDLE_PATH,
    "--authority-key",
    `${REFERENCE_KID}=${REFERENCE_PUBLIC_PATH}`,
    "--json",
  ]);
  assert.equal(ok.code, 0, ok.stderr);
  const okj = await assertJsonOutput(ok.stdout);
  assert.equal(okj.ok, true);
  assert.equal(okj.fingerprint, REF_FP);
  const no = await runCliProcess(["bundle", "verify", REFERENCE_BUNDLE_PATH]);
  assert.equal(no.code, 1);
});
