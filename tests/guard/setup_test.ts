// What the guard decides before it starts (cli/guard/setup.ts), without the CLI: which lock
// entry is enforced and which variants (the same server pinned with other client
// capabilities) go with it; what happens when no entry is named; that the lock's signature is
// checked before anything else is prepared and, when it fails, nothing is; and the trust of
// the tools' signatures. The command is run in tests/cli/guard_*_test.ts.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { buildLock, lockServerEntry, serializeLock } from "../../lib/contractpin/lock.ts";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import { signLock } from "../../cli/contractpin/lock_signature.ts";
import { formatSchemaSignatureDocument } from "../../lib/schema/document.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import { AuditLog } from "../../lib/guard/audit.ts";
import { prepareGuard } from "../../cli/guard/setup.ts";
import type { TrustEnv, TrustPlan } from "../../lib/trust/load.ts";
import { discoveryFor, OTHER, SIGNER } from "../schema/_fixtures.ts";
import { withTempDir } from "../cli/run.ts";

const DOMAIN = "example.com";
const env: TrustEnv = { read: (p) => Deno.readFile(p) };
const tools = digestToolList([{ name: "echo", inputSchema: { type: "object" } }] as JsonValue[]);

/** A lock with `a` and `a-roots` (the same command, other capabilities) and `b`. */
function writeLock(path: string): string {
  const text = serializeLock(buildLock({
    a: lockServerEntry({ transport: "stdio", command: ["node", "a.js"] }, tools),
    "a-roots": lockServerEntry({ transport: "stdio", command: ["node", "a.js"] }, tools, ["roots"]),
    b: lockServerEntry({ transport: "stdio", command: ["node", "b.js"] }, tools),
  }, new Date(Date.UTC(2026, 0, 1))));
  Deno.writeTextFileSync(path, text);
  return text;
}

Deno.test("guard setup: the named entry and its variants by client capabilities", async () => {
  await withTempDir(async (dir) => {
    writeLock(`${dir}/l.lock`);
    const setup = await prepareGuard({ lock: { path: `${dir}/l.lock`, server: "a" } }, env);
    assert.equal(setup.lock?.serverName, "a");
    assert.equal(setup.lock?.file, `${dir}/l.lock`);
    assert.deepEqual(
      [...setup.variants].map(([k, v]) => [k, v.serverName]),
      [["", "a"], ["roots", "a-roots"]],
    );
    assert.equal(setup.signatures, undefined);
    assert.deepEqual(setup.trustWarnings, []);
    assert.equal(setup.checks, `lock ${dir}/l.lock (a)`);
    const log = new AuditLog("a", "enforce", () => {});
    assert.equal(setup.core({ mode: "enforce", log, serverName: "a" }).mode, "enforce");
  });
});

Deno.test("guard setup: no entry named — the only one, the chooser, or INPUT_INVALID", async () => {
  await withTempDir(async (dir) => {
    writeLock(`${dir}/l.lock`);
    const lock = { path: `${dir}/l.lock` };
    await assert.rejects(
      prepareGuard({ lock }, env),
      (e) =>
        e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
        /pins 3 servers/.test(e.message),
    );
    const asked: string[][] = [];
    const chosen = await prepareGuard(
      { lock: { ...lock, chooseServer: (names) => (asked.push([...names]), "b") } },
      env,
    );
    assert.deepEqual(asked, [["a", "a-roots", "b"]]);
    assert.equal(chosen.lock?.serverName, "b");
    await assert.rejects(
      prepareGuard({ lock: { ...lock, server: "c" } }, env),
      (e) =>
        e instanceof SchemaPinError &&
        /has no server "c" \(it pins: a, a-roots, b\)/.test(e.message),
    );
  });
});

Deno.test("guard setup: the lock's signature first; when it fails, nothing else is prepared", async () => {
  await withTempDir(async (dir) => {
    const text = writeLock(`${dir}/l.lock`);
    Deno.writeTextFileSync(`${dir}/d.json`, JSON.stringify(discoveryFor(SIGNER)));
    const plan: TrustPlan = { domain: DOMAIN, discovery: `${dir}/d.json`, chain: [] };
    const sign = (key = SIGNER) =>
      Deno.writeTextFileSync(
        `${dir}/l.lock.sig`,
        formatSchemaSignatureDocument(signLock(JSON.parse(text), key, { domain: DOMAIN })),
      );
    const options = {
      lock: { path: `${dir}/l.lock`, server: "a" },
      trust: plan,
      requireSignedLock: true,
      signatures: true,
      verify: { pinStore: `${dir}/pins.json`, trustFirstUse: true },
    };
    sign(OTHER);
    const refused = await prepareGuard(options, env);
    assert.equal(refused.lockSignature?.status, "invalid");
    assert.equal(refused.signatures, undefined);
    // A signature that did not verify is not among the checks (the guard does not start).
    assert.equal(refused.checks, `lock ${dir}/l.lock (a)`);

    sign(SIGNER);
    const ok = await prepareGuard(options, env);
    assert.equal(ok.lockSignature?.status, "valid", ok.lockSignature?.result?.errorMessage);
    assert.equal(ok.signatures?.domain, DOMAIN);
    assert.equal(ok.signatures?.trustFirstUse, true);
    assert.equal(ok.signatures?.sources?.discovery, `${dir}/d.json`);
    assert.match(
      ok.checks,
      new RegExp(
        `^lock ${dir}/l\\.lock \\(a\\) and lock signature: ok ${dir}/l\\.lock\\.sig: signed by ` +
          `sha256:[0-9a-f]{64} for contractpin:lock@${DOMAIN} \\(pinned on first use\\) and ` +
          `signatures of ${DOMAIN}$`,
      ),
    );
  });
});

Deno.test("guard setup: no lock and no signatures: nothing to list among the checks", async () => {
  const setup = await prepareGuard({}, env);
  assert.equal(setup.lock, undefined);
  assert.equal(setup.checks, "");
});
