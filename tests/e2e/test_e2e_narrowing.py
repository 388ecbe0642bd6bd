"""Start-up narrowing end to end: the petstore package started over stdio with `--read-only` (and a
{PREFIX}_TOOLSETS the flag overrides) lists only read-only tools and refuses a write tool's call
through the `mcp` client; an unknown toolset stops it with exit status 2 and the valid names."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import Generated, Packages, minimal_env, run_async, run_tool, stdio_session
from mcp import MCPError
from recording_upstream import RecordingUpstream, Reply

pytestmark = pytest.mark.e2e

PETS = [{"id": "rex-1", "name": "Rex"}]


@pytest.fixture(scope="module")
def petstore(packages: Packages) -> Generated:
    return packages.get("petstore.yaml")


@pytest.fixture
def upstream() -> Iterator[RecordingUpstream]:
    with RecordingUpstream(routes={"/pets": Reply(body=json.dumps(PETS).encode())}) as recording:
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
