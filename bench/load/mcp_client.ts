/**
 * A minimal MCP client over Streamable HTTP for the load scripts: raw `fetch` (keep-alive),
 * one session per {@linkcode McpSession}, the same code for the upstream directly and for the
 * guard in front of it, so the comparison measures the guard only.
 *
 * @module
 */

/** One MCP session (initialize, notifications/initialized, then calls). */
export class McpSession {
  #id = 0;
  #session: string | null = null;

  private constructor(readonly url: string, readonly client: Deno.HttpClient) {}

  /** Opens a session on `url`. */
  static async open(url: string, client: Deno.HttpClient): Promise<McpSession> {
    const s = new McpSession(url, client);
    await s.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "schemapin-load", version: "1.0.0" },
    });
    await s.notify("notifications/initialized");
    return s;
  }

  #headers(): Record<string, string> {
    return {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(this.#session ? { "mcp-session-id": this.#session } : {}),
    };
  }

  /** Sends a request; its result, or throws with the JSON-RPC error. */
  async request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = ++this.#id;
    const res = await fetch(this.url, {
      method: "POST",
      headers: this.#headers(),
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
      client: this.client,
    });
    this.#session ??= res.headers.get("mcp-session-id");
    const text = await res.text();
    const messages = (res.headers.get("content-type") ?? "").startsWith("text/event-stream")
      ? text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim())
        .filter((d) => d !== "").map((d) => JSON.parse(d))
      : text === ""
      ? []
      : [JSON.parse(text)].flat();
    const answer = messages.find((m) => m.id === id);
    if (!answer) throw new Error(`${method}: HTTP ${res.status}, no answer: ${text.slice(0, 200)}`);
    if (answer.error) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
    return answer.result;
  }

  /** Sends a notification. */
  async notify(method: string): Promise<void> {
    const res = await fetch(this.url, {
      method: "POST",
      headers: this.#headers(),
      body: JSON.stringify({ jsonrpc: "2.0", method }),
      client: this.client,
    });
    await res.body?.cancel();
  }

  /** Ends the session. */
  async close(): Promise<void> {
    if (!this.#session) return;
    const res = await fetch(this.url, {
      method: "DELETE",
      headers: this.#headers(),
      client: this.client,
    }).catch(() => undefined);
    await res?.body?.cancel();
  }
}

/** What a run of calls measured. */
export interface CallsResult {
  callsPerSecond: number;
  p50: number;
  p99: number;
  calls: number;
  failures: number;
}

/**
 * `sessions` sessions on `url`, each calling `echo` in a loop for `seconds`: calls per second
 * (all sessions) and latency percentiles (ms).
 */
export async function runCalls(
  url: string,
  sessions: number,
  seconds: number,
): Promise<CallsResult> {
  const client = Deno.createHttpClient({});
  try {
    const all = await Promise.all(
      Array.from({ length: sessions }, () => McpSession.open(url, client)),
    );
    for (const s of all) await s.request("tools/list", {}); // the guard checks the list once
    const latencies: number[] = [];
    let failures = 0;
    const start = performance.now();
    const end = start + seconds * 1000;
    await Promise.all(all.map(async (s, i) => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await s.request("tools/call", { name: "echo", arguments: { message: `hi ${i}` } });
          latencies.push(performance.now() - t);
        } catch {
          failures++;
        }
      }
    }));
    const elapsed = (performance.now() - start) / 1000;
    await Promise.all(all.map((s) => s.close()));
    latencies.sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN;
    return {
      callsPerSecond: Math.round(latencies.length / elapsed),
      p50: Number(pct(0.5).toFixed(1)),
      p99: Number(pct(0.99).toFixed(1)),
      calls: latencies.length,
      failures,
    };
  } finally {
    client.close();
  }
}
