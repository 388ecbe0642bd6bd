"""How the runtime runs the code of `hooks.py` (the rules are in hooks_api.py).

Your code never crashes the server: an exception in a hook or tool becomes a HookFailed, which the
runtime answers with an isError result naming the function (and logs with its traceback).
"""

from __future__ import annotations

import importlib
import inspect
import traceback
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import mcp.types as types

if TYPE_CHECKING or not __package__:  # mypy, or loaded as a top-level module next to its siblings
    from hooks_api import (  # type: ignore[import-not-found,unused-ignore]
        Call,
        Hook,
        HookError,
        Hooks,
        Request,
        Result,
        UserTool,
    )
    from settings import ConfigError  # type: ignore[import-not-found,unused-ignore]
else:
    from .hooks_api import Call, Hook, HookError, Hooks, Request, Result, UserTool
    from .settings import ConfigError

T = TypeVar("T")
Wire = tuple[str, str, list[tuple[bytes, bytes]], bytes | None]  # method, URL, headers, body


class HookFailed(HookError):
    """Your code raised `original`: the message names the function, the log gets the traceback."""

    def __init__(self, message: str, original: BaseException) -> None:
        super().__init__(message)
        self.original = original


def listed_tools(hooks: Hooks, taken: Collection[str]) -> list[dict[str, Any]]:
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


async def _invoke(function: Callable[..., Any], *args: Any) -> Any:
    value = function(*args)
    return await value if inspect.isawaitable(value) else value


def _failed(what: str, error: Exception, consequence: str) -> HookFailed:
    message = f"{what} in hooks.py failed ({type(error).__name__}: {str(error)[:500]})."
    return HookFailed(f"{message} {consequence}".strip(), error)


async def run_before(hooks: Collection[Hook], call: Call, request: Request) -> Wire:
    """The request as the hooks leave it, ready to send; `call.request` is set to it."""
    wire: Wire | None = None
    for hook in hooks:
        try:
            changed = await _invoke(hook.function, call, request)
            if changed is not None and not isinstance(changed, Request):
                raise TypeError(f"it returned {type(changed).__name__}, not a Request or None")
            request = changed or request
            wire = request.wire()
        except HookError:
            raise
        except Exception as error:  # your code: any failure becomes this call's error result
            raise _failed(
                f"The before_request hook {hook.name!r}", error, "Nothing was sent to the API."
            ) from None
    call.request = request
    return wire or request.wire()


async def make_client(
    hooks: Collection[Hook], options: dict[str, Any], make: Callable[..., T]
) -> T:
    """`make(**options)` with the options as the http_client hooks leave them."""
    for hook in hooks:
        try:
            changed = await _invoke(hook.function, options)
            if changed is not None and not isinstance(changed, dict):
                raise TypeError(f"it returned {type(changed).__name__}, not a dict or None")
            options = changed if changed is not None else options
        except HookError:
            raise
        except Exception as error:  # your code: any failure becomes this call's error result
            raise _failed(
                f"The http_client hook {hook.name!r}", error, "Nothing was sent to the API."
            ) from None
    try:
        return make(**options)
    except Exception as error:
        if not hooks:
            raise
        names = ", ".join(repr(hook.name) for hook in hooks)
        what = f"The HTTP client made with the options of the http_client hook(s) {names}"
        raise _failed(what, error, "Nothing was sent to the API.") from None


async def run_after(
    hooks: Collection[Hook], call: Call, result: types.CallToolResult
) -> types.CallToolResult:
    """The result as the hooks leave it (its `_meta` kept)."""
    current, meta = Result.from_mcp(result), result.meta
    for hook in hooks:
        try:
            changed = await _invoke(hook.function, call, current)
            if changed is not None and not isinstance(changed, Result):
                raise TypeError(f"it returned {type(changed).__name__}, not a Result or None")
            current = changed or current
            result = current.to_mcp().model_copy(update={"meta": meta})
        except HookError:
            raise
        except Exception as error:  # your code: any failure becomes this call's error result
            answered = f"The API answered HTTP {call.status}." if call.status else ""
            raise _failed(f"The after_result hook {hook.name!r}", error, answered) from None
    return result


async def run_tool(tool: UserTool, call: Call) -> types.CallToolResult:
    """Your tool's return value as a result; a sync tool runs in a worker thread."""
    args = (call.arguments, call) if tool.with_call else (call.arguments,)
    try:
        if inspect.iscoroutinefunction(tool.function):
            value = await tool.function(*args)
        else:
            value = await anyio.to_thread.run_sync(tool.function, *args)
            value = await value if inspect.isawaitable(value) else value
        return Result.of(value).to_mcp()
    except HookError:
        raise
    except Exception as error:  # your code: any failure becomes this call's error result
        raise _failed(f"Tool {tool.name!r} ({tool.function_name})", error, "") from None


def load_hooks(package: str | None) -> Hooks:
    """`hooks` of the package's hooks.py, or no hooks without one; a broken one: ConfigError."""
    if not package:
        return Hooks()
    try:
        module = importlib.import_module(f"{package}.hooks")
    except Exception as error:  # your code: report it and stop at start, never later
        if isinstance(error, ModuleNotFoundError) and error.name == f"{package}.hooks":
            return Hooks()
        raise ConfigError(f"cannot load hooks.py:\n{traceback.format_exc()}") from None
    found = getattr(module, "hooks", None)
    if not isinstance(found, Hooks):
        raise ConfigError("hooks.py must define `hooks = Hooks()` (from .hooks_api import Hooks)")
    return found
