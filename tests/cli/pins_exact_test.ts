// A second angle on two pin decisions the library tests alone guarded (issue 37 item 2):
// `pins add` never replaces a pin of another key (the library's seedPin was the only test), and
// `pins rotate TOOL_ID@DOMAIN` moves that one pin — not the tool on a subdomain or a look-alike
// domain, not another tool of the domain — and refuses a pin that does not exist, writing
// nothing. Domains are case-folded (DNS names are case-insensitive), tool ids are not.
import assert from "node:assert/strict";
import { runInProcess, withTempDir } from "./run.ts";

const A = "sha256:" + "a".repeat(64);
const B = "sha256:" + "b".repeat(64);

async function add(pins: string, target: string, fp: string) {
  return await runInProcess(["pins", "add", target, "--fingerprint", fp, "--pin-store", pins]);
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

Deno.test("pins add: another key for a pinned tool is refused (in any case of the domain), nothing written", async () => {
  await withTempDir(async (dir) => {
    const pins = `${dir}/pins.json`;
    assert.equal((await add(pins, "calc@example.com", A)).code, 0);
    const before = await Deno.readTextFile(pins);
    for (const target of ["calc@example.com", "calc@EXAMPLE.com"]) {
      const r = await add(pins, target, B);
      assert.equal(r.code, 1, `${target}: ${r.stderr}`);
      assert.match(
        r.stderr,
        /KEY_PIN_MISMATCH: calc@example\.com is already pinned to sha256:a+; use rotate/,
      );
      assert.equal(await Deno.readTextFile(pins), before, target);
    }
    // The same key again: nothing to do, exit 0, nothing written.
    const same = await add(pins, "calc@Example.COM", A);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(await Deno.readTextFile(pins), before);
    // Another tool id (ids are case-sensitive), or the tool on a subdomain: a pin of its own.
    assert.equal((await add(pins, "Calc@example.com", B)).code, 0);
    assert.equal((await add(pins, "calc@api.example.com", B)).code, 0);
    assert.deepEqual(await fingerprints(pins), {
      "calc@example.com": A,
      "Calc@example.com": B,
      "calc@api.example.com": B,
    });
  });
});

Deno.test("pins rotate TOOL_ID@DOMAIN: exactly that pin; one that does not exist is exit 1, nothing written", async () => {
  await withTempDir(async (dir) => {
    const pins = `${dir}/pins.json`;
    for (const t of ["a@example.com", "b@example.com", "a@api.example.com", "a@evilexample.com"]) {
      assert.equal((await add(pins, t, A)).code, 0);
    }
    const r = await runInProcess([
      ...["pins", "rotate", "a@EXAMPLE.com", "--fingerprint", B, "--pin-store", pins],
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await fingerprints(pins), {
      "a@example.com": B,
      "b@example.com": A,
      "a@api.example.com": A,
      "a@evilexample.com": A,
    });
    const before = await Deno.readTextFile(pins);
    for (const target of ["a@other.example.com", "A@example.com", "a@xample.com"]) {
      const none = await runInProcess([
        ...["pins", "rotate", target, "--fingerprint", B, "--pin-store", pins],
      ]);
      assert.equal(none.code, 1, `${target}: ${none.stderr}`);
      assert.match(none.stderr, /is not pinned; nothing to rotate/, target);
      assert.equal(await Deno.readTextFile(pins), before, target);
    }
  });
});
