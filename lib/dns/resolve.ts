/**
 * The DNS shell: asking a name server for the TXT records at a name (RFC 1035 over UDP,
 * retried over TCP when the answer is truncated), with one deadline for the whole lookup.
 *
 * Outcomes are kept apart as §17 needs them:
 * - `answered` — the server answered NOERROR (records, possibly none) or NXDOMAIN (none);
 *   "no record" is an answer, and means *absent*;
 * - `failed` — no usable answer: timeout, SERVFAIL, REFUSED, another error code, a
 *   response that cannot be read, a network error. Never read as "absent".
 *
 * The name server is `nameServer` (`127.0.0.1:5353`, `[::1]:53`, `192.0.2.1`), else the
 * `nameserver` lines of `/etc/resolv.conf` in order. Where there is no resolv.conf (Windows)
 * the lookup falls back to `Deno.resolveDns`, which cannot tell SERVFAIL or REFUSED from
 * NXDOMAIN; such an answer is marked `systemResolver: true`.
 *
 * Responses are accepted only from the queried address and port, with the query's random
 * id and question; anything else is ignored until the deadline.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import {
  decodeResponse,
  type DnsResponse,
  encodeTxtQuery,
  RCODE,
  rcodeName,
  txtRecordsFor,
  TYPE_TXT,
} from "./wire.ts";
import { checkArg } from "../arguments.ts";

// `isIP` of node:net, written out with Node's own patterns (lib/internal/net.js): importing
// node:net, like node:dgram (loaded by the UDP query when it runs), costs every command that
// can verify ~40 ms of start-up under Deno (issue 14). tests/dns/resolve_test.ts checks both
// agree.
const V4_SEG = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])";
const V4 = `(?:${V4_SEG}\\.){3}${V4_SEG}`;
const IPV4 = new RegExp(`^${V4}$`);
const V6_SEG = "(?:[0-9a-fA-F]{1,4})";
const IPV6 = new RegExp(
  "^(?:" +
    `(?:${V6_SEG}:){7}(?:${V6_SEG}|:)|` +
    `(?:${V6_SEG}:){6}(?:${V4}|:${V6_SEG}|:)|` +
    `(?:${V6_SEG}:){5}(?::${V4}|(?::${V6_SEG}){1,2}|:)|` +
    `(?:${V6_SEG}:){4}(?:(?::${V6_SEG}){0,1}:${V4}|(?::${V6_SEG}){1,3}|:)|` +
    `(?:${V6_SEG}:){3}(?:(?::${V6_SEG}){0,2}:${V4}|(?::${V6_SEG}){1,4}|:)|` +
    `(?:${V6_SEG}:){2}(?:(?::${V6_SEG}){0,3}:${V4}|(?::${V6_SEG}){1,5}|:)|` +
    `(?:${V6_SEG}:){1}(?:(?::${V6_SEG}){0,4}:${V4}|(?::${V6_SEG}){1,6}|:)|` +
    `(?::(?:(?::${V6_SEG}){0,5}:${V4}|(?::${V6_SEG}){1,7}|:))` +
    ")(?:%[0-9a-zA-Z-.:]{1,})?$",
);

/**
 * 4 for an IPv4 address, 6 for an IPv6 one (a `%zone` allowed), else 0: the answer of
 * `node:net` `isIP`.
 *
 * @example
 * ```ts
 * import { ipVersion } from "./resolve.ts";
 * ipVersion("::1"); // 6
 * ipVersion("example.com"); // 0
 * ```
 */
export function ipVersion(text: string): 0 | 4 | 6 {
  if (IPV4.test(text)) return 4;
  return IPV6.test(text) ? 6 : 0;
}

/** Default deadline of a whole lookup: 5 seconds. */
export const DEFAULT_DNS_TIMEOUT_MS = 5_000;

/** A name server address. */
export interface DnsServer {
  /** IPv4 or IPv6 address (no host names: resolving one would need DNS). */
  readonly host: string;
  /** UDP/TCP port (53 by default). */
  readonly port: number;
}

/**
 * Parses `IP`, `IP:PORT`, `[IPv6]:PORT` or a bare IPv6 address; throws `SchemaPinError`
 * `INPUT_INVALID` otherwise.
 *
 * @example
 * ```ts
 * import { parseDnsServer } from "./resolve.ts";
 * parseDnsServer("127.0.0.1:5353"); // { host: "127.0.0.1", port: 5353 }
 * ```
 */
export function parseDnsServer(text: string): DnsServer {
  checkArg("parseDnsServer", "text", text, "string");
  const bad = (why: string) =>
    new SchemaPinError(
      "INPUT_INVALID",
      `DNS server ${JSON.stringify(text)}: ${why} (give IP, IP:PORT or [IPv6]:PORT)`,
    );
  let host = text;
  let portText: string | undefined;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracket) {
    host = bracket[1];
    portText = bracket[2];
  } else if (text.split(":").length === 2) {
    [host, portText] = text.split(":");
  }
  if (ipVersion(host) === 0) throw bad("not an IP address");
  let port = 53;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText)) throw bad("the port is not a number");
    port = Number(portText);
    if (port < 1 || port > 65535) throw bad("the port is out of range");
  }
  return { host, port };
}

/** Options of {@linkcode lookupTxt}. */
export interface DnsLookupOptions {
  /** The name server to ask (default: `/etc/resolv.conf`). */
  nameServer?: DnsServer | string;
  /** Deadline of the whole lookup in milliseconds (default 5000). */
  timeoutMs?: number;
  /**
   * How messages name the option that gives the name server, when none is configured
   * (default `nameServer`; the CLI names its flag).
   */
  nameServerName?: string;
}

/** What a lookup produced. */
export type DnsLookupResult =
  | {
    readonly status: "answered";
    /** The name server that answered (`host:port`, or `system resolver`). */
    readonly server: string;
    /** `NOERROR` or `NXDOMAIN`. */
    readonly rcode: string;
    /** Each TXT record as its chunks, in the order the server sent them. */
    readonly records: string[][];
    /** True when answered through `Deno.resolveDns` (no resolv.conf). */
    readonly systemResolver?: boolean;
  }
  | {
    readonly status: "failed";
    /** The name server(s) asked. */
    readonly server: string;
    /** Why there is no answer: timeout, SERVFAIL, REFUSED, … */
    readonly reason: string;
  };

/**
 * The `nameserver` addresses of a resolv.conf text, in order (port 53; zone ids dropped).
 *
 * @example
 * ```ts
 * import { parseResolvConf } from "./resolve.ts";
 * parseResolvConf("nameserver 10.0.0.2\n# x\nnameserver ::1\n").length; // 2
 * ```
 */
export function parseResolvConf(text: string): DnsServer[] {
  const out: DnsServer[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s*nameserver\s+([^\s#;]+)/.exec(line);
    if (!m) continue;
    const host = m[1].replace(/%.*$/, "");
    if (ipVersion(host) !== 0) out.push({ host, port: 53 });
  }
  return out;
}

function systemNameServers(): DnsServer[] | undefined {
  try {
    return parseResolvConf(Deno.readTextFileSync("/etc/resolv.conf"));
  } catch {
    return undefined;
  }
}

function show(server: DnsServer): string {
  return server.host.includes(":")
    ? `[${server.host}]:${server.port}`
    : `${server.host}:${server.port}`;
}

class Timeout extends Error {}

function randomId(): number {
  return crypto.getRandomValues(new Uint16Array(1))[0];
}

/** Whether a decoded response answers our question. */
function answersQuestion(r: DnsResponse, id: number, name: string): boolean {
  return r.id === id && r.question === name.toLowerCase() && r.questionType === TYPE_TXT;
}

async function queryUdp(
  server: DnsServer,
  name: string,
  deadline: number,
): Promise<DnsResponse> {
  const id = randomId();
  const query = encodeTxtQuery(name, id);
  const { default: dgram } = await import("node:dgram");
  return new Promise((resolve, reject) => {
    const sock = dgram.createSocket(ipVersion(server.host) === 6 ? "udp6" : "udp4");
    let finished = false;
    const finish = (f: () => void) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearInterval(resend);
      try {
        sock.close();
      } catch { /* already closed */ }
      f();
    };
    const send = () => sock.send(query, server.port, server.host, () => {});
    sock.on("error", (e: Error) => finish(() => reject(e)));
    sock.on("message", (msg: Uint8Array, rinfo: { address: string; port: number }) => {
      if (rinfo.port !== server.port || rinfo.address !== server.host) return;
      let response: DnsResponse;
      try {
        response = decodeResponse(new Uint8Array(msg));
      } catch {
        return; // unreadable: maybe not from the server; wait for a good one
      }
      if (answersQuestion(response, id, name)) finish(() => resolve(response));
    });
    const timer = setTimeout(
      () => finish(() => reject(new Timeout())),
      Math.max(0, deadline - Date.now()),
    );
    // Lost datagrams: ask again every second until the deadline.
    const resend = setInterval(send, 1000);
    send();
  });
}

async function queryTcp(server: DnsServer, name: string, deadline: number): Promise<DnsResponse> {
  const id = randomId();
  const query = encodeTxtQuery(name, id);
  let conn: Deno.TcpConn | undefined;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      conn?.close();
    } catch { /* closed */ }
  }, Math.max(0, deadline - Date.now()));
  try {
    conn = await Deno.connect({ hostname: server.host, port: server.port, transport: "tcp" });
    if (timedOut) throw new Timeout();
    const framed = new Uint8Array(2 + query.length);
    new DataView(framed.buffer).setUint16(0, query.length);
    framed.set(query, 2);
    let written = 0;
    while (written < framed.length) written += await conn.write(framed.subarray(written));
    const readExactly = async (n: number): Promise<Uint8Array> => {
      const buf = new Uint8Array(n);
      let got = 0;
      while (got < n) {
        const r = await conn!.read(buf.subarray(got));
        if (r === null) {
          throw new SchemaPinError(
            "DISCOVERY_FETCH_FAILED",
            "the server closed the TCP connection early",
            { remote: true },
          );
        }
        got += r;
      }
      return buf;
    };
    const len = new DataView((await readExactly(2)).buffer).getUint16(0);
    const response = decodeResponse(await readExactly(len));
    if (!answersQuestion(response, id, name)) {
      throw new SchemaPinError(
        "DISCOVERY_FETCH_FAILED",
        "the TCP answer is for another question",
        { remote: true },
      );
    }
    return response;
  } catch (e) {
    if (timedOut) throw new Timeout();
    throw e;
  } finally {
    clearTimeout(timer);
    try {
      conn?.close();
    } catch { /* closed */ }
  }
}

async function askServer(
  server: DnsServer,
  name: string,
  deadline: number,
): Promise<DnsLookupResult> {
  const where = show(server);
  try {
    let response = await queryUdp(server, name, deadline);
    if (response.truncated) response = await queryTcp(server, name, deadline);
    if (response.rcode === RCODE.NOERROR || response.rcode === RCODE.NXDOMAIN) {
      return {
        status: "answered",
        server: where,
        rcode: rcodeName(response.rcode),
        records: response.rcode === RCODE.NXDOMAIN ? [] : txtRecordsFor(response, name),
      };
    }
    return {
      status: "failed",
      server: where,
      reason: `the name server answered ${rcodeName(response.rcode)}`,
    };
  } catch (e) {
    return {
      status: "failed",
      server: where,
      reason: e instanceof Timeout
        ? "no answer before the deadline (timeout)"
        : `${(e as Error).message ?? e}`,
    };
  }
}

async function askSystemResolver(name: string, deadline: number): Promise<DnsLookupResult> {
  const server = "system resolver";
  try {
    const records = await Deno.resolveDns(name, "TXT", {
      signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
    });
    return { status: "answered", server, rcode: "NOERROR", records, systemResolver: true };
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      // Deno reports NXDOMAIN, NODATA, SERVFAIL and REFUSED alike here.
      return { status: "answered", server, rcode: "NXDOMAIN", records: [], systemResolver: true };
    }
    const timeout = e instanceof DOMException || e instanceof Deno.errors.TimedOut;
    return {
      status: "failed",
      server,
      reason: timeout ? "no answer before the deadline (timeout)" : (e as Error).message,
    };
  }
}

/**
 * Looks up the TXT records at `name` (see the module documentation for the outcomes).
 * Never throws for network trouble — that is a `failed` result; throws `SchemaPinError`
 * `INPUT_INVALID` only for an unusable `nameServer` string or timeout.
 *
 * @example
 * ```ts ignore
 * const r = await lookupTxt("_schemapin.example.com", { nameServer: "127.0.0.1:5353" });
 * if (r.status === "answered") console.log(r.records);
 * ```
 */
export async function lookupTxt(
  name: string,
  options: DnsLookupOptions = {},
): Promise<DnsLookupResult> {
  checkArg("lookupTxt", "name", name, "string");
  checkArg("lookupTxt", "options", options, "object");
  const timeoutMs = options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new SchemaPinError("INPUT_INVALID", `DNS timeout ${timeoutMs} ms must be positive`);
  }
  const deadline = Date.now() + timeoutMs;
  const servers = options.nameServer === undefined ? systemNameServers() : [
    typeof options.nameServer === "string"
      ? parseDnsServer(options.nameServer)
      : options.nameServer,
  ];
  if (servers === undefined) return await askSystemResolver(name, deadline);
  if (servers.length === 0) {
    return {
      status: "failed",
      server: "/etc/resolv.conf",
      reason: `no name server is configured (give one with ${
        options.nameServerName ?? "nameServer"
      })`,
    };
  }
  const failures: string[] = [];
  for (let i = 0; i < servers.length; i++) {
    // Share what is left of the deadline among the servers not yet asked.
    const share = (deadline - Date.now()) / (servers.length - i);
    const result = await askServer(servers[i], name, Date.now() + share);
    if (result.status === "answered") return result;
    failures.push(`${result.server}: ${result.reason}`);
  }
  return {
    status: "failed",
    server: servers.map(show).join(", "),
    reason: failures.join("; "),
  };
}
