"""`tool_details.json` (format 2): objects the schemas share are written once by the generator
(`emit.sharing`) and put back by the runtime (`meta_tools.Details`), giving the schemas as mapped."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.emit.listing import listed_input
from openapi2mcp.emit.sharing import MARKER, MarkerCollision, share_repeats
from openapi2mcp.emit.tool_data import tool_details
from openapi2mcp.fit.budget import fit_tools
from openapi2mcp.model import GeneratorOptions, SizeLimits
from openapi2mcp.tools.mapper import map_document
from openapi2mcp_runtime.discovery import meta_tools


def written(details: dict[str, Any]) -> Any:
    """The file as the runtime reads it: through JSON text."""
    return meta_tools.Details(json.loads(json.dumps(details)))


def test_an_object_met_twice_is_written_once_and_read_back_in_both_places() -> None:
    address = {"type": "object", "properties": {"city": {"type": "string"}}}
    person = {"type": "object", "properties": {"home": address, "work": address}}
    equal_but_apart = {"type": "object", "properties": {"city": {"type": "string"}}}
    values = [{"inputSchema": person}, {"outputSchema": {"anyOf": [person, equal_but_apart]}}]
    encoded, shared = share_repeats(values)
    assert shared == [
        {"type": "object", "properties": {"home": {MARKER: 1}, "work": {MARKER: 1}}},
        {"type": "object", "properties": {"city": {"type": "string"}}},
    ]
    assert encoded == [
        {"inputSchema": {MARKER: 0}},
        {"outputSchema": {"anyOf": [{MARKER: 0}, equal_but_apart]}},
    ]
    details = written({"format": 2, "shared": shared, "tools": {"a": encoded[0], "b": encoded[1]}})
    assert (details.whole("a"), details.whole("b"), details.whole("c")) == (*values, {})


def test_data_holding_a_marker_lookalike_is_written_whole_and_read_as_it_is() -> None:
    lookalike = {"type": "object", "default": {MARKER: 0}}
    with pytest.raises(MarkerCollision):
        share_repeats([{"inputSchema": lookalike}])
    not_a_marker = {"type": "object", "default": {MARKER: True}}  # a bool is not a table number
    assert share_repeats([not_a_marker]) == ([not_a_marker], [])
    details = written({"format": 2, "tools": {"a": {"inputSchema": lookalike}}})
    assert details.whole("a") == {"inputSchema": lookalike}


def test_a_generated_file_gives_every_cut_schema_as_mapped() -> None:
    big = {
        "type": "object",
        "description": "x" * 300,
        "properties": {f"p{n}": {"type": "string", "description": "y" * 100} for n in range(30)},
    }
    paths = {
        f"/things{n}": {
            "post": {
                "operationId": f"make{n}",
                "requestBody": {
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Big"}}}
                },
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": big}}}},
            }
        }
        for n in range(3)
    }
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "paths": paths,
        "components": {"schemas": {"Big": big}},
    }
    small = SizeLimits(input_schema=1024, output_schema=512, tools_list=2_000_000, output_schemas="compact")
    mapped = map_document(spec, GeneratorOptions(dist_name="t", env_prefix="T"), Diagnostics())
    fitted = fit_tools(mapped, small, Diagnostics())
    data = tool_details(fitted, mapped)
    assert data["format"] == 2 and data["shared"]  # Big is one object in the three tools
    details = written(data)
    for fitted_tool, whole in zip(fitted.tools, mapped.tools, strict=True):
        assert fitted_tool.input_schema != whole.input_schema  # cut
        assert details.whole(fitted_tool.name)["inputSchema"] == listed_input(whole.input_schema)[0]
        assert details.whole(fitted_tool.name)["outputSchema"] == whole.output_schema
