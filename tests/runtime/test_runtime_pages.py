"""tools/list in pages (issue 30): T_LIST_PAGE_SIZE, opaque cursors bound to the list they page,
an invalid or stale cursor refused with -32602, through the SDK client in both protocol eras."""

from __future__ import annotations

import base64
import json
from typing import Any

import mcp
import pytest
from mcp import MCPError

from openapi2mcp_runtime.discovery import pages

from .conftest import Make, mcp_server, runtime, tool, tool_data

pytestmark = [pytest.mark.timeout(60)]
NAMES = [f"tool{index:02}" for index in range(7)]
LISTED = {"tools": [{"name": name} for name in NAMES]}


def every_page(listed: dict[str, Any], size: int | None) -> list[list[str]]:
    found, cursor = [], None
    for _ in range(len(NAMES) + 1):
        answer = pages.page(listed, cursor, size)
        found.append([tool["name"] for tool in answer["tools"]])
        if (cursor := answer.get("nextCursor")) is None:
            return found
    raise AssertionError("the cursors never ended")


def test_pages_cover_every_tool_once_in_order() -> None:
    assert every_page(LISTED, 3) == [NAMES[0:3], NAMES[3:6], NAMES[6:7]]
    assert every_page(LISTED, 7) == [NAMES]
    assert every_page(LISTED, 1) == [[name] for name in NAMES]


def test_without_a_page_size_the_list_is_whole_and_has_no_cursor() -> None:
    assert pages.page(LISTED, None, None) == LISTED
    assert pages.page({"tools": []}, None, 5) == {"tools": []}


def encoded(value: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("cursor", "problem"),
    [
        ("", "not a cursor this server gave"),
        ("%%%", "not a cursor this server gave"),
        ("é", "not a cursor this server gave"),
        (encoded({"a": 1}), "not a cursor this server gave"),
        (encoded([pages.list_digest(LISTED["tools"]), 0]), "the tool list has changed since"),
        (encoded([pages.list_digest(LISTED["tools"]), 7]), "the tool list has changed since"),
        (encoded([pages.list_digest(LISTED["tools"]), 2.0]), "the tool list has changed since"),
        (encoded([pages.list_digest(LISTED["tools"]), True]), "the tool list has changed since"),
        (encoded(["0" * 18, 3]), "the tool list has changed since"),
    ],
)
def test_a_cursor_this_list_did_not_give_is_invalid_params(cursor: str, problem: str) -> None:
    with pytest.raises(MCPError) as raised:
        pages.page(LISTED, cursor, 3)
    assert raised.value.error.code == -32602
    assert raised.value.error.message == (
        f"Invalid cursor ({problem}): list the tools again without a cursor"
    )


def test_a_cursor_of_a_changed_list_is_refused() -> None:
    cursor = pages.page(LISTED, None, 3)["nextCursor"]
    grown = {"tools": [*LISTED["tools"], {"name": "added"}]}
    with pytest.raises(MCPError, match="the tool list has changed since"):
        pages.page(grown, cursor, 3)
    assert [t["name"] for t in pages.page(LISTED, cursor, 3)["tools"]] == NAMES[3:6]


def paged_data() -> dict[str, Any]:
    return tool_data(*(tool(name, "GET", f"/{name}") for name in NAMES))


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_sdk_client_pages_through_every_tool(make_runtime: Make, mode: str) -> None:
    tools = make_runtime(paged_data(), env={"T_LIST_PAGE_SIZE": "3"})
    server = mcp_server(tools)
    for _ in range(2):  # the second client gets the kept answers
        async with mcp.Client(server, mode=mode) as client:
            first = await client.list_tools()
            second = await client.list_tools(cursor=first.next_cursor)
            third = await client.list_tools(cursor=second.next_cursor)
            assert [[t.name for t in p.tools] for p in (first, second, third)] == [
                NAMES[0:3],
                NAMES[3:6],
                NAMES[6:7],
            ]
            assert third.next_cursor is None
            with pytest.raises(MCPError) as raised:
                await client.list_tools(cursor="not-ours")
            assert raised.value.error.code == -32602
            assert (await client.call_tool("tool06", {})).is_error is not True


@pytest.mark.parametrize("value", ["0", "-3", "two", "1.5"])
def test_a_bad_page_size_stops_the_start(value: str) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        runtime.Settings.from_env({"T_LIST_PAGE_SIZE": value}, prefix="T")
    assert str(raised.value) == (
        f"T_LIST_PAGE_SIZE must be a whole number of tools greater than 0, got {value!r}"
    )


def test_the_page_size_defaults_to_one_page() -> None:
    assert runtime.Settings.from_env({}, prefix="T").discovery.list_page_size is None
    given = runtime.Settings.from_env({"T_LIST_PAGE_SIZE": " 50 "}, prefix="T")
    assert given.discovery.list_page_size == 50
