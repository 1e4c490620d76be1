// What serve checks and logs without a server: the TLS files' PEM blocks (cli/http/tls_pem.ts)
// and the access-log line of an answered request (cli/http/static.ts accessLogLine).
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { checkTlsPem } from "../../cli/http/tls_pem.ts";
import { accessLogLine, respondStatic, staticDocument } from "../../cli/http/static.ts";

const CERT = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
const keyPem = (label: string) => `-----BEGIN ${label}-----\nMIIE\n-----END ${label}-----\n`;
const invalid = (message: string) => (e: unknown) =>
  e instanceof SchemaPinError && e.code === "INPUT_INVALID" && e.message === message;

Deno.test("tls pem: a certificate and an unencrypted key of each kind pass", () => {
  for (const label of ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"]) {
    checkTlsPem(CERT, keyPem(label), "--tls-cert c", "--tls-key k");
  }
});

Deno.test("tls pem: no certificate names the certificate file", () => {
  assert.throws(
    () => checkTlsPem(keyPem("PRIVATE KEY"), keyPem("PRIVATE KEY"), "--tls-cert c", "--tls-key k"),
    invalid("--tls-cert c holds no PEM certificate"),
  );
});

Deno.test("tls pem: an encrypted or public key, or a certificate, names the key file", () => {
  for (const key of [keyPem("ENCRYPTED PRIVATE KEY"), keyPem("PUBLIC KEY"), CERT, ""]) {
    assert.throws(
      () => checkTlsPem(CERT, key, "--tls-cert c", "--tls-key k"),
      invalid("--tls-key k holds no unencrypted PEM private key"),
    );
  }
});

Deno.test("access log: time, client, method, path as JSON, status, length", async () => {
  const routes = new Map([
    ["/.well-known/schemapin.json", staticDocument(new TextEncoder().encode("{}"), "no-cache")],
  ]);
  const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
  const request = new Request("https://h/.well-known/schemapin.json");
  const ok = respondStatic(routes, request);
  assert.equal(
    accessLogLine(request, "192.0.2.1", ok, at),
    `2026-01-02T03:04:05.000Z 192.0.2.1 GET "/.well-known/schemapin.json" 200 2\n`,
  );
  await ok.body?.cancel();
});

Deno.test("access log: a 404 and a 405 keep their status; no length is '-'", () => {
  const at = new Date(0);
  const missing = new Request('https://h/a%20"b');
  const line = accessLogLine(missing, "::1", respondStatic(new Map(), missing), at);
  assert.match(line, /^1970-01-01T00:00:00\.000Z ::1 GET "\/a%20%22b" 404 /);
  const routes = new Map([["/x", staticDocument(new Uint8Array(), "no-cache")]]);
  const post = new Request("https://h/x", { method: "POST" });
  assert.match(accessLogLine(post, "::1", respondStatic(routes, post), at), / POST "\/x" 405 /);
  const bare = new Response(null, { status: 204 });
  assert.equal(
    accessLogLine(new Request("https://h/"), "h", bare, at),
    `1970-01-01T00:00:00.000Z h GET "/" 204 -\n`,
  );
});
