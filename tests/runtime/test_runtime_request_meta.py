"""A tools/call request's `_meta` (issue 17): a progress token gets notifications/progress (start,
the body's download when its size is known, end; none without a token), and W3C trace context is
forwarded to the API as headers when well-formed."""

from __future__ import annotations

import json
from typing import Any

import mcp
import pytest

from openapi2mcp_runtime.serving import request_meta

from .conftest import Make, Upstream, mcp_server, text_of, tool, tool_data

request_meta = request_meta
pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

DATA = tool_data(tool("listItems", "GET", "/items"))
PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
STATE = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"


async def calls_with_progress(tools: Any, mode: str, meta: dict[str, Any] | None = None) -> list[Any]:
    heard: list[Any] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        heard.append((progress, total, message))

    async with mcp.Client(mcp_server(tools), mode=mode) as client:
        result = await client.call_tool("listItems", {}, progress_callback=on_progress, meta=meta)
    assert not result.is_error, text_of(result)
    return heard


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_call_reports_its_start_the_body_download_and_its_end(
    make_runtime: Make, upstream: Upstream, mode: str
) -> None:
    body = json.dumps({"items": ["x" * 1000] * 400}).encode()  # 400 kB with a Content-Length
    upstream.reply(body=body)
    heard = await calls_with_progress(make_runtime(DATA), mode)
    assert heard[0] == (0.0, 1.0, "calling listItems")
    assert heard[-1] == (1.0, 1.0, "listItems finished")
    downloads = heard[1:-1]
    assert downloads and downloads[-1] == (0.9, 1.0, f"received {len(body):,} of {len(body):,} bytes")
    fractions = [progress for progress, _, _ in heard]
    assert fractions == sorted(set(fractions))  # each greater than the last


async def test_a_body_of_unknown_size_reports_only_start_and_end(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.reply(body=b'{"a": 1}')
    heard = await calls_with_progress(make_runtime(DATA), "legacy")
    assert heard == [
        (0.0, 1.0, "calling listItems"),
        (0.9, 1.0, "received 8 of 8 bytes"),
        (1.0, 1.0, "listItems finished"),
    ]


async def test_without_a_progress_token_nothing_is_sent(make_runtime: Make, upstream: Upstream) -> None:
    upstream.reply(body=json.dumps({"items": ["x" * 1000] * 400}))
    received: list[Any] = []

    async def on_message(message: Any) -> None:
        received.append(message)

    async with mcp.Client(
        mcp_server(make_runtime(DATA)), mode="legacy", message_handler=on_message
    ) as client:
        result = await client.call_tool("listItems", {})
    assert not result.is_error and received == []


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_trace_context_in_the_request_meta_is_forwarded_to_the_api(
    make_runtime: Make, upstream: Upstream, mode: str
) -> None:
    tools = make_runtime(DATA, env={"T_HEADERS": json.dumps({"traceparent": "from-settings"})})
    async with mcp.Client(mcp_server(tools), mode=mode) as client:
        await client.call_tool("listItems", {}, meta={"traceparent": PARENT, "tracestate": STATE})
        assert (upstream.last.header("traceparent"), upstream.last.header("tracestate")) == (PARENT, STATE)
        await client.call_tool("listItems", {})
        assert upstream.last.all("traceparent") == ["from-settings"]
        assert upstream.last.header("tracestate") is None


@pytest.mark.parametrize(
    ("meta", "forwarded"),
    [
        ({"traceparent": PARENT, "tracestate": STATE}, {"traceparent": PARENT, "tracestate": STATE}),
        ({"traceparent": PARENT, "tracestate": "no equals sign"}, {"traceparent": PARENT}),
        ({"traceparent": PARENT, "tracestate": "a=1," * 33}, {"traceparent": PARENT}),
        ({"traceparent": PARENT.upper()}, {}),
        ({"traceparent": "00-" + "0" * 32 + "-00f067aa0ba902b7-01"}, {}),
        ({"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-" + "0" * 16 + "-01"}, {}),
        ({"traceparent": "ff" + PARENT[2:]}, {}),
        ({"traceparent": PARENT + "-extra"}, {}),
        ({"traceparent": "01" + PARENT[2:] + "-extra"}, {"traceparent": "01" + PARENT[2:] + "-extra"}),
        ({"traceparent": PARENT + "\r\nX-Injected: 1"}, {}),
        ({"traceparent": 42}, {}),
        ({"tracestate": STATE}, {}),
    ],
)
def test_only_well_formed_trace_context_is_forwarded(meta: dict[str, Any], forwarded: dict[str, str]) -> None:
    assert request_meta.trace_headers(meta) == forwarded
