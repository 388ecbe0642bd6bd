"""Endpoint authentication and per-request credentials in the runtime (templates/package/
endpoint_auth.py, request_credentials.py): the settings and their messages, the non-loopback
refusal, endpoint_auth.Guard as an ASGI app (tokens compared in constant time, the credential header
moved out of the headers), and each security scheme filled from a request's credential against a
recording upstream."""

from __future__ import annotations

import base64
from types import SimpleNamespace
from typing import Any

import pytest

from openapi2mcp_runtime.serving import endpoint_auth

from .conftest import Make, ScopeRecorder, Upstream, runtime, text_of, tool, tool_data

endpoint_auth = endpoint_auth
mcp_types = pytest.importorskip("mcp_types")

# ---- settings --------------------------------------------------------------------------------


def settings(env: dict[str, str], **flags: Any) -> Any:
    return runtime.Settings.from_env({"T_BASE_URL": "http://127.0.0.1:9", **env}, prefix="T", flags=flags)


def test_defaults_are_no_auth_and_environment_credentials() -> None:
    made = settings({})
    assert (made.endpoint_auth.mode, made.credential_source) == (
        "none",
        endpoint_auth.CredentialSource("env", "X-Upstream-Authorization"),
    )


def test_the_flag_wins_over_the_variable_and_tokens_are_comma_separated() -> None:
    made = settings({"T_AUTH": "oauth", "T_MCP_TOKENS": " a-token , ,b-token", "T_CREDENTIALS": "env"},
                    auth="token", credentials="from-request")  # fmt: skip
    assert made.endpoint_auth.mode == "token"
    assert made.endpoint_auth.tokens == ("a-token", "b-token")
    assert made.credential_source.mode == "from-request"
    assert "a-token" not in repr(made.endpoint_auth)


@pytest.mark.parametrize(
    ("env", "flags", "message"),
    [
        ({"T_AUTH": "tokens"}, {}, "T_AUTH must be one of none, token, oauth, got 'tokens'"),
        (
            {},
            {"auth": "token"},
            "--auth token needs T_MCP_TOKENS: the accepted bearer tokens, comma-separated",
        ),
        ({"T_MCP_TOKENS": " , "}, {"auth": "token"}, "--auth token needs T_MCP_TOKENS"),
        ({"T_AUTH": "oauth"}, {}, "--auth oauth needs T_OAUTH_ISSUER: the URL of the authorization server"),
        ({"T_CREDENTIALS": "header"}, {}, "T_CREDENTIALS must be one of env, from-request, got 'header'"),
        ({"T_RESOURCE_URL": "example.com/mcp"}, {}, "T_RESOURCE_URL must be an absolute http(s) URL"),
    ],
)
def test_a_bad_setting_is_a_config_error_naming_it(
    env: dict[str, str], flags: dict[str, str], message: str
) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        settings(env, **flags)
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.0.1", True), ("::1", True), ("[::1]", True), ("localhost", True),
     ("0.0.0.0", False), ("::", False), ("192.168.1.20", False), ("example.com", False)],
)  # fmt: skip
def test_only_loopback_hosts_may_serve_without_auth(host: str, loopback: bool) -> None:
    none, token = endpoint_auth.EndpointAuth(), endpoint_auth.EndpointAuth("token", ("t",))
    assert endpoint_auth.is_loopback(host) is loopback
    problem = endpoint_auth.bind_problem(host, none, False)
    assert (problem is None) is loopback
    if problem:
        assert (
            f"--host {host}" in problem and "--auth token" in problem and "--allow-unauthenticated" in problem
        )
    assert endpoint_auth.bind_problem(host, none, True) is None
    assert endpoint_auth.bind_problem(host, token, False) is None


# ---- the Guard middleware --------------------------------------------------------------------


async def through(
    guard: Any, headers: list[tuple[bytes, bytes]], path: str = "/mcp/readonly"
) -> dict[str, Any]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await guard({"type": "http", "path": path, "headers": headers, "state": {}}, None, send)
    start = sent[0]
    return {"status": start["status"], "headers": dict(start["headers"]), "body": sent[1]["body"]}


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("authorization", "challenge"),
    [(None, b"Bearer"), (b"Bearer wrong-token", b'Bearer error="invalid_token"'),
     (b"Bearer token-on", b'Bearer error="invalid_token"'),
     (b"Basic dG9rZW4tb25l", b'Bearer error="invalid_request"'),
     (b"Bearer ", b'Bearer error="invalid_request"')],
)  # fmt: skip
async def test_a_request_without_an_accepted_token_gets_401(
    authorization: bytes | None, challenge: bytes
) -> None:
    inner = ScopeRecorder()
    guard = endpoint_auth.Guard(inner, ("token-one", "token-two"))
    headers = [(b"authorization", authorization)] if authorization else []
    answer = await through(guard, headers)
    assert (answer["status"], answer["headers"][b"www-authenticate"]) == (401, challenge)
    assert inner.scopes == []


@pytest.mark.anyio
async def test_an_accepted_token_passes_after_a_constant_time_compare_with_every_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compared: list[tuple[bytes, bytes]] = []
    real = endpoint_auth.hmac.compare_digest

    def counting(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return bool(real(a, b))

    monkeypatch.setattr(endpoint_auth.hmac, "compare_digest", counting)
    inner = ScopeRecorder()
    guard = endpoint_auth.Guard(inner, ("token-one", "token-two", "token-three"))
    answer = await through(guard, [(b"authorization", b"bearer  token-two ")])
    assert (answer["status"], answer["body"]) == (200, b"ok")
    assert compared == [
        (b"token-two", b"token-one"),
        (b"token-two", b"token-two"),
        (b"token-two", b"token-three"),
    ]
    assert inner.scopes[0]["path"] == "/mcp/readonly"


@pytest.mark.anyio
async def test_the_credential_header_moves_into_the_request_state() -> None:
    inner = ScopeRecorder()
    guard = endpoint_auth.Guard(inner, credential_header="X-Upstream-Authorization")
    headers = [(b"x-upstream-authorization", b" Bearer user-token "), (b"x-other", b"1")]
    assert (await through(guard, headers))["status"] == 200
    assert inner.scopes[0]["headers"] == [(b"x-other", b"1")]
    assert inner.scopes[0]["state"] == {endpoint_auth.CREDENTIAL_KEY: "Bearer user-token"}
    await through(guard, [(b"x-other", b"2")])
    assert inner.scopes[1]["state"] == {}


# ---- credentials from the request ------------------------------------------------------------

DATA = tool_data(
    tool("headerKey", "GET", "/secure", security=[["api_key"]]),
    tool("queryKey", "GET", "/secure", security=[["query_key"]]),
    tool("cookieKey", "GET", "/secure", security=[["cookie_key"]]),
    tool("bearerOnly", "GET", "/secure", security=[["bearer"]]),
    tool("basicOnly", "GET", "/secure", security=[["basic"]]),
    tool("oauthOnly", "GET", "/secure", security=[["oauth"]]),
    tool("optionalKey", "GET", "/secure", security=[[], ["api_key"]]),
    tool("open", "GET", "/open"),
)
FROM_REQUEST = {
    "T_CREDENTIALS": "from-request",
    "T_API_KEY_KEY": "server-own-key",
    "T_BEARER_TOKEN": "server-token",
}


def request_ctx(credential: str | None) -> Any:
    state = {endpoint_auth.CREDENTIAL_KEY: credential} if credential else {}
    return SimpleNamespace(request=SimpleNamespace(scope={"state": state}, headers={}))


async def call_with(tools: Any, name: str, credential: str | None) -> Any:
    params = mcp_types.CallToolRequestParams(name=name, arguments={})
    return await tools.on_call_tool(request_ctx(credential), params)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "credential", "where", "sent"),
    [
        ("headerKey", "user-key-1", "X-API-Key", "user-key-1"),
        ("queryKey", "user key/2", "query", "api_key=user%20key%2F2"),
        ("cookieKey", "user-cookie", "Cookie", "sid=user-cookie"),
        ("bearerOnly", "user-token", "Authorization", "Bearer user-token"),
        ("bearerOnly", "Bearer user-token", "Authorization", "Bearer user-token"),
        ("oauthOnly", "user-access-token", "Authorization", "Bearer user-access-token"),
        (
            "basicOnly",
            "ann:pass word",
            "Authorization",
            "Basic " + base64.b64encode(b"ann:pass word").decode(),
        ),
        ("basicOnly", "Basic YW5uOnB3", "Authorization", "Basic YW5uOnB3"),
        ("optionalKey", "user-key-1", "X-API-Key", "user-key-1"),
    ],
)
async def test_the_request_credential_fills_the_operation_scheme(
    make_runtime: Make, upstream: Upstream, name: str, credential: str, where: str, sent: str
) -> None:
    result = await call_with(make_runtime(DATA, env=FROM_REQUEST), name, credential)
    assert not result.is_error, text_of(result)
    got = upstream.last.query if where == "query" else upstream.last.header(where)
    assert got == sent
    assert "server-own-key" not in str(upstream.last.headers) and "server-token" not in str(
        upstream.last.headers
    )


@pytest.mark.anyio
async def test_without_the_header_a_secured_call_fails_naming_it_and_nothing_is_sent(
    make_runtime: Make, upstream: Upstream
) -> None:
    tools = make_runtime(DATA, env={**FROM_REQUEST, "T_CREDENTIALS_HEADER": "X-My-Key"})
    result = await call_with(tools, "headerKey", None)
    assert result.is_error
    assert text_of(result) == (
        "This operation needs your API credential: send it in the X-My-Key header of the MCP HTTP"
        " request (this server uses each caller's own credential). Nothing was sent to the API."
    )
    assert upstream.requests == []
    for name in ("optionalKey", "open"):  # anonymous access needs none
        assert not (await call_with(tools, name, None)).is_error
        assert upstream.last.header("X-API-Key") is None


@pytest.mark.anyio
async def test_the_request_credential_is_scrubbed_from_its_result_and_not_kept(
    make_runtime: Make, upstream: Upstream
) -> None:
    tools = make_runtime(DATA, env=FROM_REQUEST)
    upstream.reply(body='{"echo": "user-secret-token", "again": "Bearer user-secret-token"}')
    result = await call_with(tools, "bearerOnly", "user-secret-token")
    assert result.structured_content == {"echo": "[REDACTED]", "again": "Bearer [REDACTED]"}
    assert "user-secret-token" not in text_of(result)
    assert "user-secret-token" not in str(tools.credentials.secrets)  # gone with the call
