"""The low-level MCP server of a generated package, answered by its ToolRuntime."""

from __future__ import annotations

import importlib.util
import os
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from . import request_meta, task_methods

if TYPE_CHECKING:
    from .. import tool_runtime as runtime

# --workers: the key every worker seals (and opens) confirmation.py's requestState with
STATE_KEY = "OPENAPI2MCP_REQUEST_STATE_KEY"


class ListedOnce:
    """Middleware: the first tools/list of each protocol version, tool list (a request's view,
    its enabled toolsets) and cursor goes through the SDK (which checks and shapes the result);
    every later one gets that same result. 256 are kept.

    Only a request's answer that lists tools is kept: a notification shaped like tools/list (no
    id, or an id the SDK reads as none, such as 1.5) gets no answer, and the SDK hands its
    middleware None for it; kept, that None would be every later session's tools/list."""

    def __init__(self, key: Callable[[Any], Any]) -> None:
        self.key = key
        self.answers: OrderedDict[Any, Any] = OrderedDict()

    async def __call__(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        if ctx.method != "tools/list" or ctx.request_id is None:
            return await call_next(ctx)
        params = {} if ctx.params is None else ctx.params
        cursor = params.get("cursor") if isinstance(params, Mapping) else False
        if cursor is not None and not isinstance(cursor, str):
            return await call_next(ctx)  # the SDK refuses it
        key = (ctx.protocol_version, self.key(ctx), cursor)
        if (kept := self.answers.get(key)) is not None:
            return kept
        answer = await call_next(ctx)
        if isinstance(answer, dict) and isinstance(answer.get("tools"), list):
            self.answers[key] = answer
            if len(self.answers) > 256:
                self.answers.popitem(last=False)
        return answer


def event_loop_options() -> dict[str, Any]:
    """anyio.run's asyncio options: uvloop's event loop where it is installed (a dependency on
    CPython outside Windows; about 0.2 ms less a stdio call), the standard loop elsewhere. uvicorn
    makes the same choice for HTTP (its `loop="auto"`)."""
    return {"use_uvloop": importlib.util.find_spec("uvloop") is not None}


def build_server(tools: runtime.ToolRuntime, name: str, version: str, title: str | None) -> Any:
    """The low-level MCP server whose handlers the runtime answers; its HTTP client closes at
    shutdown. With --dynamic-toolsets it advertises `tools.listChanged` and tells the client when
    enable_toolsets changed its list."""
    from mcp.server import NotificationOptions, Server

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            await tools.aclose()

    changing = tools.discovery.dynamic_toolsets
    handlers: dict[str, Any] = {}
    if changing:
        from mcp.server.subscriptions import (
            InMemorySubscriptionBus,
            ListenHandler,
            ToolsListChanged,
        )

        bus = InMemorySubscriptionBus()
        handlers["on_subscriptions_listen"] = ListenHandler(bus)

        async def list_changed(ctx: Any) -> None:
            if request_meta.modern(ctx):  # change notifications ride subscriptions/listen
                await bus.publish(ToolsListChanged())
            else:
                await ctx.session.send_tool_list_changed()

        tools.enabled.list_changed = list_changed

    class ToolServer(Server):  # type: ignore[misc,unused-ignore]
        def create_initialization_options(
            self,
            notification_options: NotificationOptions | None = None,
            experimental_capabilities: dict[str, dict[str, Any]] | None = None,
            extensions: dict[str, dict[str, Any]] | None = None,
        ) -> Any:
            options = notification_options or NotificationOptions(tools_changed=changing)
            made = super().create_initialization_options(
                options, experimental_capabilities, extensions
            )
            if tools.tasks is not None:  # 2025-11-25's (2026-07-28's is an extension)
                made.capabilities.tasks = task_methods.capability()
            return made

    with tools.mcp_log.deprecation_ignored():  # on_set_logging_level: older clients use it
        server = ToolServer(
            name,
            version=version,
            title=title,
            lifespan=lifespan,
            get_tool_input_schema=tools.input_schema,
            on_list_tools=tools.on_list_tools,  # type: ignore[arg-type]  # a dict result: the SDK takes it
            on_call_tool=tools.on_call_tool,  # type: ignore[arg-type]  # a task's dict too
            on_set_logging_level=tools.mcp_log.set_level,  # audit.py
            **handlers,
        )
    server.middleware.append(ListedOnce(tools.list_key))
    if tools.tasks is not None:
        task_methods.register(server, tools.on_call_tool, tools.tasks)
    if tools.settings.confirmation.scope != "none":  # confirmation.py's requestState, sealed
        from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

        shared = os.environ.get(STATE_KEY)
        security = (
            RequestStateSecurity(keys=[shared]) if shared else RequestStateSecurity.ephemeral()
        )
        server.middleware.append(RequestStateBoundary(security, default_audience=name))
    return server
