"""pydantic-ai: an `MCPToolset` over a FastMCP stdio transport in an `Agent`'s toolsets (its
documented way). The agent runs once on a `FunctionModel`, which is handed the tool definitions
exactly as a model request would carry them, and answers without calling a model; in dynamic mode it
asks for a search_tools call first, which the agent makes through the toolset."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from common import CALL_ARGUMENTS, CALL_TOOL, main
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

TIMEOUT = 120.0  # seconds for one request: a large spec's first tools/list takes seconds


async def convert(command: str, env: Mapping[str, str], errlog: str) -> dict[str, Any]:
    seen: list[str] = []
    returned: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """First the tools; where search_tools is one, a call of it, then its return."""
        if not seen:
            seen.extend(tool.name for tool in info.function_tools)
            if CALL_TOOL in seen:
                return ModelResponse(parts=[ToolCallPart(CALL_TOOL, CALL_ARGUMENTS)])
        parts = [part for m in messages if isinstance(m, ModelRequest) for part in m.parts]
        returned.extend(str(p.content) for p in parts if isinstance(p, ToolReturnPart))
        return ModelResponse(parts=[TextPart("done")])

    toolset = MCPToolset(
        StdioTransport(command=command, args=[], env=dict(env)), init_timeout=TIMEOUT, read_timeout=TIMEOUT
    )
    async with toolset:
        listed = await toolset.list_tools()
        await Agent(FunctionModel(model), toolsets=[toolset]).run("Which tools are there?")
    report = {"listed": [tool.name for tool in listed], "converted": seen, "failed": {}}
    return report | ({"called": returned[0] if returned else ""} if CALL_TOOL in seen else {})


if __name__ == "__main__":
    main(convert)
