"""The benchmark: `bash benchmarks/run [SPEC ...] [--compare fastmcp] [--smoke]` (see benchmarks/README.md).

For each spec it measures generation (time, memory, the curve), the generated server over stdio (spawn →
first tools/list, tools/list size, tool calls next to the floor measured in the same rounds -- a no-op call
on an empty SDK server plus one httpx2 GET -- and to a raw GET, memory) and over streamable HTTP (10
concurrent clients), all subjects interleaved in the same rounds, and prints one table per spec with each
target of issue 14. Exit 1 when a target is missed (in --smoke mode: only when missed by more than a
factor of report.SMOKE_SLACK, and a missed timing only when it is missed again in each of
SMOKE_ATTEMPTS measurements), 2 when the benchmark itself cannot run."""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import report, suite

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SPECS = ("cloudflare.json", "kubernetes.json")
CORPUS = REPO.parent / "shared" / "corpus" / "specs"
SMOKE_ATTEMPTS = 3  # a shared machine's load can slow one whole measurement; a regression slows all


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="benchmarks", description=__doc__)
    parser.add_argument(
        "specs",
        nargs="*",
        type=Path,
        help="default: cloudflare and kubernetes of ../shared/corpus (--smoke: cloudflare)",
    )
    parser.add_argument("--compare", choices=("fastmcp",), help="also measure FastMCP 4.1.6's from_openapi")
    parser.add_argument("--smoke", action="store_true", help="few runs, fail only on a gross regression (CI)")
    parser.add_argument(
        "--rounds",
        type=int,
        help="rounds of spawns and calls (default 5; smoke 3: the median shrugs off one disturbed round)",
    )
    parser.add_argument("--calls", type=int, help="stdio calls per server per round (default 400; smoke 100)")
    parser.add_argument("--http-calls", type=int, help="streamable HTTP calls (default 10,000; smoke 1,500)")
    parser.add_argument("--no-curve", action="store_true", help="skip the generation curve")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    return parser.parse_args(argv)


def settings(args: argparse.Namespace) -> suite.Settings:
    smoke = args.smoke
    return suite.Settings(
        rounds=args.rounds or (3 if smoke else 5),
        calls=args.calls or (100 if smoke else 400),
        http_calls=args.http_calls or (1_500 if smoke else 10_000),
        curve=not (args.no_curve or smoke),
        peer=args.compare,
        cache_dir=REPO / ".cache" / "bench",
    )


def machine() -> str:
    import os

    cores = os.cpu_count()
    return f"{platform.machine()}, {cores} cores, Python {platform.python_version()}, {platform.system()}"


def measure_spec(
    spec: Path, chosen: suite.Settings, slack: float, attempts: int
) -> tuple[list[str], list[report.Row]]:
    """The tables of one spec's measurements and the targets missed in each of them (the last
    measurement's rows). While every missed target is a timing, measure again, up to `attempts` times."""
    texts: list[str] = []
    misses: dict[str, report.Row] | None = None
    for attempt in range(1, attempts + 1):
        with tempfile.TemporaryDirectory(prefix="openapi2mcp-bench-") as workdir:
            rows = suite.run(spec, Path(workdir), chosen)
        text = report.table(spec.name, rows, with_peer=chosen.peer is not None, slack=slack)
        print(text, flush=True)
        texts.append(text)
        now = {row.figure: row for row in report.missed(rows, slack)}
        misses = now if misses is None else {figure: row for figure, row in now.items() if figure in misses}
        if not misses or not all(row.noisy for row in misses.values()) or attempt == attempts:
            break
        print(f"benchmarks: {spec.name}: a timing missed; measuring again ({attempt + 1} of {attempts})")
    return texts, list((misses or {}).values())


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    defaults = DEFAULT_SPECS[:1] if args.smoke else DEFAULT_SPECS
    specs = [spec.resolve() for spec in args.specs] or [CORPUS / name for name in defaults]
    if missing := [str(spec) for spec in specs if not spec.exists()]:
        print(f"benchmarks: no such spec: {', '.join(missing)}", file=sys.stderr)
        return 2
    chosen = settings(args)
    slack = report.SMOKE_SLACK if args.smoke else 1.0
    stamp = f"{datetime.date.today().isoformat()}, {machine()}"
    tables, failed = [f"Measured {stamp}; {chosen.describe()}.\n"], []
    print(tables[0])
    attempts = SMOKE_ATTEMPTS if args.smoke else 1
    for spec in specs:
        try:
            texts, misses = measure_spec(spec, chosen, slack, attempts)
        except suite.BenchmarkError as error:
            print(f"benchmarks: {spec.name}: {error}", file=sys.stderr)
            return 2
        tables += texts
        failed += [f"{spec.name}: {row.figure} ({row.ours}; target {row.target})" for row in misses]
    if args.markdown:
        args.markdown.write_text("\n".join(tables))
    for line in failed:
        print(f"benchmarks: target missed: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
