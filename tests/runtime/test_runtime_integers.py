"""An integral float for an `integer` argument (JSON Schema counts 1.0 as an integer) is accepted
and sent as the integer, wherever it goes: path, query, header, cookie, form, multipart and JSON
body, nested, through `$ref`s and `anyOf`; a `number` keeps its float; a non-integral float for an
`integer` is still refused and nothing is sent."""

from __future__ import annotations

import pytest

from .conftest import Make, Upstream, body, body_field, call, form_body, param, text_of, tool, tool_data

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

INT = {"type": "integer"}
NUMBER = {"type": "number"}
INTS = {"type": "array", "items": INT}
DATA = tool_data(
    tool(
        "getAnimal",
        "GET",
        "/animals/{animalId}",
        params=(
            param("animalId", "path", INT, required=True),
            param("limit", "query", INT),
            param("ids", "query", INTS, explode=False),
            param("ratio", "query", NUMBER),
            param("page", "header", INT, name="X-Page"),
            param("shard", "cookie", INT),
            param("maybe", "query", {"anyOf": [INT, {"type": "string"}]}),
        ),
    ),
    tool(
        "createAnimal",
        "POST",
        "/animals",
        request_body=body(
            "application/json",
            "json",
            arg="body",
            arg_schema={
                "type": "object",
                "properties": {
                    "age": INT,
                    "weight": NUMBER,
                    "litter": {"type": "array", "items": {"$ref": "#/$defs/Pup"}},
                    "pair": {"type": "array", "prefixItems": [INT, NUMBER]},
                },
                "additionalProperties": INT,
            },
        ),
    ),
    tool(
        "submitForm",
        "POST",
        "/form",
        request_body=form_body(body_field("count", INT), body_field("counts", INTS)),
    ),
    tool(
        "upload",
        "POST",
        "/upload",
        request_body=body("multipart/form-data", "multipart", fields=(body_field("count", INT),)),
    ),
)
DATA["tools"][1]["inputSchema"]["$defs"] = {"Pup": {"type": "object", "properties": {"size": INT}}}


async def test_an_integral_float_is_sent_as_an_integer_in_every_parameter_location(
    make_runtime: Make, upstream: Upstream
) -> None:
    arguments = {
        "animalId": 1.0,
        "limit": 20.0,
        "ids": [3.0, 4],
        "ratio": 2.0,
        "page": 5.0,
        "shard": 6.0,
        "maybe": 7.0,
    }
    result = await call(make_runtime(DATA), "getAnimal", arguments)
    assert not result.is_error, text_of(result)
    assert upstream.last.target == "/api/v1/animals/1?limit=20&ids=3,4&ratio=2.0&maybe=7"
    assert upstream.last.header("X-Page") == "5"
    assert upstream.last.all("Cookie") == ["shard=6"]


async def test_an_integral_float_is_an_integer_in_a_json_body_nested_and_through_refs(
    make_runtime: Make, upstream: Upstream
) -> None:
    value = {"age": 3.0, "weight": 4.0, "litter": [{"size": 2.0}], "pair": [1.0, 1.0], "extra": 9.0}
    result = await call(make_runtime(DATA), "createAnimal", {"body": value})
    assert not result.is_error, text_of(result)
    assert upstream.last.body == (b'{"age":3,"weight":4.0,"litter":[{"size":2}],"pair":[1,1.0],"extra":9}')


async def test_an_integral_float_is_an_integer_in_form_and_multipart_bodies(
    make_runtime: Make, upstream: Upstream
) -> None:
    tools = make_runtime(DATA)
    await call(tools, "submitForm", {"count": 2.0, "counts": [1.0, 2.0]})
    assert upstream.last.body == b"count=2&counts=1&counts=2"
    await call(tools, "upload", {"count": 8.0})
    assert b'name="count"\r\n\r\n8\r\n' in upstream.last.body


@pytest.mark.parametrize("value", [1.5, 1e-3])
async def test_a_non_integral_float_for_an_integer_is_still_refused(
    make_runtime: Make, upstream: Upstream, value: float
) -> None:
    result = await call(make_runtime(DATA), "getAnimal", {"animalId": value})
    assert result.is_error
    assert "$.animalId" in text_of(result) and "(rule: type)" in text_of(result)
    assert upstream.requests == []
