"""Whole text and binary request bodies (openapi2mcp.tools.bodies): the argument's schema, the route's body
in tool_data, and the request the generated runtime builds from a schema-valid argument."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.emit.tool_data import tool_data
from openapi2mcp.load.swagger2.convert import convert_swagger2
from openapi2mcp.model import GeneratorOptions, Tool
from openapi2mcp.tools.mapper import map_document
from openapi2mcp_runtime.upstream import serialize

OK = {"200": {"description": "ok"}}
OPTIONS = GeneratorOptions(dist_name="t", env_prefix="T")
XML = "application/xml; charset=utf-8"
XML_NOTE = f"The request body as an XML document ({XML}), sent as is."
PERSON = {"type": "object", "properties": {"login": {"type": "string"}}, "required": ["login"]}


def body_tool(request_body: dict[str, Any], **components: Any) -> tuple[Tool, dict[str, Any]]:
    """The one tool of `POST /a` with this request body, and its route in tool_data."""
    document: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://x.test"}],
        "paths": {"/a": {"post": {"operationId": "a", "requestBody": request_body, "responses": OK}}},
    }
    if components:
        document["components"] = components
    return _only_tool(document)


def _only_tool(document: dict[str, Any]) -> tuple[Tool, dict[str, Any]]:
    diagnostics = Diagnostics()
    model = map_document(document, OPTIONS, diagnostics)
    assert [tool.name for tool in model.tools] == ["a"], [d.render() for d in diagnostics]
    assert list(diagnostics) == []
    route: dict[str, Any] = tool_data(model, OPTIONS, generator="g")["routes"]["a"]
    return model.tools[0], route


def content(media: str, schema: Any = None, description: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "required": True,
        "content": {media: {} if schema is None else {"schema": schema}},
    }
    if description is not None:
        body["description"] = description
    return body


def route_body(media: str, kind: str, binary: bool, required: bool = True) -> dict[str, Any]:
    return {
        "mediaType": media,
        "kind": kind,
        "required": required,
        "fields": [],
        "arg": "body",
        "binary": binary,
    }


def base64_argument(description: str) -> dict[str, Any]:
    """The schema of a `body` argument that takes raw bytes, base64-encoded."""
    return {"type": "string", "contentEncoding": "base64", "description": description}


def sent(tool: Tool, route: dict[str, Any], argument: Any) -> tuple[bytes | None, str | None]:
    """The body and Content-Type the runtime sends for a `body` argument the inputSchema accepts."""
    arguments = {"body": argument}
    Draft202012Validator(tool.input_schema).validate(arguments)
    request = serialize.build_request(serialize.Route.from_json(route), arguments)
    return request.body, request.content_type


# ---------------------------------------------------------------------------------------------
# Binary media types take raw bytes (a base64 argument), whatever the schema says


def test_a_swagger_2_object_file_body_is_a_base64_argument_sent_as_raw_bytes() -> None:
    swagger = {
        "swagger": "2.0",
        "info": {"title": "T", "version": "1"},
        "host": "x.test",
        "paths": {
            "/a": {
                "post": {
                    "operationId": "a",
                    "consumes": ["application/octet-stream"],
                    "parameters": [
                        {"name": "fileContent", "in": "body", "description": "File to upload.",
                         "required": True, "schema": {"type": "object", "format": "file"}}
                    ],
                    "responses": OK,
                }
            }
        },
    }  # fmt: skip
    tool, route = _only_tool(convert_swagger2(swagger, Diagnostics()))
    assert tool.input_schema["properties"]["body"] == base64_argument("File to upload. (base64-encoded)")
    assert route["body"] == route_body("application/octet-stream", "binary", True)
    assert sent(tool, route, base64.b64encode(b"\x00\xffdata").decode()) == (
        b"\x00\xffdata",
        "application/octet-stream",
    )


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "format": "file", "description": "The file."},
        {"type": "object", "properties": {"a": {"type": "string"}}, "description": "The file."},
        {"type": "string", "maxLength": 3, "description": "The file."},
        {"type": "integer", "description": "The file."},
        {"$ref": "#/components/schemas/Blob"},
    ],
    ids=["object-format-file", "object", "plain-string", "integer", "ref-to-object"],
)
def test_a_binary_body_with_a_schema_other_than_bytes_becomes_a_binary_string(schema: Any) -> None:
    blob = {"type": "object", "description": "The file."}
    tool, route = body_tool(content("application/octet-stream", schema, "Upload."), schemas={"Blob": blob})
    assert tool.input_schema["properties"]["body"] == base64_argument("Upload. The file. (base64-encoded)")
    assert route["body"] == route_body("application/octet-stream", "binary", True)
    assert sent(tool, route, "AAE=") == (b"\x00\x01", "application/octet-stream")


def test_a_binary_body_with_an_empty_schema_and_no_description_is_base64_binary_data() -> None:
    tool, route = body_tool(content("image/png", {}))
    assert tool.input_schema["properties"]["body"] == base64_argument("Base64-encoded binary data.")
    assert route["body"] == route_body("image/png", "binary", True)


def test_a_binary_string_body_gets_the_request_bodys_description() -> None:
    tool, route = body_tool(content("image/png", {"type": "string", "format": "binary"}, "The picture"))
    assert tool.input_schema["properties"]["body"] == base64_argument("The picture (base64-encoded)")
    assert route["body"] == route_body("image/png", "binary", True)


def test_a_binary_string_body_keeps_its_own_description_over_the_request_bodys() -> None:
    schema = {"type": "string", "format": "binary", "description": "PNG bytes."}
    tool, _ = body_tool(content("image/png", schema, "The picture"))
    assert tool.input_schema["properties"]["body"]["description"] == "PNG bytes. (base64-encoded)"


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {"type": "string", "format": "byte"},
            base64_argument("Base64-encoded binary data."),
        ),
        ({"type": "string", "format": "base64"}, {"type": "string", "format": "base64"}),
    ],
    ids=["byte", "base64"],
)
def test_byte_and_base64_string_bodies_of_a_binary_media_type_are_unchanged(
    schema: dict[str, Any], expected: dict[str, Any]
) -> None:
    tool, route = body_tool(content("application/octet-stream", schema))
    assert tool.input_schema["properties"]["body"] == expected
    assert route["body"] == route_body("application/octet-stream", "binary", True)


# ---------------------------------------------------------------------------------------------
# Text media types (XML, YAML, text/*) take the document text, sent as is


def test_an_xml_object_body_is_the_xml_document_as_a_string_sent_as_is() -> None:
    schema = {**PERSON, "description": "The person."}
    tool, route = body_tool(content(XML, schema, "Person data"))
    assert tool.input_schema["properties"]["body"] == {
        "type": "string",
        "description": f"Person data. The person. {XML_NOTE}",
    }
    assert tool.input_schema["required"] == ["body"]
    assert route["body"] == route_body(XML, "text", False)
    document = "<person><login>jane</login></person>"
    assert sent(tool, route, document) == (document.encode(), XML)


def test_an_xml_body_referring_to_an_object_component_keeps_the_components_description() -> None:
    person = {**PERSON, "description": "A person."}
    tool, route = body_tool(
        content("application/xml", {"$ref": "#/components/schemas/Person"}), schemas={"Person": person}
    )
    assert tool.input_schema["properties"]["body"] == {
        "type": "string",
        "description": "A person. The request body as an XML document (application/xml), sent as is.",
    }
    assert "$defs" not in tool.input_schema
    assert route["body"] == route_body("application/xml", "text", False)


@pytest.mark.parametrize(
    ("media", "schema", "expected"),
    [
        ("text/plain", None, "The request body as text (text/plain), sent as is."),
        ("text/csv", {"type": "array", "items": {}}, "The request body as text (text/csv), sent as is."),
        (
            "application/yaml",
            {"type": "object"},
            "The request body as a YAML document (application/yaml), sent as is.",
        ),
        (
            "application/atom+xml",
            {"anyOf": [{"type": "string"}, {"type": "object"}]},
            "The request body as an XML document (application/atom+xml), sent as is.",
        ),
    ],
    ids=["text-without-schema", "csv-array", "yaml-object", "atom-anyof"],
)
def test_a_text_body_without_a_string_schema_is_a_string_described_as_the_document(
    media: str, schema: Any, expected: str
) -> None:
    tool, route = body_tool(content(media, schema))
    assert tool.input_schema["properties"]["body"] == {"type": "string", "description": expected}
    assert route["body"] == route_body(media, "text", False)
    assert sent(tool, route, "a: [1]\n") == (b"a: [1]\n", media)


def test_a_text_body_with_a_string_schema_keeps_its_constraints() -> None:
    schema = {"type": "string", "maxLength": 10, "description": "A note"}
    tool, route = body_tool(content("text/plain; charset=utf-8", schema, "Ignored when the schema says"))
    assert tool.input_schema["properties"]["body"] == {
        "type": "string",
        "maxLength": 10,
        "description": "A note",
    }
    assert route["body"] == route_body("text/plain; charset=utf-8", "text", False)
    assert sent(tool, route, "héllo") == ("héllo".encode(), "text/plain; charset=utf-8")


def test_a_text_body_with_a_string_schema_gets_the_request_bodys_description() -> None:
    tool, _ = body_tool(content("text/plain", {"type": "string"}, "The note."))
    assert tool.input_schema["properties"]["body"] == {"type": "string", "description": "The note."}


def test_a_nullable_string_xml_body_is_kept_as_a_string() -> None:
    tool, route = body_tool(content("text/xml", {"type": "string", "nullable": True}))
    assert tool.input_schema["properties"]["body"] == {"type": "string"}  # (no note: it was a string)
    assert route["body"] == route_body("text/xml", "text", False)


def test_a_binary_string_text_body_stays_a_base64_argument_sent_as_bytes() -> None:
    tool, route = body_tool(content("text/csv", {"type": "string", "format": "binary"}))
    assert tool.input_schema["properties"]["body"] == base64_argument("Base64-encoded binary data.")
    assert route["body"] == route_body("text/csv", "text", True)
    assert sent(tool, route, "YSxi") == (b"a,b", "text/csv")


def test_an_optional_xml_body_that_is_left_out_sends_no_body() -> None:
    body = {"content": {"application/xml": {"schema": PERSON}}}
    tool, route = body_tool(body)
    assert "required" not in tool.input_schema
    assert route["body"] == route_body("application/xml", "text", False, required=False)
    request = serialize.build_request(serialize.Route.from_json(route), {})
    assert (request.body, request.content_type) == (None, None)


def test_json_and_form_bodies_are_not_touched() -> None:
    tool, route = body_tool(content("application/json", PERSON))
    assert tool.input_schema["properties"] == {"login": {"type": "string"}}
    assert route["body"]["kind"] == "json"


@pytest.mark.parametrize(
    ("media", "schema"),
    [
        ("multipart/form-data", {"type": "string", "format": "binary"}),  # noosh.com's file upload
        ("application/x-www-form-urlencoded", {"type": "array", "items": {"type": "string"}}),
    ],
)
def test_a_form_body_whose_schema_is_not_an_object_skips_the_operation(media: str, schema: Any) -> None:
    """Form fields need names; a string or an array names none. The tool's `body` argument would take
    a value the server must refuse at every call, so the operation is skipped with the reason."""
    operation = {"operationId": "a", "requestBody": content(media, schema), "responses": OK}
    document = {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://x.test"}],
        "paths": {"/a": {"post": operation}},
    }
    diagnostics = Diagnostics()
    assert map_document(document, OPTIONS, diagnostics).tools == ()
    pointer = "#/paths/~1a/post/requestBody/content/" + media.replace("/", "~1") + "/schema"
    assert [(d.level.value, d.pointer, d.message) for d in diagnostics] == [
        (
            "error",
            pointer,
            f"the {media} body is sent as named fields, but its schema is not an object: it names no field"
            " to send; operation skipped",
        )
    ]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "additionalProperties": True},
        # cloudflare's worker upload: branches, one an object (the server checks the value at a call)
        {"oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "string"}]},
    ],
)
def test_a_form_body_that_may_be_an_object_is_one_argument(schema: Any) -> None:
    tool, route = body_tool(content("multipart/form-data", schema))
    assert list(tool.input_schema["properties"]) == ["body"]
    assert route["body"]["kind"] == "multipart"


def test_a_form_body_that_names_no_field_gives_way_to_another_media_type() -> None:
    """multipart first by rank, but its schema is a binary string: the octet-stream body is sent."""
    body = {
        "required": True,
        "content": {
            "multipart/form-data": {"schema": {"type": "string", "format": "binary"}},
            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
        },
    }
    tool, route = body_tool(body)
    assert (route["body"]["mediaType"], route["body"]["kind"]) == ("application/octet-stream", "binary")
    assert tool.input_schema["properties"]["body"]["contentEncoding"] == "base64"
