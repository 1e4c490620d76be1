/**
 * An exclusive lock on a file path, shared by processes, for the record files (pins, lineage,
 * bundle authorities).
 *
 * - **Deno**: `flock(LOCK_EX)` on `<path>` (`Deno.FsFile.lock`), opened with mode 0600 and
 *   never deleted. The kernel releases it when the process dies, so there are no stale locks.
 * - **Node and Bun**, which have no `flock` call: `<path>` is created the same way (so the
 *   file layout is the same), and the lock is an exclusive-create owner file `<path>.owner`
 *   holding the pid, removed on release. A waiter polls (5–50 ms); an owner file whose process
 *   is dead, or older than {@linkcode STALE_OWNER_MS}, is removed. Writers on Node and Bun
 *   exclude each other; they do not exclude a writer running under Deno at the same moment
 *   (nor the other way round) — do not update one store from Deno and Node concurrently.
 *
 * Within one process, locks on the same path are taken in turn (a queue), on every runtime.
 *
 * @module
 */
import { errorCode, isDeno, node } from "./fs.ts";

/**
 * How old an owner file (Node and Bun) must be before a waiter removes it although its
 * process may be alive: 10 minutes (a record-file update holds the lock for milliseconds).
 */
export const STALE_OWNER_MS: number = 10 * 60 * 1000;

/** A held lock. */
export interface HeldLock {
  /** Releases the lock (once; later calls do nothing). */
  release(): Promise<void>;
}

const queues = new Map<string, Promise<void>>();

/**
 * Takes the exclusive lock `path` (see the module documentation), waiting as long as another
 * process holds it. Throws the runtime's error when `path` cannot be opened or created; read
 * its code with `errorCode` from ./fs.ts.
 *
 * @example
 * ```ts ignore
 * const lock = await lockFile("/tmp/pins.json.lock");
 * try {
 *   // read, change, write atomically
 * } finally {
 *   await lock.release();
 * }
 * ```
 */
export async function lockFile(path: string): Promise<HeldLock> {
  const previous = queues.get(path) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((r) => done = r);
  const tail = previous.then(() => mine);
  queues.set(path, tail);
  await previous;
  let inner: HeldLock;
  try {
    inner = isDeno ? await denoLock(path) : await ownerFileLock(path);
  } catch (e) {
    finish();
    throw e;
  }
  let released = false;
  function finish() {
    done();
    if (queues.get(path) === tail) queues.delete(path);
  }
  return {
    async release() {
      if (released) return;
      released = true;
      try {
        await inner.release();
      } finally {
        finish();
      }
    },
  };
}

async function denoLock(path: string): Promise<HeldLock> {
  const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
  try {
    await file.lock(true);
  } catch (e) {
    file.close();
    throw e;
  }
  return {
    async release() {
      try {
        await file.unlock();
      } finally {
        file.close();
      }
    },
  };
}

// Node and Bun only (`node` is undefined on Deno).
function alive(pid: number): boolean {
  const { process } = node!;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0); // signal 0: an existence check, nothing is sent
    return true;
  } catch (e) {
    return errorCode(e) !== "ESRCH";
  }
}

async function ownerFileLock(path: string): Promise<HeldLock> {
  const { fsp, process } = node!; // Node and Bun only
  // The same lock file as under Deno, so a store's files look alike whoever wrote them.
  await (await fsp.open(path, "a", 0o600)).close();
  const owner = `${path}.owner`;
  let wait = 5;
  while (true) {
    try {
      const handle = await fsp.open(owner, "wx", 0o600);
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      return {
        async release() {
          await fsp.rm(owner, { force: true });
        },
      };
    } catch (e) {
      if (errorCode(e) !== "EEXIST") throw e;
    }
    try {
      const [text, info] = await Promise.all([fsp.readFile(owner, "utf8"), fsp.lstat(owner)]);
      const pid = Number(text.trim());
      const stale = Date.now() - info.mtimeMs > STALE_OWNER_MS ||
        (Number.isSafeInteger(pid) && pid > 0 && !alive(pid));
      if (stale) {
        await fsp.rm(owner, { force: true });
        continue;
      }
    } catch {
      // released (or half written) meanwhile: try again
    }
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(50, wait * 2);
  }
}
