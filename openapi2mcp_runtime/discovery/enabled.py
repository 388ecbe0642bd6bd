"""--dynamic-toolsets: the toolsets each session enabled (the stdio connection's, an HTTP
session's) on top of the first ones, enable_toolsets, and telling the client its tool list
changed (wiring.py sets how)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.types import CallToolResult

from ..results import responses as res
from . import meta_tools as mt
from . import views

MAX_SESSIONS = 10_000  # sessions whose enabled toolsets are kept (the least recent go first)


class EnabledToolsets:
    def __init__(self, catalog: mt.Catalog, first: frozenset[str]) -> None:
        self.catalog, self.first = catalog, first
        self._by_session: OrderedDict[str, frozenset[str]] = OrderedDict()
        self.list_changed: Callable[[Any], Awaitable[None]] | None = None

    def of(self, ctx: Any, view: views.View) -> frozenset[str]:
        """The toolsets enabled for the request's session, of those `view` offers."""
        first = self.first.intersection(self.catalog.toolsets_in(view.names))
        session = session_of(ctx)
        return first if session is None else self._by_session.get(session, first) | first

    async def enable(self, ctx: Any, view: views.View, names: list[str]) -> CallToolResult:
        """enable_toolsets: `names` added to the session's toolsets."""
        session = session_of(ctx)
        if session is None:
            return res.error_result(
                "This connection has no session to remember enabled toolsets in (a --stateless"
                " server, or the 2026-07-28 protocol over HTTP): choose toolsets with the"
                " X-MCP-Toolsets header or the URL /mcp/x/TOOLSETS instead."
            )
        offered = self.catalog.toolsets_in(view.names)
        if unknown := [name for name in names if name not in offered]:
            named = "; ".join(views.with_closest(name, offered) for name in unknown[:20])
            return res.error_result(f"Unknown toolset(s): {named}. Toolsets: {', '.join(offered)}")
        before = self.of(ctx, view)
        after = before | frozenset(names)
        self._by_session[session] = after
        self._by_session.move_to_end(session)
        if len(self._by_session) > MAX_SESSIONS:
            self._by_session.popitem(last=False)
        if after != before and self.list_changed is not None:
            await self.list_changed(ctx)
        added = sum(offered[name] for name in after - before)
        return mt.structured({"enabled": [n for n in offered if n in after], "added": added})


def session_of(ctx: Any) -> str | None:
    """Whose enabled toolsets: the stdio connection's, an HTTP session's; None without one."""
    request = getattr(ctx, "request", None)
    return "" if request is None else request.headers.get("mcp-session-id")
