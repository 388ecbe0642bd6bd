"""Soak (issue 16): `--sessions` concurrent streamable-HTTP MCP sessions against the generated petstore
server (generated/petstore), for `--minutes`, with a flaky upstream: 5 % of its answers are faults
(half 503s, half connections reset before the answer) on idempotent GETs, which the server retries.

Each call is showPetById with a unique petId that the upstream echoes back as the pet's id: an answer
whose id is not its own is mixed up; a call without an answer (transport error, JSON-RPC error) is
lost. The server's RSS is sampled every 10 s. Prints a markdown table; exits 1 on any lost or mixed-up
answer. Run: `.venv/bin/python -m benchmarks.soak --minutes 1 --sessions 50`."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .http_load import READ_TIMEOUT, HttpServer, McpSession, free_port, generated_server_arguments
from .stdio_client import ServerFailed

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "generated" / "petstore"
FAULT_RATE = 0.05
RSS_EVERY = 10.0  # seconds between RSS samples


@dataclass
class Tally:
    calls: int = 0
    ok: int = 0
    failed: int = 0  # isError after the server's retries (an answer, its own, saying it failed)
    lost: int = 0  # no answer: transport or JSON-RPC error
    mixed: int = 0  # an answer carrying another call's value
    upstream_requests: int = 0
    upstream_faults: int = 0
    rss_mib: list[float] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)

    def note(self, what: str) -> None:
        if len(self.examples) < 5:
            self.examples.append(what[:300])


async def flaky_upstream(tally: Tally, fault_rate: float) -> asyncio.Server:
    """GET /pets/{id} → {"id": id}; a `fault_rate` share of requests get a 503 or a reset."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                tally.upstream_requests += 1
                pet = head.split(b" ", 2)[1].rsplit(b"/", 1)[-1].decode()
                roll = random.random()
                if roll < fault_rate / 2:
                    tally.upstream_faults += 1
                    writer.transport.abort()  # reset: no answer at all
                    return
                if roll < fault_rate:
                    tally.upstream_faults += 1
                    body, status = b'{"error": "busy"}', b"503 Service Unavailable"
                else:
                    body, status = json.dumps({"id": pet, "name": "soak"}).encode(), b"200 OK"
                writer.write(
                    b"HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                    % (status, len(body), body)
                )
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # a cancelled handler: the benchmark is over
        finally:
            writer.close()

    return await asyncio.start_server(serve, "127.0.0.1", 0)


async def one_session(session: McpSession, index: int, until: float, tally: Tally) -> None:
    await session.open()
    sequence = 0
    while time.monotonic() < until:
        sequence += 1
        pet = f"s{index}-{sequence}-{random.randrange(10**9)}"
        params = json.dumps({"name": "showPetById", "arguments": {"petId": pet}}).encode()
        tally.calls += 1
        try:
            reply = await session.exchange(b"POST", session._request(b"tools/call", params))
            message = reply.message()
        except (OSError, EOFError, TimeoutError, ValueError, asyncio.IncompleteReadError) as error:
            tally.lost += 1
            tally.note(f"lost: {type(error).__name__}: {error}")
            await session.close()
            await session.open()
            continue
        result = message.get("result")
        if not isinstance(result, dict):
            tally.lost += 1
            tally.note(f"lost: {json.dumps(message)[:200]}")
        elif result.get("isError"):
            tally.failed += 1
            tally.note(f"failed: {json.dumps(result)[:200]}")
        elif (result.get("structuredContent") or {}).get("id") != pet:
            tally.mixed += 1
            tally.note(f"mixed: asked {pet}, got {json.dumps(result)[:200]}")
        else:
            tally.ok += 1
    await session.close()


async def sample_rss(server: HttpServer, until: float, tally: Tally) -> None:
    while time.monotonic() < until:
        tally.rss_mib.append(server.rss_kib()[0] / 1024)
        await asyncio.sleep(min(RSS_EVERY, max(0.0, until - time.monotonic())))
    tally.rss_mib.append(server.rss_kib()[0] / 1024)


async def soak(minutes: float, sessions: int, fault_rate: float) -> tuple[Tally, float]:
    tally = Tally()
    upstream = await flaky_upstream(tally, fault_rate)
    port, upstream_port = free_port(), upstream.sockets[0].getsockname()[1]
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(PACKAGE_ROOT),
        "PETSTORE_BASE_URL": f"http://127.0.0.1:{upstream_port}",
        "PETSTORE_MODE": "static",
        "PETSTORE_API_KEY_KEY": "soak-key",
    }
    command = [sys.executable, "-m", "petstore", *generated_server_arguments(port)]
    began = time.monotonic()
    with HttpServer(command, env, port) as server:
        until = time.monotonic() + minutes * 60
        clients = [McpSession("127.0.0.1", port) for _ in range(sessions)]
        try:
            await asyncio.gather(
                sample_rss(server, until, tally),
                *(one_session(c, i, until, tally) for i, c in enumerate(clients)),
            )
        except ServerFailed as error:
            raise ServerFailed(f"{error}\nserver stderr: {server.stderr()}") from None
    upstream.close()
    return tally, time.monotonic() - began


def table(tally: Tally, seconds: float, minutes: float, sessions: int) -> str:
    rss = tally.rss_mib or [0.0]
    first_quarter = rss[: max(1, len(rss) // 4)]
    rows = [
        ("sessions", f"{sessions}"),
        ("minutes", f"{minutes:g} (wall {seconds:.0f} s)"),
        ("tools/call answered", f"{tally.calls - tally.lost:,} of {tally.calls:,}"),
        ("calls per second", f"{tally.calls / max(seconds, 1e-9):,.0f}"),
        ("upstream requests / faults", f"{tally.upstream_requests:,} / {tally.upstream_faults:,}"),
        ("ok", f"{tally.ok:,}"),
        ("isError after retries", f"{tally.failed:,}"),
        ("lost answers", f"{tally.lost:,}"),
        ("mixed-up answers", f"{tally.mixed:,}"),
        (
            "server RSS MiB: first / max of first quarter / last",
            f"{rss[0]:.1f} / {max(first_quarter):.1f} / {rss[-1]:.1f}",
        ),
        ("server RSS MiB: max", f"{max(rss):.1f} ({len(rss)} samples)"),
        ("server RSS MiB, every 10 s", " ".join(f"{mib:.0f}" for mib in rss)),
    ]
    lines = ["| figure | value |", "|---|---|", *(f"| {name} | {value} |" for name, value in rows)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--fault-rate", type=float, default=FAULT_RATE)
    args = parser.parse_args(argv)
    assert READ_TIMEOUT > 30  # the server's own timeout (30 s) answers first
    tally, seconds = asyncio.run(soak(args.minutes, args.sessions, args.fault_rate))
    print(table(tally, seconds, args.minutes, args.sessions))
    for example in tally.examples:
        print(f"- {example}")
    return 1 if tally.lost or tally.mixed or not tally.ok else 0


if __name__ == "__main__":
    sys.exit(main())
