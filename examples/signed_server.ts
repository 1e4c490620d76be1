// deno-lint-ignore-file no-import-prefix -- the SDK is a test peer and example dependency, pinned here, not a library dependency
/**
 * An MCP server, built with the official TypeScript SDK, that signs its own tools with
 * SchemaPin so clients can run it behind `schemapin guard --signatures`.
 *
 * The tool definitions below are signed once at start-up with `signToolList`: each tool's
 * contract (name, description, inputSchema, outputSchema, annotations) gets a SchemaPin 1.4
 * signature document in `_meta["dev.schemapin/signature"]`, and the domain in
 * `_meta["dev.schemapin/domain"]`. The tools/list handler serves exactly the signed objects.
 *
 * Run it (the key is the publisher's private key; its public key is in the domain's
 * .well-known/schemapin.json):
 *
 *   deno run --allow-read --allow-env examples/signed_server.ts --key keys/private.pem \
 *     --domain example.com
 *
 * and guard it from the client side:
 *
 *   schemapin guard --signatures --domain example.com --discovery schemapin.json \
 *     --pin-store pins.json --trust-first-use -- \
 *     deno run --allow-read --allow-env examples/signed_server.ts --key … --domain example.com
 *
 * @module
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { Server } from "npm:@modelcontextprotocol/sdk@1.32.2/server/index.js";
import { StdioServerTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/server/stdio.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { signToolList } from "../lib/guard/signatures.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    key: { type: "string" },
    domain: { type: "string" },
    "expires-in-days": { type: "string" },
  },
});
if (!values.key || !values.domain) {
  console.error("usage: signed_server.ts --key PRIVATE.pem --domain D [--expires-in-days N]");
  Deno.exit(2);
}

/** The tools as the server author writes them: plain MCP tool definitions. */
const TOOLS = [
  {
    name: "get_forecast",
    title: "Weather forecast",
    description: "Get the weather forecast for a city, for the next 1-7 days.",
    inputSchema: {
      type: "object",
      properties: {
        city: { type: "string", description: "City name" },
        days: { type: "integer", minimum: 1, maximum: 7 },
      },
      required: ["city"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  {
    name: "add",
    description: "Add two numbers.",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
    outputSchema: {
      type: "object",
      properties: { sum: { type: "number" } },
      required: ["sum"],
    },
    annotations: { readOnlyHint: true },
  },
];

// Sign once at start-up. Re-sign whenever a definition changes (a changed contract without a
// new signature is exactly what the guard refuses).
const days = Number(values["expires-in-days"] ?? "30");
const { tools } = signToolList(TOOLS, Deno.readTextFileSync(values.key), {
  domain: values.domain,
  expiresAt: Date.now() + days * 86_400_000,
});

const server = new Server(
  { name: "schemapin-signed-example", version: "1.0.0" },
  { capabilities: { tools: {} } },
);
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }) as never);
server.setRequestHandler(
  CallToolRequestSchema,
  (request: { params: { name: string; arguments?: Record<string, unknown> } }) => {
    const args = request.params.arguments ?? {};
    if (request.params.name === "add") {
      const sum = Number(args.a) + Number(args.b);
      return {
        content: [{ type: "text", text: String(sum) }],
        structuredContent: { sum },
      } as never;
    }
    if (request.params.name === "get_forecast") {
      return {
        content: [{ type: "text", text: `${args.city}: sunny, 21 °C (example data)` }],
      } as never;
    }
    return {
      content: [{ type: "text", text: `unknown tool ${request.params.name}` }],
      isError: true,
    } as never;
  },
);

process.stdin.on("end", () => Deno.exit(0));
await server.connect(new StdioServerTransport());
