"""Real services for the e2e tests (test_e2e_service_*.py): installed by `bash scripts/setup` into
.cache/services (tests/services/install.py), started here on a free loopback port in their own
process group, driven only through generated servers, their state checked over plain HTTP.

A generated server is reached over a transport of TRANSPORTS: over stdio (a new process for each
client session), or over streamable HTTP (one process a module, on 127.0.0.1 with `--auth token`)
by the `mcp` client in either protocol era. Tools are found by operation
(`_meta['openapi2mcp/operation']`: method and path), never by name.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import pytest
from e2e_support import (
    CACHE,
    Background,
    Generated,
    default_env_prefix,
    dump,
    free_port,
    generator_command,
    minimal_env,
    read_text,
    tail,
    wait_until,
)
from http_support import HttpServer, http_session
from jsonschema import Draft202012Validator
from mcp_support import CLIENT_MODES, run_async, stdio_session
from server_deps import runtime_options
from venv_support import ServerVenv

SERVICES = CACHE / "services"
INSTALL_HINT = "run `bash scripts/setup` (tests/services/install.py installs the test services)"
HTTP_TIMEOUT = 15.0  # seconds for one plain HTTP request of a test to a service
KERNEL_START_TIMEOUT = 90.0  # ... that starts a Jupyter kernel (over 15 s once, on a loaded CI host)
SERVICE_START_TIMEOUT = 60.0  # seconds for a service to answer its readiness probe
RUN_TIMEOUT = 150.0  # seconds for one client session of a test (a kernel takes seconds to start)

# How a test reaches the generated server: (the mcp.Client mode, the protocol version it must get).
TRANSPORTS = {
    "stdio": CLIENT_MODES["modern"],
    "http": CLIENT_MODES["modern"],
    "http-legacy": CLIENT_MODES["legacy"],
}
OVER_STDIO_AND_HTTP = pytest.mark.parametrize("transport", ["stdio", "http"])
OVER_EVERY_TRANSPORT = pytest.mark.parametrize("transport", list(TRANSPORTS))


def installed(name: str, *paths: str) -> Path:
    """ROOT/NAME of an installed service, failing (never skipping) when a path under it is missing."""
    root, error = SERVICES / name, SERVICES / f"{name}.error"
    missing = [path for path in paths if not (root / path).exists()]
    if missing or not (SERVICES / f"{name}.installed").is_file():
        why = f"\nthe last attempt failed: {error.read_text()}" if error.is_file() else ""
        pytest.fail(f"the test service {name} is not installed: {INSTALL_HINT}{why}", pytrace=False)
    return root


# ---- plain HTTP to the service -------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a 3xx is the answer, as the generated servers see it


_OPENER = urllib.request.build_opener(_NoRedirect)


def http(
    method: str,
    url: str,
    body: Any = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = HTTP_TIMEOUT,
) -> Answer:
    """One request to the service (JSON body when given; redirects not followed); any status is
    returned, not raised."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            return Answer(response.status, response.read())
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.read())


def answers(url: str) -> bool:
    try:
        return http("GET", url).status < 500
    except (urllib.error.URLError, OSError):
        return False


# ---- the service process ---------------------------------------------------------------------------


@dataclass
class Service:
    """A service on 127.0.0.1:PORT; `argv(port)` starts it, `probe` (a path) answers once it is up."""

    name: str
    argv: Callable[[int], list[str]]
    probe: str
    workdir: Path
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None  # (default: workdir, which also holds the log)
    port: int = 0
    _process: Background | None = field(default=None, repr=False)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.workdir / f"{self.name}.log"

    def start(self) -> Service:
        for _attempt in range(3):
            self.port = free_port()
            self._process = Background(self.argv(self.port), self.log)
            self._process.start(minimal_env(self.env), cwd=self.cwd or self.workdir)
            wait_until(partial(self._up_or_dead, self._process), SERVICE_START_TIMEOUT, interval=0.2)
            if self._process.alive() and answers(self.origin + self.probe):
                return self
            self.stop()
            if "address already in use" not in read_text(self.log).lower():
                break
        pytest.fail(f"the test service {self.name} did not start:\n{tail(self.log)}", pytrace=False)

    def _up_or_dead(self, process: Background) -> bool:
        return not process.alive() or answers(self.origin + self.probe)

    def stop(self) -> None:
        if self._process is not None:
            self._process.stop()


def generate_with_options(spec: Path, workdir: Path, venv: ServerVenv, name: str, *options: str) -> Generated:
    """`openapi2mcp generate SPEC -o WORKDIR/NAME --name NAME OPTIONS...`, installed into the venv."""
    out = workdir / name
    argv = [*generator_command(), "generate", str(spec), "-o", str(out), "--name", name, *options]
    argv += runtime_options()
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=workdir)
    assert result.returncode == 0, f"{argv} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    venv.install(out, name)
    return Generated(spec, name, default_env_prefix(name), out, venv, result.stderr)


# ---- the generated server's tools, by operation ----------------------------------------------------


def operation_of(tool: Mapping[str, Any]) -> tuple[str, str]:
    operation = tool["_meta"]["openapi2mcp/operation"]
    return operation["method"], operation["path"]


@dataclass
class Tools:
    """The tools of a generated package by (METHOD, path); `called` records what a test used."""

    package: Generated
    called: set[tuple[str, str]] = field(default_factory=set)

    def __post_init__(self) -> None:
        tools: list[dict[str, Any]] = self.package.tool_data["tools"]
        self.by_operation = {operation_of(tool): tool for tool in tools}

    def tool(self, method: str, path: str) -> dict[str, Any]:
        key = (method, path)
        assert key in self.by_operation, f"no tool for {method} {path}: {sorted(self.by_operation)}"
        return self.by_operation[key]

    def wrapped(self, method: str, path: str) -> bool:
        """Whether the tool's results wrap the answer as `{"result": ...}` (a non-object answer)."""
        wrapped: bool = self.package.tool_data["routes"][self.tool(method, path)["name"]]["wrapped"]
        return wrapped

    def read_only(self) -> set[tuple[str, str]]:
        return {key for key in self.by_operation if key[0] == "GET"}


@dataclass
class Caller:
    """Calls tools by operation through one MCP client session."""

    client: Any
    tools: Tools

    async def call(self, method: str, path: str, /, **arguments: Any) -> Any:
        tool = self.tools.tool(method, path)
        self.tools.called.add((method, path))
        return await self.client.call_tool(tool["name"], arguments)

    async def success(self, method: str, path: str, /, **arguments: Any) -> Any:
        """The CallToolResult of a success: no isError, structuredContent valid against the
        tool's outputSchema."""
        result = await self.call(method, path, **arguments)
        assert not result.is_error, f"{method} {path} {arguments}: isError\n{text_blocks(result)}"
        check_structured(self.tools.tool(method, path), result)
        return result

    async def ok(self, method: str, path: str, /, **arguments: Any) -> Any:
        """A `success`'s answer: the text's JSON (unwrapped), or the text when it is not JSON."""
        text = text_blocks(await self.success(method, path, **arguments))
        try:
            value = json.loads(text[0])
        except json.JSONDecodeError:
            return text[0]
        return value["result"] if self.tools.wrapped(method, path) else value

    async def error(self, method: str, path: str, status: int, /, **arguments: Any) -> str:
        """An error result for an HTTP `status` answer: isError, no structuredContent; its text."""
        result = await self.call(method, path, **arguments)
        text = "\n".join(text_blocks(result))
        assert result.is_error, f"{method} {path} {arguments}: expected HTTP {status} as isError, got\n{text}"
        assert result.structured_content is None, dump(result.structured_content)
        assert str(status) in text.split("\n", 1)[0], f"expected HTTP {status}:\n{text}"
        return text


def text_blocks(result: Any) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text"]


def deviations(result: Any) -> dict[str, Any] | None:
    meta = result.meta or {}
    found: dict[str, Any] | None = meta.get("openapi2mcp/deviations")
    return found


def check_structured(tool: Mapping[str, Any], result: Any) -> None:
    """structuredContent valid against the tool's outputSchema (present when it has one)."""
    schema = tool.get("outputSchema")
    if schema is None:
        return
    assert result.structured_content is not None, f"{tool['name']}: no structuredContent"
    errors = sorted(Draft202012Validator(schema).iter_errors(result.structured_content), key=str)
    assert not errors, f"{tool['name']}: structuredContent deviates: {[e.message for e in errors[:5]]}"


def uncalled(tools: Tools, expected: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """The read-only operations no test has called (besides `expected`, for the caller to explain)."""
    return sorted(tools.read_only() - tools.called - set(expected))


# ---- a service with its generated server ----------------------------------------------------------


@dataclass
class Driven:
    """A running service and the server generated for it (`env`: the server's environment), reached
    over a transport of TRANSPORTS; a `with` block stops its HTTP server, if one was started."""

    service: Service
    package: Generated
    tools: Tools
    env: Mapping[str, str]
    _http: HttpServer | None = field(default=None, init=False, repr=False)
    _token: str = field(default_factory=partial(secrets.token_urlsafe, 24), init=False, repr=False)

    def http_server(self) -> HttpServer:
        """The generated server on streamable HTTP, 127.0.0.1 and `--auth token` (its token the one
        of `{PREFIX}_MCP_TOKENS`), started on first use."""
        if self._http is None:
            env = {**self.env, f"{self.package.env_prefix}_MCP_TOKENS": self._token}
            log = self.service.workdir / f"{self.package.name}-http.log"
            self._http = HttpServer(self.package, env, log, args=["--auth", "token"]).start()
            unauthenticated = http("POST", self._http.url, {"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert unauthenticated.status == 401, unauthenticated
        return self._http

    def client(self, transport: str) -> AbstractAsyncContextManager[Any]:
        """An mcp.Client over `transport` (an HTTP server is started here, not in the event loop)."""
        mode = TRANSPORTS[transport][0]
        if transport == "stdio":
            return stdio_session(self.package.command, env=self.env, mode=mode)
        token = {"Authorization": f"Bearer {self._token}"}
        return http_session(self.http_server().url, mode, token)

    def run(self, body: Callable[[Caller], Awaitable[Any]], transport: str = "stdio") -> Any:
        """`body` with a Caller of one client session over `transport`, which must have negotiated
        the protocol version the transport stands for."""
        opened = self.client(transport)

        async def session() -> Any:
            async with opened as client:
                assert client.protocol_version == TRANSPORTS[transport][1], transport
                return await body(Caller(client, self.tools))

        return run_async(session, timeout=RUN_TIMEOUT)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._http is not None:
            self._http.stop()
