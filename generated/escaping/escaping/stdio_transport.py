"""MCP over stdio on the event loop itself: the SDK's `stdio_server()` reads and writes the pipes through
worker threads (three thread hand-offs per request); this transport uses asyncio's pipe transports.

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
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

MAX_LINE_BYTES = 1 << 30  # one JSON-RPC message per line; the SDK sets no limit either


def _pipe_like(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """(read_stream, write_stream) for `Server.run`, like `mcp.server.stdio.stdio_server()`."""
    if not (_pipe_like(0) and _pipe_like(1)):
        from mcp.server.stdio import stdio_server

        async with stdio_server() as streams:
            yield streams
        return
    wire_in, wire_out = _divert(0, os.O_RDONLY), _divert(1, os.O_WRONLY)
    try:
        async with _serve(wire_in, wire_out) as streams:
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
async def _serve(wire_in: int, wire_out: int) -> AsyncIterator[tuple[Any, Any]]:
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
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_read_messages, reader, read_send)
            tasks.start_soon(_write_messages, writer, write_receive)
            yield read_receive, write_send
            tasks.cancel_scope.cancel()
    finally:
        read_transport.close()
        write_transport.close()


async def _read_messages(reader: asyncio.StreamReader, send: Any) -> None:
    """Each line is one JSON-RPC message; a line that is not one is passed on as the exception."""
    async with send:
        while True:
            try:
                line = await reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as end:
                line = end.partial
            except asyncio.LimitOverrunError:
                return
            if not line:
                return
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except (
                ValueError
            ) as error:  # pydantic's ValidationError; the server answers it, as with the SDK's
                await send.send(error)
                continue
            await send.send(SessionMessage(message))


async def _write_messages(writer: asyncio.StreamWriter, receive: Any) -> None:
    async with receive:
        async for session_message in receive:
            data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
            writer.write(data.encode() + b"\n")
            try:
                await writer.drain()
            except ConnectionError:  # the client closed its end: nothing more can be said
                return
