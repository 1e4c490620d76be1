// CLI tests for sign-schema, verify-schema, well-known, revoke, pins, chain and
// keygen --write-discovery: in process (buffer I/O) and, for a few, as real `deno run` processes.
import assert from "node:assert/strict";
import { exists, runCliProcess, runInProcess, withTempDir } from "./run.ts";
import { assertJsonOutput } from "./json_schemas.ts";
import { makeVerifySchemaCommand } from "../../cli/commands/verify_schema.ts";
import type { CliIO } from "../../cli/commands/command.ts";
import { keygenCommand } from "../../cli/commands/keygen.ts";
import { privateKeyToPem } from "../../lib/crypto/keys.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { signSchemaDocument } from "../../lib/schema/document.ts";
import {
  discoveryFor,
  INTEROP,
  INTEROP_BUNDLE,
  OTHER,
  SIGNER,
  toolSchema,
} from "../schema/_fixtures.ts";

// Tests that set HOME keep Deno's cache where it is (DENO_DIR defaults to $HOME/.cache/deno).
const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
const homeEnv = (home: string, extra: Record<string, string> = {}) => ({
  HOME: home,
  DENO_DIR,
  ...extra,
});

interface Setup {
  dir: string;
  key: string;
  pub: string;
  wk: string;
  schema: string;
  pins: string;
}

async function setup(dir: string): Promise<Setup> {
  const s: Setup = {
    dir,
    key: `${dir}/private.pem`,
    pub: `${dir}/public.pem`,
    wk: `${dir}/schemapin.json`,
    schema: `${dir}/calc.json`,
    pins: `${dir}/state/pins.json`,
  };
  await Deno.writeTextFile(s.key, privateKeyToPem(SIGNER));
  await Deno.writeTextFile(s.pub, SIGNER.publicKey.pem);
  await Deno.writeTextFile(s.wk, JSON.stringify(discoveryFor(SIGNER)));
  await Deno.writeTextFile(s.schema, JSON.stringify(toolSchema()));
  return s;
}

const signArgs = (s: Setup, ...more: string[]) => [
  "sign-schema",
  s.schema,
  "--key",
  s.key,
  ...more,
];

const verifyArgs = (s: Setup, sig: string, ...more: string[]) => [
  "verify-schema",
  s.schema,
  "--signature",
  sig,
  "--domain",
  "example.com",
  "--discovery",
  s.wk,
  "--pin-store",
  s.pins,
  ...more,
];

Deno.test("sign-schema (bare) then verify-schema: first use with opt-in, then the pin", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const signed = await runInProcess(signArgs(s));
    assert.equal(signed.code, 0, signed.stderr);
    assert.match(signed.stdout, /^[A-Za-z0-9+/]+=*\n$/);
    await Deno.writeTextFile(`${dir}/calc.json.sig`, signed.stdout);
    const first = await runInProcess(verifyArgs(s, `${dir}/calc.json.sig`, "--trust-first-use"));
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^OK calculate_sum@example\.com: .*pinned on first use/);
    const pins = parseJson(await Deno.readFile(s.pins)) as { pins: Record<string, string>[] };
    assert.equal(pins.pins[0].fingerprint, SIGNER.publicKey.fingerprint);
    const again = await runInProcess(verifyArgs(s, `${dir}/calc.json.sig`));
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /pin matches/);
    // --signature B64 works the same.
    const inline = await runInProcess([
      ...verifyArgs(s, "x").filter((a, i, all) =>
        !(a === "--signature" || all[i - 1] === "--signature")
      ),
      "--signature",
      signed.stdout.trim(),
    ]);
    assert.equal(inline.code, 0, inline.stderr);
  });
});

Deno.test("verify-schema: invalid signature exits 1 and writes no pin", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const signed = await runInProcess(signArgs(s, "--out", `${dir}/calc.json.sig`));
    assert.equal(signed.code, 0, signed.stderr);
    await Deno.writeTextFile(s.schema, JSON.stringify({ ...toolSchema(), description: "evil" }));
    const r = await runInProcess(verifyArgs(s, `${dir}/calc.json.sig`, "--trust-first-use"));
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^FAIL calculate_sum@example\.com: SIGNATURE_INVALID/);
    assert.equal(await exists(s.pins), false);
    const j = await runInProcess(
      verifyArgs(s, `${dir}/calc.json.sig`, "--trust-first-use", "--json"),
    );
    assert.equal(j.code, 1);
    const result = await assertJsonOutput(j.stdout);
    assert.equal(result.format, "schemapin.verify-schema/1");
    assert.equal(result.ok, false);
    assert.equal((result.error as { code: string }).code, "SIGNATURE_INVALID");
    assert.equal(result.key_pinning, "not_pinned");
  });
});

Deno.test("verify-schema: first use without opt-in or terminal fails with a hint", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    await runInProcess(signArgs(s, "--out", `${dir}/calc.json.sig`));
    const r = await runInProcess(verifyArgs(s, `${dir}/calc.json.sig`));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /KEY_NOT_FOUND/);
    assert.match(r.stderr, /--trust-first-use|pins add/);
    assert.ok(r.stderr.includes(SIGNER.publicKey.fingerprint));
    assert.equal(await exists(s.pins), false);
  });
});

function captureIO(): { io: CliIO; out: () => string; err: () => string } {
  let out = "", err = "";
  return {
    io: {
      stdout: (d) => {
        out += typeof d === "string" ? d : new TextDecoder().decode(d);
        return Promise.resolve();
      },
      stderr: (t) => {
        err += t;
        return Promise.resolve();
      },
      readStdin: () => Promise.resolve(new Uint8Array()),
      stderrIsTerminal: true,
    },
    out: () => out,
    err: () => err,
  };
}

Deno.test("verify-schema: the interactive prompt shows the fingerprint and pins only on yes", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    await runInProcess(signArgs(s, "--out", `${dir}/calc.json.sig`));
    const asked: string[] = [];
    const no = makeVerifySchemaCommand({ prompt: (q) => (asked.push(q), Promise.resolve("n")) });
    const c1 = captureIO();
    assert.equal(await no.run(verifyArgs(s, `${dir}/calc.json.sig`).slice(1), c1.io), 1);
    assert.equal(asked.length, 1);
    assert.ok(asked[0].includes(SIGNER.publicKey.fingerprint));
    assert.match(asked[0], /\[y\/N\]/);
    assert.equal(await exists(s.pins), false);
    const yes = makeVerifySchemaCommand({ prompt: () => Promise.resolve("yes") });
    const c2 = captureIO();
    assert.equal(await yes.run(verifyArgs(s, `${dir}/calc.json.sig`).slice(1), c2.io), 0, c2.err());
    const pins = parseJson(await Deno.readFile(s.pins)) as { pins: Record<string, string>[] };
    assert.equal(pins.pins[0].source, "confirmed");
    // A bad signature is never offered for confirmation.
    let prompted = false;
    const spy = makeVerifySchemaCommand({
      prompt: () => ((prompted = true), Promise.resolve("y")),
    });
    await Deno.writeTextFile(`${dir}/bad.sig`, "MEUCIQ==");
    await spy.run(verifyArgs(s, `${dir}/bad.sig`, "--tool-id", "other").slice(1), captureIO().io);
    assert.equal(prompted, false);
  });
});

Deno.test("sign-schema with metadata writes a 1.4 document that verifies; expiry is enforced", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const r = await runInProcess(
      signArgs(
        s,
        "--expires-in",
        "30d",
        "--schema-version",
        "1.2.0",
        "--domain",
        "example.com",
        "--signer-kid",
        "k1",
        "--out",
        `${dir}/calc.json.sig`,
      ),
    );
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(await Deno.readTextFile(`${dir}/calc.json.sig`));
    assert.equal(doc.schemapin_version, "1.4");
    assert.match(doc.signed_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const ms = Date.parse(doc.expires_at) - Date.parse(doc.signed_at);
    assert.equal(ms, 30 * 86_400_000);
    const v = await runInProcess(
      verifyArgs(s, `${dir}/calc.json.sig`, "--trust-first-use", "--json"),
    );
    assert.equal(v.code, 0, v.stderr);
    const result = await assertJsonOutput(v.stdout);
    assert.equal(result.format, "schemapin.verify-schema/1");
    assert.equal(result.ok, true);
    assert.equal(result.error, undefined);
    assert.equal(result.schema_version, "1.2.0");
    assert.equal(result.signature_format, "document");
    assert.equal(result.document, undefined);
    // An expired document: exit 1; with --allow-expired: 0 and a warning.
    const expired = signSchemaDocument(toolSchema(), SIGNER, {
      signedAt: Date.UTC(2020, 0, 1),
      expiresAt: Date.UTC(2020, 1, 1),
    });
    await Deno.writeTextFile(`${dir}/old.sig`, JSON.stringify(expired));
    const e1 = await runInProcess(verifyArgs(s, `${dir}/old.sig`));
    assert.equal(e1.code, 1);
    assert.match(e1.stdout, /SIGNATURE_EXPIRED/);
    const e2 = await runInProcess(verifyArgs(s, `${dir}/old.sig`, "--allow-expired"));
    assert.equal(e2.code, 0, e2.stderr);
    assert.match(e2.stderr, /warning: the signature has expired/);
    // Usage errors for metadata.
    for (
      const bad of [
        ["--expires-in", "30 days"],
        ["--expires-at", "2099-01-01"],
        ["--expires-at", "2001-01-01T00:00:00Z"],
        ["--expires-in", "1d", "--expires-at", "2099-01-01T00:00:00Z"],
        ["--previous-hash", "abc"],
        ["--domain", "http://x.com"],
      ]
    ) {
      const u = await runInProcess(signArgs(s, ...bad));
      assert.equal(u.code, 2, bad.join(" "));
    }
  });
});

Deno.test("verify-schema: malformed inputs exit 2 with a message naming the file", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    await runInProcess(signArgs(s, "--out", `${dir}/calc.json.sig`));
    const sig = `${dir}/calc.json.sig`;
    const cases: [() => Promise<string[]>, RegExp][] = [
      [
        async () => (await Deno.writeTextFile(`${dir}/broken.json`, '{"name": "x",}'),
          [...verifyArgs(s, sig).map((a) => a === s.schema ? `${dir}/broken.json` : a)]),
        /broken\.json/,
      ],
      [
        async () => (await Deno.writeTextFile(`${dir}/dup.json`, '{"name":"x","name":"y"}'),
          [...verifyArgs(s, sig).map((a) => a === s.schema ? `${dir}/dup.json` : a)]),
        /dup\.json.*duplicate/,
      ],
      [() => Promise.resolve(verifyArgs(s, `${dir}/missing.sig`)), /missing\.sig/],
      [
        async () => (await Deno.writeTextFile(`${dir}/garbage.sig`, "not a signature!"),
          verifyArgs(s, `${dir}/garbage.sig`)),
        /garbage\.sig/,
      ],
      [
        async () => (await Deno.writeTextFile(
          `${dir}/doc.sig`,
          '{"schemapin_version":"1.4","signature":"x"}',
        ),
          verifyArgs(s, `${dir}/doc.sig`)),
        /doc\.sig.*schema_hash is missing/,
      ],
      [
        async () => (await Deno.writeTextFile(`${dir}/empty.sig`, "\n"),
          verifyArgs(s, `${dir}/empty.sig`)),
        /empty\.sig is empty/,
      ],
      [
        async () => (await Deno.writeTextFile(s.wk, '{"developer_name":"x"}'), verifyArgs(s, sig)),
        /schemapin\.json: schema_version is missing/,
      ],
      [
        async () => (await Deno.writeTextFile(
          s.wk,
          JSON.stringify(discoveryFor(SIGNER, { public_key_pem: privateKeyToPem(SIGNER) })),
        ),
          verifyArgs(s, sig)),
        /schemapin\.json/,
      ],
      [
        async () => (await Deno.writeTextFile(s.wk, JSON.stringify(discoveryFor())),
          await Deno.writeTextFile(`${dir}/rev.json`, '{"domain":"example.com"}'),
          verifyArgs(s, sig, "--revocation", `${dir}/rev.json`)),
        /rev\.json/,
      ],
      [
        async () => (await Deno.writeTextFile(`${dir}/noname.json`, "{}"),
          verifyArgs(s, sig).map((a) => a === s.schema ? `${dir}/noname.json` : a)),
        /noname\.json has no usable "name"/,
      ],
    ];
    for (const [make, re] of cases) {
      const args = await make();
      const r = await runInProcess(args);
      assert.equal(r.code, 2, `${args.join(" ")}\n${r.stdout}${r.stderr}`);
      assert.match(r.stderr, re);
      assert.equal(await exists(s.pins), false);
    }
  });
});

Deno.test("verify-schema: argument errors exit 2", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const base = ["verify-schema", s.schema, "--signature-base64", "MEUCIQ=="];
    const cases: [string[], RegExp][] = [
      [[...base, "--discovery", s.wk], /--domain D is required/],
      [[...base, "--domain", "https://example.com", "--discovery", s.wk], /scheme/],
      [[...base, "--domain", "example.com"], /exactly one key source/],
      [
        [...base, "--domain", "example.com", "--discovery", s.wk, "--bundle", s.wk],
        /exactly one key source/,
      ],
      [[...base, "--domain", "example.com", "--well-known", "--timeout", "0"], /--timeout/],
      [
        ["verify-schema", s.schema, "--domain", "example.com", "--discovery", s.wk],
        /exactly one of --signature/,
      ],
      [
        [...base, "--signature", "x", "--domain", "example.com", "--discovery", s.wk],
        /exactly one of --signature/,
      ],
      [
        [...base, "--domain", "example.com", "--discovery", s.wk, "--tool-id", ""],
        /tool id is empty/,
      ],
      [
        [...base, "--domain", "example.com", "--discovery", s.wk, "--bogus"],
        /unknown option --bogus/,
      ],
    ];
    for (const [args, re] of cases) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.match(r.stderr, re);
    }
  });
});

Deno.test("verify-schema: revocation document, canonicalization id and interop fixtures", async () => {
  await withTempDir(async (dir) => {
    const I = (n: string) => new URL(n, INTEROP).pathname;
    const fixture = JSON.parse(await Deno.readTextFile(I("schema_signatures.json")));
    const entry = fixture.signatures[0];
    await Deno.writeTextFile(`${dir}/calc.json`, JSON.stringify(entry.schema));
    const args = (...more: string[]) => [
      "verify-schema",
      `${dir}/calc.json`,
      "--signature",
      entry.signature,
      "--domain",
      "example.com",
      "--discovery",
      I("well_known.json"),
      "--pin-store",
      `${dir}/pins.json`,
      "--trust-first-use",
      ...more,
    ];
    assert.equal((await runInProcess(args("--revocation", I("revocations.json")))).code, 0);
    const revoked = await runInProcess(args("--revocation", I("revocations_signer_revoked.json")));
    assert.equal(revoked.code, 1);
    assert.match(revoked.stderr, /KEY_REVOKED.*superseded/);
    const listRevoked = await runInProcess(
      args().map((a) => a === I("well_known.json") ? I("well_known_revoked.json") : a),
    );
    assert.equal(listRevoked.code, 1);
    assert.match(listRevoked.stdout, /KEY_REVOKED/);
    // Reference signatures of schemas with no canonical form fail with exit 1.
    const reject = fixture.signatures.find((e: { expect: string }) =>
      e.expect.startsWith("reject")
    );
    await Deno.writeTextFile(`${dir}/big.json`, JSON.stringify(reject.schema));
    const r = await runInProcess(
      args().map((a) =>
        a === `${dir}/calc.json` ? `${dir}/big.json` : a === entry.signature ? reject.signature : a
      ),
    );
    assert.equal(r.code, 1);
    assert.match(r.stdout, /SCHEMA_CANONICALIZATION_FAILED/);
    // An unknown canonicalization in a document fails closed.
    const doc = { ...signSchemaDocument(toolSchema(), SIGNER, {}), canonicalization: "jcs" };
    await Deno.writeTextFile(`${dir}/jcs.sig`, JSON.stringify(doc));
    await Deno.writeTextFile(`${dir}/wk.json`, JSON.stringify(discoveryFor(SIGNER)));
    await Deno.writeTextFile(`${dir}/tool.json`, JSON.stringify(toolSchema()));
    const c = await runInProcess([
      "verify-schema",
      `${dir}/tool.json`,
      "--signature",
      `${dir}/jcs.sig`,
      "--domain",
      "example.com",
      "--discovery",
      `${dir}/wk.json`,
      "--pin-store",
      `${dir}/pins.json`,
      "--trust-first-use",
    ]);
    assert.equal(c.code, 1);
    assert.match(c.stdout, /CANONICALIZATION_UNSUPPORTED/);
  });
});

Deno.test("verify-schema --bundle: unsigned bundles work; signed, ambiguous or incomplete ones fail", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    await runInProcess(signArgs(s, "--out", `${dir}/calc.json.sig`));
    const bundle = (
      extra: Record<string, unknown> = {},
      docs = [{ domain: "example.com", ...discoveryFor(SIGNER) }],
    ) =>
      JSON.stringify({
        schemapin_bundle_version: "1.2",
        created_at: "2026-02-11T00:00:00Z",
        documents: docs,
        revocations: [],
        ...extra,
      });
    const args = (file: string, ...more: string[]) => [
      "verify-schema",
      s.schema,
      "--signature",
      `${dir}/calc.json.sig`,
      "--domain",
      "example.com",
      "--bundle",
      file,
      "--pin-store",
      s.pins,
      "--trust-first-use",
      ...more,
    ];
    await Deno.writeTextFile(`${dir}/b.json`, bundle());
    const ok = await runInProcess(args(`${dir}/b.json`));
    assert.equal(ok.code, 0, ok.stderr);
    await Deno.writeTextFile(
      `${dir}/rev.json`,
      bundle({
        revocations: [{
          schemapin_version: "1.2",
          domain: "example.com",
          updated_at: "2026-02-11T00:00:00Z",
          revoked_keys: [{
            fingerprint: SIGNER.publicKey.fingerprint,
            revoked_at: "2026-02-11T00:00:00Z",
            reason: "key_compromise",
          }],
        }],
      }),
    );
    const revoked = await runInProcess(args(`${dir}/rev.json`));
    assert.equal(revoked.code, 1);
    assert.match(revoked.stderr, /KEY_REVOKED/);
    const signed = await runInProcess(args(new URL(INTEROP_BUNDLE).pathname));
    assert.equal(signed.code, 1);
    assert.match(signed.stderr, /BUNDLE_AUTHORITY_UNTRUSTED.*allow-list/);
    await Deno.writeTextFile(
      `${dir}/sig.json`,
      bundle({ signature: "", bundle_authority: { kid: "x" } }),
    );
    assert.equal((await runInProcess(args(`${dir}/sig.json`))).code, 1);
    await Deno.writeTextFile(
      `${dir}/dup.json`,
      bundle({}, [{ domain: "example.com", ...discoveryFor(SIGNER) }, {
        domain: "example.com",
        ...discoveryFor(OTHER),
      }]),
    );
    const dup = await runInProcess(args(`${dir}/dup.json`));
    assert.equal(dup.code, 2);
    assert.match(dup.stderr, /DISCOVERY_INVALID: .*dup\.json.*more than one entry/);
    await Deno.writeTextFile(
      `${dir}/none.json`,
      bundle({}, [{ domain: "other.example", ...discoveryFor(SIGNER) }]),
    );
    const none = await runInProcess(args(`${dir}/none.json`));
    assert.equal(none.code, 1);
    assert.match(none.stderr, /KEY_NOT_FOUND/);
    assert.equal(
      (await runInProcess(args(`${dir}/b.json`, "--revocation", `${dir}/b.json`))).code,
      2,
    );
    const pins = parseJson(await Deno.readFile(s.pins)) as { pins: unknown[] };
    assert.equal(pins.pins.length, 1, "only the successful verification pinned");
  });
});

Deno.test("sign-schema --batch and verify-schema --batch, with a summary and --json", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    await Deno.mkdir(`${dir}/schemas`);
    for (const n of ["a", "b", "c"]) {
      await Deno.writeTextFile(`${dir}/schemas/${n}.json`, JSON.stringify(toolSchema(`tool_${n}`)));
    }
    await Deno.writeTextFile(`${dir}/schemas/notes.txt`, "ignored");
    const signed = await runInProcess([
      "sign-schema",
      "--batch",
      `${dir}/schemas`,
      "--out-dir",
      `${dir}/sigs`,
      "--key",
      s.key,
    ]);
    assert.equal(signed.code, 0, signed.stderr);
    assert.match(signed.stdout, /3 of 3 schema\(s\) signed/);
    const verify = (...more: string[]) =>
      runInProcess([
        "verify-schema",
        "--batch",
        `${dir}/schemas`,
        "--signature-dir",
        `${dir}/sigs`,
        "--domain",
        "example.com",
        "--discovery",
        s.wk,
        "--pin-store",
        s.pins,
        "--trust-first-use",
        ...more,
      ]);
    const ok = await verify();
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /3 of 3 schema\(s\) verified, 0 failed/);
    await Deno.writeTextFile(
      `${dir}/schemas/b.json`,
      JSON.stringify({ ...toolSchema("tool_b"), description: "evil" }),
    );
    await Deno.remove(`${dir}/sigs/c.json.sig`);
    const bad = await verify("--json");
    assert.equal(bad.code, 1);
    const out = await assertJsonOutput(bad.stdout);
    assert.equal(out.format, "schemapin.verify-schema.batch/1");
    assert.equal(out.ok, false);
    assert.equal((out.error as { code: string }).code, "BATCH_FAILED");
    assert.deepEqual(out.summary, { total: 3, verified: 1, failed: 2 });
    const results = out.results as {
      file: string;
      signature_file?: string;
      ok: boolean;
      error?: { code: string; message: string };
    }[];
    assert.deepEqual(
      results.map((r) => [r.file, r.ok, r.error?.code ?? "ok"]),
      [
        [`${dir}/schemas/a.json`, true, "ok"],
        [`${dir}/schemas/b.json`, false, "SIGNATURE_INVALID"],
        [`${dir}/schemas/c.json`, false, "SIGNATURE_INVALID"],
      ],
    );
    assert.equal(results[0].signature_file, `${dir}/sigs/a.json.sig`);
    assert.match(results[2].error!.message, /unsigned/);
    await Deno.writeTextFile(`${dir}/schemas/d.json`, "{oops");
    const malformed = await verify();
    assert.equal(malformed.code, 2);
    assert.match(malformed.stdout, /FAIL .*d\.json: JSON_INVALID/);
    // Batch signing with metadata writes documents; argument errors exit 2.
    const docs = await runInProcess([
      "sign-schema",
      "--batch",
      `${dir}/schemas`,
      "--pattern",
      "a.*",
      "--out-dir",
      `${dir}/docs`,
      "--key",
      s.key,
      "--schema-version",
      "1.0.0",
      "--json",
    ]);
    assert.equal(docs.code, 0, docs.stderr);
    const dj = await assertJsonOutput(docs.stdout);
    assert.equal(dj.format, "schemapin.sign-schema.batch/1");
    assert.equal(dj.ok, true);
    assert.deepEqual(dj.summary, { total: 1, signed: 1, failed: 0 });
    const signedDocs = dj.results as {
      file: string;
      ok: boolean;
      document: Record<string, unknown>;
      out: string;
    }[];
    assert.equal(signedDocs[0].ok, true);
    assert.equal(signedDocs[0].out, `${dir}/docs/a.json.sig`);
    assert.equal(signedDocs[0].document.schema_version, "1.0.0");
    assert.equal(
      (await runInProcess(["sign-schema", "--batch", `${dir}/schemas`, "--key", s.key])).code,
      2,
    );
    assert.equal(
      (await runInProcess([
        "sign-schema",
        "--batch",
        `${dir}/schemas`,
        "--out-dir",
        `${dir}/x`,
        "--pattern",
        "*.yaml",
        "--key",
        s.key,
      ])).code,
      2,
    );
    assert.equal(
      (await runInProcess([
        "sign-schema",
        "--batch",
        `${dir}/schemas`,
        "--out-dir",
        `${dir}/x`,
        "--key",
        s.key,
      ])).code,
      2,
      "d.json is malformed",
    );
  });
});

Deno.test("sign-schema and verify-schema read the schema from stdin with -", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const schemaText = JSON.stringify(toolSchema());
    const sig = await runInProcess(["sign-schema", "-", "--key", s.key], schemaText);
    assert.equal(sig.code, 0, sig.stderr);
    const v = await runInProcess([
      "verify-schema",
      "-",
      "--signature",
      sig.stdout.trim(),
      "--domain",
      "example.com",
      "--discovery",
      s.wk,
      "--pin-store",
      s.pins,
      "--trust-first-use",
    ], schemaText);
    assert.equal(v.code, 0, v.stderr);
    const bad = await runInProcess(["sign-schema", "-", "--key", s.key], "{");
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /stdin/);
  });
});

Deno.test("sign-schema: bad keys and schemas exit 2 naming the file", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const pubAsKey = await runInProcess(["sign-schema", s.schema, "--key", s.pub]);
    assert.equal(pubAsKey.code, 2);
    assert.match(pubAsKey.stderr, /public\.pem/);
    await Deno.writeTextFile(`${dir}/big.json`, '{"n": 9007199254740993}');
    const big = await runInProcess(["sign-schema", `${dir}/big.json`, "--key", s.key]);
    assert.equal(big.code, 2);
    assert.match(big.stderr, /big\.json/);
    assert.equal((await runInProcess(["sign-schema", s.schema])).code, 2);
    assert.equal((await runInProcess(["sign-schema", `${dir}/nope.json`, "--key", s.key])).code, 2);
  });
});

Deno.test("well-known prints a discovery document; keygen --write-discovery writes one", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const r = await runInProcess([
      "well-known",
      "--key",
      s.pub,
      "--developer",
      "Example Corp",
      "--contact",
      "sec@example.com",
      "--revocation-endpoint",
      "https://example.com/r.json",
      "--revoked",
      OTHER.publicKey.fingerprint,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(doc, {
      schema_version: "1.4",
      developer_name: "Example Corp",
      public_key_pem: SIGNER.publicKey.pem,
      revoked_keys: [OTHER.publicKey.fingerprint],
      contact: "sec@example.com",
      revocation_endpoint: "https://example.com/r.json",
    });
    assert.equal(
      JSON.parse((await runInProcess(["well-known", "--key", s.key, "--developer", "X"])).stdout)
        .public_key_pem,
      SIGNER.publicKey.pem,
    );
    for (
      const bad of [
        ["--developer", "X"],
        ["--key", s.pub],
        ["--key", s.pub, "--developer", "X", "--revoked", "sha256:zz"],
        ["--key", s.pub, "--developer", "X", "--revocation-endpoint", "http://x.com/r"],
        ["--key", `${dir}/calc.json`, "--developer", "X"],
      ]
    ) {
      assert.equal((await runInProcess(["well-known", ...bad])).code, 2, bad.join(" "));
    }
    const writeWk2 = ["well-known", "--key", s.pub, "--developer", "X", "--out", `${dir}/wk2.json`];
    assert.equal((await runInProcess(writeWk2)).code, 0);
    assert.equal((await runInProcess(writeWk2)).code, 2, "no overwrite without --force");
    // The old spellings (--out DIR, --well-known) still work for one release, with a note.
    const kg = await runInProcess([
      "keygen",
      "--unencrypted",
      "--out",
      `${dir}/k`,
      "--well-known",
      "--developer",
      "Example Corp",
    ]);
    assert.equal(kg.code, 0, kg.stderr);
    assert.match(kg.stderr, /note: keygen: --out is deprecated; use --out-dir\n/);
    assert.match(kg.stderr, /note: keygen: --well-known is deprecated; use --write-discovery\n/);
    // Its new --well-known meaning elsewhere (fetch over HTTPS) is not a keygen flag.
    assert.doesNotMatch(keygenCommand.help, /--well-known/);
    const wk = JSON.parse(await Deno.readTextFile(`${dir}/k/schemapin.json`));
    assert.equal(wk.public_key_pem, await Deno.readTextFile(`${dir}/k/public.pem`));
    assert.equal(
      (await runInProcess([
        "keygen",
        "--unencrypted",
        "--out-dir",
        `${dir}/k2`,
        "--write-discovery",
      ])).code,
      2,
    );
    assert.equal(await exists(`${dir}/k2/private.pem`), false);
  });
});

Deno.test("revoke builds and extends revocation documents", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const r = await runInProcess([
      "revoke",
      "--domain",
      "example.com",
      "--fingerprint",
      OTHER.publicKey.fingerprint,
      "--reason",
      "key_compromise",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.domain, "example.com");
    assert.equal(doc.revoked_keys[0].reason, "key_compromise");
    const into = `${dir}/revocations.json`;
    assert.equal(
      (await runInProcess([
        "revoke",
        "--domain",
        "example.com",
        "--fingerprint",
        OTHER.publicKey.fingerprint,
        "--reason",
        "superseded",
        "--into",
        into,
      ])).code,
      0,
    );
    assert.equal(
      (await runInProcess([
        "revoke",
        "--domain",
        "example.com",
        "--key",
        s.pub,
        "--reason",
        "privilege_withdrawn",
        "--into",
        into,
      ])).code,
      0,
    );
    const both = JSON.parse(await Deno.readTextFile(into));
    assert.deepEqual(both.revoked_keys.map((k: { fingerprint: string }) => k.fingerprint), [
      OTHER.publicKey.fingerprint,
      SIGNER.publicKey.fingerprint,
    ]);
    const again = await runInProcess([
      "revoke",
      "--domain",
      "example.com",
      "--key",
      s.pub,
      "--reason",
      "superseded",
      "--into",
      into,
    ]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already revoked/);
    const other = await runInProcess([
      "revoke",
      "--domain",
      "other.example",
      "--key",
      s.pub,
      "--reason",
      "superseded",
      "--into",
      into,
    ]);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /revocations\.json is the revocation document of example\.com/);
    await Deno.writeTextFile(`${dir}/junk.json`, '{"domain":"example.com"}');
    const junk = await runInProcess([
      "revoke",
      "--domain",
      "example.com",
      "--key",
      s.pub,
      "--reason",
      "superseded",
      "--into",
      `${dir}/junk.json`,
    ]);
    assert.equal(junk.code, 2);
    assert.match(junk.stderr, /junk\.json/);
    for (
      const bad of [
        ["--fingerprint", "x", "--reason", "superseded"],
        ["--key", s.pub, "--reason", "stolen"],
        ["--key", s.pub],
        ["--reason", "superseded"],
      ]
    ) {
      assert.equal(
        (await runInProcess(["revoke", "--domain", "example.com", ...bad])).code,
        2,
        bad.join(" "),
      );
    }
    // The document it wrote revokes the key in verify-schema.
    await runInProcess(signArgs(s, "--out", `${dir}/calc.json.sig`));
    const v = await runInProcess(
      verifyArgs(s, `${dir}/calc.json.sig`, "--trust-first-use", "--revocation", into),
    );
    assert.equal(v.code, 1);
    assert.match(v.stderr, /KEY_REVOKED/);
  });
});

Deno.test("pins: add, show, list, rotate, remove, export, import", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const P = ["--pin-store", s.pins];
    const add = await runInProcess([
      "pins",
      "add",
      "__proto__@example.com",
      "--fingerprint",
      SIGNER.publicKey.fingerprint,
      ...P,
    ]);
    assert.equal(add.code, 0, add.stderr);
    assert.equal(
      (await runInProcess(["pins", "add", "calc@example.com", "--discovery", s.wk, ...P])).code,
      0,
    );
    const conflict = await runInProcess([
      "pins",
      "add",
      "calc@example.com",
      "--fingerprint",
      OTHER.publicKey.fingerprint,
      ...P,
    ]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /KEY_PIN_MISMATCH/);
    const show = await runInProcess(["pins", "show", "__proto__@example.com", "--json", ...P]);
    assert.equal(show.code, 0);
    const shown = await assertJsonOutput(show.stdout);
    assert.equal(shown.format, "schemapin.pins.show/1");
    assert.equal(shown.ok, true);
    assert.equal((shown.pin as { tool_id: string }).tool_id, "__proto__");
    assert.equal((shown.pin as { domain: string }).domain, "example.com");
    assert.equal((await runInProcess(["pins", "show", "nope@example.com", ...P])).code, 1);
    const notPinned = await runInProcess(["pins", "show", "nope@example.com", "--json", ...P]);
    assert.equal(notPinned.code, 1);
    const np = await assertJsonOutput(notPinned.stdout);
    assert.equal(np.ok, false);
    assert.equal((np.error as { code: string }).code, "KEY_NOT_FOUND");
    assert.equal(np.pin, undefined);
    const list = await runInProcess(["pins", "list", ...P]);
    assert.match(list.stdout, /__proto__@example\.com\s+sha256:/);
    assert.match(list.stdout, /calc@example\.com/);
    assert.equal(
      (await runInProcess([
        "pins",
        "rotate",
        "calc@example.com",
        "--key",
        `${dir}/other.pem`,
        ...P,
      ])).code,
      2,
      "unreadable key",
    );
    await Deno.writeTextFile(`${dir}/other.pem`, OTHER.publicKey.pem);
    const rot = await runInProcess([
      "pins",
      "rotate",
      "calc@example.com",
      "--key",
      `${dir}/other.pem`,
      ...P,
    ]);
    assert.equal(rot.code, 0, rot.stderr);
    assert.ok(
      rot.stderr.includes(`${SIGNER.publicKey.fingerprint} -> ${OTHER.publicKey.fingerprint}`),
    );
    assert.equal(
      (await runInProcess([
        "pins",
        "rotate",
        "nope@example.com",
        "--key",
        `${dir}/other.pem`,
        ...P,
      ])).code,
      1,
    );
    const exported = await runInProcess(["pins", "export", ...P]);
    assert.equal(exported.code, 0);
    await Deno.writeTextFile(`${dir}/export.json`, exported.stdout);
    assert.equal((await runInProcess(["pins", "remove", "calc@example.com", ...P])).code, 0);
    assert.equal((await runInProcess(["pins", "remove", "calc@example.com", ...P])).code, 1);
    const imported = await runInProcess(["pins", "import", `${dir}/export.json`, ...P]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, /imported 1 new, 1 unchanged/);
    await runInProcess([
      "pins",
      "rotate",
      "calc@example.com",
      "--fingerprint",
      SIGNER.publicKey.fingerprint,
      ...P,
    ]);
    const clash = await runInProcess(["pins", "import", `${dir}/export.json`, ...P]);
    assert.equal(clash.code, 1);
    assert.match(clash.stderr, /calc@example\.com/);
    assert.equal(
      (await runInProcess(["pins", "import", `${dir}/export.json`, "--overwrite", ...P])).code,
      0,
    );
    await Deno.writeTextFile(`${dir}/bad.json`, '{"pins": []}');
    assert.equal((await runInProcess(["pins", "import", `${dir}/bad.json`, ...P])).code, 2);
    for (
      const bad of [
        ["pins"],
        ["pins", "frob"],
        ["pins", "show", "nodomain", ...P],
        ["pins", "add", "t@example.com", ...P],
        ["pins", "add", "t@example.com", "--fingerprint", "sha256:x", ...P],
        ["pins", "list", "--fingerprint", "x", ...P],
      ]
    ) {
      assert.equal((await runInProcess(bad)).code, 2, bad.join(" "));
    }
    // A corrupt store is reported, not replaced.
    await Deno.writeTextFile(s.pins, "{");
    const corrupt = await runInProcess([
      "pins",
      "add",
      "x@example.com",
      "--fingerprint",
      SIGNER.publicKey.fingerprint,
      ...P,
    ]);
    assert.equal(corrupt.code, 2);
    assert.match(corrupt.stderr, /pins\.json/);
    assert.equal(await Deno.readTextFile(s.pins), "{");
  });
});

Deno.test("chain: success, missing previous_hash, mismatch naming both hashes", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const v1 = `${dir}/v1.sig`, v2 = `${dir}/v2.sig`, v3 = `${dir}/v3.sig`;
    await runInProcess(signArgs(s, "--schema-version", "1.0.0", "--out", v1));
    const h1 = JSON.parse(await Deno.readTextFile(v1)).schema_hash;
    await Deno.writeTextFile(s.schema, JSON.stringify(toolSchema("calc_v2")));
    await runInProcess(
      signArgs(s, "--schema-version", "2.0.0", "--previous-hash", h1, "--out", v2),
    );
    const ok = await runInProcess(["chain", v2, v1]);
    assert.equal(ok.code, 0, ok.stderr);
    const none = await runInProcess(["chain", v1, v2, "--json"]);
    assert.equal(none.code, 1);
    const nj = await assertJsonOutput(none.stdout);
    assert.equal(nj.ok, false);
    assert.equal((nj.error as { code: string }).code, "CHAIN_NO_PREVIOUS_HASH");
    assert.equal(nj.reason, "no_previous_hash");
    await runInProcess(signArgs(s, "--previous-hash", "sha256:" + "e".repeat(64), "--out", v3));
    const mismatch = await runInProcess(["chain", v3, v1]);
    assert.equal(mismatch.code, 1);
    assert.ok(mismatch.stderr.includes(h1) && mismatch.stderr.includes("sha256:" + "e".repeat(64)));
    await Deno.writeTextFile(`${dir}/bare.sig`, "MEUCIQ==");
    const bare = await runInProcess(["chain", `${dir}/bare.sig`, v1]);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /bare\.sig/);
    assert.equal((await runInProcess(["chain", v1])).code, 2);
  });
});

Deno.test("real CLI: sign, verify (0), tampered (1), malformed (2)", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const env = homeEnv(dir);
    const signed = await runCliProcess(
      signArgs(s, "--expires-in", "1d", "--out", `${dir}/calc.json.sig`),
      { env },
    );
    assert.equal(signed.code, 0, signed.stderr);
    // No --pin-store: the default store (under HOME, or SCHEMAPIN_HOME) is what is tested.
    const verify = [
      "verify-schema",
      s.schema,
      "--signature",
      `${dir}/calc.json.sig`,
      "--domain",
      "example.com",
      "--discovery",
      s.wk,
    ];
    const ok = await runCliProcess([...verify, "--trust-first-use"], { env });
    assert.equal(ok.code, 0, ok.stderr);
    // The default pin store is ~/.schemapin/pins.json.
    const pins = JSON.parse(await Deno.readTextFile(`${dir}/.schemapin/pins.json`));
    assert.equal(pins.pins[0].tool_id, "calculate_sum");
    await Deno.writeTextFile(s.schema, JSON.stringify({ ...toolSchema(), description: "evil" }));
    const bad = await runCliProcess(verify, { env });
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /FAIL/);
    await Deno.writeTextFile(s.schema, "{");
    const malformed = await runCliProcess(verify, { env });
    assert.equal(malformed.code, 2);
    assert.match(malformed.stderr, /calc\.json/);
    // SCHEMAPIN_HOME moves the store.
    await Deno.writeTextFile(s.schema, JSON.stringify(toolSchema()));
    const moved = await runCliProcess([...verify, "--trust-first-use"], {
      env: homeEnv(dir, { SCHEMAPIN_HOME: `${dir}/sp` }),
    });
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal(await exists(`${dir}/sp/pins.json`), true);
  });
});

Deno.test("real CLI: concurrent first use from several processes leaves a valid pin file", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const sig = (await runInProcess(signArgs(s))).stdout.trim();
    const n = 6;
    // Distinct tools at once: every pin must survive. Then one tool from all processes at once.
    const verifyAs = (toolId: string) =>
      runCliProcess([
        "verify-schema",
        s.schema,
        "--signature",
        sig,
        "--tool-id",
        toolId,
        "--domain",
        "example.com",
        "--discovery",
        s.wk,
        "--pin-store",
        s.pins,
        "--trust-first-use",
      ], { env: homeEnv(dir) });
    const runs = await Promise.all(Array.from({ length: n }, (_, i) => verifyAs(`tool-${i}`)));
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const same = await Promise.all(Array.from({ length: n }, () => verifyAs("shared")));
    for (const r of same) assert.equal(r.code, 0, r.stderr);
    const file = parseJson(await Deno.readFile(s.pins)) as {
      schemapin_pins_version: number;
      pins: { tool_id: string }[];
    };
    assert.equal(file.schemapin_pins_version, 1);
    assert.deepEqual(
      file.pins.map((p) => p.tool_id).sort(),
      [...Array.from({ length: n }, (_, i) => `tool-${i}`), "shared"].sort(),
    );
    const names = [...Deno.readDirSync(`${dir}/state`)].map((e) => e.name).sort();
    assert.deepEqual(names, ["pins.json", "pins.json.lock"]);
  });
});
