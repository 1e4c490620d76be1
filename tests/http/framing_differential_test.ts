// The HTTP/1.1 framing differential (issue 28): every case of
// tests/fixtures/http_framing/cases.json (hostile raw requests, as data) goes on a fresh
// connection to Node's llhttp (node:http, tests/http/llhttp_peer.mjs) and to this project's
// server, and the framing is compared: which requests each framed (method, target, body),
// the answers with their interim 1xx, and whether the connection closed.
//
// - lib/http (listenHttp with an echo handler, in process): its answers must be the case's
//   `ours`; the requests it framed must be a prefix of llhttp's (never a request llhttp did
//   not frame, never another body); where llhttp closes, it closes; it sends no more 100s than
//   llhttp and never one after a final answer; every framed request is answered (the client
//   half-closes after each case). Refusing what llhttp accepts is allowed only where the case
//   says why (`stricter`); a listed case that this llhttp refuses too is counted in the
//   summary line (llhttp 9.3 and 9.4 differ on a few).
// - `schemapin serve` (the CLI, over TLS) and `schemapin guard --listen` (the CLI, in front of a
//   recording upstream): no more final answers than llhttp owes; a refusal of lib/http is the
//   same refusal there; and what reaches the guard's upstream is a sequence of the requests
//   llhttp framed, byte for byte.
//
// On CI (CI=true) a missing node fails (tests/required_tool.ts); SCHEMAPIN_NODE22 is used when
// it is set (.ci/run sets it), else the machine's node.
import assert from "node:assert/strict";
import { listenHttp } from "../../lib/http/server.ts";
import { ignoreWithout } from "../required_tool.ts";
import { childCommand } from "../process.ts";
import {
  type Answer,
  base64,
  exchange,
  type Framed,
  type FramingCase,
  latin1,
  LlhttpPeer,
  loadCases,
  parseAnswers,
} from "../fixtures/http_framing/harness.ts";
import { startServerProcess } from "../fixtures/network/limits.ts";
import { makeTestPki } from "../fixtures/network/pki.ts";
import { discoveryFor, SIGNER } from "../schema/_fixtures.ts";
import { schemapinTaskFlags } from "../cli/run.ts";
import { baseTools, writeLock } from "../guard/helpers.ts";

const NODE = Deno.env.get("SCHEMAPIN_NODE22") || "node";
const nodeVersion = await childCommand(NODE, { args: ["-p", "process.versions.llhttp"] })
  .output().catch(() => null);
const noNode = ignoreWithout(
  "node",
  nodeVersion?.success === true,
  ".ci/run (Deno and Node 22 come from npm)",
);
const LLHTTP = nodeVersion?.success ? new TextDecoder().decode(nodeVersion.stdout).trim() : "";

const CASES = await loadCases();
const REFUSALS = new Set([400, 413, 417, 431, 501, 505]);

/** What one server did with one case. */
interface Outcome {
  answers: Answer[];
  framed: Framed[];
  closed: boolean;
}

const statuses = (o: { answers: Answer[] }) => o.answers.map((a) => a.status);
const finals = (o: { answers: Answer[] }) => o.answers.filter((a) => a.status >= 200);
const continues = (o: { answers: Answer[] }) => o.answers.filter((a) => a.status === 100).length;
const show = (f: Framed[]) =>
  JSON.stringify(
    f.map((r) => `${r.method} ${r.target} ${JSON.stringify(r.body?.slice(0, 40) ?? null)}`),
  );

/** The problems of lib/http's outcome against llhttp's for one case (empty: fine). */
function judge(c: FramingCase, node: Outcome, ours: Outcome): string[] {
  const problems: string[] = [];
  if (JSON.stringify(statuses(ours)) !== JSON.stringify(c.ours)) {
    problems.push(
      `answers ${JSON.stringify(statuses(ours))}, the case says ${JSON.stringify(c.ours)}`,
    );
  }
  const prefix = ours.framed.every((r, i) => same(r, node.framed[i]));
  if (!prefix || ours.framed.length > node.framed.length) {
    problems.push(`LOOSER: framed ${show(ours.framed)}, llhttp ${show(node.framed)}`);
  }
  if (node.closed && !ours.closed) {
    problems.push("LOOSER: llhttp closed the connection, we did not");
  }
  if (finals(node).some((a) => a.status >= 400) && !finals(ours).some((a) => a.status >= 400)) {
    problems.push(`LOOSER: llhttp refused (${JSON.stringify(statuses(node))}), we did not`);
  }
  if (continues(ours) > continues(node)) problems.push("more 100 Continue than llhttp");
  const firstFinal = ours.answers.findIndex((a) => a.status >= 200);
  if (firstFinal >= 0 && ours.answers.slice(firstFinal).some((a) => a.status < 200)) {
    problems.push("a 100 Continue after a final answer");
  }
  const answered = ours.answers.filter((a) => a.status === 200).length;
  if (answered !== ours.framed.length) {
    problems.push(`${ours.framed.length} requests framed, ${answered} answered`);
  }
  // Stricter: fewer requests framed than the ones llhttp framed whole.
  const stricter = ours.framed.length < node.framed.filter((r) => r.body !== null).length;
  if (stricter && c.stricter === undefined) {
    problems.push(
      `stricter than llhttp but not listed: we frame ${show(ours.framed)}, llhttp ` +
        show(node.framed),
    );
  }
  return problems;
}

/**
 * True when our record `r` is llhttp's `ref`: same method and target, and same body — except
 * where llhttp's body never reached node's handler (null), and where lib/http drops the body
 * itself (GET, HEAD, OPTIONS *: it skips what llhttp frames as their body).
 */
function same(r: Framed, ref: Framed | undefined): boolean {
  if (ref === undefined || r.method !== ref.method || r.target !== ref.target) return false;
  if (ref.body === null) return true;
  if (r.method === "GET" || r.method === "HEAD" || r.target === "*") return r.body === "";
  return r.body === ref.body;
}

/** Runs `fn` over the cases, `n` at a time. */
async function eachCase(
  cases: FramingCase[],
  n: number,
  fn: (c: FramingCase) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < cases.length) await fn(cases[next++]);
    }),
  );
}

const tcp = (port: number) => () => Deno.connect({ hostname: "127.0.0.1", port });

/**
 * The cases as sent with the client's side kept open (no half-close): each ends after a quiet
 * moment. The half-close cases are left out (their point is the half-close).
 */
const OPEN_CASES = CASES.filter((c) => c.class !== "half-close").map((c) => ({ ...c, fin: false }));

/** llhttp's outcome for every case, half-closed or open (each computed once per file). */
const nodeOutcomes = new Map<boolean, Promise<Map<string, Outcome>>>();
function llhttpOutcomes(open = false): Promise<Map<string, Outcome>> {
  let outcomes = nodeOutcomes.get(open);
  if (outcomes) return outcomes;
  outcomes = (async () => {
    const peer = await LlhttpPeer.start(NODE);
    const out = new Map<string, Outcome>();
    try {
      await eachCase(open ? OPEN_CASES : CASES, open ? 8 : 4, async (c) => {
        let framed: Framed[] = [];
        const x = await exchange(tcp(peer.port), c, {
          beforeClose: async (port) => void (framed = await peer.framed(port)),
        });
        out.set(c.name, { answers: parseAnswers(x.received), framed, closed: x.closed });
      });
    } finally {
      await peer.stop();
    }
    return out;
  })();
  nodeOutcomes.set(open, outcomes);
  return outcomes;
}

Deno.test({
  name:
    "framing corpus: at least 200 cases, unique names, negative cases at least as many as positive",
  fn() {
    assert.ok(CASES.length >= 200, `${CASES.length} cases`);
    assert.equal(new Set(CASES.map((c) => c.name)).size, CASES.length);
    const negative = CASES.filter((c) => c.ours.some((s) => s >= 400) || c.ours.length === 0);
    assert.ok(
      negative.length * 2 >= CASES.length,
      `${negative.length} negative of ${CASES.length}`,
    );
  },
});

/** Runs the cases (half-closed, or `open`) against lib/http and judges them against llhttp. */
async function layerDifferential(open: boolean) {
  const node = await llhttpOutcomes(open);
  const ourFramed = new Map<number, Framed[]>();
  const server = listenHttp({
    hostname: "127.0.0.1",
    port: 0,
    limits: { headerTimeoutMs: 5000, idleTimeoutMs: 5000 },
    handler: async (req, info) => {
      const body = req.body ? new Uint8Array(await req.arrayBuffer()) : new Uint8Array(0);
      const record = { method: req.method, target: info.target, body: latin1(body) };
      const list = ourFramed.get(info.remoteAddr.port) ?? [];
      list.push(record);
      ourFramed.set(info.remoteAddr.port, list);
      const text = JSON.stringify({ ...record, body: base64(body) });
      return new Response(text, {
        headers: { "content-type": "application/json", "content-length": String(text.length) },
      });
    },
  });
  const failures: string[] = [];
  const stricter: string[] = [];
  const alsoRefused: string[] = [];
  try {
    await eachCase(open ? OPEN_CASES : CASES, open ? 8 : 4, async (c) => {
      let framed: Framed[] = [];
      const x = await exchange(tcp(server.addr.port), c, {
        beforeClose: (port) => {
          framed = ourFramed.get(port) ?? [];
          ourFramed.delete(port);
        },
      });
      const answers = parseAnswers(x.received);
      // OPTIONS * is answered by the layer itself (200): framed, never seen by the handler.
      const asterisk = answers.filter((a) => a.status === 200).length - framed.length;
      for (let i = 0; i < asterisk; i++) {
        framed.push({ method: "OPTIONS", target: "*", body: "" });
      }
      const n = node.get(c.name)!;
      const ours = { answers, framed: orderLike(framed, n.framed), closed: x.closed };
      // Open: the statuses of `ours` are those of a half-closed client; looseness is judged.
      const problems = judge(c, n, ours).filter((p) => !open || p.startsWith("LOOSER"));
      if (problems.length) {
        failures.push(
          `${c.name}: ${problems.join("; ")}\n  llhttp: ${JSON.stringify(statuses(n))} ` +
            `closed=${n.closed}`,
        );
      }
      // Listed as stricter: counted when it is (another llhttp version may refuse it too).
      if (ours.framed.length < n.framed.filter((r) => r.body !== null).length) {
        stricter.push(c.name);
      } else if (c.stricter !== undefined) {
        alsoRefused.push(c.name);
      }
    });
  } finally {
    await server.shutdown(1000);
  }
  const looser = failures.filter((f) => f.includes("LOOSER")).length;
  console.log(
    `framing differential${open ? " (client side open)" : ""} (llhttp ${LLHTTP}): ` +
      `${open ? OPEN_CASES.length : CASES.length} cases; stricter than llhttp: ` +
      `${stricter.length}; listed but refused by this llhttp too: ${alsoRefused.length} ` +
      `(${alsoRefused.join(", ")}); looser: ${looser}; failing: ${failures.length}`,
  );
  assert.deepEqual(failures, []);
}

Deno.test({
  name: "framing differential: lib/http frames no request llhttp does not, and answers every one",
  ignore: noNode,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => layerDifferential(false),
});

Deno.test({
  name: "framing differential: lib/http frames no request llhttp does not (client side open)",
  ignore: noNode,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => layerDifferential(true),
});

/** `framed` with the asterisk-form records put where llhttp has them (the order of answers). */
function orderLike(framed: Framed[], reference: Framed[]): Framed[] {
  const rest = framed.filter((r) => r.target !== "*");
  const stars = framed.filter((r) => r.target === "*");
  const out: Framed[] = [];
  for (const r of reference) {
    if (r.target === "*" && stars.length) out.push(stars.shift()!);
    else if (rest.length) out.push(rest.shift()!);
  }
  return [...out, ...stars, ...rest];
}

// --- the CLI servers ---------------------------------------------------------------------

/** The problems of a CLI server's outcome (no framed list: it does not echo). */
function judgeCli(c: FramingCase, node: Outcome, got: Answer[], closed: boolean): string[] {
  const problems: string[] = [];
  const owed = node.framed.length + (finals(node).some((a) => a.status >= 400) ? 1 : 0);
  const answered = got.filter((a) => a.status >= 200).length;
  if (answered > Math.max(owed, 1)) {
    problems.push(
      `LOOSER: ${answered} answers ${JSON.stringify(got.map((a) => a.status))}, ` +
        `llhttp framed ${node.framed.length}`,
    );
  }
  // Where lib/http refuses, the server refuses too, or (a handler that answered before it read
  // the body that broke the rules) closes the connection: never more answers than lib/http's.
  const last = c.ours[c.ours.length - 1];
  if (last !== undefined && REFUSALS.has(last)) {
    const refused = got[got.length - 1]?.status === last;
    if (!refused && !closed) {
      problems.push(`lib/http refuses with ${last}; this server neither did nor closed`);
    }
    if (answered > c.ours.filter((s) => s >= 200).length) {
      problems.push(
        `LOOSER: ${JSON.stringify(got.map((a) => a.status))}, lib/http ${JSON.stringify(c.ours)}`,
      );
    }
  }
  if (node.closed && !closed) {
    problems.push("LOOSER: llhttp closed the connection, this server did not");
  }
  return problems;
}

const FLAGS = await schemapinTaskFlags();

Deno.test({
  name: "framing differential: schemapin serve (TLS) answers no request llhttp does not frame",
  ignore: noNode,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const node = await llhttpOutcomes();
    const dir = await Deno.makeTempDir({ prefix: "schemapin-framing-serve-" });
    try {
      const pki = await makeTestPki(dir, "localhost", ["127.0.0.1"]);
      const ca = await Deno.readTextFile(pki.caCert);
      await Deno.writeTextFile(`${dir}/schemapin.json`, JSON.stringify(discoveryFor(SIGNER)));
      const serve = await startServerProcess(FLAGS, [
        "serve",
        "--discovery",
        `${dir}/schemapin.json`,
        "--cert",
        pki.cert,
        "--key",
        pki.key,
        "--port",
        "0",
        "--hostname",
        "127.0.0.1",
      ]);
      const failures: string[] = [];
      try {
        const connect = async () => {
          const conn = await Deno.connectTls({
            hostname: "127.0.0.1",
            port: serve.port,
            caCerts: [ca],
          });
          await conn.handshake();
          return conn;
        };
        await eachCase(CASES, 4, async (c) => {
          const x = await exchange(connect, c);
          const problems = judgeCli(c, node.get(c.name)!, parseAnswers(x.received), x.closed);
          if (problems.length) failures.push(`${c.name}: ${problems.join("; ")}`);
        });
      } finally {
        await serve.stop();
      }
      console.log(`serve: ${CASES.length} cases, ${failures.length} failing`);
      assert.deepEqual(failures, []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "framing differential: schemapin guard --listen forwards only requests llhttp frames, byte for byte",
  ignore: noNode,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const node = await llhttpOutcomes();
    const dir = await Deno.makeTempDir({ prefix: "schemapin-framing-guard-" });
    const reached: Framed[] = [];
    const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      const u = new URL(req.url);
      const body = req.body ? latin1(new Uint8Array(await req.arrayBuffer())) : "";
      reached.push({ method: req.method, target: u.pathname, body });
      if (req.method === "POST") return new Response(null, { status: 202 });
      if (req.method === "GET") return new Response("no stream\n", { status: 405 });
      return new Response(null, { status: 204 });
    });
    try {
      await writeLock(`${dir}/lock`, "web", baseTools());
      const guard = await startServerProcess(FLAGS, [
        "guard",
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        `http://127.0.0.1:${upstream.addr.port}/mcp`,
        "--upstream-transport",
        "streamable-http",
        "--lock",
        `${dir}/lock`,
        "--log",
        `${dir}/audit.log`,
      ]);
      const failures: string[] = [];
      let forwarded = 0;
      try {
        // One case at a time: what reaches the upstream meanwhile is that case's.
        await eachCase(CASES, 1, async (c) => {
          reached.length = 0;
          const x = await exchange(tcp(guard.port), c);
          await new Promise((r) => setTimeout(r, 30));
          const n = node.get(c.name)!;
          const problems = judgeCli(c, n, parseAnswers(x.received), x.closed);
          // Each request that reached the upstream is one llhttp framed, in order.
          let at = 0;
          for (const r of reached) {
            forwarded++;
            while (
              at < n.framed.length &&
              !(n.framed[at].method === r.method && pathOf(n.framed[at].target) === r.target &&
                (n.framed[at].body === r.body ||
                  (r.body === "" && (r.method === "GET" || r.method === "DELETE"))))
            ) at++;
            if (at === n.framed.length) {
              problems.push(
                `LOOSER: ${r.method} ${r.target} ${JSON.stringify(r.body?.slice(0, 40) ?? null)} ` +
                  `reached the upstream; llhttp framed ${show(n.framed)}`,
              );
              break;
            }
            at++;
          }
          if (problems.length) failures.push(`${c.name}: ${problems.join("; ")}`);
        });
      } finally {
        await guard.stop();
      }
      console.log(
        `guard --listen: ${CASES.length} cases, ${forwarded} requests reached the upstream, ` +
          `${failures.length} failing`,
      );
      assert.deepEqual(failures, []);
      assert.ok(forwarded >= 30, `only ${forwarded} requests reached the upstream`);
    } finally {
      await upstream.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** The path of an origin- or absolute-form target (the guard forwards to its upstream URL). */
function pathOf(target: string): string {
  try {
    return new URL(target, "http://x").pathname;
  } catch {
    return target;
  }
}
