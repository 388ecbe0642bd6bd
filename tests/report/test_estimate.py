"""The tools/list estimator (`report/estimate.py`), the sizes built on it (`report/measure.py`) and
the toolset advice (`report/advice.py`), on hand-made inventories."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from openapi2mcp.load.source import LoadError
from openapi2mcp.report.advice import BUDGETS, choose
from openapi2mcp.report.estimate import estimated_tokens, joined_bytes, tools_list_bytes
from openapi2mcp.report.inventory import from_tool_data
from openapi2mcp.report.measure import measure


def tool(name: str, text: str = "") -> dict[str, Any]:
    return {"name": name, "description": text, "inputSchema": {"type": "object"}}


def test_the_bytes_are_the_utf8_length_of_the_compact_json_of_the_tools_list() -> None:
    assert tools_list_bytes([]) == len('{"tools":[]}') == 12
    assert (
        tools_list_bytes([{"name": "é"}]) == len('{"tools":[{"name":"é"}]}'.encode()) == 25
    )  # é: 2 bytes, not \u00e9


@pytest.mark.parametrize(("byte_count", "tokens"), [(0, 0), (1, 1), (4, 1), (5, 2), (80_000, 20_000)])
def test_a_token_is_four_bytes_rounded_up(byte_count: int, tokens: int) -> None:
    assert estimated_tokens(byte_count) == tokens


def test_joined_bytes_equals_the_bytes_of_the_list_serialised_whole() -> None:
    tools = [tool("a", "x" * 10), tool("b", "ü" * 7), tool("c")]
    sizes = [len(json.dumps(t, separators=(",", ":"), ensure_ascii=False).encode()) for t in tools]
    assert joined_bytes(sizes) == tools_list_bytes(tools)
    assert joined_bytes(sizes[:1]) == tools_list_bytes(tools[:1])
    assert joined_bytes([]) == tools_list_bytes([])


def data(*entries: tuple[str, str, int], defaults: tuple[str, ...] = ()) -> dict[str, Any]:
    """Tool data with `count` tools named `{prefix}{i}` in each (toolset, prefix, count)."""
    tools = [tool(f"{prefix}{i}") for toolset, prefix, count in entries for i in range(count)]
    routes = {
        f"{prefix}{i}": {"toolset": toolset} for toolset, prefix, count in entries for i in range(count)
    }
    toolsets = {
        toolset: {"count": count, "default": not defaults or toolset in defaults, "description": ""}
        for toolset, _, count in entries
    }
    return {"tools": tools, "routes": routes, "toolsets": toolsets}


def test_each_toolset_is_measured_as_the_list_of_its_tools_alone() -> None:
    m = measure(from_tool_data(data(("a", "x", 2), ("b", "y", 1)), Path("t")))
    assert [(t.name, len(t.group.tools), t.group.bytes) for t in m.toolsets] == [
        ("a", 2, tools_list_bytes([tool("x0"), tool("x1")])),
        ("b", 1, tools_list_bytes([tool("y0")])),
    ]
    assert m.all.bytes == tools_list_bytes([tool("x0"), tool("x1"), tool("y0")])


def test_the_default_toolsets_fit_a_budget_as_they_are() -> None:
    m = measure(from_tool_data(data(("a", "x", 30), ("b", "y", 5)), Path("t")))
    choice = choose(m, BUDGETS[1])  # 40 tools
    assert (choice.is_default, choice.group.names, choice.flag) == (True, ("a", "b"), "")


def test_over_a_budget_the_largest_default_toolsets_that_still_fit_are_taken_in_list_order() -> None:
    m = measure(from_tool_data(data(("s", "p", 5), ("big", "q", 100), ("mid", "r", 30)), Path("t")))
    first = choose(m, BUDGETS[0])  # 128 tools: big (100) fits, mid (30) would not, s (5) does
    assert (first.is_default, first.group.names, len(first.group.tools)) == (False, ("s", "big"), 105)
    assert first.flag == "--toolsets s,big"
    second = choose(m, BUDGETS[1])  # 40 tools: big never fits; mid then s
    assert (second.group.names, second.flag) == (("s", "mid"), "--toolsets s,mid")


def test_only_default_toolsets_are_recommended_and_none_when_none_fits_alone() -> None:
    m = measure(from_tool_data(data(("a", "x", 50), ("b", "y", 10), defaults=("a",)), Path("t")))
    assert [t.name for t in m.toolsets if t.default] == ["a"] and len(m.default.tools) == 50
    choice = choose(m, BUDGETS[1])
    assert (choice.is_default, choice.group.names, choice.flag) == (False, (), "")


def test_tool_data_older_than_toolsets_counts_every_tool_as_untagged_and_default() -> None:
    m = measure(from_tool_data({"tools": [tool("a"), tool("b")], "routes": {}}, Path("t")))
    assert [(t.name, t.default, len(t.group.tools)) for t in m.toolsets] == [("untagged", True, 2)]
    assert m.default.bytes == m.all.bytes


@pytest.mark.parametrize("content", [[], {"tools": {}}, {"tools": [{"title": "no name"}]}])
def test_a_file_without_a_list_of_named_tools_is_not_tool_data(content: Any) -> None:
    with pytest.raises(
        LoadError, match=re.escape('t.json: not a tool_data.json file (no "tools" list of named tools)')
    ):
        from_tool_data(content, Path("t.json"))
