// No network before the arguments are valid (issue 12): for every usage error of every
// command that can reach the network, write files, start a server process or touch a pin
// store, the real CLI (a child process with the task's permission flags) exits 2 with a
// clear message — and nothing happened first. Each case runs with HTTPS_PROXY/HTTP_PROXY/
// ALL_PROXY pointing at a recording proxy, `--dns-server` (where the case can give one) at a
// recording DNS server, SCHEMAPIN_HOME and every output path inside an empty folder, and any
// server command set to `touch` a marker there. Afterwards the proxy saw no connection, the
// DNS server no query, the folder is still empty and the inputs are unchanged. Control cases
// show that each recorder does see the traffic when the arguments are valid.
import assert from "node:assert/strict";
import { privateKeyToPem } from "../../lib/crypto/keys.ts";
import {
  formatSchemaSignatureDocument,
  signSchemaBase64,
  signSchemaDocument,
} from "../../lib/schema/document.ts";
import { buildRevocationDocument } from "../../lib/revocation/document.ts";
import { addDiscoveryToBundle, createTrustBundle } from "../../lib/bundle/bundle.ts";
import { buildLock, lockServerEntry, serializeLock } from "../../lib/contractpin/lock.ts";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import { startConnectProxy } from "../fixtures/network/proxy.ts";
import { startFakeDns } from "../fixtures/network/dns.ts";
import { discoveryFor, SIGNER, toolSchema } from "../schema/_fixtures.ts";
import { type CliResult, runCliProcess } from "./run.ts";
import { assertJsonOutput } from "./json_schemas.ts";

const HOST = "tools.example.test";
const MCP_URL = "http://mcp.example.test/mcp";
const FP = SIGNER.publicKey.fingerprint;

/** Where a case's arguments point. */
interface Paths {
  /** Valid, read-only inputs shared by every case. */
  readonly IN: string;
  /** The case's own empty folder (also its cwd and SCHEMAPIN_HOME's parent). */
  readonly OUT: string;
  /** `127.0.0.1:PORT` of the recording DNS server. */
  readonly DNS: string;
}

interface Case {
  /** The arguments, built from the case's paths. */
  readonly args: (p: Paths) => string[];
  /** What the message on stderr must say. */
  readonly message: RegExp;
  readonly stdin?: string;
  /**
   * The case asks for `--json`: stdout carries the `schemapin.error/1` object (code `USAGE`,
   * the same message) instead of nothing.
   */
  readonly json?: true;
}

/** The recorders of one case and what they saw. */
interface Observed {
  readonly result: CliResult;
  readonly connections: number;
  readonly connects: string[];
  readonly requests: string[];
  readonly dnsQueries: number;
  readonly written: string[];
}

async function listTree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    out.push(prefix + e.name);
    if (e.isDirectory) out.push(...await listTree(`${dir}/${e.name}`, `${prefix}${e.name}/`));
  }
  return out.sort();
}

/** Path → size and modification time of everything under `dir`. */
async function fingerprintTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of await listTree(dir)) {
    const info = await Deno.lstat(`${dir}/${path}`);
    out[path] = `${info.size} ${info.mtime?.getTime()}`;
  }
  return out;
}

/** The valid inputs every case starts from. */
async function writeInputs(dir: string): Promise<void> {
  const schema = toolSchema();
  const discovery = discoveryFor(SIGNER);
  await Deno.writeTextFile(`${dir}/calc.json`, JSON.stringify(schema));
  await Deno.writeTextFile(`${dir}/calc.json.sig`, signSchemaBase64(schema, SIGNER) + "\n");
  await Deno.writeTextFile(
    `${dir}/calc.doc.sig`,
    formatSchemaSignatureDocument(signSchemaDocument(schema, SIGNER, { domain: HOST })),
  );
  await Deno.writeTextFile(`${dir}/schemapin.json`, JSON.stringify(discovery));
  await Deno.writeTextFile(
    `${dir}/revocations.json`,
    JSON.stringify(buildRevocationDocument(HOST)),
  );
  await Deno.writeTextFile(
    `${dir}/bundle.json`,
    JSON.stringify(addDiscoveryToBundle(createTrustBundle(), HOST, discovery)),
  );
  await Deno.writeTextFile(`${dir}/private.pem`, privateKeyToPem(SIGNER));
  await Deno.writeTextFile(`${dir}/public.pem`, SIGNER.publicKey.pem);
  await Deno.mkdir(`${dir}/skill`);
  await Deno.writeTextFile(`${dir}/skill/SKILL.md`, "---\nname: pdf-tools\n---\nHi\n");
  await Deno.writeTextFile(`${dir}/skill/.schemapin.sig`, "{}\n");
  const tools = [{ name: "add", description: "Adds", inputSchema: { type: "object" } }];
  const list = digestToolList(tools as JsonValue[]);
  await Deno.writeTextFile(`${dir}/tools.json`, JSON.stringify({ tools }));
  await Deno.writeTextFile(
    `${dir}/contractpin.lock`,
    serializeLock(buildLock({ web: lockServerEntry({ transport: "http", url: MCP_URL }, list) })),
  );
  await Deno.writeTextFile(
    `${dir}/stdio.lock`,
    serializeLock(
      buildLock({ local: lockServerEntry({ transport: "stdio", command: ["fixture"] }, list) }),
    ),
  );
}

/** Runs `args` with every recorder in place; `OUT` is removed afterwards. */
async function observe(
  inDir: string,
  outDir: string,
  args: (p: Paths) => string[],
  stdin?: string,
): Promise<Observed> {
  await Deno.mkdir(outDir);
  const proxy = startConnectProxy(() => undefined);
  const dns = await startFakeDns({ silent: true });
  try {
    const paths: Paths = { IN: inDir, OUT: outDir, DNS: dns.server };
    const result = await runCliProcess(args(paths), {
      cwd: outDir,
      drain: true,
      ...(stdin !== undefined ? { stdin } : {}),
      env: {
        HTTPS_PROXY: proxy.url,
        HTTP_PROXY: proxy.url,
        ALL_PROXY: proxy.url,
        https_proxy: proxy.url,
        http_proxy: proxy.url,
        all_proxy: proxy.url,
        NO_PROXY: "",
        no_proxy: "",
        SCHEMAPIN_HOME: `${outDir}/home`,
      },
    });
    return {
      result,
      connections: proxy.connections,
      connects: [...proxy.connects],
      requests: [...proxy.requests],
      dnsQueries: dns.queries,
      written: await listTree(outDir),
    };
  } finally {
    await proxy.close();
    await dns.stop();
    await Deno.remove(outDir, { recursive: true });
  }
}

/** Runs `task` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, task: (item: T, i: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await task(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

// ------------------------------------------------------------------------------ the cases

/** verify-schema of the fixture schema, pins in OUT. */
const vs = (p: Paths, ...more: string[]) => [
  "verify-schema",
  `${p.IN}/calc.json`,
  "--signature",
  `${p.IN}/calc.json.sig`,
  "--domain",
  HOST,
  "--pin-store",
  `${p.OUT}/pins.json`,
  ...more,
];
/** verify-skill of the fixture folder, pins in OUT. */
const vk = (p: Paths, ...more: string[]) => [
  "verify-skill",
  `${p.IN}/skill`,
  "--domain",
  HOST,
  "--pin-store",
  `${p.OUT}/pins.json`,
  ...more,
];
/** guard --signatures of a server that would leave a marker, pins and log in OUT. */
const gs = (p: Paths, ...more: string[]) => [
  "guard",
  "--signatures",
  "--domain",
  HOST,
  "--pin-store",
  `${p.OUT}/pins.json`,
  "--log",
  `${p.OUT}/guard.log`,
  ...more,
];
const spawnMarker = (p: Paths) => ["--", "touch", `${p.OUT}/spawned`];
const ci = (p: Paths, ...more: string[]) => [
  "contract",
  "init",
  "--lock",
  `${p.OUT}/contractpin.lock`,
  ...more,
];
const cv = (p: Paths, ...more: string[]) => [
  "contract",
  "verify",
  "--lock",
  `${p.IN}/contractpin.lock`,
  ...more,
];

const CASES: Record<string, Case> = {
  // verify-schema: --well-known (HTTPS through the proxy) and --dns (UDP to the fake server).
  "verify-schema: --dns-server localhost (the issue's example)": {
    args: (p) => vs(p, "--well-known", "--dns", "--dns-server", "localhost"),
    message: /verify-schema: --dns-server: .*not an IP address/,
  },
  "verify-schema: --dns-server without --dns": {
    args: (p) => vs(p, "--well-known", "--dns-server", p.DNS),
    message: /--dns-server goes with --dns/,
  },
  "verify-schema: --dns-server port 0": {
    args: (p) => vs(p, "--well-known", "--dns", "--dns-server", "127.0.0.1:0"),
    message: /--dns-server: .*out of range/,
  },
  "verify-schema: --dns-server with a port that is not a number": {
    args: (p) =>
      vs(p, "--dns", "--dns-server", "127.0.0.1:dns", "--discovery", `${p.IN}/schemapin.json`),
    message: /--dns-server: .*not a number/,
  },
  "verify-schema: --timeout abc": {
    args: (p) => vs(p, "--well-known", "--dns", "--dns-server", p.DNS, "--timeout", "abc"),
    message: /--timeout "abc" must be a number of seconds/,
  },
  "verify-schema: --timeout 0": {
    args: (p) => vs(p, "--well-known", "--timeout", "0"),
    message: /--timeout "0" must be/,
  },
  "verify-schema: --timeout 601": {
    args: (p) => vs(p, "--well-known", "--timeout", "601"),
    message: /--timeout "601" must be/,
  },
  "verify-schema: --timeout=-1": {
    args: (p) => vs(p, "--well-known", "--timeout=-1"),
    message: /--timeout "-1" must be/,
  },
  "verify-schema: --timeout with a DNS check only": {
    args: (p) =>
      vs(
        p,
        "--discovery",
        `${p.IN}/schemapin.json`,
        "--dns",
        "--dns-server",
        p.DNS,
        "--timeout",
        "1e3",
      ),
    message: /--timeout "1e3" must be/,
  },
  "verify-schema: --timeout without a network source": {
    args: (p) => vs(p, "--bundle", `${p.IN}/bundle.json`, "--timeout", "5"),
    message: /--timeout goes with --well-known or --dns/,
  },
  "verify-schema: an http:// domain": {
    args: (p) => vs(p, "--well-known").map((a) => (a === HOST ? `http://${HOST}` : a)),
    message: /--domain "http:\/\/tools\.example\.test"/,
  },
  "verify-schema: a domain with a space": {
    args: (p) => vs(p, "--well-known").map((a) => (a === HOST ? "tools example.test" : a)),
    message: /--domain "tools example\.test"/,
  },
  "verify-schema: no --domain": {
    args: (p) => vs(p, "--well-known").filter((a) => a !== "--domain" && a !== HOST),
    message: /--domain D is required/,
  },
  "verify-schema: --discovery and --well-known": {
    args: (p) => vs(p, "--discovery", `${p.IN}/schemapin.json`, "--well-known"),
    message: /give exactly one key source/,
  },
  "verify-schema: no key source": {
    args: (p) => vs(p, "--dns", "--dns-server", p.DNS),
    message: /give exactly one key source/,
  },
  "verify-schema: --ca-file without --well-known": {
    args: (p) => vs(p, "--resolver-dir", p.IN, "--ca-file", `${p.IN}/public.pem`),
    message: /--ca-file goes with --well-known/,
  },
  "verify-schema: --revocation with --well-known": {
    args: (p) => vs(p, "--well-known", "--revocation", `${p.IN}/revocations.json`),
    message: /--revocation goes with --discovery/,
  },
  "verify-schema: --public-key and --well-known": {
    args: (p) => vs(p, "--public-key", `${p.IN}/public.pem`, "--well-known"),
    message: /verify-schema: --public-key is the key source; it does not go with --well-known/,
  },
  "verify-schema: --public-key and --discovery": {
    args: (p) => vs(p, "--public-key", `${p.IN}/public.pem`, "--discovery", `${p.IN}/x.json`),
    message: /--public-key is the key source; it does not go with --discovery/,
  },
  "verify-schema: --public-key with --pin-store (nothing is pinned)": {
    args: (p) => vs(p, "--public-key", `${p.IN}/public.pem`, "--dns", "--dns-server", p.DNS),
    message: /--pin-store does not go with --public-key \(an explicit key is never pinned\)/,
  },
  "verify-skill: --public-key, --bundle and --resolver-dir": {
    args: (p) =>
      vk(
        p,
        "--bundle",
        `${p.IN}/bundle.json`,
        "--public-key",
        `${p.IN}/public.pem`,
        "--resolver-dir",
        p.IN,
      ),
    message:
      /verify-skill: --public-key is the key source; it does not go with --bundle, --resolver-dir/,
  },
  "verify-schema: --authority without --bundle": {
    args: (p) => vs(p, "--well-known", "--authority", `acme=${FP}`),
    message: /go with --bundle FILE/,
  },
  "verify-schema: --trust-first-use-authority without --bundle": {
    args: (p) => vs(p, "--well-known", "--trust-first-use-authority"),
    message: /go with --bundle FILE/,
  },
  "verify-schema: --authority that is not KID=FINGERPRINT": {
    args: (p) => vs(p, "--bundle", `${p.IN}/bundle.json`, "--well-known", "--authority", "acme"),
    message: /--authority "acme" is not KID=FINGERPRINT/,
  },
  "verify-schema: --authority with a malformed fingerprint": {
    args: (p) =>
      vs(p, "--well-known", "--bundle", `${p.IN}/bundle.json`, "--authority", "acme=sha256:xyz"),
    message: /the fingerprint must be sha256:/,
  },
  "verify-schema: --authority-key that is not KID=PEM": {
    args: (p) =>
      vs(p, "--well-known", "--bundle", `${p.IN}/bundle.json`, "--authority-key", "acme="),
    message: /--authority-key "acme=" is not KID=PEM/,
  },
  "verify-schema: --authority-key file missing (an --authority-store would be seeded)": {
    args: (p) =>
      vs(
        p,
        "--well-known",
        "--bundle",
        `${p.IN}/bundle.json`,
        "--authority",
        `acme=${FP}`,
        "--authority-key",
        `other=${p.IN}/missing.pem`,
        "--authority-store",
        `${p.OUT}/authorities.json`,
      ),
    message: /IO_FAILED: cannot read .*missing\.pem/,
  },
  "verify-schema: --tool-id empty": {
    args: (p) => vs(p, "--well-known", "--tool-id", ""),
    message: /--tool-id: the tool id is empty/,
  },
  "verify-schema: no SCHEMA": {
    args: (p) => vs(p, "--well-known").filter((a) => a !== `${p.IN}/calc.json`),
    message: /expected one SCHEMA\.json \(or -\), got 0/,
  },
  "verify-schema: two SCHEMAs": {
    args: (p) => [...vs(p, "--well-known"), `${p.IN}/calc.json`],
    message: /expected one SCHEMA\.json \(or -\), got 2/,
  },
  "verify-schema: --signature and --signature-base64": {
    args: (p) => vs(p, "--well-known", "--signature-base64", "AAAA"),
    message: /give exactly one of --signature FILE and --signature-base64 B64/,
  },
  "verify-schema: neither --signature nor --signature-base64": {
    args: (p) => ["verify-schema", `${p.IN}/calc.json`, "--domain", HOST, "--well-known", "--dns"],
    message: /give exactly one of --signature FILE and --signature-base64 B64/,
  },
  "verify-schema: a --domain that differs from the document's": {
    args: (p) => [
      ...["verify-schema", `${p.IN}/calc.json`, "--signature", `${p.IN}/calc.doc.sig`],
      ...["--domain", "other.example", "--well-known", "--pin-store", `${p.OUT}/pins.json`],
    ],
    message: /--domain other\.example differs from the domain the signature document names/,
  },
  "verify-schema: no --domain and a bare signature": {
    args: (p) => [
      ...["verify-schema", `${p.IN}/calc.json`, "--signature", `${p.IN}/calc.json.sig`],
      ...["--well-known", "--pin-store", `${p.OUT}/pins.json`],
    ],
    message: /--domain D is required: the signature does not name its domain/,
  },
  "verify-schema: schema and signature both on stdin": {
    args: () => ["verify-schema", "-", "--signature", "-", "--domain", HOST, "--well-known"],
    message: /cannot both be stdin/,
    stdin: "{}",
  },
  "verify-schema: --batch with a SCHEMA": {
    args: (p) => vs(p, "--well-known", "--batch", p.IN),
    message: /--batch takes no SCHEMA/,
  },
  "verify-schema: --batch with --signature": {
    args: (p) => [
      "verify-schema",
      "--batch",
      p.IN,
      "--signature",
      `${p.IN}/calc.json.sig`,
      "--domain",
      HOST,
      "--well-known",
    ],
    message: /--signature does not go with --batch/,
  },
  "verify-schema: --batch with a path as --pattern": {
    args: (
      p,
    ) => [
      "verify-schema",
      "--batch",
      p.IN,
      "--pattern",
      "a/*.json",
      "--domain",
      HOST,
      "--well-known",
    ],
    message: /--pattern "a\/\*\.json" must be a file-name pattern/,
  },
  "verify-schema: --pattern without --batch": {
    args: (p) => vs(p, "--well-known", "--pattern", "*.json"),
    message: /--pattern and --signature-dir go with --batch/,
  },
  "verify-schema: --batch folder missing": {
    args: (p) => ["verify-schema", "--batch", `${p.IN}/nope`, "--domain", HOST, "--well-known"],
    message: /IO_FAILED: cannot list .*nope/,
  },
  "verify-schema: an unknown option": {
    args: (p) => vs(p, "--well-known", "--well-knwon"),
    message: /verify-schema: unknown option --well-knwon; did you mean --well-known\?/,
  },
  "verify-schema: --timeout without its value": {
    args: (p) => [...vs(p, "--well-known"), "--timeout"],
    message: /verify-schema: --timeout needs a value/,
  },
  "verify-schema: --resolver-dir missing (would fall through to --well-known)": {
    args: (p) => vs(p, "--resolver-dir", `${p.IN}/trust`, "--well-known"),
    message: /IO_FAILED: --resolver-dir .*trust: no such file or directory/,
  },
  "verify-schema: --resolver-dir is a file": {
    args: (p) => vs(p, "--resolver-dir", `${p.IN}/calc.json`, "--well-known"),
    message: /--resolver-dir .*calc\.json is not a directory/,
  },
  "verify-schema: --ca-file missing": {
    args: (p) =>
      vs(p, "--well-known", "--ca-file", `${p.IN}/missing.pem`, "--dns", "--dns-server", p.DNS),
    message: /IO_FAILED: cannot read .*missing\.pem/,
  },
  "verify-schema: --ca-file with an empty path": {
    args: (p) => vs(p, "--well-known", "--ca-file", ""),
    message: /verify-schema: --ca-file needs a path/,
  },
  "verify-schema: --ca-file holds no certificate": {
    args: (p) => vs(p, "--well-known", "--ca-file", `${p.IN}/calc.json`),
    message: /--ca-file .*calc\.json holds no PEM certificate/,
  },
  "verify-schema: SCHEMA missing": {
    args: (p) =>
      vs(p, "--well-known").map((a) => a.endsWith("/calc.json") ? `${p.IN}/nope.json` : a),
    message: /IO_FAILED: cannot read .*nope\.json/,
  },
  "verify-schema: SCHEMA is a PEM key, not JSON": {
    args: (p) =>
      vs(p, "--well-known").map((a) => a.endsWith("/calc.json") ? `${p.IN}/public.pem` : a),
    message: /INPUT_INVALID: .*public\.pem: this is a PEM public key, not a schema/,
  },
  "verify-schema: signature file is neither Base64 nor JSON": {
    args: (p) =>
      vs(p, "--well-known", "--dns", "--dns-server", p.DNS).map((a) =>
        a.endsWith(".sig") ? `${p.IN}/public.pem` : a
      ),
    message: /INPUT_INVALID: signature file .*public\.pem is neither/,
  },
  "verify-schema: schema without a usable name and no --tool-id": {
    args: (p) =>
      vs(p, "--well-known").map((a) => a.endsWith("/calc.json") ? `${p.IN}/tools.json` : a),
    message: /has no usable "name" to use as the tool id/,
  },
  "verify-schema: --discovery file missing, with --dns": {
    args: (p) => vs(p, "--discovery", `${p.IN}/nope.json`, "--dns", "--dns-server", p.DNS),
    message: /IO_FAILED: cannot read .*nope\.json/,
  },

  // verify-skill: the same sources.
  "verify-skill: --dns-server localhost": {
    args: (p) => vk(p, "--well-known", "--dns", "--dns-server", "localhost"),
    message: /verify-skill: --dns-server: .*not an IP address/,
  },
  "verify-skill: --timeout 0": {
    args: (p) => vk(p, "--well-known", "--dns", "--dns-server", p.DNS, "--timeout", "0"),
    message: /verify-skill: --timeout "0" must be/,
  },
  "verify-skill: --max-entries 0": {
    args: (p) => vk(p, "--well-known", "--max-entries", "0"),
    message: /--max-entries must be a positive integer/,
  },
  "verify-skill: --max-bytes lots": {
    args: (p) => vk(p, "--well-known", "--max-bytes", "lots"),
    message: /--max-bytes must be a size/,
  },
  "verify-skill: --tool-id with a control character": {
    args: (p) => vk(p, "--well-known", "--tool-id", "a\tb"),
    message: /--tool-id: the tool id contains control characters/,
  },
  "verify-skill: no DIR": {
    args: () => ["verify-skill", "--domain", HOST, "--well-known"],
    message: /verify-skill: expected DIR, got 0/,
  },
  "verify-skill: DIR missing": {
    args: (p) => vk(p, "--well-known").map((a) => a.endsWith("/skill") ? `${p.IN}/nope` : a),
    message: /IO_FAILED: cannot open skill folder .*nope/,
  },
  "verify-skill: DIR is a file": {
    args: (p) => vk(p, "--well-known").map((a) => a.endsWith("/skill") ? `${p.IN}/calc.json` : a),
    message: /calc\.json is not a directory/,
  },
  "verify-skill: --signature file missing": {
    args: (p) => vk(p, "--well-known", "--signature", `${p.IN}/nope.sig`),
    message: /IO_FAILED: cannot read .*nope\.sig/,
  },
  "verify-skill: --signature is not JSON": {
    args: (p) => vk(p, "--well-known", "--signature", `${p.IN}/calc.json.sig`),
    message: /JSON_INVALID/,
  },
  "verify-skill: --bundle and --discovery": {
    args: (p) =>
      vk(p, "--bundle", `${p.IN}/bundle.json`, "--discovery", `${p.IN}/schemapin.json`, "--dns"),
    message: /give exactly one key source/,
  },
  "verify-skill: --revocation with --well-known": {
    args: (p) => vk(p, "--well-known", "--revocation", `${p.IN}/revocations.json`),
    message: /--revocation goes with --discovery/,
  },
  "verify-skill: a domain with a path": {
    args: (p) => vk(p, "--well-known").map((a) => (a === HOST ? `${HOST}/x` : a)),
    message: /--domain "tools\.example\.test\/x"/,
  },
  "verify-skill: --ca-file holds no certificate": {
    args: (p) => vk(p, "--well-known", "--ca-file", `${p.IN}/public.pem`),
    message: /holds no PEM certificate/,
  },

  // guard --signatures: the trust documents are fetched when the guard starts.
  "guard: --dns-server localhost": {
    args: (
      p,
    ) => [...gs(p, "--well-known", "--dns", "--dns-server", "localhost"), ...spawnMarker(p)],
    message: /guard: --dns-server: .*not an IP address/,
  },
  "guard: --timeout x": {
    args: (p) => [...gs(p, "--well-known", "--timeout", "x"), ...spawnMarker(p)],
    message: /guard: --timeout "x" must be/,
  },
  "guard: --mode bogus": {
    args: (p) => [...gs(p, "--well-known", "--mode", "bogus"), ...spawnMarker(p)],
    message: /--mode must be enforce, filter or audit/,
  },
  "guard: --startup-timeout 0": {
    args: (p) => [...gs(p, "--well-known", "--startup-timeout", "0"), ...spawnMarker(p)],
    message: /--startup-timeout must be a positive number of seconds/,
  },
  "guard: --list-timeout abc": {
    args: (p) => [...gs(p, "--well-known", "--list-timeout", "abc"), ...spawnMarker(p)],
    message: /--list-timeout must be a positive number of seconds/,
  },
  "guard: no server command": {
    args: (p) => gs(p, "--well-known"),
    message: /the server command goes after --/,
  },
  "guard: a positional argument before --": {
    args: (p) => [...gs(p, "--well-known", "node"), ...spawnMarker(p)],
    message: /unexpected argument "node"/,
  },
  "guard: --lock missing": {
    args: (p) => [...gs(p, "--well-known", "--lock", `${p.IN}/nope.lock`), ...spawnMarker(p)],
    message: /IO_FAILED: cannot read .*nope\.lock/,
  },
  "guard: --server not in the lock": {
    args: (p) => [
      ...gs(p, "--well-known", "--lock", `${p.IN}/stdio.lock`, "--server", "other"),
      ...spawnMarker(p),
    ],
    message: /has no server "other"/,
  },
  "guard: --signatures without --domain": {
    args: (p) => ["guard", "--signatures", "--well-known", ...spawnMarker(p)],
    message: /--signatures needs --domain D/,
  },
  "guard: --well-known without --signatures": {
    args: (p) => ["guard", "--lock", `${p.IN}/stdio.lock`, "--well-known", ...spawnMarker(p)],
    message: /--well-known goes with --signatures/,
  },
  "guard: two key sources": {
    args: (p) => [
      ...gs(p, "--well-known", "--discovery", `${p.IN}/schemapin.json`),
      ...spawnMarker(p),
    ],
    message: /give exactly one key source/,
  },
  "guard: --ca-file missing": {
    args: (p) => [...gs(p, "--well-known", "--ca-file", `${p.IN}/nope.pem`), ...spawnMarker(p)],
    message: /IO_FAILED: cannot read .*nope\.pem/,
  },
  "guard: --listen port out of range": {
    args: (p) => [
      ...gs(p, "--well-known"),
      "--listen",
      "127.0.0.1:99999",
      "--upstream",
      MCP_URL,
    ],
    message: /--listen expects HOST:PORT or PORT/,
  },
  "guard: --listen on a public address without --allow-remote": {
    args: (
      p,
    ) => [
      "guard",
      "--lock",
      `${p.IN}/contractpin.lock`,
      "--listen",
      "0.0.0.0:0",
      "--upstream",
      MCP_URL,
    ],
    message: /--listen 0\.0\.0\.0 is not a loopback address/,
  },
  "guard: --upstream ftp://": {
    args: (p) => [
      "guard",
      "--lock",
      `${p.IN}/contractpin.lock`,
      "--listen",
      "127.0.0.1:0",
      "--upstream",
      "ftp://mcp.example.test/mcp",
    ],
    message: /guard: --upstream: /,
  },
  "guard: --listen without --upstream": {
    args: (p) => ["guard", "--lock", `${p.IN}/contractpin.lock`, "--listen", "127.0.0.1:0"],
    message: /--listen and --upstream go together/,
  },
  "guard: --listen and a server command": {
    args: (p) => [
      "guard",
      "--lock",
      `${p.IN}/contractpin.lock`,
      "--listen",
      "127.0.0.1:0",
      "--upstream",
      MCP_URL,
      ...spawnMarker(p),
    ],
    message: /give either a command after -- or --listen\/--upstream/,
  },
  "guard: --allow-remote without --listen": {
    args: (p) => ["guard", "--lock", `${p.IN}/stdio.lock`, "--allow-remote", ...spawnMarker(p)],
    message: /--allow-remote goes with --listen/,
  },

  // dns check: a UDP query, and with --well-known an HTTPS fetch.
  "dns check: --dns-server localhost": {
    args: () => ["dns", "check", HOST, "--dns-server", "localhost"],
    message: /dns check: --dns-server: .*not an IP address/,
  },
  "dns check: --timeout 0": {
    args: (p) => ["dns", "check", HOST, "--dns-server", p.DNS, "--timeout", "0"],
    message: /dns check: --timeout "0" must be/,
  },
  "dns check: --timeout abc with --well-known": {
    args: (p) => ["dns", "check", HOST, "--dns-server", p.DNS, "--well-known", "--timeout", "abc"],
    message: /dns check: --timeout "abc" must be/,
  },
  "dns check: --key and --fingerprint": {
    args: (
      p,
    ) => [
      "dns",
      "check",
      HOST,
      "--dns-server",
      p.DNS,
      "--key",
      `${p.IN}/public.pem`,
      "--fingerprint",
      FP,
    ],
    message: /give at most one of --key, --fingerprint, --discovery, --well-known/,
  },
  "dns check: --fingerprint malformed": {
    args: (p) => ["dns", "check", HOST, "--dns-server", p.DNS, "--fingerprint", "sha256:abc"],
    message: /--fingerprint must be sha256:/,
  },
  "dns check: --ca-file without --well-known": {
    args: (p) => ["dns", "check", HOST, "--dns-server", p.DNS, "--ca-file", `${p.IN}/public.pem`],
    message: /--ca-file goes with --well-known/,
  },
  "dns check: --ca-file missing with --well-known": {
    args: (
      p,
    ) => [
      "dns",
      "check",
      HOST,
      "--dns-server",
      p.DNS,
      "--well-known",
      "--ca-file",
      `${p.IN}/nope.pem`,
    ],
    message: /IO_FAILED: cannot read .*nope\.pem/,
  },
  "dns check: --key missing": {
    args: (p) => ["dns", "check", HOST, "--dns-server", p.DNS, "--key", `${p.IN}/nope.pem`],
    message: /IO_FAILED: cannot read .*nope\.pem/,
  },
  "dns check: --discovery is not a discovery document": {
    args: (p) => ["dns", "check", HOST, "--dns-server", p.DNS, "--discovery", `${p.IN}/calc.json`],
    message: /^error: /,
  },
  "dns check: no DOMAIN": {
    args: (p) => ["dns", "check", "--dns-server", p.DNS],
    message: /dns check: expected DOMAIN, got 0/,
  },
  "dns check: two DOMAINs": {
    args: (p) => ["dns", "check", HOST, "example.test", "--dns-server", p.DNS],
    message: /dns check: expected DOMAIN, got 2/,
  },
  "dns check: a DOMAIN that is a URL": {
    args: (p) => ["dns", "check", `https://${HOST}/`, "--dns-server", p.DNS],
    message: /dns check: "https:\/\/tools\.example\.test\/"/,
  },
  "dns check: an unknown option": {
    args: (p) => ["dns", "check", HOST, "--dns-server", p.DNS, "--dns"],
    message: /dns check: unknown option --dns/,
  },
  "dns: an unknown subcommand": {
    args: () => ["dns", "lookup", HOST],
    message: /dns: unknown subcommand "lookup"/,
  },

  // contract init: HTTP servers (through HTTP_PROXY), stdio servers (the marker), the lock.
  "contract init: --timeout 0": {
    args: (p) => ci(p, "--http", `web=${MCP_URL}`, "--timeout", "0"),
    message: /--timeout must be a positive number/,
  },
  "contract init: --startup-timeout abc": {
    args: (p) => ci(p, "--http", `web=${MCP_URL}`, "--startup-timeout", "abc"),
    message: /--startup-timeout must be a positive number/,
  },
  "contract init: --max-pages 1.5": {
    args: (p) => ci(p, "--http", `web=${MCP_URL}`, "--max-pages", "1.5"),
    message: /--max-pages must be a positive integer/,
  },
  "contract init: --concurrency=0": {
    args: (p) => ci(p, "--http", `web=${MCP_URL}`, "--concurrency=0"),
    message: /--concurrency must be a positive integer/,
  },
  "contract init: --http without NAME=": {
    args: (p) => ci(p, "--http", MCP_URL),
    message: /--http expects NAME=URL/,
  },
  "contract init: a server name with a space": {
    args: (p) => ci(p, "--http", `my web=${MCP_URL}`),
    message: /server name "my web" must start with a letter or digit/,
  },
  "contract init: an ftp:// URL": {
    args: (p) => ci(p, "--http", "web=ftp://mcp.example.test/mcp"),
    message: /^error: INPUT_INVALID: .*ftp/m,
  },
  "contract init: a URL that is not one": {
    args: (p) => ci(p, "--http", "web=mcp.example.test/mcp", "--http", `ok=${MCP_URL}`),
    message: /^error: INPUT_INVALID: /m,
  },
  "contract init: --header without a name": {
    args: (p) => ci(p, "--http", `web=${MCP_URL}`, "--header", "no colon here"),
    message: /--header must look like 'Name: value'/,
  },
  "contract init: --header the client sets itself": {
    args: (p) => ci(p, "--http", `web=${MCP_URL}`, "--header", "Host: evil.example.test"),
    message: /--header Host: this header is set by the MCP client itself/,
  },
  "contract init: --header naming an unset variable": {
    args: (p) =>
      ci(p, "--http", `web=${MCP_URL}`, "--header", "Authorization: Bearer ${SCHEMAPIN_UNSET_VAR}"),
    message: /environment variable SCHEMAPIN_UNSET_VAR is not set/,
  },
  "contract init: --header without an HTTP server": {
    args: (p) => ci(p, "--header", "X-Token: a", "--file", `f=${p.IN}/tools.json`),
    message: /--header given but there is no HTTP server/,
  },
  "contract init: --env without --server": {
    args: (p) => ci(p, "--http", `web=${MCP_URL}`, "--env", "A=1"),
    message: /--env and --cwd apply to --server NAME -- CMD/,
  },
  "contract init: a command without --server": {
    args: (p) => [...ci(p, "--http", `web=${MCP_URL}`), ...spawnMarker(p)],
    message: /a command after -- needs --server NAME/,
  },
  "contract init: --server without a command": {
    args: (p) => ci(p, "--server", "local", "--http", `web=${MCP_URL}`),
    message: /--server local needs the command after --/,
  },
  "contract init: --env with a bad name": {
    args: (p) => [...ci(p, "--server", "local", "--env", "1A=x"), ...spawnMarker(p)],
    message: /--env expects NAME=VALUE or NAME/,
  },
  "contract init: the same server twice": {
    args: (p) => [...ci(p, "--server", "web", "--http", `web=${MCP_URL}`), ...spawnMarker(p)],
    message: /server web is defined twice/,
  },
  "contract init: --snapshot and --no-snapshot": {
    args: (p) =>
      ci(p, "--http", `web=${MCP_URL}`, "--snapshot", `${p.OUT}/s.json`, "--no-snapshot"),
    message: /--snapshot FILE and --no-snapshot contradict each other/,
  },
  "contract init: a positional argument": {
    args: (p) => ci(p, "web", "--http", `web=${MCP_URL}`),
    message: /contract init: unexpected argument "web"/,
  },
  "contract init: no servers": {
    args: (p) => ci(p),
    message: /no servers to pin/,
  },
  "contract init: --config missing": {
    args: (p) => ci(p, "--http", `web=${MCP_URL}`, "--config", `${p.IN}/nope.json`),
    message: /IO_FAILED: cannot read .*nope\.json/,
  },
  "contract init: an existing lock without --force": {
    args: (
      p,
    ) => ["contract", "init", "--lock", `${p.IN}/contractpin.lock`, "--http", `web=${MCP_URL}`],
    message: /contractpin\.lock already exists; use --force/,
  },

  // contract verify: the lock's HTTP server.
  "contract verify: --format xml": {
    args: (p) => cv(p, "--format", "xml"),
    message: /--format must be one of human, json, sarif, github/,
  },
  "contract verify: --json and --format sarif": {
    args: (p) => cv(p, "--json", "--format", "sarif"),
    message: /--json and --format sarif contradict each other/,
    json: true,
  },
  "contract verify: --timeout -5": {
    args: (p) => cv(p, "--timeout=-5"),
    message: /--timeout must be a positive number/,
  },
  "contract verify: --server not in the lock": {
    args: (p) => cv(p, "--server", "web", "--server", "nope"),
    message: /server "nope" is not in .*contractpin\.lock/,
  },
  "contract verify: --header malformed": {
    args: (p) => cv(p, "--header", "Authorization"),
    message: /--header must look like 'Name: value'/,
  },
  "contract verify: --header naming an unset variable": {
    args: (p) => cv(p, "--header", "X-Key: ${SCHEMAPIN_UNSET_VAR}"),
    message: /environment variable SCHEMAPIN_UNSET_VAR is not set/,
  },
  "contract verify: a positional argument": {
    args: (p) => cv(p, "web"),
    message: /contract verify: unexpected argument "web"/,
  },
  "contract verify: --lock missing": {
    args: (p) => ["contract", "verify", "--lock", `${p.IN}/nope.lock`],
    message: /IO_FAILED: cannot read .*nope\.lock/,
  },
  "contract verify: --snapshot missing": {
    args: (p) => cv(p, "--snapshot", `${p.IN}/nope.json`),
    message: /IO_FAILED: cannot read .*nope\.json/,
  },
  "contract verify: --config missing": {
    args: (p) => cv(p, "--config", `${p.IN}/nope.json`),
    message: /IO_FAILED: cannot read .*nope\.json/,
  },
  "contract: an unknown subcommand": {
    args: () => ["contract", "check"],
    message: /contract: unknown subcommand "check"/,
  },

  // sign-tools: starts the server (the marker) and writes --out.
  "sign-tools: --domain with a scheme": {
    args: (p) => [
      "sign-tools",
      "--key",
      `${p.IN}/private.pem`,
      "--domain",
      "https://acme.example.test",
      "--server",
      "s",
      "--out",
      `${p.OUT}/signed.json`,
      ...spawnMarker(p),
    ],
    message: /sign-tools: --domain "https:\/\/acme\.example\.test"/,
  },
  "sign-tools: --expires-in 3 days": {
    args: (p) => [
      "sign-tools",
      "--key",
      `${p.IN}/private.pem`,
      "--domain",
      HOST,
      "--server",
      "s",
      "--expires-in",
      "3 days",
      ...spawnMarker(p),
    ],
    // The same wording as every signing command's (cli/commands/signature_options.ts).
    message: /sign-tools: --expires-in "3 days" is not a duration like 30d, 12h, 90m, 2w or 1d12h/,
  },
  "sign-tools: --signer-kid empty": {
    args: (p) => [
      "sign-tools",
      "--key",
      `${p.IN}/private.pem`,
      "--domain",
      HOST,
      "--server",
      "s",
      "--signer-kid",
      "",
      ...spawnMarker(p),
    ],
    message: /sign-tools: --signer-kid is empty/,
  },
  "sign-tools: --timeout 0": {
    args: (p) => [
      "sign-tools",
      "--key",
      `${p.IN}/private.pem`,
      "--domain",
      HOST,
      "--server",
      "s",
      "--timeout",
      "0",
      ...spawnMarker(p),
    ],
    message: /--timeout must be a positive number of seconds/,
  },
  "sign-tools: --server and --file": {
    args: (p) => [
      "sign-tools",
      "--key",
      `${p.IN}/private.pem`,
      "--domain",
      HOST,
      "--server",
      "s",
      "--file",
      `${p.IN}/tools.json`,
      ...spawnMarker(p),
    ],
    message: /give exactly one of --server NAME -- CMD… and --file FILE/,
  },
  "sign-tools: --key missing": {
    args: (p) => [
      "sign-tools",
      "--key",
      `${p.IN}/nope.pem`,
      "--domain",
      HOST,
      "--server",
      "s",
      "--out",
      `${p.OUT}/signed.json`,
      ...spawnMarker(p),
    ],
    message: /IO_FAILED: cannot read .*nope\.pem/,
  },

  // serve: listens (no outgoing request), so every check comes before Deno.serve.
  "serve: --port 99999": {
    args: (p) => [
      "serve",
      "--discovery",
      `${p.IN}/schemapin.json`,
      "--tls-cert",
      `${p.IN}/public.pem`,
      "--tls-key",
      `${p.IN}/private.pem`,
      "--port",
      "99999",
    ],
    message: /serve: --port "99999" is not a port number/,
  },
  "serve: no --tls-cert": {
    args: (
      p,
    ) => ["serve", "--discovery", `${p.IN}/schemapin.json`, "--tls-key", `${p.IN}/private.pem`],
    message: /serve: --tls-cert FILE is required/,
  },
  "serve: --discovery on stdin": {
    args: (
      p,
    ) => [
      "serve",
      "--discovery",
      "-",
      "--tls-cert",
      `${p.IN}/public.pem`,
      "--tls-key",
      `${p.IN}/private.pem`,
    ],
    message: /serve: --discovery must be a file, not stdin/,
  },
  "serve: --tls-cert holds no certificate": {
    args: (p) => [
      "serve",
      "--discovery",
      `${p.IN}/schemapin.json`,
      "--tls-cert",
      `${p.IN}/public.pem`,
      "--tls-key",
      `${p.IN}/private.pem`,
      "--port",
      "0",
    ],
    message: /--tls-cert .*public\.pem holds no PEM certificate/,
  },

  // Commands that write files or pins (no network): nothing is created before the checks.
  "keygen: --developer without --write-discovery": {
    args: (p) => ["keygen", "--unencrypted", "--out-dir", `${p.OUT}/keys`, "--developer", "Acme"],
    message: /--developer and --contact go with --write-discovery/,
  },
  "keygen: an empty --developer": {
    args: (
      p,
    ) => [
      "keygen",
      "--unencrypted",
      "--out-dir",
      `${p.OUT}/keys`,
      "--write-discovery",
      "--developer",
      "",
    ],
    message: /INPUT_INVALID: the developer name must not be empty/,
  },
  "keygen: --passphrase-file with --unencrypted": {
    args: (p) => [
      "keygen",
      "--out-dir",
      `${p.OUT}/keys`,
      "--unencrypted",
      "--passphrase-file",
      `${p.IN}/public.pem`,
    ],
    message: /--passphrase-file and --unencrypted exclude each other/,
  },
  "keygen: no passphrase and no terminal, without --unencrypted": {
    args: (p) => ["keygen", "--out-dir", `${p.OUT}/keys`],
    message:
      /needs a passphrase: give --passphrase-file FILE or set SCHEMAPIN_PASSPHRASE \(there is no terminal to ask on\); or give --unencrypted/,
  },
  "sign-schema --batch: --domain with a scheme (--out would be created)": {
    args: (p) => [
      "sign-schema",
      "--batch",
      p.IN,
      "--out-dir",
      `${p.OUT}/sigs`,
      "--key",
      `${p.IN}/private.pem`,
      "--domain",
      "http://acme.example.test",
    ],
    message: /sign-schema: --domain "http:\/\/acme\.example\.test"/,
  },
  "sign-schema --batch: --previous-hash malformed": {
    args: (p) => [
      "sign-schema",
      "--batch",
      p.IN,
      "--out-dir",
      `${p.OUT}/sigs`,
      "--key",
      `${p.IN}/private.pem`,
      "--previous-hash",
      "abc",
    ],
    message: /sign-schema: --previous-hash "abc"/,
  },
  "sign-schema --batch: --signer-kid empty": {
    args: (p) => [
      "sign-schema",
      "--batch",
      p.IN,
      "--out-dir",
      `${p.OUT}/sigs`,
      "--key",
      `${p.IN}/private.pem`,
      "--signer-kid",
      "",
    ],
    message: /sign-schema: --signer-kid is empty/,
  },
  "sign-schema: --expires-at in the past": {
    args: (p) => [
      "sign-schema",
      `${p.IN}/calc.json`,
      "--key",
      `${p.IN}/private.pem`,
      "--out",
      `${p.OUT}/calc.sig`,
      "--expires-at",
      "2001-01-01T00:00:00Z",
    ],
    message: /--expires-at is in the past/,
  },
  "sign-skill: --max-entries 0": {
    args: (
      p,
    ) => [
      "sign-skill",
      `${p.IN}/skill`,
      "--key",
      `${p.IN}/private.pem`,
      "--domain",
      HOST,
      "--max-entries",
      "0",
    ],
    message: /--max-entries must be a positive integer/,
  },
  "well-known --out: a revocation endpoint over http": {
    args: (p) => [
      "well-known",
      "--key",
      `${p.IN}/public.pem`,
      "--developer",
      "Acme",
      "--revocation-endpoint",
      "http://acme.example.test/revocations.json",
      "--out",
      `${p.OUT}/schemapin.json`,
    ],
    message: /INPUT_INVALID: the revocation endpoint/,
  },
  "revoke --into: an unknown reason": {
    args: (p) => [
      "revoke",
      "--domain",
      HOST,
      "--fingerprint",
      FP,
      "--reason",
      "bored",
      "--into",
      `${p.OUT}/revocations.json`,
    ],
    message: /^error: INPUT_INVALID: /m,
  },
  "bundle create: --discovery without DOMAIN=": {
    args: (
      p,
    ) => ["bundle", "create", "--out", `${p.OUT}/b.json`, "--discovery", `${p.IN}/schemapin.json`],
    message: /is not DOMAIN=FILE/,
  },
  "bundle sign: --expires-in soon": {
    args: (p) => [
      "bundle",
      "sign",
      `${p.IN}/bundle.json`,
      "--key",
      `${p.IN}/private.pem`,
      "--kid",
      "acme",
      "--expires-in",
      "soon",
      "--out",
      `${p.OUT}/signed.json`,
    ],
    message: /--expires-in "soon" is not a duration/,
  },
  "bundle verify --authority-store: --authority malformed": {
    args: (p) => [
      "bundle",
      "verify",
      `${p.IN}/bundle.json`,
      "--authority-store",
      `${p.OUT}/authorities.json`,
      "--authority",
      "acme=sha256:zz",
    ],
    message: /the fingerprint must be sha256:/,
  },
  "bundle verify: --public-key with --authority-store (would be written)": {
    args: (p) => [
      "bundle",
      "verify",
      `${p.IN}/bundle.json`,
      "--public-key",
      `${p.IN}/public.pem`,
      "--authority-store",
      `${p.OUT}/authorities.json`,
    ],
    message:
      /bundle verify: --public-key is the trusted authority key; it does not go with --authority-store/,
  },
  "bundle merge: --precedence naming a kid twice": {
    args: (
      p,
    ) => ["bundle", "merge", `${p.OUT}/m.json`, `${p.IN}/bundle.json`, "--precedence", "a,a"],
    message: /--precedence lists "a" twice/,
  },
  "pins add: --fingerprint malformed": {
    args: () => ["pins", "add", `calc@${HOST}`, "--fingerprint", "sha256:1"],
    message: /pins add: --fingerprint must be sha256:/,
  },
  "pins add: --key and --fingerprint": {
    args: (
      p,
    ) => ["pins", "add", `calc@${HOST}`, "--fingerprint", FP, "--key", `${p.IN}/public.pem`],
    message: /give exactly one of --fingerprint, --key, --discovery/,
  },
  "pins rotate: an option that does not apply": {
    args: () => ["pins", "rotate", `calc@${HOST}`, "--fingerprint", FP, "--overwrite"],
    message: /pins rotate: unknown option --overwrite/,
  },
  "pins import: not a pin export": {
    args: (p) => ["pins", "import", `${p.IN}/calc.json`],
    message: /is not a schemapin pin export/,
  },
  "pins: an unknown subcommand": {
    args: () => ["pins", "purge"],
    message: /pins: unknown subcommand "purge"/,
  },
};

const inDir = await Deno.makeTempDir({ prefix: "schemapin-usage-in-" });
await writeInputs(inDir);
globalThis.addEventListener("unload", () => Deno.removeSync(inDir, { recursive: true }));

Deno.test("usage errors of commands that reach the network, files or pins: exit 2, nothing done first", async () => {
  const before = await fingerprintTree(inDir);
  const work = await Deno.makeTempDir({ prefix: "schemapin-usage-" });
  const failures: string[] = [];
  try {
    const entries = Object.entries(CASES);
    await pool(entries, 4, async ([name, c], i) => {
      const o = await observe(inDir, `${work}/case-${i}`, c.args, c.stdin);
      const problems: string[] = [];
      if (o.result.code !== 2) problems.push(`exit ${o.result.code}, not 2`);
      if (!/^error: /m.test(o.result.stderr)) problems.push("no error: line on stderr");
      if (!c.message.test(o.result.stderr)) problems.push(`message does not match ${c.message}`);
      if (c.json) {
        try {
          const out = await assertJsonOutput(o.result.stdout);
          const error = out.error as { code: string; message: string };
          assert.equal(out.format, "schemapin.error/1");
          assert.equal(error.code, "USAGE");
          assert.match(error.message, c.message);
        } catch (e) {
          problems.push(`stdout is not the USAGE error object: ${(e as Error).message}`);
        }
      } else if (o.result.stdout !== "") {
        problems.push(`stdout: ${JSON.stringify(o.result.stdout)}`);
      }
      if (o.connections > 0) {
        problems.push(
          `${o.connections} proxy connection(s): CONNECT ${o.connects.join(", ")}; ` +
            `requests ${o.requests.join(", ")}`,
        );
      }
      if (o.dnsQueries > 0) problems.push(`${o.dnsQueries} DNS quer(ies)`);
      if (o.written.length > 0) problems.push(`written: ${o.written.join(", ")}`);
      if (problems.length > 0) {
        failures.push(`${name}: ${problems.join("; ")}\n  stderr: ${o.result.stderr.trim()}`);
      }
    });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
  assert.deepEqual(failures, [], failures.join("\n"));
  assert.deepEqual(await fingerprintTree(inDir), before, "the inputs were not changed");
  assert.ok(Object.keys(CASES).length >= 150, `${Object.keys(CASES).length} cases`);
});

Deno.test("control: with valid arguments the same recorders do see the traffic", async () => {
  const work = await Deno.makeTempDir({ prefix: "schemapin-usage-control-" });
  try {
    // HTTPS through the proxy: the CONNECT is recorded (and refused, so the fetch fails).
    const https = await observe(inDir, `${work}/https`, (p) => vs(p, "--well-known"));
    assert.equal(https.result.code, 1, https.result.stderr);
    assert.match(https.result.stderr, /DISCOVERY_FETCH_FAILED/);
    // Messages name what was seen: this test failed once under load, without saying why.
    assert.deepEqual(
      https.connects.slice(0, 1),
      [`${HOST}:443`],
      `CONNECTs seen: ${JSON.stringify(https.connects)}; stderr: ${https.result.stderr}`,
    );
    assert.deepEqual(https.written, [], "a failed verification writes no pin");
    // Plain HTTP through the proxy: the request line is recorded.
    const http = await observe(inDir, `${work}/http`, (p) => cv(p, "--timeout", "5"));
    assert.equal(http.result.code, 1, http.result.stdout + http.result.stderr);
    assert.ok(
      http.requests.some((r) => r.startsWith(`POST ${MCP_URL} HTTP/1.1`)),
      `${http.requests}`,
    );
    // DNS: the query reaches the recording server (which never answers).
    const dns = await observe(inDir, `${work}/dns`, (p) => [
      "dns",
      "check",
      HOST,
      "--dns-server",
      p.DNS,
      "--timeout",
      "0.5",
    ]);
    assert.equal(dns.result.code, 1, dns.result.stderr);
    assert.ok(dns.dnsQueries >= 1, `no DNS query seen; stderr: ${dns.result.stderr}`);
    // A server command: the marker appears.
    const spawned = await observe(inDir, `${work}/spawn`, (p) => [
      "guard",
      "--lock",
      `${p.IN}/stdio.lock`,
      ...spawnMarker(p),
    ]);
    assert.deepEqual(spawned.written, ["spawned"], spawned.result.stderr);
    // A file write: the output appears.
    const wrote = await observe(inDir, `${work}/write`, (p) => [
      "keygen",
      "--unencrypted",
      "--out",
      `${p.OUT}/keys`,
    ]);
    assert.equal(wrote.result.code, 0, wrote.result.stderr);
    assert.deepEqual(
      wrote.written,
      ["keys", "keys/private.pem", "keys/public.pem"],
      wrote.result.stderr,
    );
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
