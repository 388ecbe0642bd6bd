"""A response body as the runtime's HTTP client keeps it: gzip and deflate decoded in bounded
pieces (other codings pass through, as in httpx), the first `cap` decoded bytes kept and up to
`drain_limit` more counted. Stdlib only; a body that cannot be decoded raises zlib.error."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

__all__ = ["Sink"]

_PIECE = 64 * 1024  # decoded bytes per decompress call: a small bomb cannot balloon in one go
_MAX_CODINGS = 5


class _Inflater:
    """One gzip or deflate coding, decoded in bounded pieces (deflate: zlib-wrapped or raw)."""

    def __init__(self, coding: str) -> None:
        self._may_be_raw = coding == "deflate"
        wbits = zlib.MAX_WBITS | 16 if coding == "gzip" else zlib.MAX_WBITS
        self._zlib = zlib.decompressobj(wbits)

    def decode(self, data: bytes) -> Iterator[bytes]:
        try:
            piece = self._zlib.decompress(data, _PIECE)
        except zlib.error:
            if not self._may_be_raw:
                raise
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            piece = self._zlib.decompress(data, _PIECE)
        self._may_be_raw = False
        while piece:
            yield piece
            piece = self._zlib.decompress(self._zlib.unconsumed_tail, _PIECE)

    def flush(self) -> bytes:
        return self._zlib.flush()


class Sink:
    """Keeps the first `cap` decoded bytes and counts the rest, up to `drain_limit` more; `cut`
    turns true past that (stop reading). `encoding`: the Content-Encoding header, if any."""

    def __init__(self, cap: int, drain_limit: int, encoding: str | None) -> None:
        self.kept, self.total, self.cut = bytearray(), 0, False
        self._cap, self._limit = cap, cap + drain_limit
        codings = [c.strip().lower() for c in (encoding or "").split(",")]
        codings = [c for c in codings if c in ("gzip", "deflate")]  # others pass, as in httpx
        if len(codings) > _MAX_CODINGS:
            raise zlib.error(f"more than {_MAX_CODINGS} content codings")
        self._stages = [_Inflater(coding) for coding in reversed(codings)]

    def add(self, data: bytes) -> None:
        for piece in self._through(0, data):
            self._keep(piece)
            if self.cut:
                return

    def take(self, data: bytes) -> bool:
        """`add`; False once cut (read no more)."""
        self.add(data)
        return not self.cut

    def finish(self) -> None:
        for index, stage in enumerate(self._stages):
            for piece in self._through(index + 1, stage.flush()):
                self._keep(piece)

    def _through(self, index: int, data: bytes) -> Iterator[bytes]:
        if index == len(self._stages):
            yield data
            return
        for piece in self._stages[index].decode(data):
            yield from self._through(index + 1, piece)

    def _keep(self, piece: bytes) -> None:
        self.total += len(piece)
        if len(self.kept) < self._cap:
            self.kept += piece[: self._cap - len(self.kept)]
        self.cut = self.total > self._limit
