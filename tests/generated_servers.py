"""A generated package's server built in the test's own process, as its server.py builds it."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import mcp


async def listed_tools(package: str, env: Mapping[str, str] | None = None) -> list[Any]:
    """The tools the server of `package` (importable from sys.path) lists over an in-process MCP
    client, with the settings `env` gives and a base URL nothing listens on."""
    server = importlib.import_module(f"{package}.server")
    settings = server.COMMAND.settings(dict(env or {}), base_url="http://127.0.0.1:9")
    tools = server.COMMAND.load_tools(settings)
    try:
        built = server.COMMAND.build_server(tools)
        async with mcp.Client(built) as client:
            return list((await client.list_tools()).tools)
    finally:
        await tools.aclose()
