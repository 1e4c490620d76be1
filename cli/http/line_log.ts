/**
 * A bounded log for long-running servers (`schemapin serve`, `schemapin guard --listen`):
 * lines are queued and written in batches by one write at a time, never awaited by the caller.
 * When the destination does not keep up (stderr on a pipe nobody reads), lines beyond
 * {@linkcode LineLogOptions.maxQueued} characters are dropped and counted, so memory stays
 * bounded and the request path never waits on the log; the count is reported in the log as
 * soon as it moves again, and by {@linkcode LineLog.close}. Closing waits for the queue at most
 * the time it is given, so a stalled destination never holds up shutdown.
 *
 * @module
 */

/** How a {@linkcode LineLog} writes and how much it holds. */
export interface LineLogOptions {
  /** Writes text (a batch of whole lines); resolves when written. */
  readonly write: (text: string) => Promise<void>;
  /** Most characters queued while a write is in progress (default 256 Ki). */
  readonly maxQueued?: number;
  /** Names the program in the line that reports dropped lines. */
  readonly name: string;
}

/**
 * A log that never blocks its caller and never grows without bound.
 *
 * @example
 * ```ts ignore
 * const log = new LineLog({ name: "schemapin serve", write: (t) => io.stderr(t) });
 * log.line("listening\n");
 * await log.close(1000);
 * ```
 */
export class LineLog {
  readonly #write: (text: string) => Promise<void>;
  readonly #max: number;
  readonly #name: string;
  #queue: string[] = [];
  #queued = 0;
  #writing: Promise<void> | undefined;
  #dropped = 0;
  #reported = 0;
  #failed = false;

  /** A log writing through `options.write`. */
  constructor(options: LineLogOptions) {
    this.#write = options.write;
    this.#max = options.maxQueued ?? 256 * 1024;
    this.#name = options.name;
  }

  /** Lines dropped so far because the destination did not keep up. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Queues one line (with its newline); drops it when the queue is full. */
  line(text: string): void {
    if (this.#failed || this.#queued + text.length > this.#max) {
      this.#dropped++;
      return;
    }
    this.#queue.push(text);
    this.#queued += text.length;
    if (this.#writing === undefined) this.#writing = this.#pump();
  }

  async #pump(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        let text = this.#queue.join("");
        this.#queue = [];
        this.#queued = 0;
        if (this.#dropped > this.#reported) {
          const n = this.#dropped - this.#reported;
          this.#reported = this.#dropped;
          // After the lines queued before the queue filled up.
          text += `${this.#name}: ${n} log line${n === 1 ? "" : "s"} dropped ` +
            `(the log was not keeping up)\n`;
        }
        await this.#write(text);
      }
    } catch {
      this.#failed = true; // the destination is gone: count what follows as dropped
      this.#dropped += this.#queue.length;
      this.#queue = [];
      this.#queued = 0;
    } finally {
      this.#writing = undefined;
    }
  }

  /**
   * Writes `last` (if any) after the queue and waits for it all at most `timeoutMs`; true when
   * everything was written in time. Lines logged afterwards are still queued.
   */
  async close(timeoutMs: number, last?: string): Promise<boolean> {
    if (last !== undefined && !this.#failed) {
      // Queued even when the queue is full (one line more): it says how many were dropped.
      const n = this.#dropped;
      const text = n > 0
        ? last.replace(/\n$/, "") + ` (${n} log line${n === 1 ? "" : "s"} dropped)\n`
        : last;
      this.#reported = n;
      this.#queue.push(text);
      this.#queued += text.length;
      if (this.#writing === undefined) this.#writing = this.#pump();
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((r) => timer = setTimeout(() => r(false), timeoutMs));
    try {
      while (this.#writing !== undefined) {
        const done = await Promise.race([this.#writing.then(() => true), timeout]);
        if (!done) return false;
      }
      return !this.#failed;
    } finally {
      clearTimeout(timer);
    }
  }
}
