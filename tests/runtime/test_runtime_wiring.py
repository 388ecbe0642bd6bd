"""wiring.py (tools/list from a constant) and stdio_transport.py (stdio without worker threads)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import mcp
import pytest

from .conftest import TEMPLATE_PACKAGE, Make, mcp_server, template_module
from .test_runtime_requests import DATA

wiring = template_module("wiring")
pytestmark = [pytest.mark.timeout(120)]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_tools_list_is_shaped_by_the_sdk_once_per_protocol_version(
    make_runtime: Make, mode: str
) -> None:
    tools = make_runtime(DATA)
    handled = []
    original = tools.on_list_tools

    async def counting(ctx: Any, params: Any) -> Any:
        handled.append(ctx.protocol_version)
        return await original(ctx, params)

    tools.on_list_tools = counting
    server = mcp_server(tools)
    for _ in range(2):
        async with mcp.Client(server, mode=mode) as client:
            first, second = await client.list_tools(), await client.list_tools()
            assert first == second
            assert [t.name for t in first.tools] == [t["name"] for t in DATA["tools"]]
            assert first.tools[0].input_schema == DATA["tools"][0]["inputSchema"]
    assert len(handled) == 1
    cached = next(iter(server.middleware[-1].by_version.values()))
    assert [t["name"] for t in cached["tools"]] == [t["name"] for t in DATA["tools"]]


@pytest.mark.anyio
async def test_other_requests_pass_through_the_middleware() -> None:
    listed = wiring.ListedOnce()
    seen = []

    async def call_next(ctx: Any) -> Any:
        seen.append(ctx.method)
        return {"n": len(seen)}

    class Ctx:
        method, protocol_version = "tools/call", "2025-11-25"

    assert await listed(Ctx(), call_next) == {"n": 1}
    assert await listed(Ctx(), call_next) == {"n": 2}
    assert listed.by_version == {}


# ---- stdio_transport, in a real process ------------------------------------------------------

SERVER = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {package!r})
    import anyio, mcp_types as types
    from mcp.server import Server
    import stdio_transport

    async def on_list_tools(ctx, params):
        return types.ListToolsResult(tools=[types.Tool(name="shout", input_schema={{"type": "object"}})])

    async def on_call_tool(ctx, params):
        print("stray output", flush=True)  # must not reach the protocol stream
        os.write(1, b"more stray output\\n")
        return types.CallToolResult(content=[types.TextContent(text=sys.stdin.read() or "stdin is empty")])

    async def main():
        server = Server("t", on_list_tools=on_list_tools, on_call_tool=on_call_tool)
        async with stdio_transport.stdio_streams() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        print("restored stdout", flush=True)

    anyio.run(main)
    """)


def messages(*lines: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


HANDSHAKE = (
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
)
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "shout", "arguments": {}}}


def write_script(tmp_path: Path) -> Path:
    script = tmp_path / "server.py"
    script.write_text(SERVER.format(package=str(TEMPLATE_PACKAGE)))
    return script


def test_stdio_over_pipes_keeps_stray_output_off_the_wire_and_restores_the_fds(tmp_path: Path) -> None:
    """Answers are read before stdin closes: at EOF the SDK cancels requests still in flight. Blank
    lines are skipped, a line that is not JSON-RPC costs only itself, and concurrent answers each get
    a line of their own."""
    with subprocess.Popen(
        [sys.executable, str(write_script(tmp_path))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdin and process.stdout
        calls = [{**CALL, "id": n} for n in range(2, 22)]
        process.stdin.write(messages(*HANDSHAKE) + b"\n \n{broken\n" + messages(*calls))
        process.stdin.flush()
        answers = [json.loads(process.stdout.readline()) for _ in range(21)]
        process.stdin.close()
        assert process.stderr
        rest, errors = process.stdout.read(), process.stderr.read()
        assert process.wait(timeout=60) == 0
    assert answers[0]["id"] == 1 and sorted(a["id"] for a in answers[1:]) == list(range(2, 22))
    assert {a["result"]["content"][0]["text"] for a in answers[1:]} == {"stdin is empty"}
    assert rest == b"restored stdout\n"
    assert b"stray output" in errors and b"more stray output" in errors


def test_stdio_from_a_regular_file_uses_the_sdk_transport(tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_bytes(messages(*HANDSHAKE))
    with open(tmp_path / "in.jsonl", "rb") as stdin:
        out = subprocess.run(
            [sys.executable, str(write_script(tmp_path))], stdin=stdin, capture_output=True, timeout=60
        )
    lines = out.stdout.decode().splitlines()
    assert json.loads(lines[0])["id"] == 1
    assert lines[1:] == ["restored stdout"]
