"""What reaches the upstream API: the exact raw path, query, headers, cookies and body bytes."""

from __future__ import annotations

import base64
import json
import logging
import subprocess
import sys
from typing import Any

import anyio
import mcp
import pytest
from mcp import MCPError

from .conftest import (
    Make,
    Recorded,
    Reply,
    Upstream,
    body,
    body_field,
    call,
    closed_port,
    form_body,
    mcp_server,
    param,
    runtime,
    serialize,
    text_of,
    tool,
    tool_data,
)

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STR = {"type": "string"}
ARRAY = {"type": "array", "items": {"type": "string"}}
OBJECT = {"type": "object", "additionalProperties": {"type": "string"}}

DATA = tool_data(
    tool("getItem", "GET", "/items/{id}", params=(param("id", "path", STR),)),
    tool("ping", "GET", "/ping"),
    tool(
        "pathStyles",
        "GET",
        "/p/{a}/{b}/{c}/{d}/{e}/{f}/{g}",
        params=(
            param("a", "path", ARRAY),
            param("b", "path", OBJECT, explode=True),
            param("c", "path", ARRAY, style="label"),
            param("d", "path", ARRAY, style="label", explode=True),
            param("e", "path", ARRAY, style="matrix"),
            param("f", "path", OBJECT, style="matrix", explode=True),
            param("g", "path", STR, style="matrix"),
        ),
    ),
    tool(
        "search",
        "GET",
        "/search",
        params=(
            param("tags", "query", ARRAY),
            param("ids", "query", {"type": "array", "items": {"type": "integer"}}, explode=False),
            param("space", "query", ARRAY, style="spaceDelimited", explode=False),
            param("pipe", "query", ARRAY, style="pipeDelimited", explode=False),
            param("filter", "query", OBJECT, style="deepObject", explode=True),
            param("obj", "query", OBJECT),
            param("objf", "query", OBJECT, explode=False),
            param("raw", "query", STR, allow_reserved=True),
            param("flag", "query", {"type": "boolean"}),
            param("q", "query", STR),
            param("limit", "query", {"type": "integer", "minimum": 1}),
            param("json", "query", {"type": "object"}, content_type="application/json"),
            param("opt", "query", STR),
        ),
    ),
    tool(
        "withHeaders",
        "GET",
        "/h",
        params=(
            param("list", "header", ARRAY, name="X-List"),
            param("obj", "header", OBJECT, name="X-Obj"),
            param("objx", "header", OBJECT, name="X-Obj-Exploded", explode=True),
            param("flag", "header", {"type": "boolean"}, name="X-Flag"),
            param("text", "header", STR, name="X-Text"),
            param("session", "cookie", STR),
            param("prefs", "cookie", ARRAY, explode=False),
        ),
    ),
    tool(
        "createPet",
        "POST",
        "/pets",
        request_body=body(
            "application/json",
            "json",
            required=True,
            fields=(
                body_field("petName", STR, name="name", required=True),
                body_field("tags", ARRAY),
                body_field("meta", {"type": "object"}),
                body_field("nick", {"anyOf": [STR, {"type": "null"}]}),
            ),
        ),
    ),
    tool(
        "patchPet",
        "PATCH",
        "/pets/{id}",
        params=(param("id", "path", {"type": "integer"}),),
        request_body=body("application/merge-patch+json", "json", arg="body", arg_schema={}),
    ),
    tool(
        "submitForm",
        "POST",
        "/form",
        request_body=form_body(
            body_field("name", STR),
            body_field("tags", ARRAY),
            body_field("active", {"type": "boolean"}),
            body_field("count", {"type": "integer"}),
        ),
    ),
    tool(
        "upload",
        "POST",
        "/upload",
        request_body=body(
            "multipart/form-data",
            "multipart",
            required=True,
            fields=(
                body_field(
                    "file",
                    {"type": "string", "contentEncoding": "base64"},
                    binary=True,
                    content_type="image/png",
                    required=True,
                ),
                body_field("description", STR),
                body_field("labels", ARRAY),
                body_field("info", {"type": "object"}),
            ),
        ),
    ),
    tool(
        "putBlob",
        "PUT",
        "/blob",
        request_body=body(
            "application/octet-stream", "binary", arg="body", arg_schema=STR, binary=True, required=True
        ),
    ),
    tool(
        "putText",
        "POST",
        "/text",
        request_body=body("text/plain", "text", arg="body", arg_schema=STR, required=True),
    ),
    tool("headerKey", "GET", "/secure", security=[["api_key"]]),
    tool("queryKey", "GET", "/secure", params=(param("q", "query", STR),), security=[["query_key"]]),
    tool("cookieKey", "GET", "/secure", security=[["cookie_key"]]),
    tool("bearerOnly", "GET", "/secure", security=[["bearer"]]),
    tool("basicOnly", "GET", "/secure", security=[["basic"]]),
    tool("basicOrBearer", "GET", "/secure", security=[["basic"], ["bearer"]]),
    tool("keyAndBearer", "GET", "/secure", security=[["api_key", "bearer"]]),
    tool(
        "keysAsArguments",  # trello.com: its keys are parameters too, where a bearer token may do
        "GET",
        "/secure",
        params=(
            param("api_key", "query", STR),
            param("x_api_key", "header", STR, name="x-api-key"),
            param("sid", "cookie", STR),
        ),
        security=[["api_key", "query_key", "cookie_key"], ["bearer"]],
    ),
    tool("optionalKey", "GET", "/secure", security=[[], ["api_key"]]),
    tool("oauthOnly", "GET", "/secure", security=[["oauth"]]),
    tool("oidcOnly", "GET", "/secure", security=[["oidc"]]),
)

KEY = "sekret-api-key-123"


# ---- paths -----------------------------------------------------------------------------------


async def test_a_path_parameter_is_one_encoded_segment_under_the_base_path(
    make_runtime: Make, upstream: Upstream
) -> None:
    result = await call(make_runtime(DATA), "getItem", {"id": "a/b c?d#e%../x"})
    assert not result.is_error, text_of(result)
    assert upstream.last.method == "GET"
    assert upstream.last.target == "/api/v1/items/a%2Fb%20c%3Fd%23e%25..%2Fx"


@pytest.mark.parametrize(
    ("value", "target"),
    [
        ("..", "/api/v1/items/%2E%2E"),
        (".", "/api/v1/items/%2E"),
        ("café ü", "/api/v1/items/caf%C3%A9%20%C3%BC"),
        ("@:!$&'()*+,;=~-._", "/api/v1/items/%40%3A%21%24%26%27%28%29%2A%2B%2C%3B%3D~-._"),
        ("http://evil.example/x", "/api/v1/items/http%3A%2F%2Fevil.example%2Fx"),
    ],
)
async def test_path_values_can_never_traverse_or_change_the_url_structure(
    make_runtime: Make, upstream: Upstream, value: str, target: str
) -> None:
    await call(make_runtime(DATA), "getItem", {"id": value})
    assert upstream.last.target == target


async def test_the_base_url_path_is_kept_with_or_without_a_trailing_slash(
    make_runtime: Make, upstream: Upstream
) -> None:
    await call(make_runtime(DATA, base_url=upstream.url + "/v2/"), "ping", None)
    assert upstream.last.target == "/v2/ping"
    await call(make_runtime(DATA, base_url=upstream.url), "ping", {})
    assert upstream.last.target == "/ping"


async def test_path_styles_simple_label_and_matrix(make_runtime: Make, upstream: Upstream) -> None:
    arguments = {
        "a": ["x", "y z"],
        "b": {"R": "100", "G": "2/0"},
        "c": ["3", "4"],
        "d": ["3", "4"],
        "e": ["3", "4"],
        "f": {"R": "1", "G": "2"},
        "g": "5",
    }
    result = await call(make_runtime(DATA), "pathStyles", arguments)
    assert not result.is_error, text_of(result)
    assert upstream.last.target == "/api/v1/p/x,y%20z/R=100,G=2%2F0/.3,4/.3.4/;e=3,4/;R=1;G=2/;g=5"


# ---- queries ---------------------------------------------------------------------------------


async def test_every_query_style_is_serialized_exactly(make_runtime: Make, upstream: Upstream) -> None:
    arguments = {
        "tags": ["x", "y"],
        "ids": [1, 2, 3],
        "space": ["a", "b c"],
        "pipe": ["a", "b|c"],
        "filter": {"status": "open", "owner": "me"},
        "obj": {"R": "100", "G": "200"},
        "objf": {"R": "100", "G": "200"},
        "raw": "a/b?c:d@e,f&g#h",
        "flag": False,
        "q": "café naïve+1",
        "limit": 10,
        "json": {"a": [1, "x y"]},
    }
    result = await call(make_runtime(DATA), "search", arguments)
    assert not result.is_error, text_of(result)
    assert upstream.last.query == "&".join(
        [
            "tags=x&tags=y",
            "ids=1,2,3",
            "space=a%20b%20c",
            "pipe=a|b%7Cc",
            "filter[status]=open&filter[owner]=me",
            "R=100&G=200",
            "objf=R,100,G,200",
            "raw=a/b?c:d@e,f%26g%23h",
            "flag=false",
            "q=caf%C3%A9%20na%C3%AFve%2B1",
            "limit=10",
            "json=%7B%22a%22%3A%5B1%2C%22x%20y%22%5D%7D",
        ]
    )


async def test_optional_parameters_not_given_are_not_sent_and_booleans_are_lowercase(
    make_runtime: Make, upstream: Upstream
) -> None:
    await call(make_runtime(DATA), "search", {"flag": True})
    assert upstream.last.target == "/api/v1/search?flag=true"
    await call(make_runtime(DATA), "search", {})
    assert upstream.last.target == "/api/v1/search"


# ---- headers and cookies ---------------------------------------------------------------------


async def test_header_parameters_use_simple_style_and_cookies_share_one_header(
    make_runtime: Make, upstream: Upstream
) -> None:
    arguments = {
        "list": ["a", "b"],
        "obj": {"R": "1", "G": "2"},
        "objx": {"R": "1", "G": "2"},
        "flag": True,
        "text": "  héllo  ",
        "session": "abc 1;2",
        "prefs": ["x", "y"],
    }
    result = await call(make_runtime(DATA), "withHeaders", arguments)
    assert not result.is_error, text_of(result)
    request = upstream.last
    assert request.header("X-List") == "a,b"
    assert request.header("X-Obj") == "R,1,G,2"
    assert request.header("X-Obj-Exploded") == "R=1,G=2"
    assert request.header("X-Flag") == "true"
    assert request.header("X-Text").encode("latin-1").decode() == "héllo"  # type: ignore[union-attr]
    assert request.all("Cookie") == ["session=abc%201%3B2; prefs=x,y"]


async def test_an_empty_list_or_object_header_parameter_is_left_out(
    make_runtime: Make, upstream: Upstream
) -> None:
    result = await call(make_runtime(DATA), "withHeaders", {"list": [], "obj": {}, "flag": False})
    assert not result.is_error, text_of(result)
    assert upstream.last.header("X-List") is None
    assert upstream.last.header("X-Obj") is None
    assert upstream.last.header("X-Flag") == "false"


async def test_static_headers_user_agent_and_accept(make_runtime: Make, upstream: Upstream) -> None:
    env = {"T_HEADERS": json.dumps({"X-Tenant": "acme", "X-Count": 3})}
    await call(make_runtime(DATA, env), "ping", {})
    request = upstream.last
    assert request.header("X-Tenant") == "acme"
    assert request.header("X-Count") == "3"
    assert request.header("User-Agent") == "t-server-mcp/1.2.3"
    assert request.header("Accept") == "application/json, */*;q=0.8"


# ---- bodies ----------------------------------------------------------------------------------


async def test_a_flattened_json_body_has_only_the_given_fields_under_their_wire_names(
    make_runtime: Make, upstream: Upstream
) -> None:
    tools = make_runtime(DATA)
    await call(tools, "createPet", {"petName": "Rex ü", "tags": ["a"], "nick": None})
    assert upstream.last.method == "POST"
    assert upstream.last.header("Content-Type") == "application/json"
    assert upstream.last.body == '{"name":"Rex ü","tags":["a"],"nick":null}'.encode()
    await call(tools, "createPet", {"petName": "Rex"})
    assert upstream.last.body == b'{"name":"Rex"}'


async def test_a_whole_json_body_keeps_its_json_media_type(make_runtime: Make, upstream: Upstream) -> None:
    await call(make_runtime(DATA), "patchPet", {"id": 7, "body": [1, {"a": None}]})
    assert upstream.last.target == "/api/v1/pets/7"
    assert upstream.last.method == "PATCH"
    assert upstream.last.header("Content-Type") == "application/merge-patch+json"
    assert upstream.last.body == b'[1,{"a":null}]'
    await call(make_runtime(DATA), "patchPet", {"id": 7})
    assert upstream.last.body == b"" and upstream.last.header("Content-Type") is None


async def test_a_form_body(make_runtime: Make, upstream: Upstream) -> None:
    arguments = {"name": "Rex Jr & co", "tags": ["a", "b"], "active": True, "count": 2}
    await call(make_runtime(DATA), "submitForm", arguments)
    assert upstream.last.header("Content-Type") == "application/x-www-form-urlencoded"
    assert upstream.last.body == b"name=Rex%20Jr%20%26%20co&tags=a&tags=b&active=true&count=2"


def _multipart(request: Recorded) -> list[tuple[dict[str, str], bytes]]:
    content_type = request.header("Content-Type") or ""
    assert content_type.startswith("multipart/form-data; boundary=")
    boundary = content_type.split("boundary=")[1].encode()
    chunks = request.body.split(b"--" + boundary)
    assert chunks[0] == b"" and chunks[-1] == b"--\r\n"
    parts = []
    for chunk in chunks[1:-1]:
        head, _, data = chunk[2:-2].partition(b"\r\n\r\n")
        headers = dict(line.split(": ", 1) for line in head.decode().split("\r\n"))
        parts.append((headers, data))
    return parts


async def test_a_multipart_body_with_a_file_part_and_plain_fields(
    make_runtime: Make, upstream: Upstream
) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\xff binary"
    arguments = {
        "file": base64.b64encode(png).decode(),
        "description": "a cat",
        "labels": ["x", "y"],
        "info": {"k": 1},
    }
    result = await call(make_runtime(DATA), "upload", arguments)
    assert not result.is_error, text_of(result)
    assert _multipart(upstream.last) == [
        (
            {
                "Content-Disposition": 'form-data; name="file"; filename="file"',
                "Content-Type": "image/png",
            },
            png,
        ),
        ({"Content-Disposition": 'form-data; name="description"'}, b"a cat"),
        ({"Content-Disposition": 'form-data; name="labels"'}, b"x"),
        ({"Content-Disposition": 'form-data; name="labels"'}, b"y"),
        (
            {"Content-Disposition": 'form-data; name="info"', "Content-Type": "application/json"},
            b'{"k":1}',
        ),
    ]


async def test_a_binary_body_is_the_decoded_base64_argument(make_runtime: Make, upstream: Upstream) -> None:
    data = bytes(range(256))
    await call(make_runtime(DATA), "putBlob", {"body": base64.b64encode(data).decode()})
    assert upstream.last.header("Content-Type") == "application/octet-stream"
    assert upstream.last.body == data


async def test_a_text_body(make_runtime: Make, upstream: Upstream) -> None:
    await call(make_runtime(DATA), "putText", {"body": "line 1\nlïne 2"})
    assert upstream.last.header("Content-Type") == "text/plain"
    assert upstream.last.body == "line 1\nlïne 2".encode()


# ---- argument validation ---------------------------------------------------------------------


async def test_an_unknown_tool_is_a_protocol_error(make_runtime: Make) -> None:
    with pytest.raises(MCPError) as raised:
        await call(make_runtime(DATA), "nope", {})
    assert raised.value.code == -32602
    assert raised.value.message == "Unknown tool: nope"


@pytest.mark.parametrize(
    ("name", "arguments", "named", "reason"),
    [
        ("getItem", {"id": ""}, "'id'", "empty"),  # an empty path value
        *[
            ("withHeaders", {"text": value}, "'text'", "CR or LF")  # a header value with CR or LF
            for value in ["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\x00b"]
        ],
        ("putBlob", {"body": "not base64!"}, "'body'", "base64"),  # a binary body's invalid base64
    ],
    ids=["empty-path-value", "header-crlf", "header-lf", "header-cr", "header-nul", "invalid-base64"],
)
async def test_a_value_the_request_cannot_carry_is_a_tool_error_and_nothing_is_sent(
    make_runtime: Make, upstream: Upstream, name: str, arguments: dict[str, Any], named: str, reason: str
) -> None:
    result = await call(make_runtime(DATA), name, arguments)
    assert result.is_error
    assert named in text_of(result) and reason in text_of(result)
    assert upstream.requests == []


async def test_invalid_arguments_name_the_argument_and_rule_and_send_nothing(
    make_runtime: Make, upstream: Upstream
) -> None:
    result = await call(make_runtime(DATA), "search", {"limit": 0, "tags": "x"})
    assert result.is_error and result.structured_content is None
    text = text_of(result)
    assert "$.limit" in text and "(rule: minimum)" in text
    assert "$.tags" in text and "(rule: type)" in text
    assert upstream.requests == []


async def test_a_missing_required_argument_is_named(make_runtime: Make, upstream: Upstream) -> None:
    result = await call(make_runtime(DATA), "getItem", None)
    assert result.is_error and "'id' is a required property" in text_of(result)
    assert upstream.requests == []


async def test_an_unknown_argument_is_named_with_the_valid_ones(
    make_runtime: Make, upstream: Upstream
) -> None:
    result = await call(make_runtime(DATA), "createPet", {"petName": "x", "colour": "red"})
    assert result.is_error
    assert "unknown argument(s) 'colour'; valid: petName, tags, meta, nick" in text_of(result)
    assert upstream.requests == []


# ---- authentication --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool_name", "env", "where", "expected"),
    [
        ("headerKey", {"T_API_KEY_KEY": KEY}, "X-API-Key", KEY),
        ("cookieKey", {"T_COOKIE_KEY_KEY": KEY}, "Cookie", f"sid={KEY}"),
        ("bearerOnly", {"T_BEARER_TOKEN": "tok-123456"}, "Authorization", "Bearer tok-123456"),
        ("oidcOnly", {"T_OIDC_TOKEN": "oidc-123456"}, "Authorization", "Bearer oidc-123456"),
        ("oauthOnly", {"T_OAUTH_TOKEN": "ready-123456"}, "Authorization", "Bearer ready-123456"),
        (
            "basicOnly",
            {"T_BASIC_USERNAME": "ann", "T_BASIC_PASSWORD": "pa:ss wörd"},
            "Authorization",
            "Basic " + base64.b64encode("ann:pa:ss wörd".encode()).decode(),
        ),
        ("basicOnly", {"T_BASIC_USERNAME": "sk_live_1"}, "Authorization", "Basic c2tfbGl2ZV8xOg=="),
    ],
)
async def test_credentials_go_where_the_scheme_says(
    make_runtime: Make, upstream: Upstream, tool_name: str, env: dict[str, str], where: str, expected: str
) -> None:
    result = await call(make_runtime(DATA, env), tool_name, {})
    assert not result.is_error, text_of(result)
    assert upstream.last.all(where) == [expected]


async def test_an_api_key_in_the_query_follows_the_parameters(make_runtime: Make, upstream: Upstream) -> None:
    await call(make_runtime(DATA, {"T_QUERY_KEY_KEY": "k+y/1 23456"}), "queryKey", {"q": "x"})
    assert upstream.last.target == "/api/v1/secure?q=x&api_key=k%2By%2F1%2023456"


async def test_a_configured_key_replaces_an_argument_sent_in_its_place(
    make_runtime: Make, upstream: Upstream
) -> None:
    """An API key declared as a parameter too goes once, the configured one: an API given two
    `api_key`s or two X-API-Key headers may take either."""
    env = {"T_API_KEY_KEY": KEY, "T_QUERY_KEY_KEY": "query-key", "T_COOKIE_KEY_KEY": "cookie-key"}
    arguments = {"api_key": "guess", "x_api_key": "guess", "sid": "guess"}
    result = await call(make_runtime(DATA, env), "keysAsArguments", arguments)
    assert not result.is_error, text_of(result)
    assert upstream.last.target == "/api/v1/secure?api_key=query-key"
    assert upstream.last.all("X-API-Key") == [KEY]
    assert upstream.last.all("Cookie") == ["sid=cookie-key"]
    await call(make_runtime(DATA, {"T_BEARER_TOKEN": "tok-123456"}), "keysAsArguments", arguments)
    assert upstream.last.target == "/api/v1/secure?api_key=guess"  # no key configured: the argument's
    assert upstream.last.all("X-API-Key") == ["guess"]


async def test_the_first_satisfiable_alternative_is_used(make_runtime: Make, upstream: Upstream) -> None:
    await call(make_runtime(DATA, {"T_BEARER_TOKEN": "tok-123456"}), "basicOrBearer", {})
    assert upstream.last.header("Authorization") == "Bearer tok-123456"
    env = {"T_BEARER_TOKEN": "tok-123456", "T_BASIC_USERNAME": "ann", "T_BASIC_PASSWORD": "pw"}
    await call(make_runtime(DATA, env), "basicOrBearer", {})
    assert upstream.last.header("Authorization") == "Basic " + base64.b64encode(b"ann:pw").decode()


async def test_a_combination_sends_every_credential(make_runtime: Make, upstream: Upstream) -> None:
    env = {"T_API_KEY_KEY": KEY, "T_BEARER_TOKEN": "tok-123456"}
    await call(make_runtime(DATA, env), "keyAndBearer", {})
    assert upstream.last.header("X-API-Key") == KEY
    assert upstream.last.header("Authorization") == "Bearer tok-123456"


async def test_anonymous_access_is_used_only_without_credentials(
    make_runtime: Make, upstream: Upstream
) -> None:
    result = await call(make_runtime(DATA), "optionalKey", {})
    assert not result.is_error and upstream.last.header("X-API-Key") is None
    await call(make_runtime(DATA, {"T_API_KEY_KEY": KEY}), "optionalKey", {})
    assert upstream.last.header("X-API-Key") == KEY


@pytest.mark.parametrize(
    ("tool_name", "env", "named"),
    [
        ("headerKey", {}, ["T_API_KEY_KEY"]),
        ("keyAndBearer", {"T_API_KEY_KEY": KEY}, ["T_BEARER_TOKEN"]),
        ("basicOrBearer", {}, ["T_BASIC_USERNAME and T_BASIC_PASSWORD", "T_BEARER_TOKEN"]),
        ("oauthOnly", {}, ["T_OAUTH_TOKEN (or T_OAUTH_CLIENT_ID and T_OAUTH_CLIENT_SECRET)"]),
        ("oidcOnly", {"T_OIDC_TOKEN": "  "}, ["T_OIDC_TOKEN"]),
    ],
)
async def test_a_missing_credential_is_a_tool_error_naming_the_variables(
    make_runtime: Make, upstream: Upstream, tool_name: str, env: dict[str, str], named: list[str]
) -> None:
    result = await call(make_runtime(DATA, env), tool_name, {})
    assert result.is_error
    assert "Set " + "; or set ".join(named) + " in the MCP server's environment" in text_of(result)
    assert upstream.requests == []


def _oauth_upstream(upstream: Upstream, refuse: set[str], expires_in: float = 3600) -> list[Recorded]:
    """The token endpoint hands out token-1, token-2, ...; the API refuses the tokens in `refuse`."""
    token_requests: list[Recorded] = []

    def respond(request: Recorded) -> Reply:
        if request.path == "/oauth/token":
            token_requests.append(request)
            token = {"access_token": f"token-{len(token_requests)}", "expires_in": expires_in}
            return Reply(body=json.dumps(token).encode())
        if (request.header("Authorization") or "").removeprefix("Bearer ") in refuse:
            return Reply(401, b'{"error":"expired"}')
        return Reply(body=json.dumps({"auth": request.header("Authorization")}).encode())

    upstream.responder = respond
    return token_requests


OAUTH_ENV = {
    "T_OAUTH_CLIENT_ID": "client-1",
    "T_OAUTH_CLIENT_SECRET": "shh-secret",
    "T_OAUTH_SCOPES": "read,write",
}


async def test_client_credentials_tokens_are_fetched_once_and_cached(
    make_runtime: Make, upstream: Upstream
) -> None:
    tokens = _oauth_upstream(upstream, refuse=set())
    runtime_ = make_runtime(DATA, OAUTH_ENV)
    async with anyio.create_task_group() as group:  # concurrent first calls share one fetch
        for _ in range(3):
            group.start_soon(call, runtime_, "oauthOnly", {})
    result = await call(runtime_, "oauthOnly", {})
    assert len(tokens) == 1
    assert tokens[0].method == "POST" and tokens[0].target == "/oauth/token"
    assert tokens[0].header("Content-Type") == "application/x-www-form-urlencoded"
    assert tokens[0].header("Authorization") == "Basic " + base64.b64encode(b"client-1:shh-secret").decode()
    assert tokens[0].body == b"grant_type=client_credentials&scope=read+write"
    assert upstream.last.header("Authorization") == "Bearer token-1"
    assert "token-1" not in text_of(result) and "[REDACTED]" in text_of(result)


async def test_static_headers_go_to_the_api_but_never_to_the_token_endpoint(
    make_runtime: Make, upstream: Upstream
) -> None:
    tokens = _oauth_upstream(upstream, refuse=set())
    env = {**OAUTH_ENV, "T_HEADERS": json.dumps({"X-Api-Secret": "static-secret"})}
    result = await call(make_runtime(DATA, env), "oauthOnly", {})
    assert not result.is_error, text_of(result)
    assert tokens[0].header("X-Api-Secret") is None
    assert upstream.last.header("X-Api-Secret") == "static-secret"


async def test_a_401_fetches_a_new_token_and_retries_once(make_runtime: Make, upstream: Upstream) -> None:
    tokens = _oauth_upstream(upstream, refuse={"token-1"})
    result = await call(make_runtime(DATA, OAUTH_ENV), "oauthOnly", {})
    assert not result.is_error, text_of(result)
    assert len(tokens) == 2
    assert [r.header("Authorization") for r in upstream.requests if r.path != "/oauth/token"] == [
        "Bearer token-1",
        "Bearer token-2",
    ]


async def test_a_second_401_is_reported_not_retried_forever(make_runtime: Make, upstream: Upstream) -> None:
    tokens = _oauth_upstream(upstream, refuse={"token-1", "token-2", "token-3"})
    result = await call(make_runtime(DATA, OAUTH_ENV), "oauthOnly", {})
    assert result.is_error and "HTTP 401" in text_of(result)
    assert len(tokens) == 2 and len(upstream.requests) == 4


async def test_an_expired_token_is_fetched_again(make_runtime: Make, upstream: Upstream) -> None:
    tokens = _oauth_upstream(upstream, refuse=set(), expires_in=0.2)
    runtime_ = make_runtime(DATA, OAUTH_ENV)
    await call(runtime_, "oauthOnly", {})
    await call(runtime_, "oauthOnly", {})
    assert len(tokens) == 1
    await anyio.sleep(0.3)
    await call(runtime_, "oauthOnly", {})
    assert len(tokens) == 2 and upstream.last.header("Authorization") == "Bearer token-2"


async def test_the_token_url_override_and_client_secret_post_fallback(
    make_runtime: Make, upstream: Upstream
) -> None:
    seen: list[Recorded] = []

    def respond(request: Recorded) -> Reply:
        if request.path == "/other/token":
            seen.append(request)
            if request.header("Authorization"):
                return Reply(401, b'{"error":"invalid_client"}')
            return Reply(body=b'{"access_token":"tok-post","token_type":"bearer"}')
        return Reply()

    upstream.responder = respond
    env = {**OAUTH_ENV, "T_OAUTH_TOKEN_URL": upstream.url + "/other/token", "T_OAUTH_SCOPES": ""}
    result = await call(make_runtime(DATA, env), "oauthOnly", {})
    assert not result.is_error, text_of(result)
    assert [r.body for r in seen] == [
        b"grant_type=client_credentials",
        b"grant_type=client_credentials&client_id=client-1&client_secret=shh-secret",
    ]
    assert upstream.last.header("Authorization") == "Bearer tok-post"


async def test_a_refused_token_request_is_a_tool_error_without_the_secret(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.reply(401, b'{"error":"invalid_client","client_secret":"shh-secret"}')
    result = await call(make_runtime(DATA, OAUTH_ENV), "oauthOnly", {})
    text = text_of(result)
    assert result.is_error and "Could not get an OAuth2 access token" in text
    assert "T_OAUTH_CLIENT_ID" in text and "shh-secret" not in text
    assert all(r.path == "/oauth/token" for r in upstream.requests)


async def test_credentials_never_appear_in_results_errors_or_logs(
    make_runtime: Make, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    upstream.responder = lambda r: Reply(
        401, json.dumps({"you sent": r.target, "key": r.header("X-API-Key")}).encode()
    )
    env = {"T_API_KEY_KEY": KEY, "T_QUERY_KEY_KEY": "query-secret-42"}
    tools = make_runtime(DATA, env)
    for name in ("headerKey", "queryKey"):
        result = await call(tools, name, {})
        assert result.is_error and "[REDACTED]" in text_of(result)
        assert KEY not in text_of(result) and "query-secret-42" not in text_of(result)
    refused = make_runtime(DATA, env, base_url=f"http://127.0.0.1:{closed_port()}/api")
    result = await call(refused, "queryKey", {"q": "x"})
    assert "api_key=[REDACTED]" in text_of(result) and "query-secret-42" not in text_of(result)
    assert KEY not in caplog.text and "query-secret-42" not in caplog.text
    assert "api_key=[REDACTED]" in caplog.text


# ---- through a real MCP client ---------------------------------------------------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_calls_through_an_mcp_client(make_runtime: Make, upstream: Upstream, mode: str) -> None:
    async with mcp.Client(mcp_server(make_runtime(DATA)), mode=mode) as client:
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == [t["name"] for t in DATA["tools"]]
        result = await client.call_tool("getItem", {"id": "a/b c?d#e%../x"})
        assert not result.is_error
        assert upstream.last.target == "/api/v1/items/a%2Fb%20c%3Fd%23e%25..%2Fx"
        invalid = await client.call_tool("createPet", {"colour": "red"})
        assert invalid.is_error and "'colour'" in text_of(invalid)
        with pytest.raises(MCPError) as raised:
            await client.call_tool("nope", {})
        assert raised.value.code == -32602 and "Unknown tool: nope" in raised.value.message
    assert len(upstream.requests) == 1


# ---- settings, start-up ----------------------------------------------------------------------


def test_settings_defaults_and_precedence() -> None:
    settings = runtime.Settings.from_env({"T_BASE_URL": "https://h/api/"}, prefix="T")
    assert (settings.base_url, settings.timeout, settings.max_response_bytes) == (
        "https://h/api",
        30.0,
        1_000_000,
    )
    assert settings.headers == {}
    settings = runtime.Settings.from_env(
        {"T_BASE_URL": "https://env", "T_TIMEOUT": "2.5", "T_MAX_RESPONSE_BYTES": "2048"},
        prefix="T",
        default_base_url="https://default",
        base_url="https://argv",
    )
    assert (settings.base_url, settings.timeout, settings.max_response_bytes) == ("https://argv", 2.5, 2048)
    assert runtime.Settings.from_env({}, prefix="T", default_base_url="http://d").base_url == "http://d"
    assert "T_TOKEN" not in repr(runtime.Settings.from_env({"T_TOKEN": "x"}, prefix="T", base_url="http://h"))


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"T_BASE_URL": "/relative"}, "T_BASE_URL must be an absolute http(s) URL"),
        ({"T_BASE_URL": "ftp://h"}, "T_BASE_URL must be an absolute http(s) URL"),
        ({"T_BASE_URL": "https://{region}.h"}, "{variable}"),
        (
            {"T_BASE_URL": "https://h", "T_TIMEOUT": "soon"},
            "T_TIMEOUT must be a number of seconds greater than 0, got 'soon'",
        ),
        ({"T_BASE_URL": "https://h", "T_TIMEOUT": "-1"}, "T_TIMEOUT must be a number"),
        ({"T_BASE_URL": "https://h", "T_TIMEOUT": "nan"}, "T_TIMEOUT must be a number"),
        (
            {"T_BASE_URL": "https://h", "T_MAX_RESPONSE_BYTES": "1.5"},
            "T_MAX_RESPONSE_BYTES must be a whole number",
        ),
        ({"T_BASE_URL": "https://h", "T_HEADERS": "{oops"}, "T_HEADERS is not valid JSON"),
        ({"T_BASE_URL": "https://h", "T_HEADERS": "[1]"}, "T_HEADERS must be a JSON object"),
        ({"T_BASE_URL": "https://h", "T_HEADERS": '{"Bad Name": "x"}'}, "must be a header name"),
        ({"T_BASE_URL": "https://h", "T_HEADERS": '{"X-A": {"b": 1}}'}, "must be a header name"),
        ({"T_BASE_URL": "https://h", "T_HEADERS": '{"X-A": "a\\r\\nB: c"}'}, "CR or LF"),
    ],
)
def test_bad_settings_are_config_errors_with_a_readable_message(env: dict[str, str], message: str) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        runtime.Settings.from_env(env, prefix="T")
    assert message in str(raised.value)


async def test_a_request_carries_only_the_default_headers_besides_its_own(
    make_runtime: Make, upstream: Upstream
) -> None:
    result = await call(make_runtime(DATA), "getItem", {"id": "a/b c"})
    assert not result.is_error
    assert (upstream.last.method, upstream.last.target) == ("GET", "/api/v1/items/a%2Fb%20c")
    names = sorted(name.lower() for name, _ in upstream.last.headers)
    assert names == ["accept", "accept-encoding", "connection", "host", "user-agent"]
    assert upstream.last.header("Accept-Encoding") == "gzip, deflate"


def test_loading_bad_tool_data_is_a_config_error(tmp_path: Any) -> None:
    settings = runtime.Settings.from_env({}, prefix="T", base_url="http://h")
    (tmp_path / "tool_data.json").write_text('{"format": 1}')
    for path in (tmp_path / "tool_data.json", tmp_path / "missing.json"):
        with pytest.raises(runtime.ConfigError):
            runtime.ToolRuntime.load(path, settings)


def test_tools_list_is_built_once_and_equals_the_wire_tools(tmp_path: Any) -> None:
    (tmp_path / "tool_data.json").write_text(json.dumps(DATA))
    settings = runtime.Settings.from_env({}, prefix="T", base_url="http://h")
    tools = runtime.ToolRuntime.load(tmp_path / "tool_data.json", settings)
    listed = tools.list_tools_result()
    assert tools.list_tools_result() is listed
    assert listed["tools"] == DATA["tools"]
    assert mcp.types.ListToolsResult.model_validate(listed).tools[0].name == DATA["tools"][0]["name"]
    assert tools.input_schema("getItem") == DATA["tools"][0]["inputSchema"]
    assert tools.input_schema("nope") is None


def test_start_up_imports_no_httpx_jsonschema_or_ijson(tmp_path: Any) -> None:
    (tmp_path / "tool_data.json").write_text(json.dumps(DATA))
    script = f"""
import sys
from openapi2mcp_runtime import tool_runtime as runtime
settings = runtime.Settings.from_env({{}}, prefix="T", base_url="http://h")
tools = runtime.ToolRuntime.load({str(tmp_path / "tool_data.json")!r}, settings)
tools.list_tools_result()
print(sorted(m for m in ("httpx", "jsonschema", "ijson") if m in sys.modules))
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


def test_build_request_is_pure() -> None:
    route = serialize.Route.from_json(DATA["routes"]["search"])
    request = serialize.build_request(route, {"tags": ["a b"], "flag": True})
    assert request.url("https://h/api/") == "https://h/api/search?tags=a%20b&flag=true"
    assert request.body is None and request.headers == {} and request.cookies == []


def test_fixed_query_pairs_of_a_path_key_come_first_and_are_encoded() -> None:
    data = {**DATA["routes"]["search"], "fixedQuery": [["view", "full info"], ["beta", "true"]]}
    route = serialize.Route.from_json(data)
    request = serialize.build_request(route, {"tags": ["x"]})
    assert request.url("https://h/api") == "https://h/api/search?view=full%20info&beta=true&tags=x"
