// deno-lint-ignore-file no-import-prefix -- the SDK is a test peer, pinned here
/**
 * `guard --listen … --upstream …/sse` in front of a legacy HTTP+SSE server (MCP 2024-11-05):
 * the official SDK's SSE client through the guard to the published server-everything in `sse`
 * mode. The transport is detected (or chosen with --upstream-transport sse); an unchanged server
 * works as without the guard, and a lock that does not match gets the refusal.
 */
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { SSEClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/sse.js";
import { CreateMessageRequestSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import {
  guardArgv,
  type ListeningProcess,
  readLog,
  runCliProcess,
  startEverythingHttp,
  startListening,
  withTempDir,
} from "../guard/helpers.ts";

async function startGuard(upstream: string, args: string[]): Promise<ListeningProcess> {
  return await startListening(
    Deno.execPath(),
    await guardArgv(["--listen", "127.0.0.1:0", "--upstream", upstream, ...args]),
    /listening on (\S+) \(upstream [^,]+, legacy HTTP\+SSE\)/,
    {},
    (m) => m[1],
    30_000,
  );
}

async function connect(url: string, sampling = false): Promise<Client> {
  const client = new Client(
    { name: "guard-legacy-test", version: "1.0.0" },
    { capabilities: sampling ? { sampling: {} } : {} },
  );
  if (sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      model: "test-model",
      role: "assistant",
      content: { type: "text", text: "sampled over legacy SSE" },
    }));
  }
  await client.connect(new SSEClientTransport(new URL(url)));
  return client;
}

Deno.test({
  name: "guard --listen (legacy HTTP+SSE): SDK SSE client ↔ server-everything sse; drift refused",
  sanitizeOps: false, // the SDK's EventSource is collected after close
  sanitizeResources: false,
  async fn() {
    const everything = await startEverythingHttp("sse");
    try {
      await withTempDir(async (dir) => {
        const lock = `${dir}/contractpin.lock`;
        const init = await runCliProcess([
          "contract",
          "init",
          "--lock",
          lock,
          "--no-snapshot",
          "--sse",
          `everything=${everything.url}`,
        ]);
        assert.equal(init.code, 0, init.stdout + init.stderr);

        for (const args of [[], ["--upstream-transport", "sse"]]) {
          const guard = await startGuard(everything.url, [
            "--lock",
            lock,
            "--server",
            "everything",
            "--log",
            `${dir}/guard.log`,
            ...args,
          ]);
          try {
            const direct = await connect(everything.url);
            const viaGuard = await connect(guard.url);
            assert.deepEqual(await viaGuard.listTools(), await direct.listTools());
            const echo = await viaGuard.callTool({ name: "echo", arguments: { message: "hi" } });
            assert.deepEqual(echo.content, [{ type: "text", text: "Echo: hi" }]);
            assert.deepEqual(await viaGuard.listPrompts(), await direct.listPrompts());
            await viaGuard.close();
            await direct.close();
          } finally {
            await guard.stop();
          }
        }

        // A client that can sample, calling before it lists: the guard lists over a session of
        // its own with the client's capabilities, checks against the entry pinned for them,
        // and relays the server's sampling request and the client's answer.
        const pinSampling = await runCliProcess([
          "contract",
          "init",
          "--force",
          "--lock",
          lock,
          "--no-snapshot",
          "--client-capabilities",
          "sampling",
          "--sse",
          `everything-sampling=${everything.url}`,
        ]);
        assert.equal(pinSampling.code, 0, pinSampling.stdout + pinSampling.stderr);
        const samplingGuard = await startGuard(everything.url, [
          "--lock",
          lock,
          "--server",
          "everything",
          "--log",
          `${dir}/sampling.log`,
        ]);
        try {
          const sampler = await connect(samplingGuard.url, true);
          const sampled = await sampler.callTool({
            name: "trigger-sampling-request",
            arguments: { prompt: "hi", maxTokens: 10 },
          });
          assert.match(JSON.stringify(sampled.content), /sampled over legacy SSE/);
          await sampler.close();
        } finally {
          await samplingGuard.stop();
        }

        // A lock that pins another contract for echo: the list is refused, and so are calls
        // (also a call made before any list: the guard lists over a session of its own).
        const text = await Deno.readTextFile(lock);
        const changed = JSON.parse(text);
        changed.servers.everything.tools.echo.digest = "sha256:" + "0".repeat(64);
        await Deno.writeTextFile(`${dir}/drift.lock`, JSON.stringify(changed, null, 2));
        const guard = await startGuard(everything.url, [
          "--lock",
          `${dir}/drift.lock`,
          "--server",
          "everything",
          "--log",
          `${dir}/drift.log`,
        ]);
        try {
          const first = await connect(guard.url);
          const call = await first.callTool({ name: "echo", arguments: { message: "x" } })
            .then(() => null, (e: { code: number }) => e);
          assert.equal(call?.code, -32010, "call before any list refused");
          const list = await first.listTools().then(
            () => null,
            (e: { code: number; message: string }) => e,
          );
          assert.equal(list?.code, -32010);
          assert.match(list!.message, /drifted: echo/);
          await first.close();
        } finally {
          await guard.stop();
        }
        const log = await readLog(`${dir}/drift.log`);
        assert.ok(log.some((l) => l.decision === "call_refused"), JSON.stringify(log));
      });
    } finally {
      await everything.stop();
    }
  },
});
