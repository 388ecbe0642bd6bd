"""benchmarks/discovery.py on the bundled petstore: the table has every figure of issue 15 with a
verdict, and the dynamic list of a small spec is the three meta-tools' few kilobytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import discovery

REPO = Path(__file__).resolve().parents[2]
PETSTORE = REPO / "specs" / "petstore.yaml"


TIMED = ("start-up", "search_tools")  # the benchmark's timing targets (as its messages name them)


@pytest.mark.timeout(300)
def test_the_discovery_benchmark_reports_each_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    markdown = tmp_path / "table.md"
    code = discovery.main(
        [
            str(PETSTORE),
            "--large",
            str(PETSTORE),
            "--rounds",
            "1",
            "--searches",
            "12",
            "--markdown",
            str(markdown),
        ]
    )
    table = markdown.read_text()
    # Timing targets belong to the benchmark run, not to this test (one round on a shared host):
    # a missed one may only be a timing; the size target below is checked exactly.
    missed = [line for line in capsys.readouterr().err.splitlines() if "target missed: " in line]
    untimed = [line for line in missed if not line.split("target missed: ")[1].startswith(TIMED)]
    assert untimed == [] and (code == 0) == (missed == []), (code, missed)
    assert "| start-up, dynamic ÷ static |" in table
    assert "| search_tools round trip over stdio, median of 12 |" in table
    line = next(
        row for row in table.splitlines() if row.startswith("| dynamic tools/list, largest of 1 specs")
    )
    size = int(line.split("|")[2].strip().removesuffix(" B").replace(",", ""))
    assert 1_000 < size <= discovery.DYNAMIC_LIST_LIMIT and line.endswith("| ok |")


def test_queries_come_from_the_tools_titles_without_an_evaluation_set() -> None:
    data = {"tools": [{"name": "a", "title": "List pets"}, {"name": "b"}]}
    assert discovery.queries_for(Path("no-such-spec.yaml"), data, 5) == [
        "List pets",
        "b",
        "List pets",
        "b",
        "List pets",
    ]
    assert json.dumps(discovery.server_env(Path("out"), "dynamic")["BENCH_MODE"]) == '"dynamic"'
