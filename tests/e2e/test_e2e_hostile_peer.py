"""The streamable HTTP endpoint under a hostile peer (issue 28): the petstore package with
`--auth token` on 127.0.0.1, driven with raw HTTP by one token holder while the official `mcp`
client, as another, must keep being served."""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from e2e_support import Generated, Packages, minimal_env, wait_until
from http_support import ACCEPT, INITIALIZE, HttpServer, era_session
from mcp_support import CALL_TIMEOUT, CLIENT_MODES, LEGACY_VERSION, run_async
from petstore_support import PETSTORE_TOOLS
from recording_upstream import RecordingUpstream, Reply

pytestmark = pytest.mark.e2e
TOKEN = "hostile-peer-token"
OTHER = "another-clients-token"
THIRD = "a-third-clients-token"


@pytest.fixture(scope="module")
def server(packages: Packages, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    petstore: Generated = packages.get("petstore.yaml")
    with RecordingUpstream(routes={}) as upstream:
        env = petstore.env(upstream.url, MCP_TOKENS=TOKEN, API_KEY_KEY="k")
        log = tmp_path_factory.mktemp("hostile") / "server.log"
        running = HttpServer(petstore, env, log, args=["--auth", "token"]).start()
        yield running
        running.stop()


def post(
    server: HttpServer, message: dict[str, Any] | bytes, session: str | None = None, token: str = TOKEN
) -> httpx2.Response:
    headers = {**ACCEPT, "Authorization": f"Bearer {token}", "MCP-Protocol-Version": LEGACY_VERSION}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return httpx2.post(server.url, content=body, headers=headers, timeout=CALL_TIMEOUT)


def legacy_session(server: HttpServer, token: str = TOKEN) -> str:
    """A 2025-11-25 session, handshake done, as a raw client holds it."""
    answer = post(server, INITIALIZE, token=token)
    assert answer.status_code == 200, answer.text
    session = answer.headers["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(server, initialized, session, token).status_code == 202
    return session


async def listed_names(server: HttpServer, mode: str) -> list[str]:
    async with era_session(server.url, mode, {"Authorization": f"Bearer {TOKEN}"}) as client:
        return [tool.name for tool in (await client.list_tools()).tools]


# A notification (no id) and ids the SDK reads as none: JSON-RPC ids are strings or integers.
NOTIFICATION_SHAPED = [
    b'{"jsonrpc":"2.0","method":"tools/list"}',
    b'{"jsonrpc":"2.0","method":"tools/list","params":{}}',
    b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}',
]


@pytest.mark.parametrize("message", NOTIFICATION_SHAPED, ids=["bare", "params", "id-1.5", "id-1e400"])
def test_a_notification_shaped_tools_list_gets_202_and_blanks_no_later_list(
    server: HttpServer, message: bytes
) -> None:
    session = legacy_session(server)
    answer = post(server, message, session)
    assert (answer.status_code, answer.content) == (202, b"")
    listed = post(server, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
    assert len(_sse_or_json(listed)["result"]["tools"]) == len(PETSTORE_TOOLS)
    for mode in CLIENT_MODES:
        assert len(run_async(lambda mode=mode: listed_names(server, mode))) == len(PETSTORE_TOOLS)


def _sse_or_json(answer: httpx2.Response) -> dict[str, Any]:
    """The one JSON-RPC message of a POST's answer, sent as JSON or as one SSE event."""
    assert answer.status_code == 200, answer.text
    if answer.headers["content-type"].startswith("application/json"):
        return dict(answer.json())
    data = [line[5:].strip() for line in answer.text.splitlines() if line.startswith("data:")]
    messages = [json.loads(item) for item in data if item]
    assert len(messages) == 1, answer.text
    return dict(messages[0])


# ---- connections and sessions: what one peer may hold --------------------------------------------

LIMITS = {  # small, so that the test reaches them quickly (defaults: http_limits.HTTP_LIMITS)
    "HTTP_REQUEST_TIMEOUT": "2",
    "HTTP_IDLE_TIMEOUT": "1",
    "HTTP_MAX_CONNECTIONS": "300",
    "HTTP_MAX_CONNECTIONS_PER_CLIENT": "40",
    "HTTP_MAX_SESSIONS": "8",
    "HTTP_MAX_SESSIONS_PER_CLIENT": "4",
    "HTTP_SHUTDOWN_TIMEOUT": "2",
}
SLOW_PET = 20.0  # seconds the upstream takes to answer GET /pets/slow
BUSY_PET = 4.0  # ... and GET /pets/busy
ATTACKER = "127.0.0.2"  # another loopback address: Linux routes all of 127/8 to lo


@pytest.fixture(scope="module")
def upstream() -> Iterator[RecordingUpstream]:
    routes = {
        "/pets/slow": Reply(body=b'{"id":"slow"}', delay=SLOW_PET),
        "/pets/busy": Reply(body=b'{"id":"busy"}', delay=BUSY_PET),
        "/pets/quick": Reply(body=b'{"id":"quick"}'),
        "/pets": Reply(body=b"[]"),
    }
    with RecordingUpstream(routes=routes) as recording:
        yield recording


def limited_server(packages: Packages, upstream: RecordingUpstream, log: Path, **more: str) -> HttpServer:
    petstore: Generated = packages.get("petstore.yaml")
    env = petstore.env(
        upstream.url, MCP_TOKENS=f"{TOKEN},{OTHER},{THIRD}", API_KEY_KEY="k", **{**LIMITS, **more}
    )
    return HttpServer(petstore, env, log, args=["--auth", "token"]).start()


@pytest.fixture
def limited(packages: Packages, upstream: RecordingUpstream, tmp_path: Path) -> Iterator[HttpServer]:
    running = limited_server(packages, upstream, tmp_path / "server.log")
    yield running
    running.stop()


async def served_within(server: HttpServer, seconds: float) -> float:
    """A legitimate client's initialize, tools/list and a call, timed; fails past `seconds`."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    started = time.monotonic()
    with anyio.fail_after(seconds):
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with httpx2.AsyncClient(headers=headers, timeout=seconds) as http:
            transport = streamable_http_client(server.url, http_client=http)
            async with Client(transport, mode="legacy", read_timeout_seconds=seconds) as client:
                assert len((await client.list_tools()).tools) == len(PETSTORE_TOOLS)
                result = await client.call_tool("listPets", {})
                assert not result.is_error, result
    return time.monotonic() - started


def connect(port: int, source: str = ATTACKER) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    sock.settimeout(0.0)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    """The server closed (or reset) the connection: a read gives EOF instead of would-block."""
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def test_endless_request_heads_are_closed_and_a_client_is_still_served(limited: HttpServer) -> None:
    """30 connections send a request head a byte every 0.2 s: each is closed within the request
    timeout (2 s) plus a margin, while a legitimate client is served (within 3 s here, a gross
    guard under a parallel test run; the issue's 1 s p99 is a benchmark's to measure)."""
    head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: " + b"a" * 400
    slow = [connect(limited.port) for _ in range(30)]
    started = time.monotonic()
    try:
        for step in range(len(head)):
            alive = [sock for sock in slow if not closed_by_server(sock)]
            if not alive:
                break
            assert time.monotonic() - started < 6.0, f"{len(alive)} slow heads still open after 6 s"
            for sock in alive:
                with contextlib.suppress(OSError):
                    sock.send(head[step : step + 1])
            if step == 3:
                assert run_async(lambda: served_within(limited, 3.0)) < 3.0
            time.sleep(0.2)
        assert 2.0 <= time.monotonic() - started < 6.0
    finally:
        for sock in slow:
            sock.close()


def test_idle_connections_over_the_limits_are_closed_and_a_client_is_still_served(
    limited: HttpServer,
) -> None:
    """One address opens 200 idle connections: those past its 40 are closed at once, the 40 after
    the request timeout; another address is served meanwhile (a 3 s gross guard)."""
    idle = [connect(limited.port) for _ in range(200)]
    try:
        time.sleep(0.5)
        closed = [closed_by_server(sock) for sock in idle]
        assert closed.count(False) == 40, closed.count(False)
        assert run_async(lambda: served_within(limited, 3.0)) < 3.0
        time.sleep(2.5)
        assert all(closed_by_server(sock) for sock, was in zip(idle, closed, strict=True) if not was)
    finally:
        for sock in idle:
            sock.close()


def test_sessions_past_the_limit_get_503_and_open_ones_are_still_served(limited: HttpServer) -> None:
    """8 sessions in all (4 a caller): two callers hold them all, a third gets the SDK's 503."""
    sessions = [legacy_session(limited, token) for token in (TOKEN, OTHER) for _ in range(4)]
    refused = post(limited, INITIALIZE, token=THIRD)
    assert refused.status_code == 503, refused.text
    listed = post(limited, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, sessions[0])
    assert len(_sse_or_json(listed)["result"]["tools"]) == len(PETSTORE_TOOLS)


def test_sigterm_ends_the_server_with_a_call_in_flight(
    packages: Packages, upstream: RecordingUpstream, tmp_path: Path
) -> None:
    """A call waits 20 s on the upstream; SIGTERM ends the server within the shutdown timeout (2 s)
    and a margin."""
    server = limited_server(packages, upstream, tmp_path / "server.log")
    session = legacy_session(server)
    call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call"}
    call["params"] = {"name": "showPetById", "arguments": {"petId": "slow"}}
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pending = pool.submit(post, server, call, session)
        assert wait_until(lambda: any(r.path == "/pets/slow" for r in upstream.requests), 10)
        process = server.process
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
        assert time.monotonic() - started < 5.0
        with contextlib.suppress(httpx2.HTTPError):
            pending.result(timeout=10)


@pytest.mark.parametrize("value", ["0", "-1", "ten", "nan", "inf"])
def test_a_bad_limit_is_refused_at_start_naming_its_variable(
    packages: Packages, upstream: RecordingUpstream, tmp_path: Path, value: str
) -> None:
    petstore: Generated = packages.get("petstore.yaml")
    env = minimal_env(petstore.env(upstream.url, MCP_TOKENS=TOKEN, HTTP_MAX_SESSIONS=value))
    argv = [str(petstore.command), "--transport", "http", "--port", "9", "--auth", "token"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert f"PETSTORE_HTTP_MAX_SESSIONS must be a positive int, got {value!r}" in done.stderr


def call(request_id: int | str, pet: str) -> dict[str, Any]:
    params = {"name": "showPetById", "arguments": {"petId": pet}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def test_a_caller_past_its_sessions_gets_429_and_another_caller_is_served(limited: HttpServer) -> None:
    held = [legacy_session(limited) for _ in range(4)]
    refused = post(limited, INITIALIZE)
    assert refused.status_code == 429, refused.text
    assert "this caller holds 4, the most allowed" in refused.json()["error"]["message"]
    assert legacy_session(limited, token=OTHER)  # another token holder opens one
    ended = httpx2.delete(
        limited.url,
        headers={"Authorization": f"Bearer {TOKEN}", "Mcp-Session-Id": held[0]},
        timeout=CALL_TIMEOUT,
    )
    assert ended.status_code == 200, ended.text
    assert legacy_session(limited)  # the ended session's place is free again


def test_a_request_id_in_flight_twice_in_a_session_gets_exactly_one_answer_each(
    limited: HttpServer,
) -> None:
    """Ten calls with one id at once: the first is answered with the API's result, the nine others
    at once with 409 and a JSON-RPC error naming the id (before: one 200, one 500, eight never)."""
    session = legacy_session(limited)
    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        first = pool.submit(post, limited, call(7, "busy"), session)
        time.sleep(0.5)
        twins = [pool.submit(post, limited, call(7, "busy"), session) for _ in range(9)]
        answers = [twin.result(timeout=BUSY_PET) for twin in twins]
        assert [answer.status_code for answer in answers] == [409] * 9
        error = answers[0].json()
        assert error["id"] == 7 and error["error"]["code"] == -32600
        assert "id 7 is in use by a request in flight in this session" in error["error"]["message"]
        result = _sse_or_json(first.result(timeout=CALL_TIMEOUT))
    assert result["id"] == 7 and result["result"]["structuredContent"] == {"id": "busy"}
    again = _sse_or_json(post(limited, call(7, "busy"), session))  # free once answered
    assert again["result"]["structuredContent"] == {"id": "busy"}


def test_one_sessions_slow_calls_leave_upstream_slots_to_another(
    packages: Packages, upstream: RecordingUpstream, tmp_path: Path
) -> None:
    """MAX_CONCURRENCY 4: a session sending 6 calls that take 4 s each holds 1 slot (a quarter),
    so another session's call is answered at once (before: after the first 4 s)."""
    server = limited_server(packages, upstream, tmp_path / "server.log", MAX_CONCURRENCY="4")
    try:
        hog, other = legacy_session(server), legacy_session(server, token=OTHER)
        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            slow = [pool.submit(post, server, call(n, "busy"), hog) for n in range(6)]
            time.sleep(1.0)
            started = time.monotonic()
            listed = _sse_or_json(post(server, call(99, "quick"), other, OTHER))
            waited = time.monotonic() - started
            for pending in slow:
                pending.result(timeout=60)
        assert listed["result"]["structuredContent"] == {"id": "quick"}
        assert waited < BUSY_PET / 2, f"the other session waited {waited:.1f} s"
    finally:
        server.stop()
