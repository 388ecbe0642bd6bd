"""Listed schemas without boolean subschemas (emit/listing.py, docs/clients.md), enforcement as
before: the runtime closes again, from the route's `closed`, what the listed inputSchema leaves
open, so an unknown argument is still refused, at the root and in an object the spec closes, while
an object the spec leaves open still takes any property."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.emit.listing import listed_input
from openapi2mcp.emit.tool_data import tool_data
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.tools.mapper import map_document

from .conftest import Make, Upstream, call, runtime, text_of

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

SCHEMA = "https://json-schema.org/draft/2020-12/schema"
OWNER = {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": False}
META = {"type": "object", "properties": {"note": {"type": "string"}}}
SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "T", "version": "1"},
    "paths": {
        "/pets": {
            "post": {
                "operationId": "createPet",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"name": {"type": "string"}, "owner": OWNER, "meta": META},
                            }
                        }
                    },
                },
                "responses": {"204": {"description": "made"}},
            }
        },
        "/ping": {"get": {"operationId": "ping", "responses": {"204": {"description": "up"}}}},
    },
}


def generated() -> dict[str, Any]:
    options = GeneratorOptions(dist_name="t", env_prefix="T")
    return tool_data(map_document(SPEC, options, Diagnostics()), options, generator="test")


def test_the_listed_input_schemas_hold_no_boolean_and_the_route_names_what_was_closed() -> None:
    data = generated()
    create, ping = data["tools"]
    assert create["inputSchema"] == {
        "$schema": SCHEMA,
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "owner": {"type": "object", "properties": {"id": {"type": "string"}}},
            "meta": META,
        },
    }
    assert data["routes"]["createPet"]["closed"] == ["", "/properties/owner"]
    assert ping["inputSchema"] == {"$schema": SCHEMA, "type": "object", "properties": {}}
    assert data["routes"]["ping"]["closed"] == [""]


def test_other_boolean_subschemas_are_listed_as_the_schemas_of_the_same_meaning() -> None:
    schema = {
        "type": "object",
        "properties": {
            "any": True,
            "none": False,
            "a/b": {"type": "array", "items": {"type": "object", "additionalProperties": False}},
            "map": {"type": "object", "additionalProperties": True},
        },
        "additionalProperties": False,
    }
    listed, closed = listed_input(schema)
    assert listed == {
        "type": "object",
        "properties": {
            "any": {},
            "none": {"not": {}},
            "a/b": {"type": "array", "items": {"type": "object"}},
            "map": {"type": "object"},
        },
    }
    assert closed == ["", "/properties/a~1b/items"]


async def test_an_unknown_argument_is_refused_at_the_root(make_runtime: Make, upstream: Upstream) -> None:
    result = await call(make_runtime(generated()), "createPet", {"name": "Rex", "colour": "red"})
    assert result.is_error
    assert "unknown argument(s) 'colour'; valid: name, owner, meta" in text_of(result)
    assert upstream.requests == []


async def test_an_unknown_property_of_an_object_the_spec_closes_is_refused(
    make_runtime: Make, upstream: Upstream
) -> None:
    result = await call(make_runtime(generated()), "ping", {"extra": 1})
    assert result.is_error and "unknown argument(s) 'extra'" in text_of(result)
    result = await call(make_runtime(generated()), "createPet", {"name": "Rex", "owner": {"id": "1", "x": 2}})
    assert result.is_error and "'x'" in text_of(result), text_of(result)
    assert upstream.requests == []


async def test_an_object_the_spec_leaves_open_still_takes_any_property(
    make_runtime: Make, upstream: Upstream
) -> None:
    upstream.reply(status=204, body=b"", content_type=None)
    result = await call(make_runtime(generated()), "createPet", {"name": "Rex", "meta": {"x": 2}})
    assert not result.is_error, text_of(result)
    assert upstream.last.body == b'{"name":"Rex","meta":{"x":2}}'


# ---- PREFIX_LISTED_SCHEMAS=exact: listed closed where enforced ------------------------------------

EXACT = {"T_LISTED_SCHEMAS": "exact"}
CLOSED_OWNER = {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": False}


def listed_schemas(tools: Any) -> dict[str, Any]:
    return {wire["name"]: wire["inputSchema"] for wire in tools.list_tools_result()["tools"]}


async def test_exact_lists_additional_properties_false_where_the_runtime_closes(make_runtime: Make) -> None:
    schemas = listed_schemas(make_runtime(generated(), env=EXACT))
    assert schemas["createPet"] == {
        "$schema": SCHEMA,
        "type": "object",
        "properties": {"name": {"type": "string"}, "owner": CLOSED_OWNER, "meta": META},
        "additionalProperties": False,
    }
    closed_empty = {"type": "object", "properties": {}, "additionalProperties": False}
    assert schemas["ping"] == {"$schema": SCHEMA, **closed_empty}


async def test_portable_is_the_default_and_lists_no_boolean(make_runtime: Make) -> None:
    data = generated()
    assert listed_schemas(make_runtime(data)) == {tool["name"]: tool["inputSchema"] for tool in data["tools"]}
    portable = listed_schemas(make_runtime(data, env={"T_LISTED_SCHEMAS": "Portable"}))
    assert portable == listed_schemas(make_runtime(data))


async def test_exact_refuses_and_accepts_what_portable_does(make_runtime: Make, upstream: Upstream) -> None:
    exact = make_runtime(generated(), env=EXACT)
    refused = await call(exact, "createPet", {"name": "Rex", "owner": {"id": "1", "x": 2}})
    assert refused.is_error and "'x'" in text_of(refused), text_of(refused)
    upstream.reply(status=204, body=b"", content_type=None)
    taken = await call(exact, "createPet", {"name": "Rex", "meta": {"x": 2}})
    assert not taken.is_error, text_of(taken)
    assert upstream.last.body == b'{"name":"Rex","meta":{"x":2}}'


async def test_auto_mode_counts_what_exact_adds_to_the_list(make_runtime: Make) -> None:
    data = generated()
    sizes = {name: route["listBytes"] for name, route in data["routes"].items()}
    exact = make_runtime(data, env=EXACT)
    wire = {tool["name"]: tool for tool in exact.list_tools_result()["tools"]}
    for name, size in sizes.items():
        measured = len(json.dumps(wire[name], ensure_ascii=False, separators=(",", ":")).encode())
        assert exact._size(name) == measured == size + 29 * len(data["routes"][name]["closed"])


@pytest.mark.parametrize("raw", ["strict", "true", "exactly"])
def test_a_bad_listed_schemas_value_is_a_config_error_naming_the_variable(raw: str) -> None:
    with pytest.raises(runtime.ConfigError) as raised:
        runtime.Settings.from_env({"T_LISTED_SCHEMAS": raw}, prefix="T")
    assert str(raised.value) == f"T_LISTED_SCHEMAS must be portable or exact, got {raw!r}"
