// Rotation in one step (issue 27 item 4): `pins rotate --domain D` moves every pin of D and
// only those, atomically; the spellings that meant "the whole domain" point at --domain; a
// pinned key the publisher revoked is reported as such by verification, with the command.
import assert from "node:assert/strict";
import { generateKeyPair, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { runCliProcess, runInProcess, withTempDir } from "./run.ts";

const oldKey = generateKeyPair();
const newKey = generateKeyPair();
const OLD = oldKey.publicKey.fingerprint;
const NEW = newKey.publicKey.fingerprint;

async function seeded(dir: string): Promise<string> {
  const pins = `${dir}/pins.json`;
  for (const target of ["a@example.com", "b@example.com", "c@other.com"]) {
    const r = await runInProcess([
      "pins",
      "add",
      target,
      "--fingerprint",
      OLD,
      "--pin-store",
      pins,
    ]);
    assert.equal(r.code, 0, r.stderr);
  }
  return pins;
}

async function fingerprints(pins: string): Promise<Record<string, string>> {
  const doc = JSON.parse(await Deno.readTextFile(pins));
  return Object.fromEntries(
    doc.pins.map((p: { tool_id: string; domain: string; fingerprint: string }) => [
      `${p.tool_id}@${p.domain}`,
      p.fingerprint,
    ]),
  );
}

Deno.test("pins rotate --domain: every pin of the domain moves, and only those", async () => {
  await withTempDir(async (dir) => {
    const pins = await seeded(dir);
    const r = await runCliProcess([
      "pins",
      "rotate",
      "--domain",
      "Example.COM",
      "--fingerprint",
      NEW,
      "--pin-store",
      pins,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /2 pin\(s\) of example\.com rotated/);
    assert.deepEqual(await fingerprints(pins), {
      "a@example.com": NEW,
      "b@example.com": NEW,
      "c@other.com": OLD,
    });
    const doc = JSON.parse(await Deno.readTextFile(pins));
    const sources = doc.pins.map((p: { source: string }) => p.source);
    assert.deepEqual(sources, ["rotated", "rotated", "seeded"]);
    // Again: nothing left to move, still exit 0.
    const again = await runInProcess([
      "pins",
      "rotate",
      "--domain",
      "example.com",
      "--fingerprint",
      NEW,
      "--pin-store",
      pins,
    ]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /0 pin\(s\).*2 already on it/);
  });
});

// Issue 37 item 2: exact domains. A pin matches when its domain IS the domain given, after case
// folding (DNS names are case-insensitive; pins are stored lower-case): never a subdomain, never a
// look-alike sharing a suffix or a prefix. The library side is tests/pins/rotate_domain_test.ts.
const LOOKALIKES = [
  "api.example.com",
  "evilexample.com",
  "xample.com",
  "example.com.evil.net",
  "example.co",
];

async function seededLookalikes(dir: string): Promise<string> {
  const pins = `${dir}/pins.json`;
  const targets = ["a@Example.COM", ...LOOKALIKES.map((d) => `t@${d.toUpperCase()}`)];
  for (const target of targets) {
    const r = await runInProcess([
      "pins",
      "add",
      target,
      "--fingerprint",
      OLD,
      "--pin-store",
      pins,
    ]);
    assert.equal(r.code, 0, r.stderr);
  }
  return pins;
}

Deno.test("pins rotate --domain: subdomains and look-alike domains are not moved, in any case", async () => {
  await withTempDir(async (dir) => {
    const pins = await seededLookalikes(dir);
    const r = await runCliProcess([
      "pins",
      "rotate",
      "--domain",
      "eXample.com",
      "--fingerprint",
      NEW,
      "--pin-store",
      pins,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^1 pin\(s\) of example\.com rotated/m);
    assert.deepEqual(await fingerprints(pins), {
      "a@example.com": NEW,
      ...Object.fromEntries(LOOKALIKES.map((d) => [`t@${d}`, OLD])),
    });
    // A subdomain given moves that subdomain, and not its parent.
    const sub = await runInProcess([
      "pins",
      "rotate",
      "--domain",
      "API.example.com",
      "--fingerprint",
      NEW,
      "--pin-store",
      pins,
    ]);
    assert.equal(sub.code, 0, sub.stderr);
    const after = await fingerprints(pins);
    assert.equal(after["t@api.example.com"], NEW);
    assert.equal(after["t@evilexample.com"], OLD);
    assert.equal(after["t@example.com.evil.net"], OLD);
  });
});

Deno.test("pins rotate --domain: a suffix or a parent of the pinned domains is exit 1 and writes nothing", async () => {
  await withTempDir(async (dir) => {
    const pins = `${dir}/pins.json`;
    for (const target of ["t@api.example.com", "t@evilexample.com"]) {
      const r = await runInProcess([
        "pins",
        "add",
        target,
        "--fingerprint",
        OLD,
        "--pin-store",
        pins,
      ]);
      assert.equal(r.code, 0, r.stderr);
    }
    const before = await Deno.readTextFile(pins);
    for (const domain of ["example.com", "Example.COM", "ample.com", "pi.example.com"]) {
      const r = await runInProcess([
        "pins",
        "rotate",
        "--domain",
        domain,
        "--fingerprint",
        NEW,
        "--pin-store",
        pins,
      ]);
      assert.equal(r.code, 1, `${domain}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`no tool of ${domain.toLowerCase()} is pinned`), domain);
      assert.equal(await Deno.readTextFile(pins), before, domain);
    }
    // Wildcards are refused as a usage error, not read as "the domain and its subdomains".
    const wild = await runInProcess([
      "pins",
      "rotate",
      "--domain",
      "*.example.com",
      "--fingerprint",
      NEW,
      "--pin-store",
      pins,
    ]);
    assert.equal(wild.code, 2, wild.stderr);
    assert.match(wild.stderr, /wildcard/);
    assert.equal(await Deno.readTextFile(pins), before);
  });
});

Deno.test("pins rotate --domain --discovery: the new key from the document; a revoked old key is named", async () => {
  await withTempDir(async (dir) => {
    const pins = await seeded(dir);
    const discovery = `${dir}/schemapin.json`;
    await Deno.writeTextFile(
      discovery,
      JSON.stringify(
        buildDiscoveryDocument({
          publicKey: newKey.publicKey,
          developerName: "Dev",
          revokedKeys: [OLD],
        }),
      ),
    );
    const r = await runInProcess([
      "pins",
      "rotate",
      "--domain",
      "example.com",
      "--discovery",
      discovery,
      "--pin-store",
      pins,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /rotated a@example\.com: .* \(the old key is revoked/);
    assert.equal((await fingerprints(pins))["b@example.com"], NEW);
  });
});

Deno.test("pins rotate --domain: refused spellings and conflicting flags exit 2 and change nothing", async () => {
  await withTempDir(async (dir) => {
    const pins = await seeded(dir);
    const before = await Deno.readTextFile(pins);
    const keyFile = `${dir}/new.pem`;
    await Deno.writeTextFile(keyFile, newKey.publicKey.pem);
    const cases: [string[], RegExp][] = [
      [["*@example.com", "--fingerprint", NEW], /--domain example\.com/],
      [["example.com", "--fingerprint", NEW], /--domain example\.com/],
      [["a@example.com", "--domain", "example.com", "--fingerprint", NEW], /not both/],
      [["--domain", "example.com", "--fingerprint", NEW, "--key", keyFile], /exactly one/],
      [["--domain", "example.com"], /exactly one/],
      [["--domain", "http://example.com", "--fingerprint", NEW], /--domain/],
      [["--domain", "example.com", "--fingerprint", "sha256:nothex"], /--fingerprint/],
    ];
    for (const [args, message] of cases) {
      const r = await runInProcess(["pins", "rotate", ...args, "--pin-store", pins]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(" "));
      assert.equal(await Deno.readTextFile(pins), before, args.join(" "));
    }
  });
});

Deno.test("pins rotate --domain: a domain with no pins is exit 1 and writes nothing", async () => {
  await withTempDir(async (dir) => {
    const pins = await seeded(dir);
    const before = await Deno.readTextFile(pins);
    const r = await runInProcess([
      "pins",
      "rotate",
      "--domain",
      "nothing.example",
      "--fingerprint",
      NEW,
      "--pin-store",
      pins,
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no tool of nothing\.example is pinned/);
    assert.equal(await Deno.readTextFile(pins), before);
  });
});

Deno.test("verify: a pinned key the publisher revoked says so, with the rotate command", async () => {
  await withTempDir(async (dir) => {
    const pins = await seeded(dir);
    const keyFile = `${dir}/new-private.pem`;
    await Deno.writeTextFile(keyFile, privateKeyToPem(newKey), { mode: 0o600 });
    const schema = `${dir}/a.json`;
    await Deno.writeTextFile(schema, JSON.stringify({ name: "a", description: "x" }));
    const s = await runInProcess([
      "sign-schema",
      schema,
      "--key",
      keyFile,
      "--out",
      `${schema}.sig`,
    ]);
    assert.equal(s.code, 0, s.stderr);
    const verify = async (revokedKeys: string[]) => {
      const discovery = `${dir}/schemapin.json`;
      await Deno.writeTextFile(
        discovery,
        JSON.stringify(
          buildDiscoveryDocument({
            publicKey: newKey.publicKey,
            developerName: "Dev",
            revokedKeys,
          }),
        ),
      );
      return await runInProcess([
        "verify-schema",
        schema,
        "--signature",
        `${schema}.sig`,
        "--domain",
        "example.com",
        "--discovery",
        discovery,
        "--pin-store",
        pins,
      ]);
    };
    const revoked = await verify([OLD]);
    assert.equal(revoked.code, 1);
    assert.match(revoked.stderr, /KEY_PIN_MISMATCH/);
    assert.match(revoked.stderr, /which the publisher revoked/);
    assert.doesNotMatch(revoked.stderr, /if the developer really rotated/);
    assert.ok(
      revoked.stderr.includes(`schemapin pins rotate --domain example.com --fingerprint ${NEW}`),
      revoked.stderr,
    );
    // Not revoked: the key changed without the publisher saying so; the cautious wording stays.
    const unexplained = await verify([]);
    assert.equal(unexplained.code, 1);
    assert.match(unexplained.stderr, /if the developer really rotated keys/);
    assert.doesNotMatch(unexplained.stderr, /publisher revoked/);
  });
});
