"""OpenAPI Overlay documents (issue 5): update merges, array appends, removes, recursive descent and
filters, the no-match warning, bad documents, and the overlay step of the pipeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.load.overlay import OverlayError, apply_actions, apply_overlays, read_overlay
from openapi2mcp.load.source import LoadError
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import generate

OK = {"200": {"description": "ok"}}


def spec() -> dict[str, Any]:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Zoo", "version": "1"},
        "servers": [{"url": "https://zoo.example.com"}],
        "tags": [{"name": "pets"}],
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "parameters": [
                        {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                        {"name": "debug", "in": "query", "schema": {"type": "boolean"}},
                    ],
                    "responses": OK,
                },
                "post": {"operationId": "addPet", "x-internal": True, "responses": OK},
            },
            "/admin": {"delete": {"operationId": "wipe", "x-internal": True, "responses": OK}},
        },
    }


def overlay(*actions: dict[str, Any]) -> dict[str, Any]:
    return {"overlay": "1.0.0", "info": {"title": "t", "version": "1"}, "actions": list(actions)}


def apply(document: Any, *actions: dict[str, Any]) -> tuple[Any, list[tuple[Level, str, str]]]:
    diagnostics = Diagnostics()
    result = apply_actions(document, read_overlay(overlay(*actions), "o.yaml"), diagnostics)
    return result, [(d.level, d.pointer, d.message) for d in diagnostics]


# ---------------------------------------------------------------------------------------------
# update


def test_an_update_on_an_object_merges_recursively_replacing_primitives_and_adding_new_keys() -> None:
    document = {"info": {"title": "Old", "version": "1", "contact": {"name": "a", "url": "u"}}}
    result, diagnostics = apply(
        document,
        {"target": "$.info", "update": {"title": "New", "contact": {"name": "b"}, "x-new": {"k": 1}}},
    )
    assert result == {
        "info": {"title": "New", "version": "1", "contact": {"name": "b", "url": "u"}, "x-new": {"k": 1}}
    }
    assert diagnostics == []


def test_an_array_inside_a_merged_object_is_concatenated() -> None:
    result, _ = apply({"a": {"tags": ["x"]}}, {"target": "$.a", "update": {"tags": ["y", "z"]}})
    assert result == {"a": {"tags": ["x", "y", "z"]}}


def test_a_value_of_another_kind_in_the_update_replaces_the_targets_value() -> None:
    document = {"a": {"list": [1], "obj": {"k": 1}, "text": "t", "none": None}}
    update = {"list": {"k": 2}, "obj": [3], "text": {"k": 4}, "none": {"k": 5}}
    result, _ = apply(document, {"target": "$.a", "update": update})
    assert result == {"a": update}


def test_an_update_on_the_root_merges_into_the_document() -> None:
    result, _ = apply({"info": {"title": "a"}}, {"target": "$", "update": {"info": {"x-a": 1}, "x-b": 2}})
    assert result == {"info": {"title": "a", "x-a": 1}, "x-b": 2}


def test_an_update_on_an_array_appends_the_value() -> None:
    result, _ = apply({"tags": [{"name": "a"}]}, {"target": "$.tags", "update": {"name": "b"}})
    assert result == {"tags": [{"name": "a"}, {"name": "b"}]}


def test_an_array_update_on_an_array_appends_each_of_its_items() -> None:
    result, _ = apply(
        {"tags": [{"name": "a"}]}, {"target": "$.tags", "update": [{"name": "b"}, {"name": "c"}]}
    )
    assert result == {"tags": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}


def test_an_update_on_a_primitive_replaces_it_with_a_primitive() -> None:
    result, _ = apply({"info": {"title": "a"}, "list": [1, 2]}, {"target": "$..[?@ == 2]", "update": 3})
    assert result == {"info": {"title": "a"}, "list": [1, 3]}
    result, _ = apply({"info": {"title": "a"}}, {"target": "$.info.title", "update": "b"})
    assert result == {"info": {"title": "b"}}


@pytest.mark.parametrize(
    ("document", "target", "update", "problem"),
    [
        ({"a": {}}, "$.a", "text", "`update` is a str value but the target $['a'] is an object"),
        ({"a": {}}, "$.a", None, "`update` is null but the target $['a'] is an object"),
        ({"a": "t"}, "$.a", {"k": 1}, "`update` is an object but the target $['a'] is a str value"),
        ({"a": 1}, "$.a", [1], "`update` is an array but the target $['a'] is a int value"),
    ],
)
def test_an_update_that_does_not_fit_its_target_is_an_overlay_error(
    document: Any, target: str, update: Any, problem: str
) -> None:
    with pytest.raises(OverlayError) as caught:
        apply(document, {"target": target, "update": update})
    assert str(caught.value) == (
        f"o.yaml#/actions/0: {problem} (an object merges into an object, anything is appended to an array,"
        " a primitive replaces a primitive)"
    )


def test_every_node_a_target_selects_is_updated_with_its_own_copy() -> None:
    result, _ = apply(
        spec(), {"target": "$.paths.*.*", "update": {"x-mcp": {"annotations": {"openWorldHint": False}}}}
    )
    operations = [operation for item in result["paths"].values() for operation in item.values()]
    assert [operation["x-mcp"] for operation in operations] == [{"annotations": {"openWorldHint": False}}] * 3
    operations[0]["x-mcp"]["annotations"]["openWorldHint"] = True
    assert operations[1]["x-mcp"] == {"annotations": {"openWorldHint": False}}


def test_a_union_that_names_a_node_twice_updates_it_once() -> None:
    result, _ = apply({"a": {"l": [1]}}, {"target": "$['a','a'].l", "update": 2})
    assert result == {"a": {"l": [1, 2]}}


# ---------------------------------------------------------------------------------------------
# remove


def test_remove_deletes_an_object_member() -> None:
    result, _ = apply(spec(), {"target": "$.paths['/admin']", "remove": True})
    assert list(result["paths"]) == ["/pets"]


def test_remove_with_a_filter_deletes_the_matching_array_items() -> None:
    document = {"p": [{"n": "a"}, {"n": "x"}, {"n": "b"}, {"n": "x"}, {"n": "x"}]}
    result, _ = apply(document, {"target": "$.p[?@.n == 'x']", "remove": True})
    assert result == {"p": [{"n": "a"}, {"n": "b"}]}


def test_remove_takes_precedence_over_update() -> None:
    result, _ = apply({"a": {"b": 1}, "c": 2}, {"target": "$.a", "remove": True, "update": {"b": 2}})
    assert result == {"c": 2}


def test_actions_apply_in_order_each_to_the_result_of_the_previous_one() -> None:
    result, diagnostics = apply(
        {"servers": [{"url": "https://a"}, {"url": "https://b"}]},
        {"target": "$.servers", "remove": True},
        {"target": "$", "update": {"servers": [{"url": "https://mine"}]}},
        {"target": "$.servers[0]", "update": {"description": "ours"}},
    )
    assert result == {"servers": [{"url": "https://mine", "description": "ours"}]}
    assert diagnostics == []


def test_recursive_descent_removes_a_member_at_every_level() -> None:
    result, _ = apply(spec(), {"target": "$..x-internal", "remove": True})
    expected = spec()
    del expected["paths"]["/pets"]["post"]["x-internal"]
    del expected["paths"]["/admin"]["delete"]["x-internal"]
    assert result == expected


def test_recursive_descent_with_a_filter_removes_operations_marked_internal() -> None:
    result, _ = apply(spec(), {"target": "$.paths.*[?@.x-internal == true]", "remove": True})
    assert result["paths"] == {"/pets": {"get": spec()["paths"]["/pets"]["get"]}, "/admin": {}}


def test_a_parenthesized_filter_selects_parameters_by_name_and_location() -> None:
    result, _ = apply(
        spec(), {"target": "$.paths..parameters[?(@.name == 'debug' && @.in == 'query')]", "remove": True}
    )
    assert [p["name"] for p in result["paths"]["/pets"]["get"]["parameters"]] == ["limit"]


# ---------------------------------------------------------------------------------------------
# No match, bad documents


def test_a_target_that_selects_nothing_is_a_warning_at_the_action_and_changes_nothing() -> None:
    result, diagnostics = apply(
        spec(),
        {"target": "$.paths['/nope']", "remove": True},
        {"target": "$.tags[?@.name == 'pets']", "update": {"description": "Pets"}},
        {"target": "$.paths.*.get[?@.name == 'x']", "update": {"k": 1}},
    )
    expected = spec()
    expected["tags"][0]["description"] = "Pets"
    assert result == expected
    assert diagnostics == [
        (
            Level.WARNING,
            "o.yaml#/actions/0",
            "target \"$.paths['/nope']\" selects nothing; the action changed nothing",
        ),
        (
            Level.WARNING,
            "o.yaml#/actions/2",
            "target \"$.paths.*.get[?@.name == 'x']\" selects nothing; the action changed nothing",
        ),
    ]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([1], "o.yaml: not an Overlay document (the top level is not a mapping)"),
        ({"openapi": "3.0.0"}, "o.yaml: not an Overlay document (no `overlay: 1.0.0` version field)"),
        (
            {"overlay": 1.0, "actions": []},
            "o.yaml: not an Overlay document (no `overlay: 1.0.0` version field)",
        ),
        ({"overlay": "2.0.0"}, "o.yaml: Overlay 2.0.0 is not supported (1.0.x and 1.1.x are)"),
        ({"overlay": "1.0.0"}, "o.yaml: `actions` must be a non-empty list of actions"),
        ({"overlay": "1.0.0", "actions": []}, "o.yaml: `actions` must be a non-empty list of actions"),
        (
            {"overlay": "1.0.0", "actions": {"target": "$"}},
            "o.yaml: `actions` must be a non-empty list of actions",
        ),
    ],
)
def test_a_document_that_is_not_an_overlay_is_an_overlay_error(document: Any, message: str) -> None:
    with pytest.raises(OverlayError) as caught:
        read_overlay(document, "o.yaml")
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("action", "problem"),
    [
        ("$.a", "an action must be a mapping with `target` and `update` or `remove`"),
        ({"update": {}}, "`target` must be a JSONPath string such as \"$.paths['/pets']\""),
        ({"target": 1, "remove": True}, "`target` must be a JSONPath string such as \"$.paths['/pets']\""),
        ({"target": "$.a b", "remove": True}, "target '$.a b': unexpected token 'b' at position 4"),
        ({"target": "$.a"}, "the action has neither `update` nor `remove: true`"),
        ({"target": "$.a", "remove": False}, "the action has neither `update` nor `remove: true`"),
        ({"target": "$.a", "remove": "yes"}, "`remove` must be true or false, not 'yes'"),
        ({"target": "$", "remove": True}, "`remove` cannot remove the root `$`"),
        ({"target": "$.a", "copy": "$.b"}, "`copy` (Overlay 1.1) is not supported; use `update`"),
        ({"target": "$.a", "updates": {}}, "unknown field 'updates' (an action has target, update, remove)"),
    ],
)
def test_an_invalid_action_is_an_overlay_error_naming_it(action: Any, problem: str) -> None:
    valid = {"target": "$.x", "description": "fine", "x-note": 1, "update": {}}
    with pytest.raises(OverlayError) as caught:
        read_overlay(overlay(valid, action), "o.yaml")
    assert str(caught.value) == f"o.yaml#/actions/1: {problem}"


def test_versions_1_0_and_1_1_are_read() -> None:
    for version in ("1.0.0", "1.0.3", "1.1.0"):
        (action,) = read_overlay({"overlay": version, "actions": [{"target": "$.a", "update": {}}]}, "o.yaml")
        assert (action.where, action.target.text, action.update, action.remove) == (
            "o.yaml#/actions/0",
            "$.a",
            {},
            False,
        )


def test_overlay_error_is_a_load_error() -> None:
    assert issubclass(OverlayError, LoadError)


# ---------------------------------------------------------------------------------------------
# Files and the pipeline


def write(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_overlays_are_read_from_files_and_applied_in_order_to_a_copy(tmp_path: Path) -> None:
    first = write(tmp_path / "first.json", overlay({"target": "$.info", "update": {"title": "First"}}))
    (tmp_path / "second.yaml").write_text(
        "overlay: 1.0.0\ninfo: {title: t, version: '1'}\n"
        "actions:\n  - target: $.info\n    update:\n      title: Second\n      x-was: yes\n",
        encoding="utf-8",
    )
    document = spec()
    diagnostics = Diagnostics()
    result = apply_overlays(document, [first, str(tmp_path / "second.yaml")], diagnostics)
    assert result["info"] == {"title": "Second", "version": "1", "x-was": "yes"}
    assert document == spec()
    assert list(diagnostics) == []


def test_without_overlays_the_document_is_returned_as_it_is() -> None:
    document = spec()
    assert apply_overlays(document, [], Diagnostics()) is document


def test_an_unreadable_overlay_file_is_an_overlay_error_naming_it(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.yaml")
    with pytest.raises(OverlayError) as caught:
        apply_overlays(spec(), [missing], Diagnostics())
    assert str(caught.value) == f"overlay {missing}: cannot read the file: No such file or directory"
    broken = tmp_path / "broken.json"
    broken.write_text('{"overlay": ', encoding="utf-8")
    with pytest.raises(OverlayError, match=r"^overlay .*broken\.json:1:13: invalid JSON: Expecting value$"):
        apply_overlays(spec(), [str(broken)], Diagnostics())


def test_generate_applies_the_overlays_before_mapping(tmp_path: Path) -> None:
    source = write(tmp_path / "zoo.json", spec())
    changes = write(
        tmp_path / "mcp.json",
        overlay(
            {"target": "$.paths.*[?@.x-internal == true]", "update": {"x-mcp": False}},
            {"target": "$.paths['/pets'].get", "update": {"x-mcp": {"name": "find_pets"}}},
            {"target": "$.paths['/gone']", "remove": True},
        ),
    )
    generation = generate(source, GeneratorOptions("zoo", "ZOO", overlays=(changes,)))
    assert [tool.name for tool in generation.model.tools] == ["find_pets"]
    assert [(d.level, d.pointer) for d in generation.diagnostics] == [
        (Level.WARNING, f"{changes}#/actions/2"),
        (Level.INFO, "#/paths/~1pets/post"),
        (Level.INFO, "#/paths/~1admin/delete"),
    ]
    assert generation.document["paths"]["/pets"]["post"]["x-mcp"] is False


def test_an_overlay_applies_to_the_root_document_before_other_files_are_bundled(tmp_path: Path) -> None:
    (tmp_path / "limit.json").write_text(
        json.dumps({"name": "size", "in": "query", "schema": {"type": "integer"}})
    )
    source = write(tmp_path / "zoo.json", spec())
    changes = write(
        tmp_path / "o.json",
        overlay({"target": "$.paths['/pets'].get.parameters", "update": {"$ref": "limit.json"}}),
    )
    generation = generate(source, GeneratorOptions("zoo", "ZOO", overlays=(changes,)))
    tool = generation.model.tools[0]
    assert [parameter.name for parameter in tool.parameters] == ["limit", "debug", "size"]


def test_an_overlay_targets_a_swagger_2_spec_as_written(tmp_path: Path) -> None:
    swagger = {
        "swagger": "2.0",
        "info": {"title": "S", "version": "1"},
        "host": "api.example.com",
        "paths": {"/a": {"get": {"operationId": "getA", "responses": OK}}},
        "definitions": {},
    }
    source = write(tmp_path / "s.json", swagger)
    changes = write(tmp_path / "o.json", overlay({"target": "$", "update": {"host": "eu.example.com"}}))
    generation = generate(source, GeneratorOptions("s", "S", overlays=(changes,)))
    assert generation.model.default_base_url == "https://eu.example.com"


def test_a_bad_overlay_fails_generate_with_a_load_error(tmp_path: Path) -> None:
    source = write(tmp_path / "zoo.json", spec())
    changes = write(tmp_path / "o.json", overlay({"target": "$.info", "update": "x"}))
    with pytest.raises(
        LoadError, match=r"^.*o\.json#/actions/0: `update` is a str value but the target \$\['info'\]"
    ):
        generate(source, GeneratorOptions("zoo", "ZOO", overlays=(changes,)))


def test_applying_does_not_share_the_update_value_with_the_overlay_document() -> None:
    actions = read_overlay(overlay({"target": "$", "update": {"x": {"k": [1]}}}), "o.yaml")
    first = apply_actions({}, actions, Diagnostics())
    first["x"]["k"].append(2)
    assert apply_actions({}, actions, Diagnostics()) == {"x": {"k": [1]}}
    assert actions[0].update == {"x": {"k": [1]}}
