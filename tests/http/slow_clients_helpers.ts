// Helpers of tests/http/slow_clients_test.ts: slow clients (they drip a head, a body or trailer
// lines, or upload steadily), and what a server process holds counted from outside — its
// connections in the kernel's TCP table and its socket descriptors — never from its own stats.
import { childCommand } from "../process.ts";

const encode = (t: string) => new TextEncoder().encode(t);
export const sleep = (ms: number): Promise<void> => new Promise<void>((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ counting from outside

/** ESTABLISHED and CLOSE_WAIT in /proc/net/tcp: a connection the peer still has, or just ended. */
const LIVE_STATES = new Set(["01", "08"]);

/** One look at a server from outside. */
export interface Sample {
  /** Milliseconds since the epoch. */
  readonly at: number;
  /**
   * Live server-side connections on the port, by local and remote address: those the process
   * has accepted and those still in the kernel's accept queue.
   */
  readonly onPort: ReadonlySet<string>;
  /** Of those, the ones whose socket is a descriptor of the process (accepted). */
  readonly held: ReadonlySet<string>;
  /** The process's socket descriptors, all of them (listener and pipes' sockets included). */
  readonly sockets: number;
}

/**
 * One sample: `ls -l /proc/PID/fd` and `cat /proc/net/tcp /proc/net/tcp6` (Deno asks for
 * --allow-all to read /proc itself; the suite runs without it).
 */
export async function sample(pid: number, port: number): Promise<Sample> {
  const [fds, tcp] = await Promise.all([
    childCommand("ls", { args: ["-l", `/proc/${pid}/fd`] }).output(),
    childCommand("cat", { args: ["/proc/net/tcp", "/proc/net/tcp6"] }).output(),
  ]);
  const inodes = new Set(
    [...new TextDecoder().decode(fds.stdout).matchAll(/socket:\[(\d+)\]/g)].map((m) => m[1]),
  );
  const onPort = new Set<string>();
  const held = new Set<string>();
  for (const line of new TextDecoder().decode(tcp.stdout).split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[0] === "sl" || !LIVE_STATES.has(f[3])) continue;
    const local = f[1].split(":");
    if (parseInt(local[local.length - 1], 16) !== port) continue;
    const key = `${f[1]}-${f[2]}`;
    onPort.add(key);
    if (inodes.has(f[9])) held.add(key);
  }
  return { at: Date.now(), onPort, held, sockets: inodes.size };
}

/** Samples a server process every 50 ms (plus the time a sample takes) until stopped. */
export class Watch {
  readonly samples: Sample[] = [];
  #running = true;
  readonly #loop: Promise<void>;

  constructor(readonly pid: number, readonly port: number) {
    this.#loop = (async () => {
      while (this.#running) {
        this.samples.push(await sample(pid, port));
        await sleep(50);
      }
    })();
  }

  /** Stops sampling. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }

  /**
   * The most connections seen at once (of `kind`) among those that lasted at least `lastedMs`
   * between their first and last sample. A connection beyond the cap is accepted and closed at
   * once: for that moment the process holds one more than the cap, which a sample may catch;
   * a connection that keeps a slot lasts seconds.
   */
  peak(kind: "onPort" | "held", lastedMs = 1000): number {
    const first = new Map<string, number>();
    const last = new Map<string, number>();
    for (const s of this.samples) {
      for (const k of s[kind]) {
        if (!first.has(k)) first.set(k, s.at);
        last.set(k, s.at);
      }
    }
    let peak = 0;
    for (const s of this.samples) {
      let n = 0;
      for (const k of s[kind]) if (last.get(k)! - first.get(k)! >= lastedMs) n++;
      peak = Math.max(peak, n);
    }
    return peak;
  }
}

/** Waits until `held` connections or fewer are live on the port of `pid`; false after `ms`. */
export async function heldAtMost(
  pid: number,
  port: number,
  held: number,
  ms: number,
): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if ((await sample(pid, port)).held.size <= held) return true;
    await sleep(50);
  }
  return false;
}

/**
 * Waits until the process has `sockets` socket descriptors or fewer; the count it got to. A
 * connection the server has closed can keep its descriptor a moment longer (Deno releases it
 * when the connection's pending read is dropped, on a later turn of the event loop).
 */
export async function socketsBackTo(
  pid: number,
  port: number,
  sockets: number,
  ms: number,
): Promise<number> {
  const end = Date.now() + ms;
  let now = (await sample(pid, port)).sockets;
  while (now > sockets && Date.now() < end) {
    await sleep(50);
    now = (await sample(pid, port)).sockets;
  }
  return now;
}

// ------------------------------------------------------------------ slow clients

/** How long a client waits to be connected (TLS: handshake done) before it goes on. */
const CONNECT_MS = 10_000;

/** A client connection that sends at its own pace until the server closes it. */
export interface SlowClient {
  /** False once the client has seen its connection closed (or could not connect at all). */
  readonly open: boolean;
  /** Resolves when the client has seen its connection closed. */
  readonly closed: Promise<void>;
  /** Closes it from the client's side. */
  stop(): void;
}

/**
 * Connects, sends `first`, then `then` every `everyMs` until the server closes the
 * connection. Resolves once connected, or once connecting failed (a TLS handshake the server
 * cut: the client counts as closed), or after 10 s of connecting (it counts as open).
 */
export async function slowClient(
  connect: () => Promise<Deno.Conn>,
  first: string,
  then: string,
  everyMs: number,
): Promise<SlowClient> {
  let open = true;
  const connecting = connect();
  let conn: Deno.Conn | undefined;
  try {
    conn = await Promise.race([connecting, sleep(CONNECT_MS).then(() => undefined)]);
  } catch {
    return { open: false, closed: Promise.resolve(), stop() {} };
  }
  if (conn === undefined) {
    // Still connecting (a TLS handshake nobody answers: a connection left in the kernel's
    // queue): it counts as open until it ends.
    const closed = connecting.then((c) => c.close(), () => {}).finally(() => open = false);
    return {
      get open() {
        return open;
      },
      closed,
      stop() {},
    };
  }
  const c = conn;
  let stopped = false;
  const reading = (async () => {
    const buf = new Uint8Array(4096);
    try {
      while ((await c.read(buf)) !== null) { /* answers are not the point */ }
    } catch { /* reset */ }
    stopped = true;
  })();
  const writing = (async () => {
    try {
      await c.write(encode(first));
      while (!stopped) {
        await Promise.race([sleep(everyMs), reading]);
        if (!stopped) await c.write(encode(then));
      }
    } catch { /* the server closed it */ }
  })();
  const closed = (async () => {
    await reading;
    open = false;
    await writing;
    try {
      c.close();
    } catch { /* closed */ }
  })();
  return {
    get open() {
      return open;
    },
    closed,
    stop() {
      stopped = true;
      try {
        c.close();
      } catch { /* closed */ }
    },
  };
}

/** Resolves when every promise has, or rejects after `ms` naming how many did not. */
export async function allWithin(
  promises: Promise<void>[],
  ms: number,
  what: string,
): Promise<void> {
  let done = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(promises.map((p) => p.then(() => void done++))),
    new Promise<never>((_, reject) =>
      timer = setTimeout(
        () => reject(new Error(`${promises.length - done} of ${promises.length} ${what}`)),
        ms,
      )
    ),
  ]).finally(() => clearTimeout(timer));
}

/** Waits until `test()` holds; false after `ms`. */
export async function within(ms: number, test: () => boolean): Promise<boolean> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() >= end) return false;
    await sleep(20);
  }
  return true;
}

/** A head, then one body byte a time (the body is 1,000 bytes: serve drains it, the guard reads it). */
export const DRIP_BODY = [
  "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
  "x",
] as const satisfies Drip;
/** A chunked body, then one trailer line a time. */
export const DRIP_TRAILERS = [
  "POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n",
  "X-T: 1\r\n",
] as const satisfies Drip;
/** A request line, then one header line a time. */
export const DRIP_HEAD = ["POST /mcp HTTP/1.1\r\nHost: x\r\n", "X-H: 1\r\n"] as const;
/** What a slow client sends: its first bytes, then what it sends each time. */
export type Drip = readonly [first: string, then: string];
/** The three kinds, in turn. */
export const DRIPS: readonly Drip[] = [DRIP_BODY, DRIP_TRAILERS, DRIP_HEAD];

/**
 * A client uploading 60,000 bytes steadily, well above the minimum rate: 8,000 bytes with its
 * head (16 s of waiting earned at 500 bytes a second), then 100 bytes every 100 ms.
 */
export const STEADY = [
  "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n" +
  "x".repeat(8000),
  "x".repeat(100),
] as const satisfies Drip;
