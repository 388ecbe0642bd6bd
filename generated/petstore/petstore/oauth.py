"""`--auth oauth`: the server is an OAuth 2.1 resource server (the MCP authorization spec) through the
SDK's auth support: its bearer middleware asks `JwtVerifier` about each request's token (a JWT of
the issuer, signature checked against the issuer's JWKS, `exp`/`nbf`, `iss`, `aud`), refuses one
without the read scope (403 insufficient_scope), and points clients at the protected resource
metadata, served at /.well-known/oauth-protected-resource and its path-suffixed form. A token with
the read scope but not the write scope sees only read-only tools (runtime.ToolRuntime.view_of)."""

from __future__ import annotations

import json
import logging
import threading
import urllib.request
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio.to_thread
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import create_protected_resource_routes
from mcp.server.auth.settings import AuthSettings
from pydantic import AnyHttpUrl

if TYPE_CHECKING or not __package__:  # mypy, or loaded as a top-level module next to its siblings
    from endpoint_auth import App, EndpointAuth  # type: ignore[import-not-found,unused-ignore]
else:
    from .endpoint_auth import App, EndpointAuth

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


def resource_server(auth: EndpointAuth, resource: str) -> tuple[dict[str, Any], dict[str, App]]:
    """The SDK's `streamable_http_app` options, and the metadata routes for endpoint_auth.Guard
    (served before the SDK's own, which would list only the required read scope)."""
    issuer = str(auth.issuer)
    settings = AuthSettings(
        issuer_url=AnyHttpUrl(issuer),
        resource_server_url=AnyHttpUrl(resource),
        required_scopes=[auth.read_scope],  # the write scope implies it: see JwtVerifier
        validate_token_resource=False,  # the verifier checks `aud` itself
    )
    verifier = JwtVerifier(auth, auth.audience or resource)
    scopes = [auth.read_scope, auth.write_scope]
    urls = AnyHttpUrl(resource), [settings.issuer_url]
    route = create_protected_resource_routes(*urls, scopes_supported=scopes)[0]
    paths = {METADATA, METADATA + (urlsplit(resource).path.rstrip("/"))}
    return {"auth": settings, "token_verifier": verifier}, dict.fromkeys(paths, route.endpoint)


class JwksUnavailable(Exception):
    """The issuer's metadata names no JWKS (or cannot be read)."""


class JwtVerifier:
    """The SDK's TokenVerifier for JWT access tokens (PyJWT); the JWKS is fetched once and cached
    (PyJWT refreshes it for an unknown key id). A refused token: None, its reason logged at info
    level (never the token)."""

    def __init__(self, auth: EndpointAuth, audience: str) -> None:
        self.auth, self.audience = auth, audience
        self._keys: Any = None  # jwt.PyJWKClient, made on first use
        self._lock = threading.Lock()

    async def verify_token(self, token: str) -> AccessToken | None:
        import jwt

        try:
            return await anyio.to_thread.run_sync(self._verify, token)
        except (JwksUnavailable, jwt.PyJWKClientConnectionError) as error:
            logger.warning(
                "bearer token refused: the issuer's keys are unavailable: %s", _short(error)
            )
            return None
        except (jwt.PyJWTError, OSError, ValueError, KeyError, TypeError) as error:
            logger.info("bearer token refused: %s", _short(error))
            return None

    def _verify(self, token: str) -> AccessToken:
        import jwt

        key = self._jwks().get_signing_key_from_jwt(token)
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

    def _jwks(self) -> Any:
        import jwt

        with self._lock:
            if self._keys is None:
                url = self.auth.jwks_url or discovered_jwks_url(str(self.auth.issuer))
                self._keys = jwt.PyJWKClient(url, cache_jwk_set=True, lifespan=300, timeout=10)
            return self._keys


def discovered_jwks_url(issuer: str) -> str:
    """The `jwks_uri` of the issuer's metadata: RFC 8414 (oauth-authorization-server, path
    inserted after the host), then OpenID Connect discovery (openid-configuration, appended)."""
    parts = urlsplit(issuer)
    origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
    candidates = [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}{path}/.well-known/openid-configuration",
    ]
    for url in candidates:
        try:
            with urllib.request.urlopen(url, timeout=10) as answer:
                data = json.loads(answer.read(1_000_000))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("jwks_uri"), str):
            return str(data["jwks_uri"])
    raise JwksUnavailable(
        f"no jwks_uri in the metadata of {issuer} ({' or '.join(candidates)}):"
        " set PREFIX_OAUTH_JWKS_URL (PREFIX: this server's variables' prefix)"
    )


def _scopes(claims: dict[str, Any]) -> list[str]:
    """`scope` (a space-separated string, RFC 9068) or `scp` (a list, as some issuers send)."""
    given = claims.get("scope", claims.get("scp", ""))
    items = given.split() if isinstance(given, str) else given if isinstance(given, list) else []
    return [str(item) for item in items]


def _short(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:300]
