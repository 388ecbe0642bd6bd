"""The runtime's sending path on httpx2 (openapi2mcp_runtime/upstream/http_exchange.py): one
httpx2.AsyncClient made from `client_options`, the body decoded in bounded pieces and capped,
httpx2's errors mapped to short messages. Real sockets on 127.0.0.1: the recording upstream of the
end-to-end tests, and a scripted asyncio server for framing, pooling and failures. TLS, proxies,
the environment and the client hook: test_http_client_env.py (which imports the helpers below)."""

from __future__ import annotations

import asyncio
import base64
import gzip
import socket
import ssl
import struct
import tracemalloc
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
import pytest

from openapi2mcp_runtime.upstream import http_exchange as hc

from .conftest import closed_port

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


CAP, DRAIN = 1_000_000, 64 * 1024 * 1024
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def new_client(**changes: Any) -> httpx2.AsyncClient:
    """The runtime's client: httpx2.AsyncClient(**client_options(...)), with `changes` applied."""
    return httpx2.AsyncClient(**{**hc.client_options(True), **changes})


@pytest.fixture
async def client() -> AsyncIterator[httpx2.AsyncClient]:
    async with new_client() as http:
        yield http


async def get(http: Any, url: str, method: str = "GET", body: bytes | None = None, **kw: Any) -> Any:
    limits = {"cap": CAP, "drain_limit": DRAIN, **kw}
    headers = limits.pop("headers", [(b"User-Agent", b"t/1")])
    with anyio.fail_after(10):
        return await hc.exchange(http, method, url, headers, body, **limits)


# ---- a scripted server -------------------------------------------------------------------------


@dataclass
class Step:
    """What the server does with one request: send `data` (None: hang up without answering), then
    keep the connection open or not; `delay` seconds first; `reset` hangs up with a TCP RST."""

    data: bytes | None = OK
    close: bool = False
    delay: float = 0.0
    reset: bool = False


@dataclass
class Script:
    steps: list[Step]
    port: int = 0
    heads: list[bytes] = field(default_factory=list)
    connections: int = 0
    active: int = 0
    peak: int = 0
    writers: list[asyncio.StreamWriter] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.active += 1
        self.peak = max(self.peak, self.active)
        self.writers.append(writer)
        try:
            while True:
                try:
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
                    self.heads.append(head)
                    for line in head.lower().split(b"\r\n"):
                        if line.startswith(b"content-length:"):
                            await asyncio.wait_for(reader.readexactly(int(line.split(b":")[1])), 10)
                except (asyncio.IncompleteReadError, ConnectionError, TimeoutError):
                    return
                step = self.steps.pop(0) if self.steps else Step()
                await asyncio.sleep(step.delay)
                if step.reset:
                    sock = writer.get_extra_info("socket")
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                if step.data is not None:
                    writer.write(step.data)
                    try:
                        await writer.drain()
                    except ConnectionError:
                        return
                if step.data is None or step.close or step.reset:
                    return
        finally:
            self.active -= 1
            writer.close()


@asynccontextmanager
async def scripted(*steps: Step, ssl_context: ssl.SSLContext | None = None) -> AsyncIterator[Script]:
    script = Script(list(steps))
    server = await asyncio.start_server(script.serve, "127.0.0.1", 0, ssl=ssl_context)
    script.port = server.sockets[0].getsockname()[1]
    try:
        yield script
    finally:
        server.close()
        for writer in script.writers:
            writer.close()
        await asyncio.wait_for(server.wait_closed(), 5)


# ---- what is sent ------------------------------------------------------------------------------


async def test_the_url_is_sent_byte_for_byte(client: Any, recording: Any) -> None:
    path = "/a/%2E%2E/x%2Fy?filter[s]=open&p=a|b&r=:/?@!$'()*+,;=&s=a%20b"
    for url in (recording.url + path, recording.url, recording.url + "?q=1#fragment"):
        await get(client, url)
    await get(client, recording.url + "/é ?q=ü")  # only what cannot be sent is encoded
    assert [r.target for r in recording.requests] == [path, "/", "/?q=1", "/%C3%A9%20?q=%C3%BC"]


async def test_the_request_headers_are_the_callers_and_the_clients_defaults(
    client: Any, recording: Any
) -> None:
    headers = [(b"User-Agent", b"t-mcp/1"), (b"Accept", b"application/json, */*;q=0.8")]
    headers += [(b"X-Dup", b"1"), (b"x-dup", b"2"), (b"Content-Type", b"application/json")]
    await get(client, recording.url + "/p?q=1", "POST", b'{"x": 1}', headers=headers)
    await get(client, recording.url + "/p", "PUT", None, headers=[])
    first, second = recording.requests
    assert sorted((name.lower(), value) for name, value in first.headers) == [
        ("accept", "application/json, */*;q=0.8"),
        ("accept-encoding", "gzip, deflate"),
        ("connection", "keep-alive"),
        ("content-length", "8"),
        ("content-type", "application/json"),
        ("host", f"127.0.0.1:{recording.port}"),
        ("user-agent", "t-mcp/1"),
        ("x-dup", "1"),
        ("x-dup", "2"),
    ]
    assert first.all("X-Dup") == ["1", "2"]
    assert first.body == b'{"x": 1}' and second.header("Content-Length") == "0"


async def test_userinfo_is_basic_auth_unless_an_authorization_header_is_given(
    client: Any, recording: Any
) -> None:
    url = recording.url.replace("http://", "http://us%40er:p%C3%A4ss@") + "/x"
    await get(client, url, headers=[(b"authorization", b"Bearer t")])
    await get(client, url, headers=[])
    assert recording.requests[0].all("Authorization") == ["Bearer t"]
    basic = base64.b64encode("us@er:päss".encode()).decode()
    assert recording.requests[1].all("Authorization") == [f"Basic {basic}"]


async def test_a_set_cookie_is_never_sent_back(client: Any, recording: Any) -> None:
    reply = recording_reply(headers=(("Set-Cookie", "session=abc; Path=/"),))
    recording.routes["/login"] = reply
    await get(client, recording.url + "/login")
    await get(client, recording.url + "/next")
    assert [r.header("Cookie") for r in recording.requests] == [None, None]


def recording_reply(**fields: Any) -> Any:
    from .conftest import recording_module

    return recording_module().Reply(**fields)


# ---- answers -----------------------------------------------------------------------------------


async def test_content_length_chunked_and_read_until_close_bodies(client: Any) -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\nx-a: 2\r\n\r\n"
        b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    )
    until_close = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it"
    async with scripted(Step(OK), Step(chunked), Step(until_close, close=True)) as script:
        answers = [await get(client, script.url) for _ in range(3)]
    assert [a.kept for a in answers] == [b"ok", b"abcde", b"all of it"]
    assert [a.total for a in answers] == [2, 5, 9] and not any(a.cut_short for a in answers)
    assert (answers[1].status, answers[1].reason, answers[1].headers.get("x-a")) == (200, "OK", "1, 2")
    assert script.connections == 1


async def test_1xx_is_skipped_and_head_204_304_have_no_body(client: Any) -> None:
    early = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + OK
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n"
    no_content, not_modified = b"HTTP/1.1 204 No Content\r\n\r\n", b"HTTP/1.1 304 Not Modified\r\n\r\n"
    async with scripted(Step(early), Step(head), Step(no_content), Step(not_modified), Step(OK)) as script:
        answers = [await get(client, script.url, method) for method in ("POST", "HEAD", "GET", "GET", "GET")]
    assert [(a.status, a.kept) for a in answers] == [
        (200, b"ok"),
        (200, b""),
        (204, b""),
        (304, b""),
        (200, b"ok"),
    ]
    assert answers[1].headers["content-length"] == "500" and script.connections == 1


def _encoded(coding: str, data: bytes) -> bytes:
    if coding == "gzip":
        return gzip.compress(data)
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS if coding == "raw" else zlib.MAX_WBITS)
    return raw.compress(data) + raw.flush()


def _answer(body: bytes, *headers: str) -> bytes:
    lines = "".join(f"{h}\r\n" for h in headers)
    return f"HTTP/1.1 200 OK\r\n{lines}Content-Length: {len(body)}\r\n\r\n".encode() + body


async def test_gzip_and_deflate_are_decoded_and_the_cap_counts_decoded_bytes(client: Any) -> None:
    data = b"0123456789" * 10_000
    both = _encoded("gzip", _encoded("deflate", data))
    steps = [
        Step(_answer(_encoded(c, data), f"Content-Encoding: {c.replace('raw', 'deflate')}"))
        for c in ("gzip", "deflate", "raw")
    ]
    steps += [
        Step(_answer(both, "Content-Encoding: deflate", "Content-Encoding: gzip")),
        Step(_answer(data, "Content-Encoding: x-unknown")),  # passed on as it is
    ]
    async with scripted(*steps) as script:
        answers = [await get(client, script.url) for _ in range(4)]
        small = await get(client, script.url, cap=7)
    assert all((a.kept, a.total, a.cut_short) == (data, len(data), False) for a in answers)
    assert (small.kept, small.total, small.cut_short) == (data[:7], len(data), False)
    assert script.connections == 1


async def test_past_cap_plus_drain_limit_the_answer_is_cut_and_its_connection_closed(client: Any) -> None:
    bomb = _encoded("gzip", bytes(50_000_000))
    async with scripted(
        Step(_answer(bomb, "Content-Encoding: gzip")), Step(_answer(bytes(10_000))), Step(OK)
    ) as script:
        inflated = await get(client, script.url, cap=100, drain_limit=1000)
        plain = await get(client, script.url, cap=100, drain_limit=1000)
        assert (await get(client, script.url)).kept == b"ok"
    for answer in (inflated, plain):  # httpx2 decodes in pieces of at most 1 MiB
        assert answer.cut_short and answer.kept == bytes(100) and 1100 < answer.total <= 1100 + 2**20
    assert script.connections == 3


async def test_a_gzip_bomb_is_decoded_in_bounded_pieces(client: Any) -> None:
    """200 MB of zeros in 200 KB of gzip, with the runtime's default cap and drain limit: cut after
    65 MB counted, while the memory taken stays a few MB (httpx2 decodes in pieces of at most 1 MiB,
    never a whole chunk it read at once)."""
    bomb = _encoded("gzip", bytes(200_000_000))
    async with scripted(Step(_answer(bomb, "Content-Encoding: gzip"))) as script:
        tracemalloc.start()
        try:
            answer = await get(client, script.url)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert answer.cut_short and answer.kept == bytes(CAP) and answer.total > CAP + DRAIN
    assert peak < 8_000_000, f"{peak:,} bytes at the peak"


# ---- the pool ----------------------------------------------------------------------------------


async def test_connections_are_reused_unless_the_server_said_close(client: Any) -> None:
    closing = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
    async with scripted(Step(), Step(), Step(closing), Step()) as script:
        for _ in range(4):
            assert (await get(client, script.url)).kept == b"ok"
        assert script.connections == 2


async def test_a_request_that_says_close_does_not_leave_its_connection_for_reuse(client: Any) -> None:
    async with scripted(Step(), Step()) as script:
        await get(client, script.url, headers=[(b"User-Agent", b"t/1"), (b"Connection", b"close")])
        assert (await get(client, script.url)).kept == b"ok"
        assert script.connections == 2


async def test_an_idle_connection_the_server_closed_is_not_used(client: Any) -> None:
    async with scripted(Step(close=True), Step()) as script:
        await get(client, script.url)
        await asyncio.sleep(0.05)  # the EOF arrives while the connection is idle
        assert (await get(client, script.url)).kept == b"ok"
        assert (len(script.heads), script.connections) == (2, 2)


async def test_a_reused_connection_that_ends_without_answering_is_reported_not_retried(
    client: Any,
) -> None:
    """The built-in client retried such a request once; httpx2 does not (a POST may have been
    processed): it is a broken connection, and the pool stays usable."""
    async with scripted(Step(), Step(None), Step()) as script:
        await get(client, script.url, "POST", b"x")
        with pytest.raises(hc.Broken, match="RemoteProtocolError: Server disconnected"):
            await get(client, script.url, "POST", b"y")
        assert (await get(client, script.url)).kept == b"ok"
        assert (len(script.heads), script.connections) == (3, 2)


async def test_never_more_than_32_connections_are_open(client: Any) -> None:
    async with scripted(*[Step(delay=0.2) for _ in range(40)]) as script:
        answers: list[Any] = []
        async with anyio.create_task_group() as group:
            for _ in range(40):
                group.start_soon(lambda: _append(answers, get(client, script.url)))
        assert [a.kept for a in answers] == [b"ok"] * 40
        assert script.peak == 32


async def _append(answers: list[Any], answer: Any) -> None:
    answers.append(await answer)


async def test_a_cancelled_exchange_closes_its_connection_and_leaks_no_slot() -> None:
    limits = httpx2.Limits(max_connections=1)
    async with new_client(limits=limits) as http, scripted(Step(delay=0.5), Step()) as script:
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: get(http, script.url))  # holds the only slot
            await asyncio.sleep(0.05)
            with anyio.move_on_after(0.05):
                await get(http, script.url)  # cancelled while waiting for a slot
            group.cancel_scope.cancel()  # cancelled while awaiting its answer
        assert (await get(http, script.url)).kept == b"ok"
        assert script.connections == 2


# ---- failures ----------------------------------------------------------------------------------


async def test_connect_failures_are_short_connect_failed_errors(client: Any) -> None:
    cases = [
        (
            f"http://127.0.0.1:{closed_port()}/",
            r"cannot connect to 127\.0\.0\.1 port \d+ \(Connection refused\)",
        ),
        ("http://nonexistent.invalid/", "cannot resolve the host name nonexistent.invalid"),
        ("ftp://h/", "invalid URL .*unsupported protocol"),
        ("http://h/" + "x" * 70_000, r"invalid URL \(URL too long\)"),
    ]
    for url, message in cases:
        with pytest.raises(hc.ConnectFailed, match=message) as failure:
            await get(client, url)
        assert not failure.value.tls and _unchained(failure.value)


def _unchained(error: BaseException) -> bool:
    """No low-level error is shown with it (`raise ... from None`)."""
    return error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)


async def test_a_request_that_cannot_be_sent_as_it_is_sends_nothing(client: Any) -> None:
    cases = [
        ("GET", [(b"X-Bad", b"a\nb")], None, "Illegal header value"),
        ("G ET", [], None, "Illegal method"),
        (
            "POST",
            [(b"Content-Length", b"5")],
            b"abc",
            r"Content-Length '5' does not match the body \(3 bytes\)",
        ),
        ("POST", [(b"Transfer-Encoding", b"chunked")], b"abc", "Transfer-Encoding is set by the HTTP client"),
    ]
    async with scripted(Step()) as script:
        for method, headers, body, message in cases:
            with pytest.raises(hc.InvalidRequest, match=message) as failure:
                await get(client, script.url, method, body, headers=headers)
            assert _unchained(failure.value)
        await get(client, script.url, "POST", b"abc", headers=[(b"Content-Length", b"3")])
        assert len(script.heads) == 1  # only the last one was sent


async def test_a_connection_broken_mid_answer_is_broken(client: Any) -> None:
    partial = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"
    steps = [Step(partial, close=True), Step(partial, reset=True), Step(b"garbage\r\n\r\n", close=True)]
    steps += [Step(None)]  # no answer at all, on a new connection
    async with scripted(*steps) as script:
        for _ in steps:
            with pytest.raises(hc.Broken) as failure:
                await get(client, script.url)
            assert not isinstance(failure.value, OSError) and _unchained(failure.value)
        assert (await get(client, script.url)).kept == b"ok"


async def test_a_body_not_in_its_content_encoding_is_undecodable_not_broken(client: Any) -> None:
    """The answer came (its status and headers): the body is what the API sends every time."""
    bad_gzip = _answer(b"not gzip at all", "Content-Encoding: gzip")
    async with scripted(Step(bad_gzip, close=True)) as script:
        with pytest.raises(hc.Undecodable) as failure:
            await get(client, script.url)
        assert (failure.value.status, failure.value.encoding) == (200, "gzip")
        assert str(failure.value).startswith("DecodingError: ") and _unchained(failure.value)
        assert not isinstance(failure.value, hc.Broken)
