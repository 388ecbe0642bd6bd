"""HTTP/1.1 on the wire for the runtime's HTTP client (RFC 9112): a request's bytes, checked as h11
checks them (and a little more), and an answer read from an asyncio stream. Stdlib only.

A request: the method and header names are tokens, header values have no NUL, CR or LF and no
surrounding blanks (h11's rule), the target is printable ASCII; its body must fit its framing
(Content-Length, or `Transfer-Encoding: chunked`; never both, which h11 would send). Error messages name
the header, never its value.
An answer: 1xx answers are skipped; HEAD, 204 and 304 have no body; chunked, Content-Length or read
until the server closes, in that order; obsolete line folding is joined with a space, and bare LF
line ends are taken as CRLF (as h11 does). A head or trailer section over 100 KiB is refused.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import NamedTuple

__all__ = [
    "EndedEarly",
    "Framing",
    "Head",
    "InvalidRequest",
    "Malformed",
    "asks_close",
    "encode_request",
    "framing",
    "keeps_alive",
    "read_body",
    "read_head",
]

RawHeaders = list[tuple[bytes, bytes]]
MAX_HEAD = 100 * 1024  # the status line and headers of an answer, or its trailers (as httpcore)
READ_SIZE = 64 * 1024

_TOKEN = re.compile(rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")
_VALUE = re.compile(rb"(?:[^\x00\s]+(?:[ \t]+[^\x00\s]+)*)?")
_TARGET = re.compile(rb"[\x21-\x7e]+")
_STATUS = re.compile(rb"HTTP/([0-9]\.[0-9]) ([0-9]{3})(?: ((?:[ \t]|[^\x00\s])*))?")
_FIELD = re.compile(rb"([-!#$%&'*+.^_`|~0-9a-zA-Z]+):[ \t]*(.*?)[ \t]*")
_LENGTH = re.compile(rb"[0-9]{1,20}")
_CHUNK = re.compile(rb"([0-9A-Fa-f]{1,20})(?:;.*)?[ \t]*")
_FRAMING_FIELDS = frozenset({b"connection", b"content-length", b"transfer-encoding"})


class InvalidRequest(ValueError):
    """The request cannot be sent as given; nothing was sent."""


class Malformed(ValueError):
    """The answer breaks HTTP/1.1, or ended before its end."""


class EndedEarly(Exception):
    """The connection ended or failed before the first byte of the answer."""


class Head(NamedTuple):
    version: bytes  # b"1.1"
    status: int
    reason: bytes
    headers: RawHeaders
    framing_values: dict[bytes, list[bytes]]  # see _framing_values

    def values(self, name: bytes) -> list[bytes]:
        """The comma-separated values of Connection, Content-Length or Transfer-Encoding (lowercase
        name), lowercased."""
        return self.framing_values.get(name, [])


def _framing_values(headers: RawHeaders) -> dict[bytes, list[bytes]]:
    found: dict[bytes, list[bytes]] = {}
    for name, value in headers:
        if (lower := name.lower()) in _FRAMING_FIELDS:
            found.setdefault(lower, []).extend(p.strip().lower() for p in value.split(b","))
    return found


class Framing(NamedTuple):
    kind: str  # "length", "chunked" or "close" (read until the server closes)
    length: int = 0


# ---- requests ----------------------------------------------------------------------------------


def encode_request(method: str, target: bytes, headers: RawHeaders, body: bytes | None) -> bytes:
    """The request's bytes; InvalidRequest when a part is not valid HTTP/1.1 or the body does not
    fit its framing headers."""
    verb = method.encode("utf-8")
    if not _TOKEN.fullmatch(verb):
        raise InvalidRequest(f"illegal method {method[:40]!r}")
    if not _TARGET.fullmatch(target):
        raise InvalidRequest("illegal request target")
    parts = [verb, b" ", target, b" HTTP/1.1\r\n"]
    length, chunked = _checked_headers(headers, parts)
    data = body or b""
    if chunked and length is not None:
        raise InvalidRequest("both Content-Length and Transfer-Encoding")
    if chunked:
        parts += [b"\r\n", b"%x\r\n%s\r\n" % (len(data), data) if data else b"", b"0\r\n\r\n"]
        return b"".join(parts)
    if len(data) != (length or 0):
        raise InvalidRequest(f"the body has {len(data)} bytes, Content-Length says {length or 0}")
    parts += [b"\r\n", data]
    return b"".join(parts)


def _checked_headers(headers: RawHeaders, parts: list[bytes]) -> tuple[int | None, bool]:
    """Appends the header lines to `parts`; (Content-Length, chunked) of the request."""
    length: bytes | None = None
    chunked = False
    for name, value in headers:
        if not _TOKEN.fullmatch(name):
            raise InvalidRequest(f"illegal header name {name[:40]!r}")
        if not _VALUE.fullmatch(value):
            raise InvalidRequest(f"illegal value of the header {name.decode('ascii')}")
        lower = name.lower()
        if lower == b"content-length":
            given = {part.strip() for part in value.split(b",")}
            value = given.pop()
            if given or not _LENGTH.fullmatch(value) or (length is not None and value != length):
                raise InvalidRequest("bad or conflicting Content-Length")
            if length is not None:
                continue
            length = value
        elif lower == b"transfer-encoding":
            value = value.lower()
            if chunked or value != b"chunked":
                raise InvalidRequest("only one Transfer-Encoding: chunked is supported")
            chunked = True
        parts += [name, b": ", value, b"\r\n"]
    return (None if length is None else int(length)), chunked


def asks_close(headers: RawHeaders) -> bool:
    """Whether these (request) headers ask to close the connection after the exchange."""
    return b"close" in _framing_values(headers).get(b"connection", ())


# ---- answers -----------------------------------------------------------------------------------


async def read_head(reader: asyncio.StreamReader) -> Head:
    """The status line and headers of the final answer (1xx answers are read and skipped);
    EndedEarly when the connection ends or fails before any byte of it."""
    first = True
    while True:
        line = await (_first_line(reader) if first else _line(reader))
        first = False
        match = _STATUS.fullmatch(line)
        if match is None:
            raise Malformed("the answer does not begin with an HTTP/1.x status line")
        version, status, reason = match[1], int(match[2]), match[3] or b""
        headers = await _fields(reader, len(line))
        if status == 101:
            raise Malformed("unexpected 101 Switching Protocols")
        if status >= 200:
            return Head(version, status, reason, headers, _framing_values(headers))


def framing(method: str, head: Head) -> Framing:
    """How the body of this answer to `method` is delimited (RFC 9112, section 6.3)."""
    if method == "HEAD" or head.status in (204, 304):
        return Framing("length")
    codings = head.values(b"transfer-encoding")
    if codings:
        return Framing("chunked" if codings[-1] == b"chunked" else "close")
    lengths = set(head.values(b"content-length"))
    if not lengths:
        return Framing("close")
    length = lengths.pop()
    if lengths or not _LENGTH.fullmatch(length):
        raise Malformed("bad or conflicting Content-Length in the answer")
    return Framing("length", int(length))


def keeps_alive(head: Head, body: Framing) -> bool:
    """Whether the connection may carry another exchange after this answer (read to its end)."""
    if body.kind == "close" or head.version != b"1.1":
        return False
    return b"close" not in head.values(b"connection")


async def read_body(
    reader: asyncio.StreamReader, body: Framing, take: Callable[[bytes], bool]
) -> bool:
    """Passes the body's bytes to `take` until it returns False (then False: the body was not read
    to its end); True once the whole body was read."""
    if body.kind == "length":
        return await _read_exactly(reader, body.length, take)
    if body.kind == "close":
        while data := await reader.read(READ_SIZE):
            if not take(data):
                return False
        return True
    while size := _chunk_size(await _line(reader)):
        if not await _read_exactly(reader, size, take):
            return False
        if await _line(reader):
            raise Malformed("a chunk of the answer is longer than its size says")
    await _fields(reader, 0)  # trailers: read, not used
    return True


async def _read_exactly(
    reader: asyncio.StreamReader, size: int, take: Callable[[bytes], bool]
) -> bool:
    while size:
        data = await reader.read(min(size, READ_SIZE))
        if not data:
            raise Malformed(f"the server closed the connection {size} bytes before the end")
        size -= len(data)
        if not take(data):
            return False
    return True


def _chunk_size(line: bytes) -> int:
    match = _CHUNK.fullmatch(line)
    if match is None:
        raise Malformed("bad chunk size line in the answer")
    return int(match[1], 16)


async def _fields(reader: asyncio.StreamReader, size: int) -> RawHeaders:
    """Header (or trailer) lines up to the empty line; `size`: bytes of the section so far."""
    fields: RawHeaders = []
    while line := await _line(reader):
        size += len(line)
        if size > MAX_HEAD:
            raise Malformed(f"the answer's head is over {MAX_HEAD // 1024} KiB")
        if line[:1] in (b" ", b"\t") and fields:  # obsolete line folding
            name, value = fields[-1]
            line = b"%s: %s %s" % (name, value, line.strip(b" \t"))
            fields.pop()
        match = _FIELD.fullmatch(line)
        if match is None or not _VALUE.fullmatch(match[2]):
            raise Malformed("illegal header line in the answer")
        fields.append((match[1], match[2]))
    return fields


async def _first_line(reader: asyncio.StreamReader) -> bytes:
    try:
        return await _line(reader, first=True)
    except OSError as error:
        if getattr(reader, "_buffer", b""):  # part of the answer came: not early
            raise
        raise EndedEarly from error


async def _line(reader: asyncio.StreamReader, first: bool = False) -> bytes:
    """One line without its line end (CRLF, or a bare LF)."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as end:
        if first and not end.partial:
            raise EndedEarly from None
        raise Malformed("the server closed the connection before the end of the answer") from None
    except asyncio.LimitOverrunError:
        raise Malformed(f"a line of the answer is over {MAX_HEAD // 1024} KiB") from None
    return line[:-2] if line.endswith(b"\r\n") else line[:-1]
