"""A minimal MCP client over stdio (JSON-RPC lines on pipes), so the figures measure the server and not a
client library: spawn → first tools/list answered, tool-call latency, the server's memory.

Every read has a deadline (a hung server fails the benchmark instead of stalling it)."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PROTOCOL = "2025-11-25"
READ_TIMEOUT = 120.0


class ServerFailed(RuntimeError):
    """The server died, answered with an error, or did not answer in time."""


@dataclass(frozen=True)
class Started:
    seconds_to_list: float  # spawn → first tools/list answer read
    list_bytes: int  # the tools/list response line, as sent
    tools: list[dict[str, Any]]


class StdioServer:
    """One server process; use as a context manager (the process is always reaped)."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        self.command = list(command)
        self.env = dict(env) if env is not None else None
        self.process: subprocess.Popen[bytes] | None = None
        self._next_id = 0
        self._buffer = b""
        self._selector = selectors.DefaultSelector()

    def __enter__(self) -> StdioServer:
        self.spawned_at = time.perf_counter()
        self.process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.env,
        )
        assert self.process.stdout is not None
        os.set_blocking(self.process.stdout.fileno(), False)
        self._selector.register(self.process.stdout, selectors.EVENT_READ)
        return self

    def __exit__(self, *exc: object) -> None:
        process = self.process
        if process is None:
            return
        self._selector.close()
        close_and_reap(process, 5)
        if process.stdout:
            process.stdout.close()

    # ---- protocol ---------------------------------------------------------------------------

    def start(self) -> Started:
        """initialize, notifications/initialized, tools/list; timed from spawn."""
        self.request("initialize", self.initialize_params())
        self.notify("notifications/initialized")
        line = self.request_line("tools/list", {})
        seconds = time.perf_counter() - self.spawned_at
        tools = _result(line)["tools"]
        return Started(seconds, len(line), tools)

    @staticmethod
    def initialize_params() -> dict[str, Any]:
        return {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "openapi2mcp-bench", "version": "1"},
        }

    def request(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        return _result(self.request_line(method, params))

    def request_line(self, method: str, params: Mapping[str, Any]) -> bytes:
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._read_line()

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def call_seconds(self, name: str, arguments: Mapping[str, Any], count: int) -> list[float]:
        """`count` tools/call round trips, each timed; an isError result fails the benchmark."""
        times = []
        for _ in range(count):
            began = time.perf_counter()
            line = self.request_line("tools/call", {"name": name, "arguments": arguments})
            times.append(time.perf_counter() - began)
            if b'"isError":true' in line:
                raise ServerFailed(f"tool {name} answered an error: {line[:400]!r}")
        return times

    def rss_kib(self) -> tuple[int, int]:
        """The server's resident memory now and at its peak (VmRSS, VmHWM), in KiB."""
        assert self.process is not None
        return proc_rss_kib(self.process.pid)

    # ---- pipes ------------------------------------------------------------------------------

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def _read_line(self) -> bytes:
        """The next response line (notifications and logs from the server are skipped)."""
        deadline = time.monotonic() + READ_TIMEOUT
        while True:
            line = self._take_line(deadline)
            if line.startswith(b"{") and b'"id"' in line:
                return line

    def _take_line(self, deadline: float) -> bytes:
        assert self.process is not None and self.process.stdout is not None
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                raise ServerFailed(f"{self.command[0]}: no answer within {READ_TIMEOUT:g} s")
            chunk = self.process.stdout.read(1 << 20)
            if not chunk:
                raise ServerFailed(f"{self.command[0]} exited (code {self.process.poll()})")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line


def proc_rss_kib(pid: int) -> tuple[int, int]:
    """A process's resident memory now and at its peak (VmRSS, VmHWM), in KiB (/proc/PID/status)."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def close_and_reap(process: subprocess.Popen[bytes], timeout: float) -> None:
    """Close the process's stdin (its signal to stop), wait up to `timeout` s, else kill it; always reaped."""
    if process.stdin:
        process.stdin.close()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _result(line: bytes) -> dict[str, Any]:
    message = json.loads(line)
    if "error" in message:
        raise ServerFailed(f"error answer: {str(message['error'])[:400]}")
    result: dict[str, Any] = message["result"]
    return result
