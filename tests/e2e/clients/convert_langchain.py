"""langchain-mcp-adapters: `MultiServerMCPClient` with a stdio connection and `get_tools()` (its
documented way): LangChain StructuredTools; a chat model's `bind_tools` then turns each into the
request's form with `convert_to_openai_tool`, done here per tool. No model is called."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from common import error_text, main
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_mcp_adapters.client import MultiServerMCPClient


async def convert(command: str, env: Mapping[str, str], errlog: str) -> dict[str, Any]:
    connection: Any = {"transport": "stdio", "command": command, "args": [], "env": dict(env)}
    client = MultiServerMCPClient({"api": connection})
    tools = await client.get_tools()
    async with client.session("api") as session:
        listed = (await session.list_tools()).tools
    converted, failed = [], {}
    for tool in tools:
        try:
            converted.append(convert_to_openai_tool(tool)["function"]["name"])
        except (AttributeError, TypeError, ValueError, KeyError) as error:
            failed[tool.name] = error_text(error)
    return {"listed": [tool.name for tool in listed], "converted": converted, "failed": failed}


if __name__ == "__main__":
    main(convert)
