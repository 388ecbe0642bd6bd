"""Generated servers on streamable HTTP in the end-to-end tests: one started on 127.0.0.1, the
`mcp` client that reaches it (in either protocol era, with headers such as a bearer token), and
what a raw HTTP client posts to it by hand."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import mcp_support
import pytest
from e2e_support import (
    START_TIMEOUT,
    Background,
    Generated,
    accepts_connections,
    free_port,
    minimal_env,
    read_text,
    tail,
    wait_until,
)
from mcp_support import CALL_TIMEOUT, CLIENT_MODES, LEGACY_VERSION

# What a raw client's POST to the MCP endpoint sends besides its body.
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
# A raw client's JSON-RPC initialize request (the 2025-11-25 handshake), for tests that post it by hand.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "e2e", "version": "1"},
    },
}


def _serving_or_dead(process: Background, port: int) -> bool:
    return accepts_connections(port) or not process.alive()


@dataclass
class HttpServer:
    """A generated server on streamable HTTP at http://127.0.0.1:PORT/mcp."""

    package: Generated
    env: Mapping[str, str]
    log: Path
    port: int = 0
    args: Sequence[str] = ()  # more options after --transport http --host 127.0.0.1 --port PORT
    _process: Background | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def process(self) -> subprocess.Popen[bytes]:
        """The server's process (the leader of its process group)."""
        assert self._process is not None and self._process.process is not None, "not started"
        return self._process.process

    def start(self) -> HttpServer:
        for _attempt in range(3):
            self.port = free_port()
            self._process = Background(
                [
                    str(self.package.command),
                    "--transport",
                    "http",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    *self.args,
                ],
                self.log,
            )
            self._process.start(minimal_env(self.env))
            process = self._process
            wait_until(partial(_serving_or_dead, process, self.port), START_TIMEOUT)
            if process.alive() and accepts_connections(self.port):
                return self
            self.stop()
            if "address already in use" not in read_text(self.log).lower():
                break
        pytest.fail(f"{self.package.name} did not serve HTTP:\n{tail(self.log)}", pytrace=False)

    def stop(self) -> None:
        if self._process is not None:
            self._process.stop()


@asynccontextmanager
async def http_session(
    url: str, mode: str = "auto", headers: Mapping[str, str] | None = None
) -> AsyncIterator[Any]:
    """mcp.Client over streamable HTTP, sending `headers` (a bearer token, ...) with every request."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    timeout = mcp_support.CALL_TIMEOUT  # (read now, as stdio_session reads it)
    async with httpx2.AsyncClient(headers=dict(headers or {}), timeout=timeout) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, read_timeout_seconds=timeout) as client:
            yield client


def era_session(
    url: str, era: str, headers: Mapping[str, str] | None = None
) -> AbstractAsyncContextManager[Any]:
    """http_session in a protocol era of CLIENT_MODES ("legacy" or "modern"), sending `headers`."""
    return http_session(url, CLIENT_MODES[era][0], headers)


def post_initialize(url: str, headers: Mapping[str, str] | None = None) -> httpx2.Response:
    """A raw client's initialize request, with `headers` (an Authorization, ...) over ACCEPT."""
    return httpx2.post(url, json=INITIALIZE, headers={**ACCEPT, **(headers or {})}, timeout=CALL_TIMEOUT)
