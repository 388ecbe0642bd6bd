"""The code-mode benchmark's count (benchmarks/code_agent.py, code_mode.py): what a request puts into
the agent's context, in bytes and in tokens, and the report's row for each unit."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import mcp.types as types

from benchmarks import code_mode
from benchmarks.code_agent import Agent, Ledger, model_view, tokens


def test_tokens_are_o200k_base_tokens_and_special_token_text_is_text() -> None:
    assert tokens("") == 0
    assert tokens("hello world") == 2  # tiktoken's o200k_base: [24912, 2375]
    assert tokens("<|endoftext|>") == 7  # its characters, not the one special token


class _Client:
    """What Agent asks of an mcp.Client: one tool listed, every call answered `answer`."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.tool = types.Tool(
            name="getPet",
            description="Find a pet — by its id",
            input_schema={"type": "object", "properties": {"id": {"type": "integer"}}},
            output_schema={"type": "object"},
        )

    async def list_tools(self, cache_mode: str) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[self.tool])

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=self.answer)])


def test_the_ledger_counts_the_listing_and_each_call_in_bytes_and_in_tokens() -> None:
    answer = json.dumps({"id": 7, "name": "Röschen", "tags": ["a", "b"]}, ensure_ascii=False)
    client = _Client(answer)
    agent = Agent(client)

    async def run() -> None:
        await agent.list_tools()
        await agent.call("getPet", {"id": 7, "note": "für Käthe"})

    asyncio.run(run())
    view = model_view([client.tool])
    assert "output_schema" not in view and "outputSchema" not in view
    arguments = '{"id": 7, "note": "für Käthe"}'
    ledger = agent.ledger
    assert (ledger.listed, ledger.arguments, ledger.results) == (
        len(view.encode()),
        len(arguments.encode()),
        len(answer.encode()),
    )
    assert ledger.tokens == tokens(view) + tokens(arguments) + tokens(answer)
    assert ledger.by_tool == {"getPet": len(arguments.encode()) + len(answer.encode())}


def _outcome(dynamic: tuple[int, int], code: tuple[int, int]) -> code_mode.Outcome:
    """A task's outcome whose runs cost (bytes, tokens) each."""
    ledgers = {
        "dynamic": Ledger(listed=dynamic[0], tokens=dynamic[1]),
        "code": Ledger(listed=code[0], tokens=code[1]),
    }
    return code_mode.Outcome(code_mode.TASKS[0], ledgers, {}, {})


def test_the_report_checks_the_median_ratio_in_bytes_and_in_tokens() -> None:
    outcomes = [
        _outcome((9_000, 3_000), (1_000, 250)),  # 9x the bytes, 12x the tokens
        _outcome((8_000, 2_000), (1_000, 250)),  # 8x, 8x
        _outcome((20_000, 5_500), (1_000, 500)),  # 20x, 11x
    ]
    found = code_mode.rows(outcomes, None)
    assert [(row.figure, row.ours, row.verdict()) for row in found] == [
        ("context bytes, dynamic ÷ code, median of 3 tasks", "9.0x", "MISSED"),
        ("context tokens (o200k_base), dynamic ÷ code, median of 3 tasks", "11.0x", "ok"),
    ]
    table = code_mode.tokens_table(outcomes)
    assert f"| {code_mode.TASKS[0].name} | 3,000 | 250 | **12.0x** | 3.00 | 4.00 |" in table
    assert table.endswith("| median of 3 | | | **11.0x** | | |\n")
