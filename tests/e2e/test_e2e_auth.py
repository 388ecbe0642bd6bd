"""Endpoint authentication and per-user credentials end to end: the petstore package on streamable
HTTP (127.0.0.1) with the official `mcp` client in both protocol eras. `--auth token` (401s, the
right token works), `--auth oauth` against a JWKS served on 127.0.0.1 (RSA keys made here, tokens
signed with PyJWT: expired, wrong audience, wrong issuer, bad signature refused; the read scope
sees only read-only tools; the protected resource metadata), the non-loopback refusal, and
`--credentials from-request` (two concurrent sessions reach the upstream with their own key)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from e2e_support import Generated, minimal_env, read_text, run_tool
from http_support import HttpServer, era_session, post_initialize
from mcp import MCPError
from mcp_support import CALL_TIMEOUT, MODES, run_async, text_of
from petstore_support import PETS
from recording_upstream import Recorded, RecordingUpstream, Reply, Responder

jwt = pytest.importorskip("jwt")
rsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.rsa")

pytestmark = pytest.mark.e2e


def serve(
    petstore: Generated, upstream: RecordingUpstream, tmp_path: Path, args: list[str], **env: str
) -> HttpServer:
    server = HttpServer(petstore, petstore.env(upstream.url, **env), tmp_path / "server.log", args=args)
    return server.start()


# ---- --auth token ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def token_server(
    petstore: Generated, upstream: RecordingUpstream, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    tokens = "first-mcp-token,second-mcp-token"
    server = serve(petstore, upstream, tmp_path_factory.mktemp("token"), ["--auth", "token"],
                   MCP_TOKENS=tokens, API_KEY_KEY="server-api-key")  # fmt: skip
    yield server
    server.stop()


def test_token_mode_refuses_a_request_without_the_right_token(token_server: HttpServer) -> None:
    missing = post_initialize(token_server.url)
    assert (missing.status_code, missing.headers["www-authenticate"]) == (401, "Bearer")
    wrong = post_initialize(token_server.url, {"Authorization": "Bearer first-mcp-tokens"})
    assert (wrong.status_code, wrong.headers["www-authenticate"]) == (401, 'Bearer error="invalid_token"')
    narrowed = post_initialize(token_server.url + "/readonly", {"Authorization": "Bearer nope"})
    assert narrowed.status_code == 401
    assert post_initialize(token_server.url, {"Authorization": "Bearer second-mcp-token"}).status_code == 200


@MODES
@pytest.mark.representative(mode="legacy")  # (CI's second pass: tests/conftest.py)
def test_token_mode_serves_a_client_with_an_accepted_token(token_server: HttpServer, mode: str) -> None:
    async def body() -> tuple[Any, Any]:
        async with era_session(
            token_server.url, mode, {"Authorization": "Bearer second-mcp-token"}
        ) as client:
            return await client.list_tools(), await client.call_tool("listPets", {})

    listing, pets = run_async(body)
    assert "createPet" in [tool.name for tool in listing.tools]
    assert not pets.is_error and pets.structured_content == {"result": PETS}


# ---- a non-loopback host ---------------------------------------------------------------------


def test_a_non_loopback_host_without_auth_exits_2_naming_both_flags(
    petstore: Generated, tmp_path: Path
) -> None:
    env = minimal_env({"PETSTORE_BASE_URL": "http://127.0.0.1:9"})
    done = run_tool([petstore.command, "--transport", "http", "--host", "0.0.0.0"], env, tmp_path, timeout=60)
    assert done.returncode == 2, str(done)
    assert done.stderr.startswith("petstore: --host 0.0.0.0 serves every machine that can reach it"), str(
        done
    )
    assert "--auth token or --auth oauth" in done.stderr and "--allow-unauthenticated" in done.stderr


def test_allow_unauthenticated_lets_it_bind(petstore: Generated, tmp_path: Path) -> None:
    """Servers here listen on 127.0.0.1 only: 192.0.2.1 (TEST-NET-1, never this machine's) passes the
    check and then fails to bind, which the refusal above would have prevented."""
    env = minimal_env({"PETSTORE_BASE_URL": "http://127.0.0.1:9"})
    argv: list[str | Path] = [
        petstore.command,
        "--transport",
        "http",
        "--host",
        "192.0.2.1",
        "--port",
        "9",
        "--allow-unauthenticated",
    ]
    done = run_tool(argv, env, tmp_path, timeout=60)
    assert done.returncode == 3, str(done)  # uvicorn: could not start
    assert "192.0.2.1" in done.stderr and "--auth" not in done.stderr, str(done)


# ---- --auth oauth ----------------------------------------------------------------------------


class Issuer:
    """An authorization server's keys and metadata on 127.0.0.1 (RFC 8414 metadata, a JWKS)."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        self.jwks = {"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "RS256"}]}
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                documents = {
                    "/.well-known/oauth-authorization-server": {
                        "issuer": issuer.url,
                        "jwks_uri": issuer.url + "/keys",
                    },
                    "/keys": issuer.jwks,
                }
                body = json.dumps(documents.get(self.path, {})).encode()
                self.send_response(200 if self.path in documents else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def token(self, audience: str, scope: str = "mcp:read mcp:write", **changes: Any) -> str:
        now = int(time.time())
        claims = {"iss": self.url, "aud": audience, "sub": "ann", "client_id": "agent", "scope": scope,
                  "iat": now, "exp": now + 300, **changes}  # fmt: skip
        key = changes.pop("signing_key", None) or self.key
        claims.pop("signing_key", None)
        return str(jwt.encode(claims, key, algorithm="RS256", headers={"kid": "k1"}))


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    made = Issuer()
    yield made
    made.server.shutdown()
    made.server.server_close()


@pytest.fixture(scope="module")
def oauth_server(
    petstore: Generated, upstream: RecordingUpstream, issuer: Issuer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    server = serve(petstore, upstream, tmp_path_factory.mktemp("oauth"), ["--auth", "oauth"],
                   OAUTH_ISSUER=issuer.url, API_KEY_KEY="server-api-key")  # fmt: skip
    yield server
    server.stop()


def test_oauth_serves_the_protected_resource_metadata(oauth_server: HttpServer, issuer: Issuer) -> None:
    origin = oauth_server.url.removesuffix("/mcp")
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
        answer = httpx2.get(origin + path, timeout=CALL_TIMEOUT)
        assert answer.status_code == 200, path
        document = answer.json()
        assert document["resource"] == oauth_server.url
        assert document["authorization_servers"] == [issuer.url]  # as configured: without a slash
        assert document["scopes_supported"] == ["mcp:read", "mcp:write"]
    missing = post_initialize(oauth_server.url)
    assert missing.status_code == 401
    challenge = missing.headers["www-authenticate"]
    assert f'resource_metadata="{origin}/.well-known/oauth-protected-resource/mcp"' in challenge


def test_oauth_refuses_bad_tokens_with_401_and_no_scope_with_403(
    oauth_server: HttpServer, issuer: Issuer
) -> None:
    url = oauth_server.url
    refused = {
        "expired": issuer.token(url, exp=int(time.time()) - 120),
        "not yet valid": issuer.token(url, nbf=int(time.time()) + 600),
        "wrong audience": issuer.token("http://127.0.0.1:1/mcp"),
        "wrong issuer": issuer.token(url, iss="http://127.0.0.1:1"),
        "bad signature": issuer.token(url, signing_key=issuer.other),
        "not a JWT": "not-a-jwt",
    }
    for what, token in refused.items():
        answer = post_initialize(url, {"Authorization": f"Bearer {token}"})
        assert (answer.status_code, 'error="invalid_token"' in answer.headers["www-authenticate"]) == (
            401,
            True,
        ), what
    no_scope = post_initialize(url, {"Authorization": f"Bearer {issuer.token(url, scope='profile')}"})
    assert no_scope.status_code == 403
    assert 'error="insufficient_scope"' in no_scope.headers["www-authenticate"]
    assert post_initialize(url, {"Authorization": f"Bearer {issuer.token(url)}"}).status_code == 200


@MODES
@pytest.mark.representative(mode="modern")
def test_oauth_read_scope_sees_only_read_only_tools(
    oauth_server: HttpServer, issuer: Issuer, mode: str
) -> None:
    url = oauth_server.url

    async def body() -> tuple[Any, Any, Any, MCPError]:
        async with era_session(url, mode, {"Authorization": f"Bearer {issuer.token(url)}"}) as client:
            every = await client.list_tools()
        async with era_session(
            url, mode, {"Authorization": f"Bearer {issuer.token(url, scope='mcp:read')}"}
        ) as client:
            listing = await client.list_tools()
            pets = await client.call_tool("listPets", {})
            with pytest.raises(MCPError) as refused:
                await client.call_tool("createPet", {"name": "Tom"})
        return every, listing, pets, refused.value

    every, listing, pets, refused = run_async(body)
    read_only = [t.name for t in every.tools if t.annotations and t.annotations.read_only_hint]
    assert "createPet" in [t.name for t in every.tools] and read_only
    assert [t.name for t in listing.tools] == read_only
    assert not pets.is_error and pets.structured_content == {"result": PETS}
    assert (refused.error.code, refused.error.message) == (-32602, "Unknown tool: createPet")


# ---- --credentials from-request --------------------------------------------------------------


def echo(record: Recorded) -> Reply:
    """A pet named after the key the request carried (the server must scrub it from the result)."""
    return Reply(body=json.dumps({"id": record.path, "name": f"key {record.header('X-API-Key')}"}).encode())


@contextmanager
def from_request(
    petstore: Generated, answer: Responder, tmp_path: Path, **env: str
) -> Iterator[tuple[RecordingUpstream, HttpServer]]:
    """An upstream that answers GET /pets/... with `answer`, and the petstore package with
    `--credentials from-request` on HTTP in front of it; both stopped afterwards."""
    upstream = RecordingUpstream(routes={"/pets/": answer}).start()
    server = serve(petstore, upstream, tmp_path, [], CREDENTIALS="from-request", **env)
    try:
        yield upstream, server
    finally:
        server.stop()
        upstream.stop()


def test_from_request_credentials_stay_with_their_own_session(petstore: Generated, tmp_path: Path) -> None:
    users = {"ann": "ann-secret-key-1", "bob": "bob-secret-key-2"}
    results: dict[str, list[Any]] = {user: [] for user in users}
    with from_request(petstore, echo, tmp_path, API_KEY_KEY="server-own-key") as (upstream, server):

        async def one_user(user: str, mode: str) -> None:
            async with era_session(server.url, mode, {"X-Upstream-Authorization": users[user]}) as client:
                for number in range(6):
                    results[user].append(await client.call_tool("showPetById", {"petId": f"{user}-{number}"}))

        async def body() -> Any:
            async with anyio.create_task_group() as group:
                group.start_soon(one_user, "ann", "legacy")
                group.start_soon(one_user, "bob", "modern")
            async with era_session(server.url, "legacy") as client:
                return await client.call_tool("showPetById", {"petId": "nobody"})

        without = run_async(body)
    seen = [(r.path.split("/")[-1].split("-")[0], r.header("X-API-Key")) for r in upstream.requests]
    assert sorted(seen) == sorted([("ann", users["ann"])] * 6 + [("bob", users["bob"])] * 6)
    for calls in results.values():
        assert all(not result.is_error for result in calls), [text_of(r) for r in calls]
        assert all(result.structured_content["name"] == "key [REDACTED]" for result in calls)
    assert without.is_error and "X-Upstream-Authorization header" in text_of(without)
    log = read_text(server.log)
    assert not any(secret in log for secret in [*users.values(), "server-own-key"]), log


@pytest.mark.parametrize("raw", ["pässwörd-key-9".encode(), b"p\xe4sswort-key-7"], ids=["utf-8", "latin-1"])
def test_a_non_ascii_request_credential_reaches_the_api_as_sent_and_is_scrubbed(
    petstore: Generated, tmp_path: Path, raw: bytes
) -> None:
    """The header's bytes reach the API unchanged (they were read as latin-1 and sent as UTF-8);
    the API echoing those bytes back gets them redacted from the result and the log."""

    def echo_raw(record: Recorded) -> Reply:
        sent = (record.header("X-API-Key") or "").encode("latin-1")
        return Reply(401, b"unknown key " + sent, (("Content-Type", "text/plain; charset=utf-8"),))

    with from_request(petstore, echo_raw, tmp_path) as (upstream, server):

        async def body() -> Any:
            async with era_session(server.url, "legacy", {"X-Upstream-Authorization": raw}) as client:
                return await client.call_tool("showPetById", {"petId": "p1"})

        result = run_async(body)
    assert [(r.header("X-API-Key") or "").encode("latin-1") for r in upstream.requests] == [raw]
    shown, log = text_of(result), read_text(server.log)
    assert result.is_error and "unknown key [REDACTED]" in shown, shown
    for form in (raw.decode("latin-1"), raw.decode("utf-8", "replace")):
        assert form not in shown and form not in log, form
