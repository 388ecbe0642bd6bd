"""Shared fixtures for the generated server's runtime (the `openapi2mcp_runtime` package, which a
generated package vendors as `_runtime/`). The upstream is a real HTTP server on 127.0.0.1
(ephemeral port) that records each raw request.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from module_files import import_file

from openapi2mcp_runtime import tool_runtime as runtime
from openapi2mcp_runtime.hooks import api as hooks_api
from openapi2mcp_runtime.hooks import runner as hooks_runner
from openapi2mcp_runtime.serving import wiring
from openapi2mcp_runtime.upstream import serialize

__all__ = ["hooks_api", "hooks_runner", "runtime", "serialize"]  # the runtime modules most tests use

REPO = Path(__file__).resolve().parents[2]
# What a generated package's hooks_api.py is (templates/package/hooks_api.py.jinja), for the tests
# that make a package of their own around a hooks.py.
HOOKS_API = (
    "from openapi2mcp_runtime.hooks.api import Call, HookError, Hooks, ModelMismatch, Request, Result\n"
)


# ---- the e2e recording upstream (for the HTTP client tests) ------------------------------------


def recording_module() -> Any:
    """tests/e2e/recording_upstream.py (the e2e tests import it as a top-level module): records each
    request line and its headers as sent; the HTTP client tests use it."""
    return import_file("recording_upstream", "e2e/recording_upstream.py")


@pytest.fixture
def recording() -> Iterator[Any]:
    upstream = recording_module().RecordingUpstream().start()
    try:
        yield upstream
    finally:
        upstream.stop()


# ---- the recording upstream --------------------------------------------------------------------


@dataclass
class Recorded:
    method: str
    target: str  # the raw request target, exactly as sent
    headers: list[tuple[str, str]]  # raw, in order (values decoded as latin-1)
    body: bytes

    @property
    def path(self) -> str:
        return self.target.partition("?")[0]

    @property
    def query(self) -> str:
        return self.target.partition("?")[2]

    def header(self, name: str) -> str | None:
        values = self.all(name)
        return values[0] if values else None

    def all(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key.lower() == name.lower()]


@dataclass
class Reply:
    status: int = 200
    body: bytes = b"{}"
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})
    delay: float = 0.0


class Upstream:
    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.requests: list[Recorded] = []
        self.responder: Callable[[Recorded], Reply] = lambda _: Reply()

    def reply(
        self,
        status: int = 200,
        body: bytes | str = b"{}",
        content_type: str | None = "application/json",
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> None:
        data = body.encode() if isinstance(body, str) else body
        all_headers = {"Content-Type": content_type} if content_type else {}
        all_headers.update(headers or {})
        self.responder = lambda _: Reply(status, data, all_headers, delay)

    @property
    def last(self) -> Recorded:
        assert self.requests, "the upstream received no request"
        return self.requests[-1]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        record = Recorded(self.command, self.path, list(self.headers.items()), body)
        upstream = self.server.upstream
        upstream.requests.append(record)
        reply = upstream.responder(record)
        if reply.delay:
            time.sleep(reply.delay)
        self.send_response(reply.status)
        for key, value in reply.headers.items():
            self.send_header(key, value)
        if "Content-Length" not in reply.headers:
            self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply.body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _handle

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    upstream: Upstream

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that time out and hang up are part of the tests


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with running_upstream() as recording:
        yield recording


@contextmanager
def running_upstream() -> Iterator[Upstream]:
    """A recording upstream on an ephemeral port of 127.0.0.1, stopped on exit."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.upstream = Upstream(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.upstream
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class ScopeRecorder:
    """An ASGI app behind the middleware under test: records the scope of each request it is
    called with and answers `status` with `body`."""

    def __init__(self, status: int = 200, body: bytes = b"ok") -> None:
        self.status, self.body = status, body
        self.scopes: list[dict[str, Any]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.scopes.append(scope)
        await send({"type": "http.response.start", "status": self.status, "headers": []})
        await send({"type": "http.response.body", "body": self.body})


# ---- tool data ---------------------------------------------------------------------------------


def param(
    arg: str,
    location: str,
    schema: dict[str, Any],
    *,
    name: str | None = None,
    required: bool = False,
    style: str | None = None,
    explode: bool | None = None,
    allow_reserved: bool = False,
    content_type: str | None = None,
) -> dict[str, Any]:
    if style is None:
        style = {"path": "simple", "header": "simple"}.get(location, "form")
    if explode is None:
        explode = style == "form"
    return {
        "arg": arg, "name": name or arg, "in": location, "required": required or location == "path",
        "style": style, "explode": explode, "allowReserved": allow_reserved,
        "contentType": content_type, "schema": schema,
    }  # fmt: skip


def body_field(
    arg: str,
    schema: dict[str, Any],
    *,
    name: str | None = None,
    required: bool = False,
    binary: bool = False,
    content_type: str | None = None,
    style: str | None = None,
    explode: bool | None = None,
) -> dict[str, Any]:
    return {
        "arg": arg, "name": name or arg, "required": required, "binary": binary,
        "contentType": content_type, "style": style, "explode": explode, "schema": schema,
    }  # fmt: skip


def body(
    media_type: str,
    kind: str,
    *,
    fields: tuple[dict[str, Any], ...] = (),
    arg: str | None = None,
    arg_schema: dict[str, Any] | None = None,
    binary: bool = False,
    required: bool = False,
) -> dict[str, Any]:
    return {
        "mediaType": media_type, "kind": kind, "required": required, "fields": list(fields),
        "arg": arg, "binary": binary, "argSchema": arg_schema,
    }  # fmt: skip


def form_body(*fields: dict[str, Any]) -> dict[str, Any]:
    """An application/x-www-form-urlencoded body of these fields."""
    return body("application/x-www-form-urlencoded", "form", fields=fields)


def tool(
    name: str,
    method: str,
    path: str,
    *,
    params: tuple[dict[str, Any], ...] = (),
    request_body: dict[str, Any] | None = None,
    security: list[list[str]] | None = None,
    output_schema: dict[str, Any] | None = None,
    wrapped: bool = False,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(wire tool, route) in the tool_data.json format; the input schema is built from the parts."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for p in params:
        properties[p["arg"]] = p["schema"]
        required += [p["arg"]] if p["required"] else []
    route_body = None
    if request_body is not None:
        route_body = {k: v for k, v in request_body.items() if k != "argSchema"}
        route_body["fields"] = []
        for f in request_body["fields"]:
            properties[f["arg"]] = f["schema"]
            required += [f["arg"]] if f["required"] and request_body["required"] else []
            route_body["fields"].append({k: v for k, v in f.items() if k != "schema"})
        if request_body["arg"]:
            properties[request_body["arg"]] = request_body["argSchema"] or {}
            required += [request_body["arg"]] if request_body["required"] else []
    input_schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    input_schema["additionalProperties"] = False
    wire: dict[str, Any] = {
        "name": name,
        "title": name,
        "description": f"{method} {path}",
        "inputSchema": input_schema,
    }
    if output_schema is not None:
        wire["outputSchema"] = output_schema
    wire["annotations"] = {"title": name, "readOnlyHint": method in ("GET", "HEAD")}
    route = {
        "method": method,
        "path": path,
        "params": [{k: v for k, v in p.items() if k != "schema"} for p in params],
        "body": route_body,
        "security": [[{"scheme": s, "scopes": []} for s in alt] for alt in (security or [])],
        "wrapped": wrapped,
        "hasOutputSchema": output_schema is not None,
    }
    return wire, route


SCHEMES: dict[str, Any] = {
    "api_key": {"type": "apiKey", "in": "header", "name": "X-API-Key", "env": {"key": "T_API_KEY_KEY"}},
    "query_key": {"type": "apiKey", "in": "query", "name": "api_key", "env": {"key": "T_QUERY_KEY_KEY"}},
    "cookie_key": {"type": "apiKey", "in": "cookie", "name": "sid", "env": {"key": "T_COOKIE_KEY_KEY"}},
    "bearer": {"type": "http", "scheme": "bearer", "env": {"token": "T_BEARER_TOKEN"}},
    "basic": {
        "type": "http",
        "scheme": "basic",
        "env": {"username": "T_BASIC_USERNAME", "password": "T_BASIC_PASSWORD"},
    },
    "oauth": {
        "type": "oauth2",
        "tokenUrl": "/oauth/token",
        "env": {
            "token": "T_OAUTH_TOKEN",
            "client_id": "T_OAUTH_CLIENT_ID",
            "client_secret": "T_OAUTH_CLIENT_SECRET",
            "scopes": "T_OAUTH_SCOPES",
            "token_url": "T_OAUTH_TOKEN_URL",
        },
    },
    "oidc": {"type": "openIdConnect", "env": {"token": "T_OIDC_TOKEN"}},
}


def tool_data(*tools: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    return {
        "format": 1,
        "server": {"name": "t-server", "version": "1.2.3", "title": "Test API"},
        "tools": [wire for wire, _ in tools],
        "routes": {wire["name"]: route for wire, route in tools},
        "securitySchemes": SCHEMES,
    }


# ---- running the runtime -----------------------------------------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


Make = Callable[..., Any]


@pytest.fixture
async def make_runtime(upstream: Upstream) -> AsyncIterator[Make]:
    """make(data, env=None, base_url=None, default_base_url=None, hooks=None) → a ToolRuntime against
    the upstream (closed after); with `default_base_url` (the spec's) and no `base_url`, T_BASE_URL
    is unset; `hooks` is a hooks_api.Hooks, as hooks.py fills it."""
    made: list[Any] = []

    def make(
        data: dict[str, Any],
        env: dict[str, str] | None = None,
        base_url: str | None = None,
        default_base_url: str | None = None,
        hooks: Any = None,
    ) -> Any:
        environment = {"T_TIMEOUT": "5"}
        if base_url or not default_base_url:
            environment["T_BASE_URL"] = base_url or upstream.url + "/api/v1"
        environment.update(env or {})
        settings = runtime.Settings.from_env(environment, prefix="T", default_base_url=default_base_url)
        made.append(runtime.ToolRuntime(data, settings, hooks))
        return made[-1]

    yield make
    for tools in made:
        await tools.aclose()


async def call(tools: Any, name: str, arguments: dict[str, Any] | None = None) -> Any:
    """tools/call through the handler the server registers."""
    params = mcp_types.CallToolRequestParams(name=name, arguments=arguments)
    return await tools.on_call_tool(None, params)


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def mcp_server(tools: Any) -> Any:
    """The low-level MCP server answered by the runtime, built as the generated server.py builds it."""
    return wiring.build_server(tools, "t-server", "1.2.3", None)
