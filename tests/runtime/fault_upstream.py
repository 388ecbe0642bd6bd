"""A fault-injecting HTTP upstream on 127.0.0.1: an asyncio server on raw sockets, in its own thread,
that answers each request with the next fault of its script (then `ok`). Each fault is one thing
real APIs and networks do: slow headers, a slow or reset body, a truncated chunked body, invalid
JSON, an HTML error page, 5xx and 429 answers (with Retry-After)."""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

OK_BODY = b'{"ok": true}'
STALL = 30.0  # seconds a slow fault waits: past any test's timeout


def _response(status: str, body: bytes, content_type: str = "application/json", extra: str = "") -> bytes:
    head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n{extra}"
    return head.encode() + b"\r\n" + body


class FaultUpstream:
    """`script(*faults)` queues what the next requests get; `served` counts requests seen."""

    def __init__(self) -> None:
        self.faults: deque[str] = deque()
        self.served = 0
        self.heads: list[bytes] = []  # each request's head, as received
        self.in_flight = self.most_in_flight = 0
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *faults: str) -> None:
        self.faults.clear()
        self.faults.extend(faults)
        self.served = 0
        self.heads.clear()

    def start(self) -> FaultUpstream:
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def stop(self) -> None:
        """Open connections are cancelled and the loop closed (no coroutine left for the GC)."""
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self._server, self.port = server, server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        self._loop.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; False: the connection is done."""
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if length:
            await reader.readexactly(length)
        self.served += 1
        self.heads.append(head)
        fault = self.faults.popleft() if self.faults else "ok"
        return await self._act(fault, writer)

    async def _act(self, fault: str, writer: asyncio.StreamWriter) -> bool:
        kind, _, arg = fault.partition(":")
        if kind in ("ok", "delay"):  # delay:SECONDS, then ok (counted in flight while waiting)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            await asyncio.sleep(float(arg or 0))
            self.in_flight -= 1
            writer.write(_response("200 OK", OK_BODY))
        elif kind == "slow_headers":
            await asyncio.sleep(STALL)
            return False
        elif kind == "slow_body":
            writer.write(_response("200 OK", OK_BODY)[:-4])
            await writer.drain()
            await asyncio.sleep(STALL)
            return False
        elif kind == "reset_mid_body":
            writer.write(_response("200 OK", b'{"items": [' + b"1," * 500 + b"1]}")[:-600])
            await writer.drain()
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
            return False
        elif kind == "truncated_chunked":
            head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            writer.write(head.encode() + b'6\r\n{"a": \r\n')
            await writer.drain()
            return False
        elif kind == "invalid_json":
            writer.write(_response("200 OK", b'{"ok": tru'))
        elif kind == "bad_gzip":  # telematicssdk.com's spec gives its answers a gzip header; Prism sends it
            writer.write(_response("200 OK", OK_BODY, extra="Content-Encoding: gzip\r\n"))
        elif kind == "html_500":
            page = b"<html><body><h1>500 Internal Server Error</h1>nginx</body></html>"
            writer.write(_response("500 Internal Server Error", page, "text/html"))
        elif kind == "status":  # status:503 or status:429:Retry-After value
            code, _, retry = arg.partition(":")
            extra = f"Retry-After: {retry}\r\n" if retry else ""
            writer.write(_response(f"{code} Error", b'{"error": "busy"}', extra=extra))
        else:
            raise ValueError(f"unknown fault {fault!r}")
        await writer.drain()
        return True


@contextmanager
def fault_upstream() -> Iterator[FaultUpstream]:
    server = FaultUpstream().start()
    try:
        yield server
    finally:
        server.stop()
