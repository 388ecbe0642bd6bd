"""A recording upstream API for the end-to-end tests: a threading HTTP/1.1 server on 127.0.0.1
(ephemeral port) that records each raw request (request line, target, headers in order, body bytes)
and answers per path prefix with a configurable status, headers and body.

Bounded: bodies over MAX_BODY are refused, at most MAX_REQUESTS are kept, a delayed answer never
waits past `stop()` (which shuts the server down and joins its thread)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY = 4 * 1024 * 1024
MAX_REQUESTS = 1000
MAX_DELAY = 30.0


@dataclass(frozen=True)
class Recorded:
    """One request exactly as it arrived."""

    request_line: str  # "GET /api/v1/items/x?y=1 HTTP/1.1"
    method: str
    target: str  # the raw request target
    headers: tuple[tuple[str, str], ...]  # raw names and values, in order (latin-1)
    body: bytes

    @property
    def path(self) -> str:
        return self.target.partition("?")[0]

    @property
    def query(self) -> str:
        return self.target.partition("?")[2]

    def all(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key.lower() == name.lower()]

    def header(self, name: str) -> str | None:
        """The one value of header `name` (None if absent); fails if it came more than once."""
        values = self.all(name)
        assert len(values) <= 1, f"header {name} sent {len(values)} times: {self.headers}"
        return values[0] if values else None


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b'{"ok":true}'
    headers: tuple[tuple[str, str], ...] = (("Content-Type", "application/json"),)
    delay: float = 0.0  # seconds before answering (bounded by MAX_DELAY and stop())


Responder = Callable[[Recorded], Reply]


@dataclass
class RecordingUpstream:
    """Start with `start()`, stop with `stop()` (or use it in a `with`); `routes` maps a path prefix
    to a Reply or a function of the request (longest prefix wins, else `default`)."""

    routes: dict[str, Reply | Responder] = field(default_factory=dict)
    default: Reply = field(default_factory=Reply)
    requests: list[Recorded] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)
    _stopping: threading.Event = field(default_factory=threading.Event, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> RecordingUpstream:
        upstream = self

        class Handler(_Handler):
            owner = upstream

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __enter__(self) -> RecordingUpstream:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def reply_for(self, record: Recorded) -> Reply:
        matches = [prefix for prefix in self.routes if record.path.startswith(prefix)]
        if not matches:
            return self.default
        route = self.routes[max(matches, key=len)]
        return route if isinstance(route, Reply) else route(record)

    def record(self, record: Recorded) -> None:
        with self._lock:
            if len(self.requests) < MAX_REQUESTS:
                self.requests.append(record)

    def since(self, mark: int) -> list[Recorded]:
        with self._lock:
            return list(self.requests[mark:])

    def mark(self) -> int:
        with self._lock:
            return len(self.requests)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that timed out and hung up is part of the tests


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    owner: RecordingUpstream

    def _body(self) -> bytes | None:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    return bytes(data)
                if len(data) + size > MAX_BODY:
                    return None
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            return None
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        body = self._body()
        if body is None:
            self.send_error(413)
            return
        record = Recorded(
            self.requestline,
            self.command,
            self.path,
            tuple((str(k), str(v)) for k, v in self.headers.raw_items()),
            body,
        )
        self.owner.record(record)
        reply = self.owner.reply_for(record)
        if reply.delay and self.owner._stopping.wait(min(reply.delay, MAX_DELAY)):
            self.close_connection = True
            return
        self.send_response(reply.status)
        names = {name.lower() for name, _ in reply.headers}
        for name, value in reply.headers:
            self.send_header(name, value)
        if "content-length" not in names:
            self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        if self.command != "HEAD":
            try:
                self.wfile.write(reply.body)
            except OSError:
                self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _handle

    def log_message(self, format: str, *args: Any) -> None:
        pass
