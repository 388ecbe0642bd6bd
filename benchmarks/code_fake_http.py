"""The in-memory fake services of the code-mode benchmark (benchmarks/code_mode.py): a
ThreadingHTTPServer on 127.0.0.1 in a thread of the benchmark's process, whose routes answer from
state kept in memory (one lock), state that `reset()` puts back and `snapshot()` reads, so the same
task run two ways can be checked to leave the service in the same state."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

MAX_BODY_BYTES = 1 << 20


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    params: dict[str, str]  # the path's parameters
    body: Any  # the JSON body (None without one)
    headers: Mapping[str, str] = field(default_factory=dict)

    def arg(self, name: str, default: str | None = None) -> str | None:
        values = self.query.get(name)
        return values[0] if values else default

    def args(self, name: str) -> list[str]:
        """A query parameter's values: repeated (explode) or comma-separated."""
        return [part for value in self.query.get(name, []) for part in value.split(",") if part]


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any = None  # JSON, or None for an empty body
    content_type: str = "application/json"


Handler = Callable[[Request], Reply]


class FakeService:
    """A fake API: `routes` are (method, path template like /pet/{petId}, handler)."""

    base_path = ""  # prefix of every route (the spec's server URL's path)

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        for method, template, handler in self.routes():
            pattern = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", self.base_path + template)
            self._routes.append((method, re.compile(f"^{pattern}$"), handler))
        self.reset()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def routes(self) -> list[tuple[str, str, Handler]]:
        raise NotImplementedError

    def reset(self) -> None:
        """Put the service's state back as it was at the start."""
        raise NotImplementedError

    def snapshot(self) -> Any:
        """The service's state, as JSON data."""
        raise NotImplementedError

    @property
    def origin(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def base_url(self) -> str:
        return self.origin + self.base_path

    def answer(self, method: str, target: str, body: Any, headers: Mapping[str, str]) -> Reply:
        split = urlsplit(target)
        for route_method, pattern, handler in self._routes:
            if route_method == method and (match := pattern.match(split.path)):
                request = Request(method, split.path, parse_qs(split.query), match.groupdict(), body, headers)
                with self.lock:
                    return handler(request)
        return Reply(404, {"code": 404, "message": f"no route {method} {split.path}"})

    def __enter__(self) -> FakeService:
        service = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY_BYTES)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                reply = service.answer(self.command, self.path, body, dict(self.headers))
                data = b"" if reply.body is None else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                if data:
                    self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
