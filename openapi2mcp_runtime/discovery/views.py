"""Which tools a request sees, and how they are listed. The server's narrowing (flags, variables)
chooses what it offers; an HTTP request may narrow that further, never widen it: the headers
`X-MCP-Toolsets`, `X-MCP-Tools`, `X-MCP-Exclude-Tools`, `X-MCP-Readonly` and the URLs
`/mcp/x/{toolsets}`, `/mcp/x/{toolsets}/readonly`, `/mcp/readonly` (the package README)."""

from __future__ import annotations

import difflib
import json
import math
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from ..settings import ConfigError, Narrowing, parse_flag

HEADERS = {
    "toolsets": "X-MCP-Toolsets",
    "tools": "X-MCP-Tools",
    "exclude_tools": "X-MCP-Exclude-Tools",
    "read_only": "X-MCP-Readonly",
}
STATE_KEY = "openapi2mcp.view"  # where NarrowedPaths leaves a request's View, in scope["state"]
ENVELOPE_BYTES = len('{"tools":[]}')


@dataclass(frozen=True)
class View:
    """The tools one request may use (`names`), whether they are read-only, and whether tools/list
    shows them (static) or only the meta-tools (dynamic; `code`: code mode's)."""

    names: frozenset[str]
    read_only: bool
    dynamic: bool
    code: bool = False


def estimated_tokens(sizes: Collection[int]) -> int:
    """A tools/list answer's tokens: a quarter of its compact JSON's UTF-8 bytes (as `inspect`)."""
    return math.ceil((ENVELOPE_BYTES + sum(sizes) + max(len(sizes) - 1, 0)) / 4)


def selected(
    toolsets: Mapping[str, Any],
    tools: list[dict[str, Any]],
    toolset_of: Mapping[str, str | None],
    narrowing: Narrowing,
    unset: str = "default",
) -> set[str]:
    """The names of the `tools` a narrowing keeps (the package README's rules); an unknown name:
    ConfigError naming the valid ones. A tool missing from `toolset_of` (hooks' own tools) is kept
    by any toolset choice; one whose toolset is None (older tool data) by `all` and `default`.
    `unset` is what no toolsets and no tools mean: the server's `default`, a request's `all`."""
    names = [tool["name"] for tool in tools]
    _check(narrowing, "toolsets", narrowing.toolsets or (), ["all", "default", *toolsets])
    _check(narrowing, "tools", narrowing.tools, names)
    _check(narrowing, "exclude_tools", narrowing.exclude_tools, names)
    wanted = (unset,) if narrowing.toolsets is None and not narrowing.tools else ()
    sets: set[str | None] = set()
    for item in narrowing.toolsets or wanted:
        if item in ("all", "default"):
            sets.add(None)
            sets.update(n for n, t in toolsets.items() if item == "all" or t.get("default"))
        else:
            sets.add(item)
    chosen = {n for n in names if toolset_of.get(n, None) in sets or n not in toolset_of}
    chosen = (chosen | set(narrowing.tools)) - set(narrowing.exclude_tools)
    if narrowing.read_only:
        chosen &= {t["name"] for t in tools if is_read_only(t)}
    return chosen


def is_read_only(tool: Mapping[str, Any]) -> bool:
    return (tool.get("annotations") or {}).get("readOnlyHint") is True


def read_scope_only(scope: Mapping[str, Any], auth: Any) -> bool:
    """Whether the request's OAuth token (the SDK's bearer middleware left its scopes in
    `scope["auth"]`) lacks the write scope of `auth` (an endpoint_auth.EndpointAuth)."""
    granted = getattr(scope.get("auth"), "scopes", None)
    return auth.mode == "oauth" and granted is not None and auth.write_scope not in granted


def _check(narrowing: Narrowing, key: str, given: tuple[str, ...], valid: list[str]) -> None:
    if unknown := [name for name in given if name not in valid]:
        where = narrowing.where.get(key, key)
        what, section = ("toolset", "Toolsets") if key == "toolsets" else ("tool", "Tools")
        shown = ", ".join(valid[:20]) + (
            f" (and {len(valid) - 20} more: the package README's {section} section lists them all)"
            if len(valid) > 20
            else ""
        )
        named = "; ".join(with_closest(name, valid) for name in unknown)
        raise ConfigError(f"unknown {what}(s) in {where}: {named}. Valid {what}s: {shown}")


def with_closest(name: str, valid: Collection[str], *, quoted: bool = False) -> str:
    """`name` (cut at 100 characters; as a Python literal when `quoted`), with the valid names
    closest to it: a typo names its fix."""
    close = difflib.get_close_matches(name, valid, n=3, cutoff=0.6)
    shown = repr(name[:100]) if quoted else name[:100]
    return shown + (f" (did you mean {', '.join(close)}?)" if close else "")


def from_headers(headers: Mapping[str, str]) -> Narrowing | None:
    """The narrowing of a request's `X-MCP-*` headers (lower-cased keys); None when it has none."""
    given = {key: headers.get(name.lower()) for key, name in HEADERS.items()}
    if all(value is None for value in given.values()):
        return None
    lists = {key: _items(given[key]) for key in ("toolsets", "tools", "exclude_tools")}
    for key, items in lists.items():
        if given[key] is not None and not items:  # `X-MCP-Toolsets:` would offer no tool at all
            what = "toolsets" if key == "toolsets" else "tools"
            raise ConfigError(
                f"header {HEADERS[key]} names no {what}, got {given[key]!r}: give them"
                " comma-separated, or leave the header out"
            )
    read_only = parse_flag(given["read_only"], f"header {HEADERS['read_only']}")
    return Narrowing(
        toolsets=lists["toolsets"] if given["toolsets"] is not None else None,
        tools=lists["tools"],
        exclude_tools=lists["exclude_tools"],
        read_only=read_only,
        where={key: f"header {name}" for key, name in HEADERS.items()},
    )


def from_path(path: str, root: str) -> Narrowing | None:
    """The narrowing of a URL under `root` (`/x/a,b`, `/x/a/readonly`, `/readonly`); None when the
    path is `root` itself; ValueError when it is none of these."""
    rest = path.removeprefix(root).strip("/").split("/")
    if rest == [""]:
        return None
    read_only = rest[-1] == "readonly"
    head = rest[:-1] if read_only else rest
    if head and not (len(head) == 2 and head[0] == "x" and head[1]):
        raise ValueError(path)
    toolsets = _items(head[1]) if head else None
    if toolsets == ():  # /mcp/x/, : no toolset named, as /mcp/x/
        raise ValueError(path)
    return Narrowing(toolsets=toolsets, read_only=read_only, where={"toolsets": f"the URL {path}"})


def _items(raw: str | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item.strip() for item in (raw or "").split(",") if item.strip()))


Resolve = Callable[[tuple[Narrowing, ...]], View]
Scope = MutableMapping[str, Any]
App = Callable[[Scope, Any, Any], Awaitable[None]]


class NarrowedPaths:
    """ASGI middleware in front of the SDK's streamable-HTTP app: a request under `/mcp/x/...` or
    `/mcp/readonly` is served as `/mcp`; every request's narrowing (URL, then headers) becomes a
    View in `scope["state"]` (a bad one: 400 with the message). Views are kept for 256 forms."""

    def __init__(self, app: App, resolve: Resolve, root: str = "/mcp") -> None:
        self.app, self.resolve, self.root = app, resolve, root
        self._views: OrderedDict[tuple[str, tuple[str | None, ...]], View | str] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        path = scope["path"] if scope["type"] == "http" else ""
        if path != self.root and not path.startswith(self.root + "/"):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        key = (path, tuple(headers.get(name.lower()) for name in HEADERS.values()))
        if (view := self._views.get(key)) is None:
            view = self._views[key] = self._view(path, headers)
            if len(self._views) > 256:
                self._views.popitem(last=False)
        if isinstance(view, str):
            return await _refuse(send, view)
        state = {**scope.get("state", {}), STATE_KEY: view}
        await self.app(
            {**scope, "path": self.root, "raw_path": self.root.encode(), "state": state},
            receive,
            send,
        )

    def _view(self, path: str, headers: Mapping[str, str]) -> View | str:
        try:
            by_path = from_path(path, self.root)
        except ValueError:
            root = self.root
            return (
                f"Not found: {path[:200]} (MCP is at {root}, {root}/x/TOOLSETS or {root}/readonly)"
            )
        try:
            narrowings = tuple(n for n in (by_path, from_headers(headers)) if n is not None)
            return self.resolve(narrowings)
        except ConfigError as error:
            return str(error)


async def _refuse(send: Any, message: str) -> None:
    status = 404 if message.startswith("Not found") else 400
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32602, "message": message}})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body.encode()})


def named_toolsets(toolsets: Mapping[str, Any], given: tuple[str, ...] | None) -> frozenset[str]:
    """The toolsets `all`, `default` (also None) and names stand for."""
    named: set[str] = set()
    for item in given or ("default",):
        if item in ("all", "default"):
            named.update(n for n, t in toolsets.items() if item == "all" or t.get("default"))
        else:
            named.add(item)
    return frozenset(named)
