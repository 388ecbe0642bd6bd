"""oauth.IssuerKeys against a recording upstream standing in for the issuer: what is fetched when
(the JWKS kept, a `kid` it lacks fetching it again at most every KID_COOLDOWN seconds), a failed
fetch pausing the next ones for RETRY_AFTER seconds, the messages naming this server's variables, and
the JWKS's maximum age (PREFIX_OAUTH_JWKS_MAX_AGE).
The end-to-end behaviour (503 with Retry-After, Auth0 and Keycloak shapes) is in
tests/e2e/test_e2e_oauth_issuers.py."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from openapi2mcp_runtime.serving import oauth

from .conftest import Reply, Upstream, runtime

oauth = oauth
jwt = pytest.importorskip("jwt")
rsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.rsa")


def jwks(*kids: str) -> bytes:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    return json.dumps({"keys": [{**jwk, "kid": kid, "use": "sig", "alg": "RS256"} for kid in kids]}).encode()


@pytest.mark.parametrize("issuer", ["https://tenant.auth0.com/", "https://sso.example.com/realms/acme"])
def test_the_issuer_is_kept_exactly_as_configured(issuer: str) -> None:
    env = {"T_BASE_URL": "http://127.0.0.1:9", "T_AUTH": "oauth", "T_OAUTH_ISSUER": issuer}
    auth = runtime.Settings.from_env(env, prefix="T", flags={}).endpoint_auth
    assert (auth.issuer, auth.prefix) == (issuer, "T")
    options, _routes = oauth.resource_server(auth, "http://127.0.0.1:8000/mcp")
    assert str(options["auth"].issuer_url) == issuer


def test_an_issuer_without_metadata_names_the_jwks_variable_and_is_not_asked_again_at_once(
    upstream: Upstream,
) -> None:
    upstream.reply(404)
    keys = oauth.IssuerKeys(upstream.url, None, "T")
    with pytest.raises(oauth.IssuerUnavailable) as first:
        keys.signing_key("k1")
    candidates = [
        f"{upstream.url}/.well-known/oauth-authorization-server",
        f"{upstream.url}/.well-known/openid-configuration",
    ]
    assert first.value.reason == (
        f"no jwks_uri in the metadata of {upstream.url} ({' or '.join(candidates)}): set T_OAUTH_JWKS_URL"
    )
    assert first.value.retry_after == oauth.RETRY_AFTER == 5
    with pytest.raises(oauth.IssuerUnavailable) as paused:
        keys.signing_key("k1")
    assert (paused.value.reason, 1 <= paused.value.retry_after <= 5) == (first.value.reason, True)
    assert [request.target for request in upstream.requests] == [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ]


def test_an_unknown_kid_fetches_the_jwks_again_only_after_the_cooldown(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = {"body": jwks("k1")}
    upstream.responder = lambda _: Reply(body=served["body"])
    keys = oauth.IssuerKeys("https://issuer.example", upstream.url + "/certs", "T")
    assert keys.signing_key("k1").key_id == "k1"
    served["body"] = jwks("k1", "k2")  # the issuer rotates
    with pytest.raises(jwt.InvalidTokenError, match="the issuer's JWKS has no key 'k2'"):
        keys.signing_key("k2")  # the JWKS is 30 s old at most: not fetched again
    assert len(upstream.requests) == 1
    monkeypatch.setattr(oauth, "KID_COOLDOWN", 0.0)
    assert keys.signing_key("k2").key_id == "k2"
    assert keys.signing_key("k1").key_id == "k1"
    assert [request.target for request in upstream.requests] == ["/certs", "/certs"]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply(status=500), "HTTPError: HTTP Error 500: Internal Server Error"),
        (Reply(body=b"<html>"), "JSONDecodeError: Expecting value: line 1 column 1 (char 0)"),
        (Reply(body=b"[]"), "ValueError: URL/certs answered JSON that is not a JWKS"),
        (Reply(body=b'{"keys": []}'), "PyJWKSetError: The JWK Set did not contain any keys"),
    ],
)
def test_a_jwks_that_cannot_be_used_makes_the_keys_unavailable(
    upstream: Upstream, reply: Any, reason: str
) -> None:
    upstream.responder = lambda _: reply
    keys = oauth.IssuerKeys("https://issuer.example", upstream.url + "/certs", "T")
    with pytest.raises(oauth.IssuerUnavailable) as raised:
        keys.signing_key("k1")
    assert (raised.value.reason, raised.value.retry_after) == (reason.replace("URL", upstream.url), 5)


def test_discovery_goes_on_past_a_failing_document_and_warns_of_another_issuer(
    upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    issuer = upstream.url + "/realms/acme"
    metadata = {"issuer": issuer + "/", "jwks_uri": issuer + "/protocol/openid-connect/certs"}
    documents = {
        "/.well-known/oauth-authorization-server/realms/acme": Reply(status=502),
        "/realms/acme/.well-known/openid-configuration": Reply(body=json.dumps(metadata).encode()),
        "/realms/acme/protocol/openid-connect/certs": Reply(body=jwks("k1")),
    }
    upstream.responder = lambda request: documents[request.path]
    keys = oauth.IssuerKeys(issuer, None, "T")
    with caplog.at_level("WARNING", logger=oauth.__name__):
        assert keys.signing_key("k1").key_id == "k1"
    assert [request.target for request in upstream.requests] == list(documents)
    assert caplog.messages == [
        f"{upstream.url}/realms/acme/.well-known/openid-configuration names the issuer {issuer + '/'!r},"
        f" not T_OAUTH_ISSUER={issuer!r}: tokens whose `iss` is not {issuer!r} are refused"
    ]


# ---- PREFIX_OAUTH_JWKS_MAX_AGE -------------------------------------------------------------------


def oauth_settings(**env: str) -> Any:
    base = {"T_BASE_URL": "http://127.0.0.1:9", "T_AUTH": "oauth", "T_OAUTH_ISSUER": "https://issuer.example"}
    return runtime.Settings.from_env({**base, **env}, prefix="T", flags={})


@pytest.mark.parametrize(("raw", "seconds"), [(None, 300.0), ("", 300.0), (" 60 ", 60.0), ("0.5", 0.5)])
def test_the_jwks_max_age_is_a_setting_the_verifier_uses(raw: str | None, seconds: float) -> None:
    auth = oauth_settings(**({} if raw is None else {"T_OAUTH_JWKS_MAX_AGE": raw})).endpoint_auth
    assert auth.jwks_max_age == seconds
    assert oauth.JwtVerifier(auth, "http://127.0.0.1:8000/mcp").keys.max_age == seconds


@pytest.mark.parametrize("raw", ["0", "-5", "5m", "nan", "inf"])
def test_a_bad_jwks_max_age_stops_the_start_naming_the_variable(raw: str) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        oauth_settings(T_OAUTH_JWKS_MAX_AGE=raw)
    message = f"T_OAUTH_JWKS_MAX_AGE must be a number of seconds greater than 0, got {raw!r}"
    assert str(raised.value) == message


def test_the_jwks_is_fetched_again_at_its_max_age_and_never_used_older(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1000.0]
    monkeypatch.setattr(oauth, "time", SimpleNamespace(monotonic=lambda: now[0]))
    served = [Reply(body=jwks("k1"))]
    upstream.responder = lambda _: served[0]
    keys = oauth.IssuerKeys("https://issuer.example", upstream.url + "/certs", "T", max_age=60.0)
    assert keys.signing_key("k1").key_id == "k1"
    now[0] += 59.9
    assert keys.signing_key("k1").key_id == "k1"
    assert len(upstream.requests) == 1
    now[0] += 0.1
    assert keys.signing_key("k1").key_id == "k1"
    assert len(upstream.requests) == 2
    served[0] = Reply(status=503)  # the issuer goes down: keys 60 s old are not used
    now[0] += 60.0
    with pytest.raises(oauth.IssuerUnavailable) as raised:
        keys.signing_key("k1")
    assert raised.value.reason == "HTTPError: HTTP Error 503: Service Unavailable"
    assert len(upstream.requests) == 3
