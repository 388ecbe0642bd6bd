"""The streamable-HTTP load benchmark: a tiny run against the SDK's empty server with its no-op tool, and
the client's reading of chunked SSE answers that report an isError result, against a stand-in server."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from benchmarks.http_load import McpSession, Reply, measure_http

REPO = Path(__file__).resolve().parents[2]


def empty_server_arguments(port: int) -> list[str]:
    return ["--http", str(port)]


@pytest.mark.e2e
def test_measure_http_against_the_empty_server() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "benchmarks.empty_server", "--noop"]
    figures = measure_http(
        command, env, "noop", {}, clients=2, calls=40, warmup=10, listen_arguments=empty_server_arguments
    )
    assert (figures.clients, figures.calls, figures.errors) == (2, 40, 0)
    assert figures.calls_per_second > 0 and figures.seconds > 0
    assert 0 < figures.rss_mib_after_warmup <= figures.peak_mib
    assert 0 < figures.rss_mib_at_end <= figures.peak_mib
    assert figures.server_cpu_seconds >= 0 and figures.client_cpu_seconds >= 0


def test_reply_reads_json_and_sse_bodies() -> None:
    json_reply = Reply(200, {b"content-type": b"application/json"}, b'{"jsonrpc":"2.0","id":1,"result":{}}')
    sse_body = (
        b'event: message\r\ndata: {"jsonrpc":"2.0","method":"x"}\r\n\r\ndata: {"id":2,"result":{}}\r\n\r\n'
    )
    sse_reply = Reply(200, {b"content-type": b"text/event-stream"}, sse_body)
    assert json_reply.message()["id"] == 1
    assert sse_reply.message()["id"] == 2
    with pytest.raises(ValueError):
        Reply(200, {b"content-type": b"text/event-stream"}, b": ping\r\n\r\n").message()


ERROR_EVENT = b'data: {"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}\r\n\r\n'
SUCCESS_EVENT = b'data: {"jsonrpc":"2.0","id":2,"result":{"content":[]}}\r\n\r\n'


@asynccontextmanager
async def chunked_sse_server(events: list[bytes]) -> AsyncIterator[int]:
    """Answers the n-th request with events[n] as a chunked SSE body split in two chunks."""
    answers = iter(events)

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for answer in answers:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line[15:]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
            )
            await reader.readexactly(length)
            half = len(answer) // 2
            chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (answer[:half], answer[half:]))
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                + chunks
                + b"0\r\n\r\n"
            )
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    async with server:
        yield server.sockets[0].getsockname()[1]


def test_a_call_answered_with_is_error_counts_as_an_error() -> None:
    async def two_calls() -> tuple[bool, bool, str]:
        async with chunked_sse_server([ERROR_EVENT, SUCCESS_EVENT]) as port:
            session = McpSession("127.0.0.1", port)
            try:
                first = await session.call(b'{"name":"t","arguments":{}}')
                second = await session.call(b'{"name":"t","arguments":{}}')
            finally:
                await session.close()
            return first, second, session.last_error

    first, second, last_error = asyncio.run(two_calls())
    assert (first, second) == (False, True)
    assert '"isError": true' in last_error
