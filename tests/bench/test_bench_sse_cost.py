"""The --sse benchmark (benchmarks/sse_cost.py): a tiny run of the petstore package, both ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import sse_cost

REPO = Path(__file__).resolve().parents[2]


def test_the_sse_run_adds_only_the_flag() -> None:
    assert sse_cost.listening(["--sse"], 8123) == [
        "--transport",
        "http",
        "--host",
        "127.0.0.1",
        "--port",
        "8123",
        "--sse",
    ]


@pytest.mark.e2e
def test_both_answers_serve_every_call(tmp_path: Path) -> None:
    found = sse_cost.run(REPO / "specs" / "petstore.yaml", 1, 150, tmp_path)
    assert {answer: [(f.calls, f.errors) for f in runs] for answer, runs in found.items()} == {
        "JSON body (default)": [(150, 0)],
        "SSE stream (`--sse`)": [(150, 0)],
    }
    rows = sse_cost.table(found).splitlines()
    assert rows[0] == "| HTTP answers | calls/s (median) | each round | errors | vs default |"
    assert rows[2].startswith("| JSON body (default) |") and rows[2].endswith("| 0 | 1.00x |")
    assert rows[3].startswith("| SSE stream (`--sse`) |") and "| 0 |" in rows[3]
