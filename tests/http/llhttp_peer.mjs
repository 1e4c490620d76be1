// The reference of tests/http/framing_differential_test.ts: a node:http server (Node's llhttp,
// default options, no listeners beyond "request") that answers every request it frames with its
// method, target and body, and prints it on stdout as JSON lines keyed by its connection:
// {"open": …} with the client's port when a connection comes, {"head": …} when llhttp has framed the head (node emits "request" during the parse, even when
// bytes after it fail the parse and node drops the request before its body ends), {"end": …}
// with the body when the request is complete. Run by the machine's node (or SCHEMAPIN_NODE22);
// prints "listening PORT" first.
import http from "node:http";

let next = 0;
let nextConnection = 0;
const connections = new WeakMap();
const server = http.createServer((req, res) => {
  const id = next++;
  const conn = connections.get(req.socket);
  const head = { id, conn, port: req.socket.remotePort, method: req.method, target: req.url };
  process.stdout.write(JSON.stringify({ head }) + "\n");
  const parts = [];
  req.on("data", (d) => parts.push(d));
  req.on("end", () => {
    const record = { ...head, body: Buffer.concat(parts).toString("base64") };
    const text = JSON.stringify(record);
    process.stdout.write(JSON.stringify({ end: record }) + "\n");
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
  });
});
// Each connection gets an id, announced with the client's port before anything it frames.
server.on("connection", (socket) => {
  const conn = nextConnection++;
  connections.set(socket, conn);
  process.stdout.write(JSON.stringify({ open: { conn, port: socket.remotePort } }) + "\n");
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
