"""Plain tool calls on a stdio connection, answered without the SDK's request pipeline.

Through the SDK, a tools/call costs more CPU than the HTTP exchange it proxies: the line is validated into
pydantic models, relayed through a memory stream, spawned into a task group, passed through the middleware
chain, validated again for its method and version, and the result shaped and serialised. A *plain* call on
a connection the SDK initialized is answered here instead, with the bytes the SDK would have written:

- the SDK answered `initialize` (the version it negotiated is a handshake version, 2024-11-05 .. 2025-11-25);
- the line is exactly `{"jsonrpc": "2.0", "id": <integer or string>, "method": "tools/call", "params":
  {"name": <a tool of this server>, "arguments": <object or null, optional>}}`: no `_meta` (progress tokens,
  trace context, the per-request envelope of the modern protocol), no `task`, no other member;
- no OpenTelemetry tracer provider is installed (the SDK would record a span for the call), and the server
  has only its default middleware and no cache hint for tools/call.

Every other message, and every call when PREFIX_STDIO_CALLS=sdk, goes to the SDK unchanged. Kept from the
SDK's dispatcher: each call runs in a task of its own (calls overlap); `notifications/cancelled` cancels it
and nothing is answered (the notification still reaches the SDK); at the end of input the calls still
running are cancelled and answered "Connection closed"; an exception the runtime lets through is answered
as the SDK answers it; results pass the SDK's own per-version shaping (`serialize_server_result`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
import mcp_types as types
import pydantic_core
from mcp.shared.dispatcher import as_request_id, coerce_request_id
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp.shared.message import SessionMessage
from mcp_types.methods import serialize_server_result
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from opentelemetry import trace
from pydantic import ValidationError

logger = logging.getLogger(__name__)

METHOD = "tools/call"
REQUEST_MEMBERS = frozenset({"jsonrpc", "id", "method", "params"})
PARAM_MEMBERS = frozenset({"name", "arguments"})
DEFAULT_MIDDLEWARE = frozenset({"OpenTelemetryMiddleware", "ListedOnce"})  # mcp's and wiring.py's
SHUTDOWN_WRITE_SECONDS = 1.0  # the SDK's bound for the "Connection closed" answers at end of input

RequestId = int | str
Call = Callable[[str, Mapping[str, Any] | None], Awaitable[types.CallToolResult]]


class WriteStream(Protocol):
    """stdio_transport.LineWriteStream: the SDK's messages and these answers go out the same way."""

    async def send(self, item: SessionMessage, /) -> None: ...


@dataclass
class DirectCalls:
    """Takes the plain tool calls of one stdio connection (see the module docstring)."""

    knows: Callable[[str], bool]  # whether a name is a tool the runtime answers
    call: Call  # the runtime's call_tool
    enabled: bool = True
    answered: int = 0  # calls answered here (for tests and curious users)
    _version: str | None = None
    _initializing: set[RequestId] = field(default_factory=set)
    _running: dict[RequestId, asyncio.Task[None]] = field(default_factory=dict)
    _peer_cancelled: set[asyncio.Task[None]] = field(default_factory=set)
    _out: WriteStream | None = None

    @classmethod
    def for_server(cls, server: Any, tools: Any, enabled: bool = True) -> DirectCalls:
        """Disabled when the server's pipeline is not the default one (then only the SDK knows it)."""
        middleware = {type(each).__name__ for each in server.middleware}
        default = middleware <= DEFAULT_MIDDLEWARE and METHOD not in server.cache_hints
        return cls(tools.knows, tools.call_tool, enabled=enabled and default)

    def attach(self, out: WriteStream) -> None:
        self._out = out

    def take(self, line: bytes) -> bool:
        """Whether `line` is a plain call, now being answered here; otherwise the SDK gets it."""
        if not self.enabled or self._out is None:
            return False
        try:
            message = pydantic_core.from_json(line)  # the parser the SDK's validation uses
        except ValueError:
            return False
        if not isinstance(message, dict):
            return False
        method = message.get("method")
        if method == METHOD:
            return self._start(message)
        if method == "initialize" and (request_id := as_request_id(message.get("id"))) is not None:
            self._initializing.add(request_id)
        elif method == "notifications/cancelled":
            self._cancel(message.get("params"))
        return False

    def sent(self, message: object) -> None:
        """Sees every message the SDK writes: its answer to `initialize` opens (or closes) the way."""
        if not isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            return
        if message.id not in self._initializing:
            return
        self._initializing.discard(message.id)
        if isinstance(message, types.JSONRPCResponse):
            version = message.result.get("protocolVersion")
            self._version = version if version in HANDSHAKE_PROTOCOL_VERSIONS else None

    async def close(self) -> None:
        """End of input: calls still running are cancelled and answered "Connection closed"."""
        running = list(self._running.values())
        for task in running:
            task.cancel()
        if running:
            await asyncio.wait(running)

    def _start(self, message: dict[str, Any]) -> bool:
        version = self._version
        if version is None or message.keys() != REQUEST_MEMBERS or message["jsonrpc"] != "2.0":
            return False
        request_id, params = as_request_id(message["id"]), message["params"]
        if request_id is None or not isinstance(params, dict) or not _plain(params, self.knows):
            return False
        if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
            return False  # a tracer is installed: the SDK records the call's span
        key = coerce_request_id(request_id)
        task = asyncio.get_running_loop().create_task(self._answer(request_id, params, version))
        self._running[key] = task  # a duplicate id replaces the older one, as in the SDK
        task.add_done_callback(lambda _: self._forget(key, task))
        return True

    def _forget(self, key: RequestId, task: asyncio.Task[None]) -> None:
        if self._running.get(key) is task:
            del self._running[key]
        self._peer_cancelled.discard(task)

    def _cancel(self, params: object) -> None:
        request_id = as_request_id(params.get("requestId")) if isinstance(params, dict) else None
        task = self._running.get(coerce_request_id(request_id)) if request_id is not None else None
        if task is not None:
            self._peer_cancelled.add(task)
            task.cancel()

    async def _answer(self, request_id: RequestId, params: dict[str, Any], version: str) -> None:
        try:
            result = await self.call(params["name"], params.get("arguments"))
            answer: types.JSONRPCResponse | types.JSONRPCError = types.JSONRPCResponse(
                jsonrpc="2.0", id=request_id, result=_shaped(result, version)
            )
        except asyncio.CancelledError:
            if (
                asyncio.current_task() not in self._peer_cancelled
            ):  # end of input: the client is told
                await self._closed(request_id)
            raise
        except Exception as error:  # the SDK dispatcher's boundary, answered the same way
            answer = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=_error_data(error))
        self.answered += 1
        await self._write(answer)

    async def _closed(self, request_id: RequestId) -> None:
        error = types.ErrorData(code=types.CONNECTION_CLOSED, message="Connection closed")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(SHUTDOWN_WRITE_SECONDS):
                await self._write(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))

    async def _write(self, message: types.JSONRPCResponse | types.JSONRPCError) -> None:
        assert self._out is not None
        try:
            await self._out.send(SessionMessage(message))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            logger.debug("dropped the answer to %r: the client closed its end", message.id)


def _plain(params: dict[str, Any], knows: Callable[[str], bool]) -> bool:
    name, arguments = params.get("name"), params.get("arguments")
    return (
        params.keys() <= PARAM_MEMBERS
        and isinstance(name, str)
        and (arguments is None or isinstance(arguments, dict))
        and knows(name)
    )


def _shaped(result: types.CallToolResult, version: str) -> dict[str, Any]:
    """The result as the SDK's runner shapes it for `version`."""
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    try:
        return serialize_server_result(METHOD, version, dumped)
    except ValidationError:
        logger.exception("handler for %r returned an invalid result", METHOD)
        raise MCPError(
            code=types.INTERNAL_ERROR, message="Handler returned an invalid result"
        ) from None


def _error_data(error: Exception) -> types.ErrorData:
    known = handler_exception_to_error_data(error)
    if known is not None:
        return known
    logger.exception("handler for %r raised", METHOD)
    return types.ErrorData(code=0, message=str(error))  # the SDK dispatcher's catch-all (code 0)
