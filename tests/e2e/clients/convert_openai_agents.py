"""openai-agents: `MCPServerStdio` in an `Agent`'s `mcp_servers`, with
`mcp_config={"convert_schemas_to_strict": True}`; `Agent.get_mcp_tools` makes the FunctionTools a
run sends, and the Responses converter turns them into the request's tools. A schema that strict
mode cannot take falls back to non-strict silently: `not_strict` says which, with the reason
`ensure_strict_json_schema` gives. In dynamic mode search_tools is called as a run calls a function
tool. No model is called."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from agents import Agent, FunctionTool, RunContextWrapper
from agents.exceptions import UserError
from agents.mcp import MCPServerStdio
from agents.models.openai_responses import Converter
from agents.strict_schema import ensure_strict_json_schema
from agents.tool_context import ToolContext
from common import CALL_ARGUMENTS, CALL_TOOL, error_text, main

TIMEOUT = 120.0  # seconds for one request: a large spec's first tools/list takes seconds


def why_not_strict(schema: dict[str, Any]) -> str:
    """What the library's strict conversion says of the listed schema (it logs it at info level)."""
    attempt = copy.deepcopy(schema)
    attempt.setdefault("properties", {})
    try:
        ensure_strict_json_schema(attempt, _reject_open_objects=schema != {})
    except (UserError, ValueError, TypeError) as error:
        return error_text(error)
    return "(strict conversion succeeds on the listed schema)"


async def call(tools: list[Any]) -> str | None:
    """search_tools called as a run calls a function tool (None where the server has none)."""
    function = next((t for t in tools if isinstance(t, FunctionTool) and t.name == CALL_TOOL), None)
    if function is None:
        return None
    arguments = json.dumps(CALL_ARGUMENTS)
    context = ToolContext(None, tool_name=CALL_TOOL, tool_call_id="call-1", tool_arguments=arguments)
    return str(await function.on_invoke_tool(context, arguments))


async def convert(command: str, env: Mapping[str, str], errlog: str) -> dict[str, Any]:
    server = MCPServerStdio(
        params={"command": command, "args": [], "env": dict(env)},
        client_session_timeout_seconds=TIMEOUT,
    )
    async with server:
        agent = Agent(name="client", mcp_servers=[server], mcp_config={"convert_schemas_to_strict": True})
        tools = await agent.get_mcp_tools(RunContextWrapper(context=None))
        listed = await server.list_tools()
        called = await call(tools)
    Converter.convert_tools(tools, handoffs=[])  # the request's tools, as a run sends them
    schemas = {tool.name: tool.input_schema for tool in listed}
    functions = [tool for tool in tools if isinstance(tool, FunctionTool)]
    return {
        **({"called": called} if called is not None else {}),
        "listed": [tool.name for tool in listed],
        "converted": [tool.name for tool in functions],
        "failed": {},
        "strict": [tool.name for tool in functions if tool.strict_json_schema],
        "not_strict": {
            tool.name: why_not_strict(schemas[tool.name]) for tool in functions if not tool.strict_json_schema
        },
    }


if __name__ == "__main__":
    main(convert)
