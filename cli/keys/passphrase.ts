/**
 * Where the passphrase of an encrypted key comes from, in this order:
 *   1. a passphrase file — its first line (a final `\n` or `\r\n` is not part of it);
 *   2. the `SCHEMAPIN_PASSPHRASE` environment variable;
 *   3. a prompt (the caller's: the CLI asks on the terminal, typed without echo).
 * The explicit file wins over the ambient variable (a note says so when both are set). An
 * empty passphrase is refused from every source. The passphrase is never put in an error.
 *
 * The caller supplies the prompt and the reader (and may supply the environment lookup); this
 * module never prompts, never prints. Its usage mistakes (no source, an empty or mismatched
 * passphrase) are `INPUT_INVALID` with `details.usage` true, for the CLI to report as usage
 * errors.
 *
 * @module
 */
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { readEnv } from "../../lib/runtime/fs.ts";
import { passphraseFromFile, type ReadBytes } from "./private_key.ts";

/** The environment variable holding a passphrase. */
export const PASSPHRASE_ENV = "SCHEMAPIN_PASSPHRASE";

/** The sources of a passphrase, as the caller reaches them. */
export interface PassphraseLookup {
  /** The passphrase file (`--passphrase-file`), if given. */
  readonly passphraseFile?: string;
  /** Reads the passphrase file (default: the runtime's file read). */
  readonly read?: ReadBytes;
  /** The passphrase file's name in messages (default: its path). */
  readonly source?: string;
  /**
   * Reads an environment variable; may throw (no permission). Default {@linkcode readEnvironment}:
   * the process environment.
   */
  readonly getEnv?: (name: string) => string | undefined;
  /** Asks for a line (no echo); `undefined` when there is nobody to ask. */
  readonly prompt: (question: string) => Promise<string | undefined>;
  /** Receives a note (one line, no newline): the file wins over the variable. */
  readonly onNote?: (message: string) => void | Promise<void>;
  /** Another way out, added to the "nobody to ask" error (`keygen --unencrypted`). */
  readonly otherwise?: string;
}

/**
 * Reads an environment variable of the process; a missing permission (Deno without
 * `--allow-env` for it) is an error naming the variable, not "unset".
 *
 * @throws {SchemaPinError} `IO_FAILED` with `details.variable` when it cannot be read.
 *
 * @example
 * ```ts
 * import { PASSPHRASE_ENV, readEnvironment } from "./passphrase.ts";
 * readEnvironment(PASSPHRASE_ENV); // undefined when unset
 * ```
 */
export function readEnvironment(name: string): string | undefined {
  try {
    return readEnv(name);
  } catch (e) {
    throw new SchemaPinError(
      "IO_FAILED",
      `cannot read the ${name} environment variable: ${(e as Error).message}`,
      { variable: name },
    );
  }
}

/**
 * Gets a passphrase from the passphrase file, else `SCHEMAPIN_PASSPHRASE`, else the prompt
 * (asking twice when `confirm`, for a new key).
 *
 * @param purpose What it is for, shown in the prompt and the error ("keys/private.pem").
 * @param lookup Where to look.
 * @param confirm Ask twice and require the same answer (a new passphrase).
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` for no source and nobody to
 *   ask, an empty variable, an empty or mismatched answer or a cancelled repeat;
 *   `IO_FAILED` / `INPUT_INVALID` for an unreadable or empty file; what `prompt` throws.
 *
 * @example
 * ```ts
 * import { lookUpPassphrase } from "./passphrase.ts";
 * await lookUpPassphrase("key.pem", {
 *   getEnv: () => "s3cret",
 *   prompt: () => Promise.resolve(undefined),
 * }); // "s3cret"
 * ```
 */
export async function lookUpPassphrase(
  purpose: string,
  lookup: PassphraseLookup,
  confirm = false,
): Promise<string> {
  const getEnv = lookup.getEnv ?? readEnvironment;
  if (lookup.passphraseFile !== undefined) {
    let envSet = false;
    try {
      envSet = getEnv(PASSPHRASE_ENV) !== undefined;
    } catch { /* no permission to look: nothing to note */ }
    if (envSet) await lookup.onNote?.(`--passphrase-file is used; ${PASSPHRASE_ENV} is ignored`);
    return await passphraseFromFile(lookup.passphraseFile, lookup);
  }
  const fromEnv = getEnv(PASSPHRASE_ENV);
  if (fromEnv !== undefined) {
    if (fromEnv === "") {
      throw usageError(`${PASSPHRASE_ENV} is set but empty; set it to the passphrase or unset it`);
    }
    return fromEnv;
  }
  const first = await lookup.prompt(
    confirm ? `New passphrase for ${purpose}: ` : `Passphrase for ${purpose}: `,
  );
  if (first === undefined) {
    throw usageError(
      `${purpose} needs a passphrase: give --passphrase-file FILE or set ` +
        `${PASSPHRASE_ENV} (there is no terminal to ask on)` +
        (lookup.otherwise !== undefined ? `; ${lookup.otherwise}` : ""),
    );
  }
  if (first === "") throw usageError("the passphrase is empty");
  if (confirm) {
    const again = await lookup.prompt(`Repeat the passphrase: `);
    if (again === undefined) throw usageError("passphrase entry cancelled");
    if (again !== first) throw usageError("the two passphrases differ; nothing was written");
  }
  return first;
}
