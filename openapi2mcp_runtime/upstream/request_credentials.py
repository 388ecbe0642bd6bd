"""`--credentials from-request`: each MCP HTTP request brings the caller's own API credential in a
header (endpoint_auth.Guard moves it out of the headers into the request's state); `bound` makes it
the credential of the calls that request runs, and `RequestCredentials` applies it to the
operation's security scheme. It lives in a context variable for the length of one call: never
stored, never shared between requests or sessions, scrubbed from that call's result and logs.
The server's own credential variables are not read in this mode."""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from ..serving.endpoint_auth import CREDENTIAL_KEY
from ..settings import ToolError
from . import serialize as ser
from .credentials import Chosen, Credentials, Key, Post, put_key, secret_forms


@dataclass(frozen=True)
class Given:
    """One request's credential, and the forms it may take in a result or a log line."""

    value: str
    secrets: frozenset[str]


_CURRENT: ContextVar[Given | None] = ContextVar("openapi2mcp_request_credential", default=None)
_USABLE = ("apiKey", "http", "oauth2", "openIdConnect")


@contextmanager
def bound(ctx: Any) -> Iterator[None]:
    """The credential of the request behind `ctx` (none over stdio) for the calls inside."""
    scope = getattr(getattr(ctx, "request", None), "scope", None) or {}
    value = (scope.get("state") or {}).get(CREDENTIAL_KEY)
    given = None
    if isinstance(value, str) and value:
        token = value.split(" ", 1)[1].strip() if " " in value else value
        pair = base64.b64encode(ser.wire_bytes(value)).decode()
        given = Given(value, frozenset(secret_forms(value, token, pair)))
    reset = _CURRENT.set(given)
    try:
        yield
    finally:
        _CURRENT.reset(reset)


class RequestCredentials(Credentials):
    """Credentials from the current request's header instead of the environment."""

    def __init__(self, schemes: Mapping[str, Any], header: str, base_url: str | None) -> None:
        self.header = header
        super().__init__(schemes, {}, base_url)  # no environment: nothing to take from there

    @property
    def secrets(self) -> set[str]:
        """The server's own (PREFIX_HEADERS) and the current request's."""
        given = _CURRENT.get()
        return self._own | given.secrets if given is not None else self._own

    @secrets.setter
    def secrets(self, value: set[str]) -> None:
        self._own = value

    def add_secrets(self, *values: str | None) -> None:
        self._own.update(secret_forms(*values))

    def needed(self, security: Sequence[Sequence[tuple[str, tuple[str, ...]]]]) -> str | None:
        """None: no variable to set here (choose() names the header a call lacks)."""
        return None

    def choose(self, security: Sequence[Sequence[tuple[str, tuple[str, ...]]]]) -> Chosen:
        """The first alternative of one usable scheme, when the request brought a credential;
        anonymous access when the operation allows it; else a ToolError naming the header."""
        anonymous = not security or any(not alternative for alternative in security)
        if _CURRENT.get() is not None:
            for alternative in security:
                if (
                    len(alternative) == 1
                    and self.schemes.get(alternative[0][0], {}).get("type") in _USABLE
                ):
                    name, scopes = alternative[0]
                    return [(name, self.schemes[name], scopes)]
        if anonymous:
            return []
        if _CURRENT.get() is None:
            raise ToolError(
                f"This operation needs your API credential: send it in the {self.header} header of"
                " the MCP HTTP request (this server uses each caller's own credential). Nothing was"
                " sent to the API."
            )
        raise ToolError(
            "This operation's security schemes cannot be filled from one credential"
            f" ({self.header}). Nothing was sent to the API."
        )

    async def apply(
        self, request: ser.PreparedRequest, chosen: Chosen, stale: Mapping[Key, str], post: Post
    ) -> dict[Key, str]:
        """apiKey: the value is the key; http basic: `user:password` (or `Basic ...` as is);
        bearer, other http schemes, oauth2, openIdConnect: the token (`Bearer ` is optional)."""
        given = _CURRENT.get()
        if given is None:
            return {}
        value, what = given.value, f"header {self.header}"
        try:
            for _name, scheme, _scopes in chosen:
                kind, http = scheme.get("type"), str(scheme.get("scheme")).lower()
                if kind == "apiKey":
                    put_key(request, scheme, what, value)
                elif kind == "http" and http == "basic":
                    basic = value if value.lower().startswith("basic ") else _basic(value)
                    request.headers["Authorization"] = ser.checked_header(what, basic)
                else:
                    token = value[7:].strip() if value.lower().startswith("bearer ") else value
                    label = "Bearer" if kind != "http" or http == "bearer" else http.capitalize()
                    request.headers["Authorization"] = ser.checked_header(what, f"{label} {token}")
        except ser.ArgumentError as error:
            raise ToolError(f"{error}. Nothing was sent to the API.") from None
        return {}


def _basic(pair: str) -> str:
    return "Basic " + base64.b64encode(ser.wire_bytes(pair)).decode()
