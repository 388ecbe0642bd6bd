"""The changelog compares the inputSchemas the servers enforce: the listed ones close no object
(emit/listing.py), the route's `closed` says which are closed, so closing one is still a change."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from openapi2mcp.ci.changelog import compare
from openapi2mcp.ci.diff import parse_tool_data
from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.emit.listing import enforced_input, listed_input
from openapi2mcp.emit.render import TOOL_DATA_FILE
from openapi2mcp.emit.tool_data import tool_data
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.tools.mapper import map_document

REPO = Path(__file__).resolve().parents[2]
SPEC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "T", "version": "1"},
    "paths": {
        "/pets": {
            "post": {
                "operationId": "createPet",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"meta": {"type": "object", "properties": {"a": {}}}},
                            }
                        }
                    }
                },
                "responses": {"204": {"description": "made"}},
            }
        }
    },
}


def data_text(spec: dict[str, Any]) -> str:
    options = GeneratorOptions(dist_name="t", env_prefix="T")
    return json.dumps(tool_data(map_document(spec, options, Diagnostics()), options, "test"))


def test_closing_an_object_of_the_spec_is_a_breaking_change_of_the_changelog() -> None:
    closed = copy.deepcopy(SPEC)
    body = closed["paths"]["/pets"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    body["properties"]["meta"]["additionalProperties"] = False
    old, new = (parse_tool_data(data_text(spec), Path("t")) for spec in (SPEC, closed))
    (entry,) = compare(old, new).tools
    rows = [(change.path, change.text, change.breaking) for change in entry.changes]
    assert rows == [("meta", "additionalProperties closed", True)]


def test_the_enforced_schema_of_every_golden_tool_is_its_schema_before_listing() -> None:
    for path in sorted((REPO / "generated").glob(f"*/*/data/{TOOL_DATA_FILE}")):
        data = json.loads(path.read_text("utf-8"))
        for tool in data["tools"]:
            enforced = enforced_input(tool["inputSchema"], data["routes"][tool["name"]]["closed"])
            assert listed_input(enforced) == (tool["inputSchema"], data["routes"][tool["name"]]["closed"])
            assert "additionalProperties" in enforced or not data["routes"][tool["name"]]["closed"]
