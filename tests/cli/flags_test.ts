// One rule for flags (issue 15 item 8): -o/--out, -k/--key, -q/--quiet, -f/--force on every
// command that has them; an existing --out file is replaced only with --force (a batch
// replaces nothing and writes nothing without it); old spellings keep working with a note on
// stderr; `bundle verify|merge` trust a first-use authority with --trust-first-use-authority
// like verify-schema; completions offer the short forms.
import assert from "node:assert/strict";
import { exists, runInProcess, withTempDir } from "./run.ts";
import { assertJsonOutput } from "./json_schemas.ts";
import {
  booleanFlag,
  listFlag,
  parseOptions,
  rewriteDeprecatedFlags,
  SHORT_FLAGS,
  valueFlag,
  withShortFlags,
} from "../../cli/args/flags.ts";
import { COMMAND_ENTRIES } from "../../cli/commands/registry.ts";

const TOOL = JSON.stringify({ name: "calc", description: "adds", inputSchema: { type: "object" } });

async function keys(dir: string): Promise<{ key: string; pub: string }> {
  const r = await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/k`]);
  assert.equal(r.code, 0, r.stderr);
  return { key: `${dir}/k/private.pem`, pub: `${dir}/k/public.pem` };
}

Deno.test("flags: withShortFlags adds -o -k -q -f and keeps a declared short form", () => {
  assert.deepEqual(
    withShortFlags({
      out: { type: "string" },
      key: { type: "string" },
      quiet: { type: "boolean" },
      force: { type: "boolean" },
      json: { type: "boolean" },
    }),
    {
      out: { type: "string", short: "o" },
      key: { type: "string", short: "k" },
      quiet: { type: "boolean", short: "q" },
      force: { type: "boolean", short: "f" },
      json: { type: "boolean" },
    },
  );
  const own = { out: { type: "string", short: "x" } } as const;
  assert.equal(withShortFlags(own), own);
  assert.deepEqual(SHORT_FLAGS, { out: "o", key: "k", quiet: "q", force: "f" });
});

const REVOKE_TABLE = {
  out: { type: "string", value: "FILE", help: "the document" },
  into: { type: "string", help: "", deprecated: "out" },
} as const;

Deno.test("flags: valueFlag, listFlag and booleanFlag build the entries the parser reads", () => {
  assert.deepEqual(valueFlag("FILE", "the file"), {
    type: "string",
    value: "FILE",
    help: "the file",
  });
  assert.deepEqual(listFlag("KID=PEM", "repeatable"), {
    type: "string",
    multiple: true,
    value: "KID=PEM",
    help: "repeatable",
  });
  assert.deepEqual(booleanFlag("replace"), { type: "boolean", help: "replace" });
  assert.deepEqual(booleanFlag("verbose", { short: "v" }), {
    type: "boolean",
    help: "verbose",
    short: "v",
  });
  // A value flag is never repeatable and a boolean never takes a value: the parser's options
  // say so, with the conventional short form of --out added.
  const options = parseOptions({ out: valueFlag("FILE", "x"), force: booleanFlag("y") });
  assert.equal(options.out.multiple, undefined);
  assert.equal(options.out.short, "o");
  assert.equal(options.force.type, "boolean");
  assert.equal("value" in booleanFlag("z"), false);
  assert.equal("multiple" in valueFlag("N", "z"), false);
});

Deno.test("flags: rewriteDeprecatedFlags renames a table's old spellings, = values, not after --", () => {
  assert.deepEqual(
    rewriteDeprecatedFlags("revoke", ["--into", "r.json", "--reason", "x"], REVOKE_TABLE),
    {
      args: ["--out", "r.json", "--reason", "x"],
      notes: ["revoke: --into is deprecated; use --out (-o)"],
    },
  );
  assert.deepEqual(rewriteDeprecatedFlags("revoke", ["--into=sigs", "--into", "s"], REVOKE_TABLE), {
    args: ["--out=sigs", "--out", "s"],
    notes: ["revoke: --into is deprecated; use --out (-o)"],
  });
  // An old short form is rewritten too (keygen's -o named a folder: now --out-dir).
  const keygen = {
    "out-dir": { type: "string", value: "DIR", help: "the folder" },
    out: { type: "string", help: "", deprecated: "out-dir" },
  } as const;
  assert.deepEqual(rewriteDeprecatedFlags("keygen", ["-o", "k"], keygen), {
    args: ["--out-dir", "k"],
    notes: ["keygen: -o is deprecated; use --out-dir"],
  });
  // A table without old spellings changes nothing.
  assert.deepEqual(rewriteDeprecatedFlags("verify-schema", ["--into"], {}), {
    args: ["--into"],
    notes: [],
  });
  // Arguments after -- belong to a server command line.
  assert.deepEqual(rewriteDeprecatedFlags("revoke", ["--", "--into"], REVOKE_TABLE).args, [
    "--",
    "--into",
  ]);
  // A longer flag that starts like an old one is not renamed.
  assert.deepEqual(rewriteDeprecatedFlags("revoke", ["--intox"], REVOKE_TABLE).args, ["--intox"]);
});

Deno.test("flags: every --out/--key/--force/--quiet option line shows its short form", async () => {
  const missing: string[] = [];
  for (const entry of COMMAND_ENTRIES) {
    const help = (await entry.load()).help;
    for (const line of help.split("\n")) {
      // An option-list line: the term, two or more spaces, the description.
      if (/^\s+--(out|key|force|quiet)(?![-\w])( [A-Z][A-Z.-]*)?\s{2,}\S/.test(line)) {
        missing.push(`${entry.name}: ${line.trim()}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

Deno.test("sign-schema -o: an existing file is replaced only with -f", async () => {
  await withTempDir(async (dir) => {
    const { key } = await keys(dir);
    await Deno.writeTextFile(`${dir}/tool.json`, TOOL);
    await Deno.writeTextFile(`${dir}/tool.sig`, "keep me\n");
    const refused = await runInProcess([
      "sign-schema",
      `${dir}/tool.json`,
      "-k",
      key,
      "-o",
      `${dir}/tool.sig`,
    ]);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /tool\.sig already exists; refusing to overwrite it \(use --force\)/,
    );
    assert.equal(await Deno.readTextFile(`${dir}/tool.sig`), "keep me\n");
    const forced = await runInProcess([
      ...["sign-schema", `${dir}/tool.json`, "-k", key, "-o", `${dir}/tool.sig`, "-f", "-q"],
    ]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(forced.stdout, "");
    assert.notEqual(await Deno.readTextFile(`${dir}/tool.sig`), "keep me\n");
  });
});

Deno.test("sign-schema --batch --out-dir DIR: existing signatures stop the batch before any write", async () => {
  await withTempDir(async (dir) => {
    const { key } = await keys(dir);
    await Deno.mkdir(`${dir}/schemas`);
    for (const n of ["a", "b", "c"]) await Deno.writeTextFile(`${dir}/schemas/${n}.json`, TOOL);
    const first = await runInProcess([
      "sign-schema",
      "--batch",
      `${dir}/schemas`,
      "--out-dir",
      `${dir}/sigs`,
      "-k",
      key,
    ]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, "");
    await Deno.remove(`${dir}/sigs/a.json.sig`);
    const before = (await Deno.stat(`${dir}/sigs/b.json.sig`)).ino;
    const again = await runInProcess([
      "sign-schema",
      "--batch",
      `${dir}/schemas`,
      "--out-dir",
      `${dir}/sigs`,
      "-k",
      key,
    ]);
    assert.equal(again.code, 2);
    assert.match(
      again.stderr,
      /2 signature file\(s\) already exist .*b\.json\.sig.*nothing was written — add --force/,
    );
    assert.equal(
      await exists(`${dir}/sigs/a.json.sig`),
      false,
      "nothing written, not even a new one",
    );
    const forced = await runInProcess([
      ...["sign-schema", "--batch", `${dir}/schemas`, "--out-dir", `${dir}/sigs`, "-k", key, "-f"],
    ]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(await exists(`${dir}/sigs/a.json.sig`), true);
    // Rewritten (a new file renamed over the old one), not left alone.
    assert.notEqual((await Deno.stat(`${dir}/sigs/b.json.sig`)).ino, before, "re-signed");
    // The old spelling still works, with a note on stderr (stdout stays the result).
    const old = await runInProcess([
      ...["sign-schema", "--batch", `${dir}/schemas`, "-o", `${dir}/sigs2`, "-k", key],
      "--json",
    ]);
    assert.equal(old.code, 0, old.stderr);
    assert.equal(
      old.stderr,
      "note: sign-schema: --out with --batch is deprecated; use --out-dir DIR\n",
    );
    const batch = await assertJsonOutput(old.stdout);
    assert.equal(batch.format, "schemapin.sign-schema.batch/1");
    assert.equal(batch.ok, true);
    assert.deepEqual(batch.summary, { total: 3, signed: 3, failed: 0 });
  });
});

Deno.test("sign-schema: usage mistakes of the new rule are exit 2", async () => {
  await withTempDir(async (dir) => {
    const { key } = await keys(dir);
    const cases: [string[], RegExp][] = [
      [["sign-schema", "--batch", dir, "-k", key], /--batch needs --out-dir DIR/],
      [
        ["sign-schema", "--batch", dir, "-k", key, "--out-dir", dir, "-o", dir],
        /give --out-dir DIR \(not also --out\) with --batch/,
      ],
      [
        ["sign-schema", `${dir}/t.json`, "-k", key, "--out-dir", dir],
        /--out-dir goes with --batch; a single schema takes --out FILE/,
      ],
      [
        ["sign-schema", `${dir}/t.json`, "-k", key, "--pattern", "*.json"],
        /--pattern goes with --batch/,
      ],
      [["sign-schema", `${dir}/t.json`, "-k"], /-k \(--key\) needs a value|--key needs a value/],
    ];
    for (const [args, re] of cases) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.match(r.stderr, re);
    }
  });
});

Deno.test("revoke: -o/--out extends the document; --into still works with a note", async () => {
  await withTempDir(async (dir) => {
    const { pub } = await keys(dir);
    const other = await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/k2`]);
    assert.equal(other.code, 0);
    const base = ["revoke", "--domain", "example.com", "--reason", "superseded"];
    const a = await runInProcess([...base, "-k", pub, "-o", `${dir}/rev.json`]);
    assert.equal(a.code, 0, a.stderr);
    const b = await runInProcess([
      ...base,
      "--key",
      `${dir}/k2/public.pem`,
      "--into",
      `${dir}/rev.json`,
    ]);
    assert.equal(b.code, 0, b.stderr);
    assert.match(b.stderr, /note: revoke: --into is deprecated; use --out \(-o\)/);
    const doc = JSON.parse(await Deno.readTextFile(`${dir}/rev.json`));
    assert.equal(doc.revoked_keys.length, 2);
  });
});

Deno.test("pins: export -o refuses to replace without -f; import --overwrite is --force", async () => {
  await withTempDir(async (dir) => {
    const { pub } = await keys(dir);
    const store = ["--pin-store", `${dir}/pins.json`];
    assert.equal(
      (await runInProcess(["pins", "add", "t@example.com", "-k", pub, ...store])).code,
      0,
    );
    assert.equal((await runInProcess(["pins", "export", "-o", `${dir}/e.json`, ...store])).code, 0);
    const again = await runInProcess(["pins", "export", "-o", `${dir}/e.json`, ...store]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already exists/);
    assert.equal(
      (await runInProcess(["pins", "export", "-o", `${dir}/e.json`, "-f", ...store])).code,
      0,
    );
    // A conflicting import: refused, then replaced with --force (or its old name).
    const other = ["--pin-store", `${dir}/other.json`];
    const k2 = await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/k2`]);
    assert.equal(k2.code, 0);
    assert.equal(
      (await runInProcess(["pins", "add", "t@example.com", "-k", `${dir}/k2/public.pem`, ...other]))
        .code,
      0,
    );
    const conflict = await runInProcess(["pins", "import", `${dir}/e.json`, ...other]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /--force replaces them/);
    const old = await runInProcess(["pins", "import", `${dir}/e.json`, "--overwrite", ...other]);
    assert.equal(old.code, 0, old.stderr);
    assert.match(old.stderr, /note: pins import: --overwrite is deprecated; use --force \(-f\)/);
    const shown = await runInProcess(["pins", "show", "t@example.com", "--json", ...other]);
    const pin = (await assertJsonOutput(shown.stdout)).pin as { fingerprint: string };
    assert.equal(
      pin.fingerprint,
      JSON.parse(await Deno.readTextFile(`${dir}/e.json`)).pins[0].fingerprint,
    );
  });
});

Deno.test("bundle: sign/add -o another existing file needs -f; merge --out; first-use authority flag", async () => {
  await withTempDir(async (dir) => {
    const { key, pub } = await keys(dir);
    assert.equal((await runInProcess(["bundle", "create", "-o", `${dir}/b.json`])).code, 0);
    const sign = ["bundle", "sign", `${dir}/b.json`, "-k", key, "--kid", "k1"];
    // In place: the command's job, no --force needed.
    assert.equal((await runInProcess(sign)).code, 0);
    await Deno.writeTextFile(`${dir}/taken.json`, "{}\n");
    const refused = await runInProcess([...sign, "-o", `${dir}/taken.json`]);
    assert.equal(refused.code, 2);
    assert.equal(await Deno.readTextFile(`${dir}/taken.json`), "{}\n");
    assert.equal((await runInProcess([...sign, "-o", `${dir}/taken.json`, "-f"])).code, 0);
    assert.equal((await runInProcess(["bundle", "create", "-o", `${dir}/u.json`])).code, 0);
    const add = await runInProcess([
      "bundle",
      "add",
      `${dir}/u.json`,
      "--discovery",
      `x.com=${dir}/none.json`,
      "-o",
      `${dir}/taken.json`,
    ]);
    assert.equal(add.code, 2);
    // merge: --out form; an existing --out needs -f; the old positional form still works.
    const trust = ["--authority-key", `k1=${pub}`];
    const merged = await runInProcess([
      "bundle",
      "merge",
      "-o",
      `${dir}/m.json`,
      `${dir}/b.json`,
      ...trust,
    ]);
    assert.equal(merged.code, 0, merged.stderr);
    const again = await runInProcess([
      "bundle",
      "merge",
      "-o",
      `${dir}/m.json`,
      `${dir}/b.json`,
      ...trust,
    ]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /m\.json already exists/);
    const old = await runInProcess([
      "bundle",
      "merge",
      `${dir}/m2.json`,
      `${dir}/b.json`,
      ...trust,
    ]);
    assert.equal(old.code, 0, old.stderr);
    assert.match(old.stderr, /note: bundle merge OUT IN… is deprecated; use bundle merge --out/);
    // An unknown authority: --trust-first-use-authority, and the old spelling with a note.
    const fresh = await runInProcess([
      "bundle",
      "verify",
      `${dir}/b.json`,
      "--trust-first-use-authority",
    ]);
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.match(fresh.stderr, /trusted on first use \(--trust-first-use-authority\)/);
    const oldFlag = await runInProcess(["bundle", "verify", `${dir}/b.json`, "--trust-first-use"]);
    assert.equal(oldFlag.code, 0, oldFlag.stderr);
    assert.match(
      oldFlag.stderr,
      /--trust-first-use is deprecated; use --trust-first-use-authority/,
    );
    const refusedUnknown = await runInProcess(["bundle", "verify", `${dir}/b.json`]);
    assert.equal(refusedUnknown.code, 1);
    assert.match(refusedUnknown.stderr, /opt in with --trust-first-use-authority/);
  });
});

Deno.test("completions offer the short forms next to their long flags", async () => {
  const r = await runInProcess(["completions", "bash"]);
  assert.equal(r.code, 0);
  const line = (name: string) =>
    r.stdout.split("\n").find((l) => l.trimStart().startsWith(`${name}) flags=`)) ?? "";
  assert.match(line("sign-schema"), /--key -k .*--out -o .*--force -f .*--quiet -q/);
  // keygen writes a folder: --out-dir, with no short form; -o is a file everywhere.
  assert.match(line("keygen"), /--out-dir .*--force -f/);
  assert.doesNotMatch(line("keygen"), / -o /);
  // sign-schema --out-dir is --batch's folder; fingerprint writes nothing.
  assert.doesNotMatch(line("fingerprint"), / -o /);
});
