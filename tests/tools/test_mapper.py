"""The mapper's contract (issue 2): one tool per operation, its name, title, description and
outputSchema, what `x-mcp` changes, and which problems skip an operation with a diagnostic."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostic, Diagnostics, Level
from openapi2mcp.emit.tool_data import tool_data
from openapi2mcp.load.refs import unescape_token
from openapi2mcp.model import ApiModel, GeneratorOptions, NameStyle, Tool
from openapi2mcp.tools import mapper
from openapi2mcp.tools.mapper import map_document
from openapi2mcp.tools.operations import OperationRef

OK = {"200": {"description": "ok"}}
PORTABLE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def spec(paths: dict[str, Any], version: str = "3.0.3", **extra: Any) -> dict[str, Any]:
    return {
        "openapi": version,
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": paths,
        **extra,
    }


def build(document: dict[str, Any], name_style: NameStyle = "portable") -> tuple[ApiModel, list[Diagnostic]]:
    diagnostics = Diagnostics()
    options = GeneratorOptions(dist_name="t", env_prefix="T", name_style=name_style)
    model = map_document(document, options, diagnostics)
    return model, list(diagnostics)


def only_tool(document: dict[str, Any]) -> Tool:
    model, _ = build(document)
    assert len(model.tools) == 1, [tool.name for tool in model.tools]
    return model.tools[0]


def names(document: dict[str, Any]) -> list[str]:
    return [tool.name for tool in build(document)[0].tools]


def by_route(model: ApiModel) -> dict[str, str]:
    return {f"{tool.method} {tool.path}": tool.name for tool in model.tools}


def sha8(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def op(**fields: Any) -> dict[str, Any]:
    return {"responses": OK, **fields}


def resolve_pointer(document: Any, pointer: str) -> Any:
    """The node a `#/a/b` pointer designates; KeyError/IndexError when nothing is there."""
    assert pointer.startswith("#")
    node = document
    for raw in pointer[1:].split("/")[1:]:
        token = unescape_token(raw)
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


# ---------------------------------------------------------------------------------------------
# Names


def test_operation_id_with_only_portable_characters_is_the_tool_name_unchanged() -> None:
    assert names(spec({"/a": {"get": op(operationId="listPets_V2-beta")}})) == ["listPets_V2-beta"]


def test_every_character_outside_the_portable_set_becomes_an_underscore_and_case_is_kept() -> None:
    assert names(spec({"/a": {"get": op(operationId="Pets.list v2/Ä:{id}")}})) == ["Pets_list_v2____id_"]


def test_an_operation_without_operation_id_is_named_with_a_verb_and_its_resource() -> None:
    document = spec(
        {
            "/pets/{petId}/Toys.json": {
                "delete": op(
                    parameters=[
                        {"name": "petId", "in": "path", "required": True, "schema": {"type": "string"}},
                    ]
                )
            }
        }
    )
    assert names(document) == ["delete_pet_toys_json"]


def test_an_empty_operation_id_counts_as_none() -> None:
    assert names(spec({"/pets": {"get": op(operationId="")}})) == ["list_pets"]


def test_a_long_operation_id_is_cut_to_64_characters_with_a_readable_head_and_a_hash_of_the_whole() -> None:
    raw = "getTheVeryLongListOfEverythingThatBelongsToTheCurrentUserAndAllTheirFriends"
    (name,) = names(spec({"/a": {"get": op(operationId=raw)}}))
    assert name == raw[:55] + "_" + sha8(raw)
    assert len(name) == 64


def test_a_long_fallback_name_is_cut_to_64_characters_the_same_way() -> None:
    path = "/organizations/{org}/repositories/{repo}/environments/{env}/deployment-branch-policies"
    parameters = [
        {"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
        for n in ("org", "repo", "env")
    ]
    (name,) = names(spec({path: {"get": op(parameters=parameters)}}))
    raw = "list_organization_repository_environment_deployment_branch_policies"
    assert len(name) == 64
    assert PORTABLE.fullmatch(name)
    assert name == raw[:55] + "_" + sha8(raw)


def test_every_member_of_a_name_clash_gets_a_hash_of_its_own_method_and_path() -> None:
    document = spec(
        {
            "/a": {"get": op(operationId="same")},
            "/b": {"get": op(operationId="same"), "post": op(operationId="other")},
        }
    )
    assert names(document) == ["same_" + sha8("GET /a"), "same_" + sha8("GET /b"), "other"]


def test_each_renamed_member_of_a_name_clash_is_a_warning_at_its_operation() -> None:
    document = spec({"/a": {"get": op(operationId="same")}, "/b": {"get": op(operationId="same")}})
    _, diagnostics = build(document)
    assert [(d.level, d.pointer, d.message) for d in diagnostics] == [
        (
            Level.WARNING,
            f"#/paths/~1{path}/get",
            f"tool name 'same' is shared by 2 operations; this one is 'same_{sha8('GET /' + path)}'",
        )
        for path in ("a", "b")
    ]


def test_clash_suffixes_do_not_depend_on_the_order_of_paths_in_the_spec() -> None:
    paths = {
        "/a": {"get": op(operationId="same"), "put": op(operationId="same")},
        "/b": {"get": op(operationId="same")},
        "/c": {"post": op()},
        "/d": {"post": op(operationId="post__c")},
    }
    forward = by_route(build(spec(paths))[0])
    backward = by_route(build(spec(dict(reversed(list(paths.items())))))[0])
    assert forward == backward
    assert len(set(forward.values())) == 5


def test_a_derived_name_that_an_operation_id_has_gives_way_and_the_operation_id_stays() -> None:
    document = spec({"/c": {"post": op()}, "/d": {"post": op(operationId="create_c")}})
    assert names(document) == ["create_c_" + sha8("POST /c"), "create_c"]
    assert build(document)[1] == []


def test_clashing_names_of_64_characters_stay_within_64_after_the_suffix() -> None:
    long_id = "n" * 64
    tools = names(spec({"/a": {"get": op(operationId=long_id)}, "/b": {"get": op(operationId=long_id)}}))
    assert [len(name) for name in tools] == [64, 64]
    assert tools == ["n" * 55 + "_" + sha8("GET /a"), "n" * 55 + "_" + sha8("GET /b")]


def test_mcp_name_style_keeps_dots_and_allows_128_characters() -> None:
    document = spec({"/a": {"get": op(operationId="pets.list"), "post": op(operationId="p." + "x" * 120)}})
    model, _ = build(document, name_style="mcp")
    assert [tool.name for tool in model.tools] == ["pets.list", "p." + "x" * 120]


def test_mcp_name_style_still_replaces_characters_outside_its_set_and_cuts_at_128() -> None:
    raw = "pets list/" + "y" * 200
    model, _ = build(spec({"/a": {"get": op(operationId=raw)}}), name_style="mcp")
    (name,) = [tool.name for tool in model.tools]
    assert len(name) == 128
    assert name == ("pets_list_" + "y" * 200)[:119] + "_" + sha8(raw)


def test_portable_name_style_turns_dots_into_underscores() -> None:
    assert names(spec({"/a": {"get": op(operationId="pets.list")}})) == ["pets_list"]


def test_x_mcp_name_replaces_the_operation_id_and_is_sanitized_like_one() -> None:
    assert names(
        spec({"/a": {"get": op(operationId="listPets", **{"x-mcp": {"name": "find pets.v2"}})}})
    ) == ["find_pets_v2"]


# ---------------------------------------------------------------------------------------------
# Title and description


def test_the_summary_is_the_title_of_the_tool_and_of_its_annotations() -> None:
    tool = only_tool(spec({"/a": {"get": op(operationId="listPets", summary="List all pets")}}))
    assert (tool.title, tool.annotations.title) == ("List all pets", "List all pets")


def test_without_a_summary_the_title_is_the_humanized_name() -> None:
    tool = only_tool(spec({"/a": {"get": op(operationId="listPetsByHTTPStatus")}}))
    assert (tool.title, tool.annotations.title) == ("List pets by HTTP status", "List pets by HTTP status")


def test_a_blank_summary_counts_as_no_summary() -> None:
    tool = only_tool(spec({"/a": {"get": op(operationId="listPets", summary="   ")}}))
    assert tool.title == "List pets"


def test_x_mcp_title_overrides_the_summary_on_the_tool_and_its_annotations() -> None:
    tool = only_tool(
        spec({"/a": {"get": op(operationId="g", summary="S", **{"x-mcp": {"title": "Custom"}})}})
    )
    assert (tool.title, tool.annotations.title) == ("Custom", "Custom")


def test_description_is_summary_then_description_then_method_and_path() -> None:
    tool = only_tool(
        spec(
            {
                "/pets": {
                    "post": op(
                        operationId="createPet",
                        summary="Create a pet",
                        description="Adds a pet to the store.",
                    )
                }
            }
        )
    )
    assert tool.description == "Create a pet\n\nAdds a pet to the store.\n\nHTTP: POST /pets"


def test_description_without_summary_is_the_description_then_method_and_path() -> None:
    tool = only_tool(spec({"/pets": {"get": op(operationId="g", description="All pets.")}}))
    assert tool.description == "All pets.\n\nHTTP: GET /pets"


def test_an_operation_without_any_text_still_gets_a_description() -> None:
    tool = only_tool(
        spec(
            {
                "/pets/{id}": {
                    "delete": op(
                        parameters=[
                            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                        ]
                    )
                }
            }
        )
    )
    assert tool.description == "HTTP: DELETE /pets/{id}"


def test_x_mcp_description_replaces_summary_and_description_but_keeps_method_and_path() -> None:
    tool = only_tool(
        spec(
            {
                "/pets": {
                    "get": op(
                        operationId="g",
                        summary="S",
                        description="D",
                        **{"x-mcp": {"description": "Use this to find pets."}},
                    )
                }
            }
        )
    )
    assert tool.description == "Use this to find pets.\n\nHTTP: GET /pets"


def test_description_keeps_multiline_text_verbatim() -> None:
    text = 'Line one.\n\n```python\nprint("""x""")\n```\nBackslash \\ and {{ braces }}.'
    tool = only_tool(spec({"/a": {"get": op(operationId="g", description=text)}}))
    assert tool.description == text + "\n\nHTTP: GET /a"


# ---------------------------------------------------------------------------------------------
# Operations in and out


def test_one_tool_per_operation_in_document_order_with_methods_in_a_fixed_order() -> None:
    document = spec(
        {
            "/b": {
                "patch": op(operationId="b_patch"),
                "get": op(operationId="b_get"),
                "delete": op(operationId="b_del"),
            },
            "/a": {"post": op(operationId="a_post"), "put": op(operationId="a_put")},
        }
    )
    assert names(document) == ["b_get", "b_del", "b_patch", "a_put", "a_post"]


def test_x_mcp_false_on_an_operation_leaves_it_out_with_an_info_diagnostic() -> None:
    document = spec(
        {"/a": {"get": op(operationId="hidden", **{"x-mcp": False}), "post": op(operationId="kept")}}
    )
    model, diagnostics = build(document)
    assert [tool.name for tool in model.tools] == ["kept"]
    assert [(d.level, d.pointer) for d in diagnostics] == [(Level.INFO, "#/paths/~1a/get")]


def test_x_mcp_false_on_a_path_item_leaves_out_all_its_operations() -> None:
    document = spec(
        {
            "/a": {"x-mcp": False, "get": op(operationId="hidden1"), "post": op(operationId="hidden2")},
            "/b": {"get": op(operationId="kept")},
        }
    )
    assert names(document) == ["kept"]


def test_x_mcp_false_on_a_path_item_reports_an_info_diagnostic_at_the_path_item() -> None:
    document = spec(
        {"/a": {"x-mcp": False, "get": op(operationId="hidden")}, "/b": {"get": op(operationId="kept")}}
    )
    _, diagnostics = build(document)
    assert [(d.level, d.pointer) for d in diagnostics] == [(Level.INFO, "#/paths/~1a")]


def test_x_mcp_false_at_the_root_leaves_out_every_operation_with_an_info_diagnostic() -> None:
    model, diagnostics = build({**spec({"/a": {"get": op(operationId="a")}}), "x-mcp": False})
    assert model.tools == ()
    assert [(d.level, d.pointer) for d in diagnostics] == [(Level.INFO, "#")]


def test_x_mcp_false_still_leaves_an_operation_out_when_a_selector_includes_it() -> None:
    document = spec(
        {
            "/a": {
                "get": op(operationId="hidden", tags=["t"], **{"x-mcp": False}),
                "post": op(operationId="p"),
            },
            "/b": {"get": op(operationId="kept", tags=["t"])},
        }
    )
    options = GeneratorOptions(dist_name="t", env_prefix="T", include=("tag:t", "op:hidden"))
    diagnostics = Diagnostics()
    model = map_document(document, options, diagnostics)
    assert [tool.name for tool in model.tools] == ["kept"]
    assert [(d.level, d.pointer, d.message) for d in diagnostics] == [
        (Level.INFO, "#/paths/~1a/get", "x-mcp: false: left out"),
        (Level.WARNING, "#/paths", "include selector 'op:hidden' matches no operation"),
        (
            Level.INFO,
            "#/paths",
            "selectors: 1 of 2 operations kept (1 matched no include, 0 matched an exclude)",
        ),
    ]


def test_x_mcp_true_or_an_empty_object_changes_nothing() -> None:
    plain = only_tool(spec({"/a": {"get": op(operationId="g", summary="S")}}))
    assert only_tool(spec({"/a": {"get": op(operationId="g", summary="S", **{"x-mcp": True})}})) == plain
    assert only_tool(spec({"/a": {"get": op(operationId="g", summary="S", **{"x-mcp": {}})}})) == plain


def test_an_x_mcp_value_that_is_neither_an_object_nor_false_is_ignored_with_a_warning() -> None:
    model, diagnostics = build(spec({"/a": {"get": op(operationId="g", **{"x-mcp": "hide"})}}))
    assert [tool.name for tool in model.tools] == ["g"]
    assert [(d.level, d.pointer) for d in diagnostics] == [(Level.WARNING, "#/paths/~1a/get/x-mcp")]


# ---------------------------------------------------------------------------------------------
# Diagnostics: a broken operation is skipped, the rest still generates


GOOD = {"/good": {"get": op(operationId="good")}}


def skipped(paths: dict[str, Any], version: str = "3.0.3") -> list[tuple[Level, str]]:
    """Map `paths` plus a good operation; assert only the good one survives; the diagnostics."""
    model, diagnostics = build(spec({**paths, **GOOD}, version))
    assert [tool.name for tool in model.tools] == ["good"]
    return [(d.level, d.pointer) for d in diagnostics]


def test_a_dangling_parameter_ref_skips_only_that_operation_with_an_error_at_the_ref() -> None:
    paths = {"/a": {"get": op(operationId="bad", parameters=[{"$ref": "#/components/parameters/Nope"}])}}
    assert skipped(paths) == [(Level.ERROR, "#/paths/~1a/get/parameters/0")]


def test_a_dangling_schema_ref_in_a_parameter_skips_the_operation_with_an_error_at_the_schema() -> None:
    paths = {
        "/a": {
            "get": op(
                operationId="bad",
                parameters=[
                    {"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/Nope"}},
                ],
            )
        }
    }
    assert skipped(paths) == [(Level.ERROR, "#/paths/~1a/get/parameters/0/schema")]


def test_a_dangling_request_body_ref_skips_the_operation_with_an_error_at_the_ref() -> None:
    paths = {"/a": {"post": op(operationId="bad", requestBody={"$ref": "#/components/requestBodies/Nope"})}}
    assert skipped(paths) == [(Level.ERROR, "#/paths/~1a/post/requestBody")]


def test_a_dangling_ref_in_the_body_schema_skips_the_operation_with_an_error_at_the_schema() -> None:
    paths = {
        "/a": {
            "post": op(
                operationId="bad",
                requestBody={
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Nope"}}},
                },
            )
        }
    }
    assert skipped(paths) == [(Level.ERROR, "#/paths/~1a/post/requestBody/content/application~1json/schema")]


def test_a_dangling_ref_in_the_success_response_schema_costs_only_the_output_schema() -> None:
    paths = {
        "/a": {
            "get": {
                "operationId": "kept",
                "responses": {
                    "200": {
                        "description": "x",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/No"}}},
                    },
                },
            }
        }
    }
    model, diagnostics = build(spec(paths))
    assert [(tool.name, tool.output_schema) for tool in model.tools] == [("kept", None)]
    assert [(d.level, d.pointer, d.message) for d in diagnostics] == [
        (
            Level.WARNING,
            "#/paths/~1a/get/responses/200/content/application~1json/schema",
            "dangling reference '#/components/schemas/No': nothing is there; the tool has no outputSchema",
        )
    ]


def test_a_dangling_success_response_ref_costs_the_output_schema_with_a_warning_at_the_ref() -> None:
    paths = {
        "/a": {"get": {"operationId": "kept", "responses": {"200": {"$ref": "#/components/responses/Nope"}}}}
    }
    model, diagnostics = build(spec(paths))
    assert [(tool.name, tool.output_schema) for tool in model.tools] == [("kept", None)]
    assert [(d.level, d.pointer) for d in diagnostics] == [(Level.WARNING, "#/paths/~1a/get/responses/200")]


def test_an_external_ref_skips_the_operation_with_an_error_at_the_ref() -> None:
    paths = {
        "/a": {"get": op(operationId="bad", parameters=[{"$ref": "other.yaml#/components/parameters/P"}])}
    }
    assert skipped(paths) == [(Level.ERROR, "#/paths/~1a/get/parameters/0")]


def test_a_dangling_path_item_ref_skips_the_path_with_an_error_at_the_path_item() -> None:
    assert skipped({"/a": {"$ref": "#/components/pathItems/Nope"}}) == [(Level.ERROR, "#/paths/~1a")]


def test_a_query_part_of_a_path_key_becomes_fixed_query_pairs_and_a_fragment_is_dropped() -> None:
    model, diagnostics = build(
        spec({"/a?view=full&x=": {"get": op(operationId="q")}, "/#Action=Run": {"post": op(operationId="f")}})
    )
    assert [(t.name, t.path, t.fixed_query) for t in model.tools] == [
        ("q", "/a", (("view", "full"), ("x", ""))),
        ("f", "/", ()),
    ]
    assert [(d.level, d.pointer) for d in diagnostics] == [
        (Level.INFO, "#/paths/~1a?view=full&x=/get"),
        (Level.INFO, "#/paths/~1#Action=Run/post"),
    ]


def city(location: str, name: str = "city", **fields: Any) -> dict[str, Any]:
    return {"name": name, "in": location, "schema": {"type": "string"}, **fields}


def test_a_templated_query_pair_of_a_path_key_makes_its_path_parameter_that_query_parameter() -> None:
    key = "/air?units=si&city={city}&cc={country}"  # weatherbit.io's path keys, clicksend.com's...
    parameters = [city("path", required=True), city("path", "country", required=True), city("query", "lang")]
    model, diagnostics = build(spec({key: {"get": op(operationId="air", parameters=parameters)}}))
    (tool,) = model.tools
    assert (tool.path, tool.fixed_query, tool.templated_query) == ("/air", (("units", "si"),), ("city", "cc"))
    assert [(p.argument, p.name, p.location, p.required, p.style, p.explode) for p in tool.parameters] == [
        ("city", "city", "query", True, "form", True),
        ("cc", "cc", "query", True, "form", True),
        ("lang", "lang", "query", False, "form", True),
    ]
    assert tool.input_schema["required"] == ["city", "cc"]
    assert tool.description.endswith(f"HTTP: GET {key}")
    pointer = "#/paths/~1air?units=si&city={city}&cc={country}/get"
    assert [(d.level, d.pointer, d.message) for d in diagnostics] == [
        (Level.INFO, pointer, f"path key {key!r}: sends the fixed query 'units=si' with every call"),
        (
            Level.INFO,
            pointer,
            f"path key {key!r}: sends the query parameter(s) city (from {{city}}), cc (from {{country}})",
        ),
    ]


def test_a_templated_query_pair_may_name_a_query_parameter_and_prefers_a_path_one() -> None:
    declared_in_query = only_tool(spec({"/a?k={APIKEY}": {"get": op(parameters=[city("query", "APIKEY")])}}))
    assert [(p.argument, p.name, p.location, p.required) for p in declared_in_query.parameters] == [
        ("k", "k", "query", False)
    ]
    both = [city("query", "x", description="q"), city("path", "x", required=True, description="p")]
    model, diagnostics = build(spec({"/a?x={x}": {"get": op(operationId="a", parameters=both)}}))
    assert [(p.name, p.location, p.required) for p in model.tools[0].parameters] == [("x", "query", True)]
    assert model.tools[0].input_schema["properties"]["x"]["description"] == "p"  # the path one
    assert [(d.level, d.message) for d in diagnostics][1:] == [
        (Level.WARNING, "query parameter(s) ['x'] are also sent from the path key's templates; dropped")
    ]


def test_operations_told_apart_by_their_query_templates_are_distinct_tools() -> None:
    paths = {
        "/w?city={city}": {"get": op(operationId="byCity", parameters=[city("path", required=True)])},
        "/w?lat={lat}": {"get": op(operationId="byPoint", parameters=[city("path", "lat", required=True)])},
    }
    model, _ = build(spec(paths))
    assert [(t.name, t.path, t.templated_query) for t in model.tools] == [
        ("byCity", "/w", ("city",)),
        ("byPoint", "/w", ("lat",)),
    ]


@pytest.mark.parametrize(
    "key",
    [
        "/a?x={y}",  # {y} declared nowhere
        "/a?q=name:{name}",  # a template inside a value
        "/a?{name}=1",  # a template for a name
        "/a?x={name}&x={name}",  # the same query name twice
    ],
)
def test_a_query_template_that_cannot_be_sent_skips_the_operation(key: str) -> None:
    parameters = [city("path", "name", required=True)]
    pointer = "#/paths/" + key.replace("/", "~1")
    assert skipped({key: {"get": op(operationId="bad", parameters=parameters)}}) == [
        (Level.ERROR, f"{pointer}/get")
    ]


def test_operations_told_apart_only_by_a_fragment_get_distinct_names() -> None:
    model, _ = build(spec({"/#A": {"get": op()}, "/#B": {"get": op()}}))
    names = [tool.name for tool in model.tools]
    assert names == ["get_root_a", "get_root_b"]


def test_an_undeclared_path_template_parameter_skips_the_operation_with_an_error_at_the_operation() -> None:
    model, diagnostics = build(spec({"/a/{id}": {"get": op(operationId="bad")}, **GOOD}))
    assert [tool.name for tool in model.tools] == ["good"]
    assert [(d.level, d.pointer) for d in diagnostics] == [(Level.ERROR, "#/paths/~1a~1{id}/get")]
    assert "'id'" in diagnostics[0].message


def test_a_declared_path_parameter_missing_from_the_template_is_dropped_with_a_warning() -> None:
    document = spec(
        {
            "/a": {
                "get": op(
                    operationId="a",
                    parameters=[
                        {"name": "zz", "in": "path", "required": True, "schema": {"type": "string"}},
                    ],
                )
            }
        }
    )
    model, diagnostics = build(document)
    assert model.tools[0].parameters == ()
    assert model.tools[0].input_schema["properties"] == {}
    assert [(d.level, d.pointer) for d in diagnostics] == [(Level.WARNING, "#/paths/~1a/get")]


@pytest.mark.parametrize(
    ("operation", "pointer"),
    [
        ({"operationId": "bad"}, "#/paths/~1a/get/responses"),
        ({"operationId": "bad", "responses": "none"}, "#/paths/~1a/get/responses"),
        ({"operationId": 5, "responses": OK}, "#/paths/~1a/get/operationId"),
        ({"operationId": "bad", "tags": "pets", "responses": OK}, "#/paths/~1a/get/tags"),
        ({"operationId": "bad", "summary": ["x"], "responses": OK}, "#/paths/~1a/get/summary"),
    ],
    ids=[
        "no-responses",
        "responses-not-object",
        "operationId-not-string",
        "tags-not-list",
        "summary-not-string",
    ],
)
def test_an_operation_openapi_pydantic_rejects_is_skipped_with_an_error_at_the_invalid_place(
    operation: dict[str, Any], pointer: str
) -> None:
    assert skipped({"/a": {"get": operation}}) == [(Level.ERROR, pointer)]


def test_an_operation_that_is_not_an_object_is_skipped_with_an_error_at_the_operation() -> None:
    assert skipped({"/a": {"get": "nope"}}) == [(Level.ERROR, "#/paths/~1a/get")]


def test_the_pointer_of_an_invalid_operation_designates_a_node_that_exists_in_the_document() -> None:
    document = spec(
        {
            "/a": {
                "post": op(
                    operationId="bad",
                    requestBody={
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"n": {"type": "string", "minLength": "three"}},
                                },
                            }
                        }
                    },
                )
            },
            **GOOD,
        }
    )
    model, diagnostics = build(document)
    assert [tool.name for tool in model.tools] == ["good"]
    (diagnostic,) = diagnostics
    assert diagnostic.level is Level.ERROR
    assert diagnostic.pointer.startswith("#/paths/~1a/post")
    resolve_pointer(document, diagnostic.pointer)  # raises KeyError when the pointer leads nowhere


def test_a_valid_openapi_31_operation_with_boolean_subschemas_is_not_skipped() -> None:
    body = {"type": "object", "properties": {"anything": True, "list": {"type": "array", "items": True}}}
    document = spec(
        {
            "/a": {
                "post": op(operationId="a", requestBody={"content": {"application/json": {"schema": body}}})
            }
        },
        version="3.1.0",
    )
    model, diagnostics = build(document)
    assert [tool.name for tool in model.tools] == ["a"]
    assert [d for d in diagnostics if d.level is Level.ERROR] == []


def test_several_broken_operations_each_cost_only_themselves() -> None:
    document = spec(
        {
            "/a/{id}": {
                "get": op(operationId="noParam"),
                "post": op(
                    operationId="fine1",
                    parameters=[
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                    ],
                ),
            },
            "/b": {
                "get": op(operationId="badRef", parameters=[{"$ref": "#/nowhere"}]),
                "put": op(operationId="fine2"),
            },
            "/c?q={x}": {"get": op(operationId="badPath")},
            "/d": {"get": {"operationId": "noResponses"}},
        }
    )
    model, diagnostics = build(document)
    assert [tool.name for tool in model.tools] == ["fine1", "fine2"]
    assert sorted(d.pointer for d in diagnostics if d.level is Level.ERROR) == [
        "#/paths/~1a~1{id}/get",
        "#/paths/~1b/get/parameters/0",
        "#/paths/~1c?q={x}/get",
        "#/paths/~1d/get/responses",
    ]


def test_a_spec_without_paths_generates_no_tools_with_a_warning() -> None:
    document = spec({})
    del document["paths"]
    model, diagnostics = build(document)
    assert model.tools == ()
    assert [(d.level, d.pointer) for d in diagnostics] == [(Level.WARNING, "#/paths")]


# ---------------------------------------------------------------------------------------------
# outputSchema


def responding(responses: dict[str, Any]) -> Tool:
    return only_tool(spec({"/a": {"get": {"operationId": "g", "responses": responses}}}))


def json_response(schema: Any, media: str = "application/json") -> dict[str, Any]:
    return {"description": "x", "content": {media: {"schema": schema}}}


def test_an_object_success_response_is_the_output_schema_unwrapped() -> None:
    tool = responding({"200": json_response({"type": "object", "properties": {"id": {"type": "string"}}})})
    assert tool.output_schema is not None
    assert tool.output_schema["type"] == "object"
    assert list(tool.output_schema["properties"]) == ["id"]
    assert tool.output_wrapped is False


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "items": {"type": "string"}},
        {"type": "string"},
        {"type": "integer"},
        {"type": "boolean"},
        {"type": "string", "nullable": True},
    ],
    ids=["array", "string", "integer", "boolean", "nullable-string"],
)
def test_a_non_object_success_response_is_wrapped_as_result(schema: dict[str, Any]) -> None:
    tool = responding({"200": json_response(schema)})
    assert tool.output_schema is not None
    assert tool.output_schema["type"] == "object"
    assert list(tool.output_schema["properties"]) == ["result"]
    assert tool.output_wrapped is True


def test_the_wrapped_flag_reaches_the_route_in_tool_data() -> None:
    document = spec(
        {
            "/list": {
                "get": {
                    "operationId": "list",
                    "responses": {"200": json_response({"type": "array", "items": {}})},
                }
            },
            "/one": {"get": {"operationId": "one", "responses": {"200": json_response({"type": "object"})}}},
            "/none": {"get": {"operationId": "none", "responses": OK}},
        }
    )
    model, _ = build(document)
    routes = tool_data(model, GeneratorOptions("t", "T"), generator="g")["routes"]
    assert {name: (r["wrapped"], r["hasOutputSchema"]) for name, r in routes.items()} == {
        "list": (True, True),
        "one": (False, True),
        "none": (False, False),
    }


def test_the_output_schema_comes_from_the_lowest_2xx_code_with_a_json_schema() -> None:
    tool = responding(
        {
            "default": json_response({"type": "object", "properties": {"error": {"type": "string"}}}),
            "404": json_response({"type": "object", "properties": {"missing": {"type": "string"}}}),
            "202": json_response({"type": "object", "properties": {"later": {"type": "string"}}}),
            "201": json_response({"type": "object", "properties": {"created": {"type": "string"}}}),
        }
    )
    assert tool.output_schema is not None
    assert list(tool.output_schema["properties"]) == ["created"]


def test_a_non_json_first_success_response_defers_to_the_next_json_one() -> None:
    tool = responding(
        {
            "200": json_response({"type": "string"}, media="text/plain"),
            "201": json_response({"type": "object", "properties": {"id": {"type": "string"}}}),
        }
    )
    assert tool.output_schema is not None
    assert list(tool.output_schema["properties"]) == ["id"]


def test_a_vendor_json_media_type_counts_as_json() -> None:
    tool = responding(
        {"200": json_response({"type": "object", "properties": {"p": {}}}, "application/problem+json")}
    )
    assert tool.output_schema is not None
    assert list(tool.output_schema["properties"]) == ["p"]


@pytest.mark.parametrize(
    "responses",
    [
        {"200": json_response({"type": "string"}, media="text/plain")},
        {"200": json_response({"type": "string", "format": "binary"}, media="application/octet-stream")},
        {"204": {"description": "no content"}},
        {"default": json_response({"type": "object"}), "404": json_response({"type": "object"})},
        {"200": {"description": "json without schema", "content": {"application/json": {}}}},
    ],
    ids=["text", "binary", "no-content", "only-errors", "json-without-schema"],
)
def test_no_output_schema_without_a_json_success_response(responses: dict[str, Any]) -> None:
    tool = responding(responses)
    assert (tool.output_schema, tool.output_wrapped) == (None, False)


@pytest.mark.parametrize("item", ["nope", None, ["get"]], ids=["string", "null", "list"])
def test_a_path_item_that_is_not_an_object_is_skipped_with_an_error_at_the_path_item(item: Any) -> None:
    assert skipped({"/a": item}) == [(Level.ERROR, "#/paths/~1a")]


def test_an_operation_too_deep_to_convert_is_skipped_with_an_error_and_the_rest_generated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_build_inputs = mapper.build_inputs

    def build_inputs(ref: OperationRef, *args: Any) -> Any:
        if ref.path == "/deep":  # what a schema nested past Python's recursion limit does
            raise RecursionError("maximum recursion depth exceeded")
        return real_build_inputs(ref, *args)

    monkeypatch.setattr(mapper, "build_inputs", build_inputs)
    model, diagnostics = build(spec({"/deep": {"post": op(operationId="deep")}, **GOOD}))
    assert [tool.name for tool in model.tools] == ["good"]
    assert [(d.level, d.pointer, d.message) for d in diagnostics] == [
        (Level.ERROR, "#/paths/~1deep/post", "a schema is nested too deeply to convert; operation skipped")
    ]
