"""Milliseconds per tools/call of the Python MCP SDK 2.x client (mcp==2.3.0), direct or through
`schemapin guard`: docs/mcp-2026-07-28.md "Figures". Usage:
    python bench/python_mcp_calls.py auto|legacy N (URL | CMD ARGS...)
It connects, lists the tools once, then times N calls of the tool `add` of
tests/fixtures/python_mcp/server.py and prints one JSON line."""
import sys, json, asyncio, time
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
async def main():
    mode = sys.argv[1]; n = int(sys.argv[2]); target = sys.argv[3:]
    srv = target[0] if target[0].startswith("http") else StdioServerParameters(command=target[0], args=target[1:])
    async with Client(srv, mode=mode) as c:
        await c.list_tools()
        t = time.perf_counter()
        for i in range(n):
            await c.call_tool("add", {"a": i, "b": 1})
        dt = time.perf_counter() - t
        print(json.dumps({"mode": mode, "calls": n, "ms_per_call": round(dt * 1000 / n, 2)}))
asyncio.run(main())
