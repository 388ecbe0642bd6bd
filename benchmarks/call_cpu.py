"""The runtime's own CPU per tool call, without the network: `ToolRuntime.on_call_tool` of a tool
whose HTTP exchange is replaced by a canned answer, median and minimum of 20,000 calls after 1,000
to warm up. For side-by-side runs of two trees (each with PYTHONPATH set to it), where the suite's
stdio and HTTP figures are dominated by the host's noise.

    PETSTORE_API_KEY_KEY=k python -m benchmarks.call_cpu \
        generated/petstore/petstore/data/tool_data.json listPets --prefix PETSTORE
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from typing import Any

import httpx2
import mcp.types as types

from openapi2mcp_runtime import tool_runtime as runtime
from openapi2mcp_runtime.results.responses import Upstream

ANSWER = Upstream(
    "GET",
    "http://127.0.0.1:9/",
    200,
    "OK",
    httpx2.Headers({"content-type": "application/json"}),
    b'[{"id":"1","name":"Rex"}]',
)


async def _canned(*args: Any, **kwargs: Any) -> Upstream:
    return ANSWER


async def measure(data: dict[str, Any], tool: str, prefix: str, calls: int = 20_000) -> list[float]:
    """Seconds of each call of `tool` (no arguments), the exchange answered by ANSWER; the
    settings (credentials) from the environment. SystemExit when the call is an error."""
    env = {**os.environ, f"{prefix}_BASE_URL": "http://127.0.0.1:9"}
    tools = runtime.ToolRuntime(data, runtime.Settings.from_env(env, prefix=prefix))
    tools.sender.send = _canned  # type: ignore[method-assign]
    params = types.CallToolRequestParams(name=tool, arguments={})
    try:
        first = await tools.on_call_tool(None, params)
        if not isinstance(first, types.CallToolResult) or first.is_error:
            raise SystemExit(f"{tool} is not measured: its call fails: {first}")
        for _ in range(1_000):
            await tools.on_call_tool(None, params)
        times = []
        for _ in range(calls):
            started = time.perf_counter()
            await tools.on_call_tool(None, params)
            times.append(time.perf_counter() - started)
        return times
    finally:
        await tools.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tool_data")
    parser.add_argument("tool")
    parser.add_argument("--prefix", default="API", help="the server's environment prefix")
    args = parser.parse_args()
    with open(args.tool_data, encoding="utf-8") as file:
        data = json.load(file)
    times = asyncio.run(measure(data, args.tool, args.prefix))
    median, least = statistics.median(times) * 1e6, min(times) * 1e6
    print(f"{args.tool}: median {median:.1f} us, minimum {least:.1f} us ({len(times)} calls)")


if __name__ == "__main__":
    main()
