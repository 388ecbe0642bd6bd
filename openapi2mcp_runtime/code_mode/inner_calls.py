"""A program's calls of `api` functions: each one a call of its tool through the server's own path
(the tool_runtime's `call_tool`: arguments validated, credentials, retries, rate limits, an audit
line marked with the run), its answer made the program's value, or an API error its OSError."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from datetime import date, datetime
from datetime import time as day_time
from typing import Any

import mcp.types as types
from mcp import MCPError

from ..results import responses as res
from ..settings import CodeLimits
from .outcomes import Stopped
from .stubs import Function

LAST_ERROR = "last_error"
# (tool, arguments, the tools offered) → its result, untrimmed (the program reads it whole)
CallTool = Callable[[str, Mapping[str, Any], Collection[str]], Awaitable[types.CallToolResult]]


class Run:
    """One program's calls: at most `limits.max_calls` of them, before `deadline`."""

    def __init__(
        self,
        functions: Mapping[str, Function],
        offered: Collection[str],
        call_tool: CallTool,
        limits: CodeLimits,
    ) -> None:
        self.functions, self.offered = functions, offered
        self.call_tool, self.limits = call_tool, limits
        self.deadline = time.monotonic() + limits.timeout
        self.calls = 0
        self.last_error: dict[str, Any] | None = None

    async def __call__(
        self, function: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """The sandbox's answer to `api.<name>(...)`: a return value or an exception."""
        name = function.removeprefix("api.")
        if name == LAST_ERROR:
            return {"return_value": self.last_error}
        if (called := self.functions.get(name)) is None:  # (the module has no other function)
            return {"exception": AttributeError(f"module 'api' has no function {name!r}")}
        if args:
            return {"exception": TypeError(f"api.{name}() takes keyword arguments only")}
        self._count()
        arguments = {called.keywords.get(key, key): plain(value) for key, value in kwargs.items()}
        try:
            result = await self.call_tool(called.tool, arguments, self.offered)
        except MCPError as error:  # an unknown tool: not offered to this request
            return {"exception": AttributeError(error.error.message)}
        if not res.succeeded(result):
            self.last_error = error_of(called.tool, result)
            return {"exception": OSError(self.last_error["message"])}
        return {"return_value": value_of(result)}

    def _count(self) -> None:
        prefix = self.limits.prefix
        if self.calls >= self.limits.max_calls:
            raise Stopped(
                f"call limit: the program tried more than {self.limits.max_calls} API calls"
                f" ({prefix}_CODE_MAX_CALLS); the {self.calls} before were sent, no more"
            )
        if time.monotonic() >= self.deadline:
            raise Stopped(
                f"time limit: the program ran past {self.limits.timeout:g} s"
                f" ({prefix}_CODE_TIMEOUT) before its API call {self.calls + 1}"
            )
        self.calls += 1


def value_of(result: types.CallToolResult) -> Any:
    """What a successful call gives the program: the API's JSON as the result's text has it (whole:
    structuredContent leaves out what deviates from the output schema, a program reads what the API
    sent), out of `result` when the server framed it there (res.FRAMED); else the text; else a
    description."""
    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    if result.is_error:  # succeeded: the data follows the note on its deviation
        texts = texts[1:]
    if not texts:
        kinds = ", ".join(block.type for block in result.content)
        return f"(the API answered with {kinds or 'nothing'}: not readable by a program)"
    try:
        value = json.loads(texts[0])
    except ValueError:
        return texts[0]
    framed = (
        (result.meta or {}).get(res.FRAMED)
        and isinstance(value, dict)
        and value.keys() == {"result"}
    )
    return value["result"] if framed else value  # (an after_result hook may have changed a frame)


def error_of(tool: str, result: types.CallToolResult) -> dict[str, Any]:
    """The ApiError of a failed call: its tool, HTTP status (None when nothing was answered), the
    server's message, and the API's response body (JSON read when it is)."""
    message = "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
    status, body = None, None
    head, _, rest = message.partition("\n")
    if head.startswith("The API answered HTTP "):
        number = head.removeprefix("The API answered HTTP ").split(" ", 1)[0]
        status = int(number) if number.isdigit() else None
    if (at := rest.find("Response body: ")) >= 0:
        text = rest[at + len("Response body: ") :]
        try:
            body = json.loads(text)
        except ValueError:
            body = text
    return {"tool": tool, "status": status, "message": message, "body": body}


def plain(value: Any) -> Any:
    """A program's value as JSON data: tuples and sets as lists, dates as ISO 8601 text, other
    objects as their repr (the tool's argument validation then says what was expected)."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, set | frozenset):
        items = [plain(item) for item in value]
        return sorted(items, key=json.dumps)
    if isinstance(value, datetime | date | day_time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return repr(value)
