// What sign-tools signs, without the CLI (cli/guard/sign_tools.ts): the source of the tools
// checked (a server with its command, or a file), the tools listed from a saved tools/list
// or stdin, a server that cannot start a ServerFailure, and the documents' options.
import assert from "node:assert/strict";
import { isUsageError } from "../../lib/errors.ts";
import { ServerFailure } from "../../lib/mcp/errors.ts";
import {
  checkToolsSource,
  listToolsToSign,
  toolListSignOptions,
} from "../../cli/guard/sign_tools.ts";
import { rejectsWith, throwsWith } from "../schema_pin_error.ts";

const noStdin = () => Promise.reject(new Error("stdin must not be read"));

Deno.test("checkToolsSource: a server with a command, or a file without one", () => {
  checkToolsSource({ server: "acme", command: ["node", "server.js"] });
  checkToolsSource({ file: "tools.json", command: [] });
  checkToolsSource({ file: "-", command: [] });
});

Deno.test("checkToolsSource: neither, both, a server without a command, a file with one", () => {
  const one = /^give exactly one of --server NAME -- CMD… and --file FILE$/;
  throwsWith(() => checkToolsSource({ command: [] }), "INPUT_INVALID", one);
  throwsWith(
    () => checkToolsSource({ server: "a", file: "t.json", command: ["x"] }),
    "INPUT_INVALID",
    one,
  );
  for (const command of [[], [""]]) {
    throwsWith(
      () => checkToolsSource({ server: "acme", command }),
      "INPUT_INVALID",
      /^--server acme needs the command after --$/,
    );
  }
  const e = throwsWith(
    () => checkToolsSource({ file: "t.json", command: ["node"] }),
    "INPUT_INVALID",
    /^a command after -- goes with --server$/,
  );
  assert.ok(isUsageError(e));
});

Deno.test("listToolsToSign: a saved tools/list, or stdin, named for messages", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/tools.json`, JSON.stringify({ tools: [{ name: "a" }] }));
    const got = await listToolsToSign({ file: `${dir}/tools.json`, command: [] }, {
      readStdin: noStdin,
    });
    assert.equal(got.where, `${dir}/tools.json`);
    assert.deepEqual(got.listing.tools, [{ name: "a" }]);
    const bytes = new TextEncoder().encode('{"tools":[{"name":"b"},{"name":"c"}]}');
    const stdin = await listToolsToSign({ file: "-", command: [] }, {
      readStdin: () => Promise.resolve(bytes),
    });
    assert.equal(stdin.where, "stdin");
    assert.equal(stdin.listing.tools.length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listToolsToSign: a missing or malformed file is refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await rejectsWith(
      listToolsToSign({ file: `${dir}/none.json`, command: [] }, { readStdin: noStdin }),
      "IO_FAILED",
    );
    await Deno.writeTextFile(`${dir}/bad.json`, '{"tool":[]}');
    await rejectsWith(
      listToolsToSign({ file: `${dir}/bad.json`, command: [] }, { readStdin: noStdin }),
      "INPUT_INVALID",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listToolsToSign: a server that cannot be started is a ServerFailure", async () => {
  await assert.rejects(
    () =>
      listToolsToSign({ server: "ghost", command: ["/nonexistent/schemapin-test-server"] }, {
        startupTimeoutMs: 5_000,
        readStdin: noStdin,
      }),
    (e) => e instanceof ServerFailure,
  );
});

Deno.test("toolListSignOptions: what is given, undefined left out", () => {
  assert.deepEqual(
    toolListSignOptions({ domain: "acme.example", signedAt: 1_000, signerKid: undefined }),
    { domain: "acme.example", signedAt: 1_000 },
  );
  assert.deepEqual(
    toolListSignOptions({
      domain: "acme.example",
      signedAt: 1_000,
      expiresAt: 2_000,
      signerKid: "k1",
      schemaVersion: "2.0",
    }),
    {
      domain: "acme.example",
      signedAt: 1_000,
      expiresAt: 2_000,
      signerKid: "k1",
      schemaVersion: "2.0",
    },
  );
});

Deno.test("toolListSignOptions: an empty key id or version tag is a usage error", () => {
  throwsWith(
    () => toolListSignOptions({ domain: "acme.example", signerKid: "" }),
    "INPUT_INVALID",
    /^--signer-kid is empty$/,
  );
  const e = throwsWith(
    () => toolListSignOptions({ domain: "acme.example", schemaVersion: "" }),
    "INPUT_INVALID",
    /^--schema-version is empty$/,
  );
  assert.ok(isUsageError(e));
});
