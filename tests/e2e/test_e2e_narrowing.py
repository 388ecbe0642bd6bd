"""Start-up narrowing end to end: the petstore package started over stdio with `--read-only` (and a
{PREFIX}_TOOLSETS the flag overrides) lists only read-only tools and refuses a write tool's call
through the `mcp` client; an unknown toolset stops it with exit status 2 and the valid names. Over
HTTP, an empty X-MCP-* narrowing header is refused as a bad value is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import Generated, minimal_env, run_tool
from http_support import HttpServer
from mcp import MCPError
from mcp_support import run_async, stdio_session
from petstore_support import PETS, pets_upstream
from recording_upstream import RecordingUpstream

pytestmark = pytest.mark.e2e


@pytest.fixture
def upstream() -> Iterator[RecordingUpstream]:
    """The petstore's upstream, fresh for each test (the tests check the requests it saw)."""
    with pets_upstream() as recording:
        yield recording


def test_read_only_lists_only_read_only_tools_and_refuses_a_write_tool(
    petstore: Generated, upstream: RecordingUpstream, tmp_path: Path
) -> None:
    async def body() -> tuple[Any, Any, MCPError]:
        env = petstore.env(upstream.url, TOOLSETS="untagged", API_KEY_KEY="e2e-narrowing-key")
        args = ["--toolsets", "pets", "--read-only"]  # the flag wins over PETSTORE_TOOLSETS
        async with stdio_session(petstore.command, args, env, errlog=tmp_path / "server.stderr") as client:
            listing = await client.list_tools()
            pets = await client.call_tool("listPets", {})
            with pytest.raises(MCPError) as refused:
                await client.call_tool("createPet", {"name": "Tom"})
            return listing, pets, refused.value

    listing, pets, refused = run_async(body)
    assert [tool.name for tool in listing.tools] == ["listPets", "showPetById"]
    assert not pets.is_error and pets.structured_content == {"result": PETS}
    assert (refused.error.code, refused.error.message) == (-32602, "Unknown tool: createPet")
    assert [(r.method, r.target) for r in upstream.requests] == [("GET", "/pets")]


def test_an_unknown_toolset_exits_2_naming_the_valid_ones(petstore: Generated, tmp_path: Path) -> None:
    env = minimal_env({"PETSTORE_BASE_URL": "http://127.0.0.1:9"})
    done = run_tool([petstore.command, "--toolsets", "pets,nope"], env, tmp_path, timeout=60)
    assert done.returncode == 2, str(done)
    assert done.stderr == (
        "petstore: unknown toolset(s) in --toolsets: nope. Valid toolsets: all, default, pets, untagged\n"
    ), str(done)


READONLY_REFUSED = "header X-MCP-Readonly must be true or false (1/0, yes/no, on/off), got {!r}"
EMPTY_LIST = "header {} names no {}, got {!r}: give them comma-separated, or leave the header out"


def test_an_empty_narrowing_header_is_refused_as_an_unknown_value_is(
    petstore: Generated, upstream: RecordingUpstream, tmp_path: Path
) -> None:
    """`X-MCP-Readonly:` read as false (every tool, writes included), `X-MCP-Toolsets:` as no tool
    at all; both are refused now, with 400 and the message a bad value gets."""
    env = petstore.env(upstream.url, API_KEY_KEY="e2e-narrowing-key")
    server = HttpServer(petstore, env, tmp_path / "server.log").start()
    cases = {
        ("X-MCP-Readonly", "maybe"): READONLY_REFUSED.format("maybe"),
        ("X-MCP-Readonly", ""): READONLY_REFUSED.format(""),
        ("X-MCP-Toolsets", ""): EMPTY_LIST.format("X-MCP-Toolsets", "toolsets", ""),
        ("X-MCP-Tools", ", ,"): EMPTY_LIST.format("X-MCP-Tools", "tools", ", ,"),
        ("X-MCP-Exclude-Tools", ""): EMPTY_LIST.format("X-MCP-Exclude-Tools", "tools", ""),
    }
    answers = {}
    try:
        for (name, value), _ in cases.items():
            answer = httpx.post(
                server.url,
                headers={name: value, "Accept": "application/json, text/event-stream"},
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                timeout=10,
            )
            answers[(name, value)] = message = answer.json()["error"]["message"]
            assert (answer.status_code, answer.json()["error"]["code"]) == (400, -32602), message
    finally:
        server.stop()
    assert answers == cases
