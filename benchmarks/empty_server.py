"""The floor: an MCP server with the same SDK and no work of its own, over stdio.

`python -m benchmarks.empty_server` lists no tools; `--noop` lists one tool, `noop`, whose call returns
`{}` as structured content and text at once (what a generated tool returns, minus the API call).
`--http PORT` serves streamable HTTP at 127.0.0.1:PORT/mcp instead, as a generated server does."""

from __future__ import annotations

import sys
from typing import Any

NOOP_TOOL = {
    "name": "noop",
    "description": "Does nothing.",
    "inputSchema": {"type": "object"},
    "outputSchema": {"type": "object"},
}


def build(with_noop: bool) -> Any:
    from mcp import types
    from mcp.server import Server

    tools = [types.Tool.model_validate(NOOP_TOOL)] if with_noop else []

    async def on_list_tools(ctx: object, params: object) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(text="{}")], structured_content={}, is_error=False
        )

    return Server("empty", version="1", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


async def serve(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(server: Any, port: int) -> None:
    import uvicorn

    uvicorn.run(
        server.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=port, log_level="warning"
    )


def main() -> None:
    import anyio

    args = sys.argv[1:]
    if "--http" in args:
        serve_http(build("--noop" in args), int(args[args.index("--http") + 1]))
        return
    anyio.run(serve, build("--noop" in args))


if __name__ == "__main__":
    main()
