"""`--auth oauth` against stand-ins of real authorization servers on 127.0.0.1, through the petstore
package on streamable HTTP and the official `mcp` client: one shaped like Auth0 (the issuer is the
origin with its trailing slash, OpenID Connect discovery, the JWKS at /.well-known/jwks.json) and
one like Keycloak (a realm path without a slash, the JWKS at /realms/NAME/protocol/openid-connect/
certs). Their tokens are accepted, the protected resource metadata names the issuer exactly as
configured, and an outage of the issuer or of its keys (500s, a JWKS that hangs past the server's
fetch timeout, the port closed) is answered 503 with Retry-After until it is back."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import pytest
from e2e_support import Generated
from http_support import HttpServer, era_session, post_initialize
from mcp_support import CALL_TIMEOUT, CLIENT_MODES, run_async
from petstore_support import PETS
from recording_upstream import RecordingUpstream

jwt = pytest.importorskip("jwt")
rsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.rsa")

pytestmark = pytest.mark.e2e
RETRY_AFTER = 5  # oauth.RETRY_AFTER of the generated server
FETCH_TIMEOUT = 5  # oauth.FETCH_TIMEOUT: a JWKS that hangs longer is unavailable
HANG = FETCH_TIMEOUT + 3  # how long the stand-in keeps a request it was told to hang
REALM = "/realms/acme"
WHOLE = range(RETRY_AFTER, RETRY_AFTER + 1)  # the Retry-After of the 503 that follows a failed fetch
LEFT = range(1, RETRY_AFTER + 1)  # ... of the 503s of the pause that follows it (the seconds left)


class StandIn:
    """An authorization server on 127.0.0.1, shaped like Auth0 (`shape="auth0"`) or Keycloak. It
    records each request's path; `trouble` maps a path (or "*", every path) to "500" or "hang";
    stop() closes its port and start() opens the same port again."""

    def __init__(self, shape: str) -> None:
        self.shape, self.port = shape, 0
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.requests: list[str] = []
        self.trouble: dict[str, str] = {}
        self._server: ThreadingHTTPServer | None = None
        self._released = threading.Event()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def issuer(self) -> str:
        return self.origin + "/" if self.shape == "auth0" else self.origin + REALM

    @property
    def discovery_path(self) -> str:
        prefix = "" if self.shape == "auth0" else REALM
        return prefix + "/.well-known/openid-configuration"

    @property
    def jwks_path(self) -> str:
        return "/.well-known/jwks.json" if self.shape == "auth0" else REALM + "/protocol/openid-connect/certs"

    def documents(self) -> dict[str, Any]:
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        discovery = {"issuer": self.issuer, "jwks_uri": self.origin + self.jwks_path,
                     "authorization_endpoint": self.issuer.rstrip("/") + "/authorize",
                     "id_token_signing_alg_values_supported": ["RS256"]}  # fmt: skip
        keys = {"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "RS256"}]}
        return {self.discovery_path: discovery, self.jwks_path: keys}

    def token(self, audience: str, scope: str = "mcp:read mcp:write", **changes: Any) -> str:
        now = int(time.time())
        key = changes.pop("signing_key", None) or self.key
        claims = {"iss": self.issuer, "aud": audience, "sub": "auth0|ann", "azp": "agent", "scope": scope,
                  "iat": now, "exp": now + 300, **changes}  # fmt: skip
        return str(jwt.encode(claims, key, algorithm="RS256", headers={"kid": "k1"}))

    def start(self) -> StandIn:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                stand_in.requests.append(self.path)
                trouble = stand_in.trouble.get(self.path, stand_in.trouble.get("*"))
                if trouble == "hang":
                    stand_in._released.wait(HANG)
                    return
                documents = stand_in.documents()
                status = 500 if trouble == "500" else 200 if self.path in documents else 404
                body = json.dumps(documents.get(self.path, {"error": "not found"}) if status != 500 else {})
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._released.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self._server.server_address[1]
        serving = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})
        serving.daemon = True
        serving.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._released.set()
            self._server.shutdown()
            self._server.server_close()
            self._server = None


@pytest.fixture
def stand_in(request: pytest.FixtureRequest) -> Iterator[StandIn]:
    made = StandIn(request.param).start()
    yield made
    made.stop()


def serve(petstore: Generated, upstream: RecordingUpstream, tmp_path: Path, issuer: str) -> HttpServer:
    env = petstore.env(upstream.url, OAUTH_ISSUER=issuer, API_KEY_KEY="server-api-key")
    return HttpServer(petstore, env, tmp_path / "server.log", args=["--auth", "oauth"]).start()


def advertised_issuers(server: HttpServer) -> list[list[str]]:
    origin = server.url.removesuffix("/mcp")
    paths = ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp")
    return [httpx2.get(origin + path, timeout=CALL_TIMEOUT).json()["authorization_servers"] for path in paths]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def serves_a_client(server: HttpServer, token: str, mode: str) -> None:
    async def body() -> Any:
        async with era_session(server.url, mode, bearer(token)) as client:
            return await client.list_tools(), await client.call_tool("listPets", {})

    listing, pets = run_async(body)
    assert "createPet" in [tool.name for tool in listing.tools]
    assert not pets.is_error and pets.structured_content == {"result": PETS}


def assert_unavailable(answer: httpx2.Response, retry_after: range) -> int:
    """A 503 with Retry-After in `retry_after` and no challenge: the token was not judged."""
    assert answer.status_code == 503, (answer.status_code, answer.headers, answer.text)
    assert "www-authenticate" not in answer.headers
    assert answer.json() == {
        "error": "temporarily_unavailable",
        "error_description": "The authorization server's keys cannot be fetched now: retry later",
    }
    assert int(answer.headers["retry-after"]) in retry_after, answer.headers
    return int(answer.headers["retry-after"])


@pytest.mark.parametrize("stand_in", ["auth0"], indirect=True)
def test_an_auth0_issuer_keeps_its_trailing_slash(
    petstore: Generated, upstream: RecordingUpstream, stand_in: StandIn, tmp_path: Path
) -> None:
    assert stand_in.issuer.endswith(f":{stand_in.port}/")
    server = serve(petstore, upstream, tmp_path, stand_in.issuer)
    try:
        assert advertised_issuers(server) == [[stand_in.issuer]] * 2
        for mode in CLIENT_MODES:
            serves_a_client(server, stand_in.token(server.url), mode)
        slashless = post_initialize(server.url, bearer(stand_in.token(server.url, iss=stand_in.origin)))
        forged = post_initialize(server.url, bearer(stand_in.token(server.url, signing_key=stand_in.other)))
    finally:
        server.stop()
    for refused in (slashless, forged):
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
    # RFC 8414's location first (Auth0 has none), then OpenID Connect's; the JWKS fetched once
    assert stand_in.requests == [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
        "/.well-known/jwks.json",
    ]


@pytest.mark.parametrize("stand_in", ["keycloak"], indirect=True)
def test_a_keycloak_realm_outage_is_503_with_retry_after_until_it_is_back(
    petstore: Generated, upstream: RecordingUpstream, stand_in: StandIn, tmp_path: Path
) -> None:
    stand_in.trouble = {"*": "500"}
    server = serve(petstore, upstream, tmp_path, stand_in.issuer)
    try:
        assert advertised_issuers(server) == [[stand_in.issuer]] * 2
        token = stand_in.token(server.url)
        assert_unavailable(post_initialize(server.url, bearer(token)), WHOLE)
        # within Retry-After the issuer is not asked again
        paused = assert_unavailable(post_initialize(server.url, bearer(token)), LEFT)
        assert len(stand_in.requests) == 2
        stand_in.trouble = {stand_in.jwks_path: "hang"}  # the metadata answers, its keys do not
        time.sleep(paused)
        started = time.monotonic()
        assert_unavailable(post_initialize(server.url, bearer(token)), WHOLE)
        assert FETCH_TIMEOUT - 0.5 < time.monotonic() - started < HANG
        stand_in.trouble = {}
        time.sleep(RETRY_AFTER)
        serves_a_client(server, token, "modern")
        forged = post_initialize(server.url, bearer(stand_in.token(server.url, signing_key=stand_in.other)))
        no_scope = post_initialize(server.url, bearer(stand_in.token(server.url, scope="profile email")))
    finally:
        server.stop()
    assert (forged.status_code, no_scope.status_code) == (401, 403)
    rfc8414 = "/.well-known/oauth-authorization-server" + REALM  # Keycloak has none there: 404
    assert stand_in.requests == [
        rfc8414,  # 500: OpenID Connect's location is tried all the same
        stand_in.discovery_path,  # 500 too: an outage
        rfc8414,
        stand_in.discovery_path,
        stand_in.jwks_path,  # hangs
        stand_in.jwks_path,  # the JWKS URL was kept; one fetch for the session and both tokens
    ]


@pytest.mark.parametrize("stand_in", ["auth0"], indirect=True)
def test_an_issuer_that_is_down_is_503_until_it_listens_again(
    petstore: Generated, upstream: RecordingUpstream, stand_in: StandIn, tmp_path: Path
) -> None:
    stand_in.stop()  # its port is closed: connections are refused
    server = serve(petstore, upstream, tmp_path, stand_in.issuer)
    try:
        token = stand_in.token(server.url)
        wait = assert_unavailable(post_initialize(server.url, bearer(token)), WHOLE)
        stand_in.start()
        assert_unavailable(post_initialize(server.url, bearer(token)), LEFT)
        assert stand_in.requests == []  # paused: the issuer is not asked before Retry-After
        time.sleep(wait)
        serves_a_client(server, token, "legacy")
    finally:
        server.stop()
    assert len(stand_in.requests) == 3
