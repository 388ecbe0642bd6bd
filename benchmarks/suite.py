"""One spec's benchmark: every figure of issue 14's targets, as report rows (benchmarks/rows.py)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import fastmcp_peer, generation, http_load, rows, stdio_bench, subject
from .report import Row

PEER_SETTLE_SECONDS = 3.0  # FastMCP's server takes up to 0.8 GiB: let the machine settle before ours run


class BenchmarkError(RuntimeError):
    """The benchmark itself could not run (a failed generation, a server that did not start, ...)."""


@dataclass(frozen=True)
class Settings:
    rounds: int
    calls: int
    http_calls: int
    curve: bool
    peer: str | None
    cache_dir: Path

    def describe(self) -> str:
        return (
            f"medians over {self.rounds} rounds ({self.calls} stdio calls per server per round), "
            f"{self.http_calls:,} streamable-HTTP calls by 10 clients"
        )


def run(spec: Path, workdir: Path, settings: Settings) -> list[Row]:
    try:
        return _run(spec, workdir, settings)
    except (RuntimeError, OSError, ValueError) as error:  # PeerUnavailable is a RuntimeError
        raise BenchmarkError(str(error)) from error


def _run(spec: Path, workdir: Path, settings: Settings) -> list[Row]:
    peer = fastmcp_peer.fastmcp_python(settings.cache_dir) if settings.peer else None
    found = _generation_rows(spec, workdir, settings, peer)
    target = subject.prepare(spec, generation.output_dir(workdir / "generation"))
    with stdio_bench.upstream(target.body, workdir) as base_url:
        servers = [
            stdio_bench.Server(
                "empty", [sys.executable, "-m", "benchmarks.empty_server", "--noop"], {}, "noop"
            ),
            stdio_bench.Server("ours", target.command(), target.env(base_url), target.tool),
        ]
        if peer is not None:
            servers.append(_peer_server(peer, spec, base_url, target))
        figures = stdio_bench.measure(servers, base_url, settings.rounds, settings.calls)
        found += rows.stdio_rows(figures)
        http = http_load.measure_http(
            target.command(),
            target.env(base_url),
            target.tool,
            {},
            calls=settings.http_calls,
            warmup=max(100, settings.http_calls // 10),
        )
    return found + rows.http_rows(http)


def _peer_server(python: Path, spec: Path, base_url: str, target: subject.Subject) -> stdio_bench.Server:
    """FastMCP serving the same spec against the same upstream; it calls the same operation."""
    method, path = target.operation
    operation_id = subject.operation_id(target.spec, method, path)

    def find(tools: list[dict[str, Any]]) -> str | None:
        return fastmcp_peer.tool_name(tools, method, path, operation_id)

    env = {"PATH": os.environ.get("PATH", "")}
    command = fastmcp_peer.server_command(python, spec, base_url)
    return stdio_bench.Server("FastMCP", command, env, find, settle_seconds=PEER_SETTLE_SECONDS)


def _generation_rows(spec: Path, workdir: Path, settings: Settings, peer: Path | None) -> list[Row]:
    ours = generation.measure_generation(spec, settings.rounds, workdir / "generation")
    peer_build = fastmcp_peer.measure_build(peer, spec, settings.rounds) if peer is not None else None
    if not settings.curve:
        return rows.generation_rows(ours, peer_build, None, None)
    points = generation.generation_curve(
        spec, generation.CURVE_FRACTIONS, settings.rounds, workdir / "curve", spread=True
    )
    return rows.generation_rows(ours, peer_build, points, generation.linearity(points))
