"""The routes of the runtime's HTTP client (templates/package/http_client.py): TLS, proxies from the
environment (through httpx2), and `via_httpx2=True` (PREFIX_HTTP_CLIENT=httpx2), which must send the
same requests and give the same answers and errors as the h11 route. Real sockets on 127.0.0.1."""

from __future__ import annotations

import gzip
import ipaddress
import ssl
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from .conftest import closed_port, recording_module, template_module
from .test_http_client import CAP, DRAIN, get, scripted

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

hc = template_module("http_client")
req = template_module("http_request")


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


@pytest.mark.parametrize("via_httpx2", [False, True], ids=["h11", "httpx2"])
async def test_tls_verifies_the_certificate_and_the_host_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, via_httpx2: bool
) -> None:
    server, cert_file = _server_context(tmp_path, "127.0.0.1")
    other_server, other_cert = _server_context(tmp_path, "localhost")
    names: list[str | None] = []
    other_server.sni_callback = lambda _socket, name, _context: names.append(name)
    default = hc.HttpClient(env={}, via_httpx2=via_httpx2)
    right = hc.HttpClient(
        env={}, via_httpx2=via_httpx2, ssl_context=ssl.create_default_context(cafile=str(cert_file))
    )
    wrong_name = hc.HttpClient(
        env={}, via_httpx2=via_httpx2, ssl_context=ssl.create_default_context(cafile=str(other_cert))
    )
    async with scripted(ssl_context=server) as script, scripted(ssl_context=other_server) as other:
        url = script.url.replace("http:", "https:")
        with pytest.raises(
            hc.ConnectFailed, match=r"TLS certificate of 127\.0\.0\.1 was not accepted"
        ) as failure:
            await get(default, url)
        assert failure.value.tls and "self-signed" in str(failure.value)
        with pytest.raises(hc.ConnectFailed, match=r"TLS certificate of 127\.0\.0\.1 .*mismatch") as failure:
            await get(wrong_name, other.url.replace("http:", "https:"))
        assert failure.value.tls
        assert [(await get(right, url)).kept for _ in range(2)] == [b"ok", b"ok"]
        monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))  # OpenSSL's own variable
        from_env = hc.HttpClient(env={}, via_httpx2=via_httpx2)
        assert (await get(from_env, url)).kept == b"ok"
        assert (await get(wrong_name, f"https://localhost:{other.port}/")).kept == b"ok"
        assert (script.connections, other.connections, names) == (
            2,
            1,
            [None, "localhost"],
        )  # no SNI for an IP
    for http in (default, wrong_name, right, from_env):
        await http.aclose()


# ---- proxies -----------------------------------------------------------------------------------


@pytest.mark.parametrize("via_httpx2", [False, True], ids=["h11", "httpx2"])
async def test_a_proxy_from_the_environment_gets_the_absolute_form_target(
    recording: Any, via_httpx2: bool
) -> None:
    url = "http://api.example.invalid/v1/x%2Fy?q=a%20b"
    env = {"HTTP_PROXY": recording.url, "no_proxy": "localhost"}
    http = hc.HttpClient(env=env, via_httpx2=via_httpx2)
    try:
        answer = await get(http, url)
    finally:
        await http.aclose()
    assert (answer.status, answer.kept, answer.headers["content-type"]) == (
        200,
        b'{"ok":true}',
        "application/json",
    )
    assert recording.requests[0].target == url and recording.requests[0].header("User-Agent") == "t/1"


async def test_no_proxy_https_and_lowercase_names_decide_the_route(recording: Any) -> None:
    refused = f"http://127.0.0.1:{closed_port()}"
    direct = hc.HttpClient(env={"HTTP_PROXY": refused, "NO_PROXY": "example.org,127.0.0.1"})
    assert (await get(direct, recording.url + "/d")).status == 200 and recording.requests[0].target == "/d"
    cases = {
        "https://api.example.invalid/": {"HTTP_PROXY": refused},
        "http://a.example.org/": {"http_proxy": refused, "no_proxy": ".example.org"},
    }
    for url, env in cases.items():
        assert hc.HttpClient(env=env)._proxy_for(req.parse_url(url)) is None
    assert (
        hc.HttpClient(env={"ALL_PROXY": "p:3128"})._proxy_for(req.parse_url("https://h/")) == "http://p:3128"
    )
    proxied = hc.HttpClient(env={"HTTP_PROXY": "http://127.0.0.1:9", "http_proxy": refused})
    assert proxied._proxy_for(req.parse_url("http://api.example.invalid/")) == refused
    with pytest.raises(hc.ConnectFailed, match="through the proxy"):
        await get(proxied, "http://api.example.invalid/")
    for http in (direct, proxied):
        await http.aclose()


# ---- via_httpx2: the same requests, the same answers -------------------------------------------

DATA = b"0123456789" * 10_000
PARITY_CASES: list[tuple[str, str, bytes | None, dict[str, int]]] = [  # method, path, body, limits
    ("GET", "/plain?q=a%20b&r=%2F", None, {}),
    ("OPTIONS", "/plain", None, {}),  # sent without the caller's headers: the defaults only
    ("GET", "/plain", None, {"cap": 5}),  # kept up to the cap, the rest counted
    ("HEAD", "/plain", None, {}),
    ("POST", "/plain", b'{"x": 1}', {}),
    ("PUT", "/plain", b"", {}),
    ("PATCH", "/plain", None, {}),
    ("DELETE", "/missing", None, {}),
    ("GET", "/gzip", None, {}),
    ("GET", "/gzip", None, {"cap": 7}),
    ("GET", "/deflate", None, {}),
    ("GET", "/bomb", None, {"cap": 100, "drain_limit": 1000}),  # cut short
]


def _parity_routes() -> dict[str, Any]:
    reply = recording_module().Reply
    plain = (("Content-Type", "text/plain"), ("X-Dup", "1"), ("x-dup", "2"))

    def coded(body: bytes, coding: str) -> Any:
        return reply(body=body, headers=(("Content-Type", "text/plain"), ("Content-Encoding", coding)))

    return {
        "/plain": reply(body=DATA, headers=plain),
        "/missing": reply(status=404, body=b'{"error":"no"}'),
        "/gzip": coded(gzip.compress(DATA), "gzip"),
        "/deflate": coded(zlib.compress(DATA), "deflate"),
        "/bomb": coded(gzip.compress(bytes(20_000_000)), "gzip"),
    }


async def test_via_httpx2_sends_the_same_requests_and_gives_the_same_answers(recording: Any) -> None:
    recording.routes.update(_parity_routes())
    base = recording.url.replace("http://", "http://us%40er:pw@")
    headers = [(b"User-Agent", b"t-mcp/1"), (b"Accept", b"application/json, */*;q=0.8")]
    headers += [(b"X-Dup", b"1"), (b"x-dup", b"2")]
    routes = hc.HttpClient(env={}), hc.HttpClient(env={}, via_httpx2=True)
    answers = []
    try:
        for method, path, body, limits in PARITY_CASES:
            for http in routes:  # interleaved: request 2k by h11, 2k+1 by httpx2
                with anyio.fail_after(10):
                    kw = {"cap": CAP, "drain_limit": DRAIN, **limits}
                    given = [] if method == "OPTIONS" else headers
                    answers.append(await http.exchange(method, base + path, given, body, **kw))
        assert routes[1].open_connections == 0 and routes[1]._httpx2 is not None  # it went through httpx2
    finally:
        for http in routes:
            await http.aclose()
    requests = recording.requests
    assert len(requests) == len(answers) == 2 * len(PARITY_CASES)
    for mine, theirs in zip(requests[0::2], requests[1::2], strict=True):
        assert _request(mine) == _request(theirs), mine.request_line
    for mine, theirs, case in zip(answers[0::2], answers[1::2], PARITY_CASES, strict=True):
        assert _answer(mine) == _answer(theirs), case
    cases = [(method, path, tuple(limits)) for method, path, _, limits in PARITY_CASES]
    h11_answers = dict(zip(cases, answers[0::2], strict=True))
    assert (h11_answers["GET", "/gzip", ()].kept, h11_answers["GET", "/deflate", ()].kept) == (DATA, DATA)
    assert _kept_total_cut(h11_answers["GET", "/gzip", ("cap",)]) == (DATA[:7], len(DATA), False)
    assert _kept_total_cut(h11_answers["GET", "/plain", ("cap",)]) == (DATA[:5], len(DATA), False)
    bomb = h11_answers["GET", "/bomb", ("cap", "drain_limit")]
    assert bomb.cut_short and bomb.kept == bytes(100) and 1100 < bomb.total <= 1100 + 64 * 1024
    assert h11_answers["DELETE", "/missing", ()].status == 404
    assert h11_answers["PATCH", "/plain", ()].headers["x-dup"] == "1, 2"


def _request(record: Any) -> tuple[str, list[tuple[str, str]], bytes]:
    """Request line, headers sorted by lowercased name (repeats keep their order), body."""
    headers = sorted(((name.lower(), value) for name, value in record.headers), key=lambda pair: pair[0])
    return record.request_line, headers, record.body


def _answer(answer: Any) -> tuple[Any, ...]:
    """Everything but Date, which may tick between the two requests."""
    headers = [(name, value) for name, value in answer.headers.raw if name.lower() != "date"]
    return answer.status, answer.reason, headers, answer.kept, answer.total, answer.cut_short


def _kept_total_cut(answer: Any) -> tuple[bytes, int, bool]:
    return answer.kept, answer.total, answer.cut_short


async def test_a_url_httpx2_refuses_is_connect_failed_on_both_routes() -> None:
    url = f"http://127.0.0.1:{closed_port()}/" + "x" * 70_000  # httpx2: InvalidURL (too long)
    messages = []
    for via_httpx2 in (False, True):
        http = hc.HttpClient(env={}, via_httpx2=via_httpx2)
        with pytest.raises(hc.ConnectFailed) as failure:
            await get(http, url)
        messages.append(str(failure.value))
        await http.aclose()
    assert (
        messages[0].startswith("cannot connect to 127.0.0.1") and messages[1] == "invalid URL (URL too long)"
    )
