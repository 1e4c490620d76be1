/**
 * Which connections a server keeps (lib/http/server.ts): at most its cap open at once, busy or
 * idle. A connection accepted beyond the cap closes the connection idle the longest (waiting
 * for a TLS handshake or for a request); when none is idle, the busy connection whose request
 * is furthest behind the minimum rate (lib/http/request_progress.ts); when none is behind, the
 * newcomer itself is closed at once, as Node's `server.maxConnections` does. The server never
 * stops accepting at the cap: a connection left in the kernel's accept queue is ESTABLISHED
 * for its client, which waits without an answer, and for the kernel, which holds its socket on
 * the server's port.
 *
 * When `accept` fails for want of file descriptors the cap is lowered below the connections
 * open at that moment, for a minute ({@linkcode Admission.lowerCap}).
 *
 * @module
 */

/** What the admission closes: a connection of the server. */
export interface Closable {
  /** Closes the connection at once (its file descriptor is released). */
  close(): void;
}

/** How long a cap lowered by EMFILE holds. */
export const LEARNED_CAP_MS = 60_000;

/**
 * The connections of a server and its cap: which are open, which of them are idle (the
 * longest idle first), and the room a new one gets.
 *
 * @example
 * ```ts
 * import { Admission } from "./admission.ts";
 * const closed: string[] = [];
 * const conn = (name: string) => ({ name, close: () => void closed.push(name) });
 * const admission = new Admission<ReturnType<typeof conn>>(2);
 * const a = conn("a"), b = conn("b");
 * admission.add(a); // busy until told idle
 * admission.add(b);
 * admission.idle(b);
 * admission.makeRoom(); // true: b, idle, was closed to make room
 * admission.add(conn("c"));
 * admission.makeRoom(); // false: a and c are busy, the newcomer is to be closed
 * closed; // ["b"]
 * ```
 */
export class Admission<C extends Closable> {
  readonly #open = new Set<C>();
  /** Idle connections, the longest idle first (a Set keeps insertion order). */
  readonly #idle = new Set<C>();
  #learnedCap = Infinity;
  #learnedAt = -Infinity;
  /** Idle connections closed to make room (the cap, or out of file descriptors). */
  evicted = 0;
  /** Connections closed at once because every slot was busy. */
  refused = 0;

  /**
   * At most `maxConnections` connections. `behind` tells how far a busy connection's request
   * is behind the minimum rate (above 0: it may give its slot to a newcomer; default: none
   * ever is); `now` is the clock of the lowered cap (tests).
   */
  constructor(
    readonly maxConnections: number,
    readonly behind: (c: C) => number = () => 0,
    readonly now: () => number = Date.now,
  ) {}

  /** Connections open now. */
  get size(): number {
    return this.#open.size;
  }

  /** Of those, idle. */
  get idleCount(): number {
    return this.#idle.size;
  }

  /** The open connections. */
  connections(): IterableIterator<C> {
    return this.#open.values();
  }

  /** The idle connections, the longest idle first. */
  idleConnections(): C[] {
    return [...this.#idle];
  }

  /** The cap now: `maxConnections`, or lower for a minute after EMFILE. */
  cap(): number {
    return this.now() - this.#learnedAt < LEARNED_CAP_MS
      ? Math.min(this.maxConnections, this.#learnedCap)
      : this.maxConnections;
  }

  /**
   * Room for one more connection: true when there is (after closing the connections idle the
   * longest, else the busy ones furthest behind, as many as it takes); false when every slot
   * is busy and none is behind: the caller closes the newcomer at once (counted in
   * {@linkcode Admission.refused}).
   */
  makeRoom(): boolean {
    while (this.#open.size >= this.cap()) {
      if (!this.#evictOldestIdle() && !this.#evictFurthestBehind()) {
        this.refused++;
        return false;
      }
    }
    return true;
  }

  /** Counts `c` in (call {@linkcode Admission.makeRoom} first). */
  add(c: C): void {
    this.#open.add(c);
  }

  /** `c` waits (for a handshake or a request): it is the newest idle connection. */
  idle(c: C): void {
    this.#idle.delete(c);
    if (this.#open.has(c)) this.#idle.add(c);
  }

  /** `c` is busy with a request: it is never closed to make room. */
  busy(c: C): void {
    this.#idle.delete(c);
  }

  /** Counts `c` out (it closed). */
  remove(c: C): void {
    this.#idle.delete(c);
    this.#open.delete(c);
  }

  /**
   * `accept` failed for want of file descriptors: for {@linkcode LEARNED_CAP_MS} the cap is
   * lower than the connections open now (room for the process's other descriptors: upstream
   * connections, logs), and idle connections above it are closed. The new cap, and whether
   * any connection was closed.
   */
  lowerCap(): { cap: number; evicted: boolean } {
    const open = this.#open.size;
    this.#learnedCap = Math.max(1, open - Math.max(4, Math.floor(open / 8)));
    this.#learnedAt = this.now();
    let evicted = false;
    while (this.#open.size > this.#learnedCap && this.#evictOldestIdle()) evicted = true;
    return { cap: this.#learnedCap, evicted };
  }

  /** Closes every connection and forgets them. */
  closeAll(): void {
    const all = [...this.#open];
    this.#open.clear();
    this.#idle.clear();
    for (const c of all) c.close();
  }

  #evictOldestIdle(): boolean {
    const oldest = this.#idle.values().next();
    if (oldest.done) return false;
    this.#evict(oldest.value);
    return true;
  }

  #evictFurthestBehind(): boolean {
    let worst: C | undefined;
    let most = 0;
    for (const c of this.#open) {
      const behind = this.behind(c);
      if (behind > most) [worst, most] = [c, behind];
    }
    if (worst === undefined) return false;
    this.#evict(worst);
    return true;
  }

  #evict(c: C): void {
    this.remove(c); // counted out now: its task ends on its own later
    this.evicted++;
    c.close();
  }
}
