"""The local upstream API of the call benchmarks: an asyncio HTTP/1.1 server on 127.0.0.1 that answers
every request with one fixed JSON body (keep-alive, Content-Length framing).

Run as a process: `python -m benchmarks.upstream BODY_FILE` prints its port on stdout, then serves until
stdin closes (so it never outlives the benchmark). Request bodies are read and discarded (bounded)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 16 * 1024 * 1024


def response_bytes(body: bytes) -> bytes:
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n"
    )
    return head.encode("ascii") + body


async def _serve_connection(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, answer: bytes
) -> None:
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                return
            length = _content_length(head)
            if length is None or length > MAX_BODY_BYTES:
                return
            if length:
                await reader.readexactly(length)
            writer.write(answer)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
        return  # the client went away, or the upstream is shutting down
    finally:
        writer.close()


def _content_length(head: bytes) -> int | None:
    """The request's Content-Length (0 if absent); None for chunked bodies, which we do not read."""
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value.strip() or b"0")
        elif name == b"transfer-encoding":
            return None
    return length


async def serve(body: bytes) -> None:
    answer = response_bytes(body)
    server = await asyncio.start_server(
        lambda r, w: _serve_connection(r, w, answer), "127.0.0.1", 0, limit=MAX_HEADER_BYTES
    )
    port = server.sockets[0].getsockname()[1]
    print(port, flush=True)
    loop = asyncio.get_running_loop()
    stdin_closed = loop.run_in_executor(None, sys.stdin.buffer.read)
    async with server:
        await stdin_closed


def main() -> None:
    asyncio.run(serve(Path(sys.argv[1]).read_bytes()))


if __name__ == "__main__":
    main()
