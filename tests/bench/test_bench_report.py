"""benchmarks/report.py: a target is checked the way the table says, and smoke mode only loosens timings."""

from __future__ import annotations

from benchmarks.report import Row, missed, table


def test_a_maximum_is_met_up_to_the_limit_and_a_minimum_from_it() -> None:
    assert Row("t", "1", value=1.5, limit=1.5).verdict() == "ok"
    assert Row("t", "1", value=1.51, limit=1.5).verdict() == "MISSED"
    assert Row("r", "1", value=500, limit=500, at_least=True).verdict() == "ok"
    assert Row("r", "1", value=499, limit=500, at_least=True).verdict() == "MISSED"
    assert Row("info", "1").verdict() == ""


def test_smoke_slack_loosens_timings_only() -> None:
    timing = Row("t", "1", value=2.9, limit=1.5, noisy=True)
    size = Row("s", "1", value=2.1, limit=2.0)
    rate = Row("r", "1", value=260, limit=500, at_least=True, noisy=True)
    assert [row.verdict(2.0) for row in (timing, size, rate)] == ["ok", "MISSED", "ok"]
    assert Row("t", "1", value=3.1, limit=1.5, noisy=True).verdict(2.0) == "MISSED"
    assert missed([timing, size, rate], 2.0) == [size]


def test_a_tail_latency_is_checked_in_full_runs_only() -> None:
    p99 = Row("p99", "10x", value=10.0, limit=2.0, noisy=True, tail=True)
    assert p99.verdict() == "MISSED"
    assert p99.verdict(2.0) == ""


def test_the_table_has_a_peer_column_only_when_compared() -> None:
    rows = [Row("spawn", "1.0 s", "11 s", "≤ 1.5x", 1.2, 1.5)]
    assert table("x", rows, with_peer=False).splitlines()[2] == "| figure | openapi2mcp | target | met |"
    with_peer = table("x", rows, with_peer=True).splitlines()
    assert with_peer[2] == "| figure | openapi2mcp | FastMCP 4.1.6 | target | met |"
    assert with_peer[4] == "| spawn | 1.0 s | 11 s | ≤ 1.5x | ok |"


def test_a_smoke_limit_replaces_the_slack_in_smoke_mode_only() -> None:
    over_floor = Row("t", "1", value=1.2, limit=0.3, noisy=True, smoke_limit=1.5)
    assert (over_floor.verdict(), over_floor.verdict(2.0)) == ("MISSED", "ok")
    assert Row("t", "1", value=1.6, limit=0.3, noisy=True, smoke_limit=1.5).verdict(2.0) == "MISSED"
    assert Row("t", "1", value=0.3, limit=0.3, noisy=True, smoke_limit=1.5).verdict() == "ok"
