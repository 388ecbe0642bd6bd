"""The HTTP side's scale-out pieces (openapi2mcp_runtime/serving/http_serving.py, audit.McpLog): the start-up
checks of --stateless and --workers, GET /healthz (no authentication, nothing about the API),
Sessionless (a client's Mcp-Session-Id never reaches the runtime of a stateless server), and
logging/setLevel refused without a session. The processes themselves: tests/e2e/test_e2e_scale.py."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest
from mcp import MCPError

from openapi2mcp_runtime.serving import endpoint_auth, http_serving
from openapi2mcp_runtime.upstream import audit

from .conftest import ScopeRecorder, runtime

http_serving = http_serving
mcp_types = pytest.importorskip("mcp_types")
pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    http_serving.add_arguments(parser, "T")
    return parser.parse_args(argv)


SETTINGS = runtime.Settings.from_env({"T_BASE_URL": "http://127.0.0.1:9"}, prefix="T")


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (("--transport", "http"), None),
        (("--transport", "http", "--stateless"), None),
        (("--transport", "http", "--stateless", "--workers", "4"), None),
        (
            ("--transport", "http", "--workers", "2"),
            "--workers 2 needs --stateless: a session lives in one process, and the next request of"
            " that session may reach another",
        ),
        (("--transport", "http", "--stateless", "--workers", "0"), "--workers must be 1 or more, got 0"),
        (("--stateless",), "--sse, --stateless and --workers serve HTTP: use --transport http"),
        (("--workers", "2"), "--sse, --stateless and --workers serve HTTP: use --transport http"),
        (("--sse",), "--sse, --stateless and --workers serve HTTP: use --transport http"),
        (("--transport", "http", "--sse"), None),
    ],
)
def test_workers_need_stateless_http(argv: tuple[str, ...], problem: str | None) -> None:
    assert http_serving.start_problem(parsed(*argv), SETTINGS) == problem


def test_the_defaults_are_one_stateful_process() -> None:
    args = parsed()
    assert (args.stateless, args.workers, args.sse) == (False, 1, False)


async def request(app: Any, method: str, path: str, headers: list[tuple[bytes, bytes]] | None = None) -> Any:
    """(status, headers, body) of one HTTP request through an ASGI app."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "headers": headers or []}
    await app(scope, receive, send)
    body = b"".join(message.get("body", b"") for message in sent[1:])
    return sent[0]["status"], dict(sent[0]["headers"]), body


async def test_healthz_answers_get_and_head_without_a_token_and_nothing_else() -> None:
    behind = ScopeRecorder(204, b"")
    guard = endpoint_auth.Guard(behind, ("secret-token",), None, {"/healthz": http_serving.healthz})
    status, headers, body = await request(guard, "GET", "/healthz")
    assert (status, headers[b"content-type"], json.loads(body)) == (
        200,
        b"application/json",
        {"status": "ok"},
    )
    status, headers, body = await request(guard, "HEAD", "/healthz")
    assert (status, headers[b"content-length"], body) == (200, b"15", b"")
    status, headers, _ = await request(guard, "POST", "/healthz")
    assert (status, headers[b"allow"]) == (405, b"GET, HEAD")
    assert (await request(guard, "GET", "/mcp"))[0] == 401
    assert behind.scopes == []


async def test_sessionless_drops_the_session_header_and_keeps_the_rest() -> None:
    behind = ScopeRecorder(204, b"")
    headers = [(b"Mcp-Session-Id", b"made-up"), (b"x-mcp-toolsets", b"pets"), (b"mcp-session-id", b"again")]
    await request(http_serving.Sessionless(behind), "POST", "/mcp", headers)
    assert behind.scopes[0]["headers"] == [(b"x-mcp-toolsets", b"pets")]


class Request:
    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers


class Ctx:
    """The parts of a request context McpLog reads: an HTTP request, the SDK's session id."""

    def __init__(self, headers: dict[str, str], session_id: str | None = None) -> None:
        self.request, self.session_id = Request(headers), session_id


async def test_set_level_is_refused_without_a_session_and_kept_per_session() -> None:
    log = audit.McpLog()
    params = mcp_types.SetLevelRequestParams(level="info")
    with pytest.raises(MCPError) as raised:
        await log.set_level(Ctx({}), params)
    assert raised.value.error.code == mcp_types.INVALID_REQUEST
    assert raised.value.error.message.startswith(
        "logging/setLevel needs a session to keep the level in, and this server keeps none (--stateless)"
    )
    assert log._levels == {}
    await log.set_level(Ctx({"mcp-session-id": "s-1"}), params)
    assert log._levels == {"s-1": 1}


async def test_the_workers_socket_gives_its_connections_tcp_nodelay() -> None:
    """uvicorn's own bind_socket leaves proto 0 and asyncio then leaves Nagle on (a ~40 ms wait per
    keep-alive request); tcp_socket's accepted connections have TCP_NODELAY."""
    import asyncio
    import socket

    listening = http_serving.tcp_socket("127.0.0.1", 0)
    assert listening.proto == socket.IPPROTO_TCP and listening.get_inheritable()
    accepted: list[int] = []

    async def note(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(note, sock=listening)
    async with server:
        _, writer = await asyncio.open_connection(*listening.getsockname()[:2])
        for _ in range(100):
            if accepted:
                break
            await asyncio.sleep(0.01)
        writer.close()
    assert accepted == [1]
