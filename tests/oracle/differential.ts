/**
 * The differential harness: runs the library (`parseJson`, `canonicalizeSchemapinV1`,
 * `canonicalizeJcs`) and the independent oracle (./json.ts, ./canonical.ts) on the same
 * bytes, compares accept/reject per stage and the canonical texts, shrinks a mismatching
 * input, and formats a report. Used by differential_test.ts (CI) and fuzz.ts (long runs).
 *
 * @module
 */
import { parseJson } from "../../lib/json/parse.ts";
import { canonicalizeSchemapinV1 } from "../../lib/json/canonical_schemapin.ts";
import { canonicalizeJcs } from "../../lib/json/canonical_jcs.ts";
import { type OObject, oracleParse, OracleReject, type OValue } from "./json.ts";
import { oracleJcs, oracleSchemapinV1 } from "./canonical.ts";
import { generateCase } from "./generate.ts";

/** What one side made of one stage: canonical text, a rejection, or an unexpected error. */
export type Verdict =
  | { kind: "text"; text: string }
  | { kind: "reject"; message: string }
  | { kind: "crash"; message: string };

/** The result of one implementation on one input. */
export interface Outcome {
  parse: "accept" | "reject" | "crash";
  parseMessage?: string;
  schemapin?: Verdict;
  jcs?: Verdict;
}

function errorText(e: unknown): string {
  if (e instanceof Error) return `${e.name}${codeOf(e) ? ` ${codeOf(e)}` : ""}: ${e.message}`;
  return String(e);
}

function codeOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** Library: parse errors must be `JSON_INVALID`, canonicalization errors the §10 code. */
export function libraryOutcome(bytes: Uint8Array): Outcome {
  let value: unknown;
  try {
    value = parseJson(bytes);
  } catch (e) {
    return {
      parse: codeOf(e) === "JSON_INVALID" ? "reject" : "crash",
      parseMessage: errorText(e),
    };
  }
  const run = (f: (v: unknown) => string): Verdict => {
    try {
      return { kind: "text", text: f(value) };
    } catch (e) {
      return codeOf(e) === "SCHEMA_CANONICALIZATION_FAILED"
        ? { kind: "reject", message: errorText(e) }
        : { kind: "crash", message: errorText(e) };
    }
  };
  return { parse: "accept", schemapin: run(canonicalizeSchemapinV1), jcs: run(canonicalizeJcs) };
}

/** Oracle: parse rejections are stage "parse"; canonicalize rejections stage "canonicalize". */
export function oracleOutcome(bytes: Uint8Array): Outcome {
  let value: OValue;
  try {
    value = oracleParse(bytes);
  } catch (e) {
    const ok = e instanceof OracleReject && e.stage === "parse";
    return { parse: ok ? "reject" : "crash", parseMessage: errorText(e) };
  }
  const run = (f: (v: OValue) => string): Verdict => {
    try {
      return { kind: "text", text: f(value) };
    } catch (e) {
      return e instanceof OracleReject && e.stage === "canonicalize"
        ? { kind: "reject", message: e.message }
        : { kind: "crash", message: errorText(e) };
    }
  };
  return { parse: "accept", schemapin: run(oracleSchemapinV1), jcs: run(oracleJcs) };
}

/** The kind of disagreement between library and oracle, or null when they agree. */
export function mismatchCategory(lib: Outcome, oracle: Outcome): string | null {
  const verb = { accept: "accepts", reject: "rejects", crash: "crashes" };
  if (lib.parse !== oracle.parse) {
    return `parse: library ${verb[lib.parse]}, oracle ${verb[oracle.parse]}`;
  }
  if (lib.parse !== "accept") return null;
  for (const stage of ["schemapin", "jcs"] as const) {
    const a = lib[stage]!, b = oracle[stage]!;
    const name = stage === "schemapin" ? "schemapin-v1" : "jcs";
    if (a.kind !== b.kind) return `${name}: library ${a.kind}, oracle ${b.kind}`;
    if (a.kind === "text" && a.text !== (b as { text: string }).text) {
      return `${name}: canonical texts differ`;
    }
  }
  return null;
}

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true });

function fromRuntime(v: unknown): OValue {
  if (v === null || typeof v !== "object") return v as OValue;
  if (Array.isArray(v)) return v.map(fromRuntime);
  const out: OObject = new Map();
  for (const k of Object.keys(v)) out.set(k, fromRuntime((v as Record<string, unknown>)[k]));
  return out;
}

/**
 * Coverage probe, not part of the comparison: the JCS text (by the oracle's canonicalizer)
 * of what the runtime's own `JSON.parse` makes of bytes the oracle accepted, or null when
 * `JSON.parse` refuses them. On Deno 2.9.6 this differs from the oracle for the V8
 * escaped-name class, which shows that the generated documents reach that class.
 */
export function runtimeJsonParseJcs(bytes: Uint8Array): string | null {
  try {
    return oracleJcs(fromRuntime(JSON.parse(fatalUtf8.decode(bytes))));
  } catch {
    return null;
  }
}

/** Evaluates one input on both sides. */
export function evaluate(bytes: Uint8Array): {
  lib: Outcome;
  oracle: Outcome;
  category: string | null;
} {
  const lib = libraryOutcome(bytes);
  const oracle = oracleOutcome(bytes);
  return { lib, oracle, category: mismatchCategory(lib, oracle) };
}

/**
 * Shrinks `input` while `fails` stays true: first structurally (replace a container by one of
 * its values, drop a member or element — this unwinds deep nesting), then by deleting chunks
 * of halving size down to single bytes, until nothing more can go or time runs out.
 */
export async function shrink(
  input: Uint8Array,
  fails: (candidate: Uint8Array) => boolean | Promise<boolean>,
  budgetMs = 4000,
): Promise<Uint8Array> {
  const deadline = performance.now() + budgetMs;
  let current = input;
  for (let round = 0; round < 4 && performance.now() < deadline; round++) {
    const before = current.length;
    current = await shrinkStructure(current, fails, deadline);
    current = await shrinkChunks(current, fails, deadline);
    if (current.length === before) break;
  }
  return current;
}

function splice(b: Uint8Array, from: number, to: number, insert?: Uint8Array): Uint8Array {
  const extra = insert?.length ?? 0;
  const out = new Uint8Array(b.length - (to - from) + extra);
  out.set(b.subarray(0, from));
  if (insert) out.set(insert, from);
  out.set(b.subarray(to), from + extra);
  return out;
}

async function shrinkChunks(
  input: Uint8Array,
  fails: (candidate: Uint8Array) => boolean | Promise<boolean>,
  deadline: number,
): Promise<Uint8Array> {
  let current = input;
  let chunk = 1;
  while (chunk * 2 <= current.length) chunk *= 2;
  while (chunk >= 1) {
    let progress = false;
    // Non-overlapping chunks from the end: a deletion leaves the positions below unchanged.
    for (let at = current.length - chunk; at >= 0; at -= chunk) {
      const candidate = splice(current, at, at + chunk);
      if (await fails(candidate)) {
        current = candidate;
        progress = true;
      }
      if (performance.now() > deadline) return current;
    }
    if (!progress) chunk >>= 1;
  }
  return current;
}

/** A container found by {@linkcode scanContainers}: its span and its values' spans. */
interface Container {
  start: number;
  end: number;
  /** Per member/element: where it starts (the name for objects) and its value's span. */
  items: { start: number; valueStart: number; valueEnd: number }[];
}

/**
 * A lenient scan of JSON-like bytes for containers (outermost first); scalars are skipped up
 * to the next delimiter. Returns [] for text it cannot follow.
 */
function scanContainers(b: Uint8Array): Container[] {
  const out: Container[] = [];
  let i = 0;
  const ws = () => {
    while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
  };
  const str = () => {
    i++;
    while (i < b.length && b[i] !== 0x22) i += b[i] === 0x5c ? 2 : 1;
    if (i >= b.length) throw new Error("unterminated");
    i++;
  };
  const value = (depth: number): void => {
    if (depth > 2000) throw new Error("too deep");
    ws();
    const c = b[i];
    if (c === 0x22) return str();
    if (c !== 0x5b && c !== 0x7b) {
      const s = i;
      while (i < b.length && !",]}: \n\r\t".includes(String.fromCharCode(b[i]))) i++;
      if (i === s) throw new Error("empty");
      return;
    }
    const node: Container = { start: i, end: -1, items: [] };
    out.push(node);
    const close = c === 0x5b ? 0x5d : 0x7d;
    i++;
    ws();
    if (b[i] === close) {
      i++;
      node.end = i;
      return;
    }
    for (;;) {
      ws();
      const itemStart = i;
      if (close === 0x7d) {
        if (b[i] !== 0x22) throw new Error("name");
        str();
        ws();
        if (b[i] !== 0x3a) throw new Error("colon");
        i++;
        ws();
      }
      const valueStart = i;
      value(depth + 1);
      node.items.push({ start: itemStart, valueStart, valueEnd: i });
      ws();
      if (b[i] === 0x2c) {
        i++;
        continue;
      }
      if (b[i] !== close) throw new Error("close");
      i++;
      node.end = i;
      return;
    }
  };
  try {
    value(0);
  } catch {
    return out.filter((n) => n.end >= 0);
  }
  return out;
}

async function shrinkStructure(
  input: Uint8Array,
  fails: (candidate: Uint8Array) => boolean | Promise<boolean>,
  deadline: number,
): Promise<Uint8Array> {
  let current = input;
  let progress = true;
  while (progress && performance.now() < deadline) {
    progress = false;
    let containers = scanContainers(current);
    let byStart = new Map(containers.map((c) => [c.start, c]));
    for (let k = 0; k < containers.length; k++) {
      if (performance.now() > deadline) return current;
      const node = containers[k];
      const candidates: Uint8Array[] = [];
      // Replace the container by a value nested 512, 256, …, 1 levels down its first items
      // (unwinds deep nesting in few steps), or by its last value.
      const chain: { valueStart: number; valueEnd: number }[] = [];
      for (let c: Container | undefined = node; c && c.items.length > 0 && chain.length < 1024;) {
        chain.push(c.items[0]);
        c = byStart.get(c.items[0].valueStart);
      }
      const hoists = [];
      for (let d = 512; d >= 1; d >>= 1) if (d <= chain.length) hoists.push(chain[d - 1]);
      if (node.items.length > 1) hoists.push(node.items[node.items.length - 1]);
      for (const item of hoists) {
        candidates.push(
          splice(current, node.start, node.end, current.slice(item.valueStart, item.valueEnd)),
        );
      }
      // Drop one member or element (with a comma).
      for (let j = node.items.length - 1; j >= 0; j--) {
        const items = node.items;
        if (items.length === 1) candidates.push(splice(current, node.start + 1, node.end - 1));
        else if (j > 0) candidates.push(splice(current, items[j - 1].valueEnd, items[j].valueEnd));
        else candidates.push(splice(current, items[0].start, items[1].start));
      }
      for (const candidate of candidates) {
        if (await fails(candidate)) {
          current = candidate;
          progress = true;
          containers = scanContainers(current);
          byStart = new Map(containers.map((c) => [c.start, c]));
          k--; // look at the container now in this position again
          break;
        }
      }
    }
  }
  return current;
}

/** One reported disagreement. */
export interface Mismatch {
  seed: number;
  index: number;
  kind: string;
  category: string;
  input: Uint8Array;
  minimized: Uint8Array;
  lib: Outcome;
  oracle: Outcome;
  /** Which input `lib` and `oracle` describe. */
  shownFor: "minimized" | "original";
  /** Whether the minimized input also disagrees in a fresh isolate. */
  fresh?: boolean;
  /** Whether the original input disagrees in a fresh isolate. */
  freshOriginal?: boolean;
  /**
   * When `minimized` needs earlier documents of the process but `input` disagrees on its own:
   * `input` minimized with every candidate evaluated in a fresh isolate.
   */
  minimizedFresh?: Uint8Array;
}

/** Counters of one run. */
export interface RunStats {
  seed: number;
  cases: number;
  ms: number;
  parseAccepted: number;
  parseRejected: number;
  schemapinRejected: number;
  mismatches: number;
  /** Accepted documents that the runtime's JSON.parse misreads (coverage probe). */
  runtimeMisreads: number;
  /** The first of those. */
  runtimeMisreadExample?: Uint8Array;
  byCategory: Map<string, number>;
  byKind: Map<string, { cases: number; mismatches: number }>;
  examples: Mismatch[];
}

/** Options of {@linkcode runDifferential}. */
export interface RunOptions {
  seed: number;
  /** Number of cases (starting at `start`). */
  cases: number;
  start?: number;
  /** Stop after this many seconds even if `cases` are not done. */
  seconds?: number;
  /** Minimized examples to keep: the first of each (category, generator kind). */
  maxExamples?: number;
  shrinkMs?: number;
  /**
   * Check each example in a fresh isolate and, when only the original reproduces there,
   * shrink it again with fresh-isolate evaluations for at most this long (0: skip).
   */
  freshShrinkMs?: number;
  /** Total time for fresh-isolate shrinking in this run (default 30 s). */
  freshShrinkTotalMs?: number;
  onProgress?: (stats: RunStats) => void;
  progressEveryMs?: number;
  onExample?: (m: Mismatch) => void;
  /** Also count documents the runtime's JSON.parse misreads ({@linkcode runtimeJsonParseJcs}). */
  probeRuntime?: boolean;
}

/** Runs cases `start .. start+cases-1` of `seed` through both sides. */
export async function runDifferential(options: RunOptions): Promise<RunStats> {
  const { seed, cases, start = 0, maxExamples = 12, shrinkMs = 4000 } = options;
  const freshShrinkMs = options.freshShrinkMs ?? 15_000;
  let freshLeft = options.freshShrinkTotalMs ?? 30_000;
  const t0 = performance.now();
  const deadline = options.seconds ? t0 + options.seconds * 1000 : Infinity;
  let nextProgress = t0 + (options.progressEveryMs ?? 5000);
  const stats: RunStats = {
    seed,
    cases: 0,
    ms: 0,
    parseAccepted: 0,
    parseRejected: 0,
    schemapinRejected: 0,
    mismatches: 0,
    runtimeMisreads: 0,
    byCategory: new Map(),
    byKind: new Map(),
    examples: [],
  };
  const seen = new Set<string>();
  for (let index = start; index < start + cases; index++) {
    const { kind, bytes } = generateCase(seed, index);
    const { lib, oracle, category } = evaluate(bytes);
    stats.cases++;
    if (oracle.parse === "accept") stats.parseAccepted++;
    else stats.parseRejected++;
    if (oracle.schemapin?.kind === "reject") stats.schemapinRejected++;
    if (options.probeRuntime && oracle.jcs?.kind === "text") {
      const runtime = runtimeJsonParseJcs(bytes);
      if (runtime !== null && runtime !== oracle.jcs.text) {
        stats.runtimeMisreads++;
        stats.runtimeMisreadExample ??= bytes;
      }
    }
    const k = stats.byKind.get(kind) ?? { cases: 0, mismatches: 0 };
    k.cases++;
    stats.byKind.set(kind, k);
    if (category !== null) {
      stats.mismatches++;
      k.mismatches++;
      stats.byCategory.set(category, (stats.byCategory.get(category) ?? 0) + 1);
      const key = `${category} / ${kind}`;
      if (!seen.has(key) && stats.examples.length < maxExamples) {
        seen.add(key);
        const minimized = await shrink(
          bytes,
          (b) => mismatchCategory(libraryOutcome(b), oracleOutcome(b)) === category,
          shrinkMs,
        );
        const again = evaluate(minimized);
        // Shown: the two outcomes on the minimized input — or, when it no longer disagrees
        // (the V8 defect depends on earlier parses), those on the original at detection.
        const still = again.category === category;
        const m: Mismatch = {
          seed,
          index,
          kind,
          category,
          input: bytes,
          minimized,
          lib: still ? again.lib : lib,
          oracle: still ? again.oracle : oracle,
          shownFor: still ? "minimized" : "original",
        };
        if (freshShrinkMs > 0) {
          const t = performance.now();
          await checkFresh(m, Math.max(0, Math.min(freshShrinkMs, freshLeft)));
          freshLeft -= performance.now() - t;
        }
        stats.examples.push(m);
        options.onExample?.(m);
      }
    }
    const now = performance.now();
    if (now > nextProgress) {
      stats.ms = now - t0;
      options.onProgress?.(stats);
      nextProgress = now + (options.progressEveryMs ?? 5000);
    }
    if (now > deadline) break;
  }
  stats.ms = performance.now() - t0;
  return stats;
}

/**
 * Fills in the fresh-isolate facts of a mismatch; if the minimized input agrees in a fresh
 * isolate but the original does not, shrinks the original again there.
 */
async function checkFresh(m: Mismatch, budgetMs: number): Promise<void> {
  const [min, orig] = await evaluateFresh([m.minimized, m.input]);
  m.fresh = min === m.category;
  m.freshOriginal = orig === m.category;
  if (m.fresh || !m.freshOriginal || budgetMs <= 0) return;
  m.minimizedFresh = await shrink(
    m.input,
    async (b) => (await evaluateFresh([b]))[0] === m.category,
    budgetMs,
  );
}

/**
 * Re-evaluates inputs, each in a new Worker (a fresh V8 isolate): the V8 `JSON.parse`
 * defect depends on what the process parsed before, so a minimized input may need that
 * history. Returns per input the mismatch category or null (`compare`), or the
 * {@linkcode runtimeJsonParseJcs} text (`runtime`).
 */
export async function evaluateFresh(
  inputs: Uint8Array[],
  mode: "compare" | "runtime" = "compare",
): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (const bytes of inputs) {
    const worker = new Worker(new URL("./fresh_worker.ts", import.meta.url).href, {
      type: "module",
    });
    try {
      out.push(
        await new Promise<string | null>((resolve, reject) => {
          worker.onmessage = (e: MessageEvent<string | null>) => resolve(e.data);
          worker.onerror = (e) => {
            e.preventDefault();
            reject(new Error(`fresh worker failed: ${e.message}`));
          };
          worker.postMessage({ bytes, mode });
        }),
      );
    } finally {
      worker.terminate();
    }
  }
  return out;
}

/** Encodes bytes as base64. */
export function base64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** The input as a JSON string literal (invalid UTF-8 shown as U+FFFD, flagged). */
export function jsonEscaped(bytes: Uint8Array): string {
  let valid = true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    valid = false;
  }
  const text = JSON.stringify(new TextDecoder().decode(bytes));
  return valid ? text : `${text} (not valid UTF-8: bad bytes shown as U+FFFD; use base64)`;
}

function describe(o: Outcome): string {
  if (o.parse !== "accept") return `parse ${o.parse}s (${o.parseMessage})`;
  const v = (x: Verdict) =>
    x.kind === "text" ? JSON.stringify(x.text) : `${x.kind}: ${x.message.slice(0, 200)}`;
  return `parse accepts; schemapin-v1 ${v(o.schemapin!)}; jcs ${v(o.jcs!)}`;
}

/** A multi-line report of one mismatch. */
export function formatMismatch(m: Mismatch): string {
  const lines = [
    `MISMATCH ${m.category}`,
    `  seed ${m.seed} case ${m.index} (generator ${m.kind}); replay: ` +
    `deno task fuzz --seed ${m.seed} --start ${m.index} --cases 1`,
    `  minimized input (${m.minimized.length} bytes, from ${m.input.length}):`,
    `    JSON text: ${jsonEscaped(m.minimized)}`,
    `    base64:    ${base64(m.minimized)}`,
    ...(m.shownFor === "original"
      ? ["  (the minimized input agrees when run again; the outcomes below are the original's)"]
      : []),
    `  library: ${describe(m.lib)}`,
    `  oracle:  ${describe(m.oracle)}`,
  ];
  if (m.fresh !== undefined) {
    lines.push(
      `  in a fresh isolate: minimized input ${m.fresh ? "disagrees too" : "agrees"}; ` +
        `original input ${m.freshOriginal ? "disagrees" : "agrees"}` +
        (m.fresh || m.freshOriginal
          ? ""
          : " (the disagreement needs documents parsed before it in this process)"),
    );
  }
  if (m.minimizedFresh) {
    lines.push(
      `  minimized in fresh isolates (${m.minimizedFresh.length} bytes; disagrees on its own):`,
      `    JSON text: ${jsonEscaped(m.minimizedFresh)}`,
      `    base64:    ${base64(m.minimizedFresh)}`,
    );
  }
  if (!m.fresh && !m.minimizedFresh && m.input.length <= 32_768) {
    lines.push(`  original input (${m.input.length} bytes) base64: ${base64(m.input)}`);
  }
  return lines.join("\n");
}

/** A summary of a run: counts, mix of outcomes, mismatches per category. */
export function formatStats(s: RunStats): string {
  const pct = (n: number) => `${((100 * n) / Math.max(1, s.cases)).toFixed(1)}%`;
  const lines = [
    `seed ${s.seed}: ${s.cases} cases in ${(s.ms / 1000).toFixed(1)} s ` +
    `(${Math.round(s.cases / (s.ms / 1000))}/s); parse accepted ${pct(s.parseAccepted)}, ` +
    `rejected ${pct(s.parseRejected)}; schemapin-v1 range rejections ${
      pct(s.schemapinRejected)
    }; mismatches ${s.mismatches}` +
    (s.runtimeMisreads
      ? `; runtime JSON.parse misread ${s.runtimeMisreads} accepted documents`
      : ""),
    `  by generator: ${
      [...s.byKind].map(([k, v]) => `${k} ${v.cases}${v.mismatches ? ` (${v.mismatches} ✗)` : ""}`)
        .join(", ")
    }`,
  ];
  for (const [c, n] of s.byCategory) lines.push(`  ${n} × ${c}`);
  return lines.join("\n");
}
