"""The MCP client of the end-to-end tests: the protocol eras it speaks, its time limits, an async
test body run with a hard limit, and sessions over stdio (streamable HTTP: http_support.py)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest

LEGACY_VERSION = "2025-11-25"  # the initialize handshake
MODERN_VERSION = "2026-07-28"  # server/discover, what mcp.Client negotiates by default
# mcp.Client(mode=...) for each protocol era, and the version it must negotiate with our servers.
CLIENT_MODES = {"legacy": ("legacy", LEGACY_VERSION), "modern": ("auto", MODERN_VERSION)}
# A test once in each protocol era: its `mode` argument is a key of CLIENT_MODES.
MODES = pytest.mark.parametrize("mode", list(CLIENT_MODES))

CALL_TIMEOUT = 30.0  # seconds for one MCP request (read when a session starts: a test may patch it)
SESSION_TIMEOUT = 90.0  # seconds for one whole client session (start, handshake, calls, stop)

T = TypeVar("T")


def run_async(function: Callable[[], Awaitable[T]], timeout: float = SESSION_TIMEOUT) -> T:
    """Run an async test body with a hard time limit."""

    async def bounded() -> T:
        with anyio.fail_after(timeout):
            return await function()

    return anyio.run(bounded)


@asynccontextmanager
async def stdio_session(
    command: Path | str,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    mode: str = "auto",
    errlog: Path | None = None,
    cwd: Path | None = None,
) -> AsyncIterator[Any]:
    """mcp.Client over stdio. `env` is merged over the SDK's minimal default environment."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=str(command), args=list(args), env=dict(env or {}), cwd=cwd)
    with open(errlog or os.devnull, "a") as err:
        transport = stdio_client(params, errlog=err)
        async with Client(transport, mode=mode, read_timeout_seconds=CALL_TIMEOUT) as client:
            yield client


@asynccontextmanager
async def session_over(
    transport: str,
    target: str | Path,
    env: Mapping[str, str] | None = None,
    mode: str = "auto",
    errlog: Path | None = None,
    **options: Any,
) -> AsyncIterator[Any]:
    """mcp.Client over stdio (`target`: the server command, run with `env`) or streamable HTTP
    (`target`: the URL), with more Client `options` (elicitation_callback, extensions, ...)."""
    import httpx2
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client

    if transport == "http":
        async with httpx2.AsyncClient(timeout=CALL_TIMEOUT) as http:
            connection = streamable_http_client(str(target), http_client=http)
            async with Client(connection, mode=mode, read_timeout_seconds=CALL_TIMEOUT, **options) as client:
                yield client
        return
    params = StdioServerParameters(command=str(target), env=dict(env or {}))
    with open(errlog or os.devnull, "a") as err:
        connection = stdio_client(params, errlog=err)
        async with Client(connection, mode=mode, read_timeout_seconds=CALL_TIMEOUT, **options) as client:
            yield client


def text_of(result: Any) -> str:
    """All text blocks of a CallToolResult, joined."""
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")
