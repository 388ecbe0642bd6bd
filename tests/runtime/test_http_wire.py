"""HTTP/1.1 on the wire (templates/package/http_wire.py): the bytes of a request and the reading of an
answer, each checked on bytes given directly (an asyncio.StreamReader fed by the test). The client over
real sockets: test_http_client.py."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .conftest import template_module

pytestmark = pytest.mark.anyio

wire = template_module("http_wire")
HOST = [(b"Host", b"h")]


def test_a_request_is_its_line_headers_and_body() -> None:
    data = wire.encode_request("POST", b"/a?b=1", [*HOST, (b"Content-Length", b"3")], b"xyz")
    assert data == b"POST /a?b=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz"
    assert wire.encode_request("GET", b"/", HOST, None) == b"GET / HTTP/1.1\r\nHost: h\r\n\r\n"


def test_a_chunked_request_sends_its_body_as_one_chunk() -> None:
    headers = [*HOST, (b"Transfer-Encoding", b"Chunked")]
    assert wire.encode_request("PUT", b"/", headers, b"hello") == (
        b"PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
    )
    assert wire.encode_request("PUT", b"/", headers, b"").endswith(b"\r\n\r\n0\r\n\r\n")


def test_repeated_equal_content_lengths_are_sent_once() -> None:
    headers = [*HOST, (b"Content-Length", b"2, 2"), (b"content-length", b"2")]
    assert wire.encode_request("POST", b"/", headers, b"ok") == (
        b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nok"
    )


@pytest.mark.parametrize(
    ("method", "target", "headers", "body", "message"),
    [
        ("GE T", b"/", [], None, "illegal method"),
        ("GET", b"/a b", [], None, "illegal request target"),
        ("GET", b"/\x7f", [], None, "illegal request target"),
        ("GET", b"/", [(b"X Y", b"1")], None, "illegal header name"),
        ("GET", b"/", [(b"X-Token", b"secret\r\nX-Evil: 1")], None, "header X-Token$"),
        ("GET", b"/", [(b"X-A", b" padded")], None, "header X-A$"),
        ("GET", b"/", [(b"X-A", b"nul\x00")], None, "header X-A$"),
        ("POST", b"/", [(b"Content-Length", b"5")], b"abc", "body has 3 bytes, Content-Length says 5"),
        ("POST", b"/", [], b"abc", "body has 3 bytes, Content-Length says 0"),
        ("POST", b"/", [(b"Content-Length", b"1, 2")], b"a", "conflicting Content-Length"),
        ("POST", b"/", [(b"Content-Length", b"1"), (b"Content-Length", b"2")], b"a", "conflicting"),
        ("POST", b"/", [(b"Content-Length", b"-1")], b"", "bad or conflicting Content-Length"),
        ("POST", b"/", [(b"Transfer-Encoding", b"gzip")], b"", "only one Transfer-Encoding: chunked"),
        ("POST", b"/", [(b"Transfer-Encoding", b"chunked")] * 2, b"", "only one Transfer-Encoding"),
        (
            "POST",
            b"/",
            [(b"Transfer-Encoding", b"chunked"), (b"Content-Length", b"1")],
            b"a",
            "both Content-Length and Transfer-Encoding",
        ),
    ],
)
def test_requests_that_are_not_valid_http_are_refused(
    method: str, target: bytes, headers: Any, body: bytes | None, message: str
) -> None:
    with pytest.raises(wire.InvalidRequest, match=message) as refused:
        wire.encode_request(method, target, [*HOST, *headers], body)
    assert b"secret" not in str(refused.value).encode()  # a header's value is never shown


def test_connection_close_in_the_request_headers_is_seen() -> None:
    assert wire.asks_close([(b"Connection", b"keep-alive, Close")])
    assert not wire.asks_close([(b"Connection", b"keep-alive"), (b"X-Close", b"close")])


# ---- answers -----------------------------------------------------------------------------------


def _reader(data: bytes, eof: bool = True) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=wire.MAX_HEAD)
    reader.feed_data(data)
    if eof:
        reader.feed_eof()
    return reader


async def _answer(data: bytes, method: str = "GET") -> tuple[Any, Any, bytes, bool]:
    """(head, framing, body, keeps alive) of `data`."""
    reader = _reader(data)
    head = await wire.read_head(reader)
    framing = wire.framing(method, head)
    body = bytearray()
    assert await wire.read_body(reader, framing, lambda data: body.extend(data) is None)
    return head, framing, bytes(body), wire.keeps_alive(head, framing)


async def test_content_length_chunked_and_until_close_bodies() -> None:
    head, framing, body, alive = await _answer(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
    assert (head.version, head.status, head.reason, head.headers) == (
        b"1.1",
        200,
        b"OK",
        [(b"Content-Length", b"5")],
    )
    assert (framing, body, alive) == (wire.Framing("length", 5), b"hello", True)
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3;x=1\r\nabc\r\n2 \r\nde\r\n"
    _, framing, body, alive = await _answer(chunked + b"0\r\nX-Trailer: t\r\n\r\n")
    assert (framing.kind, body, alive) == ("chunked", b"abcde", True)
    _, framing, body, alive = await _answer(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nrest")
    assert (framing.kind, body, alive) == ("close", b"rest", False)
    _, framing, body, alive = await _answer(b"HTTP/1.1 200 OK\r\n\r\nall of it")
    assert (framing.kind, body, alive) == ("close", b"all of it", False)


async def test_the_connection_is_kept_only_for_http_1_1_without_close() -> None:
    cases = {
        b"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n": True,
        b"HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n": False,
        b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n": False,
    }
    assert {data: (await _answer(data))[3] for data in cases} == cases


async def test_informational_answers_are_skipped_and_some_answers_have_no_body() -> None:
    early = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
    head, _, body, _ = await _answer(early + b"HTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx")
    assert (head.status, head.headers, body) == (201, [(b"Content-Length", b"1")], b"x")
    for status, method in ((204, "GET"), (304, "GET"), (200, "HEAD")):
        data = f"HTTP/1.1 {status} X\r\nContent-Length: 9\r\n\r\n".encode()
        assert (await _answer(data, method))[1:3] == (wire.Framing("length"), b"")


async def test_lenient_where_h11_is_lenient() -> None:
    """Bare LF line ends, obsolete line folding, an empty or missing reason, blanks around values."""
    data = b"HTTP/1.1 200\nX-Long: a\r\n  b\r\n\tc\nX-Pad: \t v \t\r\nContent-Length: 2\n\nok"
    head, _, body, _ = await _answer(data)
    assert (head.reason, body) == (b"", b"ok")
    assert head.headers[:2] == [(b"X-Long", b"a b c"), (b"X-Pad", b"v")]
    assert (await _answer(b"HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n"))[0].reason == b""


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"garbage\r\n\r\n", "does not begin with an HTTP/1.x status line"),
        (b"HTTP/2 200 OK\r\n\r\n", "status line"),
        (b"HTTP/1.1 20 OK\r\n\r\n", "status line"),
        (b"HTTP/1.1 200 OK\r\nX-A : 1\r\n\r\n", "illegal header line"),
        (b"HTTP/1.1 200 OK\r\n folded first\r\n\r\n", "illegal header line"),
        (b"HTTP/1.1 200 OK\r\nX-A: a\x00b\r\n\r\n", "illegal header line"),
        (b"HTTP/1.1 101 Switching Protocols\r\n\r\n", "unexpected 101"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", "7 bytes before the end"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\nab", "conflicting Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "bad or conflicting Content-Length"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", "longer than"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", "before the end"),
        (b"HTTP/1.1 200 OK\r\nContent-Le", "before the end of the answer"),
    ],
)
async def test_answers_that_break_http_are_malformed(data: bytes, message: str) -> None:
    with pytest.raises(wire.Malformed, match=message):
        await _answer(data)


async def test_a_head_over_100_kib_is_refused() -> None:
    many = b"".join(b"X-%d: %s\r\n" % (n, b"v" * 1000) for n in range(110))
    with pytest.raises(wire.Malformed, match="head is over 100 KiB"):
        await _answer(b"HTTP/1.1 200 OK\r\n" + many + b"\r\n")
    with pytest.raises(wire.Malformed, match="line of the answer is over 100 KiB"):
        await _answer(b"HTTP/1.1 200 OK\r\nX-A: " + b"v" * 200_000 + b"\r\n\r\n")


async def test_an_end_before_any_byte_is_told_apart() -> None:
    with pytest.raises(wire.EndedEarly):
        await wire.read_head(_reader(b""))
    with pytest.raises(wire.Malformed):
        await wire.read_head(_reader(b"HTTP/1.1 200 OK\r\n"))


async def test_reading_stops_when_the_taker_says_so() -> None:
    reader = _reader(b"HTTP/1.1 200 OK\r\nContent-Length: 200000\r\n\r\n" + bytes(200_000))
    framing = wire.framing("GET", await wire.read_head(reader))
    pieces: list[bytes] = []
    assert not await wire.read_body(reader, framing, lambda data: pieces.append(data) or False)
    assert len(pieces) == 1 and 0 < len(pieces[0]) <= wire.READ_SIZE
