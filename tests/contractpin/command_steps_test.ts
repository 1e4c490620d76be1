// The steps of the contract commands that a library caller needs too (lib/contractpin): the
// names approve may approve, the files it rewrites, the approve commands of a verify report,
// the report format, the one server of a dump, what digest digests and the config host.
import assert from "node:assert/strict";
import { isUsageError, SchemaPinError } from "../../lib/errors.ts";
import { approveTargets } from "../../cli/contractpin/approve_text.ts";
import { reportApproveCommands } from "../../cli/contractpin/approve_commands.ts";
import { approveLock } from "../../cli/contractpin/approve_lock.ts";
import { finishReport, type ServerReport } from "../../lib/contractpin/report.ts";
import { reportFormat } from "../../cli/contractpin/report_format.ts";
import { oneServerTarget, serversFromSpecs } from "../../cli/contractpin/server_specs.ts";
import { digestSubjectOf } from "../../cli/contractpin/digest_subject.ts";
import { processConfigHost } from "../../cli/mcp_config/variables.ts";
import type { ContractFiles } from "../../lib/contractpin/files.ts";

/** Asserts that `f` throws a usage error whose message is `message`. */
function assertUsage(f: () => unknown, message: string): void {
  assert.throws(f, (e) => isUsageError(e) && (e as Error).message === message);
}

Deno.test("approveTargets: tools, then prompts, resources, templates and instructions", () => {
  assert.deepEqual(
    approveTargets({
      tool: ["fetch"],
      prompt: ["p"],
      resource: ["file:///r"],
      resource_template: ["file:///{x}"],
      instructions: true,
    }),
    {
      tools: ["fetch"],
      others: [
        { kind: "prompt", key: "p" },
        { kind: "resource", key: "file:///r" },
        { kind: "resource_template", key: "file:///{x}" },
        { kind: "instructions", key: "instructions" },
      ],
    },
  );
  assert.deepEqual(approveTargets({}), { tools: [], others: [] });
});

Deno.test("approveTargets: an empty name is a usage error naming its option", () => {
  assertUsage(() => approveTargets({ tool: ["a", ""] }), "--tool needs a tool name");
  assertUsage(() => approveTargets({ prompt: [""] }), "--prompt needs a prompt name");
  assertUsage(() => approveTargets({ resource: [""] }), "--resource needs a resource URI");
  assertUsage(
    () => approveTargets({ resource_template: [""] }),
    "--resource-template needs a URI template",
  );
});

const NO_FILES: ContractFiles = {
  read: (path) => Promise.reject(new SchemaPinError("IO_FAILED", `cannot read ${path}`)),
  exists: () => Promise.resolve(false),
  write: () => Promise.reject(new Error("nothing may be written")),
};

Deno.test("approveLock: the lock and the snapshot must be files (rewritten in place)", async () => {
  for (
    const [request, message] of [
      [{ lockPath: "-" }, "--lock must name a file (approve rewrites it in place)"],
      [{ lockPath: "" }, "--lock must name a file (approve rewrites it in place)"],
      [
        { lockPath: "c.lock", snapshot: "-" },
        "--snapshot must name a file (approve rewrites it in place)",
      ],
    ] as const
  ) {
    await assert.rejects(
      approveLock(request, NO_FILES),
      (e) => isUsageError(e) && (e as Error).message === message,
    );
  }
  // A file passes the check: the lock is then read (here it cannot be).
  await assert.rejects(
    approveLock({ lockPath: "c.lock" }, NO_FILES),
    (e) => e instanceof SchemaPinError && e.code === "IO_FAILED" && !isUsageError(e),
  );
});

function server(name: string, over: Record<string, unknown>): ServerReport {
  return {
    name,
    status: "drift",
    tools: { drifted: [], added: [], removed: [], unchanged: 0 },
    hidden_text: [],
    ...over,
  } as unknown as ServerReport;
}

Deno.test("reportApproveCommands: one command per server with changes", () => {
  const report = finishReport("other.lock", false, null, [
    server("a", { tools: { drifted: [], added: ["t"], removed: ["u"], unchanged: 0 } }),
    server("b", { status: "match" }),
  ]);
  const commands = reportApproveCommands(report, { yes: false, snapshot: "s.json" });
  assert.deepEqual(commands.map((c) => c.server), ["a"]);
  assert.deepEqual(commands[0].argv.slice(3), [
    "--lock",
    "other.lock",
    "--snapshot",
    "s.json",
    "--server",
    "a",
    "--tool",
    "t",
    "--tool",
    "u",
  ]);
});

Deno.test("reportApproveCommands: nothing for a moved server; misuse is INPUT_INVALID", () => {
  const report = finishReport("contractpin.lock", false, null, [
    server("a", {
      identity_changed: true,
      tools: { drifted: [], added: ["t"], removed: [], unchanged: 0 },
    }),
  ]);
  assert.deepEqual(reportApproveCommands(report), []);
  assert.throws(
    () => reportApproveCommands(undefined as never),
    (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
  );
});

Deno.test("reportFormat: --format, --json, human by default", () => {
  assert.equal(reportFormat(undefined, false), "human");
  assert.equal(reportFormat(undefined, true), "json");
  assert.equal(reportFormat("json", true), "json");
  assert.equal(reportFormat("github", false), "github");
});

Deno.test("reportFormat: an unknown format, or --json with another one", () => {
  assertUsage(
    () => reportFormat("xml", false),
    "--format must be one of human, json, sarif, github (got xml)",
  );
  assertUsage(() => reportFormat("sarif", true), "--json and --format sarif contradict each other");
});

Deno.test("oneServerTarget: the server with its headers and client capabilities", () => {
  const target = oneServerTarget(serversFromSpecs({
    options: [
      { option: "header", value: "X-All: 1" },
      { option: "http", value: "s=https://mcp.example.com/mcp" },
      { option: "header", value: "X-Own: 2" },
    ],
    clientCapabilities: "roots",
  }));
  assert.equal(target.name, "s");
  assert.deepEqual(target.headers?.map((h) => h.name), ["X-All", "X-Own"]);
  assert.deepEqual(target.clientCapabilities, ["roots"]);
});

Deno.test("oneServerTarget: none, several, or a header without an HTTP server", () => {
  assertUsage(
    () => oneServerTarget(serversFromSpecs({ options: [] })),
    "no server given: give --server NAME -- CMD, --http NAME=URL, --sse NAME=URL or " +
      "--file NAME=PATH",
  );
  assertUsage(
    () =>
      oneServerTarget(serversFromSpecs({
        options: [
          { option: "http", value: "a=https://a.example.com/mcp" },
          { option: "file", value: "b=b.json" },
        ],
      })),
    "dumps one server at a time (got a, b)",
  );
  assertUsage(
    () =>
      oneServerTarget(serversFromSpecs({
        options: [{ option: "header", value: "X-All: 1" }, { option: "file", value: "b=b.json" }],
      })),
    "--header given but there is no HTTP server",
  );
});

Deno.test("digestSubjectOf: a saved list, one tool definition, or any value", () => {
  assert.equal(digestSubjectOf({}), "list");
  assert.equal(digestSubjectOf({ json: true }), "list");
  assert.equal(digestSubjectOf({ toolDefinition: true, canonical: true }), "tool");
  assert.equal(digestSubjectOf({ raw: true, json: true }), "raw");
});

Deno.test("digestSubjectOf: the options that do not go together", () => {
  assertUsage(
    () => digestSubjectOf({ toolDefinition: true, raw: true }),
    "--tool-definition and --raw exclude each other",
  );
  assertUsage(
    () => digestSubjectOf({ canonical: true }),
    "--canonical needs --tool-definition or --raw",
  );
  assertUsage(
    () => digestSubjectOf({ raw: true, canonical: true, json: true }),
    "--canonical prints bytes; it does not combine with --json",
  );
});

Deno.test("processConfigHost: the home folder of this process, never an empty one", () => {
  const windows = Deno.build.os === "windows";
  const name = windows ? "USERPROFILE" : "HOME";
  const before = Deno.env.get(name);
  try {
    Deno.env.set(name, "/home/tester");
    assert.deepEqual(processConfigHost(), { home: "/home/tester", windows });
    Deno.env.set(name, "");
    assert.deepEqual(processConfigHost(), { windows });
    Deno.env.delete(name);
    assert.deepEqual(processConfigHost(), { windows });
  } finally {
    if (before === undefined) Deno.env.delete(name);
    else Deno.env.set(name, before);
  }
});
