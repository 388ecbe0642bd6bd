"""Runtime of a generated MCP server: tools/list from `tool_data.json`, tools/call proxied to the API."""

from __future__ import annotations

import json
import os
import re
from collections import OrderedDict
from collections.abc import Collection, Mapping
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

import mcp.types as types
from mcp import MCPError
from mcp.types import CallToolResult

from .discovery import listing, pages, views
from .discovery import meta_tools as mt
from .discovery.enabled import EnabledToolsets
from .hooks import api as hk
from .hooks import runner as run
from .results import responses as res
from .results import validation
from .serving import request_meta
from .serving import task_methods as tm
from .serving.tasks import TaskRecord, Tasks
from .settings import ConfigError, Narrowing, Settings, ToolError
from .upstream import audit
from .upstream import http_client as http
from .upstream import request_credentials as rc
from .upstream import serialize as ser
from .upstream.credentials import Credentials
from .upstream.jobs import Jobs

if TYPE_CHECKING:
    from .code_mode.tools import CodeTools

__all__ = ["ConfigError", "Narrowing", "Settings", "ToolRuntime"]

# input_required: the user is asked (2026-07-28); a dict: a task was created (task_methods.py)
Answer = CallToolResult | types.InputRequiredResult | dict[str, Any]
_SENSITIVE = re.compile(r"auth|cookie|key|token|secret|password", re.IGNORECASE)


class ToolRuntime:
    """The tools of one generated server: answers tools/list and tools/call."""

    def __init__(
        self,
        data: Mapping[str, Any],
        settings: Settings,
        hooks: hk.Hooks | None = None,
        folder: str | os.PathLike[str] = ".",
    ) -> None:
        """`folder` holds the files loaded on first use (tool_details.json, search_index.json)."""
        if data.get("format") != 1:
            raise ConfigError(f"tool data format {data.get('format')!r} is not supported")
        server = data.get("server") or {}
        self.name = str(server.get("name") or "api")
        self.settings, self.hooks, self._routes = settings, hooks or hk.Hooks(), data["routes"]
        self._parsed: dict[str, ser.Route] = {}  # routes parsed on first use
        self._fits: dict[str, res.Fit] = {}  # how each tool's results are trimmed, on first use
        closed = {name: route.get("closed") or [] for name, route in self._routes.items()}
        self._exact = exact = settings.discovery.listed_schemas == "exact"
        every = [listing.listed(t, closed.get(t["name"], ()), exact) for t in data["tools"]]
        hooked = run.listed_tools(self.hooks, {tool["name"] for tool in every})  # hooks.py's tools
        self._every = {tool["name"]: tool for tool in [*every, *hooked]}  # before narrowing
        self.hooks.check(self._every)
        self._toolset_of = {name: route.get("toolset") for name, route in self._routes.items()}
        toolsets: Mapping[str, Any] = data.get("toolsets") or {}
        narrowing, self.discovery = settings.narrowing, settings.discovery
        first_toolsets: frozenset[str] = frozenset()
        chosen = views.selected(toolsets, [*self._every.values()], self._toolset_of, narrowing)
        if self.discovery.dynamic_toolsets:  # the toolsets chosen are the ones enabled first
            first_toolsets = views.named_toolsets(toolsets, narrowing.toolsets)
            narrowing = replace(narrowing, toolsets=("all",))
            chosen = views.selected(toolsets, [*self._every.values()], self._toolset_of, narrowing)
        self._tools = [tool for tool in self._every.values() if tool["name"] in chosen]
        self._by_name = {tool["name"]: tool for tool in self._tools}  # what is not here is unknown
        self.validation = validation.Validation(self._by_name, closed)
        self.catalog = mt.Catalog(self._by_name, self._toolset_of, toolsets, folder, hooked, exact)
        self.view = self._view(frozenset(chosen), narrowing.read_only)
        self._lists: OrderedDict[tuple[views.View, frozenset[str] | None], dict[str, Any]] = (
            OrderedDict()
        )
        self.enabled = EnabledToolsets(self.catalog, first_toolsets)  # --dynamic-toolsets
        schemes = data.get("securitySchemes") or {}
        source = settings.credential_source
        self.credentials = (
            rc.RequestCredentials(schemes, source.header, settings.base_url)
            if source.mode == "from-request"
            else Credentials(schemes, settings.env, settings.base_url)
        )
        self.credentials.add_secrets(
            *(v for k, v in settings.headers.items() if _SENSITIVE.search(k))
        )
        agent = f"{self.name.removesuffix('-mcp')}-mcp/{server.get('version') or '0'}"
        self.sender = http.Sender(settings, self.credentials, self.hooks, agent)
        self.audit_log = audit.AuditLog(self.sender.resilience.audit_log, settings.prefix)
        self.mcp_log = audit.McpLog()  # wiring.py answers logging/setLevel with it
        self.jobs = Jobs(self.sender, settings, self._routes, self._by_name)
        running_long = any(route.get("longRunning") for route in self._routes.values())
        header = source.header if source.mode == "from-request" else None
        self.tasks = Tasks(self._cancel_operation, header) if running_long else None
        self.code: CodeTools | None = None
        if self.discovery.mode == "code":  # ConfigError when its sandbox is not installed
            from .code_mode.tools import CodeTools

            call = partial(self.call_tool, whole=True)  # a program reads results untrimmed
            self.code = CodeTools.checked(self.catalog, self._routes, settings, call, self.name)

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], settings: Settings, hooks: hk.Hooks | None = None
    ) -> ToolRuntime:
        """Read `tool_data.json` once (jsonschema is imported on the first call)."""
        try:
            with open(path, "rb") as file:
                return cls(json.load(file), settings, hooks, os.path.dirname(path))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise ConfigError(f"cannot load {os.fspath(path)!r}: {error!r}") from None

    def _view(self, names: frozenset[str], read_only: bool) -> views.View:
        """`names` listed as they are, or (dynamic) through the meta-tools: `--mode`, or for `auto`
        whether their list would pass MAX_LIST_TOKENS (never with --dynamic-toolsets)."""
        mode, limit = self.discovery.mode, self.discovery.max_list_tokens
        if mode == "auto" and not self.discovery.dynamic_toolsets:
            sizes = [self._size(name) for name in names]
            mode = "dynamic" if views.estimated_tokens(sizes) > limit else "static"
        return views.View(names, read_only, mode in ("dynamic", "code"), mode == "code")

    def _size(self, name: str) -> int:
        if (size := self._routes.get(name, {}).get("listBytes")) is None:
            wire = json.dumps(self._by_name[name], ensure_ascii=False, separators=(",", ":"))
            size = len(wire.encode("utf-8"))
        elif self._exact:  # listBytes is the portable form's
            size += listing.CLOSED_BYTES * len(self._routes[name].get("closed") or ())
        return int(size)

    def resolve(self, narrowings: tuple[Narrowing, ...]) -> views.View:
        """The view of an HTTP request narrowed by its URL then its headers (ConfigError: a bad
        name); each narrows what the one before left."""
        names, read_only = self.view.names, self.view.read_only
        for narrowing in narrowings:
            tools = [tool for tool in self._tools if tool["name"] in names]
            toolsets = {n: self.catalog.toolsets[n] for n in self.catalog.toolsets_in(names)}
            names = frozenset(
                views.selected(toolsets, tools, self._toolset_of, narrowing, unset="all")
            )
            read_only = read_only or narrowing.read_only
        return self._view(names, read_only) if narrowings else self.view

    def view_of(self, ctx: Any) -> views.View:
        """The request's view (an HTTP request's own: views.NarrowedPaths), else the server's."""
        scope = getattr(getattr(ctx, "request", None), "scope", None) or {}
        view = (scope.get("state") or {}).get(views.STATE_KEY)
        view = view if isinstance(view, views.View) else self.view
        if view.read_only or not views.read_scope_only(scope, self.settings.endpoint_auth):
            return view
        read_only = {n for n in view.names if views.is_read_only(self._every[n])}
        return self._view(frozenset(read_only), True)  # --auth oauth: a token that cannot write

    def list_key(self, ctx: Any) -> tuple[views.View, frozenset[str] | None]:
        """What a tools/list answer depends on (wiring.py keeps each answer)."""
        view = self.view_of(ctx)
        return view, self.enabled.of(ctx, view) if self.discovery.dynamic_toolsets else None

    def list_tools_result(
        self, view: views.View | None = None, enabled: frozenset[str] | None = None
    ) -> dict[str, Any]:
        """The tools/list result as sent (the SDK checks it once a protocol version: wiring.py)."""
        view = view or self.view
        if enabled is None and self.discovery.dynamic_toolsets:
            enabled = self.enabled.of(None, view)
        if (listed := self._lists.get((view, enabled))) is None:
            listed = self._lists[(view, enabled)] = self._listed(view, enabled)
            if len(self._lists) > 256:
                self._lists.popitem(last=False)
        return listed

    def _listed(self, view: views.View, enabled: frozenset[str] | None) -> dict[str, Any]:
        envelope = types.ListToolsResult(tools=[]).model_dump(by_alias=True, mode="json")
        if view.code and self.code is not None:
            return {**envelope, "tools": self.code.listed(view)}
        if view.dynamic:
            return {**envelope, "tools": self.catalog.dynamic_tools(view)}
        tools = [tool for tool in self._tools if tool["name"] in view.names]
        if enabled is not None:
            of = self._toolset_of  # hooks' own tools are in no toolset: always listed
            tools = [t for t in tools if t["name"] not in of or of[t["name"]] in enabled]
            tools += [mt.definition(name, mt.DESCRIPTIONS[name]) for name in mt.ON_DEMAND]
        return {**envelope, "tools": tools}

    async def on_list_tools(self, ctx: Any, params: types.PaginatedRequestParams) -> dict[str, Any]:
        listed = self.list_tools_result(*self.list_key(ctx))
        return pages.page(listed, params.cursor, self.discovery.list_page_size)

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """For `Server(get_tool_input_schema=...)`."""
        return self._by_name[name]["inputSchema"] if name in self._by_name else None

    async def on_call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Answer:
        """Each call is recorded (audit.py): call_tool records the API tools', this the meta-tools'
        and those the user did not confirm (an `input_required` answer, asking, is not a call)."""
        caller = audit.Record.of_request(params.name, ctx, self.mcp_log.for_request(ctx))
        token = audit.CURRENT.set(caller)
        try:
            async with request_meta.bound(ctx, params.name):  # progress, trace context
                return await self._on_call_tool(ctx, params, caller)
        finally:
            audit.CURRENT.reset(token)

    async def _on_call_tool(
        self, ctx: Any, params: types.CallToolRequestParams, caller: audit.Record
    ) -> Answer:
        view, name, arguments = self.view_of(ctx), params.name, params.arguments or {}
        meta = (
            (mt.CODE if view.code else mt.DYNAMIC)
            if view.dynamic
            else mt.ON_DEMAND if self.discovery.dynamic_toolsets else ()
        )
        if name in meta:
            if problems := res.argument_problems(
                name, self.validation.errors(name, "meta", arguments)
            ):
                return await self._recorded(caller, res.error_result(problems))
            if name == mt.CALL and (
                asked := await self._confirmed(ctx, params, view, arguments, caller)
            ):
                return asked
            if name == mt.RUN_CODE and self.code is not None:
                with rc.bound(ctx):
                    ran = await self.code.run(ctx, params, view, str(arguments["code"]))
                return await self._recorded(caller, ran) if isinstance(ran, CallToolResult) else ran
            result = await self._meta(ctx, view, name, arguments)
            return result if name == mt.CALL else await self._recorded(caller, result)
        if self.settings.confirmation.scope != "none":  # (no cost otherwise)
            call = {"name": name, "arguments": arguments}
            if asked := await self._confirmed(ctx, params, view, call, caller):
                return asked
        if self.tasks is not None and tm.wanted(ctx, params, self._routes.get(name)):
            return self._task(ctx, params, view.names)
        with rc.bound(ctx):  # --credentials from-request: this request's own
            return await self.call_tool(name, arguments, view.names)

    def _task(
        self, ctx: Any, params: types.CallToolRequestParams, offered: Collection[str]
    ) -> Answer:
        """The long-running tool's call as a task (tasks.py), answered at once."""
        assert self.tasks is not None
        if refused := self.tasks.refusal(ctx):
            return res.error_result(refused)
        run = partial(self.call_tool, params.name, params.arguments or {}, offered)
        with rc.bound(ctx):  # the task's calls keep this request's credentials
            ttl = params.task.ttl if params.task is not None else None
            task = self.tasks.start(ctx, params.name, run, ttl)
        return tm.created(task, ctx)

    async def _cancel_operation(self, task: TaskRecord) -> str | None:
        """tasks/cancel: the API's own cancel operation for the task's job, when there is one."""
        if task.job is None:
            return None
        return await self.jobs.cancel(task.job, self._routes[task.tool], self.call_tool)

    async def _confirmed(
        self,
        ctx: Any,
        params: types.CallToolRequestParams,
        view: views.View,
        call: Mapping[str, Any],
        caller: audit.Record,
    ) -> Answer | None:
        """None when the call of `call["name"]` (with `call["arguments"]`) may go on: it needs no
        confirmation (PREFIX_CONFIRM), or the user gave it; else the call's answer."""
        tool = str(call["name"])
        if tool not in view.names or (wire := self._by_name.get(tool)) is None:
            return None  # (refused as unknown further on)
        route, arguments = self._routes.get(tool) or {}, call.get("arguments") or {}
        asked = await self.settings.confirmation.check(ctx, params, wire, route, arguments)
        return await self._recorded(caller, asked) if isinstance(asked, CallToolResult) else asked

    async def _meta(
        self, ctx: Any, view: views.View, name: str, arguments: Mapping[str, Any]
    ) -> CallToolResult:
        if view.code and self.code is not None and name in (mt.SEARCH, mt.DESCRIBE):
            return self.code.found(name, arguments, view)  # each tool as a Python function
        if name == mt.SEARCH:
            return self.catalog.search(arguments, view)
        if name == mt.DESCRIBE:
            setting = f"{self.settings.prefix}_MAX_RESULT_CHARS"
            return self.catalog.describe(arguments, view, self.settings.max_result_chars, setting)
        if name == mt.LIST_TOOLSETS:
            return self.catalog.list_toolsets(view, self.enabled.of(ctx, view))
        if name == mt.ENABLE_TOOLSETS:
            return await self.enabled.enable(ctx, view, list(arguments["toolsets"]))
        tool = str(arguments["name"])
        if tool not in view.names:
            return res.error_result(mt.not_offered(tool, self._every.get(tool), view))
        with rc.bound(ctx):
            return await self.call_tool(tool, arguments["arguments"], view.names)

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        offered: Collection[str] | None = None,
        whole: bool = False,
    ) -> CallToolResult:
        """An unknown tool (not `offered`, default: the server's) raises MCPError(-32602); every
        other failure is an isError result. `whole`: not trimmed to PREFIX_MAX_RESULT_CHARS."""
        parent = audit.CURRENT.get(None)
        record = parent.child(name[:200]) if parent else audit.Record(name[:200])
        known = name in self._by_name and (name in self._routes or name in self.hooks.tools)
        if not known or (offered is not None and name not in offered):
            await self._recorded(record, res.error_result("unknown tool"))
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name[:200]}")
        token = audit.CURRENT.set(record)
        try:
            result = await self._calling(name, arguments, record, whole)
        finally:
            audit.CURRENT.reset(token)
        return await self._recorded(record, result)

    async def _calling(
        self, name: str, arguments: Mapping[str, Any] | None, record: audit.Record, whole: bool
    ) -> CallToolResult:
        call = hk.Call(name, dict(arguments or {}), _call_tool=self.call_tool)
        try:
            result = await self._call(call, self._by_name[name], whole)
        except ToolError as error:
            result = res.error_result(str(error))
        except hk.HookError as error:
            result = run.failure_result(name, error, self.credentials.scrub)
        except Exception as error:
            run.log_failure(f"tool {name} failed", error, self.credentials.scrub)
            result = res.error_result(
                f"Internal error in the MCP server while running '{name}' (details are in its log)."
                " The request may or may not have reached the API."
            )
        if after := self.hooks.after_for(name, bool(result.is_error)):
            result = await run.after_checked(
                after, call, result, self.credentials.scrub, self.validation.conformed
            )
        return self.credentials.scrub_result(result)

    async def _recorded(self, record: audit.Record, result: CallToolResult) -> CallToolResult:
        return await audit.finished(record, result, self.audit_log, self.credentials)

    async def _call(self, call: hk.Call, tool: Mapping[str, Any], whole: bool) -> CallToolResult:
        name, arguments = call.tool, call.arguments
        route, base_url = None, None  # a hooks.py tool's
        if name not in self.hooks.tools:  # an API call: first of all, what is left to configure
            if (route := self._parsed.get(name)) is None:
                route = self._parsed[name] = ser.Route.from_json(self._routes[name])
            if (base_url := self.settings.base_url_for(route.base_url)) is None:
                raise ToolError(self.settings.unconfigured(self.credentials.needed(route.security)))
        if problems := res.argument_problems(name, self.validation.errors(name, "in", arguments)):
            raise ToolError(problems)
        if route is None or base_url is None:
            user_tool = self.hooks.tools[name]
            made = f"as its function {user_tool.function_name!r} made it"
            return self.validation.conformed(name, await run.run_tool(user_tool, call), made)
        try:
            request = ser.build_request(route, self.validation.integral(name, arguments))
        except ser.ArgumentError as error:
            raise ToolError(f"{error}. Nothing was sent to the API.") from None
        chosen = self.credentials.choose(route.security)
        hints = tool.get("annotations") or {}
        retried = self.sender.resilience.prepare(request.method, request.headers, hints)
        answer = await self.sender.send(request, chosen, base_url, call, retried)
        if route.long_running is not None:  # followed until it ends (jobs.py)
            followed = await self.jobs.followed(answer, request, route, chosen, base_url, call)
            if isinstance(followed, CallToolResult):
                return followed
            answer = followed
        if answer.kind in ("json", "text") and self.credentials.secrets:  # before any cut
            clean = self.credentials.scrub(answer.body.decode("latin-1"))
            answer = replace(answer, body=clean.encode("latin-1"))
        errors = partial(self.validation.errors, name, "out") if route.has_output_schema else None
        hint = f"{self.settings.prefix}_MAX_RESPONSE_BYTES={self.settings.max_response_bytes}"
        if (fit := self._fits.get(name)) is None:
            schema = self._by_name[name].get("outputSchema")
            fit = self._fits[name] = res.Fit.of(self.settings, route, schema)
        return res.tool_result(
            answer, self.name, name, route.wrapped, errors, hint, None if whole else fit
        )

    async def aclose(self) -> None:
        """Close the shared HTTP client and the audit log (call at shutdown)."""
        if self.tasks is not None:
            await self.tasks.aclose()
        if self.code is not None:
            await self.code.aclose()
        await self.sender.aclose()
        self.audit_log.close()
