/**
 * The connection limits and the port from their text (cli/http/server_limits.ts): the values
 * in range, the defaults, and each value refused with the option it names. `serve` and `guard --listen`
 * report these as usage errors (tests/cli/serve_test.ts, tests/guard/listen_limits_test.ts).
 */
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { DEFAULT_SERVER_LIMITS } from "../../lib/http/server.ts";
import {
  listenPortFrom,
  serverLimitsFrom,
  type ServerLimitsText,
} from "../../cli/http/server_limits.ts";

Deno.test("serverLimitsFrom: nothing given is the defaults", () => {
  assert.deepEqual(serverLimitsFrom({}, false), DEFAULT_SERVER_LIMITS);
});

Deno.test("serverLimitsFrom: seconds become milliseconds; the bounds are accepted", () => {
  assert.deepEqual(
    serverLimitsFrom({
      "max-connections": "1000000",
      "handshake-timeout": "0.01",
      "header-timeout": "86400",
      "idle-timeout": "5",
      "request-timeout": "1.5",
      "min-request-rate": "1000000000",
      "request-grace": "2.5",
    }, true),
    {
      maxConnections: 1_000_000,
      handshakeTimeoutMs: 10,
      headerTimeoutMs: 86_400_000,
      idleTimeoutMs: 5000,
      requestTimeoutMs: 1500,
      minRequestRate: 1_000_000_000,
      requestGraceMs: 2500,
    },
  );
});

Deno.test("serverLimitsFrom: the minimum request rate is whole bytes a second; 0 turns it off", () => {
  assert.equal(DEFAULT_SERVER_LIMITS.minRequestRate, 500);
  assert.equal(DEFAULT_SERVER_LIMITS.requestGraceMs, 10_000);
  assert.equal(serverLimitsFrom({ "min-request-rate": "0" }, false).minRequestRate, 0);
  assert.equal(serverLimitsFrom({ "min-request-rate": "2048" }, false).minRequestRate, 2048);
  assert.equal(serverLimitsFrom({ "request-grace": "0.01" }, false).requestGraceMs, 10);
});

Deno.test("serverLimitsFrom: a value out of range is a usage error naming its option", () => {
  const cases: [ServerLimitsText, string][] = [
    [
      { "max-connections": "0" },
      '--max-connections must be a whole number from 1 to 1000000 (got "0")',
    ],
    [
      { "max-connections": "1e3" },
      '--max-connections must be a whole number from 1 to 1000000 (got "1e3")',
    ],
    [
      { "header-timeout": "0.001" },
      '--header-timeout must be a number of seconds from 0.01 to 86400 (got "0.001")',
    ],
    [
      { "idle-timeout": "86401" },
      '--idle-timeout must be a number of seconds from 0.01 to 86400 (got "86401")',
    ],
    [
      { "request-timeout": "-1" },
      '--request-timeout must be a number of seconds from 0.01 to 86400 (got "-1")',
    ],
    ...["-1", "1.5", "1000000001", "1e3", "", " 500", "500k"].map((
      rate,
    ): [ServerLimitsText, string] => [
      { "min-request-rate": rate },
      "--min-request-rate must be a whole number of bytes a second from 0 to 1000000000 " +
      `(got ${JSON.stringify(rate)})`,
    ]),
    [
      { "request-grace": "0" },
      '--request-grace must be a number of seconds from 0.01 to 86400 (got "0")',
    ],
    [
      { "request-grace": "10s" },
      '--request-grace must be a number of seconds from 0.01 to 86400 (got "10s")',
    ],
  ];
  for (const [values, message] of cases) {
    assert.throws(() => serverLimitsFrom(values, true), (e) => {
      assert.ok(e instanceof SchemaPinError);
      assert.equal(e.code, "INPUT_INVALID");
      assert.equal(e.message, message);
      assert.equal(e.details.usage, true);
      assert.equal(e.details.option, Object.keys(values)[0]);
      return true;
    });
  }
});

Deno.test("serverLimitsFrom: a handshake timeout without TLS is refused", () => {
  assert.throws(
    () => serverLimitsFrom({ "handshake-timeout": "5" }, false),
    (e) => e instanceof SchemaPinError && e.message === "--handshake-timeout applies to TLS only",
  );
});

Deno.test("serverLimitsFrom: arguments of the wrong type are INPUT_INVALID", () => {
  for (const [values, tls] of [[undefined, true], [null, true], [{}, "yes"]]) {
    assert.throws(
      () => serverLimitsFrom(values as never, tls as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID" && !e.details.usage,
    );
  }
});

Deno.test("listenPortFrom: 0 to 65535, or the fallback when not given", () => {
  assert.equal(listenPortFrom(undefined, 8443), 8443);
  assert.equal(listenPortFrom("0", 8443), 0);
  assert.equal(listenPortFrom("443", 8443), 443);
  assert.equal(listenPortFrom("65535", 8443), 65535);
});

Deno.test("listenPortFrom: text that is not a port is a usage error; misuse is not", () => {
  for (const text of ["", "-1", "65536", "8443.0", "0x10", "123456", " 80"]) {
    assert.throws(
      () => listenPortFrom(text, 8443),
      (e) =>
        e instanceof SchemaPinError && e.details.usage === true &&
        e.message === `--port ${JSON.stringify(text)} is not a port number (0–65535)`,
      text,
    );
  }
  for (const [text, fallback] of [[80, 8443], ["80", "8443"]]) {
    assert.throws(
      () => listenPortFrom(text as never, fallback as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID" && !e.details.usage,
    );
  }
});
