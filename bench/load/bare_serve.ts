/**
 * The baseline of bench/load/serve_load.ts: a bare `Deno.serve` over TLS that answers every
 * request with the same bytes and headers `schemapin serve` sends for the discovery document
 * (and the revocation document at its path).
 *
 *   deno run --allow-net --allow-read bench/load/bare_serve.ts CERT KEY DISCOVERY REVOCATION
 *
 * Prints `listening on https://127.0.0.1:PORT/` on stderr.
 *
 * @module
 */
const [certFile, keyFile, discoveryFile, revocationFile] = Deno.args;
const docs = new Map<string, { bytes: Uint8Array; cache: string }>([
  ["/.well-known/schemapin.json", {
    bytes: await Deno.readFile(discoveryFile),
    cache: "public, max-age=300",
  }],
  ["/.well-known/schemapin-revocations.json", {
    bytes: await Deno.readFile(revocationFile),
    cache: "no-cache",
  }],
]);
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  cert: await Deno.readTextFile(certFile),
  key: await Deno.readTextFile(keyFile),
  onListen: ({ port }) => console.error(`listening on https://127.0.0.1:${port}/`),
}, (request) => {
  const doc = docs.get(new URL(request.url).pathname);
  if (!doc) return new Response("not found\n", { status: 404 });
  return new Response(doc.bytes.slice(), {
    headers: {
      "x-content-type-options": "nosniff",
      "content-type": "application/json; charset=utf-8",
      "cache-control": doc.cache,
      etag: '"0123456789abcdef0123456789abcdef"',
      "content-length": String(doc.bytes.length),
    },
  });
});
await server.finished;
