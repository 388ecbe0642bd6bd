"""Faults and limits through the real runtime (openapi2mcp_runtime/upstream/resilience.py, audit.py and the
retry loop of http_client.py) against a fault-injecting upstream on 127.0.0.1: every fault ends as
an isError result with a clear message or as a success after retries (the attempts are counted),
and the next call on the same runtime works."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from email.utils import formatdate
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest

from openapi2mcp_runtime.upstream import resilience as rs

from .conftest import Make, call, closed_port, mcp_server, runtime, text_of, tool, tool_data
from .fault_upstream import FaultUpstream, fault_upstream

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


ATTEMPTS = "openapi2mcp/attempts"
DATA = tool_data(
    tool("getThing", "GET", "/thing"),
    tool("makeThing", "POST", "/thing"),
)


@pytest.fixture(scope="module")
def faults() -> Iterator[FaultUpstream]:
    with fault_upstream() as server:
        yield server


def attempts(result: Any) -> int | None:
    return (result.meta or {}).get(ATTEMPTS)


async def faulty(make: Make, faults: FaultUpstream, *script: str, **env: str) -> Any:
    """A runtime on the fault upstream (T_TIMEOUT=2), its script set."""
    faults.script(*script)
    return make(DATA, {"T_TIMEOUT": "2", **{f"T_{k.upper()}": v for k, v in env.items()}}, faults.url)


async def next_call_works(tools: Any, faults: FaultUpstream) -> None:
    faults.script()
    result = await call(tools, "getThing")
    assert not result.is_error and result.structured_content == {"ok": True}
    assert attempts(result) == 1


@pytest.mark.parametrize("fault", ["slow_headers", "slow_body"])
async def test_a_stall_past_the_timeout_is_an_error_and_not_retried(
    make_runtime: Make, faults: FaultUpstream, fault: str
) -> None:
    tools = await faulty(make_runtime, faults, fault)
    started = time.monotonic()
    result = await call(tools, "getThing")
    assert result.is_error
    assert text_of(result).startswith(f"The API did not answer GET {faults.url}/thing within 2 seconds")
    assert attempts(result) == 1 and 1.9 < time.monotonic() - started < 3
    await next_call_works(tools, faults)


@pytest.mark.parametrize("fault", ["reset_mid_body", "truncated_chunked"])
async def test_a_broken_body_is_retried_then_reported(
    make_runtime: Make, faults: FaultUpstream, fault: str
) -> None:
    tools = await faulty(make_runtime, faults, fault, fault, fault, timeout="5")
    result = await call(tools, "getThing")
    assert result.is_error and attempts(result) == 3 and faults.served == 3
    text = text_of(result)
    assert text.startswith(f"The connection to the API broke during GET {faults.url}/thing (")
    assert text.endswith("The request may or may not have been processed.\nThe API was tried 3 times.")
    await next_call_works(tools, faults)


async def test_a_reset_then_an_answer_is_a_success_on_the_second_attempt(
    make_runtime: Make, faults: FaultUpstream
) -> None:
    tools = await faulty(make_runtime, faults, "reset_mid_body")
    result = await call(tools, "getThing")
    assert not result.is_error and result.structured_content == {"ok": True}
    assert attempts(result) == 2 and text_of(result).endswith("The API was tried 2 times.")


async def test_invalid_json_and_an_html_error_page_are_errors_not_retried(
    make_runtime: Make, faults: FaultUpstream
) -> None:
    tools = await faulty(make_runtime, faults, "invalid_json", "html_500")
    broken = await call(tools, "getThing")
    assert broken.is_error and attempts(broken) == 1
    assert "but the body is not valid JSON" in text_of(broken)
    page = await call(tools, "getThing")
    assert page.is_error and attempts(page) == 1
    assert text_of(page).startswith(
        f"The API answered HTTP 500 Internal Server Error to GET {faults.url}/thing."
    )
    assert "<h1>500 Internal Server Error</h1>" in text_of(page)
    await next_call_works(tools, faults)


async def test_a_body_not_in_its_content_encoding_is_an_error_not_retried(
    make_runtime: Make, faults: FaultUpstream
) -> None:
    """The API answered (a GET would be retried after a broken connection): a body that is not the
    gzip its header says is the same answer every time, and the request was processed."""
    tools = await faulty(make_runtime, faults, "bad_gzip", "bad_gzip", "bad_gzip")
    result = await call(tools, "getThing")
    assert result.is_error and attempts(result) == 1 and faults.served == 1
    text = text_of(result)
    assert text.startswith(
        f"The API answered GET {faults.url}/thing with HTTP 200, but its body is not in the"
        " Content-Encoding its headers name ('gzip': DecodingError: "
    )
    assert text.endswith("The request was processed; asking again gets the same answer.")
    await next_call_works(tools, faults)


async def test_a_5xx_storm_then_success(make_runtime: Make, faults: FaultUpstream) -> None:
    tools = await faulty(make_runtime, faults, "status:503", "status:502", timeout="5")
    result = await call(tools, "getThing")
    assert not result.is_error and result.structured_content == {"ok": True}
    assert attempts(result) == 3 and faults.served == 3


async def test_a_longer_storm_ends_with_the_last_answer(make_runtime: Make, faults: FaultUpstream) -> None:
    tools = await faulty(make_runtime, faults, "status:504", "status:503", "status:503", timeout="5")
    result = await call(tools, "getThing")
    assert result.is_error and attempts(result) == 3 and faults.served == 3
    assert text_of(result).startswith(f"The API answered HTTP 503 Error to GET {faults.url}/thing.")
    await next_call_works(tools, faults)


@pytest.mark.parametrize("when", ["1", "date"])
async def test_429_waits_the_retry_after_asked_for(
    make_runtime: Make, faults: FaultUpstream, when: str
) -> None:
    after = formatdate(time.time() + 2, usegmt=True) if when == "date" else when
    tools = await faulty(make_runtime, faults, f"status:429:{after}", timeout="5")
    started = time.monotonic()
    result = await call(tools, "getThing")
    assert not result.is_error and attempts(result) == 2
    assert 0.9 < time.monotonic() - started < 3.5


async def test_a_retry_after_past_the_timeout_is_not_waited_for(
    make_runtime: Make, faults: FaultUpstream
) -> None:
    tools = await faulty(make_runtime, faults, "status:429:60")
    started = time.monotonic()
    result = await call(tools, "getThing")
    assert time.monotonic() - started < 1
    assert result.is_error and attempts(result) == 1 and faults.served == 1
    assert text_of(result).endswith(
        'Retry-After: 60 (wait that long before trying again).\nResponse body: {"error": "busy"}\n'
        "Not retried: waiting 60 s (Retry-After) would pass the 2 s timeout (T_TIMEOUT)."
    )


async def test_a_dead_port_is_retried_then_reported(make_runtime: Make, faults: FaultUpstream) -> None:
    port = closed_port()
    tools = make_runtime(DATA, {"T_TIMEOUT": "5"}, f"http://127.0.0.1:{port}")
    result = await call(tools, "getThing")
    assert result.is_error and attempts(result) == 3
    assert text_of(result).startswith(
        f"Could not reach the API for GET http://127.0.0.1:{port}/thing: the connection failed"
        f" (cannot connect to 127.0.0.1 port {port} (Connection refused))."
    )


async def test_a_post_is_not_retried_unless_an_idempotency_key_is_configured(
    make_runtime: Make, faults: FaultUpstream
) -> None:
    tools = await faulty(make_runtime, faults, "status:503")
    assert attempts(await call(tools, "makeThing")) == 1
    assert b"idempotency-key" not in faults.heads[0].lower()
    keyed = await faulty(make_runtime, faults, "status:503", "status:503", idempotency_key="Idempotency-Key")
    result = await call(keyed, "makeThing")
    assert not result.is_error and attempts(result) == 3
    keys = {
        line for head in faults.heads for line in head.split(b"\r\n") if line.startswith(b"Idempotency-Key:")
    }
    assert len(keys) == 1 and len(keys.pop()) == len("Idempotency-Key: ") + 36  # one UUID for the call
    again = await call(keyed, "makeThing")
    assert again.structured_content == {"ok": True}
    assert faults.heads[-1].split(b"Idempotency-Key: ")[1][:36] not in b"".join(faults.heads[:-1])


async def test_retries_0_turns_them_off(make_runtime: Make, faults: FaultUpstream) -> None:
    tools = await faulty(make_runtime, faults, "status:503", retries="0")
    result = await call(tools, "getThing")
    assert result.is_error and attempts(result) == 1 and faults.served == 1


async def test_max_concurrency_holds_callers_back(make_runtime: Make, faults: FaultUpstream) -> None:
    tools = await faulty(make_runtime, faults, *["delay:0.2"] * 6, max_concurrency="2")
    faults.most_in_flight = 0
    started = time.monotonic()
    results = await asyncio.gather(*(call(tools, "getThing") for _ in range(6)))
    assert all(not r.is_error for r in results)
    assert faults.most_in_flight == 2 and 0.55 < time.monotonic() - started < 2


async def test_the_rate_limit_spaces_requests_and_refuses_past_the_deadline(
    make_runtime: Make, faults: FaultUpstream
) -> None:
    tools = await faulty(make_runtime, faults, rate_limit="4", timeout="0.9")
    started = time.monotonic()
    results = await asyncio.gather(*(call(tools, "getThing") for _ in range(8)))
    elapsed = time.monotonic() - started
    ok = [r for r in results if not r.is_error]
    refused = [r for r in results if r.is_error]
    # a burst of 4, then one each 0.25 s: the 5th to 8th at 0.25, 0.5, 0.75, 1.0 s (the last too late)
    assert (len(ok), len(refused), faults.served) == (7, 1, 7), [text_of(r) for r in refused]
    assert 0.7 < elapsed < 1.2
    assert text_of(refused[0]) == (
        f"The MCP server's own limits (T_MAX_CONCURRENCY / T_RATE_LIMIT) kept GET {faults.url}/thing"
        " waiting past 0.9 seconds, at 4 requests a second: it is busy. Nothing was sent to the API:"
        " try again later."
    )
    assert attempts(refused[0]) == 1


def test_bad_settings_are_config_errors() -> None:
    for name, value in [("RETRIES", "-1"), ("RETRIES", "x"), ("MAX_CONCURRENCY", "0"), ("RATE_LIMIT", "0")]:
        with pytest.raises(runtime.ConfigError, match=f"T_{name} must be"):
            rs.Resilience.from_env({f"T_{name}": value}, "T")
    with pytest.raises(runtime.ConfigError, match="T_IDEMPOTENCY_KEY must be a header name"):
        rs.Resilience.from_env({"T_IDEMPOTENCY_KEY": "a b"}, "T")
    assert rs.Resilience.from_env({}, "T") == rs.Resilience(2, 32, None, None, None)


def test_retry_after_reads_seconds_and_http_dates() -> None:
    now = 1_700_000_000.0
    assert rs.retry_after("7", now) == 7.0
    assert rs.retry_after(formatdate(now + 30, usegmt=True), now) == 30.0
    assert rs.retry_after(formatdate(now - 30, usegmt=True), now) == 0.0
    assert rs.retry_after("soon", now) is None and rs.retry_after(None, now) is None


# ---- the audit log and MCP log messages ---------------------------------------------------------


async def test_the_audit_log_has_one_line_per_call_without_arguments_or_secrets(
    make_runtime: Make, faults: FaultUpstream, tmp_path: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    data = tool_data(tool("getThing", "GET", "/thing", security=[["key"]]))
    data["securitySchemes"] = {
        "key": {"type": "apiKey", "in": "header", "name": "X-Key", "env": {"key": "T_KEY"}}
    }
    faults.script("status:503", "ok", "html_500")
    tools = make_runtime(data, {"T_AUDIT_LOG": str(log), "T_KEY": "sekrit-value-123"}, faults.url)
    assert not (await call(tools, "getThing")).is_error
    assert (await call(tools, "getThing")).is_error
    assert (await call(tools, "getThing", {"unexpected": "sekrit-value-123"})).is_error
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(x["tool"], x["session"], x["status"], x["attempts"], x["outcome"]) for x in lines] == [
        ("getThing", "stdio", 200, 2, "ok"),
        ("getThing", "stdio", 500, 1, "error"),
        ("getThing", "stdio", None, 0, "refused"),
    ]
    assert all(
        set(x) == {"time", "session", "tool", "status", "attempts", "duration_ms", "outcome"} for x in lines
    )
    assert lines[0]["time"].endswith("+00:00") and lines[0]["duration_ms"] > 0
    assert "sekrit" not in log.read_text()


@asynccontextmanager
async def logging_client(
    make_runtime: Make, faults: FaultUpstream, received: list[Any], **options: Any
) -> AsyncIterator[Any]:
    """An mcp.Client of a runtime whose first call meets a 503, keeping each log message's params
    in `received`."""

    async def collect(params: Any) -> None:
        received.append(params)

    tools = await faulty(make_runtime, faults, "status:503")
    async with mcp.Client(mcp_server(tools), logging_callback=collect, **options) as client:
        yield client


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")  # the client's set_logging_level
async def test_log_messages_follow_the_level_the_client_set(
    make_runtime: Make, faults: FaultUpstream
) -> None:
    received: list[Any] = []
    async with logging_client(make_runtime, faults, received, mode="legacy") as client:
        await client.call_tool("getThing", {})
        assert received == []  # no level set: nothing is sent
        await client.set_logging_level("info")
        faults.script("status:503")
        await client.call_tool("getThing", {})
        await client.set_logging_level("error")
        faults.script("html_500")
        await client.call_tool("getThing", {})
    assert [(m.level, m.logger) for m in received] == [
        ("warning", "openapi2mcp"),
        ("info", "openapi2mcp"),
        ("error", "openapi2mcp"),
    ]
    assert received[0].data["reason"] == "HTTP 503" and received[0].data["attempt"] == 1
    assert received[1].data["outcome"] == "ok" and received[1].data["attempts"] == 2
    assert received[2].data["status"] == 500


async def test_from_2026_07_28_each_request_opts_in_to_log_messages(
    make_runtime: Make, faults: FaultUpstream
) -> None:
    received: list[Any] = []
    async with logging_client(make_runtime, faults, received) as client:
        await client.call_tool("getThing", {})
        assert received == []  # the request did not ask: nothing is sent
        faults.script("status:503")
        await client.call_tool("getThing", {}, meta={mcp.types.LOG_LEVEL_META_KEY: "warning"})
        faults.script("status:503")
        await client.call_tool("getThing", {}, meta={mcp.types.LOG_LEVEL_META_KEY: "info"})
    assert [m.level for m in received] == ["warning", "warning", "info"]
    assert received[2].data["outcome"] == "ok" and received[2].data["attempts"] == 2


async def test_at_debug_level_each_http_attempt_is_told_without_its_url(
    make_runtime: Make, faults: FaultUpstream
) -> None:
    received: list[Any] = []
    async with logging_client(make_runtime, faults, received) as client:
        await client.call_tool("getThing", {}, meta={mcp.types.LOG_LEVEL_META_KEY: "debug"})
    events = [(m.level, m.data.get("event"), m.data.get("attempt"), m.data.get("status")) for m in received]
    assert events == [
        ("debug", "sending", 1, None),
        ("debug", "answered", 1, 503),
        ("warning", None, 1, None),
        ("debug", "sending", 2, None),
        ("debug", "answered", 2, 200),
        ("info", None, None, 200),
    ]
    debug = [m.data for m in received if m.level == "debug"]
    assert {tuple(sorted(data)) for data in debug} == {
        ("attempt", "elapsed_ms", "event", "method", "tool"),
        ("attempt", "elapsed_ms", "event", "status", "tool"),
    }
    assert all(data["tool"] == "getThing" and data["elapsed_ms"] >= 0 for data in debug)
    assert all(data.get("method", "GET") == "GET" for data in debug)


async def test_the_audit_log_can_go_to_stderr(
    make_runtime: Make, faults: FaultUpstream, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = await faulty(make_runtime, faults, audit_log="stderr")
    await call(tools, "getThing")
    line = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert (line["tool"], line["outcome"], line["attempts"]) == ("getThing", "ok", 1)
    with anyio.fail_after(1):
        await tools.aclose()
