"""Issue 15's benchmark: the dynamic mode next to the static one.

- Every corpus spec (or the SPECs given) is generated in-process and its server started twice over
  stdio, `{PREFIX}_MODE=static` and `dynamic`: the tools/list answer's bytes as sent, each mode.
- On the large spec (default cloudflare, 1,533 operations), in the same rounds: spawn → first tools/list
  of each mode (alternating, medians, the ratio of the medians), then `search_tools` round trips over
  stdio on the dynamic server (queries of benchmarks/search_eval when it has the spec, else the tools'
  own titles), their median and p99.

`python -m benchmarks.discovery [SPEC...] [--large SPEC] [--rounds N] [--searches N] [--markdown F]`
prints one table (targets of issue 15) and exits 1 if one is missed, 2 if it cannot run.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import generate

from . import report, search_eval
from .stdio_bench import percentile
from .stdio_client import StdioServer

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
LARGE = "cloudflare.json"
DYNAMIC_LIST_LIMIT = 8_000  # bytes: about 2,000 tokens, for every spec
SEARCH_LIMIT = 0.005  # seconds: search_tools median on the large spec
START_RATIO_LIMIT = 1.2  # dynamic start-up ÷ static start-up
PACKAGE = "bench_discovery"


def corpus_specs() -> list[Path]:
    """The root file of every corpus spec, in the manifest's order."""
    with open(CORPUS / "manifest.csv", newline="", encoding="utf-8") as file:
        return [CORPUS / "specs" / row["root_file"] for row in csv.DictReader(file)]


def write_package(spec: Path, out: Path) -> dict[str, Any]:
    """Generate `spec` in-process into `out` (package `bench_discovery`); its tool data."""
    options = GeneratorOptions(dist_name=PACKAGE.replace("_", "-"), env_prefix="BENCH")
    for path, text in generate(str(spec), options).files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
    data: dict[str, Any] = json.loads((out / PACKAGE / "data" / "tool_data.json").read_bytes())
    return data


def server_env(out: Path, mode: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(out),
        "BENCH_BASE_URL": "http://127.0.0.1:9",  # nothing is called
        "BENCH_MODE": mode,
    }


def started(out: Path, mode: str) -> tuple[float, int]:
    """Spawn → first tools/list (seconds) and the answer's bytes."""
    with StdioServer([sys.executable, "-m", PACKAGE], server_env(out, mode)) as server:
        first = server.start()
    return first.seconds_to_list, first.list_bytes


def list_sizes(specs: Sequence[Path], workdir: Path) -> dict[str, tuple[int, int]]:
    """Per spec: (static, dynamic) tools/list bytes as sent."""
    sizes = {}
    for spec in specs:
        out = workdir / spec.stem
        write_package(spec, out)
        sizes[spec.stem] = (started(out, "static")[1], started(out, "dynamic")[1])
        print(
            f"  {spec.stem}: static {sizes[spec.stem][0]:,} B, dynamic {sizes[spec.stem][1]:,} B", flush=True
        )
    return sizes


def queries_for(spec: Path, data: dict[str, Any], count: int) -> list[str]:
    """The evaluation set's queries for `spec` (benchmarks/search_eval/, dev and held-out), else the
    tools' titles; repeated to `count`."""
    files = [*search_eval.load_task_files(), *search_eval.load_task_files(search_eval.HELDOUT_DIR)]
    found = [task.query for tasks in files if tasks.spec == spec.name for task in tasks.tasks]
    found = found or [str(tool.get("title") or tool["name"]) for tool in data["tools"]]
    return (found * (count // max(len(found), 1) + 1))[:count]


def search_seconds(out: Path, queries: Sequence[str]) -> list[float]:
    """search_tools round trips over stdio, after 10 warm-up searches (the index is read on the first)."""
    with StdioServer([sys.executable, "-m", PACKAGE], server_env(out, "dynamic")) as server:
        server.start()
        for query in queries[:10]:
            server.request("tools/call", {"name": "search_tools", "arguments": {"query": query}})
        times = []
        for query in queries:
            times += server.call_seconds("search_tools", {"query": query}, 1)
    return times


def large_rows(spec: Path, workdir: Path, rounds: int, searches: int) -> list[report.Row]:
    out = workdir / "large"
    data = write_package(spec, out)
    static_times, dynamic_times, sizes = [], [], (0, 0)
    for _ in range(rounds):
        static_seconds, static_bytes = started(out, "static")
        dynamic_seconds, dynamic_bytes = started(out, "dynamic")
        static_times.append(static_seconds)
        dynamic_times.append(dynamic_seconds)
        sizes = (static_bytes, dynamic_bytes)
    static_start, dynamic_start = statistics.median(static_times), statistics.median(dynamic_times)
    times = search_seconds(out, queries_for(spec, data, searches))
    median = statistics.median(times)
    ratio = dynamic_start / static_start
    name = f"{spec.stem}, {len(data['tools']):,} tools"
    return [
        report.Row(f"tools/list ({name}): static → dynamic", f"{sizes[0]:,} B → {sizes[1]:,} B"),
        report.Row("spawn → first tools/list, static", report.seconds(static_start)),
        report.Row("spawn → first tools/list, dynamic", report.seconds(dynamic_start)),
        report.Row(
            "start-up, dynamic ÷ static",
            report.ratio(ratio),
            target=f"≤ {START_RATIO_LIMIT}x",
            value=ratio,
            limit=START_RATIO_LIMIT,
            noisy=True,
        ),
        report.Row(
            f"search_tools round trip over stdio, median of {len(times)}",
            report.seconds(median),
            target=f"≤ {SEARCH_LIMIT * 1000:.0f} ms",
            value=median,
            limit=SEARCH_LIMIT,
            noisy=True,
        ),
        report.Row("search_tools p99", report.seconds(percentile(times, 0.99))),
    ]


def size_rows(sizes: dict[str, tuple[int, int]]) -> list[report.Row]:
    largest = max(sizes, key=lambda name: sizes[name][1])
    static_total = sum(static for static, _ in sizes.values())
    return [
        report.Row(
            f"dynamic tools/list, largest of {len(sizes)} specs ({largest})",
            f"{sizes[largest][1]:,} B",
            target=f"≤ {DYNAMIC_LIST_LIMIT:,} B",
            value=sizes[largest][1],
            limit=DYNAMIC_LIST_LIMIT,
        ),
        report.Row(
            f"static tools/list of the same {len(sizes)} specs: largest, total",
            f"{max(s for s, _ in sizes.values()):,} B, {static_total:,} B",
        ),
    ]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="benchmarks.discovery", description=__doc__)
    parser.add_argument("specs", nargs="*", type=Path, help="specs for the list sizes (default: the corpus)")
    parser.add_argument("--large", type=Path, default=CORPUS / "specs" / LARGE, help="the large spec")
    parser.add_argument("--rounds", type=int, default=7, help="start-up rounds (default 7)")
    parser.add_argument("--searches", type=int, default=300, help="timed search_tools calls (default 300)")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    specs = [spec.resolve() for spec in args.specs] or corpus_specs()
    if missing := [str(spec) for spec in [*specs, args.large] if not spec.exists()]:
        print(f"benchmarks.discovery: no such spec: {', '.join(missing)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="openapi2mcp-discovery-") as workdir:
        rows = large_rows(args.large, Path(workdir), args.rounds, args.searches)
        rows += size_rows(list_sizes(specs, Path(workdir)))
    text = report.table("Issue 15: dynamic mode next to static", rows, with_peer=False)
    return report.published("benchmarks.discovery", text, rows, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
