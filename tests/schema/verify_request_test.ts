// How a schema verification was asked for (cli/schema/verify_request.ts), without the CLI:
// which signature options go together, a tool id for the pin, and an inline Base64 signature
// told apart from a file name. Mistakes are usage errors (INPUT_INVALID, details.usage).
import assert from "node:assert/strict";
import { isUsageError } from "../../lib/errors.ts";
import { signSchemaBase64 } from "../../lib/schema/document.ts";
import {
  checkSchemaVerifyRequest,
  checkToolIdOption,
  inlineSignature,
  listVerifyBatch,
} from "../../cli/schema/verify_request.ts";
import { rejectsWith, throwsWith } from "../schema_pin_error.ts";
import { SIGNER, toolSchema } from "./_fixtures.ts";
import { withTempDir } from "../cli/run.ts";

const SIG = signSchemaBase64(toolSchema(), SIGNER);

Deno.test("checkSchemaVerifyRequest: a single schema with one signature, or a batch with none", () => {
  checkSchemaVerifyRequest({ schema: "tool.json", signature: "tool.json.sig" });
  checkSchemaVerifyRequest({ schema: "-", "signature-base64": SIG, "tool-id": "t" });
  checkSchemaVerifyRequest({ batch: "schemas" });
});

Deno.test("checkSchemaVerifyRequest: a batch refuses every per-schema option", () => {
  for (const k of ["signature", "signature-base64", "tool-id"] as const) {
    const e = throwsWith(
      () => checkSchemaVerifyRequest({ batch: "schemas", [k]: "x" }),
      "INPUT_INVALID",
      new RegExp(`^--${k} does not go with --batch$`),
    );
    assert.ok(isUsageError(e));
  }
});

Deno.test("checkSchemaVerifyRequest: a single schema needs exactly one signature, not both on stdin", () => {
  const one = /^give exactly one of --signature FILE and --signature-base64 B64$/;
  throwsWith(() => checkSchemaVerifyRequest({ schema: "t.json" }), "INPUT_INVALID", one);
  throwsWith(
    () => checkSchemaVerifyRequest({ schema: "t.json", signature: "s", "signature-base64": SIG }),
    "INPUT_INVALID",
    one,
  );
  const e = throwsWith(
    () => checkSchemaVerifyRequest({ schema: "-", signature: "-" }),
    "INPUT_INVALID",
    /^the schema and the signature cannot both be stdin$/,
  );
  assert.ok(isUsageError(e));
  throwsWith(
    () => checkSchemaVerifyRequest({ schema: "t.json", signature: "s", "tool-id": "" }),
    "INPUT_INVALID",
    /^--tool-id: the tool id is empty$/,
  );
});

Deno.test("checkToolIdOption: absent or usable passes; empty or control characters are refused", () => {
  checkToolIdOption(undefined);
  checkToolIdOption("calculate_sum");
  checkToolIdOption("a@b");
  throwsWith(() => checkToolIdOption(""), "INPUT_INVALID", /^--tool-id: the tool id is empty$/);
  const e = throwsWith(() => checkToolIdOption("a\nb"), "INPUT_INVALID", /^--tool-id: /);
  assert.ok(isUsageError(e));
});

Deno.test("inlineSignature: --signature-base64 is the signature; --signature is a file or the old inline form", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/tool.json.sig`, SIG);
    assert.deepEqual(await inlineSignature(SIG, undefined), { value: SIG, deprecated: false });
    assert.deepEqual(await inlineSignature(undefined, SIG), { value: SIG, deprecated: true });
    assert.deepEqual(await inlineSignature(undefined, `${dir}/tool.json.sig`), {
      deprecated: false,
    });
    assert.deepEqual(await inlineSignature(undefined, `${dir}/missing.sig`), {
      deprecated: false,
    });
    assert.deepEqual(await inlineSignature(undefined, undefined), { deprecated: false });
  });
});

Deno.test("inlineSignature: an empty --signature-base64 is a usage error", async () => {
  for (const value of ["", "  "]) {
    const e = await rejectsWith(
      inlineSignature(value, undefined),
      "INPUT_INVALID",
      /^--signature-base64 is empty$/,
    );
    assert.ok(isUsageError(e));
  }
});

Deno.test("inlineSignature: --signature-base64 naming a file is a usage error pointing at --signature", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/tool.json.sig`;
    Deno.writeTextFileSync(path, SIG);
    await rejectsWith(
      inlineSignature(path, undefined),
      "INPUT_INVALID",
      new RegExp(
        `^--signature-base64 takes the Base64 signature itself, and ${path} is a file; ` +
          `give --signature ${path}$`,
      ),
    );
  });
});

Deno.test("inlineSignature: --signature-base64 that is not Base64 names the offset", async () => {
  const e = await rejectsWith(
    inlineSignature("abc$def", undefined),
    "INPUT_INVALID",
    /^--signature-base64 is not Base64 \(.* at offset 3\); give the Base64 signature, or --signature FILE for a file$/,
  );
  assert.ok(isUsageError(e));
});

Deno.test("listVerifyBatch: the schemas matching the pattern; a signature folder that is one", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/a.json`, "{}");
    Deno.writeTextFileSync(`${dir}/b.txt`, "");
    Deno.mkdirSync(`${dir}/sigs`);
    assert.deepEqual((await listVerifyBatch(dir, "*.json", undefined)).files, ["a.json"]);
    assert.deepEqual((await listVerifyBatch(dir, "*.json", `${dir}/sigs`)).files, ["a.json"]);
  });
});

Deno.test("listVerifyBatch: a missing folder, a signature folder that is not one, a bad pattern", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/a.json`, "{}");
    await rejectsWith(listVerifyBatch(`${dir}/none`, "*.json", undefined), "IO_FAILED");
    await rejectsWith(
      listVerifyBatch(dir, "*.json", `${dir}/nosigs`),
      "IO_FAILED",
      /--signature-dir/,
    );
    await rejectsWith(
      listVerifyBatch(dir, "*.json", `${dir}/a.json`),
      "IO_FAILED",
      /--signature-dir/,
    );
    await rejectsWith(listVerifyBatch(dir, "a/*.json", undefined), "INPUT_INVALID");
  });
});
