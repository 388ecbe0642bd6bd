"""Redirects (http_client._followed, http_exchange.same_origin_redirect): one on the same origin is
followed (for GET and HEAD any of them, for other methods a 307 or 308 with the method and body
kept), up to five; one to another origin is the answer, reported with its Location, so credentials
never leave their host. Found with Jupyter Server, which answers GET /api/ with 302 to /api."""

from __future__ import annotations

from typing import Any

import pytest

from openapi2mcp_runtime.upstream import http_exchange

from .conftest import Make, Recorded, Reply, Upstream, body, call, text_of, tool, tool_data

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
DATA = tool_data(
    tool("getAny", "GET", "/api/", security=[["api_key"]]),
    tool(
        "postAny", "POST", "/api/", request_body=body("application/json", "json", arg="body", arg_schema={})
    ),
)


def runtime_of(make_runtime: Make, upstream: Upstream) -> Any:
    return make_runtime(DATA, env={"T_API_KEY_KEY": "the-key"}, base_url=upstream.url)


def moved(status: int, location: str) -> Any:
    """/api/ answers `status` to `location`; anywhere else answers its own path."""

    def respond(request: Recorded) -> Reply:
        if request.path == "/api/":
            return Reply(status, b"", {"Location": location})
        return Reply(200, f'{{"at": "{request.path}"}}'.encode())

    return respond


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_get_redirected_on_the_same_origin_is_followed(
    make_runtime: Make, upstream: Upstream, status: int
) -> None:
    upstream.responder = moved(status, "/api")
    result = await call(runtime_of(make_runtime, upstream), "getAny", {})
    assert not result.is_error and result.structured_content == {"at": "/api"}
    assert [(r.method, r.path) for r in upstream.requests] == [("GET", "/api/"), ("GET", "/api")]
    assert [r.header("X-API-Key") for r in upstream.requests] == ["the-key", "the-key"]


async def test_an_absolute_location_on_the_same_origin_is_followed(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.responder = moved(302, f"{upstream.url}/api?x=1")
    result = await call(runtime_of(make_runtime, upstream), "getAny", {})
    assert result.structured_content == {"at": "/api"}
    assert upstream.last.target == "/api?x=1"


@pytest.mark.parametrize("status", [307, 308])
async def test_a_post_is_followed_only_by_307_and_308_with_its_body(
    make_runtime: Make, upstream: Upstream, status: int
) -> None:
    upstream.responder = moved(status, "/api")
    result = await call(runtime_of(make_runtime, upstream), "postAny", {"body": {"a": 1}})
    assert result.structured_content == {"at": "/api"}
    assert [(r.method, r.body) for r in upstream.requests] == [("POST", b'{"a":1}')] * 2


@pytest.mark.parametrize("status", [301, 302, 303])
async def test_a_post_redirected_otherwise_is_the_answer(
    make_runtime: Make, upstream: Upstream, status: int
) -> None:
    upstream.responder = moved(status, "/api")
    result = await call(runtime_of(make_runtime, upstream), "postAny", {"body": {}})
    assert f"HTTP {status} " in text_of(result) and "Location: /api" in text_of(result)
    assert len(upstream.requests) == 1


async def test_a_redirect_to_another_origin_is_the_answer(make_runtime: Make, upstream: Upstream) -> None:
    other = upstream.url.replace("127.0.0.1", "localhost")  # the same server, another origin
    upstream.responder = moved(302, f"{other}/api")
    result = await call(runtime_of(make_runtime, upstream), "getAny", {})
    assert text_of(result) == f"HTTP 302 Found (empty response body); Location: {other}/api"
    assert len(upstream.requests) == 1


async def test_a_redirect_loop_ends_after_five_hops_with_the_last_answer(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.responder = moved(302, "/api/")
    result = await call(runtime_of(make_runtime, upstream), "getAny", {})
    assert text_of(result) == "HTTP 302 Found (empty response body); Location: /api/"
    assert len(upstream.requests) == 6


@pytest.mark.parametrize(
    ("url", "location", "followed"),
    [
        ("http://h/a", "/b", "http://h/b"),
        ("http://h:80/a", "http://h/b", "http://h/b"),
        ("https://h/a", "https://H:443/b", "https://H:443/b"),
        ("https://h/a", "http://h/b", None),
        ("http://h/a", "http://h:8080/b", None),
        ("http://h/a", "//other/b", None),
        ("http://h/a", "http://h:port/b", None),
        ("http://h/a", "", None),
    ],
)
def test_same_origin_is_scheme_host_and_port(url: str, location: str, followed: str | None) -> None:
    assert http_exchange.same_origin_redirect("GET", url, 302, location) == followed
