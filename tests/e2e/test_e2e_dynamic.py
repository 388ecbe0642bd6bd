"""Issue 15 end to end, petstore against Prism through the `mcp` client: the dynamic mode
(search → describe → call over stdio and streamable HTTP, both protocol eras), read-only refusing a
write through call_tool with nothing sent, narrowing per HTTP request (headers, /mcp/x/{toolset},
/mcp/readonly; never wider than the server), and `--dynamic-toolsets` telling the client its tool
list changed after enable_toolsets."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from e2e_support import Generated
from http_support import HttpServer, http_session
from mcp_support import CALL_TIMEOUT, CLIENT_MODES, MODES, run_async, stdio_session, text_of
from petstore_support import PETSTORE_TOOLS
from prism_support import Prism

pytestmark = pytest.mark.e2e
API_KEY = "e2e-dynamic-key-0015"
META = ["search_tools", "describe_tools", "call_tool"]
READ_ONLY = ["listPets", "showPetById", "get_health"]


async def search_describe_call(client: Any) -> tuple[list[str], Any, Any, Any]:
    listing = await client.list_tools()
    found = await client.call_tool("search_tools", {"query": "look up one pet by its id", "limit": 3})
    described = await client.call_tool("describe_tools", {"names": ["showPetById"]})
    called = await client.call_tool("call_tool", {"name": "showPetById", "arguments": {"petId": "rex-1"}})
    return [tool.name for tool in listing.tools], found, described, called


def check_search_describe_call(petstore: Generated, outcome: tuple[list[str], Any, Any, Any]) -> None:
    names, found, described, called = outcome
    assert names == META
    assert not found.is_error and found.structured_content["tools"][0]["name"] == "showPetById", text_of(
        found
    )
    first = found.structured_content["tools"][0]
    assert (first["toolset"], first["annotations"]["readOnlyHint"]) == ("pets", True)
    static = next(t for t in petstore.tool_data["tools"] if t["name"] == "showPetById")
    assert described.structured_content == {"tools": [static]}
    assert not called.is_error, text_of(called)
    assert called.structured_content["id"] is not None  # Prism's example of the Pet schema


@MODES
@pytest.mark.representative(mode="legacy")  # (CI's second pass: tests/conftest.py)
def test_dynamic_mode_over_stdio_searches_describes_and_calls(
    petstore: Generated, prism: Prism, mode: str, tmp_path: Path
) -> None:
    async def body() -> Any:
        env = petstore.env(prism.base_url, API_KEY_KEY=API_KEY, MODE="dynamic")
        async with stdio_session(
            petstore.command, [], env, CLIENT_MODES[mode][0], tmp_path / "err"
        ) as client:
            return await search_describe_call(client)

    mark = prism.mark()
    check_search_describe_call(petstore, run_async(body))
    (request,) = prism.wait_for_requests(mark, 1)
    assert (request.method, request.path, request.violations) == ("GET", "/pets/rex-1", [])


@MODES
@pytest.mark.representative(mode="modern")
def test_dynamic_mode_over_http_searches_describes_and_calls(
    petstore: Generated, prism: Prism, mode: str, tmp_path: Path
) -> None:
    env = petstore.env(prism.base_url, API_KEY_KEY=API_KEY, MODE="dynamic")
    server = HttpServer(petstore, env, tmp_path / "server.log").start()
    try:

        async def body() -> Any:
            async with http_session(server.url, CLIENT_MODES[mode][0]) as client:
                return await search_describe_call(client)

        check_search_describe_call(petstore, run_async(body))
    finally:
        server.stop()


def test_read_only_refuses_a_write_through_call_tool_and_sends_nothing(
    petstore: Generated, prism: Prism, tmp_path: Path
) -> None:
    async def body() -> tuple[Any, Any]:
        env = petstore.env(prism.base_url, API_KEY_KEY=API_KEY, READ_ONLY="true")
        async with stdio_session(
            petstore.command, ["--mode", "dynamic"], env, errlog=tmp_path / "err"
        ) as client:
            listing = await client.list_tools()
            refused = await client.call_tool("call_tool", {"name": "createPet", "arguments": {"name": "Rex"}})
            return listing, refused

    mark = prism.mark()
    listing, refused = run_async(body)
    call_tool = next(tool for tool in listing.tools if tool.name == "call_tool")
    assert call_tool.annotations.read_only_hint is True
    assert refused.is_error
    assert text_of(refused) == (
        "Tool 'createPet' may change data and this server is read-only: nothing was sent to the API."
    )
    anyio.run(anyio.sleep, 0.5)
    assert prism.requests_since(mark) == []


@MODES
@pytest.mark.representative(mode="legacy")
def test_each_http_request_narrows_by_header_and_url_never_wider(
    petstore: Generated, prism: Prism, mode: str, tmp_path: Path
) -> None:
    env = petstore.env(prism.base_url, API_KEY_KEY=API_KEY, EXCLUDE_TOOLS="deletePet", MODE="static")
    server = HttpServer(petstore, env, tmp_path / "server.log").start()
    client_mode = CLIENT_MODES[mode][0]

    async def listed(url: str, headers: dict[str, str] | None = None) -> list[str]:
        async with http_session(url, client_mode, headers) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    async def body() -> dict[str, list[str]]:
        base = server.url
        return {
            "plain": await listed(base),
            "toolsets": await listed(base, {"X-MCP-Toolsets": "untagged"}),
            "tools": await listed(base, {"X-MCP-Tools": "listPets,createPet"}),
            "exclude": await listed(base, {"X-MCP-Exclude-Tools": "createPet,replacePet,renamePet"}),
            "readonly header": await listed(base, {"X-MCP-Readonly": "true"}),
            "x url": await listed(f"{base}/x/pets"),
            "readonly url": await listed(f"{base}/readonly"),
            "both": await listed(f"{base}/x/pets/readonly", {"X-MCP-Tools": "listPets"}),
        }

    try:
        seen = run_async(body)
        refused = httpx.post(
            server.url,
            headers={"X-MCP-Tools": "deletePet", "Accept": "application/json, text/event-stream"},
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            timeout=10,
        )
    finally:
        server.stop()
    everything = ["listPets", "createPet", "showPetById", "replacePet", "renamePet", "get_health"]
    assert seen == {
        "plain": everything,
        "toolsets": ["get_health"],
        "tools": ["listPets", "createPet"],
        "exclude": ["listPets", "showPetById", "get_health"],
        "readonly header": READ_ONLY,
        "x url": everything[:-1],
        "readonly url": READ_ONLY,
        "both": ["listPets"],
    }
    assert refused.status_code == 400  # deletePet is excluded by the server: a header cannot add it
    message = refused.json()["error"]["message"]
    assert message.startswith(
        "unknown tool(s) in header X-MCP-Tools: deletePet (did you mean createPet, replacePet?)."
        " Valid tools: listPets,"
    )


@asynccontextmanager
async def stdio_noticing(
    package: Generated, args: list[str], env: dict[str, str], mode: str, err: Path, seen: list[str]
) -> AsyncIterator[Any]:
    """mcp.Client over stdio whose message handler records the server's notifications by type."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def record(message: Any) -> None:
        seen.append(type(getattr(message, "root", message)).__name__)

    params = StdioServerParameters(command=str(package.command), args=args, env=env)
    with open(err, "a") as errlog:
        transport = stdio_client(params, errlog=errlog)
        async with Client(
            transport, mode=mode, read_timeout_seconds=CALL_TIMEOUT, message_handler=record
        ) as client:
            yield client


@MODES
def test_enable_toolsets_sends_list_changed(
    petstore: Generated, prism: Prism, mode: str, tmp_path: Path
) -> None:
    client_mode = CLIENT_MODES[mode][0]
    changes: list[str] = []

    async def body() -> tuple[list[str], Any, list[str]]:
        env = petstore.env(prism.base_url, API_KEY_KEY=API_KEY)
        args = ["--dynamic-toolsets", "--toolsets", "untagged"]
        async with stdio_noticing(petstore, args, env, client_mode, tmp_path / "err", changes) as client:
            before = [tool.name for tool in (await client.list_tools()).tools]
            assert client.server_capabilities.tools.list_changed is True
            if client_mode == "legacy":
                enabled = await client.call_tool("enable_toolsets", {"toolsets": ["pets"]})
                with anyio.fail_after(10):
                    while "ToolListChangedNotification" not in changes:
                        await anyio.sleep(0.05)
            else:
                async with client.listen(tools_list_changed=True) as subscription:
                    enabled = await client.call_tool("enable_toolsets", {"toolsets": ["pets"]})
                    with anyio.fail_after(10):
                        async for event in subscription:
                            changes.append(type(event).__name__)
                            break
            after = [tool.name for tool in (await client.list_tools()).tools]
            return before, enabled, after

    before, enabled, after = run_async(body)
    assert before == ["get_health", "list_toolsets", "enable_toolsets"]
    assert enabled.structured_content == {"enabled": ["pets", "untagged"], "added": 6}
    assert (
        changes.count("ToolListChangedNotification" if client_mode == "legacy" else "ToolsListChanged") == 1
    )
    assert after == [*PETSTORE_TOOLS, "list_toolsets", "enable_toolsets"]


async def paged_names(client: Any) -> list[list[str]]:
    pages, cursor = [], None
    for _ in range(20):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        pages.append([tool.name for tool in page.tools])
        if (cursor := page.next_cursor) is None:
            return pages
    raise AssertionError("the cursors never ended")


@MODES
@pytest.mark.representative(mode="modern")
def test_a_list_change_restarts_a_paged_listing(
    petstore: Generated, prism: Prism, mode: str, tmp_path: Path
) -> None:
    """PREFIX_LIST_PAGE_SIZE with --dynamic-toolsets (issue 30): a cursor given before
    enable_toolsets changed the list is refused with -32602; listed again from the start, the
    pages hold the new list, each tool once."""
    from mcp import MCPError

    client_mode = CLIENT_MODES[mode][0]

    async def body() -> tuple[list[list[str]], int, list[list[str]]]:
        env = petstore.env(prism.base_url, API_KEY_KEY=API_KEY, LIST_PAGE_SIZE="2")
        args = ["--dynamic-toolsets", "--toolsets", "untagged"]
        async with stdio_noticing(petstore, args, env, client_mode, tmp_path / "err", []) as client:
            before = await paged_names(client)
            stale = (await client.list_tools(cache_mode="refresh")).next_cursor
            await client.call_tool("enable_toolsets", {"toolsets": ["pets"]})
            with pytest.raises(MCPError) as refused:
                await client.list_tools(cursor=stale, cache_mode="refresh")
            return before, refused.value.error.code, await paged_names(client)

    before, code, after = run_async(body)
    assert before == [["get_health", "list_toolsets"], ["enable_toolsets"]]
    assert code == -32602
    every = [*PETSTORE_TOOLS, "list_toolsets", "enable_toolsets"]
    assert after == [every[i : i + 2] for i in range(0, len(every), 2)]
