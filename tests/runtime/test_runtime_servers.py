"""A tool whose operation (or path item) has its own server sends there, unless PREFIX_BASE_URL
redirects the whole API (a mock, a proxy): then every tool goes to PREFIX_BASE_URL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import Make, Upstream, call, running_upstream, text_of, tool, tool_data

pytestmark = pytest.mark.anyio


@pytest.fixture
def other() -> Iterator[Upstream]:
    """A second recording upstream: the operation's own server."""
    with running_upstream() as recording:
        yield recording


def _data(own_base_url: str) -> dict[str, object]:
    default_wire, default_route = tool("listItems", "GET", "/items")
    own_wire, own_route = tool("uploadFile", "POST", "/files")
    own_route["baseUrl"] = own_base_url
    return tool_data((default_wire, default_route), (own_wire, own_route))


async def test_an_operation_with_its_own_server_sends_there_and_the_others_to_the_default(
    make_runtime: Make, upstream: Upstream, other: Upstream
) -> None:
    tools = make_runtime(_data(other.url + "/files-api"), default_base_url=upstream.url + "/v1")
    result = await call(tools, "uploadFile", {})
    assert not result.is_error, text_of(result)
    assert [r.target for r in other.requests] == ["/files-api/files"]
    await call(tools, "listItems", {})
    assert [r.target for r in upstream.requests] == ["/v1/items"]


async def test_base_url_set_to_the_specs_own_default_keeps_operation_servers(
    make_runtime: Make, upstream: Upstream, other: Upstream
) -> None:
    default = upstream.url + "/v1"
    tools = make_runtime(_data(other.url), base_url=default + "/", default_base_url=default)
    await call(tools, "uploadFile", {})
    assert [r.target for r in other.requests] == ["/files"]
    assert upstream.requests == []


async def test_a_redirecting_base_url_sends_every_tool_there(
    make_runtime: Make, upstream: Upstream, other: Upstream
) -> None:
    tools = make_runtime(
        _data(other.url), base_url=upstream.url + "/mock", default_base_url="https://api.example.com"
    )
    await call(tools, "uploadFile", {})
    await call(tools, "listItems", {})
    assert [r.target for r in upstream.requests] == ["/mock/files", "/mock/items"]
    assert other.requests == []
