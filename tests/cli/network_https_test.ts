// The real CLI as a child process, with the `schemapin` task's permission flags, reaching a
// test domain through a real HTTP CONNECT proxy on loopback (HTTPS_PROXY) and trusting a test
// CA with DENO_CERT or --ca-file — exactly how users behind a corporate proxy run it. The
// publisher side is `schemapin serve` itself, or a hostile TLS server written here.
import assert from "node:assert/strict";
import { privateKeyToPem } from "../../lib/crypto/keys.ts";
import { signSchemaBase64 } from "../../lib/schema/document.ts";
import { addRevokedKey, buildRevocationDocument } from "../../lib/revocation/document.ts";
import { makeTestPki } from "../fixtures/network/pki.ts";
import { startConnectProxy } from "../fixtures/network/proxy.ts";
import { startServeProcess, startTlsServer } from "../fixtures/network/https.ts";
import { discoveryFor, SIGNER, toolSchema } from "../schema/_fixtures.ts";
import { signSkillDir } from "../../lib/skill/sign.ts";
import { exists, runCliProcess, schemapinTaskFlags, withTempDir } from "./run.ts";
import { assertJsonOutput } from "./json_schemas.ts";

const HOST = "tools.example.test";
const REVOCATION_URL = `https://${HOST}/.well-known/schemapin-revocations.json`;
const pkiDir = await Deno.makeTempDir({ prefix: "schemapin-pki-" });
const pki = await makeTestPki(pkiDir, HOST);
globalThis.addEventListener("unload", () => Deno.removeSync(pkiDir, { recursive: true }));
const FLAGS = await schemapinTaskFlags();

interface Files {
  dir: string;
  schema: string;
  sig: string;
  pins: string;
  discovery: string;
  revocation: string;
  revoked: string;
}

async function files(dir: string): Promise<Files> {
  const f: Files = {
    dir,
    schema: `${dir}/calc.json`,
    sig: `${dir}/calc.json.sig`,
    pins: `${dir}/pins.json`,
    discovery: `${dir}/schemapin.json`,
    revocation: `${dir}/revocations.json`,
    revoked: `${dir}/revoked.json`,
  };
  await Deno.writeTextFile(f.schema, JSON.stringify(toolSchema()));
  await Deno.writeTextFile(f.sig, signSchemaBase64(toolSchema(), SIGNER));
  await Deno.writeTextFile(
    f.discovery,
    JSON.stringify(discoveryFor(SIGNER, { revocation_endpoint: REVOCATION_URL })),
  );
  const doc = buildRevocationDocument(HOST);
  await Deno.writeTextFile(f.revocation, JSON.stringify(doc));
  await Deno.writeTextFile(
    f.revoked,
    JSON.stringify(addRevokedKey(doc, SIGNER.publicKey.fingerprint, "superseded")),
  );
  await Deno.writeTextFile(`${dir}/private.pem`, privateKeyToPem(SIGNER));
  return f;
}

const verify = (f: Files, ...more: string[]) => [
  "verify-schema",
  f.schema,
  "--signature",
  f.sig,
  "--domain",
  HOST,
  "--pin-store",
  f.pins,
  ...more,
];

/** `schemapin serve` of `f`'s discovery document and `revocation`, over TLS on 127.0.0.1. */
function serveOnLoopback(f: Files, revocation: string) {
  return startServeProcess(FLAGS, [
    "--discovery",
    f.discovery,
    "--revocation",
    revocation,
    "--tls-cert",
    pki.cert,
    "--tls-key",
    pki.key,
    "--port",
    "0",
    "--hostname",
    "127.0.0.1",
    "--access-log",
  ]);
}

/** Runs `fn` with a proxy that tunnels the test domain to `port`. */
async function viaProxy<T>(
  port: number,
  fn: (env: Record<string, string>, connects: string[]) => Promise<T>,
) {
  const proxy = startConnectProxy((host) => (host === HOST ? port : undefined));
  try {
    return await fn({ HTTPS_PROXY: proxy.url, DENO_CERT: pki.caCert }, proxy.connects);
  } finally {
    await proxy.close();
  }
}

Deno.test("schemapin serve → verify-schema/verify-skill --well-known through the proxy", async () => {
  await withTempDir(async (dir) => {
    const f = await files(dir);
    const serve = await serveOnLoopback(f, f.revocation);
    try {
      await viaProxy(serve.port, async (env, connects) => {
        const ok = await runCliProcess(verify(f, "--well-known", "--trust-first-use", "--json"), {
          env,
        });
        assert.equal(ok.code, 0, ok.stdout + ok.stderr);
        const json = await assertJsonOutput(ok.stdout);
        assert.equal(json.format, "schemapin.verify-schema/1");
        assert.equal(json.ok, true);
        assert.equal(json.key_pinning, "first_use");
        assert.equal(json.discovery_source, `https://${HOST}/.well-known/schemapin.json`);
        assert.ok(connects.length >= 1 && connects.every((c) => c === `${HOST}:443`));
        // --ca-file instead of DENO_CERT; the pin now matches.
        const again = await runCliProcess(verify(f, "--well-known", "--ca-file", pki.caCert), {
          env: { HTTPS_PROXY: env.HTTPS_PROXY },
        });
        assert.equal(again.code, 0, again.stderr);
        assert.match(again.stdout, /pin matches/);
        // A skill folder, the same way.
        const skill = `${dir}/skill`;
        await Deno.mkdir(skill);
        await Deno.writeTextFile(`${skill}/SKILL.md`, "---\nname: pdf-tools\n---\nHi\n");
        const { document } = await signSkillDir(skill, SIGNER, { domain: HOST });
        await Deno.writeTextFile(`${skill}/.schemapin.sig`, JSON.stringify(document));
        const sk = await runCliProcess(
          [
            "verify-skill",
            skill,
            "--domain",
            HOST,
            "--well-known",
            "--pin-store",
            f.pins,
            "--trust-first-use",
          ],
          { env },
        );
        assert.equal(sk.code, 0, sk.stderr);
        assert.match(sk.stdout, /^OK pdf-tools@tools\.example\.test/);
        // Without the CA the certificate is not trusted.
        const untrusted = await runCliProcess(verify(f, "--well-known"), {
          env: { HTTPS_PROXY: env.HTTPS_PROXY },
        });
        assert.equal(untrusted.code, 1, untrusted.stderr);
        assert.match(untrusted.stderr, /DISCOVERY_FETCH_FAILED: .*certificate/i);
      });
    } finally {
      const { code, stderr } = await serve.stop("SIGTERM");
      assert.equal(code, 0, stderr);
      assert.match(stderr, /GET "\/\.well-known\/schemapin\.json" 200/);
      assert.match(stderr, /GET "\/\.well-known\/schemapin-revocations\.json" 200/);
      assert.match(stderr, /stopped/);
    }
  });
});

Deno.test("served revocation document revokes; an unreachable endpoint fails closed", async () => {
  await withTempDir(async (dir) => {
    const f = await files(dir);
    const serve = await serveOnLoopback(f, f.revoked);
    try {
      await viaProxy(serve.port, async (env) => {
        const r = await runCliProcess(verify(f, "--well-known", "--trust-first-use"), { env });
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /KEY_REVOKED/);
        assert.equal(await exists(f.pins), false);
      });
    } finally {
      await serve.stop();
    }
    // The revocation endpoint is down (503) while the discovery document is served.
    const hostile = startTlsServer(
      pki.cert,
      pki.key,
      (request) =>
        new URL(request.url).pathname === "/.well-known/schemapin.json"
          ? new Response(Deno.readFileSync(f.discovery))
          : new Response("down", { status: 503 }),
    );
    try {
      await viaProxy(hostile.port, async (env) => {
        const down = await runCliProcess(verify(f, "--well-known", "--trust-first-use"), { env });
        assert.equal(down.code, 1, down.stderr);
        assert.match(down.stderr, /DISCOVERY_FETCH_FAILED: .*HTTP 503/);
        assert.equal(await exists(f.pins), false);
        const optOut = await runCliProcess(
          verify(f, "--well-known", "--trust-first-use", "--allow-missing-revocation"),
          { env },
        );
        assert.equal(optOut.code, 0, optOut.stderr);
        assert.match(
          optOut.stderr,
          /warning: the declared revocation_endpoint could not be fetched/,
        );
      });
    } finally {
      await hostile.close();
    }
  });
});

Deno.test("hostile servers: redirect, 65 KiB body, slow server, wrong certificate — exit 1", async () => {
  await withTempDir(async (dir) => {
    const f = await files(dir);
    // The slow server answers only when it is closed; the time is taken from the request's
    // arrival, so the process start-up of the CLI (seconds on a loaded machine) is not in it.
    const held: ((r: Response) => void)[] = [];
    let arrived = 0;
    const handler = (mode: string) => (): Response | Promise<Response> => {
      if (mode === "redirect") {
        return new Response(null, {
          status: 302,
          headers: { location: "http://evil.example.test/" },
        });
      }
      if (mode === "large") {
        return new Response(JSON.stringify(discoveryFor(SIGNER)) + " ".repeat(65 * 1024));
      }
      arrived = Date.now();
      return new Promise((resolve) => held.push(resolve));
    };
    const cases: [string, [string, string], RegExp, string[]][] = [
      [
        "redirect",
        [pki.cert, pki.key],
        /redirects \(HTTP 302 to http:\/\/evil\.example\.test\/\)/,
        [],
      ],
      ["large", [pki.cert, pki.key], /over the 65536-byte cap/, []],
      ["slow", [pki.cert, pki.key], /connect timeout/, ["--timeout", "0.5"]],
      ["wrong-cert", [pki.rogueCert, pki.rogueKey], /certificate/i, []],
    ];
    for (const [mode, [cert, key], re, extra] of cases) {
      const server = startTlsServer(cert, key, handler(mode));
      try {
        await viaProxy(server.port, async (env) => {
          const r = await runCliProcess(verify(f, "--well-known", "--trust-first-use", ...extra), {
            env,
          });
          assert.equal(r.code, 1, `${mode}: ${r.stderr}`);
          assert.match(r.stderr, /DISCOVERY_FETCH_FAILED/, mode);
          assert.match(r.stderr, re, mode);
          // --timeout 0.5, not the default 5 s, ended the wait.
          if (mode === "slow") assert.ok(Date.now() - arrived < 2500, "the timeout fired");
        });
        if (mode === "redirect") {
          assert.deepEqual(server.requests, ["GET /.well-known/schemapin.json"]);
        }
      } finally {
        held.splice(0).forEach((answer) => answer(new Response("{}")));
        await server.close();
      }
    }
    assert.equal(await exists(f.pins), false);
  });
});

Deno.test("refused before connecting: http:// domains, bad flags; the chain stops at a revoked key", async () => {
  await withTempDir(async (dir) => {
    const f = await files(dir);
    const server = startTlsServer(pki.cert, pki.key, () => Response.json(discoveryFor(SIGNER)));
    try {
      await viaProxy(server.port, async (env, connects) => {
        const usage: string[][] = [
          [...verify(f, "--well-known").map((a) => (a === HOST ? `http://${HOST}` : a))],
          verify(f, "--well-known", "--timeout", "abc"),
          verify(f, "--discovery", f.discovery, "--well-known"),
          verify(f, "--resolver-dir", dir, "--ca-file", pki.caCert),
          verify(f, "--well-known", "--dns-server", "127.0.0.1:53"),
          verify(f, "--well-known", "--dns", "--dns-server", "localhost"),
          verify(f, "--well-known", "--ca-file", `${dir}/missing.pem`),
          verify(f, "--well-known", "--ca-file", f.schema),
        ];
        for (const args of usage) {
          const r = await runCliProcess(args, { env });
          assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
        }
        // A revoked key in the first source (a resolver folder) ends it: the network is not asked.
        const trust = `${dir}/trust`;
        await Deno.mkdir(trust);
        await Deno.writeTextFile(
          `${trust}/${HOST}.json`,
          JSON.stringify(discoveryFor(SIGNER, { revoked_keys: [SIGNER.publicKey.fingerprint] })),
        );
        const revoked = await runCliProcess(
          verify(f, "--resolver-dir", trust, "--well-known", "--trust-first-use"),
          { env },
        );
        assert.equal(revoked.code, 1, revoked.stderr);
        assert.match(revoked.stderr, /KEY_REVOKED/);
        assert.deepEqual(connects, [], "nothing reached the proxy");
        // Not found in the folder: falls through to --well-known, which verifies.
        await Deno.remove(`${trust}/${HOST}.json`);
        const through = await runCliProcess(
          verify(f, "--resolver-dir", trust, "--well-known", "--trust-first-use"),
          { env },
        );
        assert.equal(through.code, 0, through.stderr);
        // Only the well-known host was reached (the HTTP client may open more than one tunnel).
        assert.ok(
          connects.length >= 1 && connects.every((c) => c === `${HOST}:443`),
          `${connects}`,
        );
      });
    } finally {
      await server.close();
    }
  });
});

Deno.test("serve: content types, caching, ETag, 404/405, HEAD; bad setups exit 2", async () => {
  await withTempDir(async (dir) => {
    const f = await files(dir);
    const serve = await serveOnLoopback(f, f.revocation);
    const client = Deno.createHttpClient({ caCerts: [Deno.readTextFileSync(pki.caCert)] });
    const proxy = startConnectProxy(() => serve.port);
    const c2 = Deno.createHttpClient({
      caCerts: [Deno.readTextFileSync(pki.caCert)],
      proxy: { url: proxy.url },
    });
    try {
      const get = (path: string, init: RequestInit = {}) =>
        fetch(`https://${HOST}${path}`, { ...init, client: c2 } as RequestInit);
      const doc = await get("/.well-known/schemapin.json");
      assert.equal(doc.status, 200);
      assert.equal(doc.headers.get("content-type"), "application/json; charset=utf-8");
      assert.equal(doc.headers.get("cache-control"), "public, max-age=300");
      assert.equal(doc.headers.get("x-content-type-options"), "nosniff");
      assert.equal(await doc.text(), await Deno.readTextFile(f.discovery));
      const etag = doc.headers.get("etag")!;
      const cached = await get("/.well-known/schemapin.json", {
        headers: { "if-none-match": etag },
      });
      assert.equal(cached.status, 304);
      await cached.body?.cancel();
      const rev = await get("/.well-known/schemapin-revocations.json");
      assert.equal(rev.headers.get("cache-control"), "no-cache");
      assert.deepEqual(await rev.json(), JSON.parse(await Deno.readTextFile(f.revocation)));
      const head = await get("/.well-known/schemapin.json", { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), "");
      for (const path of ["/", "/.well-known/", "/.well-known/schemapin.json/..", "/x"]) {
        const r = await get(path);
        await r.body?.cancel();
        assert.equal(r.status, 404, path);
      }
      const post = await get("/.well-known/schemapin.json", { method: "POST", body: "x" });
      await post.body?.cancel();
      assert.equal(post.status, 405);
      assert.equal(post.headers.get("allow"), "GET, HEAD");
      // Plain HTTP on the TLS port does not get the document.
      await assert.rejects(() =>
        fetch(`http://127.0.0.1:${serve.port}/.well-known/schemapin.json`, { client })
      );
    } finally {
      c2.close();
      client.close();
      await proxy.close();
      const { code, stderr } = await serve.stop("SIGINT");
      assert.equal(code, 0, stderr);
      // One line per request (the plain-HTTP attempt never completes a TLS handshake).
      assert.equal(stderr.match(/ GET | HEAD | POST /g)?.length, 9, stderr);
    }
    await Deno.writeTextFile(`${dir}/bad.json`, "{");
    const bad: string[][] = [
      ["--revocation", f.revocation, "--tls-cert", pki.cert, "--tls-key", pki.key],
      ["--discovery", f.discovery, "--tls-cert", pki.cert, "--tls-key", pki.key],
      [
        "--discovery",
        `${dir}/bad.json`,
        "--revocation",
        f.revocation,
        "--tls-cert",
        pki.cert,
        "--tls-key",
        pki.key,
      ],
      [
        "--discovery",
        f.discovery,
        "--revocation",
        f.discovery,
        "--tls-cert",
        pki.cert,
        "--tls-key",
        pki.key,
      ],
      [
        "--discovery",
        f.discovery,
        "--revocation",
        f.revocation,
        "--tls-cert",
        pki.key,
        "--tls-key",
        pki.key,
      ],
      [
        "--discovery",
        f.discovery,
        "--revocation",
        f.revocation,
        "--tls-cert",
        pki.cert,
        "--tls-key",
        pki.key,
        "--port",
        "99999",
      ],
    ];
    for (const args of bad) {
      const r = await runCliProcess(["serve", ...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /^error: /m);
    }
  });
});

Deno.test("guard --require-signed-lock --signatures --well-known fetches the domain's documents once", async () => {
  await withTempDir(async (dir) => {
    const f = await files(dir);
    const lock = `${dir}/contractpin.lock`;
    await Deno.writeTextFile(
      `${dir}/tools.json`,
      JSON.stringify({ tools: [{ name: "t", inputSchema: { type: "object" } }] }),
    );
    const init = await runCliProcess([
      "contract",
      "init",
      "--lock",
      lock,
      "--file",
      `s=${dir}/tools.json`,
    ]);
    assert.equal(init.code, 0, init.stderr);
    const signed = await runCliProcess([
      ...["contract", "sign", "--lock", lock, "-k", `${dir}/private.pem`, "--domain", HOST],
    ]);
    assert.equal(signed.code, 0, signed.stderr);
    const serve = await serveOnLoopback(f, f.revocation);
    let stderr = "";
    try {
      await viaProxy(serve.port, async (env) => {
        // The client (stdin) leaves at once: the guard starts, checks, and stops.
        const g = await runCliProcess([
          ...["guard", "--lock", lock, "--server", "s", "--require-signed-lock", "--signatures"],
          ...["--domain", HOST, "--well-known", "--pin-store", f.pins, "--trust-first-use"],
          ...["--", Deno.execPath(), "eval", "0"],
        ], { env });
        assert.equal(g.code, 0, g.stderr);
        assert.match(g.stderr, /lock signature: ok/);
      });
    } finally {
      const stopped = await serve.stop("SIGTERM");
      stderr = stopped.stderr;
    }
    const gets = (path: string) =>
      stderr.split("\n").filter((l) => l.includes(`GET "${path}" 200`)).length;
    // One load for both checks (it was one per check: two fetches of each document).
    assert.equal(gets("/.well-known/schemapin.json"), 1, stderr);
    assert.equal(gets("/.well-known/schemapin-revocations.json"), 1, stderr);
  });
});
