"""http_sessions.SessionGuard in-process, with a clock of the test's: sessions counted per caller
from the answer that opened them until a DELETE or their idle time, requests without a session
that open none not counted, twins of a request in flight refused. The real server:
tests/e2e/test_e2e_hostile_peer.py."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from openapi2mcp_runtime.serving import http_sessions

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}).encode()


class Upstream:
    """The SDK's part: answers 200, with a new Mcp-Session-Id to an initialize; waits on `gate`."""

    def __init__(self) -> None:
        self.opened = 0
        self.gate: anyio.Event | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = (await receive())["body"]
        headers = []
        if body == INITIALIZE:
            self.opened += 1
            headers.append((b"mcp-session-id", b"s%d" % self.opened))
        if self.gate is not None:
            await self.gate.wait()
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


async def request(
    app: Any, method: str, body: bytes = b"", token: str = "a", session: str | None = None
) -> tuple[int, bytes]:
    headers = [(b"authorization", f"Bearer {token}".encode())]
    if session is not None:
        headers.append((b"mcp-session-id", session.encode()))
    scope = {"type": "http", "method": method, "path": "/mcp", "headers": headers, "client": ("127.0.0.1", 1)}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


async def test_a_caller_holds_at_most_its_sessions_until_one_ends_or_idles() -> None:
    clock = Clock()
    guard = http_sessions.SessionGuard(Upstream(), per_caller=2, idle=10.0, clock=clock)
    assert [(await request(guard, "POST", INITIALIZE))[0] for _ in range(3)] == [200, 200, 429]
    assert (await request(guard, "POST", INITIALIZE, token="b"))[0] == 200  # another caller
    assert (await request(guard, "DELETE", session="s1"))[0] == 200
    assert (await request(guard, "POST", INITIALIZE))[0] == 200  # s1's place
    assert (await request(guard, "POST", INITIALIZE))[0] == 429
    clock.now = 9.0
    await request(guard, "POST", b"{}", session="s2")  # s2 used: stays; the others idle out
    clock.now = 15.0
    assert [(await request(guard, "POST", INITIALIZE))[0] for _ in range(2)] == [200, 429]
    assert dict(guard.held) == {next(iter(guard.held)): 2} and len(guard.held) == 1


async def test_requests_that_open_no_session_are_not_counted() -> None:
    """A 2026-07-28 request (no session, not initialize), a notification, a body that is no JSON."""
    guard = http_sessions.SessionGuard(Upstream(), per_caller=1, idle=10.0)
    call = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode()
    for body in (call, b'{"jsonrpc":"2.0","method":"notifications/initialized"}', b"not json"):
        assert (await request(guard, "POST", body))[0] == 200
    assert dict(guard.held) == {}
    assert (await request(guard, "POST", INITIALIZE))[0] == 200


async def test_a_twin_of_a_request_in_flight_gets_409_and_the_first_its_answer() -> None:
    upstream = Upstream()
    upstream.gate = anyio.Event()
    guard = http_sessions.SessionGuard(upstream, per_caller=5, idle=10.0)
    call = json.dumps({"jsonrpc": "2.0", "id": "x", "method": "tools/call"}).encode()
    answers: list[tuple[int, bytes]] = []

    async def answered(session: str) -> None:
        answers.append(await request(guard, "POST", call, session=session))

    async with anyio.create_task_group() as group:
        group.start_soon(answered, "s9")
        group.start_soon(answered, "other")  # the same id in another session: no twin
        await anyio.wait_all_tasks_blocked()
        status, body = await request(guard, "POST", call, session="s9")
        assert status == 409
        assert json.loads(body)["id"] == "x"
        upstream.gate.set()
    assert answers == [(200, call), (200, call)]
    assert guard.in_flight == set()
