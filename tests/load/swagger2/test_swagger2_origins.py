"""Diagnostics about a Swagger 2.0 spec point into the Swagger file, not into its OAS 3 conversion."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openapi2mcp.load.swagger2.origins import SwaggerOrigins
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import generate

DANGLING = {"$ref": "#/definitions/Missing"}
OK = {"200": {"description": "ok"}}


def diagnostics_of(tmp_path: Path, document: dict[str, Any]) -> list[tuple[str, str]]:
    spec = tmp_path / "swagger.json"
    spec.write_text(json.dumps({"swagger": "2.0", "info": {"title": "S", "version": "1"}, **document}))
    generation = generate(str(spec), GeneratorOptions("s", "S"))
    return [(d.level.value, d.pointer) for d in generation.diagnostics]


def test_a_body_parameters_schema_problem_points_at_the_body_parameter(tmp_path: Path) -> None:
    body = {"name": "pet", "in": "body", "schema": {"type": "object", "properties": {"owner": DANGLING}}}
    paths = {
        "/pets": {
            "post": {"parameters": [{"name": "q", "in": "query", "type": "string"}, body], "responses": OK}
        }
    }
    assert ("error", "#/paths/~1pets/post/parameters/1/schema/properties/owner") in diagnostics_of(
        tmp_path, {"paths": paths}
    )


def test_a_definitions_problem_points_at_the_definition(tmp_path: Path) -> None:
    definitions = {"Pet": {"type": "object", "properties": {"owner": DANGLING}}}
    body = {"name": "pet", "in": "body", "schema": {"$ref": "#/definitions/Pet"}}
    paths = {"/pets": {"post": {"parameters": [body], "responses": OK}}}
    found = diagnostics_of(tmp_path, {"paths": paths, "definitions": definitions})
    assert ("error", "#/definitions/Pet/properties/owner") in found


def test_a_response_schema_problem_points_at_the_responses_schema(tmp_path: Path) -> None:
    responses = {"200": {"description": "ok", "schema": {"type": "array", "items": DANGLING}}}
    found = diagnostics_of(tmp_path, {"paths": {"/pets": {"get": {"responses": responses}}}})
    assert ("warning", "#/paths/~1pets/get/responses/200/schema/items") in found  # the tool stays


@pytest.mark.parametrize(
    ("converted", "original"),
    [
        ("#/components/schemas/Pet/properties/a", "#/definitions/Pet/properties/a"),
        ("#/components/parameters/limit", "#/parameters/limit"),
        ("#/components/responses/Err/content/application~1json/schema/items", "#/responses/Err/schema/items"),
        ("#/components/securitySchemes/key", "#/securityDefinitions/key"),
        ("#/servers/0", "#/host"),
        ("#/paths/~1a/get/parameters/2", "#/paths/~1a/get/parameters/2"),
        (
            "#/paths/~1a/post/requestBody/content/application~1json/schema/x",
            "#/paths/~1a/post/parameters/0/schema/x",
        ),
        ("#/paths/~1a/post/requestBody", "#/paths/~1a/post/parameters/0"),
        (
            "#/paths/~1f/post/requestBody/content/multipart~1form-data/schema/properties/a~1b/items",
            "#/paths/~1f/post/parameters/3/items",
        ),
        ("#/paths/~1f/post/requestBody/content/multipart~1form-data/schema", "#/paths/~1f/post"),
    ],
)
def test_pointer_translation(converted: str, original: str) -> None:
    origins = SwaggerOrigins()
    origins.body("#/paths/~1a/post/requestBody", "#/paths/~1a/post/parameters/0")
    origins.form_field("#/paths/~1f/post/requestBody", "a/b", "#/paths/~1f/post/parameters/3")
    assert origins.original(converted) == original
