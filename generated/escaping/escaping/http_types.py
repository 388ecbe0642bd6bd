"""What the runtime's HTTP client answers with and raises (re-exported by http_client.py), and the
helpers its modules share. Stdlib only."""

from __future__ import annotations

import os
import socket
import ssl
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

__all__ = [
    "Answer",
    "ConnectFailed",
    "ConnectionBroken",
    "Headers",
    "HttpError",
    "RawHeaders",
    "connect_failed",
    "header_text",
    "short",
]

RawHeaders = list[tuple[bytes, bytes]]


class Headers(Mapping[str, str]):
    """Response headers as sent (`raw`, in order); lookups ignore case and repeated headers are
    joined with ", " as httpx.Headers.get does."""

    __slots__ = ("_joined", "raw")

    def __init__(self, raw: Iterable[tuple[str, str]] = ()) -> None:
        self.raw = list(raw)
        joined: dict[str, str] = {}
        for name, value in self.raw:
            key = name.lower()
            joined[key] = f"{joined[key]}, {value}" if key in joined else value
        self._joined = joined

    @classmethod
    def from_raw(cls, raw: Iterable[tuple[bytes, bytes]]) -> Headers:
        return cls((header_text(name), header_text(value)) for name, value in raw)

    def __getitem__(self, name: str) -> str:
        return self._joined[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._joined)

    def __len__(self) -> int:
        return len(self._joined)

    def __repr__(self) -> str:
        return f"Headers({sorted(self._joined)})"  # names only: values may be secrets


@dataclass(frozen=True)
class Answer:
    status: int
    reason: str
    headers: Headers
    kept: bytes  # decoded body bytes, at most `cap`
    total: int  # decoded body bytes seen (kept + counted and dropped)
    cut_short: bool  # stopped reading past cap + drain_limit (the connection was closed)


class HttpError(Exception):
    """Base class; str() is a short message without secrets. Raised as such when the request
    cannot be formed (invalid header): nothing was sent."""


class ConnectFailed(HttpError):
    """Bad URL, DNS, TCP, TLS or proxy failure before the request was sent."""

    def __init__(self, message: str, *, tls: bool = False) -> None:
        super().__init__(message)
        self.tls = tls


class ConnectionBroken(HttpError):
    """The exchange failed after sending began: the request may or may not have been processed."""


def header_text(value: bytes) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")


def short(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:300] if str(error) else type(error).__name__


def connect_failed(error: OSError, host: str, port: int) -> ConnectFailed:
    """The short message for a failed DNS lookup, TCP connect or TLS handshake to host:port."""
    if isinstance(error, ssl.SSLCertVerificationError):
        message = f"the TLS certificate of {host} was not accepted ({error.verify_message})"
        return ConnectFailed(message, tls=True)
    if isinstance(error, ssl.SSLError):
        message = f"the TLS handshake with {host} failed ({error.reason or short(error)})"
        return ConnectFailed(message, tls=True)
    if isinstance(error, socket.gaierror):
        return ConnectFailed(f"cannot resolve the host name {host} ({error.strerror})")
    reason = os.strerror(error.errno) if error.errno else short(error)
    return ConnectFailed(f"cannot connect to {host} port {port} ({reason})")
