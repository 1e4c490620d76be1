// One mechanism for "how the operation was asked" mistakes: the library throws usageError
// (lib/errors.ts: INPUT_INVALID with details.usage), and the CLI's asUsage (cli/commands/command.ts)
// turns exactly those into usage errors of the command (exit 2), sync or async; every other
// error and every result passes through unchanged.
import assert from "node:assert/strict";
import { isUsageError, SchemaPinError, usageError } from "../../lib/errors.ts";
import { asUsage, describeError, UsageError } from "../../cli/commands/command.ts";

Deno.test("usageError: INPUT_INVALID with details.usage, the caller's details kept", () => {
  const e = usageError("--listen expects HOST:PORT", { option: "listen" });
  assert.ok(e instanceof SchemaPinError);
  assert.equal(e.code, "INPUT_INVALID");
  assert.deepEqual(e.details, { option: "listen", usage: true });
  assert.equal(isUsageError(e), true);
  // A caller's details cannot switch usage off.
  assert.equal(usageError("x", { usage: false }).details.usage, true);
});

Deno.test("isUsageError: other codes, other details, other errors are not usage errors", () => {
  assert.equal(isUsageError(new SchemaPinError("INPUT_INVALID", "bad file")), false);
  assert.equal(isUsageError(new SchemaPinError("IO_FAILED", "x", { usage: "yes" })), false);
  assert.equal(isUsageError(new UsageError("x")), false);
  assert.equal(isUsageError({ details: { usage: true } }), false);
  assert.equal(isUsageError(undefined), false);
});

Deno.test("asUsage: a usage mistake becomes a UsageError of the command (exit 2), sync and async", async () => {
  assert.throws(
    () =>
      asUsage("guard", () => {
        throw usageError("--listen expects HOST:PORT");
      }),
    (e) => e instanceof UsageError && e.message === "guard: --listen expects HOST:PORT",
  );
  await assert.rejects(
    asUsage("contract init", () => Promise.reject(usageError("no servers to pin"))),
    (e) => e instanceof UsageError && e.message === "contract init: no servers to pin",
  );
  assert.equal(describeError(new UsageError("guard: x")).code, 2);
});

Deno.test("asUsage: results and other errors pass through unchanged", async () => {
  assert.equal(asUsage("serve", () => 42), 42);
  assert.equal(await asUsage("serve", () => Promise.resolve("ok")), "ok");
  const io = new SchemaPinError("IO_FAILED", "cannot read lock");
  assert.throws(() =>
    asUsage("serve", () => {
      throw io;
    }), (e) => e === io);
  await assert.rejects(asUsage("serve", () => Promise.reject(io)), (e) => e === io);
  const bug = new TypeError("bug");
  assert.throws(() =>
    asUsage("serve", () => {
      throw bug;
    }), (e) => e === bug);
});
