"""What `hooks.py` uses: the `Hooks` registry its decorators fill, and the `Call`, `Request` and
`Result` that hooks receive. The rules are in the package README's "Hooks" section."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote

import mcp.types as types

if TYPE_CHECKING:
    from pydantic import BaseModel

from ..settings import TOKEN, ConfigError
from ..upstream import serialize as ser

__all__ = ["Call", "HookError", "Hooks", "ModelMismatch", "Request", "Result"]

F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M", bound="BaseModel")
CallTool = Callable[[str, Mapping[str, Any]], Awaitable[types.CallToolResult]]
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")


class HookError(Exception):
    """Raise it in a hook or tool to fail the call with exactly this message."""


class ModelMismatch(ValueError):
    """`arguments_as` / `data_as`: the value does not fit the class asked for."""


def validated(model: type[M], value: Any, what: str) -> M:
    """`value` as an instance of `model` (a pydantic class, e.g. of models.py); ModelMismatch
    ("{what} {model}: {where}: {problem}; ...") when it does not fit. pydantic is imported here:
    by the hooks that use it, not at start-up."""
    from pydantic import BaseModel, ValidationError

    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"give a pydantic model class (e.g. of models.py), not {model!r}")
    try:
        return model.model_validate(value)
    except ValidationError as error:
        problems = [
            f"{'.'.join(map(str, e['loc'])) or '(top)'}: {e['msg']}"
            for e in error.errors(include_url=False)
        ]
        more = f"; {len(problems) - 5} more" if len(problems) > 5 else ""
        shown = "; ".join(problems[:5]) + more
        raise ModelMismatch(f"{what} {model.__name__}: {shown}") from error


class Headers(MutableMapping[str, str]):
    """HTTP headers by case-insensitive name; a name keeps the spelling it was last set with."""

    def __init__(self, items: Mapping[str, str] | Collection[tuple[str, str]] = ()) -> None:
        self._items: dict[str, tuple[str, str]] = {}
        self.update(items)

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()][1]

    def __setitem__(self, name: str, value: str) -> None:
        self._items[name.lower()] = (name, value)

    def __delitem__(self, name: str) -> None:
        del self._items[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Headers({dict(self.items())!r})"


@dataclass(eq=False)
class Request:
    """One HTTP request about to be sent; change it in place or return a new one."""

    method: str
    url: str  # scheme, host and path (percent-encoded), without the query
    params: list[tuple[str, str]] = field(default_factory=list)  # the query, decoded
    headers: MutableMapping[str, str] = field(default_factory=Headers)
    body: bytes | None = None
    _encoded: dict[tuple[str, str], list[str]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.headers, Headers):
            self.headers = Headers(self.headers)

    @classmethod
    def parse(
        cls, method: str, full_url: str, headers: Mapping[str, str], body: bytes | None
    ) -> Request:
        """From the URL as it would be sent; each query pair remembers its exact encoding."""
        url, _, query = full_url.partition("?")
        request = cls(method, url, [], Headers(headers), body)
        for pair in query.split("&") if query else ():
            name, _, value = pair.partition("=")
            decoded = (unquote(name), unquote(value))
            request.params.append(decoded)
            request._encoded.setdefault(decoded, []).append(pair)
        return request

    @property
    def full_url(self) -> str:
        """The URL that is sent: `url` and the encoded `params`."""
        spare = {key: list(pairs) for key, pairs in self._encoded.items()}
        query = []
        for name, value in self.params:
            kept = spare.get((name, value))
            query.append(kept.pop(0) if kept else f"{ser.pct(name)}={ser.pct(value)}")
        joiner = "&" if "?" in self.url else "?"
        return self.url + (joiner + "&".join(query) if query else "")

    @property
    def json(self) -> Any:
        """The body parsed as JSON (None without a body); setting it sends JSON."""
        return json.loads(self.body) if self.body else None

    @json.setter
    def json(self, value: Any) -> None:
        self.body = ser.to_json(value).encode()
        kind = self.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json" and not kind.endswith("+json"):
            self.headers["Content-Type"] = "application/json"

    def wire(self) -> tuple[str, str, list[tuple[bytes, bytes]], bytes | None]:
        """(method, full URL, encoded headers, body) to send; ValueError for what cannot be sent."""
        method = str(self.method).upper()
        if not TOKEN.fullmatch(method):
            raise ValueError(f"invalid HTTP method {self.method!r}")
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"request.url must be an http(s) URL, not {self.url!r}")
        for name, value in self.headers.items():
            if not isinstance(name, str) or not TOKEN.fullmatch(name):
                raise ValueError(f"invalid header name {name!r}")
            if not isinstance(value, str) or ser.CONTROL_CHARS.search(value):
                raise ValueError(f"header {name}: the value must be a str without CR, LF or NUL")
        body = self.body.encode() if isinstance(self.body, str) else self.body
        if body is not None and not isinstance(body, bytes | bytearray):
            raise ValueError(f"request.body must be bytes or None, not {type(body).__name__}")
        headers = [(name.encode("ascii"), value.encode()) for name, value in self.headers.items()]
        return method, self.full_url, headers, None if body is None else bytes(body)


@dataclass(eq=False)
class Result:
    """One tool result: `content` blocks, `structured` content, `is_error`."""

    content: list[types.ContentBlock] = field(default_factory=list)
    structured: dict[str, Any] | None = None
    is_error: bool = False
    _mirror: types.TextContent | None = field(default=None, repr=False)  # the JSON of `structured`

    @classmethod
    def of(cls, value: Any) -> Result:
        """A tool's return value: a Result as is, a dict as data, a str as text, other JSON wrapped."""
        if isinstance(value, Result):
            return value
        if isinstance(value, str):
            return cls([types.TextContent(text=value)])
        result = cls()
        result.data = value if isinstance(value, dict) else {"result": value}
        return result

    @classmethod
    def error(cls, message: str) -> Result:
        return cls([types.TextContent(text=message)], is_error=True)

    @property
    def text(self) -> str:
        """The text blocks joined by newlines; setting it replaces all content (not the data)."""
        return "\n".join(c.text for c in self.content if isinstance(c, types.TextContent))

    @text.setter
    def text(self, value: str) -> None:
        self.content = [types.TextContent(text=value)]

    @property
    def data(self) -> dict[str, Any] | None:
        """The structured content; setting it also sets the content to its JSON text."""
        return self.structured

    @data.setter
    def data(self, value: dict[str, Any] | None) -> None:
        if value is not None and not isinstance(value, dict):
            wrapped = {"result": value}
            raise TypeError(f"structured content is a JSON object: wrap it, {wrapped!r}")
        self.structured = value
        self._mirror = types.TextContent(text=ser.to_json(value)) if value is not None else None
        self.content = [self._mirror] if self._mirror else self.content

    def data_as(self, model: type[M]) -> M:
        """The structured content as a `model` (a class of models.py, e.g. `ListPetsResult`): a
        typed copy; ModelMismatch when there is none or it does not fit."""
        if self.structured is None:
            raise ModelMismatch(
                f"no structured content to read as {getattr(model, '__name__', model)}"
            )
        return validated(model, self.structured, "the structured content does not fit")

    @classmethod
    def from_mcp(cls, result: types.CallToolResult) -> Result:
        structured, content = result.structured_content, list(result.content)
        mirror = content[0] if structured is not None and len(content) == 1 else None
        if not isinstance(mirror, types.TextContent) or mirror.text != ser.to_json(structured):
            mirror = None
        return cls(content, structured, bool(result.is_error), mirror)

    def to_mcp(self) -> types.CallToolResult:
        """The MCP result; a mirror text block left in place follows the (changed) data."""
        content = list(self.content)
        if self.structured is not None:
            text = ser.to_json(self.structured)  # (also fails early on what is not JSON)
            mirrored = len(content) == 1 and content[0] is self._mirror
            if mirrored and self._mirror is not None and text != self._mirror.text:
                content = [types.TextContent(text=text)]
        return types.CallToolResult(
            content=content, structured_content=self.structured, is_error=bool(self.is_error)
        )


@dataclass(eq=False)
class Call:
    """One tools/call: the hooks of the call share it (`state` is yours)."""

    tool: str
    arguments: dict[str, Any]
    state: dict[str, Any] = field(default_factory=dict)
    request: Request | None = None  # the last request sent (None: none, or no hook is defined)
    status: int | None = None  # the HTTP status of the last answer (None: nothing was sent)
    response_headers: Mapping[str, str] = field(default_factory=dict)
    _call_tool: CallTool | None = field(default=None, repr=False)

    def arguments_as(self, model: type[M]) -> M:
        """The arguments as a `model` (a class of models.py, e.g. `ListPetsArgs`): a typed copy
        (change `arguments` or the request to change what is sent); ModelMismatch if they do not
        fit."""
        return validated(model, self.arguments, f"the arguments of {self.tool!r} do not fit")

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> Result:
        """Call another tool of this server (its hooks run too); for your async tools."""
        if self._call_tool is None:
            raise HookError("call_tool is not available outside a running server")
        return Result.from_mcp(await self._call_tool(name, dict(arguments or {})))


@dataclass(frozen=True)
class Hook:
    kind: str  # "before_request", "after_result" or "http_client"
    function: Callable[..., Any]
    tools: frozenset[str]  # empty: every tool
    errors: bool = False

    @property
    def name(self) -> str:
        return str(getattr(self.function, "__qualname__", None) or repr(self.function))


@dataclass(frozen=True)
class UserTool:
    function: Callable[..., Any]
    wire: dict[str, Any]  # as listed by tools/list
    with_call: bool  # the function takes (arguments, call)

    @property
    def name(self) -> str:
        return str(self.wire["name"])

    @property
    def function_name(self) -> str:
        return str(getattr(self.function, "__qualname__", None) or repr(self.function))


class Hooks:
    """The registry `hooks.py` fills (the rules: the package README's "Hooks" section)."""

    def __init__(self) -> None:
        self.hooks: list[Hook] = []
        self.tools: dict[str, UserTool] = {}

    def before_request(self, *tools: str) -> Callable[[F], F]:
        """`@hooks.before_request()` for every tool, `@hooks.before_request("a", "b")` for some."""
        return self._register("before_request", tools, False)

    def after_result(self, *tools: str, errors: bool = False) -> Callable[[F], F]:
        """`@hooks.after_result(...)`: successful results only, error results too with errors=True."""
        return self._register("after_result", tools, errors)

    def http_client(self) -> Callable[[F], F]:
        """`@hooks.http_client()`: f(options) adjusts the httpx2.AsyncClient keyword arguments."""
        return self._register("http_client", (), False)

    def _register(self, kind: str, tools: tuple[str, ...], errors: bool) -> Callable[[F], F]:
        if not all(isinstance(tool, str) and tool for tool in tools):
            raise TypeError(f"@hooks.{kind}(...) takes tool names, not {tools!r} (mind the ())")

        def register(function: F) -> F:
            if not callable(function):
                raise TypeError(f"@hooks.{kind}(...) decorates a function, not {function!r}")
            self.hooks.append(Hook(kind, function, frozenset(tools), errors))
            return function

        return register

    def tool(
        self,
        name: str | None = None,
        *,
        description: str | None = None,
        input_schema: Mapping[str, Any] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        title: str | None = None,
        annotations: Mapping[str, Any] | None = None,
    ) -> Callable[[F], F]:
        """A tool of your own; the name defaults to the function's, the description to its docstring."""
        if callable(name):
            raise TypeError("use @hooks.tool(...) with parentheses")

        def register(function: F) -> F:
            tool_name = name or function.__name__
            if not isinstance(tool_name, str) or not _TOOL_NAME.fullmatch(tool_name):
                raise ValueError(f"tool name {tool_name!r}: use 1-128 of A-Z a-z 0-9 _ . -")
            if tool_name in self.tools:
                raise ValueError(f"tool {tool_name!r} is defined twice in hooks.py")
            schema = dict(input_schema or {"type": "object", "properties": {}})
            for which, given in (("input_schema", schema), ("output_schema", output_schema)):
                if given is not None and given.get("type") != "object":
                    raise ValueError(f"tool {tool_name!r}: {which} must have type 'object'")
            wire: dict[str, Any] = {"name": tool_name, "title": title}
            wire["description"] = description or inspect.getdoc(function) or ""
            wire.update(inputSchema=schema, outputSchema=output_schema, annotations=annotations)
            wire = {key: value for key, value in wire.items() if value is not None}
            params = inspect.signature(function).parameters.values()
            positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
            self.tools[tool_name] = UserTool(function, wire, positional >= 2)
            return function

        return register

    def before_for(self, tool: str) -> list[Hook]:
        """The before_request hooks of `tool`, in order."""
        return self._of("before_request", tool, False)

    def after_for(self, tool: str, is_error: bool) -> list[Hook]:
        """The after_result hooks of `tool` for a result (an error: those with errors=True)."""
        return self._of("after_result", tool, is_error)

    def client_hooks(self) -> list[Hook]:
        """The http_client hooks, in order."""
        return [h for h in self.hooks if h.kind == "http_client"]

    def _of(self, kind: str, tool: str, is_error: bool) -> list[Hook]:
        wanted = (h for h in self.hooks if h.kind == kind and (h.errors or not is_error))
        return [h for h in wanted if not h.tools or tool in h.tools]

    def check(self, known: Collection[str]) -> None:
        """Every tool a hook names exists (a typo would silently never run)."""
        for hook in self.hooks:
            if unknown := sorted(tool for tool in hook.tools if tool not in known):
                raise ConfigError(
                    f"hooks.py: the {hook.kind} hook {hook.name!r} names unknown tool(s) "
                    f"{', '.join(map(repr, unknown))}"
                )
