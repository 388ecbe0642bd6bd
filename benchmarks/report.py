"""The results table: each figure with its target (issue 14's, benchmarks/rows.py) and whether it is met.

A row's `limit` is the target; in smoke mode (CI) the limit of a timing row (`noisy`) is loosened by
SMOKE_SLACK so only a gross regression fails, not the noise of a shared machine; sizes, counts and memory
are checked as they are."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SMOKE_SLACK = 2.0


@dataclass(frozen=True)
class Row:
    figure: str
    ours: str
    peer: str = ""  # FastMCP's figure, when compared
    target: str = ""
    value: float | None = None  # what is checked against `limit` (None: informative row)
    limit: float | None = None
    at_least: bool = False  # the target is a minimum (throughput) rather than a maximum
    noisy: bool = False  # a timing: loosened in smoke mode
    tail: bool = False  # a tail latency: shown but not checked in smoke mode (a few stalls of a busy CI
    # machine decide a p99 of 200 calls)
    smoke_limit: float | None = None  # what smoke mode checks instead of limit * slack (a small
    # absolute target that a busy host's noise alone passes by more than the slack)

    def verdict(self, slack: float = 1.0) -> str:
        if self.value is None or self.limit is None or (self.tail and slack > 1.0):
            return ""
        if slack > 1.0 and self.smoke_limit is not None:
            return "ok" if self.value <= self.smoke_limit else "MISSED"
        slack = slack if self.noisy else 1.0
        if self.at_least:
            return "ok" if self.value >= self.limit / slack else "MISSED"
        return "ok" if self.value <= self.limit * slack else "MISSED"


def seconds(value: float) -> str:
    return f"{value * 1000:.2f} ms" if value < 1 else f"{value:.2f} s"


def mib(kib: float) -> str:
    return f"{kib / 1024:.0f} MiB"


def size(count: int) -> str:
    return f"{count / 1_000_000:.2f} MB" if count >= 100_000 else f"{count / 1024:.1f} KiB"


def ratio(value: float) -> str:
    return f"{value:.2f}x"


def table(title: str, rows: Sequence[Row], with_peer: bool, slack: float = 1.0) -> str:
    head = ["figure", "openapi2mcp", *(["FastMCP 4.1.6"] if with_peer else []), "target", "met"]
    lines = [f"### {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row.figure, row.ours, *([row.peer] if with_peer else []), row.target, row.verdict(slack)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def missed(rows: Sequence[Row], slack: float = 1.0) -> list[Row]:
    return [row for row in rows if row.verdict(slack) == "MISSED"]


def published(program: str, text: str, rows: Sequence[Row], markdown: Path | None) -> int:
    """Print `text` (and write it to `markdown`), name each target `rows` miss on stderr; the exit
    status: 1 if one is missed, else 0."""
    print(text)
    if markdown:
        markdown.write_text(text)
    for row in (missing := missed(rows)):
        print(f"{program}: target missed: {row.figure} ({row.ours}; target {row.target})", file=sys.stderr)
    return 1 if missing else 0
