"""pydantic-ai: an `MCPToolset` over a FastMCP stdio transport in an `Agent`'s toolsets (its
documented way). The agent runs once on a `FunctionModel`, which is handed the tool definitions
exactly as a model request would carry them, and answers without calling a model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from common import main
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

TIMEOUT = 120.0  # seconds for one request: a large spec's first tools/list takes seconds


async def convert(command: str, env: Mapping[str, str], errlog: str) -> dict[str, Any]:
    seen: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.extend(tool.name for tool in info.function_tools)
        return ModelResponse(parts=[TextPart("done")])

    toolset = MCPToolset(
        StdioTransport(command=command, args=[], env=dict(env)), init_timeout=TIMEOUT, read_timeout=TIMEOUT
    )
    async with toolset:
        listed = await toolset.list_tools()
        await Agent(FunctionModel(model), toolsets=[toolset]).run("Which tools are there?")
    return {"listed": [tool.name for tool in listed], "converted": seen, "failed": {}}


if __name__ == "__main__":
    main(convert)
