"""Runtime of a generated MCP server: tools/list from `tool_data.json`, tools/call proxied to the API."""

from __future__ import annotations

import json
import logging
import os
import re
import traceback
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

import mcp.types as types
from mcp import MCPError
from mcp.types import CallToolResult

if TYPE_CHECKING or not __package__:  # mypy, or loaded as a top-level module next to its siblings
    import hooks_api as hk  # type: ignore[import-not-found,unused-ignore]
    import hooks_runner as run  # type: ignore[import-not-found,unused-ignore]
    import http_client as http  # type: ignore[import-not-found,unused-ignore]
    import responses as res  # type: ignore[import-not-found,unused-ignore]
    import serialize as ser  # type: ignore[import-not-found,unused-ignore]
    from settings import (  # type: ignore[import-not-found,unused-ignore]
        ConfigError,
        Credentials,
        Narrowing,
        Settings,
        ToolError,
    )
else:
    from . import hooks_api as hk
    from . import hooks_runner as run
    from . import http_client as http
    from . import responses as res
    from . import serialize as ser
    from .settings import ConfigError, Credentials, Narrowing, Settings, ToolError

__all__ = ["ConfigError", "Narrowing", "Settings", "ToolRuntime", "selected"]
logger = logging.getLogger(__name__)

_SENSITIVE = re.compile(r"auth|cookie|key|token|secret|password", re.IGNORECASE)


def selected(
    data: Mapping[str, Any], tools: list[dict[str, Any]], user_tools: set[str], narrowing: Narrowing
) -> set[str]:
    """The names of the tools to offer (the package README's rules); an unknown name: ConfigError.
    Without `toolsets` in the data (older tool data) `default` and `all` are every tool."""
    toolsets: Mapping[str, Any] = data.get("toolsets") or {}
    names = [tool["name"] for tool in tools]
    _check(narrowing, "toolsets", narrowing.toolsets or (), ["all", "default", *toolsets])
    _check(narrowing, "tools", narrowing.tools, names)
    _check(narrowing, "exclude_tools", narrowing.exclude_tools, names)
    wanted = ("default",) if narrowing.toolsets is None and not narrowing.tools else ()
    sets: set[str | None] = set()
    for item in narrowing.toolsets or wanted:
        if item in ("all", "default"):
            sets.add(None)  # a tool of older tool data, in no toolset
            sets.update(n for n, t in toolsets.items() if item == "all" or t.get("default"))
        else:
            sets.add(item)
    routes = data["routes"]
    chosen = {n for n in names if n in user_tools or routes[n].get("toolset") in sets}
    chosen = (chosen | set(narrowing.tools)) - set(narrowing.exclude_tools)
    if narrowing.read_only:
        read_only = {
            t["name"] for t in tools if (t.get("annotations") or {}).get("readOnlyHint") is True
        }
        chosen &= read_only
    return chosen


def _check(narrowing: Narrowing, key: str, given: tuple[str, ...], valid: list[str]) -> None:
    if unknown := [name for name in given if name not in valid]:
        where = narrowing.where.get(key, key)
        shown = ", ".join(valid[:20]) + (
            f" (and {len(valid) - 20} more)" if len(valid) > 20 else ""
        )
        what = "toolset" if key == "toolsets" else "tool"
        raise ConfigError(
            f"unknown {what}(s) in {where}: {', '.join(unknown)}. Valid {what}s: {shown}"
        )


class ToolRuntime:
    """The tools of one generated server: answers tools/list and tools/call."""

    def __init__(
        self, data: Mapping[str, Any], settings: Settings, hooks: hk.Hooks | None = None
    ) -> None:
        if data.get("format") != 1:
            raise ConfigError(f"tool data format {data.get('format')!r} is not supported")
        server = data.get("server") or {}
        self.name = str(server.get("name") or "api")
        self.settings, self.hooks, self._routes = settings, hooks or hk.Hooks(), data["routes"]
        self._parsed: dict[str, ser.Route] = {}  # routes parsed on first use
        self._validators: dict[tuple[str, str], Any] = {}  # compiled on first use: see _errors
        self._tools: list[dict[str, Any]] = [*data["tools"]]
        self._by_name = {tool["name"]: tool for tool in self._tools}
        for wire in run.listed_tools(self.hooks, self._by_name):  # after the generated tools
            self._tools.append(wire)
            self._by_name[wire["name"]] = wire
        self.hooks.check(self._by_name)
        chosen = selected(data, self._tools, set(self.hooks.tools), settings.narrowing)
        self._tools = [tool for tool in self._tools if tool["name"] in chosen]
        self._by_name = {tool["name"]: tool for tool in self._tools}  # what is not here is unknown
        envelope = types.ListToolsResult(tools=[]).model_dump(by_alias=True, mode="json")
        self._list = {**envelope, "tools": self._tools}  # the SDK's default envelope fields
        schemes = data.get("securitySchemes") or {}
        self.credentials = Credentials(schemes, settings.env, settings.base_url)
        self.credentials.add_secrets(
            *(v for k, v in settings.headers.items() if _SENSITIVE.search(k))
        )
        agent = f"{self.name.removesuffix('-mcp')}-mcp/{server.get('version') or '0'}"
        self.sender = http.Sender(settings, self.credentials, self.hooks, agent)

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], settings: Settings, hooks: hk.Hooks | None = None
    ) -> ToolRuntime:
        """Read `tool_data.json` once (jsonschema is imported on the first call)."""
        try:
            with open(path, "rb") as file:
                return cls(json.load(file), settings, hooks)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise ConfigError(f"cannot load {os.fspath(path)!r}: {error!r}") from None

    def list_tools_result(self) -> dict[str, Any]:
        """The tools/list result as sent (the SDK checks it once a protocol version: wiring.py)."""
        return self._list

    async def on_list_tools(self, ctx: object, params: object) -> dict[str, Any]:
        return self.list_tools_result()

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """For `Server(get_tool_input_schema=...)`."""
        return self._by_name[name]["inputSchema"] if name in self._by_name else None

    async def on_call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> CallToolResult:
        return await self.call_tool(params.name, params.arguments)

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None) -> CallToolResult:
        """An unknown tool raises MCPError(-32602); every other failure is an isError result."""
        if name not in self._by_name or (name not in self._routes and name not in self.hooks.tools):
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name[:200]}")
        call = hk.Call(name, dict(arguments or {}), _call_tool=self.call_tool)
        try:
            result = await self._call(call, self._by_name[name])
        except ToolError as error:
            result = res.error_result(str(error))
        except hk.HookError as error:
            result = self._hook_error(name, error)
        except Exception as error:
            self._log_failure(f"tool {name} failed", error)
            result = res.error_result(
                f"Internal error in the MCP server while running '{name}' (details are in its log)."
                " The request may or may not have reached the API."
            )
        if after := self.hooks.after_for(name, bool(result.is_error)):
            result = await self._after(call, after, result)
        return self._scrubbed(result)

    def _log_failure(self, what: str, error: BaseException) -> None:
        details = "".join(traceback.format_exception(error))
        logger.error("%s:\n%s", what, self.credentials.scrub(details))

    def _hook_error(self, name: str, error: hk.HookError) -> CallToolResult:
        if isinstance(error, run.HookFailed):
            self._log_failure(f"hooks.py, tool {name}: {error}", error.original)
        return res.error_result(str(error))

    async def _after(
        self, call: hk.Call, hooks: list[hk.Hook], result: CallToolResult
    ) -> CallToolResult:
        try:
            changed = await run.run_after(hooks, call, result)
        except hk.HookError as error:
            return self._hook_error(call.tool, error)
        names = ", ".join(repr(hook.name) for hook in hooks)
        return self._conformed(call.tool, changed, f"as the after_result hook(s) {names} left it")

    def _conformed(self, name: str, result: CallToolResult, how: str) -> CallToolResult:
        """A success of a tool with an output schema must carry conforming structured content."""
        if result.is_error or "outputSchema" not in self._by_name[name]:
            return result
        value = result.structured_content
        problem = "it has none" if value is None else self._output_problem(name, value)
        if problem is None:
            return result
        return res.error_result(
            f"The result of tool '{name}', {how} in hooks.py, does not match the tool's output schema"
            f" ({problem}). Fix hooks.py; the call itself was made."
        )

    def _scrubbed(self, result: CallToolResult) -> CallToolResult:
        """The result with every known secret replaced (the same object when there is none)."""
        if not self.credentials.secrets:
            return result
        scrub = self.credentials.scrub
        content = [
            c.model_copy(update={"text": scrub(c.text)}) if isinstance(c, types.TextContent) else c
            for c in result.content
        ]
        structured = self.credentials.scrub_json(result.structured_content)
        if content == result.content and structured == result.structured_content:
            return result
        return result.model_copy(update={"content": content, "structured_content": structured})

    async def _call(self, call: hk.Call, tool: Mapping[str, Any]) -> CallToolResult:
        name, arguments = call.tool, call.arguments
        if problems := res.argument_problems(name, self._errors(name, "in", arguments)):
            raise ToolError(problems)
        if (user_tool := self.hooks.tools.get(name)) is not None:
            made = f"as its function {user_tool.function_name!r} made it"
            return self._conformed(name, await run.run_tool(user_tool, call), made)
        if (route := self._parsed.get(name)) is None:
            route = self._parsed[name] = ser.Route.from_json(self._routes[name])
        try:
            request = ser.build_request(route, arguments)
        except ser.ArgumentError as error:
            raise ToolError(f"{error}. Nothing was sent to the API.") from None
        base_url = self.settings.base_url_for(route.base_url)
        chosen = self.credentials.choose(route.security)
        answer = await self.sender.send(request, chosen, base_url, call)
        if answer.kind in ("json", "text") and self.credentials.secrets:  # before any cut
            clean = self.credentials.scrub(answer.body.decode("latin-1"))
            answer = replace(answer, body=clean.encode("latin-1"))
        check = partial(self._output_problem, name) if route.has_output_schema else None
        hint = f"{self.settings.prefix}_MAX_RESPONSE_BYTES={self.settings.max_response_bytes}"
        fit = res.Fit.of(self.settings, route, self._by_name[name].get("outputSchema"))
        return res.tool_result(answer, self.name, name, route.wrapped, check, hint, fit)

    def _output_problem(self, name: str, value: Any) -> str | None:
        return res.first_problem(self._errors(name, "out", value))

    def _errors(self, name: str, kind: str, value: Any) -> list[Any]:
        """jsonschema's errors for the tool's input (`format` too) or output; validators made once."""
        if (validator := self._validators.get((name, kind))) is None:
            import jsonschema  # type: ignore[import-untyped,unused-ignore]

            tool = self._by_name[name]
            schema = tool["inputSchema"] if kind == "in" else tool.get("outputSchema") or {}
            cls = jsonschema.validators.validator_for(
                schema, default=jsonschema.Draft202012Validator
            )
            checker = cls.FORMAT_CHECKER if kind == "in" else None
            validator = self._validators[(name, kind)] = cls(schema, format_checker=checker)
        return list(validator.iter_errors(value))

    async def aclose(self) -> None:
        """Close the shared HTTP client (call at shutdown)."""
        await self.sender.aclose()
