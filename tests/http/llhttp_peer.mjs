// The reference of tests/http/framing_differential_test.ts: a node:http server (Node's llhttp,
// default options, no listeners beyond "request") that answers every request it frames with its
// method, target and body, and prints the same as one JSON line on stdout, keyed by the
// client's port. Run by the machine's node (or SCHEMAPIN_NODE22); prints "listening PORT".
import http from "node:http";

const server = http.createServer((req, res) => {
  const parts = [];
  req.on("data", (d) => parts.push(d));
  req.on("end", () => {
    const record = {
      port: req.socket.remotePort,
      method: req.method,
      target: req.url,
      body: Buffer.concat(parts).toString("base64"),
    };
    const text = JSON.stringify(record);
    process.stdout.write(text + "\n");
    res.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
