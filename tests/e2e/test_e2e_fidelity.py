"""Exact HTTP fidelity (issue 3), end to end: specs/fidelity.yaml generated and installed, its server
started over stdio with the `mcp` client, and every tool called against a recording upstream
(recording_upstream.py). Each test asserts the exact method, raw path, raw query, headers and body
bytes that reached the upstream, or the MCP form of the answer.

Most calls share one server session (the `main` fixture runs them all once, in order, and keeps
each call's result with the requests it caused); timeouts and the response cap need other
settings and have their own session."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_support import Generated, Packages, dump
from mcp_support import run_async, stdio_session, text_of
from recording_upstream import Recorded, RecordingUpstream, Reply, Responder

pytestmark = pytest.mark.e2e

BASE_PATH = "/api/v1"
USER_AGENT = "fidelity-mcp/1.2.3"

KEY_HEADER = "hdr-key-1234567"
KEY_QUERY = "qry key/+&=1234"  # needs percent-encoding in the query
KEY_COOKIE = "cookie-key-98765"
BEARER = "bearer-token-abcdef"
BASIC_USER, BASIC_PASSWORD = "alice", "s3cret:pass-word"
CLIENT_ID, CLIENT_SECRET = "client-id-42", "client-secret-42"
FETCHED_TOKEN = "fetched-token-xyz789"
READY_TOKEN = "ready-access-token-7"
STATIC_SECRET = "static-secret-header-555"
BASIC_B64 = base64.b64encode(f"{BASIC_USER}:{BASIC_PASSWORD}".encode()).decode()
SECRETS = [
    KEY_HEADER,
    KEY_QUERY,
    "qry%20key%2F%2B%26%3D1234",
    KEY_COOKIE,
    BEARER,
    BASIC_PASSWORD,
    BASIC_B64,
    CLIENT_SECRET,
    FETCHED_TOKEN,
    READY_TOKEN,
    STATIC_SECRET,
]

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f"
    b"\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00"
    b"\x00IEND\xaeB`\x82"
)
WAV = (
    b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00D\xac\x00\x00\x88X\x01\x00"
    b"\x02\x00\x10\x00data\x00\x00\x00\x00"
)
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n\x00\xff"
ALL_BYTES = bytes(range(256))
HOSTILE = "a/b c?d#e%../x"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def echo_headers(record: Recorded) -> Reply:
    """A careless API that echoes the request (credentials included) in its answer."""
    body = json.dumps({"headers": dict(record.headers), "target": record.target}).encode()
    return Reply(200, body)


ROUTES: dict[str, Any] = {
    "/oauth/token": Reply(
        200,
        json.dumps({"access_token": FETCHED_TOKEN, "token_type": "Bearer", "expires_in": 3600}).encode(),
    ),
    f"{BASE_PATH}/auth/": echo_headers,
    f"{BASE_PATH}/resp/object": Reply(200, b'{"id": 7, "name": "Rex"}'),
    f"{BASE_PATH}/resp/array": Reply(200, b"[1, 2, 3]"),
    f"{BASE_PATH}/resp/empty": lambda record: (
        # HEAD: the headers a GET would have, no body; DELETE: 204 No Content
        Reply(200, b"", (("Content-Type", "application/json"), ("Content-Length", "42")))
        if record.method == "HEAD"
        else Reply(204, b"", ())
    ),
    f"{BASE_PATH}/resp/image": Reply(200, PNG, (("Content-Type", "image/png"),)),
    f"{BASE_PATH}/resp/audio": Reply(200, WAV, (("Content-Type", "audio/wav"),)),
    f"{BASE_PATH}/resp/pdf": Reply(
        200,
        PDF,
        (("Content-Type", "application/pdf"), ("Content-Disposition", 'attachment; filename="report.pdf"')),
    ),
    f"{BASE_PATH}/resp/csv": Reply(200, b"a,b\n1,2\n", (("Content-Type", "text/csv; charset=utf-8"),)),
    f"{BASE_PATH}/resp/xml": Reply(200, b"<r><a>1</a></r>", (("Content-Type", "application/xml"),)),
    f"{BASE_PATH}/resp/limited": Reply(
        429,
        b'{"error": "slow down"}',
        (("Content-Type", "application/json"), ("Retry-After", "120")),
    ),
    f"{BASE_PATH}/resp/error": Reply(503, b"E" * 3000, (("Content-Type", "text/plain"),)),
    f"{BASE_PATH}/resp/slow": Reply(200, b'{"late": true}', delay=4.0),
    f"{BASE_PATH}/resp/bad-json": Reply(200, b'{"broken": ', (("Content-Type", "application/json"),)),
    f"{BASE_PATH}/resp/big": Reply(200, b"0123456789" * 100, (("Content-Type", "text/plain"),)),
}

# (key, tool, arguments): the calls of the main session, in order.
CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("path_hostile", "getItem", {"id": HOSTILE}),
    ("path_dots", "getItem", {"id": ".."}),
    ("path_styles", "pathStyles", {"plain": ["a", "b"], "lbl": ["c", "d"], "mtx": {"x": 1, "y": 2}}),
    (
        "query",
        "search",
        {
            "tags": ["x", "y"],
            "ids": [1, 2, 3],
            "words": ["a", "b"],
            "pipes": ["a", "b"],
            "filter": {"status": "open", "owner": "me"},
            "point": {"x": 1, "y": 2},
            "rgb": {"R": 100, "G": 200},
            "raw": "a/b?c:d,e#f&g",
            "flag": True,
            "off": False,
            "q": "Grüße €",
        },
    ),
    ("query_none", "search", {"q": "only"}),
    ("path_key_query", "cityReport", {"city": "São Paulo", "day": "mon"}),
    (
        "headers",
        "headerParams",
        {
            "X-Tags": ["a", "b"],
            "X-Obj": {"a": "x", "b": 2},
            "X-Obj-Exploded": {"a": "x", "b": 2},
            "X-Flag": True,
            "X-Text": "plain text",
            "sid": "abc 1",
            "theme": "dark",
        },
    ),
    ("header_crlf", "headerParams", {"X-Text": "a\r\nX-Injected: 1"}),
    ("header_lf", "headerParams", {"X-Tags": ["ok", "b\nX-Injected: 1"]}),
    (
        "json",
        "postJson",
        {"name": "Zoë", "count": 3, "active": False, "tags": ["a"], "meta": {"note": "n"}},
    ),
    ("plus_json", "patchVendor", {"name": "n", "gone": None}),
    (
        "form",
        "postForm",
        {"name": "Jane Doe", "subscribed": True, "tags": ["a", "b"], "colors": ["red", "green"]},
    ),
    ("multipart", "upload", {"file": b64(PNG), "title": "Hi there", "count": 2}),
    ("octet", "putBlob", {"body": b64(ALL_BYTES)}),
    ("text", "postNote", {"body": "héllo\nworld"}),
    ("choice", "postChoice", {"name": "n"}),
    ("key_header", "authKeyHeader", {}),
    ("key_query", "authKeyQuery", {"page": 2}),
    ("key_cookie", "authKeyCookie", {"theme": "dark"}),
    ("bearer", "authBearer", {}),
    ("basic", "authBasic", {}),
    ("oauth_cc_1", "authOauthClientCredentials", {}),
    ("oauth_cc_2", "authOauthClientCredentials", {}),
    ("oauth_ready", "authOauthReadyToken", {}),
    ("alternatives", "authAlternatives", {}),
    ("combination", "authCombination", {}),
    ("none", "authNone", {}),
    ("missing", "authMissing", {}),
    ("resp_object", "respObject", {}),
    ("resp_array", "respArray", {}),
    ("resp_empty", "respEmpty", {}),
    ("resp_head", "respHead", {}),
    ("resp_image", "respImage", {}),
    ("resp_audio", "respAudio", {}),
    ("resp_pdf", "respPdf", {}),
    ("resp_csv", "respCsv", {}),
    ("resp_xml", "respXml", {}),
    ("resp_limited", "respLimited", {}),
    ("resp_server_error", "respServerError", {}),
    ("resp_bad_json", "respBadJson", {}),
]


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any]
    result: Any
    requests: list[Recorded]

    @property
    def wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = self.result.model_dump(by_alias=True, exclude_none=True, mode="json")
        return wire

    @property
    def text(self) -> str:
        return text_of(self.result)

    @property
    def request(self) -> Recorded:
        assert len(self.requests) == 1, f"{self.tool}: expected 1 request, got {self.requests}"
        return self.requests[0]

    def ok(self) -> Recorded:
        assert not self.result.is_error, f"{self.tool}({self.arguments}) failed: {dump(self.wire)}"
        return self.request


@dataclass(frozen=True)
class MainRun:
    calls: dict[str, Call]
    tools: dict[str, Any]
    port: int

    def __getitem__(self, key: str) -> Call:
        return self.calls[key]


@pytest.fixture(scope="module")
def fidelity(packages: Packages) -> Generated:
    return packages.get("fidelity.yaml")


@pytest.fixture(scope="module")
def upstream() -> Iterator[RecordingUpstream]:
    with RecordingUpstream(routes=dict(ROUTES)) as server:
        yield server


def server_env(fidelity: Generated, upstream: RecordingUpstream, **extra: str) -> dict[str, str]:
    return fidelity.env(
        upstream.url + BASE_PATH,
        HEADERS=json.dumps({"X-Tenant": "acme", "X-Static-Secret": STATIC_SECRET}),
        KEY_HEADER_KEY=KEY_HEADER,
        KEY_QUERY_KEY=KEY_QUERY,
        KEY_COOKIE_KEY=KEY_COOKIE,
        BEARER_TOKEN=BEARER,
        BASIC_USERNAME=BASIC_USER,
        BASIC_PASSWORD=BASIC_PASSWORD,
        OAUTH_CC_CLIENT_ID=CLIENT_ID,
        OAUTH_CC_CLIENT_SECRET=CLIENT_SECRET,
        OAUTH_CC_TOKEN_URL=upstream.url + "/oauth/token",
        OAUTH_CODE_TOKEN=READY_TOKEN,
        **extra,
    )


def session(fidelity: Generated, env: dict[str, str], tmp_path: Path) -> AbstractAsyncContextManager[Any]:
    """A stdio client session on the fidelity server, its stderr in tmp_path/server.stderr."""
    return stdio_session(fidelity.command, env=env, errlog=tmp_path / "server.stderr")


@pytest.fixture(scope="module")
def main(
    fidelity: Generated, upstream: RecordingUpstream, tmp_path_factory: pytest.TempPathFactory
) -> MainRun:
    errlog = tmp_path_factory.mktemp("fidelity") / "server.stderr"

    async def body() -> tuple[dict[str, Call], dict[str, Any]]:
        calls: dict[str, Call] = {}
        async with stdio_session(
            fidelity.command, env=server_env(fidelity, upstream), errlog=errlog
        ) as client:
            listing = await client.list_tools()
            for key, tool, arguments in CALLS:
                mark = upstream.mark()
                result = await client.call_tool(tool, arguments)
                calls[key] = Call(tool, arguments, result, upstream.since(mark))
        return calls, {tool.name: tool for tool in listing.tools}

    calls, tools = run_async(body)
    return MainRun(calls, tools, upstream.port)


def assert_common(request: Recorded, port: int) -> None:
    """What every request carries: Host, the User-Agent naming the server, PREFIX_HEADERS."""
    assert request.header("Host") == f"127.0.0.1:{port}", request.headers
    assert request.header("User-Agent") == USER_AGENT, request.headers
    assert request.header("X-Tenant") == "acme", request.headers
    assert request.header("X-Static-Secret") == STATIC_SECRET, request.headers


def assert_no_auth(request: Recorded, *, but: str = "") -> None:
    present = {
        "Authorization": request.header("Authorization"),
        "X-Api-Key": request.header("X-Api-Key"),
        "X-Unset": request.header("X-Unset"),
        "Cookie": request.header("Cookie"),
        "api_key": "api_key=" in request.query or None,
    }
    extra = {k: v for k, v in present.items() if v is not None and k != but}
    assert not extra, f"unexpected credentials: {extra}"


# ---- requests: path ------------------------------------------------------------------------------


def test_path_hostile_value_is_one_segment(main: MainRun) -> None:
    request = main["path_hostile"].ok()
    assert request.method == "GET"
    assert request.target == f"{BASE_PATH}/items/a%2Fb%20c%3Fd%23e%25..%2Fx", request.target
    assert request.request_line == f"GET {request.target} HTTP/1.1"
    assert_common(request, main.port)
    assert request.body == b""


def test_path_dots_are_no_traversal(main: MainRun) -> None:
    assert main["path_dots"].ok().target == f"{BASE_PATH}/items/%2E%2E"


def test_path_simple_label_matrix(main: MainRun) -> None:
    assert main["path_styles"].ok().target == f"{BASE_PATH}/styles/a,b/.c,d/;x=1;y=2"


# ---- requests: query -----------------------------------------------------------------------------


def test_query_styles(main: MainRun) -> None:
    request = main["query"].ok()
    assert request.path == f"{BASE_PATH}/search"
    assert request.query.split("&") == [
        "tags=x",
        "tags=y",  # form, explode true
        "ids=1,2,3",  # form, explode false
        "words=a%20b",  # spaceDelimited
        "pipes=a|b",  # pipeDelimited
        "filter[status]=open",
        "filter[owner]=me",  # deepObject
        "x=1",
        "y=2",  # form object, explode true
        "rgb=R,100,G,200",  # form object, explode false
        "raw=a/b?c:d,e%23f%26g",  # allowReserved (# and & still encoded)
        "flag=true",
        "off=false",
        "q=Gr%C3%BC%C3%9Fe%20%E2%82%AC",  # non-ASCII, UTF-8 percent-encoded
    ], request.query
    assert "optional" not in request.query


def test_query_optional_not_sent(main: MainRun) -> None:
    request = main["query_none"].ok()
    assert request.target == f"{BASE_PATH}/search?q=only", request.target


def test_a_path_keys_fixed_query_comes_first_then_its_templated_parameter(main: MainRun) -> None:
    request = main["path_key_query"].ok()  # the path key `/report?format=csv&city={city}`
    assert request.target == f"{BASE_PATH}/report?format=csv&city=S%C3%A3o%20Paulo&day=mon", request.target


# ---- requests: headers and cookies --------------------------------------------------------------


def test_header_and_cookie_parameters(main: MainRun) -> None:
    request = main["headers"].ok()
    assert request.target == f"{BASE_PATH}/headers"
    assert request.header("X-Tags") == "a,b"
    assert request.header("X-Obj") == "a,x,b,2"
    assert request.header("X-Obj-Exploded") == "a=x,b=2"
    assert request.header("X-Flag") == "true"
    assert request.header("X-Text") == "plain text"
    assert request.all("Cookie") == ["sid=abc%201; theme=dark"], request.headers
    assert_common(request, main.port)
    assert request.header("X-Api-Key") == KEY_HEADER  # the spec's default security


@pytest.mark.parametrize("key", ["header_crlf", "header_lf"])
def test_header_injection_is_a_tool_error_and_nothing_sent(main: MainRun, key: str) -> None:
    call = main[key]
    assert call.result.is_error, dump(call.wire)
    assert "control characters" in call.text and "Nothing was sent" in call.text, call.text
    assert call.requests == [], call.requests
    assert call.result.structured_content is None


# ---- requests: bodies ----------------------------------------------------------------------------


def test_json_body(main: MainRun) -> None:
    request = main["json"].ok()
    assert (request.method, request.target) == ("POST", f"{BASE_PATH}/json")
    assert request.header("Content-Type") == "application/json"
    assert request.body == '{"name":"Zoë","count":3,"active":false,"tags":["a"],"meta":{"note":"n"}}'.encode()
    assert request.header("Content-Length") == str(len(request.body))


def test_plus_json_body(main: MainRun) -> None:
    request = main["plus_json"].ok()
    assert (request.method, request.target) == ("PATCH", f"{BASE_PATH}/vendor")
    assert request.header("Content-Type") == "application/merge-patch+json"
    assert request.body == b'{"name":"n","gone":null}'


def test_form_body_with_encoding_styles(main: MainRun) -> None:
    request = main["form"].ok()
    assert (request.method, request.target) == ("POST", f"{BASE_PATH}/form")
    assert request.header("Content-Type") == "application/x-www-form-urlencoded"
    assert request.body == b"name=Jane%20Doe&subscribed=true&tags=a,b&colors=red|green"


def test_multipart_body(main: MainRun) -> None:
    request = main["multipart"].ok()
    assert (request.method, request.target) == ("POST", f"{BASE_PATH}/upload")
    content_type = request.header("Content-Type") or ""
    match = re.fullmatch(r"multipart/form-data; boundary=([0-9A-Za-z'()+_,./:=?-]{1,70})", content_type)
    assert match, content_type
    boundary = match.group(1).encode()
    expected = (
        b"--" + boundary + b"\r\n"
        b'Content-Disposition: form-data; name="file"; filename="file"\r\n'
        b"Content-Type: image/png\r\n"
        b"\r\n" + PNG + b"\r\n"
        b"--" + boundary + b"\r\n"
        b'Content-Disposition: form-data; name="title"\r\n'
        b"\r\n"
        b"Hi there\r\n"
        b"--" + boundary + b"\r\n"
        b'Content-Disposition: form-data; name="count"\r\n'
        b"\r\n"
        b"2\r\n"
        b"--" + boundary + b"--\r\n"
    )
    assert request.body == expected, request.body
    assert boundary not in PNG


def test_octet_stream_body(main: MainRun) -> None:
    request = main["octet"].ok()
    assert (request.method, request.target) == ("PUT", f"{BASE_PATH}/blob")
    assert request.header("Content-Type") == "application/octet-stream"
    assert request.body == ALL_BYTES


def test_text_plain_body(main: MainRun) -> None:
    request = main["text"].ok()
    assert (request.method, request.target) == ("POST", f"{BASE_PATH}/note")
    assert (request.header("Content-Type") or "").split(";")[0] == "text/plain"
    assert request.body == "héllo\nworld".encode()


def test_several_media_types_choose_json_and_say_so(main: MainRun) -> None:
    request = main["choice"].ok()
    assert request.header("Content-Type") == "application/json"
    assert request.body == b'{"name":"n"}'
    description = main.tools["postChoice"].description
    assert "Request body is sent as application/json" in description, description
    assert "application/xml" in description, description


# ---- auth ----------------------------------------------------------------------------------------


def test_api_key_header(main: MainRun) -> None:
    request = main["key_header"].ok()
    assert request.header("X-Api-Key") == KEY_HEADER
    assert_no_auth(request, but="X-Api-Key")
    assert_common(request, main.port)


def test_api_key_query(main: MainRun) -> None:
    request = main["key_query"].ok()
    assert request.target == f"{BASE_PATH}/auth/key-query?page=2&api_key=qry%20key%2F%2B%26%3D1234"
    assert_no_auth(request, but="api_key")


def test_api_key_cookie_shares_the_cookie_header(main: MainRun) -> None:
    request = main["key_cookie"].ok()
    assert request.all("Cookie") == [f"theme=dark; session={KEY_COOKIE}"], request.headers
    assert_no_auth(request, but="Cookie")


def test_http_bearer(main: MainRun) -> None:
    request = main["bearer"].ok()
    assert request.header("Authorization") == f"Bearer {BEARER}"
    assert_no_auth(request, but="Authorization")


def test_http_basic(main: MainRun) -> None:
    request = main["basic"].ok()
    assert request.header("Authorization") == f"Basic {BASIC_B64}"
    assert_no_auth(request, but="Authorization")


def test_oauth2_client_credentials_token_fetched_once(main: MainRun) -> None:
    first, second = main["oauth_cc_1"], main["oauth_cc_2"]
    assert not first.result.is_error and not second.result.is_error, dump([first.wire, second.wire])
    token_request, api_request = first.requests
    assert (token_request.method, token_request.target) == ("POST", "/oauth/token")
    assert token_request.header("Content-Type") == "application/x-www-form-urlencoded"
    client = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
    assert token_request.header("Authorization") == f"Basic {client}"
    assert token_request.body == b"grant_type=client_credentials&scope=read"
    assert token_request.header("User-Agent") == USER_AGENT
    assert api_request.target == f"{BASE_PATH}/auth/oauth-cc"
    assert api_request.header("Authorization") == f"Bearer {FETCHED_TOKEN}"
    (again,) = second.requests  # the cached token: no second token request
    assert again.target == f"{BASE_PATH}/auth/oauth-cc"
    assert again.header("Authorization") == f"Bearer {FETCHED_TOKEN}"


def test_oauth2_ready_token(main: MainRun) -> None:
    request = main["oauth_ready"].ok()
    assert request.header("Authorization") == f"Bearer {READY_TOKEN}"
    assert_no_auth(request, but="Authorization")


def test_security_alternatives_first_satisfiable_wins(main: MainRun) -> None:
    request = main["alternatives"].ok()  # unset_key is not set; bearer is the first that is
    assert request.header("Authorization") == f"Bearer {BEARER}"
    assert_no_auth(request, but="Authorization")


def test_security_combination_sends_both(main: MainRun) -> None:
    request = main["combination"].ok()
    assert request.target == f"{BASE_PATH}/auth/combination?api_key=qry%20key%2F%2B%26%3D1234"
    assert request.header("Authorization") == f"Bearer {BEARER}"
    assert request.header("X-Api-Key") is None


def test_security_empty_means_none(main: MainRun) -> None:
    request = main["none"].ok()
    assert request.target == f"{BASE_PATH}/auth/none"
    assert_no_auth(request)
    assert_common(request, main.port)


def test_missing_credential_names_the_variable_and_sends_nothing(main: MainRun) -> None:
    call = main["missing"]
    assert call.result.is_error, dump(call.wire)
    assert "FIDELITY_UNSET_KEY_KEY" in call.text, call.text
    assert call.requests == []
    assert call.result.structured_content is None


def test_no_credential_in_any_result(main: MainRun) -> None:
    """The auth routes echo the request headers back (a careless API): still nothing leaks."""
    assert "[REDACTED]" in main["bearer"].text, main["bearer"].text
    for key, call in main.calls.items():
        wire = json.dumps(call.wire, ensure_ascii=False)
        leaked = [secret for secret in SECRETS if secret in wire]
        assert not leaked, f"{key}: {leaked} in {wire[:2000]}"


# ---- responses -----------------------------------------------------------------------------------


def test_json_object_response(main: MainRun) -> None:
    call = main["resp_object"]
    call.ok()
    assert call.result.structured_content == {"id": 7, "name": "Rex"}
    assert json.loads(call.text) == {"id": 7, "name": "Rex"}


def test_json_array_response_is_wrapped(main: MainRun) -> None:
    call = main["resp_array"]
    call.ok()
    assert call.result.structured_content == {"result": [1, 2, 3]}
    assert json.loads(call.text) == {"result": [1, 2, 3]}


def test_empty_response(main: MainRun) -> None:
    call = main["resp_empty"]
    request = call.ok()
    assert (request.method, request.target) == ("DELETE", f"{BASE_PATH}/resp/empty")
    assert "204" in call.text and len(call.text) < 100, call.text
    assert call.result.structured_content is None


def test_head_response(main: MainRun) -> None:
    call = main["resp_head"]
    request = call.ok()
    assert (request.method, request.target, request.body) == ("HEAD", f"{BASE_PATH}/resp/empty", b"")
    assert "200" in call.text and "empty" in call.text and len(call.text) < 100, call.text
    assert call.result.structured_content is None


def test_image_response(main: MainRun) -> None:
    call = main["resp_image"]
    call.ok()
    (block,) = call.wire["content"]
    assert block == {"type": "image", "data": b64(PNG), "mimeType": "image/png"}, block


def test_audio_response(main: MainRun) -> None:
    call = main["resp_audio"]
    call.ok()
    (block,) = call.wire["content"]
    assert block == {"type": "audio", "data": b64(WAV), "mimeType": "audio/wav"}, block


def test_pdf_response_is_an_embedded_blob(main: MainRun) -> None:
    call = main["resp_pdf"]
    call.ok()
    (block,) = call.wire["content"]
    assert block["type"] == "resource", block
    resource = block["resource"]
    assert resource["mimeType"] == "application/pdf"
    assert base64.b64decode(resource["blob"]) == PDF
    assert resource["uri"] == "fidelity://respPdf/report.pdf", resource["uri"]
    assert call.result.structured_content is None


@pytest.mark.parametrize(("key", "text"), [("resp_csv", "a,b\n1,2\n"), ("resp_xml", "<r><a>1</a></r>")])
def test_textual_responses(main: MainRun, key: str, text: str) -> None:
    call = main[key]
    call.ok()
    assert call.wire["content"] == [{"type": "text", "text": text}], dump(call.wire)


def test_too_many_requests_is_an_error_with_retry_after(main: MainRun) -> None:
    call = main["resp_limited"]
    assert call.result.is_error, dump(call.wire)
    for part in ("429", "Too Many Requests", "Retry-After: 120", '{"error": "slow down"}'):
        assert part in call.text, f"{part!r} not in {call.text!r}"
    assert call.result.structured_content is None
    assert "structuredContent" not in call.wire


def test_error_body_is_shortened(main: MainRun) -> None:
    call = main["resp_server_error"]
    assert call.result.is_error, dump(call.wire)
    assert "503 Service Unavailable" in call.text, call.text
    assert "E" * 2000 in call.text and "E" * 2001 not in call.text, len(call.text)
    assert "shortened to 2,000 characters" in call.text, call.text
    assert call.result.structured_content is None


def test_invalid_json_is_an_error(main: MainRun) -> None:
    call = main["resp_bad_json"]
    assert call.result.is_error, dump(call.wire)
    assert "not valid JSON" in call.text and "application/json" in call.text, call.text
    assert call.result.structured_content is None


def test_no_structured_content_on_any_error(main: MainRun) -> None:
    errors = [key for key, call in main.calls.items() if call.result.is_error]
    assert set(errors) == {
        "header_crlf",
        "header_lf",
        "missing",
        "resp_limited",
        "resp_server_error",
        "resp_bad_json",
    }, errors
    for key in errors:
        assert main[key].result.structured_content is None, key


# ---- timeouts and the response cap: a session with other settings --------------------------------


def test_timeout_and_response_cap(fidelity: Generated, upstream: RecordingUpstream, tmp_path: Path) -> None:
    env = server_env(fidelity, upstream, TIMEOUT="1", MAX_RESPONSE_BYTES="100")

    async def body() -> list[Any]:
        async with session(fidelity, env, tmp_path) as client:
            return [
                await client.call_tool("respSlow", {}),
                await client.call_tool("respObject", {}),
                await client.call_tool("respBig", {}),
            ]

    slow, after, big = run_async(body)
    assert slow.is_error, dump(slow.model_dump())
    assert "within 1 seconds" in text_of(slow) and "FIDELITY_TIMEOUT" in text_of(slow), text_of(slow)
    assert slow.structured_content is None
    assert not after.is_error and after.structured_content == {"id": 7, "name": "Rex"}, dump(
        after.model_dump()
    )
    assert not big.is_error, dump(big.model_dump())
    text = text_of(big)
    assert text.startswith("0123456789" * 10 + "\n"), text
    assert "900 bytes were left out" in text and "FIDELITY_MAX_RESPONSE_BYTES=100" in text, text


# ---- OAuth2: a 401 on a fetched token fetches a new one, once ------------------------------------


def token_endpoint(prefix: str, expires_in: int) -> Responder:
    """An OAuth2 token endpoint that issues PREFIX-1, PREFIX-2, ..., each for `expires_in` seconds."""
    issued: list[str] = []

    def token(_: Recorded) -> Reply:
        issued.append(f"{prefix}-{len(issued) + 1}")
        return Reply(200, json.dumps({"access_token": issued[-1], "expires_in": expires_in}).encode())

    return token


@pytest.fixture
def rotating() -> Iterator[RecordingUpstream]:
    """Issues token-1, token-2, ...; the API refuses token-1 with 401 (revoked early)."""

    def api(record: Recorded) -> Reply:
        if record.header("Authorization") == "Bearer rotating-token-1":
            return Reply(401, b'{"error": "invalid_token"}')
        return Reply(200, b'{"ok": true}')

    routes = {"/oauth/token": token_endpoint("rotating-token", 3600), f"{BASE_PATH}/auth/oauth-cc": api}
    with RecordingUpstream(routes=routes) as server:
        yield server


def test_oauth2_token_fetched_again_after_401(
    fidelity: Generated, rotating: RecordingUpstream, tmp_path: Path
) -> None:
    env = server_env(fidelity, rotating)

    async def body() -> Any:
        async with session(fidelity, env, tmp_path) as client:
            return await client.call_tool("authOauthClientCredentials", {})

    result = run_async(body)
    assert not result.is_error, dump(result.model_dump())
    seen = [(r.method, r.target, r.header("Authorization")) for r in rotating.requests]
    client = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
    assert seen == [
        ("POST", "/oauth/token", f"Basic {client}"),
        ("GET", f"{BASE_PATH}/auth/oauth-cc", "Bearer rotating-token-1"),
        ("POST", "/oauth/token", f"Basic {client}"),
        ("GET", f"{BASE_PATH}/auth/oauth-cc", "Bearer rotating-token-2"),
    ], seen
    assert "rotating-token" not in json.dumps(result.model_dump(mode="json"))


@pytest.fixture
def expiring() -> Iterator[RecordingUpstream]:
    """Issues tokens that expire after 1 second."""
    with RecordingUpstream(routes={"/oauth/token": token_endpoint("short-token", 1)}) as server:
        yield server


def test_oauth2_token_fetched_again_after_expiry(
    fidelity: Generated, expiring: RecordingUpstream, tmp_path: Path
) -> None:
    env = server_env(fidelity, expiring)

    async def body() -> list[Any]:
        async with session(fidelity, env, tmp_path) as client:
            first = await client.call_tool("authOauthClientCredentials", {})
            second = await client.call_tool("authOauthClientCredentials", {})
            await anyio.sleep(1.2)
            return [first, second, await client.call_tool("authOauthClientCredentials", {})]

    results = run_async(body)
    assert not any(result.is_error for result in results), dump([r.model_dump() for r in results])
    seen = [(r.target, r.header("Authorization")) for r in expiring.requests]
    assert [(target, auth.split()[0]) for target, auth in seen if auth] == [
        ("/oauth/token", "Basic"),
        (f"{BASE_PATH}/auth/oauth-cc", "Bearer"),
        (f"{BASE_PATH}/auth/oauth-cc", "Bearer"),
        ("/oauth/token", "Basic"),
        (f"{BASE_PATH}/auth/oauth-cc", "Bearer"),
    ], seen
    assert [auth for target, auth in seen if target.startswith(BASE_PATH)] == [
        "Bearer short-token-1",
        "Bearer short-token-1",
        "Bearer short-token-2",
    ], seen


# ---- credentials the API echoes back in an escaped form ------------------------------------------

SLASH_TOKEN = "tok/abc+def/ghi=="  # base64-like: contains "/"
UMLAUT_PASSWORD = "pässwört-geheim"


def echo_escaped(record: Recorded) -> Reply:
    """Echoes the Authorization header as an API on PHP (json_encode escapes "/" as "\\/") or on
    Python (json.dumps escapes non-ASCII as \\uXXXX) would: valid JSON, same value."""
    value = record.header("Authorization") or ""
    if value.startswith("Basic "):
        value = base64.b64decode(value[6:]).decode("utf-8")  # "user:password", as the API saw it
    body = json.dumps({"you_sent": value}).replace("/", "\\/")
    return Reply(200, body.encode("ascii"))


@pytest.fixture
def escaping_echo() -> Iterator[RecordingUpstream]:
    with RecordingUpstream(routes={f"{BASE_PATH}/auth/": echo_escaped}) as server:
        yield server


def escaped_echo_call(
    fidelity: Generated, upstream: RecordingUpstream, tmp_path: Path, tool: str, **env: str
) -> Any:
    async def body() -> Any:
        async with stdio_session(
            fidelity.command, env=fidelity.env(upstream.url + BASE_PATH, **env), errlog=tmp_path / "err"
        ) as client:
            return await client.call_tool(tool, {})

    return run_async(body)


def test_json_escaped_credential_is_not_leaked(
    fidelity: Generated, escaping_echo: RecordingUpstream, tmp_path: Path
) -> None:
    result = escaped_echo_call(fidelity, escaping_echo, tmp_path, "authBearer", BEARER_TOKEN=SLASH_TOKEN)
    assert not result.is_error, dump(result.model_dump())
    assert escaping_echo.requests[0].header("Authorization") == f"Bearer {SLASH_TOKEN}"
    wire = json.dumps(result.model_dump(mode="json"), ensure_ascii=False)
    assert SLASH_TOKEN not in wire, wire


def test_non_ascii_credential_is_not_leaked(
    fidelity: Generated, escaping_echo: RecordingUpstream, tmp_path: Path
) -> None:
    result = escaped_echo_call(
        fidelity,
        escaping_echo,
        tmp_path,
        "authBasic",
        BASIC_USERNAME=BASIC_USER,
        BASIC_PASSWORD=UMLAUT_PASSWORD,
    )
    assert not result.is_error, dump(result.model_dump())
    sent = base64.b64encode(f"{BASIC_USER}:{UMLAUT_PASSWORD}".encode()).decode()
    assert escaping_echo.requests[0].header("Authorization") == f"Basic {sent}"
    wire = json.dumps(result.model_dump(mode="json"), ensure_ascii=False)
    assert UMLAUT_PASSWORD not in wire, wire


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("getItem", {"id": ""}),
        ("pathStyles", {"plain": [], "lbl": ["c"], "mtx": {"x": 1}}),
    ],
)
def test_empty_path_value_is_not_schema_valid(main: MainRun, tool: str, arguments: dict[str, Any]) -> None:
    from jsonschema import Draft202012Validator

    errors = list(Draft202012Validator(main.tools[tool].input_schema).iter_errors(arguments))
    assert errors, f"{tool}{arguments} is schema-valid, but the server refuses it"
