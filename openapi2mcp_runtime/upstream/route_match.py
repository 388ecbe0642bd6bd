"""Which tool a URL of the API is: the tool that looks up a long-running operation's status URL,
and the tool that cancels it. A route's path template matches a URL on the API's base URL; its
path parameters are the tool's arguments, when they are all it requires."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

_TEMPLATE = re.compile(r"\{([^{}]+)\}")
_CANCEL_SUFFIXES = ("/cancel", ":cancel")


class RouteIndex:
    """The routes of the tool data (`routes`: name → route) and their listed tools (`tools`)."""

    def __init__(self, routes: Mapping[str, Mapping[str, Any]], tools: Mapping[str, Any]) -> None:
        self.routes, self.tools = routes, tools
        self._patterns: dict[str, re.Pattern[str]] = {}

    def lookup(self, url: str, base_url: str) -> tuple[str, dict[str, str]] | None:
        """The first GET tool whose path is `url`, with its arguments."""
        path = relative_path(url, base_url)
        if path is None:
            return None
        for name, route in self._routes("GET"):
            if (arguments := self.arguments(name, route["path"], path)) is not None:
                return name, arguments
        return None

    def canceller(
        self, url: str, base_url: str, named: str | None
    ) -> tuple[str, dict[str, str]] | None:
        """The tool that cancels the operation whose status is at `url`: `named` (the spec's
        `x-mcp.task.cancel`), else a POST on the status path plus `/cancel` or `:cancel`, else a
        DELETE of the status path; with its arguments."""
        path = relative_path(url, base_url)
        if path is None:
            return None
        if named is not None:
            route = self.routes.get(named)
            for template in _bases(str(route["path"])) if route else ():
                if (arguments := self.arguments(named, template, path)) is not None:
                    return named, arguments
            return None
        for method, bases in (("POST", _suffixed), ("DELETE", lambda t: [t])):
            for name, route in self._routes(method):
                for template in bases(str(route["path"])):
                    if (arguments := self.arguments(name, template, path)) is not None:
                        return name, arguments
        return None

    def arguments(self, name: str, template: str, path: str) -> dict[str, str] | None:
        """The arguments of tool `name` when `path` fills `template` and they are all it requires."""
        key = f"{name}\n{template}"
        if (pattern := self._patterns.get(key)) is None:
            pattern = self._patterns[key] = _pattern(template)
        if (match := pattern.fullmatch(path)) is None:
            return None
        wire_names = _TEMPLATE.findall(template)
        args = {
            str(p["name"]): str(p["arg"])
            for p in self.routes[name].get("params") or ()
            if p.get("in") == "path"
        }
        given = {
            args[wire]: unquote(value)
            for wire, value in zip(wire_names, match.groups(), strict=True)
            if wire in args
        }
        schema = (self.tools.get(name) or {}).get("inputSchema") or {}
        if not set(schema.get("required") or ()) <= set(given):
            return None
        return given

    def _routes(self, method: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
        for name, route in self.routes.items():
            if str(route.get("method", "")).upper() == method and name in self.tools:
                yield name, route


def relative_path(url: str, base_url: str) -> str | None:
    """`url`'s path below `base_url` (same origin, under its path), else None."""
    target, base = urlsplit(url), urlsplit(base_url)
    if (target.scheme, target.netloc) != (base.scheme, base.netloc):
        return None
    prefix = base.path.rstrip("/")
    if target.path != prefix and not target.path.startswith(prefix + "/"):
        return None
    return target.path[len(prefix) :] or "/"


def _pattern(template: str) -> re.Pattern[str]:
    parts = _TEMPLATE.split(template)  # literal, name, literal, name, ..., literal
    regex = "".join(re.escape(part) if i % 2 == 0 else "([^/]+)" for i, part in enumerate(parts))
    return re.compile(regex)


def _suffixed(template: str) -> list[str]:
    """The status path a cancel route's path stands on: without its /cancel or :cancel."""
    return [template[: -len(s)] for s in _CANCEL_SUFFIXES if template.endswith(s)]


def _bases(template: str) -> list[str]:
    return [*_suffixed(template), template]
