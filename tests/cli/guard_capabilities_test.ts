// deno-lint-ignore-file no-import-prefix -- the SDK is a test peer, pinned here
/**
 * Client capabilities change the tool list (issue 13 §3): server-everything lists 13 tools to
 * a client without capabilities and 16 to one that announces roots, sampling and elicitation.
 * `contract init --client-capabilities` pins each way; the guard checks every client against
 * the entry pinned for its own capabilities, relays server → client requests (sampling,
 * elicitation, roots) both ways, and without a matching entry refuses with the remedy.
 */
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import {
  askProtocolVersion,
  guardArgv,
  PROTOCOL_VERSIONS,
  readLog,
  runCliProcess,
  withTempDir,
} from "../guard/helpers.ts";
import { EVERYTHING_PACKAGE } from "../contractpin/helpers.ts";
import { childEnv } from "../process.ts";

const SERVER = ["npx", "-y", EVERYTHING_PACKAGE];
const FULL = ["roots", "sampling", "elicitation"];

/** The SDK client through the guard, announcing `capabilities` (with handlers for each). */
async function connect(
  lock: string,
  log: string,
  capabilities: string[],
  version?: string,
): Promise<Client> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      ...(await guardArgv(["--lock", lock, "--server", "everything", "--log", log])),
      "--",
      ...SERVER,
    ],
    env: childEnv({ ...Deno.env.toObject(), NO_COLOR: "1" }),
    stderr: "pipe",
  });
  if (version) askProtocolVersion(transport, version);
  const caps: Record<string, object> = {};
  for (const c of capabilities) caps[c] = {};
  const client = new Client({ name: "guard-caps-test", version: "1.0.0" }, { capabilities: caps });
  if (capabilities.includes("roots")) {
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: [{ uri: "file:///tmp/project", name: "project" }],
    }));
  }
  if (capabilities.includes("sampling")) {
    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      model: "test-model",
      role: "assistant",
      content: { type: "text", text: "sampled by the test client" },
    }));
  }
  if (capabilities.includes("elicitation")) {
    client.setRequestHandler(ElicitRequestSchema, () => ({
      action: "accept",
      content: { color: "red", name: "Ada" },
    }));
  }
  await client.connect(transport);
  return client;
}

async function refusal(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code: number; message: string };
  }
  throw new Error("expected a refusal");
}

Deno.test({
  name: "guard: each client is checked against the lock entry pinned for its capabilities",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await withTempDir(async (dir) => {
      const lock = `${dir}/contractpin.lock`;
      const log = `${dir}/guard.log`;
      const plain = await runCliProcess(
        [
          "contract",
          "init",
          "--lock",
          lock,
          "--no-snapshot",
          "--server",
          "everything",
          "--",
          ...SERVER,
        ],
        { env: { DENO_NO_UPDATE_CHECK: "1" } },
      );
      assert.equal(plain.code, 0, plain.stdout + plain.stderr);

      // Only the plain entry: a client with capabilities sees 3 more tools → refused, with
      // the remedy that names --client-capabilities.
      const early = await connect(lock, log, FULL);
      try {
        const err = await refusal(early.listTools());
        assert.equal(err.code, -32010);
        assert.match(err.message, /added: /);
        assert.match(err.message, /--client-capabilities elicitation,roots,sampling/);
      } finally {
        await early.close();
      }

      const full = await runCliProcess([
        "contract",
        "init",
        "--force",
        "--lock",
        lock,
        "--no-snapshot",
        "--client-capabilities",
        FULL.join(","),
        "--server",
        "everything-full",
        "--",
        ...SERVER,
      ]);
      assert.equal(full.code, 0, full.stdout + full.stderr);
      const pinned = JSON.parse(await Deno.readTextFile(lock)).servers;
      assert.equal(pinned.everything.tool_count, 13);
      assert.equal(pinned["everything-full"].tool_count, 16);
      assert.deepEqual(pinned["everything-full"].client_capabilities, [
        "elicitation",
        "roots",
        "sampling",
      ]);
      const verify = await runCliProcess(["contract", "verify", "--lock", lock]);
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);

      const withCaps = await connect(lock, log, FULL);
      const without = await connect(lock, log, []);
      try {
        assert.equal((await withCaps.listTools()).tools.length, 16);
        assert.equal((await without.listTools()).tools.length, 13);

        // Server → client requests travel through the guard and back.
        const roots = await withCaps.callTool({ name: "get-roots-list", arguments: {} });
        assert.match(JSON.stringify(roots.content), /file:\/\/\/tmp\/project/);
        const sampled = await withCaps.callTool({
          name: "trigger-sampling-request",
          arguments: { prompt: "hi", maxTokens: 10 },
        });
        assert.match(JSON.stringify(sampled.content), /sampled by the test client/);
        const elicited = await withCaps.callTool({
          name: "trigger-elicitation-request",
          arguments: {},
        });
        assert.match(JSON.stringify(elicited.content), /Ada|red/);

        // The plain client cannot call a tool only the full entry pins.
        const err = await refusal(
          without.callTool({ name: "trigger-sampling-request", arguments: {} }),
        );
        assert.equal(err.code, -32010);
      } finally {
        await withCaps.close();
        await without.close();
      }
      // Over stdio, for each protocol version the SDK negotiates.
      for (const version of PROTOCOL_VERSIONS) {
        const client = await connect(lock, log, FULL, version);
        try {
          assert.equal(client.getServerVersion()?.name, "mcp-servers/everything", version);
          assert.equal((await client.listTools()).tools.length, 16, version);
          const echo = await client.callTool({ name: "echo", arguments: { message: version } });
          assert.deepEqual(echo.content, [{ type: "text", text: `Echo: ${version}` }]);
        } finally {
          await client.close();
        }
      }
      const records = await readLog(log);
      assert.ok(
        records.some((r) => /checking lock entry everything-full/.test(String(r.message))),
        JSON.stringify(records),
      );
    });
  },
});
