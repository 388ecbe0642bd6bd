"""Toolsets in the generated package (issue 15): each route's toolset and the summary in
tool_data.json (format 1 still: only keys were added), and the generated README's table."""

from __future__ import annotations

import json
import re
from typing import Any

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.emit.render import render_package
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.tools.mapper import map_document

OK = {"200": {"description": "ok"}}
SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Zoo", "version": "1"},
    "servers": [{"url": "https://zoo.example.com"}],
    "tags": [{"name": "Pets", "description": "All | about\npets."}, {"name": "admin"}],
    "paths": {
        "/pets": {
            "get": {"operationId": "listPets", "tags": ["Pets"], "responses": OK},
            "post": {"operationId": "addPet", "tags": ["Pets"], "responses": OK},
        },
        "/health": {"get": {"operationId": "health", "responses": OK}},
        "/users": {"delete": {"operationId": "dropUsers", "tags": ["admin"], "responses": OK}},
    },
}


def files(**options: Any) -> dict[str, str]:
    chosen = GeneratorOptions(dist_name="zoo", env_prefix="ZOO", **options)
    return render_package(map_document(SPEC, chosen, Diagnostics()), chosen)


def test_each_route_names_its_toolset_and_the_tools_stay_the_mcp_wire_form() -> None:
    data = json.loads(files()["zoo/data/tool_data.json"])
    assert {name: route["toolset"] for name, route in data["routes"].items()} == {
        "listPets": "pets",
        "addPet": "pets",
        "health": "untagged",
        "dropUsers": "admin",
    }
    wire_keys = {"name", "title", "description", "inputSchema", "annotations", "_meta"}
    assert [set(tool) for tool in data["tools"]] == [wire_keys] * 4
    assert data["format"] == 1


def test_the_summary_lists_each_toolset_in_order_with_its_count_default_and_description() -> None:
    data = json.loads(files(default_toolsets=("pets", "untagged"))["zoo/data/tool_data.json"])
    assert list(data["toolsets"].items()) == [
        ("pets", {"count": 2, "default": True, "description": "All | about pets."}),
        ("untagged", {"count": 1, "default": True, "description": ""}),
        ("admin", {"count": 1, "default": False, "description": ""}),
    ]


def test_the_readme_has_a_toolsets_table() -> None:
    readme = files(default_toolsets=("admin",))["README.md"]
    section = readme.split("\n## Toolsets (3)\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    assert rows == [
        "| toolset | tools | default |",
        "| `pets` | 2 | no |",
        "| `untagged` | 1 | no |",
        "| `admin` | 1 | yes |",
    ]
    assert re.search(r"\n## Tools \(4\)\n[\s\S]*\n## Toolsets \(3\)\n[\s\S]*\n## Hooks", readme)
