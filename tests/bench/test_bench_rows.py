"""benchmarks/rows.py: issue 14's targets, checked on figures made up here (no process runs).

The tool call over stdio is judged against the floor measured in the same rounds (the empty server's
no-op call + one httpx2 GET: at most 0.3 ms more) and against FastMCP's call (at most 0.6x of it, only
when FastMCP was measured); generation ≤ 2 s; streamable HTTP ≥ 600 calls/s, no error, flat memory."""

from __future__ import annotations

from typing import Any

from benchmarks import rows
from benchmarks.generation import GenerationFigures
from benchmarks.http_load import HttpFigures
from benchmarks.report import Row, missed
from benchmarks.stdio_bench import HTTPX2_GET, RAW_GET, Figures

SMOKE = 2.0


def stdio(call_ms: float, start_s: float = 1.0, peak_mib: float = 100.0, tools: int = 3) -> Figures:
    """A subject whose every call took `call_ms` (so median and p99 are that)."""
    listed: list[dict[str, Any]] = [{"name": f"t{i}", "inputSchema": {}} for i in range(tools)]
    return Figures(
        start_seconds=[start_s] * 3,
        list_bytes=1_000,
        tools=listed,
        call_seconds=[call_ms / 1000] * 5,
        peak_kib=int(peak_mib * 1024),
    )


def measured(ours_ms: float, peer_ms: float | None = None, **ours: Any) -> dict[str, Figures]:
    """The empty server's no-op call 0.75 ms + httpx2 GET 0.25 ms: a floor of 1.0 ms; raw GET 0.125 ms."""
    figures = {
        "empty": stdio(0.75, start_s=1.0),
        "ours": stdio(ours_ms, **ours),
        RAW_GET: stdio(0.125),
        HTTPX2_GET: stdio(0.25),
    }
    if peer_ms is not None:
        figures["FastMCP"] = stdio(peer_ms)
    return figures


def row(found: list[Row], figure: str) -> Row:
    [match] = [r for r in found if r.figure.startswith(figure)]
    return match


def test_the_floor_is_the_empty_servers_no_op_call_plus_one_httpx2_get() -> None:
    found = rows.stdio_rows(measured(1.25))
    assert row(found, "one raw HTTP GET").ours == "0.12 ms"
    assert row(found, "one httpx2 GET").ours == "0.25 ms"
    assert row(found, "no-op call on an empty server").ours == "0.75 ms"
    assert row(found, "the floor").ours == "1.00 ms"
    over = row(found, "tool call - the floor")
    assert (over.ours, over.target, over.verdict()) == ("+0.25 ms", "≤ 0.3 ms", "ok")
    assert over.value is not None and abs(over.value - 0.25) < 1e-9


def test_a_call_more_than_0_3_ms_over_the_floor_misses_and_smoke_mode_allows_1_5_ms() -> None:
    assert row(rows.stdio_rows(measured(1.29)), "tool call - the floor").verdict() == "ok"
    over = row(rows.stdio_rows(measured(1.35)), "tool call - the floor")
    assert over.verdict() == "MISSED"
    assert over.verdict(SMOKE) == "ok"
    assert row(rows.stdio_rows(measured(2.45)), "tool call - the floor").verdict(SMOKE) == "ok"
    assert row(rows.stdio_rows(measured(2.55)), "tool call - the floor").verdict(SMOKE) == "MISSED"
    below = row(rows.stdio_rows(measured(0.5)), "tool call - the floor")
    assert (below.ours, below.verdict()) == ("-0.50 ms", "ok")


def test_fastmcp_is_shown_against_the_same_floor() -> None:
    over = row(rows.stdio_rows(measured(1.25, peer_ms=2.5)), "tool call - the floor")
    assert over.peer == "+1.50 ms"


def test_the_call_is_compared_with_fastmcps_only_when_fastmcp_ran() -> None:
    assert not [r for r in rows.stdio_rows(measured(1.0)) if "FastMCP's call" in r.figure]
    met = row(rows.stdio_rows(measured(1.2, peer_ms=2.0)), "tool call ÷ FastMCP's call")
    assert (met.ours, met.target, met.verdict()) == ("0.60x", "≤ 0.6x", "ok")
    over = row(rows.stdio_rows(measured(1.25, peer_ms=2.0)), "tool call ÷ FastMCP's call")
    assert (over.verdict(), over.verdict(SMOKE)) == ("MISSED", "ok")


def test_what_the_fastmcp_target_asks_for_is_shown_against_the_floor() -> None:
    """0.6x of a 1.5 ms call is 0.9 ms: below the 1.0 ms floor, the libraries' own cost."""
    info = row(
        rows.stdio_rows(measured(1.2, peer_ms=1.5)), "for information: 0.6x FastMCP's call ÷ the floor"
    )
    assert (info.ours, info.verdict()) == ("0.90x", "")
    assert not [r for r in rows.stdio_rows(measured(1.0)) if "÷ the floor" in r.figure]


def test_without_a_call_of_fastmcps_the_comparison_has_no_verdict() -> None:
    figures = measured(1.0, peer_ms=2.0)
    figures["FastMCP"].call_seconds.clear()  # its tool was not found: listed, not called
    found = rows.stdio_rows(figures)
    compared = row(found, "tool call ÷ FastMCP's call")
    assert (compared.ours, compared.verdict()) == ("FastMCP made no call", "")
    assert row(found, "tool call - the floor").peer == ""


def test_the_ratios_of_issue_6_are_information_only() -> None:
    info = row(rows.stdio_rows(measured(2.5)), "for information: call ÷ raw GET / ÷ no-op call")
    assert (info.ours, info.verdict()) == ("20.00x / 3.33x", "")
    assert not [r for r in rows.stdio_rows(measured(2.5)) if r.target == "≤ 5x"]


def test_start_up_and_memory_targets() -> None:
    found = rows.stdio_rows(measured(1.0, start_s=1.5, peak_mib=150))
    assert row(found, "spawn → first tools/list").verdict() == "ok"
    assert row(found, "server memory after the calls").verdict() == "ok"
    found = rows.stdio_rows(measured(1.0, start_s=1.6, peak_mib=151))
    assert row(found, "spawn → first tools/list").verdict() == "MISSED"
    assert row(found, "spawn → first tools/list").verdict(SMOKE) == "ok"
    assert row(found, "server memory after the calls").verdict(SMOKE) == "MISSED"  # no slack on memory


def test_generation_takes_at_most_2_s_and_500_mb() -> None:
    def generated(seconds: float, peak_mib: float) -> list[Row]:
        return rows.generation_rows(GenerationFigures(1533, seconds, peak_mib, 2), None, None, None)

    assert [r.verdict() for r in generated(2.0, 476)] == ["ok", "ok"]
    wall, memory = generated(2.1, 477)
    assert (wall.target, wall.verdict(), wall.verdict(SMOKE)) == ("≤ 2 s", "MISSED", "ok")
    assert (memory.target, memory.verdict(SMOKE)) == ("≤ 500 MB", "MISSED")
    assert generated(4.1, 100)[0].verdict(SMOKE) == "MISSED"


def test_the_generation_curve_is_a_row_only_when_measured() -> None:
    points = [GenerationFigures(100, 0.7, 90, 2), GenerationFigures(200, 0.8, 95, 2)]
    ours = GenerationFigures(200, 0.8, 95, 2)
    [*_, curve] = rows.generation_rows(ours, (3.0, 190.0), points, 1.31)
    assert curve.figure.startswith("generation curve") and "100: 700.00 ms, 200: 800.00 ms" in curve.figure
    assert (curve.target, curve.verdict()) == ("≤ 1.3", "MISSED")


def http(calls_per_second: float, errors: int = 0, growth_mib: float = 0.0) -> HttpFigures:
    seconds = 10_000 / calls_per_second
    return HttpFigures(10, 10_000, errors, calls_per_second, 80.0, 80.0 + growth_mib, 95.0, seconds, 1.0, 8.0)


def test_streamable_http_needs_600_calls_per_second_no_error_and_flat_memory() -> None:
    assert missed(rows.http_rows(http(600))) == []
    rate, errors, _, growth = rows.http_rows(http(599, errors=1, growth_mib=10.5))
    assert (rate.target, errors.target, growth.target) == ("≥ 600", "0", "flat (≤ 10 MiB)")
    assert missed([rate, errors, growth]) == [rate, errors, growth]
    assert missed([rate, errors, growth], SMOKE) == [errors, growth]
    assert rows.http_rows(http(299))[0].verdict(SMOKE) == "MISSED"
