"""The runtime's HTTP client and its environment: TLS (PREFIX_CA_BUNDLE, mutual TLS with
PREFIX_CLIENT_CERT/_KEY, SSL_CERT_FILE), proxies from the environment, no credential the server was
not given (~/.netrc, cookies), log lines scrubbed, and the http_client hook of hooks.py. Real sockets
on 127.0.0.1."""

from __future__ import annotations

import ipaddress
import json
import logging
import netrc
import ssl
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest

from .conftest import Make, Reply, Upstream, call, closed_port, hooks_api, runtime, text_of, tool, tool_data
from .test_http_client import get, hc, new_client, scripted

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

DATA = tool_data(tool("getAny", "GET", "/any"), tool("headerKey", "GET", "/secure", security=[["api_key"]]))


# ---- TLS ---------------------------------------------------------------------------------------


def _certificate(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for `name` (a DNS name or an IP address) and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    try:
        alt: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        alt = x509.DNSName(name)
    now = datetime.now(UTC)
    builder = x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
    builder = builder.public_key(key.public_key()).serial_number(x509.random_serial_number())
    builder = builder.not_valid_before(now - timedelta(hours=1)).not_valid_after(now + timedelta(days=1))
    builder = builder.add_extension(x509.SubjectAlternativeName([alt]), critical=False)
    builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
    cert = builder.sign(key, hashes.SHA256())
    cert_file, key_file = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_file, key_file


def _server_context(tmp_path: Path, name: str) -> tuple[ssl.SSLContext, Path]:
    cert_file, key_file = _certificate(tmp_path, name)
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert_file, key_file)
    return server, cert_file


def _verify(**files: Path) -> Any:
    """`verify=` as the runtime builds it from T_CA_BUNDLE, T_CLIENT_CERT and T_CLIENT_KEY."""
    given = {name: str(path) for name, path in files.items()}
    return hc.tls_context(runtime.Settings(base_url="https://h", prefix="T", **given))


async def test_tls_verifies_the_certificate_and_the_host_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, cert_file = _server_context(tmp_path, "127.0.0.1")
    other_server, other_cert = _server_context(tmp_path, "localhost")
    names: list[str | None] = []
    other_server.sni_callback = lambda _socket, name, _context: names.append(name)
    async with scripted(ssl_context=server) as script, scripted(ssl_context=other_server) as other:
        url = script.url.replace("http:", "https:")
        async with new_client() as default:
            with pytest.raises(
                hc.ConnectFailed, match=r"TLS certificate of 127\.0\.0\.1 was not accepted"
            ) as failure:
                await get(default, url)
            assert failure.value.tls and "self-signed" in str(failure.value)
        async with new_client(verify=_verify(ca_bundle=other_cert)) as wrong_name:
            with pytest.raises(
                hc.ConnectFailed, match=r"TLS certificate of 127\.0\.0\.1 .*mismatch"
            ) as failure:
                await get(wrong_name, other.url.replace("http:", "https:"))
            assert failure.value.tls
            assert (await get(wrong_name, f"https://localhost:{other.port}/")).kept == b"ok"
        async with new_client(verify=_verify(ca_bundle=cert_file)) as right:
            assert [(await get(right, url)).kept for _ in range(2)] == [b"ok", b"ok"]
        monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))  # read by httpx2 (trust_env)
        async with new_client() as from_env:
            assert (await get(from_env, url)).kept == b"ok"
        assert (script.connections, other.connections, names) == (
            2,
            1,
            [None, "localhost"],
        )  # no SNI for an IP


async def test_mutual_tls_sends_the_client_certificate(tmp_path: Path) -> None:
    server, cert_file = _server_context(tmp_path, "127.0.0.1")
    client_cert, client_key = _certificate(tmp_path, "mcp-client")
    server.verify_mode = ssl.CERT_REQUIRED
    server.load_verify_locations(client_cert)
    async with scripted(ssl_context=server) as script:
        url = script.url.replace("http:", "https:")
        async with new_client(verify=_verify(ca_bundle=cert_file)) as anonymous:
            with pytest.raises(hc.HttpError):
                await get(anonymous, url)
        mutual = _verify(ca_bundle=cert_file, client_cert=client_cert, client_key=client_key)
        async with new_client(verify=mutual) as identified:
            assert (await get(identified, url)).kept == b"ok"
        both = tmp_path / "both.pem"  # certificate and key in one file: no T_CLIENT_KEY
        both.write_bytes(client_cert.read_bytes() + client_key.read_bytes())
        async with new_client(verify=_verify(ca_bundle=cert_file, client_cert=both)) as identified:
            assert (await get(identified, url)).kept == b"ok"


def test_unusable_tls_files_are_config_errors_naming_the_variable(tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path, "mcp-client")
    _, other_key = _certificate(tmp_path, "other")
    encrypted = tmp_path / "encrypted.key"
    from cryptography.hazmat.primitives import serialization

    loaded = serialization.load_pem_private_key(key.read_bytes(), None)
    encrypted.write_bytes(
        loaded.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"pw"),
        )
    )
    (tmp_path / "not.pem").write_text("not a certificate")
    cases = [
        ({"ca_bundle": tmp_path / "missing.pem"}, "T_CA_BUNDLE: cannot load CA certificates from"),
        ({"ca_bundle": tmp_path / "not.pem"}, "T_CA_BUNDLE: cannot load CA certificates from"),
        ({"client_key": key}, "T_CLIENT_KEY is set without T_CLIENT_CERT"),
        ({"client_cert": tmp_path / "missing.pem"}, "T_CLIENT_CERT: cannot load the client certificate"),
        ({"client_cert": cert}, "T_CLIENT_CERT: cannot load"),  # no key in the file, none given
        ({"client_cert": cert, "client_key": other_key}, "T_CLIENT_CERT / T_CLIENT_KEY: cannot load"),
        ({"client_cert": cert, "client_key": encrypted}, "the private key is encrypted"),
    ]
    for files, message in cases:
        with pytest.raises(runtime.ConfigError, match=message) as raised:
            _verify(**files)
        assert "Traceback" not in str(raised.value)
    assert _verify() is True  # nothing set: httpx2's own trust (SSL_CERT_FILE, SSL_CERT_DIR, the system's)


async def test_the_runtime_reads_the_tls_variables_at_start(tmp_path: Path, make_runtime: Make) -> None:
    with pytest.raises(runtime.ConfigError, match="T_CA_BUNDLE"):
        make_runtime(DATA, {"T_CA_BUNDLE": str(tmp_path / "missing.pem")})
    cert, key = _certificate(tmp_path, "mcp-client")
    tools = make_runtime(DATA, {"T_CLIENT_CERT": str(cert), "T_CLIENT_KEY": str(key)})
    assert isinstance(tools.sender._verify, ssl.SSLContext)


# ---- proxies and credentials nobody configured ------------------------------------------------


async def test_a_proxy_from_the_environment_gets_the_absolute_form_target(
    recording: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = "http://api.example.invalid/v1/x%2Fy?q=a%20b"
    monkeypatch.setenv("HTTP_PROXY", recording.url)
    monkeypatch.setenv("NO_PROXY", "localhost")
    async with new_client() as http:
        answer = await get(http, url)
    assert (answer.status, answer.kept) == (200, b'{"ok":true}')
    assert recording.requests[0].target == url and recording.requests[0].header("User-Agent") == "t/1"


async def test_no_proxy_is_honoured_and_a_dead_proxy_is_named(
    recording: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("NO_PROXY", "example.org,127.0.0.1")
    async with new_client() as http:
        assert (await get(http, recording.url + "/d")).status == 200
        with pytest.raises(hc.ConnectFailed, match="a proxy is set in the environment"):
            await get(http, "http://api.example.invalid/")
    assert [r.target for r in recording.requests] == ["/d"]


async def test_no_credential_from_netrc_or_a_cookie_is_sent(
    make_runtime: Make, upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """httpx2 reads no ~/.netrc (httpx's trust_env once did) and the client keeps no cookies."""
    (tmp_path / ".netrc").write_text("machine 127.0.0.1 login netrc-user password netrc-secret-1\n")
    (tmp_path / ".netrc").chmod(0o600)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("NETRC", str(tmp_path / ".netrc"))
    assert netrc.netrc().authenticators("127.0.0.1") is not None  # it would be found
    upstream.reply(headers={"Set-Cookie": "session=from-the-api; Path=/"})
    tools = make_runtime(DATA)
    for _ in range(2):
        assert not (await call(tools, "getAny", {})).is_error
    assert [(r.header("Authorization"), r.header("Cookie")) for r in upstream.requests] == [(None, None)] * 2


async def test_the_http_libraries_log_lines_are_scrubbed(
    make_runtime: Make, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    key = "sekret-api-key-123"
    upstream.responder = lambda r: Reply(200, b"{}", {"X-Echo": r.header("X-API-Key") or ""})
    result = await call(make_runtime(DATA, {"T_API_KEY_KEY": key}), "headerKey", {})
    assert not result.is_error
    headers_logged = [
        r for r in caplog.records if r.name.startswith("httpcore2") and "X-Echo" in r.getMessage()
    ]
    assert headers_logged and "[REDACTED]" in headers_logged[0].getMessage()
    assert key not in caplog.text


# ---- the http_client hook ----------------------------------------------------------------------


async def test_a_client_hook_sees_the_options_and_may_add_event_hooks(
    make_runtime: Make, upstream: Upstream
) -> None:
    hooks, given, seen = hooks_api.Hooks(), [], []

    @hooks.http_client()
    def configure(options: dict[str, Any]) -> None:
        given.append(dict(options))

        async def record(request: httpx2.Request) -> None:
            seen.append((request.method, str(request.url), request.headers["User-Agent"]))

        options["event_hooks"] = {"request": [record]}

    tools = make_runtime(DATA, hooks=hooks)
    for _ in range(2):
        assert not (await call(tools, "getAny", {})).is_error
    assert len(given) == 1  # once, before the client is made
    assert sorted(given[0]) == ["cookies", "follow_redirects", "limits", "timeout", "trust_env", "verify"]
    assert (given[0]["follow_redirects"], given[0]["timeout"], given[0]["trust_env"]) == (False, None, True)
    assert seen == [("GET", upstream.url + "/api/v1/any", "t-server-mcp/1.2.3")] * 2


async def test_a_client_hook_may_return_options_with_a_transport_of_its_own(
    make_runtime: Make, upstream: Upstream
) -> None:
    hooks = hooks_api.Hooks()

    @hooks.http_client()
    async def mocked(options: dict[str, Any]) -> dict[str, Any]:
        answer = {"mocked": True}
        return {
            **options,
            "transport": httpx2.MockTransport(lambda request: httpx2.Response(200, json=answer)),
        }

    result = await call(make_runtime(DATA, hooks=hooks), "getAny", {})
    assert result.structured_content == {"mocked": True} and upstream.requests == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("raise", "The http_client hook '{name}' in hooks.py failed (RuntimeError: no client today)."),
        ("return", "The http_client hook '{name}' in hooks.py failed (TypeError: it returned list"),
        ("option", "The HTTP client made with the options of the http_client hook(s) '{name}' in hooks.py"),
    ],
)
async def test_a_failing_client_hook_fails_the_call_and_sends_nothing(
    make_runtime: Make, upstream: Upstream, change: str, message: str
) -> None:
    hooks = hooks_api.Hooks()

    @hooks.http_client()
    def broken(options: dict[str, Any]) -> Any:
        if change == "raise":
            raise RuntimeError("no client today")
        options["not_an_option"] = 1
        return [] if change == "return" else None

    tools = make_runtime(DATA, hooks=hooks)
    for _ in range(2):  # not made: tried again on the next call
        result = await call(tools, "getAny", {})
        assert result.is_error and text_of(result).startswith(message.format(name=broken.__qualname__))
        assert text_of(result).endswith("Nothing was sent to the API.")
    assert upstream.requests == []


async def test_concurrent_first_calls_make_one_client(make_runtime: Make, upstream: Upstream) -> None:
    import anyio

    hooks, made = hooks_api.Hooks(), []

    @hooks.http_client()
    async def slow(options: dict[str, Any]) -> None:
        made.append(1)
        await anyio.sleep(0.05)

    tools = make_runtime(DATA, hooks=hooks)
    results: list[Any] = []
    async with anyio.create_task_group() as group:
        for _ in range(5):
            group.start_soon(lambda: _append(results, call(tools, "getAny", {})))
    assert made == [1] and [json.loads(text_of(r)) for r in results] == [{}] * 5


async def _append(results: list[Any], result: Any) -> None:
    results.append(await result)


async def test_a_timeout_from_a_client_hook_is_reported_as_such(
    make_runtime: Make, upstream: Upstream
) -> None:
    hooks = hooks_api.Hooks()

    @hooks.http_client()
    def impatient(options: dict[str, Any]) -> None:
        options["timeout"] = 0.2

    upstream.reply(delay=1.0)
    result = await call(make_runtime(DATA, hooks=hooks), "getAny", {})
    assert text_of(result) == (
        f"The API did not answer GET {upstream.url}/api/v1/any within the timeout set in hooks.py."
        " It may be overloaded or unreachable: try again later."
    )
