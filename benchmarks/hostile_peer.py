"""Issue 28's endpoint targets: under each attack, a legitimate client initializes and calls within
1 s (p99), the server's RSS stays at or below 300 MiB, and the attackers' connections are closed
within the documented timeouts.

    .venv/bin/python -m benchmarks.hostile_peer [--seconds 30]

Each attack runs alone against a fresh server of specs/petstore.yaml (`--auth token`, the default
limits of http_limits.py), on 127.0.0.1:
- heads: 200 connections sending a request head a byte a second;
- idle: 20,000 connections from one address (127.0.0.2) that send nothing (two processes of
  10,000: the open-file limit here is 20,000 a process);
- sessions: one token opening sessions as fast as 8 concurrent openers can.
Meanwhile a legitimate client (another token, 127.0.0.1) opens a session, lists the tools and calls
one, twice a second; each round is timed. Exit 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx2

from benchmarks.http_load import HttpServer, free_port

REPO = Path(__file__).resolve().parents[1]
TOKEN, ATTACKER_TOKEN = "legitimate-token", "attacker-token"
ATTACKER = "127.0.0.2"
REQUEST_TIMEOUT = 10.0  # http_limits' default PREFIX_HTTP_REQUEST_TIMEOUT
TARGET_P99, TARGET_RSS_MIB = 1.0, 300.0


def generated(workdir: Path) -> Path:
    out = workdir / "bench-out"
    command = [
        str(Path(sys.executable).parent / "openapi2mcp"),
        "generate",
        str(REPO / "specs" / "petstore.yaml"),
        "-o",
        str(out),
        "--name",
        "bench",
        "--quiet",
    ]
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    return out


def server_env(out: Path, upstream_port: int) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(out),
        "BENCH_BASE_URL": f"http://127.0.0.1:{upstream_port}",
        "BENCH_MCP_TOKENS": f"{TOKEN},{ATTACKER_TOKEN}",
        "BENCH_API_KEY_KEY": "k",
    }


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def legitimate_rounds(url: str, seconds: float) -> list[float]:
    """Rounds of initialize + tools/list + a call, every 0.5 s; each round's time (inf: failed)."""
    from mcp import Client, MCPError
    from mcp.client.streamable_http import streamable_http_client

    times: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        try:
            with anyio.fail_after(5.0):
                async with httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {TOKEN}"}, timeout=5
                ) as http:
                    transport = streamable_http_client(url, http_client=http)
                    async with Client(transport, mode="legacy", read_timeout_seconds=5) as client:
                        await client.list_tools()
                        result = await client.call_tool("listPets", {})
                        assert not result.is_error
            times.append(time.monotonic() - started)
        except (httpx2.HTTPError, MCPError, TimeoutError, AssertionError, OSError, ExceptionGroup) as error:
            print(f"  legitimate round failed: {type(error).__name__}: {error}", file=sys.stderr)
            times.append(float("inf"))
        await asyncio.sleep(max(0.0, 0.5 - (time.monotonic() - started)))
    return times


# ---- the attacks: each runs in its own process, until `stop` is set ---------------------------


def heads(port: int, stop: Callable[[], bool], result: Any) -> None:
    async def attack() -> None:
        streams = [
            await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0)) for _ in range(200)
        ]
        opened, head = time.monotonic(), b"POST /mcp HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 10_000
        closed_at: dict[int, float] = {}
        step = 0
        while not stop() and len(closed_at) < len(streams):
            for index, (reader, writer) in enumerate(streams):
                if index in closed_at:
                    continue
                if reader.at_eof() or writer.is_closing():
                    closed_at[index] = time.monotonic() - opened
                    continue
                writer.write(head[step : step + 1])
                try:
                    await asyncio.wait_for(reader.read(1), 0.001)
                    closed_at[index] = time.monotonic() - opened
                except TimeoutError:
                    pass
                except OSError:
                    closed_at[index] = time.monotonic() - opened
            step += 1
            await asyncio.sleep(1.0)
        result["closed"] = len(closed_at)
        result["last_closed_s"] = max(closed_at.values(), default=float("inf"))

    asyncio.run(attack())


def idle(port: int, count: int, stop: Callable[[], bool], result: Any) -> None:
    async def attack() -> None:
        gate = asyncio.Semaphore(200)

        async def one() -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
            async with gate:
                try:
                    return await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))
                except OSError:
                    return None

        started = time.monotonic()
        streams = [s for s in await asyncio.gather(*(one() for _ in range(count))) if s is not None]
        me = os.getpid()  # two processes attack: their figures are added up (run_attack)
        result[f"connected#{me}"] = len(streams)
        result[f"connecting_s#{me}"] = time.monotonic() - started
        # a slot freed by the request timeout goes to a later connection: the last one to open is
        # closed REQUEST_TIMEOUT after it; then every one must be
        deadline = time.monotonic() + REQUEST_TIMEOUT + 3.0
        while time.monotonic() < deadline and not stop():
            await asyncio.sleep(0.5)
        reads = await asyncio.gather(*(_closed(reader) for reader, _ in streams))
        result[f"open_after_timeout#{me}"] = reads.count(False)
        for _, writer in streams:
            writer.close()

    asyncio.run(attack())


async def _closed(reader: asyncio.StreamReader) -> bool:
    try:
        return await asyncio.wait_for(reader.read(1), 0.5) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def sessions(url: str, stop: Callable[[], bool], result: Any) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "a", "version": "1"},
        },
    }
    headers = {"Authorization": f"Bearer {ATTACKER_TOKEN}", "Accept": "application/json, text/event-stream"}
    counts: dict[int, int] = {}
    lock = threading.Lock()

    def opener() -> None:
        with httpx2.Client(headers=headers, timeout=5) as http:
            while not stop():
                try:
                    status = http.post(url, json=initialize).status_code
                except httpx2.HTTPError:
                    status = 0
                with lock:
                    counts[status] = counts.get(status, 0) + 1

    threads = [threading.Thread(target=opener) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result.update({f"status_{status}": float(n) for status, n in counts.items()})


# ---- one attack beside the legitimate client -----------------------------------------------------


def run_attack(name: str, out: Path, upstream_port: int, seconds: float) -> dict[str, float]:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = [sys.executable, "-m", "bench", "--transport", "http", "--port", str(port), "--auth", "token"]
    manager = multiprocessing.Manager()
    stop_event, result = manager.Event(), manager.dict()
    with HttpServer(command, server_env(out, upstream_port), port) as server:
        assert server.process is not None
        pid, peak = server.process.pid, [0.0]
        sampling = threading.Event()

        def sample() -> None:
            while not sampling.is_set():
                peak[0] = max(peak[0], rss_mib(pid))
                time.sleep(0.25)

        sampler = threading.Thread(target=sample)
        sampler.start()
        attackers = _attackers(name, port, url, stop_event, result)
        for process in attackers:
            process.start()
        time.sleep(2.0)  # the attack in full
        times = asyncio.run(legitimate_rounds(url, seconds))
        stop_event.set()
        for process in attackers:
            process.join(timeout=REQUEST_TIMEOUT + 30)
            if process.is_alive():  # bounded: an attacker still busy is stopped
                process.terminate()
                process.join(timeout=5)
        sampling.set()
        sampler.join()
    figures_of_attackers = dict(result)
    manager.shutdown()
    finite = sorted(times)
    figures: dict[str, float] = {}
    for key, value in figures_of_attackers.items():  # "name#pid": one attacking process's share
        name = key.partition("#")[0]
        combine = max if name.endswith("_s") else sum  # a time: the longest; a count: the total
        figures[name] = combine((figures.get(name, 0.0), value))
    figures.update(rounds=len(times), failed=sum(t == float("inf") for t in times), rss_peak_mib=peak[0])
    figures.update(p50_s=statistics.median(finite), p99_s=finite[max(0, round(0.99 * len(finite)) - 1)])
    return figures


def _attackers(name: str, port: int, url: str, stop: Any, result: Any) -> list[multiprocessing.Process]:
    stopped = stop.is_set
    if name == "heads":
        return [multiprocessing.Process(target=heads, args=(port, stopped, result), daemon=True)]
    if name == "idle":
        return [
            multiprocessing.Process(target=idle, args=(port, 10_000, stopped, result), daemon=True)
            for _ in range(2)
        ]
    return [multiprocessing.Process(target=sessions, args=(url, stopped, result), daemon=True)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=30.0, help="the legitimate client's rounds, per attack"
    )
    parser.add_argument("--attacks", nargs="*", default=["heads", "idle", "sessions"])
    args = parser.parse_args(argv)
    missed = []
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        out = generated(Path(tmp))
        body = Path(tmp) / "body.json"
        body.write_bytes(b"[]")
        upstream = stack.enter_context(
            subprocess.Popen(
                [sys.executable, "-m", "benchmarks.upstream", str(body)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=REPO,
            )
        )
        assert upstream.stdout is not None
        upstream_port = int(upstream.stdout.readline())
        for name in args.attacks:
            figures = run_attack(name, out, upstream_port, args.seconds)
            print(f"{name}: " + ", ".join(f"{k} {v:.3g}" for k, v in sorted(figures.items())))
            if figures["p99_s"] > TARGET_P99 or figures["failed"] or figures["rss_peak_mib"] > TARGET_RSS_MIB:
                missed.append(name)
        assert upstream.stdin is not None
        upstream.stdin.close()
    if missed:
        print(f"targets missed under: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
