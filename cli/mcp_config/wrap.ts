/**
 * Putting the servers of an MCP client config file behind `schemapin guard` and taking them out
 * again, as files: which entries run through the guard already, the edited text checked to read
 * back as intended before anything is written, and the backup written next to the config before
 * its first change and copied back when unwrapping gives back exactly what it holds. The text
 * edits are ./wrap_text.ts; the files are read and written through {@linkcode ConfigFiles}, so
 * the command chooses how (atomically). Which lock entry and port each server gets is the
 * guard's (cli/guard/wrap_plan.ts).
 *
 * @module
 */
import { redactCommand, redactUrl } from "../../lib/contractpin/secrets.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import { objectAt, urlKeyOf } from "./formats.ts";
import { type GuardInvocation, readGuardedCommand, readGuardedUrl } from "./marker.ts";
import { type ClientConfigFile, type ConfigEntry, parseClientConfig } from "./read.ts";
import type { ConfigContext } from "./variables.ts";
import {
  backupMatches,
  type EditResult,
  unwrapConfigText,
  wrapConfigText,
  type WrapEdit,
} from "./wrap_text.ts";

/** The suffix of the backup written next to a config before its first change. */
export const BACKUP_SUFFIX = ".schemapin.bak";

/** An entry of a config that runs through the guard already. */
export type WrappedEntry =
  | {
    readonly kind: "stdio";
    /** The server's own command, credentials hidden (contractpin §5). */
    readonly shown: string;
    /** The lock entry its guard checks (`--server`), when named. */
    readonly lockName?: string;
  }
  | {
    readonly kind: "http";
    /** The upstream URL, credentials hidden. */
    readonly shown: string;
    /** The loopback port the client connects to. */
    readonly port: number;
  };

/**
 * How `entry` of `doc` runs through the guard, or `undefined` when it does not.
 *
 * @example
 * ```ts ignore
 * import { wrappedEntry } from "./wrap.ts";
 * const wrapped = config.entries.filter((e) => wrappedEntry(config.doc, e) !== undefined);
 * ```
 */
export function wrappedEntry(doc: JsonValue, entry: ConfigEntry): WrappedEntry | undefined {
  const raw = objectAt(doc, entry.path);
  if (!raw) return undefined;
  if (typeof raw.command === "string" && (raw.args === undefined || Array.isArray(raw.args))) {
    const args = (raw.args ?? []) as unknown[];
    if (!args.every((a) => typeof a === "string")) return undefined;
    const w = readGuardedCommand(raw.command, args as string[]);
    if (!w) return undefined;
    // Shown with credentials hidden, as in every report (contractpin §5).
    const shown = redactCommand(w.original).join(" ");
    return { kind: "stdio", shown, ...(w.lockName !== undefined ? { lockName: w.lockName } : {}) };
  }
  const key = urlKeyOf(raw);
  if (key === undefined) return undefined;
  const url = raw[key] as string;
  const upstream = readGuardedUrl(url);
  if (upstream === undefined) return undefined;
  return { kind: "http", shown: redactUrl(upstream), port: Number(new URL(url).port) };
}

/**
 * The text of `config` with `edits` applied, checked before anything is written: the new text
 * parses as a client config, and every wrapped entry reads back as the guard in front of
 * exactly the command or URL it had.
 *
 * @throws {Error} when an edit does not read back (a bug, never a bad input).
 *
 * @example
 * ```ts ignore
 * import { applyWrap } from "./wrap.ts";
 * const { text } = applyWrap(config, plan.edits, {
 *   program: ["/usr/local/bin/schemapin"],
 *   lockPath: "/proj/contractpin.lock",
 * }, { projectDir: "/proj" });
 * ```
 */
export function applyWrap(
  config: ClientConfigFile,
  edits: readonly WrapEdit[],
  invocation: GuardInvocation,
  context: ConfigContext,
): EditResult {
  const result = wrapConfigText(config.text, edits, invocation);
  const after = parseClientConfig(new TextEncoder().encode(result.text), config.path, context);
  for (const edit of edits) {
    const before = objectAt(config.doc, edit.path)!;
    const now = objectAt(after.doc, edit.path)!;
    const ok = edit.kind === "stdio"
      ? JSON.stringify(
        readGuardedCommand(now.command as string, now.args as string[])?.original,
      ) ===
        JSON.stringify([before.command, ...((before.args ?? []) as string[])])
      : readGuardedUrl(now[urlKeyOf(now)!] as string) === before[urlKeyOf(before)!];
    // A programming error: the edits of wrapConfigText must read back.
    if (!ok) throw new Error(`guard wrap: the edit of ${edit.path.join("/")} does not read back`);
  }
  return result;
}

/** How the config and its backup are read and written (the command's atomic writes). */
export interface ConfigFiles {
  /** True when `path` exists. */
  exists(path: string): Promise<boolean>;
  /** The bytes of `path`. */
  read(path: string): Promise<Uint8Array>;
  /** Replaces `path` with `text`, with these permission bits. */
  write(path: string, text: string, mode: number): Promise<void>;
}

/**
 * Where the backup of `config` is kept: next to the file the config's path leads to.
 *
 * @example
 * ```ts ignore
 * import { backupPathOf } from "./wrap.ts";
 * backupPathOf(config); // "/home/me/.cursor/mcp.json.schemapin.bak"
 * ```
 */
export function backupPathOf(config: ClientConfigFile): string {
  return config.real + BACKUP_SUFFIX;
}

/**
 * Writes the wrapped text of `config`, first copying the file to its backup — unless some
 * entry was wrapped before and a backup exists: that one is of the unwrapped file and is kept.
 * Returns whether the backup was written.
 *
 * @example
 * ```ts ignore
 * import { writeWrappedConfig } from "./wrap.ts";
 * const files = {
 *   exists: async (p: string) => (await Deno.stat(p).catch(() => undefined)) !== undefined,
 *   read: (p: string) => Deno.readFile(p),
 *   write: (p: string, text: string, mode: number) => Deno.writeTextFile(p, text, { mode }),
 * };
 * const { backupWritten } = await writeWrappedConfig(config, text, plan.hadWrapped, files);
 * ```
 */
export async function writeWrappedConfig(
  config: ClientConfigFile,
  text: string,
  hadWrapped: boolean,
  files: ConfigFiles,
): Promise<{ backupWritten: boolean; backupPath: string }> {
  const backupPath = backupPathOf(config);
  const backupWritten = !hadWrapped || !(await files.exists(backupPath));
  if (backupWritten) await files.write(backupPath, config.text, config.mode);
  await files.write(config.real, text, config.mode);
  return { backupWritten, backupPath };
}

/** What {@linkcode unwrapConfigFile} did. */
export interface UnwrapResult {
  /** The entries that ran through the guard, in the config's order (none: nothing written). */
  readonly unwrapped: readonly { readonly name: string; readonly wrapped: WrappedEntry }[];
  /** The backup's bytes were copied back: nothing else had changed since the wrap. */
  readonly exact: boolean;
  /** Entries whose replaced members held comments that are gone (when not `exact`). */
  readonly droppedComments: readonly string[];
  /** Where the backup is. */
  readonly backupPath: string;
  /** Whether a backup exists (when not `exact`: it was not copied back). */
  readonly backupExists: boolean;
}

/**
 * Puts every original command and URL of `config` back and writes it: the backup's exact
 * bytes when unwrapping gives back what it holds, else the commands restored in place. Writes
 * nothing when no entry runs through the guard.
 *
 * @example
 * ```ts ignore
 * import { unwrapConfigFile } from "./wrap.ts";
 * const result = await unwrapConfigFile(config, files);
 * if (result.unwrapped.length === 0) console.log("nothing to unwrap");
 * ```
 */
export async function unwrapConfigFile(
  config: ClientConfigFile,
  files: ConfigFiles,
): Promise<UnwrapResult> {
  const backupPath = backupPathOf(config);
  const unwrapped = config.entries.flatMap((e) => {
    const wrapped = wrappedEntry(config.doc, e);
    return wrapped ? [{ entry: e, wrapped }] : [];
  });
  const listed = unwrapped.map(({ entry, wrapped }) => ({ name: entry.name, wrapped }));
  if (unwrapped.length === 0) {
    return { unwrapped: [], exact: false, droppedComments: [], backupPath, backupExists: false };
  }
  const paths = unwrapped.map(({ entry }) => entry.path);
  const result = unwrapConfigText(config.text, paths);
  let text = result.text;
  let exact = false;
  const backupExists = await files.exists(backupPath);
  if (backupExists) {
    const backup = new TextDecoder().decode(await files.read(backupPath));
    if (backupMatches(result.text, backup, paths)) {
      text = backup;
      exact = true;
    }
  }
  await files.write(config.real, text, config.mode);
  return {
    unwrapped: listed,
    exact,
    droppedComments: exact ? [] : result.droppedComments,
    backupPath,
    backupExists,
  };
}
