"""Issue 15, results an agent can read, end to end: the generated petstore server over streamable
HTTP against a streaming upstream on 127.0.0.1 that answers listPets with a huge JSON list (110 MB
plain, or a gzip bomb of 1 GiB). The call is a trimmed success naming the paging argument, and the
server's peak memory (VmHWM) grows by a few MiB only."""

from __future__ import annotations

import json
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from e2e_support import Generated, dump
from http_support import HttpServer, http_session
from mcp_support import run_async

pytestmark = pytest.mark.e2e

ITEMS_PER_CHUNK = 10_000
CHUNK = ("".join(f'{{"id":"{i}","name":"pet {i}","tag":"dog"}},' for i in range(ITEMS_PER_CHUNK))).encode()
PLAIN_BYTES = 110_000_000
BOMB_BYTES = 2**30
GROWTH_LIMIT_KIB = 16 * 1024  # over the peak after a first small call (about 72 MiB here); the
# huge answer costs about 6.5 MiB (a plain 0.9 MB answer that needs no cut: about 13 MiB)
KEY = "openapi2mcp/trimmed"


def _body(total: int) -> Iterator[bytes]:
    """`[` + items + `]`: about `total` bytes of a valid JSON list, made as it is sent."""
    yield b"["
    sent = 1
    while sent + len(CHUNK) < total:
        yield CHUNK
        sent += len(CHUNK)
    yield b'{"id":"last"}]'


def _gzipped(chunks: Iterator[bytes]) -> Iterator[bytes]:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    for chunk in chunks:
        if data := compressor.compress(chunk):
            yield data
    yield compressor.flush()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        bomb = self.path.startswith("/bomb")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if "limit=1&" in self.path + "&":  # a small answer: the server's memory before the big one
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"[]")
            return
        if bomb:
            self.send_header("Content-Encoding", "gzip")  # no length: the body ends at close
        else:
            self.send_header("Content-Length", str(sum(map(len, _body(PLAIN_BYTES)))))
        self.end_headers()
        chunks = _gzipped(_body(BOMB_BYTES)) if bomb else _body(PLAIN_BYTES)
        try:
            for chunk in chunks:
                self.wfile.write(chunk)
        except OSError:  # the server stopped reading past its cap: expected
            pass

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def huge_upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def _peak_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1])


@pytest.mark.parametrize("path", ["", "/bomb"])
def test_a_huge_list_is_a_trimmed_success_in_bounded_memory(
    petstore: Generated, huge_upstream: str, tmp_path: Path, path: str
) -> None:
    env = petstore.env(huge_upstream + path, API_KEY_KEY="k" * 12, TIMEOUT="60")
    server = HttpServer(petstore, env, tmp_path / "server.log").start()
    try:
        assert server._process is not None and server._process.process is not None
        pid = server._process.process.pid

        async def body() -> tuple[Any, int]:
            async with http_session(server.url) as client:
                assert (await client.call_tool("listPets", {"limit": 1})).structured_content == {"result": []}
                before = _peak_kib(pid)
                return await client.call_tool("listPets", {"limit": 5}), before

        result, before = run_async(body, timeout=120)
        peak = _peak_kib(pid)
    finally:
        server.stop()
    assert not result.is_error, dump(result.model_dump())
    pets = result.structured_content["result"]
    assert pets == [{"id": str(i), "name": f"pet {i}", "tag": "dog"} for i in range(len(pets))]
    assert 2_000 < len(pets) < 2_500  # 1,000,000 bytes read, trimmed to 99,000 characters
    json_block, note = (block.text for block in result.content)
    assert json.loads(json_block) == result.structured_content
    assert "The API answered successfully, but its response was too long:" in note
    assert "(PETSTORE_MAX_RESPONSE_BYTES=1000000)" in note
    assert "page with this tool's arguments limit." in note, note
    trimmed = result.meta[KEY]
    assert trimmed["arrays"] == [{"path": "$.result", "kept": len(pets), "total": None}]
    assert trimmed["paging"] == ["limit"]
    # read: the cap; counted and dropped: 64 MiB more, then the connection is closed
    assert trimmed["responseCut"]["atLeast"] is True
    assert trimmed["responseCut"]["omittedBytes"] > 64 * 2**20
    growth = f"server peak memory {before / 1024:.1f} MiB, then {peak / 1024:.1f} MiB"
    assert peak - before < GROWTH_LIMIT_KIB, growth
