"""A tool whose operation (or path item) has its own server sends there, unless PREFIX_BASE_URL
redirects the whole API (a mock, a proxy): then every tool goes to PREFIX_BASE_URL. A relative
spec server (a Swagger 2.0 basePath without host, OAS 3 `servers: [{url: /api/v2}]`) is joined to
PREFIX_BASE_URL: the origin is enough, and a URL already ending in the path is not doubled."""

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


@pytest.mark.parametrize("suffix", ["", "/", "/api/v2", "/api/v2/"])
@pytest.mark.parametrize("default", ["/api/v2", "/api/v2/"])
async def test_a_relative_spec_server_is_joined_to_the_base_url_set(
    make_runtime: Make, upstream: Upstream, suffix: str, default: str
) -> None:
    tools = make_runtime(
        _data("https://files.test"), base_url=upstream.url + suffix, default_base_url=default
    )
    await call(tools, "listItems", {})
    assert [r.target for r in upstream.requests] == ["/api/v2/items"]
    assert tools.settings.base_url == upstream.url + "/api/v2"


async def test_a_prefix_in_front_of_the_relative_path_is_kept(make_runtime: Make, upstream: Upstream) -> None:
    tools = make_runtime(_data("/files-api"), base_url=upstream.url + "/gateway", default_base_url="/api/v2")
    await call(tools, "listItems", {})
    await call(tools, "uploadFile", {})
    assert [r.target for r in upstream.requests] == ["/gateway/api/v2/items", "/gateway/files-api/files"]


@pytest.mark.parametrize("suffix", ["", "/api/v2/"])
async def test_a_relative_operation_server_joins_the_same_origin(
    make_runtime: Make, upstream: Upstream, suffix: str
) -> None:
    tools = make_runtime(_data("/files-api"), base_url=upstream.url + suffix, default_base_url="/api/v2")
    await call(tools, "uploadFile", {})
    assert [r.target for r in upstream.requests] == ["/files-api/files"]


async def test_under_a_relative_spec_server_an_absolute_operation_server_is_kept(
    make_runtime: Make, upstream: Upstream, other: Upstream
) -> None:
    tools = make_runtime(_data(other.url + "/up"), base_url=upstream.url, default_base_url="/api/v2")
    await call(tools, "uploadFile", {})
    await call(tools, "listItems", {})
    assert [r.target for r in other.requests] == ["/up/files"]
    assert [r.target for r in upstream.requests] == ["/api/v2/items"]


async def test_a_root_relative_spec_server_adds_nothing(make_runtime: Make, upstream: Upstream) -> None:
    tools = make_runtime(_data("/files-api"), base_url=upstream.url + "/x/", default_base_url="/")
    await call(tools, "listItems", {})
    assert [r.target for r in upstream.requests] == ["/x/items"]
