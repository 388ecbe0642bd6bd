"""Swagger 2.0 → OpenAPI 3.0.3 (openapi2mcp.load.swagger2.convert), rule by rule, then the corpus."""

from __future__ import annotations

import copy
import csv
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostic, Diagnostics, Level
from openapi2mcp.load.source import LoadError, load_source
from openapi2mcp.load.swagger2.convert import NotSwagger2Error, convert_swagger2
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import generate

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus"
OK = {"200": {"description": "ok"}}


def swagger(paths: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"swagger": "2.0", "info": {"title": "T", "version": "1"}, "paths": paths or {}, **extra}


def convert(document: dict[str, Any]) -> tuple[dict[str, Any], list[Diagnostic]]:
    diagnostics = Diagnostics()
    return convert_swagger2(document, diagnostics), list(diagnostics)


def converted_operation(operation: dict[str, Any], **extra: Any) -> dict[str, Any]:
    out, _ = convert(swagger({"/a": {"post": {"responses": OK, **operation}}}, **extra))
    result: dict[str, Any] = out["paths"]["/a"]["post"]
    return result


def converted_parameter(parameter: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = converted_operation({"parameters": [parameter]})["parameters"][0]
    return result


def array_in(location: str, collection_format: str | None = None) -> dict[str, Any]:
    parameter: dict[str, Any] = {"name": "ids", "in": location, "type": "array", "items": {"type": "string"}}
    if collection_format is not None:
        parameter["collectionFormat"] = collection_format
    if location == "path":
        parameter["required"] = True
    return parameter


# ---------------------------------------------------------------------------------------------
# The document


def test_a_document_that_is_not_swagger_2_raises_not_swagger2_error() -> None:
    with pytest.raises(NotSwagger2Error):
        convert_swagger2({"openapi": "3.0.3", "paths": {}}, Diagnostics())


def test_the_result_declares_openapi_3_0_3_and_keeps_info_tags_security_and_extensions() -> None:
    document = swagger(
        tags=[{"name": "pets"}],
        security=[{"key": []}],
        externalDocs={"url": "https://docs.example.com"},
        **{"x-logo": {"url": "logo.png"}},
    )
    out, diagnostics = convert(document)
    assert out["openapi"] == "3.0.3"
    assert out["info"] == {"title": "T", "version": "1"}
    assert out["tags"] == [{"name": "pets"}]
    assert out["security"] == [{"key": []}]
    assert out["externalDocs"] == {"url": "https://docs.example.com"}
    assert out["x-logo"] == {"url": "logo.png"}
    assert "swagger" not in out
    assert diagnostics == []


def test_converting_never_changes_the_input_document() -> None:
    document = swagger(
        {
            "/pets/{id}": {
                "parameters": [{"$ref": "#/parameters/Id"}, {"$ref": "#/parameters/Body"}],
                "put": {
                    "consumes": ["multipart/form-data"],
                    "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Pet"}}},
                },
                "post": {
                    "parameters": [{"name": "f", "in": "formData", "type": "file"}],
                    "responses": {"default": {"$ref": "#/responses/Error"}},
                },
            }
        },
        definitions={"Pet": {"type": "object", "x-nullable": True, "properties": {"a": {"type": "file"}}}},
        parameters={
            "Id": {
                "name": "id",
                "in": "path",
                "required": True,
                "type": "array",
                "items": {"type": "string"},
            },
            "Body": {"name": "b", "in": "body", "schema": {"$ref": "#/definitions/Pet"}},
        },
        responses={"Error": {"description": "e", "schema": {"type": ["string", "null"]}}},
        securityDefinitions={"b": {"type": "basic"}},
    )
    before = copy.deepcopy(document)
    convert(document)
    assert document == before


def test_host_base_path_and_https_become_the_server_url() -> None:
    out, _ = convert(swagger(host="api.example.com", basePath="/v2", schemes=["http", "https"]))
    assert out["servers"] == [{"url": "https://api.example.com/v2"}]


def test_the_first_scheme_is_used_when_https_is_not_listed() -> None:
    out, _ = convert(swagger(host="api.example.com:8080", basePath="/v2", schemes=["http"]))
    assert out["servers"] == [{"url": "http://api.example.com:8080/v2"}]


def test_a_host_without_schemes_or_base_path_is_served_over_https_at_the_root() -> None:
    out, _ = convert(swagger(host="api.example.com"))
    assert out["servers"] == [{"url": "https://api.example.com"}]


def test_without_a_host_the_server_is_the_relative_base_path() -> None:
    out, _ = convert(swagger(basePath="/api/v1", schemes=["https"]))
    assert out["servers"] == [{"url": "/api/v1"}]


def test_without_a_host_or_base_path_the_server_is_slash() -> None:
    out, _ = convert(swagger())
    assert out["servers"] == [{"url": "/"}]


# ---------------------------------------------------------------------------------------------
# Components and references


def test_definitions_become_component_schemas_with_their_refs_rewritten() -> None:
    document = swagger(
        definitions={
            "Pet": {"type": "object", "properties": {"owner": {"$ref": "#/definitions/Person"}}},
            "Person": {"type": "object", "properties": {"default": {"$ref": "#/definitions/Pet"}}},
        }
    )
    out, _ = convert(document)
    assert out["components"]["schemas"] == {
        "Pet": {"type": "object", "properties": {"owner": {"$ref": "#/components/schemas/Person"}}},
        "Person": {"type": "object", "properties": {"default": {"$ref": "#/components/schemas/Pet"}}},
    }


def test_refs_inside_all_of_items_and_additional_properties_are_rewritten() -> None:
    document = swagger(
        definitions={
            "A": {
                "allOf": [{"$ref": "#/definitions/B"}],
                "items": {"$ref": "#/definitions/B"},
                "additionalProperties": {"$ref": "#/definitions/B"},
            },
            "B": {"type": "string"},
        }
    )
    out, _ = convert(document)
    ref = {"$ref": "#/components/schemas/B"}
    assert out["components"]["schemas"]["A"] == {"allOf": [ref], "items": ref, "additionalProperties": ref}


def test_a_ref_inside_an_example_is_data_and_left_alone() -> None:
    example = {"$ref": "#/definitions/B"}
    out, _ = convert(swagger(definitions={"A": {"type": "object", "example": example}}))
    assert out["components"]["schemas"]["A"]["example"] == {"$ref": "#/definitions/B"}


def test_x_nullable_becomes_nullable() -> None:
    out, _ = convert(swagger(definitions={"A": {"type": "string", "x-nullable": True}}))
    assert out["components"]["schemas"]["A"] == {"type": "string", "nullable": True}


def test_a_ref_with_x_nullable_keeps_the_ref_and_becomes_nullable() -> None:
    document = swagger(
        definitions={"A": {"properties": {"b": {"$ref": "#/definitions/B", "x-nullable": True}}}}
    )
    out, _ = convert(document)
    assert out["components"]["schemas"]["A"]["properties"]["b"] == {
        "$ref": "#/components/schemas/B",
        "nullable": True,
    }


def test_a_string_discriminator_becomes_a_discriminator_object() -> None:
    out, _ = convert(swagger(definitions={"A": {"type": "object", "discriminator": "kind"}}))
    assert out["components"]["schemas"]["A"]["discriminator"] == {"propertyName": "kind"}


def test_a_type_list_with_null_becomes_one_type_and_nullable() -> None:
    out, diagnostics = convert(swagger(definitions={"A": {"type": ["string", "null"]}}))
    assert out["components"]["schemas"]["A"] == {"type": "string", "nullable": True}
    assert diagnostics == []


def test_a_list_of_items_becomes_any_of_its_entries_with_a_warning() -> None:
    document = swagger(definitions={"A": {"type": "array", "items": [{"type": "string"}, {"type": "null"}]}})
    out, diagnostics = convert(document)
    assert out["components"]["schemas"]["A"] == {
        "type": "array",
        "items": {"anyOf": [{"type": "string"}, {"nullable": True}]},
    }
    assert diagnostics == [
        Diagnostic(
            "#/definitions/A/items",
            Level.WARNING,
            "`items` must be a schema, not a list; read as any of its entries",
        )
    ]


def test_shared_non_body_parameters_become_component_parameters_and_refs_to_them_are_rewritten() -> None:
    document = swagger(
        {"/a": {"get": {"parameters": [{"$ref": "#/parameters/Limit"}], "responses": OK}}},
        parameters={"Limit": {"name": "limit", "in": "query", "type": "integer", "maximum": 100}},
    )
    out, _ = convert(document)
    assert out["components"]["parameters"] == {
        "Limit": {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}}
    }
    assert out["paths"]["/a"]["get"]["parameters"] == [{"$ref": "#/components/parameters/Limit"}]


def test_a_shared_body_parameter_is_inlined_where_it_is_used_and_not_a_component() -> None:
    document = swagger(
        {"/a": {"post": {"parameters": [{"$ref": "#/parameters/Pet"}], "responses": OK}}},
        parameters={"Pet": {"name": "pet", "in": "body", "required": True, "schema": {"type": "object"}}},
    )
    out, _ = convert(document)
    assert "parameters" not in out.get("components", {})
    assert "parameters" not in out["paths"]["/a"]["post"]
    assert out["paths"]["/a"]["post"]["requestBody"] == {
        "content": {"application/json": {"schema": {"type": "object"}}},
        "required": True,
    }


def test_shared_responses_become_component_responses_and_refs_to_them_are_rewritten() -> None:
    document = swagger(
        {"/a": {"get": {"responses": {"404": {"$ref": "#/responses/NotFound"}}}}},
        responses={"NotFound": {"description": "gone", "schema": {"$ref": "#/definitions/Error"}}},
        definitions={"Error": {"type": "object"}},
    )
    out, _ = convert(document)
    assert out["components"]["responses"] == {
        "NotFound": {
            "description": "gone",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
    }
    assert out["paths"]["/a"]["get"]["responses"] == {"404": {"$ref": "#/components/responses/NotFound"}}


def test_a_ref_into_a_response_schema_under_paths_follows_it_into_its_content() -> None:
    document = swagger(
        {
            "/a": {"get": {"responses": {"200": {"description": "ok", "schema": {"type": "object"}}}}},
            "/b": {"get": {"responses": {"200": {"description": "ok", "schema": {
                "$ref": "#/paths/~1a/get/responses/200/schema"}}}}},
        }
    )  # fmt: skip
    out, _ = convert(document)
    schema = out["paths"]["/b"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema == {"$ref": "#/paths/~1a/get/responses/200/content/application~1json/schema"}


def test_a_ref_to_a_whole_path_item_keeps_its_pointer() -> None:
    document = swagger(
        {"/a": {"get": {"responses": OK}}},
        definitions={"A": {"$ref": "#/paths/~1a"}},
    )
    out, _ = convert(document)
    assert out["components"]["schemas"]["A"] == {"$ref": "#/paths/~1a"}


def test_an_external_ref_is_kept_as_it_is() -> None:
    out, _ = convert(swagger(definitions={"A": {"$ref": "other.json#/definitions/B"}}))
    assert out["components"]["schemas"]["A"] == {"$ref": "other.json#/definitions/B"}


# ---------------------------------------------------------------------------------------------
# Security definitions


def test_basic_security_becomes_http_basic() -> None:
    out, _ = convert(swagger(securityDefinitions={"b": {"type": "basic", "description": "d"}}))
    assert out["components"]["securitySchemes"] == {
        "b": {"type": "http", "scheme": "basic", "description": "d"}
    }


def test_api_key_security_is_kept_as_it_is() -> None:
    out, _ = convert(swagger(securityDefinitions={"k": {"type": "apiKey", "name": "X-Key", "in": "header"}}))
    assert out["components"]["securitySchemes"] == {"k": {"type": "apiKey", "name": "X-Key", "in": "header"}}


def test_each_oauth2_flow_becomes_its_oauth3_flow_with_urls_and_scopes() -> None:
    scopes = {"read": "Read"}
    definitions = {
        "i": {"type": "oauth2", "flow": "implicit", "authorizationUrl": "https://a/auth", "scopes": scopes},
        "p": {"type": "oauth2", "flow": "password", "tokenUrl": "https://a/token", "scopes": scopes},
        "c": {"type": "oauth2", "flow": "application", "tokenUrl": "https://a/token", "scopes": scopes},
        "a": {
            "type": "oauth2",
            "flow": "accessCode",
            "authorizationUrl": "https://a/auth",
            "tokenUrl": "https://a/token",
            "scopes": scopes,
        },
    }
    out, _ = convert(swagger(securityDefinitions=definitions))
    assert out["components"]["securitySchemes"] == {
        "i": {
            "type": "oauth2",
            "flows": {"implicit": {"authorizationUrl": "https://a/auth", "scopes": scopes}},
        },
        "p": {"type": "oauth2", "flows": {"password": {"tokenUrl": "https://a/token", "scopes": scopes}}},
        "c": {
            "type": "oauth2",
            "flows": {"clientCredentials": {"tokenUrl": "https://a/token", "scopes": scopes}},
        },
        "a": {
            "type": "oauth2",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "https://a/auth",
                    "tokenUrl": "https://a/token",
                    "scopes": scopes,
                }
            },
        },
    }


def test_an_unknown_security_type_is_a_warning_and_left_out() -> None:
    out, diagnostics = convert(swagger(securityDefinitions={"x": {"type": "magic"}}))
    assert "components" not in out
    assert diagnostics == [
        Diagnostic(
            "#/securityDefinitions/x", Level.WARNING, "unknown security definition type 'magic'; ignored"
        )
    ]


def test_operation_security_and_vendor_extensions_are_kept() -> None:
    operation = converted_operation({"security": [{"k": ["a"]}], "x-mcp": {"name": "n"}, "operationId": "op"})
    assert operation["security"] == [{"k": ["a"]}]
    assert operation["x-mcp"] == {"name": "n"}
    assert operation["operationId"] == "op"


# ---------------------------------------------------------------------------------------------
# Parameters


def test_a_parameters_type_format_enum_default_and_limits_move_into_its_schema() -> None:
    parameter = {
        "name": "n", "in": "query", "description": "d", "required": False, "allowEmptyValue": True,
        "type": "integer", "format": "int32", "enum": [1, 2], "default": 1, "minimum": 1, "maximum": 2,
        "exclusiveMinimum": False, "multipleOf": 1, "x-hint": "h",
    }  # fmt: skip
    assert converted_parameter(parameter) == {
        "name": "n", "in": "query", "description": "d", "required": False, "allowEmptyValue": True,
        "schema": {"type": "integer", "format": "int32", "enum": [1, 2], "default": 1, "maximum": 2,
                   "exclusiveMinimum": False, "minimum": 1, "multipleOf": 1},
        "x-hint": "h",
    }  # fmt: skip


def test_string_and_array_limits_and_nested_items_move_into_the_schema() -> None:
    parameter = {
        "name": "n", "in": "header", "type": "array", "minItems": 1, "maxItems": 3, "uniqueItems": True,
        "items": {"type": "string", "pattern": "^a", "minLength": 1, "maxLength": 5, "x-nullable": True},
    }  # fmt: skip
    assert converted_parameter(parameter)["schema"] == {
        "type": "array", "maxItems": 3, "minItems": 1, "uniqueItems": True,
        "items": {"type": "string", "maxLength": 5, "minLength": 1, "pattern": "^a", "nullable": True},
    }  # fmt: skip


def test_a_path_parameter_is_always_required() -> None:
    assert converted_parameter({"name": "id", "in": "path", "type": "string"})["required"] is True


@pytest.mark.parametrize(
    ("location", "collection_format", "style", "explode"),
    [
        ("query", None, "form", False),
        ("query", "csv", "form", False),
        ("path", "csv", "simple", False),
        ("header", "csv", "simple", False),
        ("query", "ssv", "spaceDelimited", False),
        ("query", "pipes", "pipeDelimited", False),
        ("query", "multi", "form", True),
    ],
)
def test_collection_format_becomes_style_and_explode(
    location: str, collection_format: str | None, style: str, explode: bool
) -> None:
    parameter = converted_parameter(array_in(location, collection_format))
    assert (parameter["style"], parameter["explode"]) == (style, explode)


def test_collection_format_tsv_is_read_as_csv_with_a_warning() -> None:
    out, diagnostics = convert(
        swagger({"/a": {"get": {"parameters": [array_in("query", "tsv")], "responses": OK}}})
    )
    parameter = out["paths"]["/a"]["get"]["parameters"][0]
    assert (parameter["style"], parameter["explode"]) == ("form", False)
    assert diagnostics == [
        Diagnostic(
            "#/paths/~1a/get/parameters/0/collectionFormat",
            Level.WARNING,
            "collectionFormat tsv has no OpenAPI 3 equivalent; treated as csv",
        )
    ]


def test_a_non_array_parameter_gets_no_style() -> None:
    parameter = converted_parameter(
        {"name": "q", "in": "query", "type": "string", "collectionFormat": "multi"}
    )
    assert "style" not in parameter and "explode" not in parameter


def test_path_level_parameters_stay_on_the_path_item() -> None:
    out, _ = convert(
        swagger({"/a/{id}": {"parameters": [{"name": "id", "in": "path", "type": "string", "required": True}],
                             "get": {"responses": OK}}})
    )  # fmt: skip
    assert out["paths"]["/a/{id}"]["parameters"] == [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    ]


def test_a_parameter_that_is_not_an_object_is_a_warning_and_dropped() -> None:
    out, diagnostics = convert(swagger({"/a": {"get": {"parameters": ["oops"], "responses": OK}}}))
    assert "parameters" not in out["paths"]["/a"]["get"]
    assert diagnostics == [
        Diagnostic("#/paths/~1a/get/parameters/0", Level.WARNING, "a parameter must be an object; ignored")
    ]


# ---------------------------------------------------------------------------------------------
# Request bodies


def test_a_body_parameter_becomes_a_request_body_for_each_consumed_media_type() -> None:
    operation = converted_operation(
        {
            "consumes": ["application/json", "text/json"],
            "parameters": [
                {"name": "pet", "in": "body", "description": "The pet", "required": True,
                 "schema": {"$ref": "#/definitions/Pet"}}
            ],
        }
    )  # fmt: skip
    ref = {"schema": {"$ref": "#/components/schemas/Pet"}}
    assert operation["requestBody"] == {
        "description": "The pet",
        "content": {"application/json": ref, "text/json": ref},
        "required": True,
    }
    assert "parameters" not in operation and "consumes" not in operation


def test_a_body_parameter_uses_the_roots_consumes_when_the_operation_has_none() -> None:
    out, _ = convert(
        swagger(
            {"/a": {"post": {"parameters": [{"name": "b", "in": "body", "schema": {}}], "responses": OK}}},
            consumes=["application/xml"],
        )
    )
    assert out["paths"]["/a"]["post"]["requestBody"] == {
        "content": {"application/xml": {"schema": {}}},
        "required": False,
    }


def test_a_body_parameter_defaults_to_application_json() -> None:
    operation = converted_operation(
        {"parameters": [{"name": "b", "in": "body", "schema": {"type": "string"}}]}
    )
    assert list(operation["requestBody"]["content"]) == ["application/json"]


def test_a_path_level_body_parameter_is_the_body_of_each_operation_unless_overridden() -> None:
    body = {"name": "b", "in": "body", "schema": {"type": "string"}}
    mine = {"name": "b", "in": "body", "schema": {"type": "integer"}}
    out, _ = convert(
        swagger({"/a": {"parameters": [body], "put": {"responses": OK},
                        "post": {"parameters": [mine], "responses": OK}}})
    )  # fmt: skip
    item = out["paths"]["/a"]
    assert "parameters" not in item
    assert item["put"]["requestBody"]["content"]["application/json"]["schema"] == {"type": "string"}
    assert item["post"]["requestBody"]["content"]["application/json"]["schema"] == {"type": "integer"}


@pytest.mark.parametrize(
    "schema",
    [{"type": "object", "format": "file"}, {"format": "file"}, {"type": "string", "format": "file"},
     {"type": "file"}],
    ids=["object-format-file", "untyped-format-file", "string-format-file", "type-file"],
)  # fmt: skip
def test_a_file_body_parameter_becomes_a_binary_string(schema: dict[str, Any]) -> None:
    operation = converted_operation(
        {
            "consumes": ["application/octet-stream"],
            "parameters": [
                {"name": "content", "in": "body", "description": "File to upload.", "required": True,
                 "schema": schema}
            ],
        }
    )  # fmt: skip
    assert operation["requestBody"] == {
        "description": "File to upload.",
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
        "required": True,
    }


def test_format_file_on_an_integer_or_an_array_is_kept() -> None:
    definitions = {"N": {"type": "integer", "format": "file"}, "L": {"type": "array", "format": "file"}}
    out, diagnostics = convert(swagger(definitions=definitions))
    assert out["components"]["schemas"] == definitions
    assert diagnostics == []


def test_form_data_parameters_become_an_urlencoded_object_with_a_required_list() -> None:
    operation = converted_operation(
        {
            "parameters": [
                {"name": "name", "in": "formData", "type": "string", "required": True, "description": "N"},
                {"name": "age", "in": "formData", "type": "integer"},
            ]
        }
    )
    assert operation["requestBody"] == {
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "N"},
                        "age": {"type": "integer"},
                    },
                    "required": ["name"],
                }
            }
        },
        "required": True,
    }


def test_a_file_form_field_makes_the_body_multipart_and_becomes_a_binary_string() -> None:
    operation = converted_operation(
        {"parameters": [{"name": "file", "in": "formData", "type": "file"}, {"name": "n", "in": "formData",
                                                                              "type": "string"}]}
    )  # fmt: skip
    assert operation["requestBody"] == {
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {"file": {"type": "string", "format": "binary"}, "n": {"type": "string"}},
                }
            }
        },
        "required": False,
    }


def test_form_data_is_multipart_when_consumes_says_so() -> None:
    operation = converted_operation(
        {
            "consumes": ["multipart/form-data"],
            "parameters": [{"name": "n", "in": "formData", "type": "string"}],
        }
    )
    assert list(operation["requestBody"]["content"]) == ["multipart/form-data"]


def test_an_array_form_field_gets_an_encoding_from_its_collection_format() -> None:
    field = {"name": "tags", "in": "formData", "type": "array", "items": {"type": "string"}}
    operation = converted_operation({"parameters": [{**field, "collectionFormat": "multi"}]})
    content = operation["requestBody"]["content"]["application/x-www-form-urlencoded"]
    assert content["encoding"] == {"tags": {"style": "form", "explode": True}}


def test_an_operations_own_body_parameter_replaces_a_path_level_one_of_another_name() -> None:
    shared = {"name": "a", "in": "body", "schema": {"type": "string"}}
    mine = {"name": "b", "in": "body", "schema": {"type": "integer"}}
    out, diagnostics = convert(
        swagger({"/a": {"parameters": [shared], "post": {"parameters": [mine], "responses": OK}}})
    )
    body = out["paths"]["/a"]["post"]["requestBody"]
    assert body["content"] == {"application/json": {"schema": {"type": "integer"}}}
    assert diagnostics == []


def test_a_second_body_parameter_and_form_data_next_to_a_body_are_warnings() -> None:
    out, diagnostics = convert(
        swagger({"/a": {"post": {"responses": OK, "parameters": [
            {"name": "a", "in": "body", "schema": {"type": "string"}},
            {"name": "b", "in": "body", "schema": {"type": "integer"}},
            {"name": "c", "in": "formData", "type": "string"},
        ]}}})
    )  # fmt: skip
    body = out["paths"]["/a"]["post"]["requestBody"]
    assert body["content"] == {"application/json": {"schema": {"type": "string"}}}
    assert diagnostics == [
        Diagnostic(
            "#/paths/~1a/post/parameters/1",
            Level.WARNING,
            "an operation can have only one body parameter; ignored",
        ),
        Diagnostic(
            "#/paths/~1a/post/parameters/2", Level.WARNING, "formData next to a body parameter; ignored"
        ),
    ]


# ---------------------------------------------------------------------------------------------
# Responses


def test_a_response_schema_gets_a_content_entry_for_each_produced_media_type() -> None:
    operation = converted_operation(
        {
            "produces": ["application/json", "application/xml"],
            "responses": {"200": {"description": "ok", "schema": {"type": "string"}}},
        }
    )
    assert operation["responses"] == {
        "200": {
            "description": "ok",
            "content": {
                "application/json": {"schema": {"type": "string"}},
                "application/xml": {"schema": {"type": "string"}},
            },
        }
    }
    assert "produces" not in operation


def test_a_response_uses_the_roots_produces_and_defaults_to_application_json() -> None:
    responses = {"200": {"description": "ok", "schema": {"type": "string"}}}
    rooted = converted_operation({"responses": responses}, produces=["text/plain"])
    assert list(rooted["responses"]["200"]["content"]) == ["text/plain"]
    plain = converted_operation({"responses": responses})
    assert list(plain["responses"]["200"]["content"]) == ["application/json"]


def test_a_response_without_a_schema_has_no_content() -> None:
    assert converted_operation({"responses": {"204": {"description": "none"}}})["responses"] == {
        "204": {"description": "none"}
    }


def test_a_file_response_becomes_a_binary_string() -> None:
    operation = converted_operation(
        {"produces": ["image/png"], "responses": {"200": {"description": "ok", "schema": {"type": "file"}}}}
    )
    assert operation["responses"]["200"]["content"] == {
        "image/png": {"schema": {"type": "string", "format": "binary"}}
    }


def test_response_headers_and_examples_are_converted() -> None:
    response = {
        "description": "ok",
        "schema": {"type": "object"},
        "headers": {"X-Rate": {"type": "integer", "description": "left"}},
        "examples": {"application/json": {"a": 1}},
        "x-extra": 1,
    }
    assert converted_operation({"responses": {"200": response}})["responses"]["200"] == {
        "description": "ok",
        "headers": {"X-Rate": {"description": "left", "schema": {"type": "integer"}}},
        "content": {"application/json": {"schema": {"type": "object"}, "example": {"a": 1}}},
        "x-extra": 1,
    }


# ---------------------------------------------------------------------------------------------
# Through the pipeline


def test_generate_reads_a_swagger_2_file_into_tools(tmp_path: Path) -> None:
    spec = swagger(
        {
            "/pets/{id}": {
                "put": {
                    "operationId": "updatePet",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "type": "integer"},
                        {"name": "tags", "in": "query", "type": "array", "items": {"type": "string"}},
                        {
                            "name": "pet",
                            "in": "body",
                            "required": True,
                            "schema": {"$ref": "#/definitions/Pet"},
                        },
                    ],
                    "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Pet"}}},
                }
            }
        },
        host="api.example.com",
        basePath="/v1",
        definitions={"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}},
    )
    (tmp_path / "s.json").write_text(json.dumps(spec), encoding="utf-8")
    generation = generate(str(tmp_path / "s.json"), GeneratorOptions("t", "T"))
    assert generation.model.default_base_url == "https://api.example.com/v1"
    [tool] = generation.model.tools
    assert tool.name == "updatePet"
    assert tool.input_schema["type"] == "object"
    assert set(tool.input_schema["properties"]) == {"id", "tags", "name"}
    assert [d for d in generation.diagnostics if d.level is not Level.INFO] == []


def test_generate_still_refuses_swagger_1_2(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text('{"swagger": "1.2", "paths": {}}', encoding="utf-8")
    expected = re.escape("Swagger 1.2 is not supported (Swagger 2.0 and OpenAPI 3.0/3.1 are)")
    with pytest.raises(LoadError, match=expected):
        generate(str(tmp_path / "s.json"), GeneratorOptions("t", "T"))


# ---------------------------------------------------------------------------------------------
# The corpus


def corpus_swagger_specs() -> list[Any]:
    manifest = CORPUS / "manifest.csv"
    if not manifest.is_file():
        return [pytest.param("", "", marks=pytest.mark.skip(reason=f"the corpus is missing: {CORPUS}"))]
    rows = [row for row in csv.DictReader(manifest.open(encoding="utf-8")) if "swagger" in row["oas_version"]]
    # ag-epa-eff.yaml, which PyYAML's safe loader rejects, loads through the YAML 1.2 fallback.
    return [pytest.param(row["root_file"], row["operations"], id=row["name"]) for row in rows]


# A few operations of the multi-file specs use refs into other files, which are not followed yet.
_EXTERNAL_REF_LOSSES = {
    "oai-petstore-separate-v2/spec/swagger.yaml": 3,
    "ag-azure-network-expressroute.yaml": 4,
}


@pytest.mark.parametrize(("root_file", "operations"), corpus_swagger_specs())
def test_every_swagger_spec_of_the_corpus_generates_with_object_input_schemas(
    root_file: str, operations: str
) -> None:
    generation = generate(str(CORPUS / "specs" / root_file), GeneratorOptions("t", "T"))
    tools = generation.model.tools
    print(
        f"{root_file}: {operations} operations, {len(tools)} tools, {len(generation.diagnostics)} diagnostics"
    )
    assert len(tools) >= int(operations) - _EXTERNAL_REF_LOSSES.get(root_file, 0)
    assert all(tool.input_schema["type"] == "object" for tool in tools)


@pytest.mark.parametrize("name", ["kubernetes.json", "stripe-swagger2.json"])
def test_a_large_swagger_spec_converts_in_well_under_a_second(name: str) -> None:
    if not (CORPUS / "specs" / name).is_file():
        pytest.skip(f"the corpus is missing: {CORPUS}")
    document, _ = load_source(str(CORPUS / "specs" / name))
    start = time.process_time()  # CPU time: a busy host does not inflate it
    convert_swagger2(document, Diagnostics())
    assert time.process_time() - start < 1.0
