"""ASGI middleware of the stateful HTTP endpoint, inside endpoint_auth.Guard (the caller is
authenticated by then): `SessionGuard` limits the MCP sessions one caller holds, and refuses a
request whose JSON-RPC id is already in flight in its session, so that every request gets exactly
one answer (the SDK answers such a twin with a 500, or never)."""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

from .endpoint_auth import App, Scope

SESSION_HEADER = b"mcp-session-id"
INVALID_REQUEST = -32600


class SessionGuard:
    """At most `per_caller` sessions a caller: the Authorization header's value (a token holder), or
    the client's address without one. A session is the caller's from the answer to the `initialize`
    that opened it (its Mcp-Session-Id) until a DELETE of it succeeds or it has been unused `idle`
    seconds (when the SDK ends it too); one more `initialize` gets 429. And a JSON-RPC request whose
    id is in flight in the same session gets 409 at once; the first one is answered as usual."""

    def __init__(
        self, app: App, per_caller: int, idle: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.app, self.per_caller, self.idle, self.clock = app, per_caller, idle, clock
        self.sessions: OrderedDict[bytes, tuple[str, float]] = OrderedDict()  # id: (caller, used)
        self.held: Counter[str] = Counter()  # sessions and `initialize`s in progress, by caller
        self.in_flight: set[tuple[bytes, str]] = set()  # (session, request id)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "DELETE", "GET"):
            return await self.app(scope, receive, send)
        self._forget_idle(self.clock())
        session = _header(scope, SESSION_HEADER)
        if session is not None:
            self._used(session)
            if scope["method"] == "DELETE":
                return await self.app(scope, receive, self._ending(session, send))
        if scope["method"] != "POST":
            return await self.app(scope, receive, send)
        body, replay = await _buffered(receive)
        method, request_id = _request(body)
        if session is not None and request_id is not None:
            return await self._answered_once(scope, replay, send, (session, request_id))
        if session is None and method == "initialize":
            return await self._opening(scope, replay, send, _caller(scope))
        await self.app(scope, replay, send)

    async def _answered_once(
        self, scope: Scope, receive: Any, send: Any, key: tuple[bytes, str]
    ) -> None:
        if key in self.in_flight:
            message = (
                f"Invalid Request: id {key[1]} is in use by a request in flight in this session"
            )
            return await _refuse(send, 409, json.loads(key[1]), message)
        self.in_flight.add(key)
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_flight.discard(key)

    async def _opening(self, scope: Scope, receive: Any, send: Any, caller: str) -> None:
        if self.held[caller] >= self.per_caller:
            return await _refuse(send, 429, None, self._too_many())
        self.held[caller] += 1  # until the answer says whether a session was opened
        opened = False

        async def noting(message: dict[str, Any]) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and not opened:
                found = _header({"headers": message.get("headers", [])}, SESSION_HEADER)
                if found is not None and 200 <= message["status"] < 300:
                    opened = True
                    self.sessions[found] = (caller, self.clock())
            await send(message)

        try:
            await self.app(scope, receive, noting)
        finally:
            if not opened:
                self._release(caller)

    def _used(self, session: bytes) -> None:
        if session in self.sessions:
            self.sessions[session] = (self.sessions[session][0], self.clock())
            self.sessions.move_to_end(session)

    def _ending(self, session: bytes, send: Any) -> Any:
        async def ending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
                self._drop(session)
            await send(message)

        return ending

    def _forget_idle(self, now: float) -> None:
        while self.sessions:
            session, (_caller_key, used) = next(iter(self.sessions.items()))
            if now - used < self.idle:
                return
            self._drop(session)

    def _drop(self, session: bytes) -> None:
        if (entry := self.sessions.pop(session, None)) is not None:
            self._release(entry[0])

    def _release(self, caller: str) -> None:
        self.held[caller] -= 1
        if self.held[caller] <= 0:
            del self.held[caller]

    def _too_many(self) -> str:
        return (
            f"Too many sessions: this caller holds {self.per_caller}, the most allowed. End one"
            " (HTTP DELETE with its Mcp-Session-Id) or wait until an unused one expires."
        )


def _request(body: bytes) -> tuple[str | None, str | None]:
    """A JSON-RPC request's method, and its id as compact JSON (a key; None for a notification);
    (None, None) for anything else: the SDK answers what it is."""
    try:
        message = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None, None
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return None, None
    found = message.get("id")
    usable = isinstance(found, (str, int)) and not isinstance(found, bool)
    return message["method"], json.dumps(found) if usable else None


async def _buffered(receive: Any) -> tuple[bytes, Any]:
    """The request's whole body, and a `receive` that hands it over again, then waits as before."""
    chunks, more = [], True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return b"", receive
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body, sent = b"".join(chunks), False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return dict(await receive())

    return body, replay


def _header(scope: Scope, name: bytes) -> bytes | None:
    found = [value for key, value in scope["headers"] if key.lower() == name]
    return found[0] if len(found) == 1 and found[0] else None


def _caller(scope: Scope) -> str:
    """Who holds a session: a digest of the Authorization header, else the client's address."""
    authorization = _header(scope, b"authorization")
    if authorization is not None:
        return "token:" + hashlib.sha256(authorization).hexdigest()
    client = scope.get("client") or ("", 0)
    return f"address:{client[0]}"


async def _refuse(send: Any, status: int, request_id: Any, message: str) -> None:
    error = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": INVALID_REQUEST, "message": message},
    }
    body = json.dumps(error).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
