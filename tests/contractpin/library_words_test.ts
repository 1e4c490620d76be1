/**
 * Issue 36 item 2: the contractpin library says what to do in its own terms
 * (lib/option_hints.ts) and the CLI prints the words it always printed, byte for byte
 * (cli/library_words.ts): the command that re-creates a lock, the flags
 * --allow-dynamic-skills, --allow-literal-secrets and --header.
 */
import assert from "node:assert/strict";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import {
  buildLock,
  lockServerEntry,
  parseLock,
  serializeLock,
} from "../../lib/contractpin/lock.ts";
import { digestSurface } from "../../lib/contractpin/surface.ts";
import {
  expandHeaders,
  sanitizeIdentity,
  sanitizeUrl,
  type SecretWarning,
} from "../../lib/contractpin/secrets.ts";
import {
  ALLOW_DYNAMIC_SKILLS,
  CREDENTIALS_HINT,
  KEY_KIND_HINT,
  LOCK_EDITED,
  LOCK_INCONSISTENT,
  RAISE_MAX_BYTES,
  RAISE_MAX_ENTRIES,
  RAISE_MAX_PAGES,
} from "../../lib/option_hints.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { walkSkillDir } from "../../lib/skill/walk.ts";
import { messageInCliWords } from "../../cli/library_words.ts";
import { describeError } from "../../cli/commands/command.ts";
import { plainMessage } from "../../cli/commands/json_output.ts";
import { runInProcess, withTempDir } from "./helpers.ts";

const enc = new TextEncoder();
const INIT = "`schemapin contract init --force`";

function lockDoc() {
  const entry = lockServerEntry(
    { transport: "stdio", command: ["srv"] },
    digestToolList([{ name: "t" }]),
    [],
    digestSurface({ prompts: [{ name: "a" }] }),
  );
  return JSON.parse(serializeLock(buildLock({ s: entry }, new Date(0))));
}

/** The message `parseLock` throws for `doc`. */
function parseError(doc: unknown): SchemaPinError {
  try {
    parseLock(enc.encode(JSON.stringify(doc)), "c.lock");
  } catch (e) {
    assert.ok(e instanceof SchemaPinError);
    return e;
  }
  throw new Error("the lock was accepted");
}

Deno.test("library words: the lock errors name no command; the CLI names contract init --force", () => {
  const version = lockDoc();
  version.contractpin = "9";
  const count = lockDoc();
  count.servers.s.tool_count = 2;
  const kindCount = lockDoc();
  kindCount.servers.s.prompts.count = 3;
  const kindDigest = lockDoc();
  kindDigest.servers.s.prompts.digest = "sha256:" + "1".repeat(64);
  const cases: [unknown, string][] = [
    [
      version,
      'c.lock: unsupported lock format version "9"; this schemapin reads contractpin "1" only ' +
      `(upgrade schemapin, or re-create the lock with ${INIT})`,
    ],
    [
      count,
      "c.lock: /servers/s/tool_count is 2 but 1 tools are listed (the lock is inconsistent; " +
      `re-create it with ${INIT})`,
    ],
    [
      kindCount,
      "c.lock: /servers/s/prompts/count is 3 but 1 prompts are listed (the lock is " +
      `inconsistent; re-create it with ${INIT})`,
    ],
  ];
  for (const [doc, cli] of cases) {
    const e = parseError(doc);
    assert.ok(!e.message.includes("schemapin contract"), e.message);
    assert.equal(messageInCliWords(e.message), cli);
    assert.equal(describeError(e).message, `error: INPUT_INVALID: ${cli}`);
    assert.equal(plainMessage(e), cli);
  }
  const edited = parseError(kindDigest).message;
  assert.match(edited, /; the lock was edited by hand — re-create it\)$/);
  assert.ok(
    messageInCliWords(edited).endsWith(
      `; the lock was edited by hand — re-create it with ${INIT})`,
    ),
  );
  // The skills member's errors (lib/contractpin/skills_lock.ts) end with the same words.
  assert.equal(
    messageInCliWords(
      `l: /servers/s/skills/count is 2 but 1 skills are listed (${LOCK_INCONSISTENT})`,
    ),
    "l: /servers/s/skills/count is 2 but 1 skills are listed (the lock is inconsistent; " +
      `re-create it with ${INIT})`,
  );
  assert.equal(
    messageInCliWords(
      `l: /servers/s/skills/items/x/digest does not match the item (${LOCK_EDITED})`,
    ),
    "l: /servers/s/skills/items/x/digest does not match the item (the lock was edited by hand " +
      `— re-create it with ${INIT})`,
  );
});

Deno.test("library words: a message that names no remedy is left as it is", () => {
  for (const m of ["plain", "server a: it failed (exit 1)", "(re-create it)", ""]) {
    assert.equal(messageInCliWords(m), m);
  }
});

Deno.test("library words: secrets warnings and errors name the options; the CLI the flags", () => {
  const warnings: SecretWarning[] = [];
  sanitizeUrl("https://u:p@h.example/mcp?api_key=xyz", warnings);
  assert.deepEqual(warnings.map((w) => messageInCliWords(w.message)), [
    "credentials in the URL (user:password@) are not written to the lock; send them with " +
    "--header instead",
    'query parameter "api_key" looks like a credential and is not written to the lock; use ' +
    "api_key=${VAR} or --header instead",
  ]);
  for (const w of warnings) assert.ok(!w.message.includes("--"), w.message);

  const command = ["srv", "--token", "ghp_0123456789abcdefghij0123"];
  const { warnings: allowed } = sanitizeIdentity({ transport: "stdio", command }, {
    allowLiteralSecrets: true,
  });
  assert.equal(allowed.length, 1);
  assert.match(allowed[0].message, /as given \(allowLiteralSecrets\)$/);
  assert.match(messageInCliWords(allowed[0].message), /as given \(--allow-literal-secrets\)$/);

  let refused: SchemaPinError | undefined;
  try {
    sanitizeIdentity({ transport: "stdio", command }, { server: "s" });
  } catch (e) {
    refused = e as SchemaPinError;
  }
  assert.ok(refused instanceof SchemaPinError);
  assert.ok(!refused.message.includes("--allow"), refused.message);
  assert.ok(
    messageInCliWords(refused.message).endsWith(
      "and the lock keeps the reference; --allow-literal-secrets writes the arguments as they are)",
    ),
  );

  let unset: SchemaPinError | undefined;
  try {
    expandHeaders([{ name: "X-Key", value: "${SCHEMAPIN_LW_UNSET}" }], () => undefined);
  } catch (e) {
    unset = e as SchemaPinError;
  }
  assert.ok(unset instanceof SchemaPinError);
  assert.equal(
    unset.message,
    "header X-Key: environment variable SCHEMAPIN_LW_UNSET is not set (needed for " +
      "${SCHEMAPIN_LW_UNSET})",
  );
  assert.equal(
    describeError(unset).message,
    "error: INPUT_INVALID: --header X-Key: environment variable SCHEMAPIN_LW_UNSET is not set " +
      "(needed for ${SCHEMAPIN_LW_UNSET})",
  );
  assert.equal(
    messageInCliWords(
      `skill skill://a/SKILL.md is dynamic (it lists no resources): pinned by its frontmatter ` +
        `only (${ALLOW_DYNAMIC_SKILLS})`,
    ),
    "skill skill://a/SKILL.md is dynamic (it lists no resources): pinned by its frontmatter " +
      "only (--allow-dynamic-skills)",
  );
});

Deno.test("library words: contract verify of an inconsistent lock, on stderr and in --json", async () => {
  await withTempDir(async (dir) => {
    const doc = lockDoc();
    doc.servers.s.tool_count = 2;
    const lock = `${dir}/c.lock`;
    await Deno.writeTextFile(lock, JSON.stringify(doc));
    const message = `${lock}: /servers/s/tool_count is 2 but 1 tools are listed (the lock is ` +
      `inconsistent; re-create it with ${INIT})`;
    let r = await runInProcess(["contract", "verify", "--lock", lock]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, `error: INPUT_INVALID: ${message}\n`);
    r = await runInProcess(["contract", "verify", "--lock", lock, "--json"]);
    assert.equal(r.code, 2);
    assert.deepEqual(JSON.parse(r.stdout).error, { code: "INPUT_INVALID", message });
    r = await runInProcess(["guard", "--lock", lock, "--", "srv"]);
    assert.equal(r.code, 2);
    assert.ok(r.stderr.includes(message), r.stderr);
  });
});

Deno.test("library words: the option hints of lib/ name no flag; the CLI words each as before", () => {
  const cases: [string, string][] = [
    [
      `x: this is an Ed25519 key. ${KEY_KIND_HINT}`,
      "x: this is an Ed25519 key. SchemaPin keys are ECDSA P-256 (spec §3); make one with " +
      "`schemapin keygen` or `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`",
    ],
    [
      `d: more than 5 files (the cap; ${RAISE_MAX_ENTRIES})`,
      "d: more than 5 files (the cap; raise it with --max-entries if this is intended)",
    ],
    [
      `d: the files add up to more than 9 bytes (the cap, reached at a; ${RAISE_MAX_BYTES})`,
      "d: the files add up to more than 9 bytes (the cap, reached at a; raise it with " +
      "--max-bytes if this is intended)",
    ],
    [
      `s: tools/list still had more pages after 3 (page cap; ${RAISE_MAX_PAGES})`,
      "s: tools/list still had more pages after 3 (page cap; raise it with --max-pages if the " +
      "server really has that many)",
    ],
    [
      `s: HTTP 401${CREDENTIALS_HINT}`,
      "s: HTTP 401 (pass credentials with --header 'Authorization: Bearer ${TOKEN}')",
    ],
  ];
  for (const [library, cli] of cases) {
    assert.doesNotMatch(library, /--[a-z]|schemapin keygen/, library);
    assert.equal(messageInCliWords(library), cli);
  }
  // The phrases are the library's own: a walk over the cap throws one.
  assert.equal(messageInCliWords("no hint here"), "no hint here");
});

Deno.test("library words: a skill walk over its cap says so in the library's terms", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/SKILL.md`, "---\nname: x\n---\n");
    await Deno.writeTextFile(`${dir}/a.txt`, "a");
    assert.throws(() => walkSkillDir(dir, { maxEntries: 1 }), (e: Error) => {
      assert.ok(e.message.endsWith(`(the cap; ${RAISE_MAX_ENTRIES})`), e.message);
      return true;
    });
  });
});
