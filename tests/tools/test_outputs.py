"""The outputSchemas of tests/runtime/deviations.yaml are the generator's: each recorded case's spec
schema still maps to its recorded outputSchema, and the answers the runtime must not flag (null
where the spec says not nullable, extra properties, missing required ones) meet it as they are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.tools.mapper import map_document

CASES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parents[1] / "runtime" / "deviations.yaml").read_text("utf-8")
)
FROM_SPECS = [case for case in CASES if "spec" in case]


def _document(schema: Any) -> dict[str, Any]:
    ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/x": {"get": {"operationId": "x", "responses": {"200": ok}}}},
    }


@pytest.mark.parametrize("case", FROM_SPECS, ids=[case["name"] for case in FROM_SPECS])
def test_a_recorded_spec_schema_maps_to_its_recorded_output_schema(case: dict[str, Any]) -> None:
    options = GeneratorOptions(dist_name="t", env_prefix="T")
    (tool,) = map_document(_document(case["spec"]), options, Diagnostics()).tools
    assert (tool.output_schema, tool.output_wrapped) == (case["outputSchema"], case["wrapped"])


def test_output_schemas_absorb_nulls_extra_and_missing_properties_with_nothing_to_flag() -> None:
    absorbed = [case for case in FROM_SPECS if not case["leftOut"] and not case["nulled"]]
    assert [case["name"] for case in absorbed] == [
        "null_where_not_nullable",
        "extra_properties",
        "missing_required_properties",
    ]
    for case in absorbed:
        jsonschema.validate(case["answer"], case["outputSchema"])
