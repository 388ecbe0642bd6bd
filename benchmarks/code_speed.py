"""The speed figure of the code-mode benchmark (benchmarks/code_mode.py): a one-call program against
the direct tool call, in the same run. Direct: `tools/call` of the tool itself on the package in
static mode; code: `run_code` with a program making that one call, on the same package in code mode.
Both servers point at the same fast local upstream (benchmarks/upstream.py: one fixed JSON body).
A minimal JSON-RPC client on each server's pipes (stdio_client.py) times each round trip; the
calls alternate, a pause between calls (agents call tools seconds apart), then again without."""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .code_agent import server_env
from .stdio_bench import percentile, upstream
from .stdio_client import StdioServer

TOOL, ARGUMENTS = "getPetById", {"petId": 1001}
PROGRAM = "import api\napi.getPetById(petId=1001)"
PET = {
    "id": 1001,
    "name": "Bella 31",
    "category": {"id": 1, "name": "Dogs"},
    "photoUrls": ["https://images.petstore.example/pets/1001/photo-1.jpg"],
    "tags": [{"id": 1, "name": "vaccinated"}],
    "status": "available",
}
WARM_UP = 20
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Timings:
    direct: list[float]
    code: list[float]
    cpu: tuple[float, float]  # CPU seconds a call of each (the server and its sandbox workers)

    @property
    def ratio(self) -> float:
        return statistics.median(self.code) / statistics.median(self.direct)


@dataclass(frozen=True)
class Speed:
    paced: Timings
    unpaced: Timings
    pause: float  # seconds between calls in the paced round


def tree_cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) of a process and all its descendants now alive (/proc)."""
    parents: dict[int, int] = {}
    spent: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):  # a process that ended meanwhile
            continue
        child = int(stat.parent.name)
        parents[child], spent[child] = int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS
    tree, total = {pid}, 0.0
    for _ in range(16):  # generations: the workers are the server's children
        grown = tree | {child for child, parent in parents.items() if parent in tree}
        if grown == tree:
            break
        tree = grown
    for member in tree:
        total += spent.get(member, 0.0)
    return total


def _pid(server: StdioServer) -> int:
    assert server.process is not None
    return server.process.pid


def _alternate(direct: StdioServer, code: StdioServer, count: int, pause: float) -> Timings:
    times: tuple[list[float], list[float]] = ([], [])
    cpu = [tree_cpu_seconds(_pid(direct)), tree_cpu_seconds(_pid(code))]
    for _ in range(count):
        times[0].extend(direct.call_seconds(TOOL, ARGUMENTS, 1))
        time.sleep(pause)
        times[1].extend(code.call_seconds("run_code", {"code": PROGRAM}, 1))
        time.sleep(pause)
    time.sleep(max(pause, 0.2))  # the session used last is closed, the next one warmed
    spent = (tree_cpu_seconds(_pid(direct)) - cpu[0], tree_cpu_seconds(_pid(code)) - cpu[1])
    return Timings(*times, cpu=(spent[0] / count, spent[1] / count))


def _check(code: StdioServer) -> None:
    """The program answers the pet (not an error that would be timed as a call)."""
    answer: Any = code.request("tools/call", {"name": "run_code", "arguments": {"code": PROGRAM}})
    result = answer.get("structuredContent") or {}
    if answer.get("isError") or result.get("result") != PET or result.get("calls") != 1:
        raise RuntimeError(f"run_code did not answer the pet: {json.dumps(answer)[:600]}")


def measure(out: Path, package: str, settings: Mapping[str, str], count: int, pause: float) -> Speed:
    """`count` calls each way, alternating, paced by `pause` seconds; then `count` more unpaced."""
    with upstream(json.dumps(PET).encode(), out) as base_url:
        env = {**settings, "BENCH_BASE_URL": base_url}
        command = [sys.executable, "-m", package]
        with (
            StdioServer(command, server_env(out, "static", env)) as direct,
            StdioServer(command, server_env(out, "code", env)) as code,
        ):
            direct.start()
            code.start()
            _check(code)
            _alternate(direct, code, WARM_UP, 0.0)
            paced = _alternate(direct, code, count, pause)
            unpaced = _alternate(direct, code, count, 0.0)
    return Speed(paced, unpaced, pause)


def summary(timings: Timings) -> str:
    direct, code = statistics.median(timings.direct), statistics.median(timings.code)
    return (
        f"direct {direct * 1000:.2f} ms (p90 {percentile(timings.direct, 0.9) * 1000:.2f}),"
        f" run_code {code * 1000:.2f} ms (p90 {percentile(timings.code, 0.9) * 1000:.2f})"
    )


def cpu_summary(timings: Timings) -> str:
    direct, code = timings.cpu
    return f"direct {direct * 1000:.2f} ms, run_code {code * 1000:.2f} ms ({code / direct:.1f}x)"
