"""The runtime's own HTTP/1.1 client (templates/package/http_client.py and its http_*.py siblings),
over real sockets on 127.0.0.1: the recording upstream of the end-to-end tests, and a scripted asyncio
server for framing, pooling and failures. TLS, proxies and the httpx2 route: test_http_client_routes.py
(which imports the helpers below)."""

from __future__ import annotations

import asyncio
import base64
import gzip
import socket
import ssl
import struct
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from .conftest import closed_port, template_module

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

hc = template_module("http_client")
req = template_module("http_request")
CAP, DRAIN = 1_000_000, 64 * 1024 * 1024
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


@pytest.fixture
async def client() -> AsyncIterator[Any]:
    http = hc.HttpClient(env={})
    try:
        yield http
    finally:
        await http.aclose()


@pytest.fixture(params=[False, True], ids=["h11", "httpx2"])
async def routed(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """A client on each route: the same errors are expected from both."""
    http = hc.HttpClient(env={}, via_httpx2=request.param)
    try:
        yield http
    finally:
        await http.aclose()


async def get(http: Any, url: str, method: str = "GET", body: bytes | None = None, **kw: int) -> Any:
    limits = {"cap": CAP, "drain_limit": DRAIN, **kw}
    with anyio.fail_after(10):
        return await http.exchange(method, url, [(b"User-Agent", b"t/1")], body, **limits)


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


# ---- headers and the URL -----------------------------------------------------------------------


def test_headers_ignore_case_and_join_repeated_ones() -> None:
    headers = hc.Headers([("Set-Cookie", "a=1"), ("Content-Type", "text/plain"), ("set-cookie", "b=2")])
    assert headers["content-type"] == headers.get("CONTENT-TYPE") == "text/plain"
    assert headers.get("set-cookie") == "a=1, b=2" and "Set-Cookie" in headers
    assert sorted(headers) == ["content-type", "set-cookie"] and len(headers) == 2
    assert headers.raw[2] == ("set-cookie", "b=2") and headers.get("x") is None
    assert "a=1" not in repr(headers)


async def test_the_url_is_sent_byte_for_byte(client: Any, recording: Any) -> None:
    path = "/a/%2E%2E/x%2Fy?filter[s]=open&p=a|b&r=:/?@!$'()*+,;=&s=a%20b"
    await get(client, recording.url + path)
    await get(client, recording.url)
    await get(client, recording.url + "?q=1#fragment")
    assert [r.target for r in recording.requests] == [path, "/", "/?q=1"]


def test_ipv6_literals_default_ports_and_userinfo() -> None:
    target = req.parse_url("http://[::1]:8080/x?y")
    assert (target.host, target.port, target.host_header, target.target) == (
        "::1",
        8080,
        b"[::1]:8080",
        b"/x?y",
    )
    assert req.parse_url("https://[::1]/").host_header == b"[::1]"
    assert (req.parse_url("https://Example.COM:443").port, req.parse_url("http://h:80/").host_header) == (
        443,
        b"h",
    )
    assert req.parse_url("http://u%40x:p%3Aw@h/").basic == b"Basic " + base64.b64encode(b"u@x:p:w")
    assert req.parse_url("http://h/é ?q=ü").target == b"/%C3%A9%20?q=%C3%BC"


SAME_HEADERS_CASES = [
    (method, body)
    for method in ("GET", "DELETE", "POST", "PUT", "PATCH", "HEAD", "OPTIONS")
    for body in (None, b"", b'{"x": 1}')
    if not (method == "HEAD" and body)
]


async def test_the_request_headers_are_those_httpx2_sends(recording: Any) -> None:
    import httpx2

    base = recording.url.replace("http://", "http://us%40er:p%C3%A4ss@")
    headers = [(b"User-Agent", b"t-mcp/1"), (b"Accept", b"application/json, */*;q=0.8")]
    headers += [(b"X-Dup", b"1"), (b"x-dup", b"2"), (b"Content-Type", b"application/json")]
    ours = hc.HttpClient(env={})
    try:
        async with httpx2.AsyncClient(trust_env=False) as theirs:
            for method, body in SAME_HEADERS_CASES:
                for url in (f"{recording.url}/p?q=1", f"{base}/p"):
                    await ours.exchange(method, url, headers, body, cap=CAP, drain_limit=DRAIN)
                    async with theirs.stream(method, url, headers=headers, content=body) as response:
                        await response.aread()
    finally:
        await ours.aclose()
    requests = recording.requests
    assert len(requests) == 4 * len(SAME_HEADERS_CASES)
    for mine, reference in zip(requests[0::2], requests[1::2], strict=True):
        assert (mine.request_line, mine.body) == (reference.request_line, reference.body)
        assert _comparable(mine.headers) == _comparable(reference.headers), mine.request_line
        assert mine.header("Accept-Encoding") == "gzip, deflate"


def _comparable(headers: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    """Sorted by lowercased name (repeats keep their order); httpx2 may also advertise br or zstd."""
    pairs = [(name.lower(), value) for name, value in headers]
    pairs = [(n, _known_codings(v) if n == "accept-encoding" else v) for n, v in pairs]
    return sorted(pairs, key=lambda pair: pair[0])


def _known_codings(value: str) -> str:
    return ", ".join(c for c in value.split(", ") if c in ("gzip", "deflate"))


async def test_userinfo_does_not_replace_an_authorization_header(client: Any, recording: Any) -> None:
    url = recording.url.replace("http://", "http://user:pw@") + "/x"
    await client.exchange("GET", url, [(b"authorization", b"Bearer t")], None, cap=CAP, drain_limit=DRAIN)
    await client.exchange("GET", url, [], None, cap=CAP, drain_limit=DRAIN)
    assert recording.requests[0].all("Authorization") == ["Bearer t"]
    assert recording.requests[1].all("Authorization") == ["Basic " + base64.b64encode(b"user:pw").decode()]


# ---- answers -----------------------------------------------------------------------------------


async def test_content_length_chunked_and_read_until_close_bodies(client: Any) -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    )
    until_close = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it"
    async with scripted(Step(OK), Step(chunked), Step(until_close, close=True)) as script:
        answers = [await get(client, script.url) for _ in range(3)]
    assert [a.kept for a in answers] == [b"ok", b"abcde", b"all of it"]
    assert [a.total for a in answers] == [2, 5, 9] and not any(a.cut_short for a in answers)
    assert (answers[1].status, answers[1].reason, answers[1].headers["x-a"]) == (200, "OK", "1")
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
        Step(_answer(data, "Content-Encoding: br")),
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
    for answer in (inflated, plain):
        assert answer.cut_short and answer.kept == bytes(100) and 1100 < answer.total <= 1100 + 64 * 1024
    assert script.connections == 3


# ---- the pool ----------------------------------------------------------------------------------


async def test_connections_are_reused_unless_the_server_said_close(client: Any) -> None:
    closing = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
    async with scripted(Step(), Step(), Step(closing), Step()) as script:
        for _ in range(4):
            assert (await get(client, script.url)).kept == b"ok"
        assert (script.connections, client.open_connections) == (2, 1)


async def test_a_request_that_says_close_does_not_leave_its_connection_for_reuse(client: Any) -> None:
    async with scripted(Step(), Step()) as script:
        with anyio.fail_after(10):
            headers = [(b"User-Agent", b"t/1"), (b"Connection", b"close")]
            await client.exchange("GET", script.url, headers, None, cap=CAP, drain_limit=DRAIN)
        assert (await get(client, script.url)).kept == b"ok"
        assert script.connections == 2


async def test_an_idle_connection_the_server_closed_is_not_used(client: Any) -> None:
    async with scripted(Step(close=True), Step()) as script:
        await get(client, script.url)
        await asyncio.sleep(0.05)  # the EOF arrives while the connection is idle
        assert (await get(client, script.url)).kept == b"ok"
        assert (len(script.heads), script.connections) == (2, 2)


async def test_a_reused_connection_that_fails_before_answering_is_retried_once(client: Any) -> None:
    async with scripted(Step(), Step(None), Step()) as script:
        await get(client, script.url, "POST", b"x")
        assert (await get(client, script.url, "POST", b"y")).kept == b"ok"
        assert (len(script.heads), script.connections) == (3, 2)
    idle = client.open_connections
    async with scripted(Step(None), Step()) as script:  # a new connection is not retried
        with pytest.raises(hc.ConnectionBroken, match="without answering"):
            await get(client, script.url)
        assert len(script.heads) == 1 and client.open_connections == idle


async def test_never_more_than_max_connections_are_open() -> None:
    http = hc.HttpClient(max_connections=2, env={})
    async with scripted(*[Step(delay=0.05) for _ in range(6)]) as script:
        answers: list[Any] = []
        async with anyio.create_task_group() as group:
            for _ in range(6):
                group.start_soon(lambda: _append(answers, get(http, script.url)))
        assert [a.kept for a in answers] == [b"ok"] * 6
        assert script.peak <= 2 and http.open_connections <= 2
    await http.aclose()
    assert http.open_connections == 0


async def _append(answers: list[Any], answer: Any) -> None:
    answers.append(await answer)


async def test_a_cancelled_exchange_closes_its_connection_and_leaks_no_slot() -> None:
    http = hc.HttpClient(max_connections=1, env={})
    async with scripted(Step(delay=0.5), Step()) as script:
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: get(http, script.url))  # holds the only slot
            await asyncio.sleep(0.05)
            with anyio.move_on_after(0.05):
                await get(http, script.url)  # cancelled while waiting for a slot
            group.cancel_scope.cancel()  # cancelled while awaiting its answer
        assert http.open_connections == 0
        assert (await get(http, script.url)).kept == b"ok"
        assert script.connections == 2
    await http.aclose()


# ---- failures ----------------------------------------------------------------------------------


async def test_connect_failures_are_short_connect_failed_errors(routed: Any) -> None:
    cases = [
        (f"http://127.0.0.1:{closed_port()}/", "cannot connect to 127.0.0.1 port"),
        ("http://nonexistent.invalid/", "cannot resolve the host name nonexistent.invalid"),
        ("ftp://h/", "invalid URL"),
        ("http://h:99999/", "invalid URL"),
    ]
    for url, message in cases:
        with pytest.raises(hc.ConnectFailed, match=message) as failure:
            await get(routed, url)
        assert not failure.value.tls and "Traceback" not in str(failure.value)
        assert _unchained(failure.value)
    with pytest.raises(hc.HttpError, match="invalid request"):
        await routed.exchange("GET", "http://h/", [(b"X-Bad", b"a\nb")], None, cap=1, drain_limit=1)
    async with scripted(Step()) as script:
        with pytest.raises(hc.HttpError, match="invalid request"):  # framing that does not fit the body
            await routed.exchange(
                "POST", script.url, [(b"Content-Length", b"5")], b"abc", cap=1, drain_limit=1
            )
        assert script.heads == []  # nothing was sent
    assert routed.open_connections == 0
    await routed.aclose()
    with pytest.raises(hc.HttpError, match="closed"):
        await get(routed, "http://h/")


def _unchained(error: BaseException) -> bool:
    """No low-level error is shown with it (`raise ... from None`)."""
    return error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)


async def test_a_connection_broken_mid_answer_is_connection_broken(routed: Any) -> None:
    partial = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"
    steps = [Step(partial, close=True), Step(partial, reset=True), Step(b"garbage\r\n\r\n", close=True)]
    steps.append(Step(None))  # no answer at all, on a new connection
    async with scripted(*steps) as script:
        for _ in steps:
            with pytest.raises(hc.ConnectionBroken) as failure:
                await get(routed, script.url)
            assert not isinstance(failure.value, OSError) and _unchained(failure.value)
        assert routed.open_connections == 0
