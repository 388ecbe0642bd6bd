"""Stdio figures, every subject measured in the same rounds (interleaved), so ratios share the noise:
spawn → first tools/list, tools/list size, tool-call latency (median, p99) next to the floor's parts (a
no-op call on an empty server, one httpx2 GET) and a raw HTTP GET, and the servers' memory."""

from __future__ import annotations

import http.client
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .stdio_client import StdioServer, close_and_reap

RAW_GET = "raw GET"  # http.client, keep-alive: the cheapest HTTP exchange, for context
HTTPX2_GET = "httpx2 GET"  # one httpx2.AsyncClient, keep-alive: the HTTP half of the floor
UPSTREAM_PATH = "/bench"  # the upstream answers its one body on any path
HTTP_TIMEOUT = 30.0


@dataclass(frozen=True)
class Server:
    """A server to measure: its argv and environment, and the tool to call (without arguments): a name,
    or a function that finds it among the listed tools (None: the server is not called)."""

    label: str
    command: Sequence[str]
    env: Mapping[str, str]
    tool: str | Callable[[list[dict[str, Any]]], str | None] | None = None
    settle_seconds: float = 0.0  # a pause after it exits (a heavy peer's memory is given back first)


@dataclass
class Figures:
    start_seconds: list[float] = field(default_factory=list)
    list_bytes: int = 0
    tools: list[dict[str, Any]] = field(default_factory=list)
    call_seconds: list[float] = field(default_factory=list)
    peak_kib: int = 0  # VmHWM after the calls

    @property
    def start(self) -> float:
        return statistics.median(self.start_seconds)

    @property
    def call(self) -> float:
        return statistics.median(self.call_seconds)

    @property
    def p99(self) -> float:
        return percentile(self.call_seconds, 0.99)

    @property
    def largest_input_schema(self) -> int:
        sizes = [len(json.dumps(t.get("inputSchema"), separators=(",", ":"))) for t in self.tools]
        return max(sizes, default=0)


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


@contextmanager
def upstream(body: bytes, workdir: Path) -> Iterator[str]:
    """The local upstream (benchmarks/upstream.py) answering `body`; yields its base URL."""
    body_file = workdir / "upstream-body.json"
    body_file.write_bytes(body)
    process = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.upstream", str(body_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[1],
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline() or b"0")
        if not port:
            raise RuntimeError("the benchmark upstream did not start")
        yield f"http://127.0.0.1:{port}"
    finally:
        close_and_reap(process, 10)


def raw_get_seconds(base_url: str, count: int) -> list[float]:
    """Keep-alive GETs with http.client: the floor of any HTTP exchange."""
    host, port = base_url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=HTTP_TIMEOUT)
    times = []
    try:
        for _ in range(count):
            began = time.perf_counter()
            connection.request("GET", UPSTREAM_PATH, headers={"Accept": "application/json"})
            connection.getresponse().read()
            times.append(time.perf_counter() - began)
    finally:
        connection.close()
    return times


def httpx2_get_seconds(base_url: str, count: int) -> list[float]:
    """Keep-alive GETs with one `httpx2.AsyncClient` (its defaults, as a runtime on httpx2 has them), each
    body read whole: with the empty server's no-op call, the floor of a tool call."""
    import asyncio

    import httpx2

    async def run() -> list[float]:
        times = []
        async with httpx2.AsyncClient(base_url=base_url, timeout=HTTP_TIMEOUT) as client:
            for _ in range(count):
                began = time.perf_counter()
                response = await client.get(UPSTREAM_PATH, headers={"Accept": "application/json"})
                times.append(time.perf_counter() - began)
                if response.status_code != 200 or not response.content:
                    raise RuntimeError(f"the upstream answered the httpx2 GET with {response.status_code}")
        return times

    return asyncio.run(run())


def measure(servers: Sequence[Server], base_url: str, rounds: int, calls: int) -> dict[str, Figures]:
    """`rounds` rounds; in each, the raw GET and the httpx2 GET are timed `calls` times after a warm-up,
    then every server is spawned, listed and (if it has a tool) called as often after the same warm-up.
    The figures are keyed by the servers' labels, RAW_GET and HTTPX2_GET."""
    figures = {server.label: Figures() for server in servers}
    figures[RAW_GET], figures[HTTPX2_GET] = Figures(), Figures()
    warmup = max(10, calls // 20)
    for _ in range(rounds):
        figures[RAW_GET].call_seconds.extend(raw_get_seconds(base_url, warmup + calls)[warmup:])
        figures[HTTPX2_GET].call_seconds.extend(httpx2_get_seconds(base_url, warmup + calls)[warmup:])
        for server in servers:
            _measure_one(server, figures[server.label], calls, warmup)
    return figures


def _measure_one(server: Server, into: Figures, calls: int, warmup: int) -> None:
    with StdioServer(server.command, server.env) as process:
        started = process.start()
        into.start_seconds.append(started.seconds_to_list)
        into.list_bytes, into.tools = started.list_bytes, started.tools
        tool = server.tool(started.tools) if callable(server.tool) else server.tool
        if tool is not None and calls:
            process.call_seconds(tool, {}, warmup)
            into.call_seconds.extend(process.call_seconds(tool, {}, calls))
        _, into.peak_kib = process.rss_kib()
    time.sleep(server.settle_seconds)
