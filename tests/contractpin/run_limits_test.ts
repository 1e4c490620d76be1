// The run limits of a command line (cli/contractpin/run_limits.ts, runLimits): seconds to
// milliseconds, the defaults, and a usage error naming the option for anything but a positive
// number (a positive integer for pages and concurrency). The CLI reports that error as
// "<command>: --flag must be …" (exit 2; tests/cli/usage_before_network_test.ts runs it).
import assert from "node:assert/strict";
import { DEFAULT_CONCURRENCY } from "../../lib/contractpin/run.ts";
import { runLimits } from "../../cli/contractpin/run_limits.ts";
import { isUsageError } from "../../lib/errors.ts";
import {
  DEFAULT_MAX_PAGES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
} from "../../lib/mcp/session.ts";
import { VERSION } from "../../lib/version.ts";

Deno.test("runLimits: nothing given is the defaults and this release", () => {
  assert.deepEqual(runLimits({}), {
    startupTimeoutMs: DEFAULT_STARTUP_TIMEOUT_MS,
    requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
    maxPages: DEFAULT_MAX_PAGES,
    concurrency: DEFAULT_CONCURRENCY,
    clientVersion: VERSION,
  });
});

Deno.test("runLimits: seconds become milliseconds, fractions allowed", () => {
  const limits = runLimits({
    "startup-timeout": "0.5",
    timeout: "2",
    "max-pages": "3",
    concurrency: "1",
  });
  assert.equal(limits.startupTimeoutMs, 500);
  assert.equal(limits.requestTimeoutMs, 2000);
  assert.equal(limits.maxPages, 3);
  assert.equal(limits.concurrency, 1);
});

for (
  const [flag, value, message] of [
    ["timeout", "0", "--timeout must be a positive number (got 0)"],
    ["startup-timeout", "-1", "--startup-timeout must be a positive number (got -1)"],
    ["timeout", "soon", "--timeout must be a positive number (got soon)"],
    ["timeout", "Infinity", "--timeout must be a positive number (got Infinity)"],
    ["max-pages", "1.5", "--max-pages must be a positive integer (got 1.5)"],
    ["concurrency", "0", "--concurrency must be a positive integer (got 0)"],
  ] as const
) {
  Deno.test(`runLimits: --${flag} ${value} is a usage error`, () => {
    assert.throws(() => runLimits({ [flag]: value }), (e: unknown) => {
      assert.ok(isUsageError(e));
      assert.equal((e as Error).message, message);
      return true;
    });
  });
}
