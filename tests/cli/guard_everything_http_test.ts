// deno-lint-ignore-file no-import-prefix -- the SDK is a test peer, pinned here
/**
 * Peers nobody here wrote (issue 13): the official SDK client over Streamable HTTP, through
 * `schemapin guard --listen`, to the published `server-everything` in `streamableHttp` mode,
 * for each protocol version the SDK negotiates. MCP 2025-11-25 servers open every POST event
 * stream with a priming event (an `id:` and an empty `data:`); the guard must pass it on
 * unchanged and never read its empty data as a message. Tools, calls with progress, cancellation,
 * resources, prompts, and a server → client request (sampling) for a client whose capabilities
 * have their own lock entry. `contract init`/`verify` run against the same server.
 */
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import {
  askProtocolVersion,
  guardArgv,
  type ListeningProcess,
  PROTOCOL_VERSIONS,
  readLog,
  runCliProcess,
  startEverythingHttp,
  startListening,
  withTempDir,
} from "../guard/helpers.ts";

async function startGuard(upstream: string, args: string[]): Promise<ListeningProcess> {
  return startListening(
    Deno.execPath(),
    await guardArgv(["--listen", "127.0.0.1:0", "--upstream", upstream, ...args]),
    /listening on (\S+)/,
    {},
    (m) => m[1],
    30_000,
  );
}

/**
 * An SDK client that asks for `version` in `initialize` (the SDK always asks for its newest;
 * the server answers with the version asked for when it supports it).
 */
async function connect(url: string, version: string, sampling = false): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  askProtocolVersion(transport, version);
  const client = new Client(
    { name: "guard-everything-test", version: "1.0.0" },
    { capabilities: sampling ? { sampling: {} } : {} },
  );
  if (sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      model: "test-model",
      role: "assistant",
      content: { type: "text", text: "sampled through the guard" },
    }));
  }
  await client.connect(transport);
  return client;
}

Deno.test({
  name: "guard --listen: SDK client ↔ server-everything (streamableHttp), every protocol version",
  // server-everything runs timers per session; the SDK client leaves fetches to be collected.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await withTempDir(async (dir) => {
      const everything = await startEverythingHttp("streamableHttp");
      let guard: ListeningProcess | undefined;
      try {
        // The contract client against the same server: pin, then verify unchanged.
        const init = await runCliProcess(
          ["contract", "init", "--http", `everything=${everything.url}`, "--no-snapshot"],
          { cwd: dir },
        );
        assert.equal(init.code, 0, init.stdout + init.stderr);
        // The same server pinned for clients that can sample (it then lists more tools).
        const initFull = await runCliProcess([
          "contract",
          "init",
          "--force",
          "--client-capabilities",
          "sampling",
          "--http",
          `everything-sampling=${everything.url}`,
          "--no-snapshot",
        ], { cwd: dir });
        assert.equal(initFull.code, 0, initFull.stdout + initFull.stderr);
        const verify = await runCliProcess(["contract", "verify"], { cwd: dir });
        assert.equal(verify.code, 0, verify.stdout + verify.stderr);
        assert.match(verify.stdout, /^ok +everything \(http\): \d+ unchanged/m);
        assert.match(verify.stdout, /^ok +everything-sampling \(http\): \d+ unchanged/m);

        guard = await startGuard(everything.url, [
          "--lock",
          `${dir}/contractpin.lock`,
          "--server",
          "everything",
          "--log",
          `${dir}/guard.log`,
        ]);
        for (const version of PROTOCOL_VERSIONS) {
          const direct = await connect(everything.url, version);
          const viaGuard = await connect(guard.url, version);
          try {
            assert.equal(viaGuard.getServerVersion()?.name, "mcp-servers/everything");
            const tools = await viaGuard.listTools();
            assert.deepEqual(tools, await direct.listTools(), version);
            assert.ok(tools.tools.some((t: { name: string }) => t.name === "echo"), version);

            const echo = await viaGuard.callTool({ name: "echo", arguments: { message: "hi" } });
            assert.deepEqual(echo.content, [{ type: "text", text: "Echo: hi" }], version);

            // Progress notifications travel on the call's event stream.
            const progress: number[] = [];
            const long = await viaGuard.callTool(
              { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 3 } },
              undefined,
              { onprogress: (p: { progress: number }) => progress.push(p.progress) },
            );
            assert.equal(long.isError ?? false, false, version);
            assert.deepEqual(progress, [1, 2, 3], version);

            const resources = await viaGuard.listResources();
            assert.deepEqual(resources, await direct.listResources(), version);
            const first = resources.resources[0];
            assert.deepEqual(
              await viaGuard.readResource({ uri: first.uri }),
              await direct.readResource({ uri: first.uri }),
              version,
            );
            const prompts = await viaGuard.listPrompts();
            assert.deepEqual(prompts, await direct.listPrompts(), version);
            assert.ok(prompts.prompts.length > 0, version);

            // Cancellation: the client gives up a long call; the session stays usable.
            const abort = new AbortController();
            const cancelled = viaGuard.callTool(
              { name: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 } },
              undefined,
              { signal: abort.signal, onprogress: () => abort.abort("enough") },
            ).then(() => "finished", () => "cancelled");
            assert.equal(await cancelled, "cancelled", version);
            const again = await viaGuard.callTool({ name: "echo", arguments: { message: "on" } });
            assert.deepEqual(again.content, [{ type: "text", text: "Echo: on" }], version);
          } finally {
            await viaGuard.close();
            await direct.close();
          }

          // A server → client request (sampling/createMessage) over HTTP, through the guard,
          // for a client whose capabilities have their own lock entry.
          const sampler = await connect(guard.url, version, true);
          try {
            const tools = await sampler.listTools();
            assert.ok(
              tools.tools.some((t: { name: string }) => t.name === "trigger-sampling-request"),
            );
            const sampled = await sampler.callTool({
              name: "trigger-sampling-request",
              arguments: { prompt: "hi", maxTokens: 10 },
            });
            assert.match(JSON.stringify(sampled.content), /sampled through the guard/, version);
          } finally {
            await sampler.close();
          }
        }
      } finally {
        await guard?.stop();
        await everything.stop();
      }
      const log = await readLog(`${dir}/guard.log`);
      assert.ok(log.some((l) => l.decision === "list_allowed"), JSON.stringify(log));
      // Only the standing GET streams end in failure, when the guard stops.
      const failures = log.filter((l) =>
        l.decision === "server_failed" && !/the guard is stopping/.test(String(l.message))
      );
      assert.deepEqual(failures, []);
    });
  },
});
