// A minimal MCP server over stdio for the README's operator path, in plain JavaScript (Node.js,
// no packages): it answers initialize and ping, and lists the tools of the JSON file named by its
// first argument ({"tools": [...]}, read again at every tools/list, so editing the file is the
// server "changing its tools"). Anything else gets JSON-RPC error -32601.
//
//   node files-server.mjs tools.json
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const toolsFile = process.argv[2] ?? "tools.json";
const send = (message) =>
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() === "") return;
  const request = JSON.parse(line);
  if (request.id === undefined) return; // a notification
  const { id, method, params } = request;
  if (method === "initialize") {
    send({
      id,
      result: {
        protocolVersion: params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "files", version: "1.0.0" },
      },
    });
  } else if (method === "ping") {
    send({ id, result: {} });
  } else if (method === "tools/list") {
    send({ id, result: { tools: JSON.parse(readFileSync(toolsFile, "utf8")).tools } });
  } else {
    send({ id, error: { code: -32601, message: `method not found: ${method}` } });
  }
});
