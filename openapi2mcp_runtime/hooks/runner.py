"""How the runtime runs the code of `hooks.py`: an exception in a hook or tool becomes a HookFailed,
which the runtime answers with an isError result naming the function (its traceback: the log)."""

from __future__ import annotations

import importlib
import inspect
import logging
import traceback
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import anyio
import mcp.types as types

from ..results import responses as res
from ..settings import ConfigError
from . import api as hk

T = TypeVar("T")
logger = logging.getLogger(__name__)
Wire = tuple[str, str, list[tuple[bytes, bytes]], bytes | None]  # method, URL, headers, body
_NOTHING_SENT = "Nothing was sent to the API."


class HookFailed(hk.HookError):
    """Your code raised `original`: the message names the function, the log gets the traceback."""

    def __init__(self, message: str, original: BaseException) -> None:
        super().__init__(message)
        self.original = original


def listed_tools(hooks: hk.Hooks, taken: Collection[str]) -> list[dict[str, Any]]:
    """The tools of hooks.py as tools/list gives them; a taken name or a bad tool: ConfigError."""
    listed = []
    for tool in hooks.tools.values():
        where = f"hooks.py: tool {tool.name!r} ({tool.function_name})"
        if tool.name in taken:
            raise ConfigError(f"{where} has the name of a generated tool: choose another")
        try:
            wire = types.Tool.model_validate(tool.wire)
        except ValueError as error:  # pydantic's ValidationError
            raise ConfigError(f"{where} is not a valid MCP tool: {error}") from None
        listed.append(wire.model_dump(by_alias=True, exclude_none=True, mode="json"))
    return listed


@contextmanager
def _your_code(what: str, consequence: str) -> Iterator[None]:
    """Any exception of your code (but a HookError) becomes this call's HookFailed."""
    try:
        yield
    except hk.HookError:
        raise
    except Exception as error:
        message = f"{what} in hooks.py failed ({type(error).__name__}: {str(error)[:500]})."
        raise HookFailed(f"{message} {consequence}".strip(), error) from None


async def _run(function: Callable[..., Any], returns: type[T], *args: Any) -> T | None:
    """`function(*args)`, awaited if need be: None or a `returns`, else a TypeError."""
    value = function(*args)
    value = await value if inspect.isawaitable(value) else value
    if value is not None and not isinstance(value, returns):
        raise TypeError(f"it returned {type(value).__name__}, not a {returns.__name__} or None")
    return value


async def run_before(hooks: Collection[hk.Hook], call: hk.Call, request: hk.Request) -> Wire:
    """The request as the hooks leave it, ready to send; `call.request` is set to it."""
    wire: Wire | None = None
    for hook in hooks:
        with _your_code(f"The before_request hook {hook.name!r}", _NOTHING_SENT):
            request = await _run(hook.function, hk.Request, call, request) or request
            wire = request.wire()
    call.request = request
    return wire or request.wire()


async def make_client(
    hooks: Collection[hk.Hook], options: dict[str, Any], make: Callable[..., T]
) -> T:
    """`make(**options)` with the options as the http_client hooks leave them."""
    for hook in hooks:
        with _your_code(f"The http_client hook {hook.name!r}", _NOTHING_SENT):
            changed = await _run(hook.function, dict, options)
            options = changed if changed is not None else options
    names = ", ".join(repr(hook.name) for hook in hooks)
    what = f"The HTTP client made with the options of the http_client hook(s) {names}"
    with _your_code(what, _NOTHING_SENT):  # without hooks, the runtime's own options cannot fail
        return make(**options)


async def run_after(
    hooks: Collection[hk.Hook], call: hk.Call, result: types.CallToolResult
) -> types.CallToolResult:
    """The result as the hooks leave it (its `_meta` kept)."""
    current, meta = hk.Result.from_mcp(result), result.meta
    answered = f"The API answered HTTP {call.status}." if call.status else ""
    for hook in hooks:
        with _your_code(f"The after_result hook {hook.name!r}", answered):
            current = await _run(hook.function, hk.Result, call, current) or current
            result = current.to_mcp().model_copy(update={"meta": meta})
    return result


async def after_checked(
    hooks: list[hk.Hook],
    call: hk.Call,
    result: types.CallToolResult,
    scrub: Callable[[str], str],
    conformed: Callable[[str, types.CallToolResult, str], types.CallToolResult],
) -> types.CallToolResult:
    """The result as the `after_result` hooks leave it, checked against the output schema by
    `conformed`; a hook's failure as an isError result."""
    try:
        changed = await run_after(hooks, call, result)
    except hk.HookError as error:
        return failure_result(call.tool, error, scrub)
    names = ", ".join(repr(hook.name) for hook in hooks)
    return conformed(call.tool, changed, f"as the after_result hook(s) {names} left it")


def failure_result(
    name: str, error: hk.HookError, scrub: Callable[[str], str]
) -> types.CallToolResult:
    """A hook's failure as the call's isError result; its traceback to the log."""
    if isinstance(error, HookFailed):
        log_failure(f"hooks.py, tool {name}: {error}", error.original, scrub)
    return types.CallToolResult(content=[types.TextContent(text=str(error))], is_error=True)


def log_failure(what: str, error: BaseException, scrub: Callable[[str], str]) -> None:
    """`error`'s traceback to the server's log, secrets scrubbed."""
    details = "".join(traceback.format_exception(error))
    logger.error("%s:\n%s", what, scrub(details))


async def run_tool(tool: hk.UserTool, call: hk.Call) -> types.CallToolResult:
    """Your tool's return value as a result; a sync tool runs in a worker thread."""
    args = (call.arguments, call) if tool.with_call else (call.arguments,)
    with _your_code(f"Tool {tool.name!r} ({tool.function_name})", ""):
        if inspect.iscoroutinefunction(tool.function):
            value = await tool.function(*args)
        else:
            value = await anyio.to_thread.run_sync(tool.function, *args)
            value = await value if inspect.isawaitable(value) else value
        result = hk.Result.of(value).to_mcp()
        if not isinstance(value, hk.Result | dict | str):  # Result.of put it in {"result": ...}
            result = result.model_copy(update={"meta": {res.FRAMED: True}})
        return result


def load_hooks(package: str | None) -> hk.Hooks:
    """`hooks` of the package's hooks.py, or no hooks without one; a broken one: ConfigError."""
    if not package:
        return hk.Hooks()
    try:
        module = importlib.import_module(f"{package}.hooks")
    except Exception as error:  # your code: report it and stop at start, never later
        if isinstance(error, ModuleNotFoundError) and error.name == f"{package}.hooks":
            return hk.Hooks()
        raise ConfigError(f"cannot load hooks.py:\n{traceback.format_exc()}") from None
    found = getattr(module, "hooks", None)
    if not isinstance(found, hk.Hooks):
        raise ConfigError("hooks.py must define `hooks = Hooks()` (from .hooks_api import Hooks)")
    return found
