"""The argument contract (issue 2): each tool's inputSchema and how its arguments bind to the request."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from openapi2mcp.diagnostics import Diagnostic, Diagnostics, Level
from openapi2mcp.model import ApiModel, GeneratorOptions, Tool
from openapi2mcp.pipeline import generate
from openapi2mcp.tools.mapper import map_document

REPO = Path(__file__).resolve().parents[2]
OK = {"200": {"description": "ok"}}
DIALECT = "https://json-schema.org/draft/2020-12/schema"
LOCATIONS = ("path", "query", "header", "cookie", "body")


def spec(paths: dict[str, Any], version: str = "3.0.3") -> dict[str, Any]:
    return {
        "openapi": version,
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://x.test"}],
        "paths": paths,
    }


def build(document: dict[str, Any]) -> tuple[ApiModel, list[Diagnostic]]:
    diagnostics = Diagnostics()
    model = map_document(document, GeneratorOptions(dist_name="t", env_prefix="T"), diagnostics)
    return model, list(diagnostics)


def tool_of(
    path: str,
    method: str,
    operation: dict[str, Any],
    path_item: dict[str, Any] | None = None,
    version: str = "3.0.3",
    components: dict[str, Any] | None = None,
) -> Tool:
    document = spec({path: {**(path_item or {}), method: {"responses": OK, **operation}}}, version)
    if components is not None:
        document["components"] = components
    model, diagnostics = build(document)
    assert len(model.tools) == 1, [d.render() for d in diagnostics]
    return model.tools[0]


def tool_a(
    method: str,
    path: str = "/a",
    version: str = "3.0.3",
    components: dict[str, Any] | None = None,
    **operation: Any,
) -> Tool:
    """The one tool of METHOD PATH: operationId `a`, the operation's other fields by keyword."""
    return tool_of(path, method, {"operationId": "a", **operation}, version=version, components=components)


def param(name: str, location: str, schema: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "in": location,
        "required": location == "path",
        "schema": schema or {"type": "string"},
        **extra,
    }


def json_body(schema: Any, required: bool = True, media: str = "application/json") -> dict[str, Any]:
    return {"required": required, "content": {media: {"schema": schema}}}


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def walk(schema: Any, where: str = "") -> Iterator[tuple[str, str, Any]]:
    """(pointer, keyword, value) for every keyword of every subschema."""
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        yield where, key, value
        if key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
            for name, sub in value.items():
                yield from _sub(sub, f"{where}/{key}/{name}")
        elif key in (
            "items",
            "additionalProperties",
            "not",
            "contains",
            "if",
            "then",
            "else",
            "propertyNames",
            "unevaluatedItems",
            "unevaluatedProperties",
            "additionalItems",
        ):
            yield from _sub(value, f"{where}/{key}")
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            for index, sub in enumerate(value):
                yield from _sub(sub, f"{where}/{key}/{index}")


def _sub(value: Any, where: str) -> Iterator[tuple[str, str, Any]]:
    yield where, "", value
    yield from walk(value, where)


def bare_booleans(schema: dict[str, Any]) -> list[str]:
    """Places holding a bare true/false subschema (the one allowed form: additionalProperties: false)."""
    return [
        where
        for where, key, value in walk(schema)
        if key == ""
        and isinstance(value, bool)
        and not (where.endswith("/additionalProperties") and value is False)
    ]


def type_arrays(schema: dict[str, Any]) -> list[str]:
    return [where for where, key, value in walk(schema) if key == "type" and not isinstance(value, str)]


# ---------------------------------------------------------------------------------------------
# The envelope


def test_a_tool_without_arguments_has_a_closed_empty_object_schema_in_2020_12() -> None:
    tool = tool_a("get")
    assert tool.input_schema == {
        "$schema": DIALECT,
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


def test_an_input_schema_is_a_closed_object_in_the_2020_12_dialect_with_its_required_arguments() -> None:
    tool = tool_a(
        "post",
        path="/a/{id}",
        parameters=[param("id", "path"), param("q", "query", required=True), param("opt", "query")],
        requestBody=json_body({"type": "object", "required": ["n"], "properties": {"n": {"type": "string"}}}),
    )
    schema = tool.input_schema
    assert (schema["$schema"], schema["type"], schema["additionalProperties"]) == (DIALECT, "object", False)
    assert list(schema["properties"]) == ["id", "q", "opt", "n"]
    assert schema["required"] == ["id", "q", "n"]


def test_an_input_schema_rejects_an_unknown_argument() -> None:
    tool = tool_a("get", parameters=[param("q", "query")])
    validator = Draft202012Validator(tool.input_schema)
    assert validator.is_valid({"q": "x"})
    assert not validator.is_valid({"q": "x", "other": 1})


# ---------------------------------------------------------------------------------------------
# Parameters


@pytest.mark.parametrize("location", ["path", "query", "header", "cookie"])
def test_a_parameter_in_each_location_is_a_property_named_by_the_parameter(location: str) -> None:
    path = "/a/{X-Trace.id}" if location == "path" else "/a"
    tool = tool_a("get", path=path, parameters=[param("X-Trace.id", location)])
    assert list(tool.input_schema["properties"]) == ["X-Trace.id"]
    (bound,) = tool.parameters
    assert (bound.argument, bound.name, bound.location) == ("X-Trace.id", "X-Trace.id", location)


@pytest.mark.parametrize(
    ("wire", "argument"),
    [("filter[status]", "filter_status_"), ("a b", "a_b"), ("$select", "_select"), ("é", "_")],
)
def test_a_parameter_name_outside_the_argument_set_is_sanitized_and_keeps_its_wire_name(
    wire: str, argument: str
) -> None:
    tool = tool_a("get", parameters=[param(wire, "query")])
    assert list(tool.input_schema["properties"]) == [argument]
    assert (tool.parameters[0].argument, tool.parameters[0].name) == (argument, wire)


def test_a_parameter_name_longer_than_64_characters_is_shortened_to_64() -> None:
    wire = "p" * 80
    tool = tool_a("get", parameters=[param(wire, "query")])
    (argument,) = tool.input_schema["properties"]
    assert len(argument) == 64
    assert argument.startswith("p" * 50)
    assert tool.parameters[0].name == wire


def test_path_item_parameters_apply_to_every_operation_of_the_path() -> None:
    model, _ = build(
        spec(
            {
                "/a/{id}": {
                    "parameters": [param("id", "path"), param("v", "query")],
                    "get": {"operationId": "g", "responses": OK},
                    "delete": {"operationId": "d", "responses": OK},
                }
            }
        )
    )
    assert [list(tool.input_schema["properties"]) for tool in model.tools] == [["id", "v"], ["id", "v"]]


def test_an_operation_parameter_overrides_the_path_item_parameter_with_the_same_name_and_location() -> None:
    tool = tool_of(
        "/a/{id}",
        "get",
        {
            "operationId": "a",
            "parameters": [
                param("id", "path", {"type": "integer", "minimum": 1}, description="operation-level"),
                param("v", "header", {"type": "integer"}),
            ],
        },
        path_item={
            "parameters": [
                param("id", "path", {"type": "string"}, description="path-level"),
                param("v", "query", {"type": "string"}),
            ]
        },
    )
    properties = tool.input_schema["properties"]
    assert properties["id"] == {"type": "integer", "minimum": 1, "description": "operation-level"}
    assert [(p.name, p.location) for p in tool.parameters] == [
        ("id", "path"),
        ("v", "query"),
        ("v", "header"),
    ]
    assert list(properties) == ["id", "v", "v_header"]


@pytest.mark.parametrize("header", ["Accept", "content-type", "AUTHORIZATION"])
def test_accept_content_type_and_authorization_header_parameters_are_ignored_with_info(header: str) -> None:
    model, diagnostics = build(
        spec(
            {
                "/a": {
                    "get": {
                        "operationId": "a",
                        "responses": OK,
                        "parameters": [
                            param(header, "header"),
                            param("keep", "header"),
                        ],
                    }
                }
            }
        )
    )
    (tool,) = model.tools
    assert list(tool.input_schema["properties"]) == ["keep"]
    assert [p.name for p in tool.parameters] == ["keep"]
    assert [(d.level, d.pointer) for d in diagnostics] == [(Level.INFO, "#/paths/~1a/get/parameters/0")]


def test_a_query_parameter_named_authorization_is_kept() -> None:
    tool = tool_a("get", parameters=[param("Authorization", "query")])
    assert list(tool.input_schema["properties"]) == ["Authorization"]


def test_path_parameters_are_always_required_and_others_only_when_declared() -> None:
    tool = tool_a(
        "get",
        path="/a/{id}",
        parameters=[
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
            param("q", "query"),
            param("h", "header", required=True),
            param("c", "cookie"),
        ],
    )
    assert tool.input_schema["required"] == ["id", "h"]
    assert [(p.name, p.required) for p in tool.parameters] == [
        ("id", True),
        ("q", False),
        ("h", True),
        ("c", False),
    ]


def test_parameter_constraints_are_kept() -> None:
    tool = tool_a(
        "get",
        parameters=[
            param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}),
            param("kind", "query", {"type": "string", "enum": ["cat", "dog"]}),
            param("code", "query", {"type": "string", "pattern": "^[a-z]+$", "minLength": 2, "maxLength": 8}),
            param(
                "tags",
                "query",
                {"type": "array", "items": {"type": "string"}, "maxItems": 3, "uniqueItems": True},
            ),
        ],
    )
    properties = tool.input_schema["properties"]
    assert properties["limit"] == {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}
    assert properties["kind"] == {"type": "string", "enum": ["cat", "dog"]}
    assert properties["code"] == {"type": "string", "pattern": "^[a-z]+$", "minLength": 2, "maxLength": 8}
    assert properties["tags"] == {
        "type": "array",
        "items": {"type": "string", "minLength": 1},
        "maxItems": 3,
        "uniqueItems": True,
    }


def test_the_parameter_description_is_the_property_description() -> None:
    tool = tool_a("get", parameters=[param("q", "query", {"type": "string"}, description="Search text.")])
    assert tool.input_schema["properties"]["q"] == {
        "type": "string",
        "description": "Search text.",
        "minLength": 1,
    }


# ---------------------------------------------------------------------------------------------
# Clashes: the first of path, query, header, cookie, body keeps the name, the others get `_{location}`


def clash_operation(first: str, second: str) -> tuple[str, dict[str, Any]]:
    path = "/a/{id}" if "path" in (first, second) else "/a"
    operation: dict[str, Any] = {
        "operationId": "a",
        "parameters": [param("id", location) for location in (first, second) if location != "body"],
    }
    if "body" in (first, second):
        operation["requestBody"] = json_body(obj(id={"type": "string"}))
    return path, operation


@pytest.mark.parametrize(("first", "second"), list(itertools.combinations(LOCATIONS, 2)))
def test_of_a_name_in_two_locations_the_first_keeps_it_and_the_second_gets_its_suffix(
    first: str, second: str
) -> None:
    path, operation = clash_operation(first, second)
    tool = tool_of(path, "post", operation)
    assert sorted(tool.input_schema["properties"]) == sorted(["id", f"id_{second}"])
    bound: dict[str, str] = {p.location: p.argument for p in tool.parameters}
    if tool.body is not None:
        bound["body"] = tool.body.fields[0].argument
        assert tool.body.fields[0].name == "id"
    assert bound == {first: "id", second: f"id_{second}"}
    assert all(p.name == "id" for p in tool.parameters)


def test_a_name_in_all_five_locations_stays_with_the_path_and_unrelated_names_stay() -> None:
    tool = tool_a(
        "post",
        path="/a/{id}",
        parameters=[param("id", location) for location in LOCATIONS[:4]] + [param("other", "query")],
        requestBody=json_body(obj(id={"type": "string"}, name={"type": "string"})),
    )
    assert list(tool.input_schema["properties"]) == [
        "id",
        "id_query",
        "id_header",
        "id_cookie",
        "other",
        "id_body",
        "name",
    ]


def test_a_parameter_keeps_its_name_in_every_tool_of_a_path_when_a_body_has_it_too() -> None:
    """Jupyter Server's contents API: `path` is the path parameter of GET, PUT and PATCH, and PUT's and
    PATCH's bodies have a `path` field (the new path)."""
    body = json_body(obj(path={"type": "string", "description": "New path"}, name={"type": "string"}))
    model, _ = build(
        spec(
            {
                "/api/contents/{path}": {
                    "parameters": [param("path", "path")],
                    "get": {"operationId": "get_contents", "responses": OK},
                    "put": {"operationId": "save_contents", "requestBody": body, "responses": OK},
                    "patch": {"operationId": "rename_contents", "requestBody": body, "responses": OK},
                }
            }
        )
    )
    assert [[p.argument for p in tool.parameters] for tool in model.tools] == [["path"]] * 3
    assert [list(tool.input_schema["properties"]) for tool in model.tools] == [
        ["path"],
        ["path", "path_body", "name"],
        ["path", "path_body", "name"],
    ]
    put = model.tools[1]
    assert put.body is not None
    assert [(field.argument, field.name) for field in put.body.fields] == [
        ("path_body", "path"),
        ("name", "name"),
    ]
    assert put.input_schema["properties"]["path_body"]["description"] == (
        "Sent as `path` in the request body; the argument `path` is the path parameter. New path"
    )
    assert "description" not in put.input_schema["properties"]["name"]


def test_a_whole_body_that_gives_way_to_a_parameter_named_body_says_so() -> None:
    tool = tool_a(
        "post",
        parameters=[param("body", "query")],
        requestBody=json_body({"type": "string"}, media="text/plain"),
    )
    assert tool.input_schema["properties"]["body_body"]["description"] == (
        "The request body; the argument `body` is the query parameter."
    )


def test_a_sanitized_name_that_equals_another_parameter_counts_as_a_clash() -> None:
    tool = tool_a("get", parameters=[param("page[size]", "query"), param("page_size_", "header")])
    assert list(tool.input_schema["properties"]) == ["page_size_", "page_size__header"]


def id_clash(body: dict[str, Any], required: bool = True) -> Tool:
    """POST /a/{id}: the path parameter `id`, and an object body (`required` or not) with an `id` too."""
    return tool_a(
        "post", path="/a/{id}", parameters=[param("id", "path")], requestBody=json_body(body, required)
    )


def test_the_required_list_uses_the_suffixed_names() -> None:
    tool = id_clash({"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}})
    assert tool.input_schema["required"] == ["id", "id_body"]


# ---------------------------------------------------------------------------------------------
# Bodies


@pytest.mark.parametrize(
    "media",
    [
        "application/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "application/merge-patch+json",
    ],
)
def test_an_object_body_is_flattened_into_top_level_properties(media: str) -> None:
    schema = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "maxLength": 5},
            "age": {"type": "integer", "minimum": 0},
        },
    }
    tool = tool_a("post", requestBody=json_body(schema, media=media))
    assert tool.input_schema["properties"] == {
        "name": {"type": "string", "maxLength": 5},
        "age": {"type": "integer", "minimum": 0},
    }
    assert tool.input_schema["required"] == ["name"]
    assert tool.body is not None
    assert (tool.body.media_type, tool.body.argument) == (media, None)
    assert [(f.argument, f.name, f.required) for f in tool.body.fields] == [
        ("name", "name", True),
        ("age", "age", False),
    ]


def test_a_referenced_object_body_with_all_of_is_flattened_too() -> None:
    components = {
        "schemas": {
            "Base": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},
            "Pet": {
                "allOf": [
                    {"$ref": "#/components/schemas/Base"},
                    {"type": "object", "properties": {"name": {"type": "string"}}},
                ]
            },
        }
    }
    tool = tool_a("post", requestBody=json_body({"$ref": "#/components/schemas/Pet"}), components=components)
    assert list(tool.input_schema["properties"]) == ["id", "name"]
    assert tool.input_schema["required"] == ["id"]


@pytest.mark.parametrize(
    ("media", "schema", "kind"),
    [
        ("application/json", {"type": "array", "items": {"type": "string"}, "maxItems": 3}, "json"),
        ("application/json", {"type": "string", "enum": ["a", "b"]}, "json"),
        ("application/json", {"type": "object", "additionalProperties": {"type": "integer"}}, "json"),
        ("text/plain", {"type": "string", "maxLength": 10}, "text"),
        ("application/xml", {"type": "object", "properties": {"a": {"type": "string"}}}, "text"),
    ],
    ids=["json-array", "json-string", "json-map", "text", "xml-object"],
)
def test_any_other_body_is_one_body_property(media: str, schema: dict[str, Any], kind: str) -> None:
    tool = tool_a("post", requestBody=json_body(schema, media=media))
    assert list(tool.input_schema["properties"]) == ["body"]
    assert tool.input_schema["required"] == ["body"]
    assert tool.body is not None
    assert (tool.body.kind, tool.body.argument, tool.body.fields, tool.body.binary) == (
        kind,
        "body",
        (),
        False,
    )


def test_a_non_object_body_keeps_its_constraints() -> None:
    tool = tool_a(
        "post",
        requestBody=json_body({"type": "array", "items": {"type": "integer", "minimum": 1}, "maxItems": 3}),
    )
    assert tool.input_schema["properties"]["body"] == {
        "type": "array",
        "items": {"type": "integer", "minimum": 1},
        "maxItems": 3,
    }


def test_an_optional_non_object_body_is_an_optional_body_property() -> None:
    tool = tool_a("post", requestBody=json_body({"type": "string"}, required=False))
    assert list(tool.input_schema["properties"]) == ["body"]
    assert "required" not in tool.input_schema


def test_a_body_property_clashes_with_a_parameter_named_body() -> None:
    tool = tool_a(
        "post",
        parameters=[param("body", "query")],
        requestBody=json_body({"type": "string"}, media="text/plain"),
    )
    assert list(tool.input_schema["properties"]) == ["body", "body_body"]
    assert tool.body is not None and tool.body.argument == "body_body"


def test_a_binary_body_is_one_base64_string_property() -> None:
    tool = tool_a(
        "put", requestBody=json_body({"type": "string", "format": "binary"}, media="application/octet-stream")
    )
    body_schema = tool.input_schema["properties"]["body"]
    assert (body_schema["type"], body_schema["contentEncoding"]) == ("string", "base64")
    assert "format" not in body_schema
    assert tool.body is not None
    assert (tool.body.kind, tool.body.binary, tool.body.argument) == ("binary", True, "body")


def test_a_binary_body_without_a_schema_is_one_base64_string_property() -> None:
    tool = tool_a("put", requestBody={"content": {"image/png": {}}})
    body_schema = tool.input_schema["properties"]["body"]
    assert (body_schema["type"], body_schema["contentEncoding"]) == ("string", "base64")
    assert tool.body is not None and tool.body.binary is True


def test_a_binary_multipart_field_is_a_base64_string_sent_as_bytes() -> None:
    tool = tool_a(
        "post",
        requestBody=json_body(
            obj(file={"type": "string", "format": "binary"}, note={"type": "string"}),
            media="multipart/form-data",
        ),
    )
    file_schema = tool.input_schema["properties"]["file"]
    assert (file_schema["type"], file_schema["contentEncoding"]) == ("string", "base64")
    assert tool.body is not None
    assert [(f.name, f.binary) for f in tool.body.fields] == [("file", True), ("note", False)]


def test_a_binary_query_parameter_is_a_base64_string() -> None:
    tool = tool_a("get", parameters=[param("blob", "query", {"type": "string", "format": "binary"})])
    blob = tool.input_schema["properties"]["blob"]
    assert (blob["type"], blob["contentEncoding"]) == ("string", "base64")


def test_multipart_encoding_content_type_style_and_explode_reach_the_fields() -> None:
    tool = tool_a(
        "post",
        requestBody={
            "content": {
                "multipart/form-data": {
                    "schema": obj(
                        meta={"type": "object", "properties": {"k": {"type": "string"}}},
                        ids={"type": "array", "items": {"type": "integer"}},
                    ),
                    "encoding": {
                        "meta": {"contentType": "application/json"},
                        "ids": {"style": "form", "explode": False},
                    },
                }
            }
        },
    )
    assert tool.body is not None
    assert [(f.name, f.content_type, f.style, f.explode) for f in tool.body.fields] == [
        ("meta", "application/json", None, None),
        ("ids", None, "form", False),
    ]


def test_an_optional_object_body_with_required_fields_uses_dependent_required() -> None:
    tool = tool_a(
        "post",
        requestBody=json_body(
            {
                "type": "object",
                "required": ["a", "b"],
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}},
            },
            required=False,
        ),
    )
    schema = tool.input_schema
    assert "required" not in schema
    assert schema["dependentRequired"] == {"a": ["b"], "b": ["a"], "c": ["a", "b"]}
    validator = Draft202012Validator(schema)
    assert validator.is_valid({})
    assert validator.is_valid({"a": "x", "b": "y"})
    assert not validator.is_valid({"c": "z"})
    assert not validator.is_valid({"a": "x"})


def test_dependent_required_uses_the_suffixed_argument_names() -> None:
    body = {
        "type": "object",
        "required": ["id"],
        "properties": {"id": {"type": "string"}, "x": {"type": "string"}},
    }
    tool = id_clash(body, required=False)
    assert tool.input_schema["required"] == ["id"]
    assert tool.input_schema["dependentRequired"] == {"x": ["id_body"]}


def test_an_optional_body_without_required_fields_has_no_dependent_required() -> None:
    tool = tool_a("post", requestBody=json_body(obj(a={"type": "string"}), False))
    assert "dependentRequired" not in tool.input_schema
    assert "required" not in tool.input_schema


def test_a_required_body_has_no_dependent_required() -> None:
    tool = tool_a(
        "post",
        requestBody=json_body(
            {
                "type": "object",
                "required": ["a"],
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            }
        ),
    )
    assert tool.input_schema["required"] == ["a"]
    assert "dependentRequired" not in tool.input_schema


# ---------------------------------------------------------------------------------------------
# Media type choice


def content_of(*media_types: str) -> dict[str, Any]:
    return {
        "content": {
            media: {"schema": obj(**{media.split("/")[0].replace("-", "_"): {"type": "string"}})}
            for media in media_types
        }
    }


@pytest.mark.parametrize(
    ("media_types", "chosen"),
    [
        (("text/plain", "application/xml", "application/json"), "application/json"),
        (("application/vnd.api+json", "application/json"), "application/json"),
        (("multipart/form-data", "application/x-www-form-urlencoded"), "application/x-www-form-urlencoded"),
        (("application/octet-stream", "multipart/form-data"), "multipart/form-data"),
        (("application/octet-stream", "text/plain"), "text/plain"),
        (("application/xml", "application/vnd.api+json"), "application/vnd.api+json"),
    ],
)
def test_the_request_media_type_is_chosen_json_first_whatever_the_spec_order(
    media_types: tuple[str, ...], chosen: str
) -> None:
    for order in (media_types, tuple(reversed(media_types))):
        tool = tool_a("post", requestBody=content_of(*order))
        assert tool.body is not None and tool.body.media_type == chosen


def test_the_description_names_the_chosen_media_type_and_the_alternatives() -> None:
    tool = tool_a(
        "post", summary="S", requestBody=content_of("text/plain", "application/json", "application/xml")
    )
    assert tool.description == (
        "S\n\nHTTP: POST /a\n"
        "Request body is sent as application/json (the API also accepts text/plain, application/xml)."
    )


def test_a_single_media_type_is_not_mentioned_in_the_description() -> None:
    tool = tool_a("post", summary="S", requestBody=content_of("application/json"))
    assert tool.description == "S\n\nHTTP: POST /a"


def test_a_request_body_without_content_skips_the_operation_with_an_error() -> None:
    model, diagnostics = build(
        spec({"/a": {"post": {"operationId": "a", "responses": OK, "requestBody": {"content": {}}}}})
    )
    assert model.tools == ()
    assert [(d.level, d.pointer) for d in diagnostics] == [(Level.ERROR, "#/paths/~1a/post/requestBody")]


# ---------------------------------------------------------------------------------------------
# Nullable, type arrays and boolean subschemas


def test_a_30_nullable_parameter_is_any_of_with_null() -> None:
    tool = tool_a(
        "get", parameters=[param("q", "query", {"type": "integer", "nullable": True, "minimum": 1})]
    )
    assert tool.input_schema["properties"]["q"] == {
        "anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]
    }


def test_a_31_type_array_with_null_is_any_of_with_null() -> None:
    tool = tool_a(
        "post", requestBody=json_body(obj(n={"type": ["string", "null"], "maxLength": 3})), version="3.1.0"
    )
    assert tool.input_schema["properties"]["n"] == {
        "anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]
    }


def test_a_nullable_enum_accepts_null_exactly_once() -> None:
    tool = tool_a(
        "post",
        requestBody=json_body(obj(tag={"type": "string", "nullable": True, "enum": ["cat", "dog", None]})),
    )
    validator = Draft202012Validator(tool.input_schema)
    assert validator.is_valid({"tag": None}) and validator.is_valid({"tag": "cat"})
    assert not validator.is_valid({"tag": "cow"})
    assert type_arrays(tool.input_schema) == []


HOSTILE_BODY = {
    "type": "object",
    "additionalProperties": True,
    "properties": {
        "multi": {"type": ["integer", "string", "null"]},
        "map": {"type": "object", "additionalProperties": True},
        "empty_map": {"type": "object", "additionalProperties": {}},
        "closed": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"x": {"type": ["number", "null"]}},
        },
        "nothing": {},
        "not_empty": {"not": {}},
        "list": {"type": ["array", "null"], "items": {"type": ["string", "null"]}},
        "choice": {"oneOf": [{"type": "string"}, {"type": ["integer", "null"]}]},
    },
}


def test_input_schemas_hold_no_type_arrays_and_no_bare_boolean_subschemas() -> None:
    tool = tool_a(
        "post",
        path="/a/{id}",
        parameters=[
            param("id", "path", {"type": ["string", "integer"]}),
            param("q", "query", {"type": ["boolean", "null"]}),
        ],
        requestBody=json_body(HOSTILE_BODY),
        version="3.1.0",
    )
    assert type_arrays(tool.input_schema) == []
    assert bare_booleans(tool.input_schema) == []
    Draft202012Validator.check_schema(tool.input_schema)


def test_output_schemas_hold_no_type_arrays_and_no_bare_boolean_subschemas() -> None:
    tool = tool_a(
        "get",
        responses={"200": {"description": "x", "content": {"application/json": {"schema": HOSTILE_BODY}}}},
        version="3.1.0",
    )
    assert tool.output_schema is not None
    assert type_arrays(tool.output_schema) == []
    assert bare_booleans(tool.output_schema) == []


def test_the_sample_petstore_schemas_hold_no_type_arrays_and_no_bare_booleans_and_are_valid_2020_12() -> None:
    from openapi2mcp.model import GeneratorOptions as Options

    generation = generate(str(REPO / "specs" / "petstore.yaml"), Options("petstore", "PETSTORE"))
    assert len(generation.model.tools) == 7
    for tool in generation.model.tools:
        for schema in (tool.input_schema, tool.output_schema):
            if schema is None:
                continue
            assert type_arrays(schema) == [], tool.name
            assert bare_booleans(schema) == [], tool.name
            assert schema["type"] == "object", tool.name
            Draft202012Validator.check_schema(schema)


def test_the_walker_finds_bare_booleans_and_type_arrays_it_is_meant_to_find() -> None:
    schema = {
        "type": "object",
        "properties": {"a": True, "b": {"type": ["string", "null"], "items": False}},
        "additionalProperties": False,
    }
    assert bare_booleans(schema) == ["/properties/a", "/properties/b/items"]
    assert type_arrays(schema) == ["/properties/b"]


# ---------------------------------------------------------------------------------------------
# More parameter and body shapes


def test_a_parameter_described_by_content_keeps_its_schema_and_media_type() -> None:
    tool = tool_a(
        "get",
        parameters=[
            {
                "name": "filter",
                "in": "query",
                "content": {
                    "application/json": {
                        "schema": {"type": "object", "properties": {"x": {"type": "string"}}}
                    }
                },
            }
        ],
    )
    assert tool.input_schema["properties"]["filter"] == {
        "type": "object",
        "properties": {"x": {"type": "string"}},
    }
    assert tool.parameters[0].content_type == "application/json"


def test_a_referenced_parameter_is_resolved() -> None:
    page = param("page", "query", {"type": "integer", "minimum": 1}, required=True)
    tool = tool_a(
        "get",
        parameters=[{"$ref": "#/components/parameters/Page"}],
        components={"parameters": {"Page": page}},
    )
    assert tool.input_schema["properties"] == {"page": {"type": "integer", "minimum": 1}}
    assert tool.input_schema["required"] == ["page"]


def test_a_deprecated_parameter_says_so_after_its_descriptions() -> None:
    tool = tool_a(
        "get",
        parameters=[
            param(
                "old",
                "query",
                {"type": "string", "description": "From the schema."},
                description="Use new.",
                deprecated=True,
            )
        ],
    )
    assert tool.input_schema["properties"]["old"]["description"] == "Use new. From the schema. Deprecated."


@pytest.mark.parametrize("body_required", [True, False])
def test_read_only_body_properties_are_neither_arguments_nor_required(body_required: bool) -> None:
    tool = tool_a(
        "post",
        requestBody=json_body(
            {
                "type": "object",
                "required": ["id", "name", "size"],
                "properties": {
                    "id": {"type": "string", "readOnly": True},
                    "name": {"type": "string"},
                    "size": {"type": "integer"},
                },
            },
            required=body_required,
        ),
    )
    assert list(tool.input_schema["properties"]) == ["name", "size"]
    assert tool.body is not None and [f.name for f in tool.body.fields] == ["name", "size"]
    if body_required:
        assert tool.input_schema["required"] == ["name", "size"]
    else:
        assert tool.input_schema["dependentRequired"] == {"name": ["size"], "size": ["name"]}


# ---------------------------------------------------------------------------------------------
# Only sendable values: no empty query value, path segment or required array, no null where the
# runtime would send nothing


def argument_schemas(*parameters: dict[str, Any], path: str = "/a", **operation: Any) -> dict[str, Any]:
    tool = tool_of(path, "post", {"operationId": "a", "parameters": list(parameters), **operation})
    properties: dict[str, Any] = tool.input_schema["properties"]
    return properties


STRINGS = {"type": "array", "items": {"type": "string"}}


@pytest.mark.parametrize("required", [True, False])
def test_a_query_string_is_never_empty_unless_allow_empty_value(required: bool) -> None:
    properties = argument_schemas(
        param("q", "query", required=required),
        param("e", "query", required=required, allowEmptyValue=True),
        param("f", "query", required=required, allowEmptyValue=False),
    )
    assert properties == {
        "q": {"type": "string", "minLength": 1},
        "e": {"type": "string"},
        "f": {"type": "string", "minLength": 1},
    }
    validator = Draft202012Validator({"type": "object", "properties": properties})
    assert not validator.is_valid({"q": ""}) and validator.is_valid({"q": "x", "e": ""})


def test_a_query_string_keeps_its_own_min_length_and_enum_and_gets_one_in_each_branch() -> None:
    properties = argument_schemas(
        param("long", "query", {"type": "string", "minLength": 3}),
        param("zero", "query", {"type": "string", "minLength": 0}),
        param("kind", "query", {"type": "string", "enum": ["cat", "dog"]}),
        param("blank", "query", {"type": "string", "enum": ["", "dog"]}),
        param("either", "query", {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        param("one", "query", {"oneOf": [{"type": "string", "format": "date"}, {"type": "boolean"}]}),
        param("maybe", "query", {"type": "string", "nullable": True}),
    )
    assert properties == {
        "long": {"type": "string", "minLength": 3},
        "zero": {"type": "string", "minLength": 1},
        "kind": {"type": "string", "enum": ["cat", "dog"]},
        "blank": {"type": "string", "enum": ["", "dog"], "minLength": 1},
        "either": {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 1}]},
        "one": {"oneOf": [{"type": "string", "format": "date", "minLength": 1}, {"type": "boolean"}]},
        "maybe": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}]},
    }


def test_header_cookie_and_content_parameters_may_be_empty_strings() -> None:
    content = {"name": "j", "in": "query", "content": {"application/json": {"schema": {"type": "string"}}}}
    properties = argument_schemas(param("h", "header"), param("c", "cookie"), content)
    assert properties == {"h": {"type": "string"}, "c": {"type": "string"}, "j": {"type": "string"}}


@pytest.mark.parametrize(
    ("required", "extra", "expected"),
    [
        (True, {}, {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1}),
        (False, {}, {"type": "array", "items": {"type": "string", "minLength": 1}}),
        (
            False,
            {"explode": False},
            {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
        ),
        (
            False,
            {"style": "pipeDelimited"},
            {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
        ),
        (True, {"allowEmptyValue": True}, {"type": "array", "items": {"type": "string"}, "minItems": 1}),
        (False, {"allowEmptyValue": True, "explode": False}, {"type": "array", "items": {"type": "string"}}),
        (True, {"allowEmptyValue": True, "explode": False}, {"type": "array", "items": {"type": "string"}}),
    ],
    ids=[
        "required",
        "optional-exploded",
        "optional-csv",
        "optional-pipes",
        "required-allow-empty",
        "optional-csv-allow-empty",
        "required-csv-allow-empty",
    ],
)
def test_a_query_array_is_never_sent_empty_nor_with_empty_items(
    required: bool, extra: dict[str, Any], expected: dict[str, Any]
) -> None:
    """[] is sent as nothing (exploded) or as `tags=` (not exploded); [''] as `tags=`."""
    assert argument_schemas(param("tags", "query", STRINGS, required=required, **extra)) == {"tags": expected}


def test_a_query_array_keeps_its_own_min_items_and_non_string_items() -> None:
    numbers = {"type": "array", "items": {"type": "integer"}, "minItems": 2}
    mixed = {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}
    properties = argument_schemas(
        param("ids", "query", numbers, required=True), param("mixed", "query", mixed, required=True)
    )
    assert properties == {
        "ids": {"type": "array", "items": {"type": "integer"}, "minItems": 2},
        "mixed": {
            "type": "array",
            "items": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]},
            "minItems": 1,
        },
    }


@pytest.mark.parametrize(
    ("required", "extra", "min_properties"),
    [
        (True, {"style": "deepObject"}, True),
        (False, {"style": "deepObject"}, False),
        (True, {}, True),
        (False, {}, False),
        (False, {"explode": False}, True),
        (False, {"explode": False, "allowEmptyValue": True}, False),
    ],
    ids=["required-deep", "optional-deep", "required-form", "optional-form", "optional-csv", "allow-empty"],
)
def test_a_query_object_is_never_sent_empty(
    required: bool, extra: dict[str, Any], min_properties: bool
) -> None:
    """{} is sent as nothing (deepObject, exploded form) or as `point=` (form, not exploded)."""
    schema = obj(x={"type": "integer"})
    properties = argument_schemas(param("point", "query", schema, required=required, **extra))
    assert properties == {"point": {**schema, **({"minProperties": 1} if min_properties else {})}}


def test_a_required_header_or_cookie_array_or_object_is_never_empty() -> None:
    """The runtime leaves out a header for [] or {}; an exploded cookie sends nothing either."""
    properties = argument_schemas(
        param("X-Tags", "header", STRINGS, required=True),
        param("X-Obj", "header", obj(a={"type": "string"}), required=True),
        param("X-Opt", "header", STRINGS),
        param("ids", "cookie", STRINGS, required=True),
    )
    assert properties == {
        "X-Tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "X-Obj": {"type": "object", "properties": {"a": {"type": "string"}}, "minProperties": 1},
        "X-Opt": STRINGS,
        "ids": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    }


def test_swagger_2_allow_empty_value_reaches_the_query_parameter() -> None:
    from openapi2mcp.load.swagger2.convert import convert_swagger2

    operation = {
        "operationId": "a",
        "parameters": [
            {"name": "fsaction", "in": "query", "required": True, "type": "string"},
            {"name": "blank", "in": "query", "type": "string", "allowEmptyValue": True},
            {"name": "tags", "in": "query", "type": "array", "items": {"type": "string"}},
        ],
        "responses": OK,
    }
    document = {"swagger": "2.0", "info": {"title": "T", "version": "1"}, "paths": {"/a": {"get": operation}}}
    model, _ = build(convert_swagger2(document, Diagnostics()))
    assert model.tools[0].input_schema["properties"] == {
        "fsaction": {"type": "string", "minLength": 1},
        "blank": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},  # csv
    }


def test_a_path_parameter_is_never_empty_in_any_branch_nor_in_its_items() -> None:
    properties = argument_schemas(
        param("key", "path", {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        param("ids", "path", STRINGS),
        path="/keys/{key}/{ids}",
    )
    assert properties == {
        "key": {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 1}]},
        "ids": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
    }
    validator = Draft202012Validator(properties["key"])
    assert validator.is_valid(7) and validator.is_valid("x") and not validator.is_valid("")


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string", "nullable": True, "default": None}, {"type": "string", "minLength": 1}),
        (
            {"type": "integer", "nullable": True, "description": "Id."},
            {"type": "integer", "description": "Id."},
        ),
        (
            {"anyOf": [{"type": "integer"}, {"type": "string"}], "nullable": True},
            {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 1}]},
        ),
        ({"type": "string", "nullable": True, "enum": ["a", "b"]}, {"enum": ["a", "b"]}),
        (
            {"description": "Any."},
            {
                "description": "Any.",
                "not": {"type": "null"},
                "minLength": 1,
                "minItems": 1,
                "minProperties": 1,
            },
        ),
    ],
    ids=["nullable-string", "nullable-integer", "nullable-any-of", "nullable-enum", "untyped"],
)
def test_a_path_parameter_never_accepts_null(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    """The runtime leaves out a null argument, and then cannot fill the path template."""
    properties = argument_schemas(param("id", "path", schema), path="/a/{id}")
    assert properties == {"id": expected}
    assert not Draft202012Validator(properties["id"]).is_valid(None)


def test_a_required_nullable_query_parameter_never_accepts_null_and_an_optional_one_does() -> None:
    nullable = {"type": "integer", "nullable": True}
    properties = argument_schemas(
        param("must", "query", nullable, required=True), param("may", "query", nullable)
    )
    assert properties == {
        "must": {"type": "integer"},
        "may": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    }


def test_shared_component_schemas_are_copied_not_changed() -> None:
    """The converter shares nested dicts between results: a path parameter's minLength must not
    reach a body property that uses the same component."""
    document = spec(
        {
            "/a/{key}": {
                "post": {
                    "operationId": "a",
                    "responses": OK,
                    "parameters": [param("key", "path", {"$ref": "#/components/schemas/Key"})],
                    "requestBody": json_body(obj(key2={"$ref": "#/components/schemas/Key"}, tags=STRINGS)),
                }
            },
            "/b": {
                "get": {
                    "operationId": "b",
                    "responses": OK,
                    "parameters": [param("tags", "query", {"$ref": "#/components/schemas/Tags"})],
                }
            },
        }
    )
    document["components"] = {
        "schemas": {
            "Key": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "Tags": {"type": "array", "items": {"type": "string"}},
        }
    }
    model, _ = build(document)
    first, second = model.tools
    assert first.input_schema["properties"]["key"] == {
        "anyOf": [{"type": "integer"}, {"type": "string", "minLength": 1}]
    }
    assert first.input_schema["properties"]["key2"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert second.input_schema["properties"]["tags"] == {
        "type": "array",
        "items": {"type": "string", "minLength": 1},
    }
    assert document["components"]["schemas"]["Tags"] == {"type": "array", "items": {"type": "string"}}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({}, {"not": {"type": "null"}}),
        ({"description": "Anything."}, {"description": "Anything.", "not": {"type": "null"}}),
        (
            {"type": "array", "items": {"type": "integer"}, "nullable": True, "description": "Ids."},
            {"type": "array", "items": {"type": "integer"}, "description": "Ids."},
        ),
        (
            {"oneOf": [{"type": "string"}, {"type": "integer"}], "nullable": True},
            {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        ),
        ({"anyOf": [{"type": "string"}, {}]}, {"anyOf": [{"type": "string"}, {"not": {"type": "null"}}]}),
        ({"type": "integer", "minimum": 1}, {"type": "integer", "minimum": 1}),
    ],
    ids=["empty", "described", "nullable-array", "nullable-one-of", "untyped-branch", "typed"],
)
def test_a_required_whole_body_never_accepts_null(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    """The runtime sends no body for null, and refuses that for a required body."""
    tool = tool_a("post", requestBody=json_body(schema))
    assert tool.input_schema["properties"] == {"body": expected}
    assert tool.input_schema["required"] == ["body"]
    assert not Draft202012Validator(tool.input_schema["properties"]["body"]).is_valid(None)


def test_an_optional_whole_body_still_accepts_null() -> None:
    tool = tool_a("post", requestBody=json_body({}, required=False))
    assert tool.input_schema["properties"] == {"body": {}}


@pytest.mark.parametrize("header", ["Transfer-Encoding", "content-length", "Host", "Connection"])
def test_framing_and_hop_by_hop_header_parameters_are_left_to_the_http_client_with_info(header: str) -> None:
    operation = {"operationId": "a", "responses": OK, "parameters": [param(header, "header")]}
    model, diagnostics = build(spec({"/a": {"post": operation}}))
    (tool,) = model.tools
    assert tool.parameters == () and tool.input_schema["properties"] == {}
    assert [(d.level, d.pointer, d.message) for d in diagnostics] == [
        (
            Level.INFO,
            "#/paths/~1a/post/parameters/0",
            f"header parameter {header!r} is ignored: the HTTP client sets it (message framing)",
        )
    ]
