// The flag tables (issue 25 items 1 and 4; cli/args/flags.ts): every command's table is
// complete (help and value of each entry), its deprecated spellings point at real flags, its
// Usage block names only flags it has, and across all commands a long flag name has one
// meaning (one type and one kind of value) and a short letter stands for one long name.
//
// Commands without a table yet are skipped and listed on stdout, so the gap stays visible;
// once every command is converted this becomes strict.
import assert from "node:assert/strict";
import { loadCommands } from "../../cli/commands/registry.ts";
import { type FlagSpec, type FlagTable, shortOf } from "../../cli/args/flags.ts";
import type { Command } from "../../cli/commands/command.ts";

/** One table of a command: `keygen`, or `bundle verify` for a subcommand. */
interface LabelledTable {
  readonly label: string;
  readonly table: FlagTable;
}

/** The tables of a command (one per subcommand), or undefined when it has none yet. */
function tablesOf(command: Command): LabelledTable[] {
  const flags = command.flags;
  if (!Array.isArray(flags)) return [{ label: command.name, table: flags as FlagTable }];
  return (flags as readonly { name: string; flags: FlagTable }[]).map((sub) => ({
    label: `${command.name} ${sub.name}`.trimEnd(),
    table: sub.flags,
  }));
}

// ---------------------------------------------------------------- the checkers

/** (1) Every entry has a help unless deprecated; every string entry shown has a value. */
function checkEntries({ label, table }: LabelledTable): string[] {
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(table)) {
    if (spec.deprecated !== undefined) continue;
    if (typeof spec.help !== "string" || spec.help.trim() === "") {
      problems.push(`${label}: --${name} has no help`);
    }
    if (spec.type === "string" && (spec.value === undefined || spec.value.trim() === "")) {
      problems.push(`${label}: --${name} takes a value but names none (value: FILE, N, …)`);
    }
    if (spec.type === "boolean" && spec.value !== undefined) {
      problems.push(`${label}: --${name} is boolean but names a value ${spec.value}`);
    }
  }
  return problems;
}

/**
 * (2) A deprecated entry names a flag of the same table that is not itself deprecated (and
 * takes the same kind of argument: a rewritten `--old VALUE` must still parse).
 */
function checkDeprecated({ label, table }: LabelledTable): string[] {
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(table)) {
    if (spec.deprecated === undefined) continue;
    const target = Object.hasOwn(table, spec.deprecated) ? table[spec.deprecated] : undefined;
    if (target === undefined) {
      problems.push(`${label}: --${name} is deprecated for --${spec.deprecated}, not in the table`);
    } else if (target.deprecated !== undefined) {
      problems.push(
        `${label}: --${name} is deprecated for --${spec.deprecated}, itself deprecated`,
      );
    } else if (target.type !== spec.type) {
      problems.push(
        `${label}: --${name} (${spec.type}) is deprecated for --${spec.deprecated} ` +
          `(${target.type})`,
      );
    }
  }
  return problems;
}

/** The lines of a help's Usage block: from `Usage:` to the first blank line. */
function usageBlock(help: string): string[] {
  const lines = help.split("\n");
  const start = lines.findIndex((l) => l.startsWith("Usage:"));
  if (start === -1) return [];
  const end = lines.findIndex((l, i) => i > start && l.trim() === "");
  return lines.slice(start, end === -1 ? undefined : end);
}

/** Flags every command takes without a table entry. */
const UNIVERSAL_FLAGS = new Set(["help", "version"]);

/**
 * (3) Every `--flag` of the help's Usage block is in one of the command's tables (not as a
 * deprecated spelling).
 */
function checkUsage(name: string, help: string, tables: readonly LabelledTable[]): string[] {
  const known = new Set<string>();
  for (const { table } of tables) {
    for (const [flag, spec] of Object.entries(table)) {
      if (spec.deprecated === undefined) known.add(flag);
    }
  }
  const problems: string[] = [];
  for (const line of usageBlock(help)) {
    for (const m of line.matchAll(/(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)/g)) {
      if (!known.has(m[1]) && !UNIVERSAL_FLAGS.has(m[1])) {
        problems.push(`${name}: the Usage block names --${m[1]}, which no table of it has`);
      }
    }
  }
  return [...new Set(problems)];
}

/** The kind of a flag, for comparing one name across commands: its type and value metavar. */
function kindOf(spec: FlagSpec): string {
  return spec.type === "string" ? `string:${spec.value ?? "?"}` : "boolean";
}

/** A flag name allowed more than one kind, with the reason. */
interface KindException {
  /** Every kind the name may have (a kind not listed still fails). */
  readonly kinds: readonly string[];
  /** Why the name may mean two things (shown nowhere but here: a decision, written down). */
  readonly reason: string;
}

/**
 * The names that are allowed more than one kind. Each is a decision: a new disagreement fails
 * until it is fixed or listed here with its reason.
 */
const KIND_EXCEPTIONS: Readonly<Record<string, KindException>> = {
  file: {
    kinds: ["string:FILE", "string:NAME=PATH"],
    reason: "a saved tools/list dump everywhere; contract init pins several servers, so it " +
      "names each dump's server (NAME=PATH, repeatable)",
  },
  format: {
    kinds: ["string:bare|document", "string:human|json|sarif|github"],
    reason: "--format is the output format everywhere; its values are the formats the command " +
      "writes (sign-schema: the signature, contract verify: the report)",
  },
  discovery: {
    kinds: ["string:FILE", "string:DOMAIN=FILE"],
    reason: "bundle create/add collect many domains' documents (DOMAIN=FILE, repeatable); " +
      "the verifiers and pins add/rotate read the one document of the domain they check",
  },
  http: {
    kinds: ["string:NAME=URL", "string:URL"],
    reason: "an MCP server over HTTP everywhere; contract init and dump pin several servers, so " +
      "each is named (NAME=URL, repeatable); verify-skill fetches one skill from one server",
  },
  revocation: {
    kinds: ["string:FILE", "string:DOMAIN=FILE"],
    reason: "bundle create/add collect many domains' revocation documents (DOMAIN=FILE, " +
      "repeatable); the verifiers read the one document of the domain they check",
  },
};

/** One flag of one command, for the cross-command checks. */
interface FlagUse {
  readonly label: string;
  readonly name: string;
  readonly spec: FlagSpec;
}

/** Every non-deprecated flag of the tables. */
function flagUses(tables: readonly LabelledTable[]): FlagUse[] {
  return tables.flatMap(({ label, table }) =>
    Object.entries(table)
      .filter(([, spec]) => spec.deprecated === undefined)
      .map(([name, spec]) => ({ label, name, spec }))
  );
}

/**
 * (4) One meaning per name: a long name has one type and one value kind in every command,
 * except the names of `exceptions` (within their listed kinds).
 */
function checkOneMeaning(
  uses: readonly FlagUse[],
  exceptions: Readonly<Record<string, KindException>> = KIND_EXCEPTIONS,
): string[] {
  const kinds = new Map<string, Map<string, string[]>>(); // name → kind → labels
  for (const { label, name, spec } of uses) {
    const byKind = kinds.get(name) ?? new Map<string, string[]>();
    const kind = kindOf(spec);
    byKind.set(kind, [...(byKind.get(kind) ?? []), label]);
    kinds.set(name, byKind);
  }
  const problems: string[] = [];
  for (const [name, byKind] of kinds) {
    const allowed = Object.hasOwn(exceptions, name) ? exceptions[name].kinds : undefined;
    if (byKind.size <= 1 && allowed === undefined) continue;
    const outside = [...byKind.keys()].filter((k) => allowed === undefined || !allowed.includes(k));
    if (byKind.size <= 1 || outside.length === 0) continue;
    const list = [...byKind].map(([kind, labels]) => `${kind} (${labels.join(", ")})`);
    problems.push(`--${name} has ${byKind.size} meanings: ${list.join("; ")}`);
  }
  return problems;
}

/** (5) A short letter stands for one long name in every command. */
function checkShortLetters(uses: readonly FlagUse[]): string[] {
  const names = new Map<string, Map<string, string[]>>(); // letter → long name → labels
  for (const { label, name, spec } of uses) {
    const short = shortOf(name, spec);
    if (short === undefined) continue;
    const byName = names.get(short) ?? new Map<string, string[]>();
    byName.set(name, [...(byName.get(name) ?? []), label]);
    names.set(short, byName);
  }
  const problems: string[] = [];
  for (const [short, byName] of names) {
    if (byName.size <= 1) continue;
    const list = [...byName].map(([name, labels]) => `--${name} (${labels.join(", ")})`);
    problems.push(`-${short} stands for ${byName.size} flags: ${list.join("; ")}`);
  }
  return problems;
}

let converted: Promise<{ command: Command; tables: LabelledTable[] }[]> | undefined;

/** Every command with its tables. */
function convertedCommands(): Promise<{ command: Command; tables: LabelledTable[] }[]> {
  converted ??= loadConverted();
  return converted;
}

async function loadConverted(): Promise<{ command: Command; tables: LabelledTable[] }[]> {
  // Command.flags is required (the type checker sees to every command having a table).
  return (await loadCommands()).map((command) => ({ command, tables: tablesOf(command) }));
}

// ---------------------------------------------------------------- the real commands

Deno.test("flag tables: every entry has its help and value; deprecated ones point at real flags", async () => {
  const commands = await convertedCommands();
  assert.ok(commands.length >= 2, "no command has a flag table");
  const problems = commands.flatMap(({ tables }) =>
    tables.flatMap((t) => [...checkEntries(t), ...checkDeprecated(t)])
  );
  assert.deepEqual(problems, [], problems.join("\n"));
});

Deno.test("flag tables: the Usage block names only flags of the command's tables", async () => {
  const problems = (await convertedCommands()).flatMap(({ command, tables }) =>
    checkUsage(command.name, command.help, tables)
  );
  assert.deepEqual(problems, [], problems.join("\n"));
});

Deno.test("flag tables: one meaning per long name, one long name per short letter", async () => {
  const uses = flagUses((await convertedCommands()).flatMap(({ tables }) => tables));
  const problems = [...checkOneMeaning(uses), ...checkShortLetters(uses)];
  assert.deepEqual(problems, [], problems.join("\n"));
  // An exception that no longer applies is dead weight: each one is still needed.
  const names = new Set(uses.map((u) => u.name));
  for (const name of Object.keys(KIND_EXCEPTIONS)) {
    assert.ok(names.has(name), `KIND_EXCEPTIONS lists --${name}, which no table has`);
  }
});

// ---------------------------------------------------------------- the checkers catch mistakes

Deno.test("checkEntries: a missing help or value fails; a deprecated entry needs neither", () => {
  const table = {
    out: { type: "string", value: "FILE", help: "" },
    key: { type: "string", help: "the key" },
    json: { type: "boolean", value: "X", help: "JSON" },
    into: { type: "string", help: "", deprecated: "out" },
  } as const satisfies FlagTable;
  assert.deepEqual(checkEntries({ label: "demo", table }), [
    "demo: --out has no help",
    "demo: --key takes a value but names none (value: FILE, N, …)",
    "demo: --json is boolean but names a value X",
  ]);
  assert.deepEqual(
    checkEntries({
      label: "demo",
      table: { out: { type: "string", value: "FILE", help: "the file" }, into: table.into },
    }),
    [],
  );
});

Deno.test("checkDeprecated: the new name must exist, not be deprecated, and take the same type", () => {
  const table = {
    out: { type: "string", value: "FILE", help: "the file" },
    into: { type: "string", help: "", deprecated: "out" }, // fine
    old: { type: "string", help: "", deprecated: "gone" },
    older: { type: "string", help: "", deprecated: "into" },
    flag: { type: "boolean", help: "", deprecated: "out" },
  } as const satisfies FlagTable;
  assert.deepEqual(checkDeprecated({ label: "demo", table }), [
    "demo: --old is deprecated for --gone, not in the table",
    "demo: --older is deprecated for --into, itself deprecated",
    "demo: --flag (boolean) is deprecated for --out (string)",
  ]);
});

Deno.test("checkUsage: a Usage flag missing from the tables fails; prose and deprecated don't count", () => {
  const help = `schemapin demo — demo

Usage: schemapin demo --out FILE [--json] [--into FILE]
       [--nosuch] [--help] -- COMMAND

Prose may name --anything; only the Usage block counts.

Example: schemapin demo --example
`;
  const tables = [{
    label: "demo",
    table: {
      out: { type: "string", value: "FILE", help: "the file" },
      json: { type: "boolean", help: "JSON" },
      into: { type: "string", help: "", deprecated: "out" },
    },
  }] as const satisfies LabelledTable[];
  assert.deepEqual(checkUsage("demo", help, tables), [
    "demo: the Usage block names --into, which no table of it has",
    "demo: the Usage block names --nosuch, which no table of it has",
  ]);
  // A flag of any subcommand's table counts.
  assert.deepEqual(
    checkUsage("demo", "Usage: schemapin demo a --x\n  schemapin demo b --y\n\n", [
      { label: "demo a", table: { x: { type: "boolean", help: "x" } } },
      { label: "demo b", table: { y: { type: "boolean", help: "y" } } },
    ]),
    [],
  );
  assert.deepEqual(usageBlock("no usage here\n"), []);
});

Deno.test("checkOneMeaning: two kinds of one name fail unless listed; a listed name keeps its kinds", () => {
  const use = (label: string, name: string, spec: FlagSpec): FlagUse => ({ label, name, spec });
  const uses = [
    use("a", "out", { type: "string", value: "FILE", help: "x" }),
    use("b", "out", { type: "string", value: "DIR", help: "x" }),
    use("c", "out", { type: "string", value: "FILE", help: "x" }),
    use("a", "json", { type: "boolean", help: "x" }),
    use("b", "json", { type: "boolean", help: "y" }), // another wording is the same meaning
    use("a", "well-known", { type: "boolean", help: "x" }),
    use("b", "well-known", { type: "string", value: "FILE", help: "x" }),
  ];
  assert.deepEqual(checkOneMeaning(uses, {}), [
    "--out has 2 meanings: string:FILE (a, c); string:DIR (b)",
    "--well-known has 2 meanings: boolean (a); string:FILE (b)",
  ]);
  const allowed = { out: { kinds: ["string:FILE", "string:DIR"], reason: "test" } };
  assert.deepEqual(checkOneMeaning(uses, allowed), [
    "--well-known has 2 meanings: boolean (a); string:FILE (b)",
  ]);
  // A kind outside the listed ones still fails.
  const third = [...uses, use("d", "out", { type: "string", value: "N", help: "x" })];
  assert.equal(
    checkOneMeaning(third, allowed)[0],
    "--out has 3 meanings: string:FILE (a, c); string:DIR (b); string:N (d)",
  );
  assert.deepEqual(checkOneMeaning(uses.slice(3, 5), {}), []);
});

Deno.test("checkShortLetters: one letter for two long names fails; the conventional ones count", () => {
  const use = (label: string, name: string, spec: FlagSpec): FlagUse => ({ label, name, spec });
  const uses = [
    use("a", "out", { type: "string", value: "FILE", help: "x" }), // -o by convention
    use("b", "output", { type: "string", value: "FILE", short: "o", help: "x" }),
    use("a", "quiet", { type: "boolean", help: "x" }),
    use("b", "quiet", { type: "boolean", help: "x" }),
    use("c", "verbose", { type: "boolean", short: "v", help: "x" }),
  ];
  assert.deepEqual(checkShortLetters(uses), [
    "-o stands for 2 flags: --out (a); --output (b)",
  ]);
  assert.deepEqual(checkShortLetters(uses.slice(2)), []);
});

Deno.test("tablesOf: a plain table, or subcommand tables (the plain form unnamed)", () => {
  const base = { summary: "s", help: "", run: () => Promise.resolve(0) };
  const table = { json: { type: "boolean", help: "JSON" } } as const;
  assert.deepEqual(tablesOf({ ...base, name: "x", flags: table }), [{ label: "x", table }]);
  assert.deepEqual(
    tablesOf({
      ...base,
      name: "x",
      flags: [{ name: "", flags: {} }, { name: "a", flags: table }, { name: "b", flags: {} }],
    }),
    [{ label: "x", table: {} }, { label: "x a", table }, { label: "x b", table: {} }],
  );
});
