"""Issue 28, part 3: a path, query or header parameter has one argument name in every tool of an API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import GeneratorOptions, Tool
from openapi2mcp.pipeline import generate
from openapi2mcp.tools.mapper import map_document
from openapi2mcp.tools.shared_names import moved_parameter_names

OK = {"200": {"description": "ok"}}
OPTIONS = GeneratorOptions(dist_name="t", env_prefix="T")


def param(name: str, location: str) -> dict[str, Any]:
    return {"name": name, "in": location, "required": location == "path", "schema": {"type": "string"}}


def spec(paths: dict[str, Any]) -> dict[str, Any]:
    return {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": paths}


def operation(operation_id: str, *parameters: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"operationId": operation_id, "parameters": list(parameters), "responses": OK, **extra}


# Kubernetes' pod proxy: `{path}` and a query `path` in one operation, the query `path` alone in another.
PROXY = spec(
    {
        "/pods/{name}/proxy": {"get": operation("proxy", param("name", "path"), param("path", "query"))},
        "/pods/{name}/proxy/{path}": {
            "get": operation(
                "proxy_with_path", param("name", "path"), param("path", "path"), param("path", "query")
            )
        },
    }
)


def moved(document: dict[str, Any]) -> frozenset[tuple[str, str]]:
    return moved_parameter_names(document, Resolver(document))


def arguments(tool: Tool) -> list[tuple[str, str, str]]:
    return [(p.argument, p.location, p.name) for p in tool.parameters]


def test_a_query_parameter_behind_a_path_parameter_of_its_name_in_one_operation_moves() -> None:
    assert moved(PROXY) == frozenset({("path", "query")})


def test_nothing_moves_where_no_operation_has_a_name_in_two_locations() -> None:
    document = spec({"/a/{id}": {"get": operation("a", param("id", "path"), param("q", "query"))}})
    assert moved(document) == frozenset()


def test_the_parameters_are_read_as_the_tools_read_them() -> None:
    """A path parameter not in the template is dropped, an ignored header is none, a templated query
    pair (`?city={c}`) makes its parameter the query parameter `city`; an operation that cannot be
    read is skipped."""
    document = spec(
        {
            "/a": {"get": operation("a", param("path", "path"), param("path", "query"))},
            "/b": {"get": operation("b", param("Accept", "header"), param("Accept", "cookie"))},
            "/c?city={c}": {"get": operation("c", param("c", "path"), param("city", "header"))},
            "/d/{path}": {
                "get": operation("d", param("path", "path"), param("path", "query"), {"in": "query"})
            },
        }
    )
    assert moved(document) == frozenset({("city", "header")})


def test_both_tools_name_the_path_parameter_path_and_the_query_parameter_path_query(tmp_path: Path) -> None:
    source = tmp_path / "proxy.json"
    source.write_text(json.dumps(PROXY), "utf-8")
    generation = generate(str(source), GeneratorOptions(dist_name="proxy", env_prefix="PROXY"))
    tool_data = json.loads(generation.files["proxy/data/tool_data.json"])
    assert {tool["name"]: list(tool["inputSchema"]["properties"]) for tool in tool_data["tools"]} == {
        "proxy": ["name", "path_query"],
        "proxy_with_path": ["name", "path", "path_query"],
    }
    assert {
        name: [(p["arg"], p["in"], p["name"]) for p in route["params"]]
        for name, route in tool_data["routes"].items()
    } == {
        "proxy": [("name", "path", "name"), ("path_query", "query", "path")],
        "proxy_with_path": [
            ("name", "path", "name"),
            ("path", "path", "path"),
            ("path_query", "query", "path"),
        ],
    }


def test_the_names_do_not_depend_on_which_operations_are_selected() -> None:
    options = GeneratorOptions(dist_name="t", env_prefix="T", include=("op:proxy",))
    model = map_document(PROXY, options, Diagnostics())
    assert [(tool.name, arguments(tool)) for tool in model.tools] == [
        ("proxy", [("name", "path", "name"), ("path_query", "query", "path")])
    ]


def test_a_body_property_gives_way_to_a_moved_parameter_and_says_which_argument_it_is() -> None:
    body = {
        "content": {
            "application/json": {"schema": {"type": "object", "properties": {"path": {"type": "string"}}}}
        }
    }
    document = spec(
        {
            **PROXY["paths"],
            "/exec": {"post": operation("run", param("path", "query"), requestBody=body)},
        }
    )
    model = map_document(document, OPTIONS, Diagnostics())
    run = model.tools[-1]
    assert (run.name, arguments(run)) == ("run", [("path_query", "query", "path")])
    assert run.body is not None and [(f.argument, f.name) for f in run.body.fields] == [("path_body", "path")]
    assert run.input_schema["properties"]["path_body"]["description"] == (
        "Sent as `path` in the request body; the argument `path_query` is the query parameter."
    )


def test_what_the_pre_pass_reads_is_reported_once_by_the_mapping() -> None:
    paths = {
        "/bad": {"get": operation("bad", {"in": "query"})},
        "/h": {"get": operation("h", param("Accept", "header"))},
    }
    diagnostics = Diagnostics()
    model = map_document(spec({**PROXY["paths"], **paths}), OPTIONS, diagnostics)
    assert [tool.name for tool in model.tools] == ["proxy", "proxy_with_path", "h"]
    assert [d.render() for d in diagnostics if d.pointer.startswith(("#/paths/~1bad", "#/paths/~1h"))] == [
        "error: #/paths/~1bad/get/parameters/0/name: invalid operation: parameters/0/name: Field required;"
        " operation skipped",
        "info: #/paths/~1h/get/parameters/0: header parameter 'Accept' is ignored, as OpenAPI specifies",
    ]
