"""google-genai: an MCP `ClientSession` given as a tool (`tools=[session]`, its documented way).
`generate_content` hands such a config to `parse_config_for_mcp_sessions`, which lists the tools
and converts each with `mcp_to_gemini_tool`; both run here, the first per tool (so a failure names
its tool), the second whole, as a request would; in dynamic mode search_tools is called through the
adapter automatic function calling uses. No model is called."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from common import CALL_ARGUMENTS, CALL_TOOL, error_text, main
from google.genai import _extra_utils, _mcp_utils, types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def convert(command: str, env: Mapping[str, str], errlog: str) -> dict[str, Any]:
    params = StdioServerParameters(command=command, args=[], env=dict(env))
    with open(errlog, "a") as err:
        async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = (await session.list_tools()).tools
            converted, failed = [], {}
            for tool in listed:
                try:
                    declarations = _mcp_utils.mcp_to_gemini_tool(tool).function_declarations
                except (AttributeError, TypeError, ValueError, KeyError) as error:
                    failed[tool.name] = error_text(error)
                else:
                    converted += [declaration.name for declaration in declarations or ()]
            report = {"listed": [tool.name for tool in listed], "converted": converted, "failed": failed}
            if not failed:  # the whole config, as generate_content makes it
                config = types.GenerateContentConfig(tools=[session])
                parsed, adapters = await _extra_utils.parse_config_for_mcp_sessions(config)
                declared = [d.name for tool in parsed.tools for d in tool.function_declarations]
                assert declared == converted, "parse_config_for_mcp_sessions differs"
                if CALL_TOOL in adapters:  # automatic function calling's way to the session
                    call = types.FunctionCall(name=CALL_TOOL, args=CALL_ARGUMENTS)
                    result = await adapters[CALL_TOOL].call_tool(call)
                    report["called"] = "" if result.is_error else result.content[0].text
    return report


if __name__ == "__main__":
    main(convert)
