"""`--auth oauth`: the server is an OAuth 2.1 resource server (the MCP authorization spec) through the
SDK's auth support: its bearer middleware asks `JwtVerifier` about each request's token (a JWT of
the issuer, signature checked against the issuer's JWKS, `exp`/`nbf`, `iss` exactly as configured,
`aud`), refuses one without the read scope (403 insufficient_scope), and points clients at the
protected resource metadata, served at /.well-known/oauth-protected-resource and its path-suffixed
form. A token with the read scope but not the write scope sees only read-only tools
(runtime.ToolRuntime.view_of). When the issuer's keys cannot be fetched, `OutageAnswers` turns the
SDK's 401 into 503 with Retry-After: the token was not judged, and the client should retry.

How long a fetched JWKS is used is a setting, {PREFIX}_OAUTH_JWKS_MAX_AGE (EndpointAuth.jwks_max_age,
default 300 s): it is how long a key the issuer has withdrawn is still accepted, and how long the
server rides out an issuer that is down, a trade an operator makes. The other timings are module
constants: FETCH_TIMEOUT (an issuer slower than 5 s is treated as down: waiting longer holds every
request that needs the keys), KID_COOLDOWN (only bounds how often tokens of unknown `kid`s can make
the server fetch the JWKS; a rotated key is found within it) and RETRY_AFTER (how often a down
issuer is asked again, and the 503's Retry-After); no operator need was seen for them."""

from __future__ import annotations

import http.client
import json
import logging
import math
import threading
import time
import urllib.error
import urllib.request
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

import anyio.to_thread
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import create_protected_resource_routes
from mcp.server.auth.settings import AuthSettings

from .endpoint_auth import App, EndpointAuth, Scope

logger = logging.getLogger(__name__)

# asymmetric signatures only: never `none`, never an HMAC keyed with a public key
ALGORITHMS = [
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
]
METADATA = "/.well-known/oauth-protected-resource"
FETCH_TIMEOUT = 5.0  # seconds for each request to the issuer (its metadata, its JWKS)
KID_COOLDOWN = 30.0  # a token of an unknown `kid` fetches the JWKS again at most this often
RETRY_AFTER = 5  # seconds after a failed fetch without another: the Retry-After of the 503s
# the Retry-After of the request being served when the issuer's keys were unavailable (OutageAnswers)
_OUTAGE: ContextVar[list[int] | None] = ContextVar("openapi2mcp_oauth_outage", default=None)


def resource_server(auth: EndpointAuth, resource: str) -> tuple[dict[str, Any], dict[str, App]]:
    """The SDK's `streamable_http_app` options, and the metadata routes for endpoint_auth.Guard
    (served before the SDK's own, which would list only the required read scope). The issuer and
    the resource reach the metadata as configured: a path-less URL keeps or lacks its slash."""
    settings = AuthSettings.model_validate(
        {
            "issuer_url": auth.issuer,
            "resource_server_url": resource,
            "required_scopes": [auth.read_scope],  # the write scope implies it: see JwtVerifier
            "validate_token_resource": False,  # the verifier checks `aud` itself
        }
    )
    verifier = JwtVerifier(auth, auth.audience or resource)
    scopes = [auth.read_scope, auth.write_scope]
    assert settings.resource_server_url is not None
    urls = settings.resource_server_url, [settings.issuer_url]
    route = create_protected_resource_routes(*urls, scopes_supported=scopes)[0]
    paths = {METADATA, METADATA + (urlsplit(resource).path.rstrip("/"))}
    return {"auth": settings, "token_verifier": verifier}, dict.fromkeys(paths, route.endpoint)


class JwksUnavailable(Exception):
    """The issuer's metadata names no JWKS."""


class IssuerUnavailable(Exception):
    """The issuer's metadata or keys could not be fetched: ask again in `retry_after` seconds."""

    def __init__(self, reason: str, retry_after: int) -> None:
        super().__init__(reason)
        self.reason, self.retry_after = reason, retry_after


class JwtVerifier:
    """The SDK's TokenVerifier for JWT access tokens (PyJWT), with the issuer's keys of IssuerKeys.
    A refused token: None, its reason logged at info level (never the token). Keys unavailable:
    None too, and OutageAnswers answers 503 in place of the SDK's 401."""

    def __init__(self, auth: EndpointAuth, audience: str) -> None:
        self.auth, self.audience = auth, audience
        self.keys = IssuerKeys(str(auth.issuer), auth.jwks_url, auth.prefix, auth.jwks_max_age)

    async def verify_token(self, token: str) -> AccessToken | None:
        import jwt

        try:
            return await anyio.to_thread.run_sync(self._verify, token)
        except IssuerUnavailable as error:
            logger.info("bearer token not checked, answered 503: %s", error.reason)
            if (outage := _OUTAGE.get()) is not None:
                outage.append(error.retry_after)
            return None
        except (jwt.PyJWTError, OSError, ValueError, KeyError, TypeError) as error:
            logger.info("bearer token refused: %s", _short(error))
            return None

    def _verify(self, token: str) -> AccessToken:
        import jwt

        kid = jwt.get_unverified_header(token).get("kid")
        key = self.keys.signing_key(kid if isinstance(kid, str) else "")
        claims = jwt.decode(
            token,
            key.key,
            algorithms=ALGORITHMS,
            audience=self.audience,
            issuer=self.auth.issuer,
            options={"require": ["exp", "iss", "aud"]},
            leeway=30,
        )
        scopes = _scopes(claims)
        if self.auth.write_scope in scopes and self.auth.read_scope not in scopes:
            scopes.append(self.auth.read_scope)  # writing includes reading
        client = claims.get("client_id") or claims.get("azp") or claims.get("sub") or ""
        return AccessToken(
            token=token,
            client_id=str(client),
            scopes=scopes,
            expires_at=int(claims["exp"]),
            resource=self.audience,
            subject=str(claims["sub"]) if "sub" in claims else None,
            claims={"iss": claims["iss"]},
        )


class IssuerKeys:
    """The issuer's signing keys, by `kid`. The JWKS URL: the configured one, else the `jwks_uri` of
    the issuer's metadata (kept once found). The JWKS is used `max_age` seconds, then fetched
    again; a `kid` not in it fetches it again if the last fetch is KID_COOLDOWN seconds old, else
    the token is refused. A fetch that fails (unreachable, a timeout, an error status, not JSON, no
    usable key, no JWKS named) raises IssuerUnavailable, as does every fetch of the next
    RETRY_AFTER seconds, without trying: a down issuer is asked once per RETRY_AFTER at most. Keys
    older than `max_age` are never used, even while the issuer is down."""

    def __init__(
        self,
        issuer: str,
        jwks_url: str | None,
        prefix: str,
        max_age: float = EndpointAuth.jwks_max_age,
    ) -> None:
        self.issuer, self.prefix, self.url, self.max_age = issuer, prefix, jwks_url, max_age
        self._keys: dict[str, Any] = {}  # kid: jwt.PyJWK
        self._fetched = -math.inf  # time.monotonic() of the last fetch of the JWKS
        self._failure = -math.inf, ""  # when the last fetch failed, and why
        self._lock = threading.Lock()  # one fetch at a time; the others wait for its keys

    def signing_key(self, kid: str) -> Any:
        """The jwt.PyJWK of `kid`; jwt.InvalidTokenError if the JWKS has none."""
        import jwt

        with self._lock:
            age = time.monotonic() - self._fetched
            if age >= self.max_age or (kid not in self._keys and age >= KID_COOLDOWN):
                self._keys = self._fetch()
                self._fetched = time.monotonic()
            if kid not in self._keys:
                raise jwt.InvalidTokenError(f"the issuer's JWKS has no key {kid[:100]!r}")
            return self._keys[kid]

    def _fetch(self) -> dict[str, Any]:
        """The JWKS's signing keys; IssuerUnavailable."""
        import jwt

        def fetch() -> dict[str, Any]:
            self.url = self.url or discovered_jwks_url(self.issuer, self.prefix)
            data = _get_json(self.url)
            if not isinstance(data, dict):
                raise ValueError(f"{self.url} answered JSON that is not a JWKS")
            keys = jwt.PyJWKSet.from_dict(data).keys
            return {k.key_id: k for k in keys if k.key_id and k.public_key_use in ("sig", None)}

        since, reason = time.monotonic() - self._failure[0], self._failure[1]
        if since < RETRY_AFTER:
            raise IssuerUnavailable(reason, max(1, math.ceil(RETRY_AFTER - since)))
        try:
            return fetch()
        except (OSError, ValueError, http.client.HTTPException, jwt.PyJWTError) as error:
            self._failure = time.monotonic(), _short(error)
        except JwksUnavailable as error:
            self._failure = time.monotonic(), str(error)
        logger.warning("the issuer's keys are unavailable: %s", self._failure[1])
        raise IssuerUnavailable(self._failure[1], RETRY_AFTER)


def _get_json(url: str) -> Any:
    """The JSON document at `url` (at most 1 MB): urllib.error.HTTPError for an error status,
    OSError when unreachable or after FETCH_TIMEOUT seconds, ValueError when not JSON."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as answer:
        return json.loads(answer.read(1_000_000))


def discovered_jwks_url(issuer: str, prefix: str) -> str:
    """The `jwks_uri` of the issuer's metadata: RFC 8414 (oauth-authorization-server, path
    inserted after the host), then OpenID Connect discovery (openid-configuration, appended).
    A document missing (4xx), failing (5xx, 429) or not JSON: the next one. The issuer unreachable:
    OSError; none naming a JWKS: the HTTPError of a failing one (an outage), else JwksUnavailable.
    """
    parts = urlsplit(issuer)
    origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
    candidates = [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}{path}/.well-known/openid-configuration",
    ]
    failed: urllib.error.HTTPError | None = None
    for url in candidates:
        try:
            data = _get_json(url)
        except urllib.error.HTTPError as error:
            error.close()
            failed = error if error.code >= 500 or error.code == 429 else failed
            continue
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("jwks_uri"), str):
            if data.get("issuer", issuer) != issuer:
                logger.warning(
                    "%s names the issuer %r, not %s=%r: tokens whose `iss` is not %r are refused",
                    *(url, data.get("issuer"), f"{prefix}_OAUTH_ISSUER", issuer, issuer),
                )
            return str(data["jwks_uri"])
    if failed is not None:
        raise failed
    raise JwksUnavailable(
        f"no jwks_uri in the metadata of {issuer} ({' or '.join(candidates)}):"
        f" set {prefix}_OAUTH_JWKS_URL"
    )


class OutageAnswers:
    """ASGI middleware around the SDK's app: a request the SDK refuses with 401 because the issuer's
    keys were unavailable (JwtVerifier) is answered 503 with Retry-After instead."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        outage: list[int] = []
        replaced = False

        async def answer(message: dict[str, Any]) -> None:
            nonlocal replaced
            start = message["type"] == "http.response.start"
            if start and message["status"] == 401 and outage:
                replaced = True
                await _unavailable(send, outage[-1])
            elif not replaced:
                await send(message)

        reset = _OUTAGE.set(outage)
        try:
            await self.app(scope, receive, answer)
        finally:
            _OUTAGE.reset(reset)


async def _unavailable(send: Any, retry_after: int) -> None:
    description = "The authorization server's keys cannot be fetched now: retry later"
    body = json.dumps({"error": "temporarily_unavailable", "error_description": description})
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(retry_after).encode()),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body.encode()})


def _scopes(claims: dict[str, Any]) -> list[str]:
    """`scope` (a space-separated string, RFC 9068) or `scp` (a list, as some issuers send)."""
    given = claims.get("scope", claims.get("scp", ""))
    items = given.split() if isinstance(given, str) else given if isinstance(given, list) else []
    return [str(item) for item in items]


def _short(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:300]
