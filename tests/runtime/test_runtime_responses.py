"""What comes back: every kind of upstream answer as an MCP tool result."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

import mcp
import mcp_types
import pytest

from .conftest import (
    Make,
    Upstream,
    call,
    closed_port,
    mcp_server,
    param,
    text_of,
    tool,
    tool_data,
)

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

PET_SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
    "required": ["id"],
}
OPEN_SCHEMA = {"type": "object", "properties": {"id": {"type": "integer"}}}
LIST_SCHEMA = {"type": "object", "properties": {"result": {"type": "array"}}, "required": ["result"]}
TEXT_SCHEMA = {"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]}

DATA = tool_data(
    tool("getAny", "GET", "/any"),
    tool("headAny", "HEAD", "/any"),
    tool("getPet", "GET", "/pet", output_schema=PET_SCHEMA),
    tool("getOpen", "GET", "/open", output_schema=OPEN_SCHEMA),
    tool("listPets", "GET", "/pets", output_schema=LIST_SCHEMA, wrapped=True),
    tool("getText", "GET", "/text", output_schema=TEXT_SCHEMA, wrapped=True),
    tool("getFile", "GET", "/file"),
    tool("getSecure", "GET", "/secure", params=(param("q", "query", {"type": "string"}),)),
)


def _assert_error(result: Any, *fragments: str) -> None:
    assert result.is_error, text_of(result)
    assert result.structured_content is None
    for fragment in fragments:
        assert fragment in text_of(result)


# ---- JSON ------------------------------------------------------------------------------------


async def test_a_json_object_is_structured_content_plus_the_same_json_as_text(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.reply(body=json.dumps({"id": 1, "name": "Ünïcode ✓", "tags": []}, ensure_ascii=True))
    result = await call(make_runtime(DATA), "getAny", {})
    assert not result.is_error
    assert result.structured_content == {"id": 1, "name": "Ünïcode ✓", "tags": []}
    assert [block.type for block in result.content] == ["text"]
    assert text_of(result) == '{"id":1,"name":"Ünïcode ✓","tags":[]}'


@pytest.mark.parametrize(
    ("content_type", "body", "structured"),
    [
        ("application/json; charset=utf-8", "[1,2]", {"result": [1, 2]}),
        ("application/vnd.api+json", '"text"', {"result": "text"}),
        ("application/problem+json", "null", {"result": None}),
        ("application/json", "3.5", {"result": 3.5}),
    ],
)
async def test_json_that_is_not_an_object_is_wrapped_as_result(
    make_runtime: Make, upstream: Upstream, content_type: str, body: str, structured: Any
) -> None:
    upstream.reply(body=body, content_type=content_type)
    result = await call(make_runtime(DATA), "getAny", {})
    assert not result.is_error
    assert result.structured_content == structured
    assert text_of(result) == json.dumps(structured, separators=(",", ":"))


async def test_a_wrapping_output_schema_wraps_the_response(make_runtime: Make, upstream: Upstream) -> None:
    upstream.reply(body='[{"id":1}]')
    result = await call(make_runtime(DATA), "listPets", {})
    assert result.structured_content == {"result": [{"id": 1}]}


async def test_invalid_json_from_a_json_response_is_an_error(make_runtime: Make, upstream: Upstream) -> None:
    upstream.reply(body="{not json")
    result = await call(make_runtime(DATA), "getPet", {})
    _assert_error(result, "HTTP 200 OK", "not valid JSON", "{not json")
    upstream.reply(body='{"x": NaN}')
    _assert_error(await call(make_runtime(DATA), "getAny", {}), "not valid JSON")


# ---- output schemas --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_conforming_structured_content_passes_the_mcp_clients_check(
    make_runtime: Make, upstream: Upstream, mode: str
) -> None:
    upstream.reply(body='{"id": 7, "name": "Rex"}')
    async with mcp.Client(mcp_server(make_runtime(DATA)), mode=mode) as client:
        result = await client.call_tool("getPet", {})
    assert not result.is_error
    assert result.structured_content == {"id": 7, "name": "Rex"}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_data_not_even_an_empty_object_of_a_strict_schema_fits_is_delivered_flagged(
    make_runtime: Make, upstream: Upstream, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """PET_SCHEMA requires `id` (generated output schemas require nothing): leaving the deviating
    `id` out cannot meet it, so the success is flagged as an error (test_runtime_deviations.py has
    what generated schemas get)."""
    caplog.set_level(logging.WARNING)
    upstream.reply(body='{"id": "seven", "name": "Rex"}')
    async with mcp.Client(mcp_server(make_runtime(DATA)), mode=mode) as client:
        result = await client.call_tool("getPet", {})  # the client would raise on bad structured content
    _assert_error(
        result,
        "the API call succeeded (HTTP 200 OK)",
        "does not match the tool's output schema ($.id: 'seven' is not of type 'integer')",
        "Do not repeat the call",
        '{"id":"seven","name":"Rex"}',
    )


async def test_an_empty_body_is_a_short_status_text(make_runtime: Make, upstream: Upstream) -> None:
    upstream.reply(204, b"", content_type=None)
    result = await call(make_runtime(DATA), "getAny", {})
    assert not result.is_error and result.structured_content is None
    assert text_of(result) == "HTTP 204 No Content (empty response body)"
    upstream.reply(200, b"", content_type="application/json")
    result = await call(make_runtime(DATA), "headAny", {})
    assert upstream.last.method == "HEAD"
    assert text_of(result) == "HTTP 200 OK (empty response body)"


async def test_an_empty_body_carries_empty_structured_content_when_the_schema_allows_it(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.reply(204, b"", content_type=None)
    result = await call(make_runtime(DATA), "getOpen", {})
    assert not result.is_error and result.structured_content == {}
    _assert_error(await call(make_runtime(DATA), "getPet", {}), "succeeded (HTTP 204 No Content)", "empty")


async def test_a_redirect_is_reported_with_its_location(make_runtime: Make, upstream: Upstream) -> None:
    upstream.reply(302, b"", content_type=None, headers={"Location": "https://elsewhere/x"})
    result = await call(make_runtime(DATA), "getAny", {})
    assert text_of(result) == "HTTP 302 Found (empty response body); Location: https://elsewhere/x"
    assert len(upstream.requests) == 1


# ---- text and binary -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "body", "text"),
    [
        ("text/plain; charset=utf-8", "héllo\nworld".encode(), "héllo\nworld"),
        ("text/plain; charset=iso-8859-1", "héllo".encode("latin-1"), "héllo"),
        ("text/csv", b"a,b\n1,2\n", "a,b\n1,2\n"),
        ("application/xml", b"<a>1</a>", "<a>1</a>"),
        ("application/x-ndjson", b'{"a":1}\n{"a":2}\n', '{"a":1}\n{"a":2}\n'),
        ("image/svg+xml", b"<svg/>", "<svg/>"),
        (None, b"plain words", "plain words"),
    ],
)
async def test_text_responses_are_text(
    make_runtime: Make, upstream: Upstream, content_type: str | None, body: bytes, text: str
) -> None:
    upstream.reply(body=body, content_type=content_type)
    result = await call(make_runtime(DATA), "getAny", {})
    assert not result.is_error and result.structured_content is None
    assert text_of(result) == text


async def test_text_meets_a_string_output_schema_as_result(make_runtime: Make, upstream: Upstream) -> None:
    upstream.reply(body=b"just text", content_type="text/plain")
    result = await call(make_runtime(DATA), "getText", {})
    assert not result.is_error and result.structured_content == {"result": "just text"}
    _assert_error(await call(make_runtime(DATA), "getPet", {}), "succeeded", "it is text/plain", "just text")


async def test_images_and_audio_are_media_content(make_runtime: Make, upstream: Upstream) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x01\xff"
    upstream.reply(body=png, content_type="image/png")
    result = await call(make_runtime(DATA), "getFile", {})
    assert result.content == [
        mcp_types.ImageContent(data=base64.b64encode(png).decode(), mime_type="image/png")
    ]
    upstream.reply(body=b"ID3\x00\xff", content_type="audio/mpeg")
    result = await call(make_runtime(DATA), "getFile", {})
    assert result.content == [
        mcp_types.AudioContent(data=base64.b64encode(b"ID3\x00\xff").decode(), mime_type="audio/mpeg")
    ]


@pytest.mark.parametrize(
    ("content_type", "disposition", "uri"),
    [
        ("application/pdf", 'attachment; filename="report 1.pdf"', "t-server://getFile/report%201.pdf"),
        ("application/zip", None, "t-server://getFile/response"),
        ("application/octet-stream", "attachment; filename=data.bin", "t-server://getFile/data.bin"),
        (None, None, "t-server://getFile/response"),
    ],
)
async def test_other_binary_is_an_embedded_blob_resource(
    make_runtime: Make, upstream: Upstream, content_type: str | None, disposition: str | None, uri: str
) -> None:
    data = b"%PDF-1.7\n\xff\xfe\x00binary"
    upstream.reply(
        body=data,
        content_type=content_type,
        headers={"Content-Disposition": disposition} if disposition else {},
    )
    result = await call(make_runtime(DATA), "getFile", {})
    assert not result.is_error and result.structured_content is None
    [block] = result.content
    assert block.type == "resource"
    assert block.resource == mcp_types.BlobResourceContents(
        uri=uri, mime_type=content_type or "application/octet-stream", blob=base64.b64encode(data).decode()
    )


# ---- errors ----------------------------------------------------------------------------------


async def test_an_http_error_has_status_reason_body_and_retry_after(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.reply(429, '{"message": "slow down"}', headers={"Retry-After": "30"})
    result = await call(make_runtime(DATA), "getPet", {})
    _assert_error(result)
    assert text_of(result) == "\n".join(
        [
            f"The API answered HTTP 429 Too Many Requests to GET {upstream.url}/api/v1/pet.",
            "Retry-After: 30 (wait that long before trying again).",
            'Response body: {"message": "slow down"}',
            "Not retried: waiting 30 s (Retry-After) would pass the 5 s timeout (T_TIMEOUT).",
        ]
    )


async def test_a_long_error_body_is_shortened_to_2000_characters(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.reply(500, "x" * 5000, content_type="text/html")
    result = await call(make_runtime(DATA), "getAny", {})
    _assert_error(result, "HTTP 500 Internal Server Error", "[... shortened to 2,000 characters]")
    assert "x" * 2000 in text_of(result) and "x" * 2001 not in text_of(result)


async def test_an_error_with_a_binary_body_describes_it(make_runtime: Make, upstream: Upstream) -> None:
    upstream.reply(403, b"\x00\x01\x02", content_type="application/octet-stream")
    result = await call(make_runtime(DATA), "getAny", {})
    _assert_error(result, "HTTP 403 Forbidden", "credentials", "(a application/octet-stream body of 3 bytes)")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_error_results_never_carry_structured_content_through_a_client(
    make_runtime: Make, upstream: Upstream, mode: str
) -> None:
    upstream.reply(404, '{"id": "not an integer"}')
    async with mcp.Client(mcp_server(make_runtime(DATA)), mode=mode) as client:
        result = await client.call_tool("getPet", {})
    _assert_error(result, "HTTP 404 Not Found")


async def test_a_timeout_is_an_error_and_the_server_keeps_running(
    make_runtime: Make, upstream: Upstream
) -> None:
    tools = make_runtime(DATA, {"T_TIMEOUT": "0.3"})
    upstream.reply(body=b"{}", delay=1.5)
    _assert_error(await call(tools, "getAny", {}), "did not answer GET", "within 0.3 seconds", "T_TIMEOUT")
    upstream.reply(body=b'{"ok": true}')
    result = await call(tools, "getAny", {})
    assert result.structured_content == {"ok": True}


async def test_a_call_cancelled_from_outside_is_cancelled_not_a_timeout_and_the_next_call_works(
    make_runtime: Make, upstream: Upstream
) -> None:
    """The client's cancellation (an anyio cancel scope, as the SDK's) passes through the runtime's
    asyncio.timeout: no 'did not answer' error, no broken connection left in the pool."""
    import anyio

    tools = make_runtime(DATA, {"T_TIMEOUT": "5"})
    upstream.reply(body=b"{}", delay=1.0)
    with anyio.move_on_after(0.3) as scope:
        await call(tools, "getAny", {})
        raise AssertionError("the call was not cancelled")
    assert scope.cancelled_caught
    upstream.reply(body=b'{"ok": true}')
    result = await call(tools, "getAny", {})
    assert result.structured_content == {"ok": True}


async def test_connection_refused_is_an_actionable_error(make_runtime: Make) -> None:
    tools = make_runtime(DATA, base_url=f"http://127.0.0.1:{closed_port()}/api")
    _assert_error(
        await call(tools, "getAny", {}), "Could not reach the API", "connection failed", "T_BASE_URL"
    )


async def test_a_tls_failure_is_an_actionable_error(make_runtime: Make, upstream: Upstream) -> None:
    tools = make_runtime(DATA, base_url=upstream.url.replace("http:", "https:"))
    _assert_error(await call(tools, "getAny", {}), "Could not reach the API", "TLS")


async def test_an_unexpected_exception_is_a_generic_error_logged_without_secrets(
    make_runtime: Make, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = make_runtime(DATA, {"T_API_KEY_KEY": "sekret-api-key-123"})

    async def explode(*_: Any) -> Any:
        raise RuntimeError("boom with sekret-api-key-123")

    monkeypatch.setattr(tools.sender, "send", explode)
    caplog.set_level(logging.ERROR)
    result = await call(tools, "getAny", {})
    _assert_error(result, "Internal error in the MCP server while running 'getAny'")
    assert "boom" not in text_of(result) and "Traceback" not in text_of(result)
    assert "RuntimeError: boom with [REDACTED]" in caplog.text and "sekret-api-key-123" not in caplog.text


# ---- size cap --------------------------------------------------------------------------------


async def test_a_large_text_response_is_cut_and_says_how_much_was_left_out(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.reply(body="é" * 3000, content_type="text/plain; charset=utf-8")  # 6,000 bytes
    result = await call(make_runtime(DATA, {"T_MAX_RESPONSE_BYTES": "1000"}), "getAny", {})
    assert not result.is_error
    assert [block.text for block in result.content] == [
        "é" * 500,
        "[The API answered successfully, but its response was too long: 5,000 bytes were left out"
        " (T_MAX_RESPONSE_BYTES=1000); shown is what was read before the cut. This operation has no"
        " paging arguments: narrow the request to get the rest. The call succeeded: repeating it"
        " unchanged gives the same.]",
    ]


async def test_large_json_is_read_up_to_the_cut_and_flagged_only_when_it_misses_the_schema(
    make_runtime: Make, upstream: Upstream
) -> None:
    """Issue 15: a cut JSON body is the valid value read before the cut (here the object without
    its cut "name"), a success when that meets the output schema; else an error saying why."""
    upstream.reply(body=json.dumps({"id": 1, "name": "x" * 5000}))
    tools = make_runtime(DATA, {"T_MAX_RESPONSE_BYTES": "100"})
    plain = await call(tools, "getAny", {})
    assert not plain.is_error and plain.structured_content == {"id": 1}
    assert "4,921 bytes were left out" in text_of(plain)  # 5,021 bytes, 100 read
    pet = await call(tools, "getPet", {})
    assert not pet.is_error and pet.structured_content == {"id": 1}
    upstream.reply(body=json.dumps({"name": "x" * 5000, "id": 1}))
    _assert_error(
        await call(tools, "getPet", {}),
        "succeeded",
        "the part of it read before the cut does not match the tool's output schema",
        "'id' is a required property",
        "bytes were left out",
    )


async def test_a_large_image_is_left_out_with_a_note(make_runtime: Make, upstream: Upstream) -> None:
    upstream.reply(body=b"\x89PNG" + bytes(5000), content_type="image/png")
    result = await call(make_runtime(DATA, {"T_MAX_RESPONSE_BYTES": "1000"}), "getFile", {})
    assert [block.type for block in result.content] == ["text"]
    assert "a image/png body" in text_of(result) and "4,004 bytes were left out" in text_of(result)


async def test_response_bodies_echoing_a_credential_are_redacted(
    make_runtime: Make, upstream: Upstream
) -> None:
    key = "sekret-api-key-123"
    upstream.reply(body=json.dumps({"echo": f"key={key}", "also": "Bearer " + key}))
    result = await call(make_runtime(DATA, {"T_API_KEY_KEY": key}), "getAny", {})
    assert result.structured_content == {"echo": "key=[REDACTED]", "also": "Bearer [REDACTED]"}
    assert key not in text_of(result)


async def test_a_credential_is_redacted_however_json_escapes_it(
    make_runtime: Make, upstream: Upstream
) -> None:
    key = 'se"kret\\api-key-123'
    inside = json.dumps(key)[1:-1]  # se\"kret\\api-key-123; below, its "s" as \u0073
    upstream.reply(body=f'{{"{inside}": "k", "u": "\\u0073{inside[1:]}", "plain": "no secret"}}')
    result = await call(make_runtime(DATA, {"T_API_KEY_KEY": key}), "getAny", {})
    assert result.structured_content == {"[REDACTED]": "k", "u": "[REDACTED]", "plain": "no secret"}
    assert text_of(result) == '{"[REDACTED]":"k","u":"[REDACTED]","plain":"no secret"}'


async def test_a_result_without_a_credential_is_passed_on_as_it_is(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.reply(body=json.dumps({"echo": "sekret-api-key-12", "n": [1, {"k": None}]}))
    tools = make_runtime(DATA, {"T_API_KEY_KEY": "sekret-api-key-123"})
    result = await call(tools, "getAny", {})
    assert result.structured_content == {"echo": "sekret-api-key-12", "n": [1, {"k": None}]}
    assert tools.credentials.scrub_result(result) is result


async def test_a_credential_only_in_the_structured_content_is_redacted_there(make_runtime: Make) -> None:
    """As an after_result hook may leave it: the text is clean, the structured content is not."""
    tools = make_runtime(DATA, {"T_API_KEY_KEY": "sekret-api-key-123"})
    result = mcp_types.CallToolResult(
        content=[mcp_types.TextContent(text="clean")],
        structured_content={"k": "a/sekret-api-key-123", "n": 1},
    )
    scrubbed = tools.credentials.scrub_result(result)
    assert scrubbed.structured_content == {"k": "a/[REDACTED]", "n": 1} and text_of(scrubbed) == "clean"
