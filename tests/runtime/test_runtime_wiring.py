"""wiring.py: tools/list from a constant, shaped by the SDK once per protocol version."""

from __future__ import annotations

from typing import Any

import mcp
import pytest

from .conftest import Make, mcp_server, template_module
from .test_runtime_requests import DATA

wiring = template_module("wiring")
pytestmark = [pytest.mark.timeout(120)]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_tools_list_is_shaped_by_the_sdk_once_per_protocol_version(
    make_runtime: Make, mode: str
) -> None:
    tools = make_runtime(DATA)
    handled = []
    original = tools.on_list_tools

    async def counting(ctx: Any, params: Any) -> Any:
        handled.append(ctx.protocol_version)
        return await original(ctx, params)

    tools.on_list_tools = counting
    server = mcp_server(tools)
    for _ in range(2):
        async with mcp.Client(server, mode=mode) as client:
            first, second = await client.list_tools(), await client.list_tools()
            assert first == second
            assert [t.name for t in first.tools] == [t["name"] for t in DATA["tools"]]
            assert first.tools[0].input_schema == DATA["tools"][0]["inputSchema"]
    assert len(handled) == 1
    cached = next(iter(server.middleware[-1].answers.values()))
    assert [t["name"] for t in cached["tools"]] == [t["name"] for t in DATA["tools"]]


@pytest.mark.anyio
async def test_other_requests_pass_through_the_middleware() -> None:
    listed = wiring.ListedOnce(lambda ctx: None)
    seen = []

    async def call_next(ctx: Any) -> Any:
        seen.append(ctx.method)
        return {"n": len(seen)}

    class Ctx:
        method, protocol_version = "tools/call", "2025-11-25"

    assert await listed(Ctx(), call_next) == {"n": 1}
    assert await listed(Ctx(), call_next) == {"n": 2}
    assert listed.answers == {}
