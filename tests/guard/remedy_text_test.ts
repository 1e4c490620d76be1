// The words of the guard's remedies (issue 36 item 2): lib/guard/core.ts gives the facts and a
// neutral default that names no command and no flag (lib/guard/refusal_text.ts); `schemapin
// guard` runs CliGuardCore (cli/guard/remedy_text.ts), whose words are the CLI's commands. The
// expected CLI sentences below are the texts lib/guard/core.ts built before the split, copied by
// hand.
import assert from "node:assert/strict";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import { lockServerEntry } from "../../lib/contractpin/lock.ts";
import type { JsonObject, JsonValue } from "../../lib/json/types.ts";
import { AuditLog } from "../../lib/guard/audit.ts";
import { GuardCore, type GuardCoreOptions, type GuardSession } from "../../lib/guard/core.ts";
import { GuardPolicy } from "../../lib/guard/policy.ts";
import { neutralRemedyText } from "../../lib/guard/refusal_text.ts";
import { CliGuardCore, guardRemedyText } from "../../cli/guard/remedy_text.ts";
import { baseTools } from "./helpers.ts";

type Fact = Parameters<NonNullable<GuardCoreOptions["remedyText"]>>[0];

const FACTS: Fact[] = [
  {
    about: "approve",
    lockFile: "team.lock",
    server: "fx",
    changed: ["echo", { kind: "prompt", key: "greet" }, {
      kind: "instructions",
      key: "instructions",
    }],
    skills: ["skill://pdf/SKILL.md"],
  },
  { about: "capabilities", capabilities: ["roots", "sampling"] },
  { about: "hidden_text" },
  { about: "unsigned_skills" },
  { about: "unsigned_tools" },
  { about: "unpinned", what: "prompts" },
  { about: "unpinned", what: "skills" },
];

const CLI_WORDS = [
  "If these changes are expected, review and approve them with `schemapin contract approve " +
  "--lock team.lock --server fx --tool echo --prompt greet --instructions --skill " +
  "skill://pdf/SKILL.md`, then restart the client.",
  "The client announced the capabilities roots, sampling, and servers may list other tools to " +
  "such clients: pin an entry for them with `schemapin contract init --client-capabilities " +
  "roots,sampling` (same command or URL, another name).",
  "Their definitions hold text a person cannot see or would not expect (the audit log names " +
  "each place); the guard runs with --strict-text.",
  "Skills must be pinned with their SchemaPin signature verified: `schemapin contract init` or " +
  "`approve` with skill signatures required records each check in the lock.",
  'Tools must carry a valid SchemaPin signature over their contract (_meta "dev.schemapin/' +
  'signature", made with `schemapin sign-tools`) by a key the domain publishes and that is ' +
  "neither revoked nor expired.",
  "re-run `schemapin contract init` to pin it",
  "re-run `schemapin contract init` to pin them",
];

Deno.test("remedy words: the CLI's are today's commands and flags, fact by fact", () => {
  assert.deepEqual(FACTS.map(guardRemedyText), CLI_WORDS);
});

Deno.test("remedy words: the library's default names no flag and no command", () => {
  const words = FACTS.map(neutralRemedyText);
  for (const w of words) {
    assert.doesNotMatch(w, /--[a-z]/, w);
    assert.doesNotMatch(w, /schemapin (contract|guard|sign-tools|keygen)/, w);
    assert.ok(w.length > 0);
  }
  // The facts are all there: the lock, the server and every change by kind.
  assert.equal(
    words[0],
    "If these changes are expected, review and approve them in team.lock (server fx: tool " +
      "echo, prompt greet, instructions, skill skill://pdf/SKILL.md), then restart the client.",
  );
  assert.match(words[1], /capabilities roots, sampling/);
  assert.match(words[2], /strictText/);
  assert.equal(words[5], "pin it in the lock to check it");
  assert.equal(words[6], "pin them in the lock to check them");
});

function drifted(core: (o: GuardCoreOptions) => GuardCore) {
  const tools = baseTools() as JsonValue[];
  const entry = lockServerEntry(
    { transport: "file", path: "x" },
    digestToolList(tools),
  );
  const policy = new GuardPolicy({ lock: { serverName: "fx", entry, file: "team.lock" } });
  const log = new AuditLog("fx", "enforce", () => {});
  return { guard: core({ policy, mode: "enforce", log, serverName: "fx" }), tools };
}

async function refusalOf(guard: GuardCore, session: GuardSession, tools: JsonValue[]) {
  await guard.fromClient(session, { jsonrpc: "2.0", id: 1, method: "tools/list" });
  const d = await guard.fromServer(session, { jsonrpc: "2.0", id: 1, result: { tools } });
  assert.equal(d.kind, "replace");
  return ((d as { message: JsonObject }).message.error as JsonObject).message as string;
}

Deno.test("remedy words: a GuardCore without remedyText refuses drift in the library's words", async () => {
  const { guard, tools } = drifted((o) => new GuardCore(o));
  const message = await refusalOf(guard, guard.newSession(), [...tools, { name: "exfiltrate" }]);
  assert.equal(
    message,
    "schemapin guard: tools/list refused: the tool contracts of server fx differ from " +
      "team.lock (added: exfiltrate). If these changes are expected, review and approve them " +
      "in team.lock (server fx: tool exfiltrate), then restart the client.",
  );
});

Deno.test("remedy words: CliGuardCore refuses drift in the CLI's words; remedyText overrides", async () => {
  {
    const { guard, tools } = drifted((o) => new CliGuardCore(o));
    const message = await refusalOf(guard, guard.newSession(), [...tools, { name: "exfiltrate" }]);
    assert.equal(
      message,
      "schemapin guard: tools/list refused: the tool contracts of server fx differ from " +
        "team.lock (added: exfiltrate). If these changes are expected, review and approve them " +
        "with `schemapin contract approve --lock team.lock --server fx --tool exfiltrate`, then " +
        "restart the client.",
    );
  }
  {
    const { guard, tools } = drifted((o) => new CliGuardCore({ ...o, remedyText: () => "Ask." }));
    const message = await refusalOf(guard, guard.newSession(), [...tools, { name: "x" }]);
    assert.match(message, /\(added: x\)\. Ask\.$/);
  }
});

Deno.test("remedy words: a remedyText that is not a function is refused (INPUT_INVALID)", () => {
  const { guard } = drifted((o) => {
    assert.throws(() => new GuardCore({ ...o, remedyText: "words" as never }), {
      name: "SchemaPinError",
      code: "INPUT_INVALID",
      message: /options\.remedyText/,
    });
    return new GuardCore(o);
  });
  assert.equal(guard.mode, "enforce");
});
