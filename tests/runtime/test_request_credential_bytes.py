"""A `--credentials from-request` credential that is not ASCII: endpoint_auth.Guard reads the
header's bytes, the upstream gets exactly those bytes (UTF-8 or not) in the scheme's place, and
the scrubber redacts the credential wherever the upstream echoes it (as UTF-8, as the raw bytes,
JSON-escaped, percent-encoded) in results, errors and logs. It was read as latin-1 and sent
re-encoded as UTF-8, and escaped the scrubber in decoded JSON."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any
from urllib.parse import quote

import pytest

from openapi2mcp_runtime.upstream import request_credentials

from .conftest import Make, Reply, ScopeRecorder, Upstream, text_of
from .test_endpoint_auth import DATA, FROM_REQUEST, call_with, endpoint_auth, request_ctx, through

request_credentials = request_credentials

pytestmark = pytest.mark.anyio

UTF8 = "pässwörd-42".encode()
LATIN1 = b"p\xe4sswort-latin-7"  # not UTF-8: a client that sent latin-1


async def moved(raw: bytes) -> Any:
    """The credential as the Guard leaves it in the request's state."""
    inner = ScopeRecorder()
    guard = endpoint_auth.Guard(inner, credential_header="X-Upstream-Authorization")
    assert (await through(guard, [(b"x-upstream-authorization", b" " + raw + b" ")]))["status"] == 200
    return inner.scopes[0]["state"][endpoint_auth.CREDENTIAL_KEY]


def sent(upstream: Upstream, where: str) -> bytes:
    """What the upstream got, as bytes (the recording reads header values as latin-1)."""
    value = upstream.last.query if where == "query" else upstream.last.header(where)
    assert value is not None
    return value.encode("latin-1")


@pytest.mark.parametrize("raw", [UTF8, LATIN1], ids=["utf-8", "latin-1"])
@pytest.mark.parametrize(
    ("name", "where", "expected"),
    [
        ("headerKey", "X-API-Key", lambda raw: raw),
        ("bearerOnly", "Authorization", lambda raw: b"Bearer " + raw),
        ("basicOnly", "Authorization", lambda raw: b"Basic " + base64.b64encode(b"ann:" + raw)),
        ("queryKey", "query", lambda raw: b"api_key=" + quote(raw, safe="").encode()),
        ("cookieKey", "Cookie", lambda raw: b"sid=" + quote(raw, safe="").encode()),
    ],
)
async def test_the_upstream_gets_exactly_the_bytes_the_client_sent(
    make_runtime: Make, upstream: Upstream, raw: bytes, name: str, where: str, expected: Any
) -> None:
    credential = await moved(b"ann:" + raw if name == "basicOnly" else raw)
    result = await call_with(make_runtime(DATA, env=FROM_REQUEST), name, credential)
    assert not result.is_error, text_of(result)
    assert sent(upstream, where) == expected(raw)


async def test_a_utf8_credential_echoed_in_every_form_is_redacted_in_the_result(
    make_runtime: Make, upstream: Upstream
) -> None:
    text = UTF8.decode()
    echoed = {
        "plain": text,
        "escaped": json.dumps(text)[1:-1],
        "url": quote(text, safe=""),
        "bearer": f"Bearer {text}",
    }
    body = json.dumps(echoed, ensure_ascii=False).replace("\\\\u", "\\u").encode()
    upstream.responder = lambda _: Reply(200, body, {"Content-Type": "application/json"})
    result = await call_with(make_runtime(DATA, env=FROM_REQUEST), "bearerOnly", await moved(UTF8))
    assert result.structured_content == {
        "plain": "[REDACTED]",
        "escaped": "[REDACTED]",
        "url": "[REDACTED]",
        "bearer": "Bearer [REDACTED]",
    }
    shown = text_of(result)
    assert not any(form in shown for form in (text, "p\\u00e4ss", "p%C3%A4ss", "pÃ¤ss")), shown


@pytest.mark.parametrize("raw", [UTF8, LATIN1], ids=["utf-8", "latin-1"])
async def test_raw_bytes_echoed_in_an_error_and_the_logs_are_redacted(
    make_runtime: Make, upstream: Upstream, raw: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    upstream.responder = lambda record: Reply(
        401, b"bad key " + record.target.encode() + b" " + raw, {"Content-Type": "text/plain"}
    )
    result = await call_with(make_runtime(DATA, env=FROM_REQUEST), "queryKey", await moved(raw))
    assert result.is_error
    shown = text_of(result)
    assert "bad key /api/v1/secure?api_key=[REDACTED] [REDACTED]" in shown, shown
    for form in (raw.decode("latin-1"), raw.decode("utf-8", "replace"), quote(raw, safe="")):
        assert form not in shown and form not in caplog.text, form


@pytest.mark.parametrize("raw", [UTF8, LATIN1], ids=["utf-8", "latin-1"])
async def test_the_scrub_before_any_cut_finds_the_credential_in_the_body_read_as_latin1(
    make_runtime: Make, raw: bytes
) -> None:
    """runtime.py scrubs a JSON or text body read as latin-1 before trimming can split a secret:
    the credential's UTF-8 forms must be found in that reading too."""
    tools = make_runtime(DATA, env=FROM_REQUEST)
    text = raw.decode("utf-8", "replace")
    body = f'{{"a": "{text}", "b": "{quote(raw, safe="")}", "c": "Bearer {text}"}}'.encode()
    with request_credentials.bound(request_ctx(await moved(raw))):
        scrubbed = tools.credentials.scrub(body.decode("latin-1"))
    assert scrubbed == '{"a": "[REDACTED]", "b": "[REDACTED]", "c": "Bearer [REDACTED]"}'
