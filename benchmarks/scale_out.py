"""Scale-out (issue 17): the streamable-HTTP load of the benchmark (`http_load.py`: 10 concurrent MCP
sessions, each one call at a time) through haproxy, round-robin per request, in front of 1, 2 and 4
stateless server processes, in two layouts: separate instances (each `--stateless`, its own port, one
haproxy server line each: a session's requests land on every instance in turn) and one server with
`--stateless --workers N` (uvicorn's workers on one port, the kernel spreading haproxy's connections).
The proxy is Debian's haproxy (`apt-get install haproxy`), started and reaped here. Prints a markdown
table; exits 1 on any failed call, 2 when the benchmark cannot run. Run:
`.venv/bin/python -m benchmarks.scale_out [--spec SPEC] [--calls 10000]`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import generation, stdio_bench, subject
from .__main__ import CORPUS, machine
from .http_load import HttpServer, McpSession, _own_cpu_seconds, _run_calls, free_port
from .stdio_client import ServerFailed, close_and_reap

COUNTS = (1, 2, 4)
START_TIMEOUT = 60.0  # seconds for haproxy to listen
STOP_TIMEOUT = 10.0


@dataclass(frozen=True)
class Layout:
    kind: str  # "instances" or "workers"
    processes: int

    def describe(self) -> str:
        if self.kind == "workers":
            return f"1 server, `--stateless --workers {self.processes}`"
        return f"{self.processes} instance{'s' * (self.processes > 1)}, `--stateless`"


@dataclass(frozen=True)
class Figures:
    layout: Layout
    calls: int
    errors: int
    calls_per_second: float
    server_cpu_seconds: tuple[float, ...]  # each serving process (instance or worker), measured calls
    proxy_cpu_seconds: float
    client_cpu_seconds: float


def haproxy_config(front: int, backends: Sequence[int]) -> str:
    """One frontend on 127.0.0.1:`front`, each request to the next backend in turn (haproxy balances
    every request of a keep-alive connection, not only its first); one thread: the machine is small."""
    servers = "\n".join(f"    server s{i} 127.0.0.1:{port}" for i, port in enumerate(backends))
    return (
        "global\n    nbthread 1\n    maxconn 512\n"
        "defaults\n    mode http\n    timeout connect 5s\n    timeout client 60s\n    timeout server 60s\n"
        f"frontend mcp\n    bind 127.0.0.1:{front}\n    default_backend servers\n"
        f"backend servers\n    balance roundrobin\n{servers}\n"
    )


@contextlib.contextmanager
def haproxy(front: int, backends: Sequence[int], workdir: Path) -> Iterator[subprocess.Popen[bytes]]:
    """haproxy in the foreground (-db) with `haproxy_config`; stopped (SIGTERM, then SIGKILL) and reaped."""
    binary = shutil.which("haproxy")
    if binary is None:
        raise RuntimeError("haproxy is not installed (Debian: apt-get install haproxy)")
    config = workdir / "haproxy.cfg"
    config.write_text(haproxy_config(front, backends))
    process = subprocess.Popen([binary, "-q", "-db", "-f", str(config)], stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _listening(front):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"haproxy did not listen on {front} (exit {process.poll()})")
            time.sleep(0.05)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
        close_and_reap(process, STOP_TIMEOUT)


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (0 once it is gone)."""
    with contextlib.suppress(OSError), open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def serving_processes(pid: int) -> list[int]:
    """The processes that answer requests: a --workers server's children (uvicorn's workers), else
    the server itself."""
    children = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            children += [int(child) for child in (task / "children").read_text().split()]
    return [child for child in children if _is_worker(child)] or [pid]


def _is_worker(pid: int) -> bool:
    """A process multiprocessing spawned to serve (not its resource tracker)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"spawn_main" in argv and b"resource_tracker" not in argv


def wait_until_idle(pids: Sequence[int], count: int) -> list[int]:
    """The `count` serving processes of `pids`, once they exist and have stopped using CPU for 0.5 s
    (uvicorn's workers load the tool data after the port is already bound)."""
    deadline, before = time.monotonic() + START_TIMEOUT, -1.0
    while time.monotonic() < deadline:
        serving = [each for pid in pids for each in serving_processes(pid)]
        used = sum(map(cpu_seconds, serving))
        if len(serving) == count and used - before < 0.02:
            return serving
        before = used
        time.sleep(0.5)
    raise RuntimeError(f"the {count} server processes did not settle within {START_TIMEOUT:g} s")


@contextlib.contextmanager
def servers(target: subject.Subject, base_url: str, layout: Layout) -> Iterator[list[HttpServer]]:
    """The layout's server processes, each listening on its own free port (reaped on exit)."""
    command, env = target.command(), target.env(base_url)
    count = 1 if layout.kind == "workers" else layout.processes
    workers = ["--workers", str(layout.processes)] if layout.kind == "workers" else []
    with contextlib.ExitStack() as stack:
        started = []
        for _ in range(count):
            port = free_port()
            argv = [*command, "--transport", "http", "--host", "127.0.0.1", "--port", str(port)]
            started.append(stack.enter_context(HttpServer([*argv, "--stateless", *workers], env, port)))
        yield started


def measure(target: subject.Subject, base_url: str, layout: Layout, calls: int, workdir: Path) -> Figures:
    with servers(target, base_url, layout) as started:
        front = free_port()
        with haproxy(front, [server.port for server in started], workdir) as proxy:
            try:
                return asyncio.run(_drive(target, layout, started, proxy.pid, front, calls))
            except ServerFailed as error:
                raise ServerFailed(f"{error}\n{started[0].stderr()}") from None


async def _drive(
    target: subject.Subject, layout: Layout, started: list[HttpServer], proxy: int, front: int, calls: int
) -> Figures:
    sessions = [McpSession("127.0.0.1", front) for _ in range(10)]
    pids = [server.process.pid for server in started if server.process is not None]
    serving = wait_until_idle(pids, layout.processes)
    try:
        await asyncio.gather(*(session.open() for session in sessions))
        params = json.dumps({"name": target.tool, "arguments": {}}, separators=(",", ":")).encode()
        errors = await _run_calls(sessions, params, max(100, calls // 10))
        server_cpu, proxy_cpu = [cpu_seconds(pid) for pid in serving], cpu_seconds(proxy)
        client_cpu, began = _own_cpu_seconds(), time.perf_counter()
        errors += await _run_calls(sessions, params, calls)
        seconds = time.perf_counter() - began
        server_cpu = [cpu_seconds(pid) - used for pid, used in zip(serving, server_cpu, strict=True)]
        proxy_cpu, client_cpu = cpu_seconds(proxy) - proxy_cpu, _own_cpu_seconds() - client_cpu
    finally:
        await asyncio.gather(*(session.close() for session in sessions))
    rate = calls / seconds if seconds > 0 else 0.0
    return Figures(layout, calls, errors, rate, tuple(server_cpu), proxy_cpu, client_cpu)


def table(found: Sequence[Figures]) -> str:
    lines = [
        "| behind haproxy (round-robin) | calls/s | errors | CPU s of each server process | haproxy CPU s"
        " | client CPU s |",
        "|---|---|---|---|---|---|",
    ]
    for figures in found:
        lines.append(
            f"| {figures.layout.describe()} | {figures.calls_per_second:,.0f} | {figures.errors} |"
            f" {' + '.join(f'{used:.1f}' for used in figures.server_cpu_seconds)} |"
            f" {figures.proxy_cpu_seconds:.1f} |"
            f" {figures.client_cpu_seconds:.1f} |"
        )
    return "\n".join(lines)


def run(spec: Path, calls: int, layouts: Sequence[Layout], workdir: Path) -> list[Figures]:
    generation.measure_generation(spec, 1, workdir / "generation")
    target = subject.prepare(spec, generation.output_dir(workdir / "generation"))
    found = []
    with stdio_bench.upstream(target.body, workdir) as base_url:
        for layout in layouts:
            found.append(measure(target, base_url, layout, calls, workdir))
            print(table(found[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks.scale_out", description=__doc__)
    parser.add_argument("--spec", type=Path, default=CORPUS / "cloudflare.json")
    parser.add_argument(
        "--calls", type=int, default=10_000, help="measured calls per layout (default 10,000)"
    )
    args = parser.parse_args(argv)
    layouts = [Layout("instances", n) for n in COUNTS] + [Layout("workers", n) for n in COUNTS[1:]]
    load, warmup = os.getloadavg()[0], max(100, args.calls // 10)
    print(
        f"Measured {datetime.date.today().isoformat()}, {machine()}, load average before: {load:.2f};"
        f" {args.spec.name}, {args.calls:,} calls by 10 clients per layout"
        f" (after {warmup:,} warm-up calls).\n"
    )
    with tempfile.TemporaryDirectory(prefix="openapi2mcp-scale-") as workdir:
        try:
            found = run(args.spec.resolve(), args.calls, layouts, Path(workdir))
        except (RuntimeError, OSError, ValueError) as error:  # ServerFailed is a RuntimeError
            print(f"benchmarks.scale_out: {error}", file=sys.stderr)
            return 2
    print(table(found))
    return 1 if any(figures.errors for figures in found) else 0


if __name__ == "__main__":
    sys.exit(main())
