"""One spec's benchmark: every figure of issue 6, as report rows."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import fastmcp_peer, generation, http_load, stdio_bench, subject
from .report import Row, mib, ratio, seconds, size

PEER_SETTLE_SECONDS = 3.0  # FastMCP's server takes up to 0.8 GiB: let the machine settle before ours run
OTHER_HTTP_CLIENTS = ("httpx2", "httpx")  # the runtime measured with each library instead of its own client
SDK_PIPELINE = "ours, every call through the SDK"  # BENCH_STDIO_CALLS=sdk
MIB = 1024


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
    rows = _generation_rows(spec, workdir, settings, peer)
    target = subject.prepare(spec, generation.output_dir(workdir / "generation"))
    with stdio_bench.upstream(target.body, workdir) as base_url:
        servers = [
            stdio_bench.Server(
                "empty", [sys.executable, "-m", "benchmarks.empty_server", "--noop"], {}, "noop"
            ),
            stdio_bench.Server("ours", target.command(), target.env(base_url), target.tool),
            stdio_bench.Server(
                SDK_PIPELINE, target.command(), target.env(base_url, stdio_calls="sdk"), target.tool
            ),
            *(
                stdio_bench.Server(client, target.command(), target.env(base_url, client), target.tool)
                for client in OTHER_HTTP_CLIENTS
            ),
        ]
        if peer is not None:
            servers.append(_peer_server(peer, spec, base_url, target))
        figures = stdio_bench.measure(servers, base_url, settings.rounds, settings.calls)
        rows += _stdio_rows(figures)
        http = http_load.measure_http(
            target.command(),
            target.env(base_url),
            target.tool,
            {},
            calls=settings.http_calls,
            warmup=max(100, settings.http_calls // 10),
        )
    rows += _http_rows(http)
    return rows


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
    rows = [
        Row(
            f"generate ({ours.operations:,} operations), wall",
            seconds(ours.seconds),
            f"{seconds(peer_build[0])} (from_openapi, cold)" if peer_build else "",
            "≤ 3 s",
            ours.seconds,
            3.0,
            noisy=True,
        ),
        Row(
            "generate, peak memory",
            f"{ours.peak_mib:.0f} MiB",
            f"{peer_build[1]:.0f} MiB" if peer_build else "",
            "≤ 500 MB",
            ours.peak_mib * 1.048576,
            500.0,
        ),
    ]
    if settings.curve:
        points = generation.generation_curve(
            spec, generation.CURVE_FRACTIONS, settings.rounds, workdir / "curve", spread=True
        )
        curve = ", ".join(f"{p.operations}: {seconds(p.seconds)}" for p in points)
        value = generation.linearity(points)
        rows.append(
            Row(
                f"generation curve, every k-th operation (operations: wall) {curve}; linearity",
                f"{value:.2f}",
                target="≤ 1.3",
                value=value,
                limit=1.3,
                noisy=True,
            )
        )
    return rows


def _stdio_rows(figures: dict[str, stdio_bench.Figures]) -> list[Row]:
    empty, ours, raw = figures["empty"], figures["ours"], figures["raw GET"]
    peer = figures.get("FastMCP")

    def of(make: Callable[[stdio_bench.Figures], str]) -> str:
        return make(peer) if peer is not None else ""

    def of_calls(make: Callable[[stdio_bench.Figures], str]) -> str:
        """`of`, for a figure of the peer's tool calls (empty when it made none)."""
        return of(lambda p: make(p) if p.call_seconds else "")

    start_ratio = ours.start / empty.start
    call_raw, call_noop = ours.call / raw.call, ours.call / empty.call
    tail = ours.p99 / ours.call
    return [
        Row(
            f"spawn → first tools/list, stdio (empty server: {seconds(empty.start)})",
            f"{seconds(ours.start)} = {ratio(start_ratio)}",
            of(lambda p: f"{seconds(p.start)} = {ratio(p.start / empty.start)}"),
            "≤ 1.5x empty",
            start_ratio,
            1.5,
            noisy=True,
        ),
        Row(
            f"tools/list size ({len(ours.tools):,} tools)",
            size(ours.list_bytes),
            of(lambda p: f"{size(p.list_bytes)} ({len(p.tools):,} tools)"),
            "≤ 2 MB",
            ours.list_bytes / 1e6,
            2.0,
        ),
        Row(
            "largest inputSchema",
            size(ours.largest_input_schema),
            of(lambda p: size(p.largest_input_schema)),
            "≤ 16 KiB",
            ours.largest_input_schema / 1024,
            16.0,
        ),
        Row(
            "tool call over stdio, median / p99",
            f"{seconds(ours.call)} / {seconds(ours.p99)}",
            of_calls(lambda p: f"{seconds(p.call)} / {seconds(p.p99)}"),
        ),
        Row(
            f"call ÷ raw HTTP GET ({seconds(raw.call)})",
            ratio(call_raw),
            of_calls(lambda p: ratio(p.call / raw.call)),
            "≤ 5x",
            call_raw,
            5.0,
            noisy=True,
        ),
        Row(
            f"call ÷ no-op call on an empty server ({seconds(empty.call)})",
            ratio(call_noop),
            of_calls(lambda p: ratio(p.call / empty.call)),
            "≤ 2x",
            call_noop,
            2.0,
            noisy=True,
        ),
        Row(
            "the floor: an empty server's no-op call ÷ raw HTTP GET (SDK stdio transport)",
            ratio(empty.call / raw.call),
        ),
        Row(
            "call p99 ÷ median",
            ratio(tail),
            of_calls(lambda p: ratio(p.p99 / p.call)),
            "≤ 2x",
            tail,
            2.0,
            noisy=True,
            tail=True,
        ),
        Row(
            "tool call through the SDK's request pipeline (PREFIX_STDIO_CALLS=sdk), median; ÷ raw GET",
            f"{seconds(figures[SDK_PIPELINE].call)}; {ratio(figures[SDK_PIPELINE].call / raw.call)}",
        ),
        Row(
            "tool call with the runtime's HTTP client (median): built-in / httpx2 / httpx",
            " / ".join(seconds(figures[label].call) for label in ("ours", *OTHER_HTTP_CLIENTS)),
        ),
        Row(
            "server memory after the calls (peak RSS)",
            mib(ours.peak_kib),
            of(lambda p: mib(p.peak_kib)),
            "≤ 150 MiB",
            ours.peak_kib / MIB,
            150.0,
        ),
    ]


def _http_rows(http: http_load.HttpFigures) -> list[Row]:
    growth = http.rss_mib_at_end - http.rss_mib_after_warmup
    return [
        Row(
            f"streamable HTTP, {http.clients} clients: calls/s",
            f"{http.calls_per_second:.0f}",
            "",
            "≥ 500",
            http.calls_per_second,
            500.0,
            at_least=True,
            noisy=True,
        ),
        Row(f"streamable HTTP: errors in {http.calls:,} calls", str(http.errors), "", "0", http.errors, 0.0),
        Row(
            "streamable HTTP: CPU per call, server / this client",
            f"{seconds(http.server_cpu_seconds / http.calls)}"
            f" / {seconds(http.client_cpu_seconds / http.calls)}",
        ),
        Row(
            "streamable HTTP: memory growth after warm-up",
            f"{growth:+.1f} MiB (peak {http.peak_mib:.0f} MiB)",
            "",
            "flat (≤ 10 MiB)",
            growth,
            10.0,
        ),
    ]
