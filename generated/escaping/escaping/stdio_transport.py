"""MCP over stdio on the event loop itself: the SDK's `stdio_server()` reads and writes the pipes through
worker threads (three thread hand-offs per request); this transport uses asyncio's pipe transports,
read and written by the SDK's own tasks through the stream objects it expects (no task in between).

With a `direct_calls.DirectCalls`, plain tool calls are answered without the SDK's request pipeline (see
direct_calls.py); every other message goes to the SDK.

It keeps the SDK's safety rule: while serving, fd 0 reads the null device and fd 1 writes to stderr, so a
stray print() or a child process cannot corrupt the protocol stream; both are restored on exit. When
stdin/stdout are not pipes or sockets (a terminal, a regular file), the SDK's transport is used as is.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import TYPE_CHECKING, Any, NoReturn

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

if TYPE_CHECKING:
    from direct_calls import DirectCalls  # type: ignore[import-not-found,unused-ignore]

MAX_LINE_BYTES = 1 << 30  # one JSON-RPC message per line; the SDK sets no limit either


def _pipe_like(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@asynccontextmanager
async def stdio_streams(direct: DirectCalls | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """(read_stream, write_stream) for `Server.run`, like `mcp.server.stdio.stdio_server()`."""
    if not (_pipe_like(0) and _pipe_like(1)):
        from mcp.server.stdio import stdio_server

        async with stdio_server() as streams:
            yield streams
        return
    wire_in, wire_out = _divert(0, os.O_RDONLY), _divert(1, os.O_WRONLY)
    try:
        async with _serve(wire_in, wire_out, direct) as streams:
            yield streams
    finally:
        _restore(0, wire_in)
        _restore(1, wire_out)


def _divert(fd: int, mode: int) -> int:
    """A private duplicate of `fd` for the wire; `fd` itself then points at /dev/null (stdin) or stderr."""
    private = os.dup(fd)
    os.set_inheritable(private, False)
    if mode == os.O_RDONLY:
        replacement = os.open(os.devnull, os.O_RDONLY)
        os.dup2(replacement, fd)
        os.close(replacement)
    else:
        os.dup2(2, fd)
    return private


def _restore(fd: int, private: int) -> None:
    with suppress(OSError):
        os.dup2(private, fd)
    with suppress(OSError):
        os.close(private)


@asynccontextmanager
async def _serve(
    wire_in: int, wire_out: int, direct: DirectCalls | None = None
) -> AsyncIterator[tuple[Any, Any]]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
    in_file = os.fdopen(os.dup(wire_in), "rb", buffering=0)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), in_file
    )
    out_file = os.fdopen(os.dup(wire_out), "wb", buffering=0)
    write_transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, out_file
    )
    writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
    write_stream = LineWriteStream(writer, direct)
    if direct is not None:
        direct.attach(write_stream)
    try:
        yield LineReadStream(reader, direct), write_stream
    finally:
        if direct is not None:
            await direct.close()
        read_transport.close()
        write_transport.close()


class LineReadStream:
    """The SDK's ReadStream over the pipe: each line one JSON-RPC message, parsed by the task that
    receives it (no reader task, no hand-off); a line that is not one is received as the exception.
    Lines `direct` takes are answered there; at the end of input it settles the calls it runs.
    """

    def __init__(self, reader: asyncio.StreamReader, direct: DirectCalls | None = None) -> None:
        self._reader, self._direct, self._closed = reader, direct, False

    async def receive(self) -> SessionMessage | Exception:
        if self._closed:
            raise anyio.ClosedResourceError
        line = b""
        while not line.strip() or (self._direct is not None and self._direct.take(line)):
            if self._reader.at_eof():  # blank lines between messages were skipped
                await self._end()
            try:
                line = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as end:
                line = end.partial
            except asyncio.LimitOverrunError:
                await self._end()
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError as error:  # pydantic's ValidationError: passed on, as the SDK's does
            return error
        return SessionMessage(message)

    async def _end(self) -> NoReturn:
        if self._direct is not None:
            await self._direct.close()  # before the SDK's lifespan closes the HTTP client
        raise anyio.EndOfStream

    def __aiter__(self) -> LineReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> LineReadStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class LineWriteStream:
    """The SDK's WriteStream over the pipe: `send` writes the message's line at once (a line is
    never split between messages) and waits only while the pipe is full."""

    def __init__(self, writer: asyncio.StreamWriter, direct: DirectCalls | None = None) -> None:
        self._writer, self._direct, self._closed = writer, direct, False

    async def send(self, item: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        if self._direct is not None:
            self._direct.sent(item.message)
        data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        self._writer.write(data.encode() + b"\n")
        try:
            await self._writer.drain()
        except ConnectionError:  # the client closed its end: nothing more can be said
            raise anyio.BrokenResourceError from None

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> LineWriteStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
