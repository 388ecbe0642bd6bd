"""What `--sse` costs over streamable HTTP: the HTTP load of the benchmark (`http_load.py`: 10 concurrent
MCP sessions, each one call at a time) against the same generated server answering one JSON body per
request (the default) and an SSE stream per request (`--sse`), in interleaved rounds so that both share
the machine's noise. Prints the median calls/s of each and their ratio; exits 1 on any failed call,
2 when the benchmark cannot run. Run: `.venv/bin/python -m benchmarks.sse_cost [--rounds 3]`."""

from __future__ import annotations

import argparse
import datetime
import functools
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import generation, http_load, stdio_bench, subject
from .__main__ import CORPUS, machine

ANSWERS = {"JSON body (default)": (), "SSE stream (`--sse`)": ("--sse",)}


def listening(extra: Sequence[str], port: int) -> list[str]:
    """A generated server's arguments to serve streamable HTTP on `port`, then `extra`."""
    return [*http_load.generated_server_arguments(port), *extra]


def run(spec: Path, rounds: int, calls: int, workdir: Path) -> dict[str, list[http_load.HttpFigures]]:
    generation.measure_generation(spec, 1, workdir / "generation")
    target = subject.prepare(spec, generation.output_dir(workdir / "generation"))
    found: dict[str, list[http_load.HttpFigures]] = {answer: [] for answer in ANSWERS}
    with stdio_bench.upstream(target.body, workdir) as base_url:
        for _round in range(rounds):
            for answer, extra in ANSWERS.items():
                figures = http_load.measure_http(
                    target.command(),
                    target.env(base_url),
                    target.tool,
                    {},
                    calls=calls,
                    warmup=max(100, calls // 10),
                    listen_arguments=functools.partial(listening, extra),
                )
                found[answer].append(figures)
                print(f"{answer}: {figures.calls_per_second:,.0f} calls/s", file=sys.stderr, flush=True)
    return found


def table(found: dict[str, list[http_load.HttpFigures]]) -> str:
    medians = {answer: statistics.median(f.calls_per_second for f in runs) for answer, runs in found.items()}
    default = next(iter(medians.values()))
    lines = [
        "| HTTP answers | calls/s (median) | each round | errors | vs default |",
        "|---|---|---|---|---|",
    ]
    for answer, runs in found.items():
        each = ", ".join(f"{figures.calls_per_second:,.0f}" for figures in runs)
        errors = sum(figures.errors for figures in runs)
        lines.append(
            f"| {answer} | {medians[answer]:,.0f} | {each} | {errors} | {medians[answer] / default:.2f}x |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks.sse_cost", description=__doc__)
    parser.add_argument("--spec", type=Path, default=CORPUS / "cloudflare.json")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of both (default 3)")
    parser.add_argument("--calls", type=int, default=5_000, help="measured calls per run (default 5,000)")
    args = parser.parse_args(argv)
    print(
        f"Measured {datetime.date.today().isoformat()}, {machine()}, load average before:"
        f" {os.getloadavg()[0]:.2f}; {args.spec.name}, {args.calls:,} calls by 10 clients per run,"
        f" {args.rounds} interleaved rounds.\n"
    )
    with tempfile.TemporaryDirectory(prefix="openapi2mcp-sse-") as workdir:
        try:
            found = run(args.spec.resolve(), args.rounds, args.calls, Path(workdir))
        except (RuntimeError, OSError, ValueError) as error:  # ServerFailed is a RuntimeError
            print(f"benchmarks.sse_cost: {error}", file=sys.stderr)
            return 2
    print(table(found))
    return 1 if any(figures.errors for runs in found.values() for figures in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
