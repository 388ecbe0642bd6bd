"""direct_calls.py: plain tool calls on stdio answered without the SDK's request pipeline, with the SDK's
bytes and semantics. Each test runs a real server process over pipes, PREFIX_STDIO_CALLS=direct next to
PREFIX_STDIO_CALLS=sdk (every message through the SDK), against the recording upstream."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from .conftest import TEMPLATE_PACKAGE, Recorded, Reply, Upstream, param, tool, tool_data

pytestmark = pytest.mark.timeout(120)

STR = {"type": "string"}
DATA = tool_data(
    tool("getItem", "GET", "/items/{id}", params=(param("id", "path", STR),)),
    tool("ping", "GET", "/ping"),
    tool("limited", "GET", "/limited", params=(param("n", "query", {"type": "integer", "minimum": 1}),)),
)
ANSWER_SECONDS = 20.0

SERVER = textwrap.dedent("""
    import json, os, sys
    sys.path.insert(0, {package!r})
    import anyio, direct_calls, runtime, stdio_transport, wiring

    if os.environ.get("INSTALL_TRACER"):
        from opentelemetry import trace
        trace.set_tracer_provider(trace.NoOpTracerProvider())
    settings = runtime.Settings.from_env(os.environ, prefix="T")
    tools = runtime.ToolRuntime(json.loads(open({data!r}).read()), settings)
    server = wiring.build_server(tools, "t", "1", None)
    direct = direct_calls.DirectCalls.for_server(server, tools, settings.stdio_calls == "direct")

    async def main():
        async with stdio_transport.stdio_streams(direct) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
    print(f"answered directly: {{direct.answered}}", file=sys.stderr)
    """)


class Session:
    """A server process; `ask` sends one message and returns the next answer line (bytes, as sent)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, *messages: dict[str, Any] | bytes) -> None:
        assert self.process.stdin is not None
        for message in messages:
            data = message if isinstance(message, bytes) else json.dumps(message).encode()
            self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def answer(self, seconds: float = ANSWER_SECONDS) -> bytes:
        return self.lines.get(timeout=seconds)

    def ask(self, message: dict[str, Any] | bytes) -> bytes:
        self.send(message)
        return self.answer()

    def close(self) -> tuple[list[bytes], str]:
        """Closes stdin; the answers still to come and the process's stderr."""
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        errors = self.process.stderr.read().decode()
        assert self.process.wait(timeout=30) == 0, errors
        rest = []
        while not self.lines.empty():
            rest.append(self.lines.get_nowait())
        return rest, errors


@contextmanager
def session(tmp_path: Path, upstream: Upstream, calls: str, **env: str) -> Iterator[Session]:
    data = tmp_path / "tool_data.json"
    data.write_text(json.dumps(DATA))
    script = tmp_path / "server.py"
    script.write_text(SERVER.format(package=str(TEMPLATE_PACKAGE), data=str(data)))
    environment = {"PATH": os.environ.get("PATH", ""), "T_BASE_URL": upstream.url, "T_STDIO_CALLS": calls}
    process = subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**environment, **env},
    )
    try:
        yield Session(process)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


def initialize(version: str, request_id: int = 1) -> dict[str, Any]:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


ABSENT = object()


def call(request_id: Any, name: str, arguments: Any = ABSENT, **params: Any) -> dict[str, Any]:
    params = {"name": name, **({} if arguments is ABSENT else {"arguments": arguments}), **params}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

# (message, who answers it) after the handshake: "direct", "sdk", or "nobody" (a line the SDK cannot
# parse as JSON-RPC is logged and dropped); the upstream answers by path (see `replies`)
TRANSCRIPT: list[tuple[dict[str, Any] | bytes, str]] = [
    (call(2, "getItem", {"id": "a/b é"}), "direct"),
    (call("s-3", "ping"), "direct"),
    (call("4", "ping", None), "direct"),
    (call(5, "getItem", {"id": "broken"}), "direct"),  # the upstream answers 500: an isError result
    (call(6, "limited", {"n": 0}), "direct"),  # invalid arguments: an isError result, nothing sent
    (call(7, "getItem", {"id": "big"}), "direct"),  # unicode, floats, a long text
    (call(8, "nope", {}), "sdk"),  # unknown tool: the SDK's protocol error
    (call(9, "ping", {}, _meta={"progressToken": "p"}), "sdk"),
    (call(10, "ping", {}, extra=1), "sdk"),
    (call(11, "ping", [1]), "sdk"),  # arguments not an object: the SDK's invalid params
    ({**call(12, "ping", {}), "extra": 1}, "sdk"),
    (call(True, "ping", {}), "nobody"),  # a boolean id
    (
        b'{"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": "ping", "x": "\\ud800"}}',
        "nobody",
    ),
    (b"{broken", "nobody"),
    ({"jsonrpc": "2.0", "id": 14, "method": "ping"}, "sdk"),
]


def replies(request: Recorded) -> Reply:
    if request.target == "/items/broken":
        return Reply(500, b'{"error": "boom"}')
    if request.target == "/items/big":
        return Reply(200, json.dumps({"x": 1.5e300, "text": "é\u2028" * 2000, "n": [0.1, -2]}).encode())
    return Reply(200, b'{"ok": true}')


def transcript(tmp_path: Path, upstream: Upstream, calls: str, version: str) -> tuple[list[bytes], str]:
    upstream.responder = replies
    with session(tmp_path, upstream, calls) as server:
        answers = [server.ask(call(0, "ping", {}))]  # before initialize: the SDK refuses it
        answers += [server.ask(initialize(version))]
        server.send(INITIALIZED)
        for message, who in TRANSCRIPT:
            answers += [server.ask(message)] if who != "nobody" else server.send(message) or []
        rest, errors = server.close()
    assert rest == []
    return answers, errors


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
def test_plain_calls_are_answered_directly_with_the_bytes_the_sdk_writes(
    tmp_path: Path, upstream: Upstream, version: str
) -> None:
    direct, direct_log = transcript(tmp_path, upstream, "direct", version)
    through_sdk, sdk_log = transcript(tmp_path, upstream, "sdk", version)
    assert direct == through_sdk
    plain = sum(1 for _, who in TRANSCRIPT if who == "direct")
    assert f"answered directly: {plain}" in direct_log
    assert "answered directly: 0" in sdk_log
    first = json.loads(direct[2])
    assert first["id"] == 2 and first["result"]["structuredContent"] == {"ok": True}
    assert "resultType" not in first["result"]  # shaped for the handshake version, as the SDK does


def test_with_a_tracer_provider_installed_every_call_goes_through_the_sdk(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.reply(body=b'{"ok": true}')
    with session(tmp_path, upstream, "direct", INSTALL_TRACER="1") as server:
        server.ask(initialize("2025-11-25"))
        answer = json.loads(server.ask(call(2, "ping", {})))
        _, errors = server.close()
    assert answer["result"]["structuredContent"] == {"ok": True}
    assert "answered directly: 0" in errors


def delayed(request: Recorded) -> Reply:
    delay = {"/items/slow": 1.5, "/items/stuck": 10.0}.get(request.target, 0.0)
    return Reply(200, b'{"ok": true}', delay=delay)


@pytest.mark.parametrize("calls", ["direct", "sdk"])
def test_calls_overlap_and_a_cancelled_call_is_never_answered(
    tmp_path: Path, upstream: Upstream, calls: str
) -> None:
    upstream.responder = delayed
    with session(tmp_path, upstream, calls) as server:
        server.ask(initialize("2025-11-25"))
        server.send(call(2, "getItem", {"id": "slow"}), call(3, "getItem", {"id": "fast"}))
        assert json.loads(server.answer())["id"] == 3  # the slow call did not hold it up
        assert json.loads(server.answer())["id"] == 2
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "4"}}
        server.send(call(4, "getItem", {"id": "slow"}))
        _wait_for(lambda: len(upstream.requests) == 3)
        server.send(cancel)
        time.sleep(2.0)  # the upstream has answered the cancelled call by now
        assert json.loads(server.ask(call(5, "ping", {})))["id"] == 5
        rest, _ = server.close()
    assert rest == []


@pytest.mark.parametrize("calls", ["direct", "sdk"])
def test_calls_running_at_the_end_of_input_are_answered_connection_closed(
    tmp_path: Path, upstream: Upstream, calls: str
) -> None:
    upstream.responder = delayed
    with session(tmp_path, upstream, calls) as server:
        server.ask(initialize("2025-11-25"))
        server.send(call(2, "getItem", {"id": "stuck"}))
        _wait_for(lambda: len(upstream.requests) == 1)
        began = time.monotonic()
        rest, _ = server.close()
    assert time.monotonic() - began < 8.0  # not held up by the upstream (10 s)
    assert [json.loads(line) for line in rest] == [
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "Connection closed"}}
    ]


def _wait_for(condition: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)
