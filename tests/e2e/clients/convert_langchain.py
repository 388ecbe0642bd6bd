"""langchain-mcp-adapters: a `MultiServerMCPClient` stdio connection, its `session()` and
`load_mcp_tools(session)` (its documented way to keep one server for a run): LangChain
StructuredTools; a chat model's `bind_tools` then turns each into the request's form with
`convert_to_openai_tool`, done here per tool; in dynamic mode search_tools is invoked as an agent
invokes a tool. No model is called."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from common import CALL_ARGUMENTS, CALL_TOOL, error_text, main
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools


async def convert(command: str, env: Mapping[str, str], errlog: str) -> dict[str, Any]:
    connection: Any = {"transport": "stdio", "command": command, "args": [], "env": dict(env)}
    client = MultiServerMCPClient({"api": connection})
    async with client.session("api") as session:
        tools = await load_mcp_tools(session)
        listed = (await session.list_tools()).tools
        search = [tool for tool in tools if tool.name == CALL_TOOL]
        called = str(await search[0].ainvoke(CALL_ARGUMENTS)) if search else None
    converted, failed = [], {}
    for tool in tools:
        try:
            converted.append(convert_to_openai_tool(tool)["function"]["name"])
        except (AttributeError, TypeError, ValueError, KeyError) as error:
            failed[tool.name] = error_text(error)
    report = {"listed": [tool.name for tool in listed], "converted": converted, "failed": failed}
    return report | ({"called": called} if called is not None else {})


if __name__ == "__main__":
    main(convert)
