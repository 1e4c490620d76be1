/**
 * README's shell blocks as a test: {@linkcode readmeShellBlocks} extracts every ```sh block
 * (also indented ones, inside list items) with the marker written before it, and
 * {@linkcode runShellBlocks} runs them in order, in one folder, each with `bash -euo pipefail`.
 *
 * Markers are HTML comments on the line before the opening fence (invisible on GitHub):
 *
 *   <!-- readme-test: skip (needs a live server) -->      not run; the reason is printed
 *   <!-- readme-test: exit 1 (the folder was tampered) -->  must exit with that code
 *
 * Every marker needs a reason in parentheses. Shell blocks must be ```sh: ```bash, ```shell,
 * ```console and ```zsh are refused, so no block escapes the test by its info string.
 *
 * @module
 */
import { childCommand } from "./process.ts";

/** One ```sh block of a Markdown text. */
export interface ShellBlock {
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The block's text, without the fence's indentation. */
  readonly code: string;
  /** Why the block is not run (a `skip` marker), or undefined. */
  readonly skip?: string;
  /** The exit code the block must end with (0 unless an `exit N` marker says otherwise). */
  readonly exit: number;
  /** The reason an `exit N` marker gives. */
  readonly exitReason?: string;
}

/** Info strings of shell code that must be written as ```sh to be tested. */
const OTHER_SHELLS = new Set(["bash", "shell", "console", "zsh", "shell-session", "shellsession"]);

const MARKER = /^<!--\s*readme-test:\s*(.*?)\s*-->$/;

/**
 * The ```sh blocks of `markdown`, with their markers. Throws naming the line for a marker
 * without a reason, an unknown marker, a marker not followed by a ```sh block, a shell block
 * with another info string, and an unclosed fence.
 *
 * @example
 * ```ts ignore
 * readmeShellBlocks("```sh\nschemapin --version\n```\n"); // → [{ line: 1, code: …, exit: 0 }]
 * ```
 */
export function readmeShellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split("\n");
  const blocks: ShellBlock[] = [];
  let pending: { line: number; skip?: string; exit?: number; exitReason?: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i].trim();
    const marker = MARKER.exec(text);
    if (marker) {
      if (pending) throw new Error(`README line ${pending.line}: a marker must precede a block`);
      pending = { line: i + 1, ...parseMarker(marker[1], i + 1) };
      continue;
    }
    if (/^<!--\s*readme-test/i.test(text)) {
      throw new Error(`README line ${i + 1}: malformed readme-test marker: ${text}`);
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]);
    if (!fence) {
      if (pending && text !== "") {
        throw new Error(`README line ${pending.line}: the marker is not followed by a sh block`);
      }
      continue;
    }
    const [, indent, ticks, info] = fence;
    const lang = info.toLowerCase();
    const end = lines.findIndex((l, j) =>
      j > i && l.trim().startsWith(ticks) && /^[`~]+$/.test(l.trim())
    );
    if (end < 0) throw new Error(`README line ${i + 1}: unclosed code fence`);
    if (OTHER_SHELLS.has(lang)) {
      throw new Error(
        `README line ${i + 1}: a ${lang} block; write shell blocks as \`\`\`sh so the README ` +
          "test runs them (or marks them skipped)",
      );
    }
    if (lang === "sh") {
      const body = lines.slice(i + 1, end).map((l) =>
        l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()
      );
      blocks.push({
        line: i + 1,
        code: body.join("\n") + "\n",
        skip: pending?.skip,
        exit: pending?.exit ?? 0,
        exitReason: pending?.exitReason,
      });
    } else if (pending) {
      throw new Error(
        `README line ${pending.line}: the marker precedes a ${lang || "plain"} block`,
      );
    }
    pending = undefined;
    i = end;
  }
  if (pending) {
    throw new Error(`README line ${pending.line}: the marker is not followed by a block`);
  }
  return blocks;
}

function parseMarker(
  body: string,
  line: number,
): { skip?: string; exit?: number; exitReason?: string } {
  const m = /^(skip|exit\s+(\d{1,3}))\s*\((.+)\)$/.exec(body);
  if (!m || m[3].trim() === "") {
    throw new Error(
      `README line ${line}: readme-test marker "${body}": write "skip (reason)" or ` +
        `"exit N (reason)"`,
    );
  }
  const reason = m[3].trim();
  if (m[1] === "skip") return { skip: reason };
  return { exit: Number(m[2]), exitReason: reason };
}

/** What running one block gave. */
export interface BlockResult {
  readonly block: ShellBlock;
  readonly code: number;
  readonly output: string;
  /** The block's line (1-based) whose command failed and stopped it, when bash reported one. */
  readonly failedLine?: number;
}

/** The line (1-based) where the block's last command starts (continuation lines joined). */
export function lastCommandLine(code: string): number {
  const lines = code.replace(/\n$/, "").split("\n");
  let i = lines.length - 1;
  while (i > 0 && lines[i].trim() === "") i--;
  while (i > 0 && lines[i - 1].endsWith("\\")) i--;
  return i + 1;
}

/**
 * Whether a result is what its block documents: the exit code, and for a block documented to
 * fail, the failure of its last command (not of a setup line before it, which would exit the same
 * way).
 */
export function resultMatches(result: BlockResult): boolean {
  if (result.code !== result.block.exit) return false;
  if (result.block.exit === 0 || result.failedLine === undefined) return true;
  return result.failedLine === lastCommandLine(result.block.code);
}

/** Reports the line of the command that stopped a block (the trap is line 1 of the script). */
const ERR_TRAP = `trap 'printf "\\nreadme-test: failed at script line %s\\n" "$LINENO" >&2' ERR\n`;

/**
 * Runs the blocks that are not skipped, in order, in `cwd`, each with `bash -euo pipefail -c`
 * (stdin closed, so nothing can wait for a terminal) and an ERR trap that reports the line of the
 * command that stopped the block. Returns every result; {@linkcode resultMatches} judges one.
 *
 * @example
 * ```ts ignore
 * const results = await runShellBlocks(blocks, { cwd: dir, env });
 * ```
 */
export async function runShellBlocks(
  blocks: readonly ShellBlock[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<BlockResult[]> {
  const results: BlockResult[] = [];
  for (const block of blocks) {
    if (block.skip !== undefined) continue;
    const out = await childCommand("bash", {
      args: ["--noprofile", "--norc", "-euo", "pipefail", "-c", ERR_TRAP + block.code],
      cwd: options.cwd,
      env: options.env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    }).output();
    const dec = new TextDecoder();
    const stderr = dec.decode(out.stderr);
    const failed = /\nreadme-test: failed at script line (\d+)\n/.exec(stderr);
    results.push({
      block,
      code: out.code,
      output: dec.decode(out.stdout) + stderr,
      ...(failed ? { failedLine: Number(failed[1]) - 1 } : {}),
    });
  }
  return results;
}
