"""Load over streamable HTTP: `clients` concurrent MCP sessions calling one tool until `calls` calls are done,
with the server's memory before and after (issue 14: ≥ 600 calls/s with 10 clients, no errors, memory flat).

The client is raw HTTP/1.1 over asyncio streams, one keep-alive connection per session, so that on a small
machine it costs little next to the server; its own CPU time is reported to show whether it is the bottleneck.
Every read has a deadline and the server process is always reaped."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from .stdio_client import PROTOCOL, ServerFailed, StdioServer, close_and_reap, proc_rss_kib

READ_TIMEOUT = 60.0  # seconds for one HTTP exchange
START_TIMEOUT = 60.0  # seconds for the server to accept connections
STOP_TIMEOUT = 10.0  # seconds for a graceful stop before SIGKILL
MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_CONSECUTIVE_ERRORS = 20  # a session failing this often in a row means the server is broken
MCP_PATH = "/mcp"


@dataclass(frozen=True)
class HttpFigures:
    clients: int
    calls: int
    errors: int  # transport errors + JSON-RPC errors + isError results, warm-up included
    calls_per_second: float  # over the measured phase (after a warm-up)
    rss_mib_after_warmup: float
    rss_mib_at_end: float  # memory flat = small growth between these two
    peak_mib: float
    seconds: float  # wall time of the measured phase
    client_cpu_seconds: float  # this process (the client) during the measured phase
    server_cpu_seconds: float  # the server process during the measured phase


def generated_server_arguments(port: int) -> list[str]:
    """How a generated server is told to serve streamable HTTP on `port`."""
    return ["--transport", "http", "--host", "127.0.0.1", "--port", str(port)]


def measure_http(
    command: Sequence[str],
    env: Mapping[str, str],
    tool: str,
    arguments: Mapping[str, Any],
    clients: int = 10,
    calls: int = 10_000,
    warmup: int = 1_000,
    listen_arguments: Callable[[int], Sequence[str]] = generated_server_arguments,
) -> HttpFigures:
    """Start the server (`command` + `listen_arguments(P)`, P a free port), wait until it answers, run
    `clients` concurrent MCP sessions (each: initialize → notifications/initialized → tools/call repeatedly):
    `warmup` calls in total, then `calls` measured calls in total; sample the server's RSS
    (/proc/PID/status) after each phase; stop and reap the server."""
    port = free_port()
    with HttpServer([*command, *listen_arguments(port)], env, port) as server:
        try:
            return asyncio.run(_drive(server, tool, arguments, clients, calls, warmup))
        except ServerFailed as error:
            raise ServerFailed(f"{error}\nserver stderr: {server.stderr()}") from None


async def _drive(
    server: HttpServer, tool: str, arguments: Mapping[str, Any], clients: int, calls: int, warmup: int
) -> HttpFigures:
    sessions = [McpSession("127.0.0.1", server.port) for _ in range(clients)]
    try:
        await asyncio.gather(*(session.open() for session in sessions))
        params = json.dumps({"name": tool, "arguments": arguments}, separators=(",", ":")).encode()
        warmup_errors = await _run_calls(sessions, params, warmup)
        rss_after_warmup, _ = server.rss_kib()
        server_cpu, client_cpu, began = server.cpu_seconds(), _own_cpu_seconds(), time.perf_counter()
        errors = warmup_errors + await _run_calls(sessions, params, calls)
        seconds = time.perf_counter() - began
        client_cpu, server_cpu = _own_cpu_seconds() - client_cpu, server.cpu_seconds() - server_cpu
        rss_at_end, peak = server.rss_kib()
    finally:
        await asyncio.gather(*(session.close() for session in sessions))
    return HttpFigures(
        clients=clients,
        calls=calls,
        errors=errors,
        calls_per_second=calls / seconds if seconds > 0 else 0.0,
        rss_mib_after_warmup=rss_after_warmup / 1024,
        rss_mib_at_end=rss_at_end / 1024,
        peak_mib=peak / 1024,
        seconds=seconds,
        client_cpu_seconds=client_cpu,
        server_cpu_seconds=server_cpu,
    )


async def _run_calls(sessions: Sequence[McpSession], params: bytes, total: int) -> int:
    """`total` tools/call requests shared by the sessions, each session one at a time; the error count."""
    left = [total]

    async def one_session(session: McpSession) -> int:
        errors = consecutive = 0
        while left[0] > 0:
            left[0] -= 1
            if await session.call(params):
                consecutive = 0
                continue
            errors += 1
            consecutive += 1
            if consecutive >= MAX_CONSECUTIVE_ERRORS:
                raise ServerFailed(f"{consecutive} calls failed in a row; last: {session.last_error}")
        return errors

    return sum(await asyncio.gather(*(one_session(session) for session in sessions)))


def _own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# ---- the server process -------------------------------------------------------------------------


def free_port() -> int:
    """A port that was free a moment ago (bind to port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HttpServer:
    """One server process listening on 127.0.0.1:`port`; use as a context manager (always reaped)."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str], port: int) -> None:
        self.command = list(command)
        self.env = dict(env)
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None

    def __enter__(self) -> HttpServer:
        self._stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            self.command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            env=self.env,
        )
        try:
            self._wait_until_listening()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        process, self.process = self.process, None
        if process is not None:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            close_and_reap(process, STOP_TIMEOUT)  # its stdin is /dev/null: SIGTERM is its signal
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _wait_until_listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise ServerFailed(
                    f"{self.command[0]} exited (code {self.process.returncode}): {self.stderr()}"
                )
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1.0).close()
                return
            except OSError:
                time.sleep(0.05)
        raise ServerFailed(f"{self.command[0]}: not listening after {START_TIMEOUT:g} s: {self.stderr()}")

    def stderr(self, limit: int = 2000) -> str:
        """The end of what the server wrote to stderr."""
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-limit:]

    def rss_kib(self) -> tuple[int, int]:
        """The server's resident memory now and at its peak (VmRSS, VmHWM), in KiB."""
        assert self.process is not None
        return proc_rss_kib(self.process.pid)

    def cpu_seconds(self) -> float:
        """User + system CPU time the server has used so far (/proc/PID/stat)."""
        assert self.process is not None
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ---- the client ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[bytes, bytes]  # names lower-cased
    body: bytes

    def message(self) -> dict[str, Any]:
        """The JSON-RPC response in a JSON body or in the `data:` lines of an SSE stream."""
        if not self.headers.get(b"content-type", b"").startswith(b"text/event-stream"):
            answer: dict[str, Any] = json.loads(self.body)
            return answer
        for line in self.body.splitlines():
            if line.startswith(b"data:") and line[5:].strip():
                event = json.loads(line[5:])
                if isinstance(event, dict) and "id" in event:
                    return event
        raise ValueError(f"no JSON-RPC response in the SSE stream: {self.body[:200]!r}")


class McpSession:
    """One MCP session over one keep-alive HTTP/1.1 connection (reopened if the server drops it)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.session_id: bytes | None = None
        self.last_error = ""
        self._next_id = 0
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        """initialize → notifications/initialized; failures raise (they are not load figures).
        A stateless server gives no session ID: later requests then carry none."""
        params = json.dumps(StdioServer.initialize_params()).encode()
        reply = await self.exchange(b"POST", self._request(b"initialize", params))
        self.session_id = reply.headers.get(b"mcp-session-id")
        if reply.status != 200 or "result" not in reply.message():
            raise ServerFailed(f"initialize: HTTP {reply.status}: {reply.body[:400]!r}")
        reply = await self.exchange(b"POST", b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        if reply.status != 202:
            raise ServerFailed(f"notifications/initialized: HTTP {reply.status}: {reply.body[:400]!r}")

    async def call(self, params: bytes) -> bool:
        """One tools/call; False (and `last_error` set) on a transport error, JSON-RPC error or isError."""
        try:
            reply = await self.exchange(b"POST", self._request(b"tools/call", params))
            message = reply.message() if reply.status == 200 else None
        except (OSError, EOFError, TimeoutError, ValueError, asyncio.IncompleteReadError) as error:
            await self._disconnect()
            self.last_error = f"{type(error).__name__}: {error}"
            return False
        if message is None:
            self.last_error = f"HTTP {reply.status}: {reply.body[:400]!r}"
            return False
        result = message.get("result")
        if not isinstance(result, dict) or result.get("isError"):
            self.last_error = json.dumps(message)[:400]
            return False
        return True

    async def close(self) -> None:
        """End the session (DELETE) and the connection; errors here are of no interest."""
        with contextlib.suppress(OSError, EOFError, TimeoutError, ValueError, asyncio.IncompleteReadError):
            if self.session_id is not None and self._writer is not None:
                await self.exchange(b"DELETE", b"")
        await self._disconnect()

    def _request(self, method: bytes, params: bytes) -> bytes:
        self._next_id += 1
        return b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}' % (self._next_id, method, params)

    async def exchange(self, verb: bytes, body: bytes) -> Reply:
        """One HTTP request and its whole response, within READ_TIMEOUT."""
        async with asyncio.timeout(READ_TIMEOUT):
            if self._writer is None:
                self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
            assert self._reader is not None
            self._writer.write(self._head(verb, len(body)) + body)
            reply = await _read_reply(self._reader)
        if reply.headers.get(b"connection", b"").lower() == b"close":
            await self._disconnect()
        return reply

    def _head(self, verb: bytes, length: int) -> bytes:
        session = b"Mcp-Session-Id: %s\r\n" % self.session_id if self.session_id else b""
        return (
            b"%s %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: %s\r\n%s"
            b"Content-Length: %d\r\n\r\n"
        ) % (verb, MCP_PATH.encode(), self.host.encode(), self.port, PROTOCOL.encode(), session, length)

    async def _disconnect(self) -> None:
        writer, self._writer, self._reader = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(writer.wait_closed(), STOP_TIMEOUT)


async def _read_reply(reader: asyncio.StreamReader) -> Reply:
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, *header_lines = head[:-4].split(b"\r\n")
    status = int(status_line.split(b" ", 2)[1])
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        return Reply(status, headers, await _read_chunked(reader))
    length = int(headers.get(b"content-length", b"0"))
    if length > MAX_BODY_BYTES:
        raise ValueError(f"response body of {length} bytes")
    return Reply(status, headers, await reader.readexactly(length) if length else b"")


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    """A chunked body; each chunk holds at least one byte, so the size cap bounds the loop."""
    chunks: list[bytes] = []
    size_so_far = 0
    while True:
        size = int((await reader.readline()).split(b";")[0].strip(), 16)
        if size == 0:
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):  # trailers, bounded by the timeout
                pass
            return b"".join(chunks)
        size_so_far += size
        if size_so_far > MAX_BODY_BYTES:
            raise ValueError(f"chunked response body over {MAX_BODY_BYTES} bytes")
        chunks.append((await reader.readexactly(size + 2))[:-2])
