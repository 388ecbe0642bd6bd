"""The recommended mode and, per client budget, the toolsets to start the server with.

Mode: `static` when the tools/list of the default toolsets is at most `MAX_LIST_TOKENS` estimated
tokens (what the runtime's `auto` mode does), else `dynamic`.

Toolsets for a budget (128 tools: VS Code and the OpenAI API; 40 tools: Cursor; 20,000 tokens: a
static list `auto` keeps static): the default toolsets when they fit together; else, from the
default toolsets, the largest first (ties in tools/list order), each one taken when it still fits
with those already taken. When none fits alone, no toolset is recommended: use the dynamic mode,
or `--tools` for a handful of tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from openapi2mcp.report.clients import CURSOR, CURSOR_TOOLS, OPENAI, REQUEST_TOOLS, VSCODE
from openapi2mcp.report.estimate import MAX_LIST_TOKENS
from openapi2mcp.report.measure import Group, Measurement, ToolsetSize

Mode = Literal["static", "dynamic"]
Unit = Literal["tools", "tokens"]


@dataclass(frozen=True)
class Budget:
    limit: int
    unit: Unit
    clients: tuple[str, ...]  # who has it

    @property
    def label(self) -> str:
        return f"{self.limit:,} {self.unit}"

    def size(self, group: Group) -> int:
        return len(group.tools) if self.unit == "tools" else group.tokens


BUDGETS = (
    Budget(REQUEST_TOOLS, "tools", (VSCODE.name, OPENAI.name)),
    Budget(CURSOR_TOOLS, "tools", (CURSOR.name,)),
    Budget(MAX_LIST_TOKENS, "tokens", ("static mode",)),
)


@dataclass(frozen=True)
class Choice:
    budget: Budget
    group: Group  # the toolsets chosen and their tools; no toolset when none fits
    is_default: bool  # the default toolsets fit: nothing to choose

    @property
    def flag(self) -> str:
        """How to start the server with them ("" when that is the default)."""
        return "" if self.is_default or not self.group.names else "--toolsets " + ",".join(self.group.names)


@dataclass(frozen=True)
class Advice:
    mode: Mode
    reason: str
    choices: tuple[Choice, ...]  # one per budget of BUDGETS


def advise(measurement: Measurement) -> Advice:
    tokens = measurement.default.tokens
    chosen = mode(measurement)
    than = f"at most {MAX_LIST_TOKENS:,}" if chosen == "static" else f"over {MAX_LIST_TOKENS:,}"
    reason = f"the default toolsets' tools/list is about {tokens:,} tokens, {than}"
    return Advice(chosen, reason, tuple(choose(measurement, budget) for budget in BUDGETS))


def mode(measurement: Measurement) -> Mode:
    """What the runtime's `auto` mode does with the default toolsets."""
    return "static" if measurement.default.tokens <= MAX_LIST_TOKENS else "dynamic"


def choose(measurement: Measurement, budget: Budget) -> Choice:
    """The toolsets for `budget` (module docstring)."""
    if budget.size(measurement.default) <= budget.limit:
        return Choice(budget, measurement.default, True)
    defaults = [toolset for toolset in measurement.toolsets if toolset.default]
    taken: list[ToolsetSize] = []
    for toolset in sorted(defaults, key=lambda toolset: -budget.size(toolset.group)):
        if not toolset.group.tools:
            continue
        candidate = [*taken, toolset]
        if budget.size(measurement.union(_names(candidate))) <= budget.limit:
            taken = candidate
    order = {toolset.name: index for index, toolset in enumerate(measurement.toolsets)}
    names = tuple(sorted(_names(taken), key=order.__getitem__))
    return Choice(budget, measurement.union(names), False)


def _names(toolsets: list[ToolsetSize]) -> tuple[str, ...]:
    return tuple(toolset.name for toolset in toolsets)
