"""Confirmation before destructive calls (issue 30), with the petstore package as a process: over
stdio and streamable HTTP, in both protocol eras, the SDK client's elicitation callback accepts or
declines, and the recording upstream shows what reached the API (a declined call: nothing)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from e2e_support import Generated
from http_support import HttpServer
from mcp_support import CLIENT_MODES, run_async, session_over, text_of
from petstore_support import pets_upstream
from recording_upstream import RecordingUpstream

pytestmark = pytest.mark.e2e
API_KEY = "e2e-confirm-api-key-77"
ERAS = pytest.mark.parametrize("era", sorted(CLIENT_MODES))
TRANSPORTS = pytest.mark.parametrize("transport", ["stdio", "http"])
# `representative`: the one combination CI's second pass runs (tests/conftest.py); between them
# each era meets each transport there. The stateless test keeps both eras: each has its own outcome.


@pytest.fixture(scope="module")
def upstream() -> Iterator[RecordingUpstream]:
    with pets_upstream() as recording:
        yield recording


class User:
    """The elicitation callback: answers `action`, keeping each question's message."""

    def __init__(self, action: str) -> None:
        self.action, self.messages = action, []

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        self.messages.append(params.message)
        return types.ElicitResult(action=self.action, content={} if self.action == "accept" else None)


def client_of(
    transport: str, target: str | Path, env: dict[str, str], era: str, user: User | None, err: Path
) -> Any:
    """mcp.Client over `transport` in the protocol `era`, the `user` answering its questions."""
    return session_over(transport, target, env, CLIENT_MODES[era][0], err, elicitation_callback=user)


def calls(
    petstore: Generated,
    upstream: RecordingUpstream,
    transport: str,
    era: str,
    user: User | None,
    tmp_path: Path,
    **settings: str,
) -> tuple[list[Any], list[Any]]:
    """deletePet then listPets through one session; their results and the upstream's requests."""
    env = {"PATH": os.environ["PATH"], **petstore.env(upstream.url, API_KEY_KEY=API_KEY, **settings)}
    server = HttpServer(petstore, env, tmp_path / "server.log").start() if transport == "http" else None
    target = server.url if server is not None else petstore.command
    mark = upstream.mark()

    async def session() -> list[Any]:
        async with client_of(transport, target, env, era, user, tmp_path / "err.log") as client:
            deleted = await client.call_tool("deletePet", {"petId": "rex-1"})
            listed = await client.call_tool("listPets", {})
            return [deleted, listed]

    try:
        results = run_async(session)
    finally:
        if server is not None:
            server.stop()
    return results, upstream.since(mark)


@TRANSPORTS
@ERAS
@pytest.mark.representative(era="modern", transport="http")  # (input_required, its requestState back)
def test_an_accepted_call_is_sent_and_a_read_is_never_asked(
    petstore: Generated, upstream: RecordingUpstream, transport: str, era: str, tmp_path: Path
) -> None:
    user = User("accept")
    (deleted, listed), sent = calls(petstore, upstream, transport, era, user, tmp_path, CONFIRM="destructive")
    assert deleted.is_error is not True, text_of(deleted)
    assert listed.is_error is not True
    assert [(r.method, r.path) for r in sent] == [("DELETE", "/pets/rex-1"), ("GET", "/pets")]
    assert user.messages == [
        "Allow this call to the API?\n\nTool: deletePet\nRequest: DELETE /pets/{petId}\n"
        'Arguments: {\n "petId": "rex-1"\n}'
    ]


@TRANSPORTS
@ERAS
@pytest.mark.representative(era="legacy", transport="stdio")  # (elicitation/create)
def test_a_declined_call_sends_nothing(
    petstore: Generated, upstream: RecordingUpstream, transport: str, era: str, tmp_path: Path
) -> None:
    user = User("decline")
    (deleted, listed), sent = calls(petstore, upstream, transport, era, user, tmp_path, CONFIRM="writes")
    assert deleted.is_error is True
    assert text_of(deleted) == "not sent: the user declined"
    assert listed.is_error is not True
    assert [(r.method, r.path) for r in sent] == [("GET", "/pets")]
    assert len(user.messages) == 1


@ERAS
@pytest.mark.representative(era="modern")
def test_a_client_without_elicitation_is_refused_unless_the_fallback_allows(
    petstore: Generated, upstream: RecordingUpstream, era: str, tmp_path: Path
) -> None:
    (refused, _), sent = calls(petstore, upstream, "stdio", era, None, tmp_path, CONFIRM="destructive")
    assert refused.is_error is True
    assert "the client cannot be asked (it declared no elicitation)" in text_of(refused)
    assert [r.method for r in sent] == ["GET"]
    (allowed, _), sent = calls(
        petstore, upstream, "http", era, None, tmp_path, CONFIRM="destructive", CONFIRM_FALLBACK="allow"
    )
    assert allowed.is_error is not True
    assert [r.method for r in sent] == ["DELETE", "GET"]


@ERAS
def test_a_stateless_server_asks_on_2026_07_28_and_follows_the_fallback_before(
    petstore: Generated, upstream: RecordingUpstream, era: str, tmp_path: Path
) -> None:
    """--stateless keeps no session: on 2026-07-28 each request declares the client's capabilities
    and the question rides the call's answer; on 2025-11-25 the server never hears them (they were
    in an initialize another request made), so the client cannot be asked."""
    user = User("decline")
    env = {"PATH": os.environ["PATH"], **petstore.env(upstream.url, API_KEY_KEY=API_KEY, CONFIRM="writes")}
    server = HttpServer(petstore, env, tmp_path / "server.log", args=["--stateless"]).start()
    mark = upstream.mark()

    async def session() -> Any:
        async with client_of("http", server.url, env, era, user, tmp_path / "err.log") as client:
            return await client.call_tool("createPet", {"name": "Rex"})

    try:
        result = run_async(session)
    finally:
        server.stop()
    assert result.is_error is True and upstream.since(mark) == []
    if era == "modern":
        assert (text_of(result), len(user.messages)) == ("not sent: the user declined", 1)
    else:
        assert "the client cannot be asked (it declared no elicitation)" in text_of(result)
        assert user.messages == []
