"""The protocol's extras over stdio with the real mcp client (issue 17): each tool's icons (from
the spec's x-logo) and _meta, progress notifications for a call that asks for them, and the
request's trace context forwarded to the API."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import Generated, generate_document
from http_support import HttpServer
from mcp_support import CALL_TIMEOUT, CLIENT_MODES, run_async, stdio_session
from recording_upstream import RecordingUpstream, Reply
from venv_support import ServerVenv

pytestmark = pytest.mark.e2e

LOGO = "https://example.com/logo.svg"
PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Extras API", "version": "1.0.0", "x-logo": {"url": LOGO, "altText": "Extras"}},
    "paths": {
        "/items": {
            "get": {
                "operationId": "listItems",
                "tags": ["items"],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


@pytest.fixture(scope="module")
def package(server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate_document(SPEC, "extras", server_venv, tmp_path_factory)


@pytest.fixture
def upstream() -> Iterator[RecordingUpstream]:
    body = json.dumps({"items": ["x" * 100] * 2000}).encode()
    with RecordingUpstream(default=Reply(body=body)) as server:
        yield server


@pytest.mark.parametrize("era", sorted(CLIENT_MODES))
@pytest.mark.representative(era="modern")  # (CI's second pass: tests/conftest.py)
def test_icons_meta_progress_and_trace_context_over_stdio(
    package: Generated, upstream: RecordingUpstream, era: str, tmp_path: Path
) -> None:
    mode, _version = CLIENT_MODES[era]
    env = {"PATH": os.environ["PATH"], **package.env(upstream.url)}
    heard: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    async def session() -> Any:
        async with stdio_session(package.command, env=env, mode=mode, errlog=tmp_path / "err.log") as client:
            [tool] = (await client.list_tools()).tools
            result = await client.call_tool(
                "listItems", {}, progress_callback=on_progress, meta={"traceparent": PARENT}
            )
            return tool, result

    tool, result = run_async(session)
    assert [icon.model_dump(exclude_none=True, by_alias=True) for icon in tool.icons] == [
        {"src": LOGO, "mimeType": "image/svg+xml"}
    ]
    assert tool.meta == {
        "openapi2mcp/operation": {
            "operationId": "listItems",
            "method": "GET",
            "path": "/items",
            "toolset": "items",
            "tags": ["items"],
        }
    }
    assert not result.is_error
    assert heard[0] == (0.0, 1.0, "calling listItems") and heard[-1] == (1.0, 1.0, "listItems finished")
    assert any(message and message.startswith("received ") for _, _, message in heard[1:-1]), heard
    assert [request.header("traceparent") for request in upstream.requests] == [PARENT]


@pytest.mark.parametrize("sse", [True, False], ids=["sse", "json"])
def test_over_http_progress_and_log_messages_need_sse(
    package: Generated, upstream: RecordingUpstream, sse: bool, tmp_path: Path
) -> None:
    """With --sse each answer is an SSE stream carrying the request's notifications; by default
    it is one JSON body and the notifications are dropped (the call itself works either way)."""
    heard: list[str | None] = []
    logged: list[Any] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append(message)

    async def on_log(params: Any) -> None:
        logged.append(params)

    async def session(url: str) -> Any:
        from mcp import Client, types

        async with Client(url, read_timeout_seconds=CALL_TIMEOUT, logging_callback=on_log) as client:
            meta = {types.LOG_LEVEL_META_KEY: "info"}
            return await client.call_tool("listItems", {}, progress_callback=on_progress, meta=meta)

    args = ["--sse"] if sse else []
    server = HttpServer(package, package.env(upstream.url), tmp_path / "server.log", args=args).start()
    try:
        result = run_async(lambda: session(server.url))
    finally:
        server.stop()
    assert not result.is_error
    if sse:
        assert heard[0] == "calling listItems" and heard[-1] == "listItems finished", heard
        assert [(m.level, m.data["tool"], m.data["outcome"]) for m in logged] == [("info", "listItems", "ok")]
    else:
        assert (heard, logged) == ([], [])
