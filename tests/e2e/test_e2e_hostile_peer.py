"""The streamable HTTP endpoint under a hostile peer (issue 28): the petstore package with
`--auth token` on 127.0.0.1, driven with raw HTTP by one token holder while the official `mcp`
client, as another, must keep being served."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from e2e_support import CALL_TIMEOUT, CLIENT_MODES, Generated, HttpServer, Packages, run_async
from recording_upstream import RecordingUpstream

pytestmark = pytest.mark.e2e
TOKEN = "hostile-peer-token"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LEGACY = CLIENT_MODES["legacy"][1]
PETSTORE_TOOLS = 7


@pytest.fixture(scope="module")
def server(packages: Packages, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    petstore: Generated = packages.get("petstore.yaml")
    with RecordingUpstream(routes={}) as upstream:
        env = petstore.env(upstream.url, MCP_TOKENS=TOKEN, API_KEY_KEY="k")
        log = tmp_path_factory.mktemp("hostile") / "server.log"
        running = HttpServer(petstore, env, log, args=["--auth", "token"]).start()
        yield running
        running.stop()


def post(server: HttpServer, message: dict[str, Any] | bytes, session: str | None = None) -> httpx2.Response:
    headers = {**ACCEPT, "Authorization": f"Bearer {TOKEN}", "MCP-Protocol-Version": LEGACY}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return httpx2.post(server.url, content=body, headers=headers, timeout=CALL_TIMEOUT)


def legacy_session(server: HttpServer) -> str:
    """A 2025-11-25 session, handshake done, as a raw client holds it."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "peer", "version": "1"},
        },
    }
    answer = post(server, initialize)
    assert answer.status_code == 200, answer.text
    session = answer.headers["mcp-session-id"]
    assert post(server, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session).status_code == 202
    return session


async def listed_names(server: HttpServer, mode: str) -> list[str]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx2.AsyncClient(headers=headers, timeout=CALL_TIMEOUT) as http:
        transport = streamable_http_client(server.url, http_client=http)
        async with Client(transport, mode=CLIENT_MODES[mode][0], read_timeout_seconds=CALL_TIMEOUT) as client:
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
    assert len(_sse_or_json(listed)["result"]["tools"]) == PETSTORE_TOOLS
    for mode in CLIENT_MODES:
        assert len(run_async(lambda mode=mode: listed_names(server, mode))) == PETSTORE_TOOLS


def _sse_or_json(answer: httpx2.Response) -> dict[str, Any]:
    """The one JSON-RPC message of a POST's answer, sent as JSON or as one SSE event."""
    assert answer.status_code == 200, answer.text
    if answer.headers["content-type"].startswith("application/json"):
        return dict(answer.json())
    data = [line[5:].strip() for line in answer.text.splitlines() if line.startswith("data:")]
    messages = [json.loads(item) for item in data if item]
    assert len(messages) == 1, answer.text
    return dict(messages[0])
