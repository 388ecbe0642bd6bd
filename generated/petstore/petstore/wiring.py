"""The low-level MCP server of a generated package, answered by its ToolRuntime."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # mypy sees the siblings as top-level modules: `mypy --strict package/*.py`
    import runtime  # type: ignore[import-not-found,unused-ignore]


class ListedOnce:
    """Middleware: each protocol version's first tools/list goes through the SDK (which checks and
    shapes the result); every later one gets that same result."""

    def __init__(self) -> None:
        self.by_version: dict[str, Any] = {}

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        if ctx.method != "tools/list":
            return await call_next(ctx)
        version = ctx.protocol_version
        if version not in self.by_version:
            self.by_version[version] = await call_next(ctx)
        return self.by_version[version]


def build_server(tools: runtime.ToolRuntime, name: str, version: str, title: str | None) -> Any:
    """The low-level MCP server whose handlers the runtime answers; its HTTP client closes at shutdown."""
    from mcp.server import Server

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            await tools.aclose()

    server = Server(
        name,
        version=version,
        title=title,
        lifespan=lifespan,
        get_tool_input_schema=tools.input_schema,
        on_list_tools=tools.on_list_tools,  # type: ignore[arg-type]  # a dict result: the SDK takes it
        on_call_tool=tools.on_call_tool,
    )
    server.middleware.append(ListedOnce())
    return server
