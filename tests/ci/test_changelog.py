"""The tool changelog (`openapi2mcp.ci.changelog`): each classification on hand-written wire tools."""

from __future__ import annotations

from typing import Any

import pytest

from openapi2mcp.ci.changelog import Change, Changelog, ToolChange, ToolSet, compare

Row = tuple[str, str, str, bool]  # side, path, text, breaking

HINTS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": True}


def wire(
    name: str, properties: dict[str, Any] | None = None, required: tuple[str, ...] = (), **extra: Any
) -> dict[str, Any]:
    """A wire tool whose inputSchema has these arguments (closed, as the generator makes them)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties or {}, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    tool = {
        "name": name,
        "title": f"Title {name}",
        "description": f"About {name}",
        "inputSchema": schema,
        "annotations": {"title": f"Title {name}", **HINTS},
    }
    return tool | extra


def rows(old: dict[str, Any], new: dict[str, Any]) -> list[Row]:
    """The changes of one tool from `old` to `new` (the same name)."""
    changelog = compare(ToolSet((old,)), ToolSet((new,)))
    if not changelog.tools:
        return []
    (entry,) = changelog.tools
    assert (entry.kind, entry.name) == ("changed", new["name"])
    return [(change.side, change.path, change.text, change.breaking) for change in entry.changes]


def arg_rows(
    old: dict[str, Any],
    new: dict[str, Any],
    old_required: tuple[str, ...] = (),
    new_required: tuple[str, ...] = (),
) -> list[Row]:
    """The changes between two versions of the arguments (property name → schema) of one tool."""
    return rows(wire("t", old, old_required), wire("t", new, new_required))


def test_identical_tools_are_no_change() -> None:
    tool = wire("t", {"a": {"type": "string"}}, ("a",), outputSchema={"type": "object"})
    changelog = compare(ToolSet((tool,)), ToolSet((dict(tool),)))
    assert changelog == Changelog(())
    assert changelog.summary() == "no tool changes"
    assert changelog.breaking_count == 0


def test_arguments_removed_added_and_required_changes() -> None:
    old = {"gone": {"type": "string"}, "opt": {"type": "string"}, "req": {"type": "string"}}
    new = {
        "req": {"type": "string"},
        "opt": {"type": "string"},
        "must": {"type": "string"},
        "may": {"type": "string"},
    }
    assert arg_rows(old, new, ("req",), ("opt", "must")) == [
        ("input", "req", "now optional", False),
        ("input", "opt", "now required", True),
        ("input", "must", "added (required)", True),
        ("input", "may", "added (optional)", False),
        ("input", "gone", "removed", True),
    ]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ({"type": "string"}, {"type": "integer"}, ("type changed: string -> integer", True)),
        ({"type": "number"}, {"type": "integer"}, ("type narrowed: number -> integer", True)),
        ({"type": "integer"}, {"type": "number"}, ("type widened: integer -> number", False)),
        ({"type": ["string", "null"]}, {"type": "string"}, ("type narrowed: null|string -> string", True)),
        ({}, {"type": "string"}, ("type narrowed: any -> string", True)),
        ({"type": "string"}, {}, ("type widened: string -> any", False)),
        (
            {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            {"anyOf": [{"type": "string"}]},
            ("type narrowed: integer|string -> string", True),
        ),
        (
            {"type": "string"},
            {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
            ("type widened: string -> boolean|string", False),
        ),
        (
            {"type": "string", "enum": ["a", "b"]},
            {"type": "string", "enum": ["a"]},
            ('enum values removed: "b"', True),
        ),
        ({"enum": ["a"]}, {"enum": ["a", "b", None]}, ('enum values added: "b", null', False)),
        ({"const": 1}, {"enum": [1, 2]}, ("enum values added: 2", False)),
        ({"type": "string"}, {"type": "string", "enum": ["a"]}, ('enum added: "a"', True)),
        ({"type": "string", "enum": ["a"]}, {"type": "string"}, ('enum removed (was "a")', False)),
        ({"minimum": 1}, {"minimum": 2}, ("minimum raised: 1 -> 2", True)),
        ({"minimum": 2}, {"minimum": 1.5}, ("minimum lowered: 2 -> 1.5", False)),
        ({"maximum": 100}, {"maximum": 50}, ("maximum lowered: 100 -> 50", True)),
        ({"maximum": 50}, {"maximum": 100}, ("maximum raised: 50 -> 100", False)),
        ({"exclusiveMaximum": 5}, {}, ("exclusiveMaximum removed (was 5)", False)),
        ({}, {"exclusiveMinimum": 0}, ("exclusiveMinimum added: 0", True)),
        ({"maxLength": 64}, {"maxLength": 32}, ("maxLength lowered: 64 -> 32", True)),
        ({"minLength": 1}, {"minLength": 3}, ("minLength raised: 1 -> 3", True)),
        ({"minLength": 3}, {"minLength": 1}, ("minLength lowered: 3 -> 1", False)),
        ({"maxItems": 3}, {"maxItems": 5}, ("maxItems raised: 3 -> 5", False)),
        ({}, {"minItems": 1}, ("minItems added: 1", True)),
        ({}, {"pattern": "^[a-z]+$"}, ('pattern added: "^[a-z]+$"', True)),
        ({"pattern": "^a"}, {"pattern": "^b"}, ('pattern changed: "^a" -> "^b"', True)),
        ({"pattern": "^a"}, {}, ('pattern removed (was "^a")', False)),
        ({"description": "one"}, {"description": "two"}, ("description changed", False)),
        ({"default": 20}, {"default": 10}, ("default: 20 -> 10", False)),
        ({}, {"format": "date"}, ('format: none -> "date"', False)),
    ],
)
def test_one_argument_keyword(old: dict[str, Any], new: dict[str, Any], expected: tuple[str, bool]) -> None:
    assert arg_rows({"a": old}, {"a": new}) == [("input", "a", *expected)]


def test_enum_values_both_removed_and_added() -> None:
    assert arg_rows({"a": {"enum": ["x", "y"]}}, {"a": {"enum": ["y", "z"]}}) == [
        ("input", "a", 'enum values removed: "x"', True),
        ("input", "a", 'enum values added: "z"', False),
    ]


def test_enum_gaining_null_without_type_reports_the_values_only() -> None:
    assert arg_rows({"a": {"type": "string", "enum": ["x"]}}, {"a": {"enum": ["x", None]}}) == [
        ("input", "a", "enum values added: null", False),
    ]


def test_an_enum_replacing_a_type_reports_both() -> None:
    assert arg_rows({"a": {"type": "string"}}, {"a": {"enum": ["x", None]}}) == [
        ("input", "a", "type widened: string -> null|string", False),
        ("input", "a", 'enum added: "x", null', True),
    ]


def test_nested_properties_by_path() -> None:
    old = {
        "body": {
            "type": "object",
            "properties": {
                "address": {
                    "type": "object",
                    "properties": {"zip": {"type": "string"}, "city": {"type": "string"}},
                },
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            },
        }
    }
    new = {
        "body": {
            "type": "object",
            "properties": {
                "address": {
                    "type": "object",
                    "properties": {"zip": {"type": "integer"}, "street": {"type": "string"}},
                    "required": ["street"],
                    "additionalProperties": False,
                },
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a"]}},
            },
        }
    }
    assert arg_rows(old, new) == [
        ("input", "body.address.zip", "type changed: string -> integer", True),
        ("input", "body.address.street", "added (required)", True),
        ("input", "body.address.city", "removed", True),
        ("input", "body.address", "additionalProperties closed", True),
        ("input", "body.tags[]", 'enum values removed: "b"', True),
    ]


def test_opening_additional_properties_is_not_breaking() -> None:
    old = {"o": {"type": "object", "properties": {}, "additionalProperties": False}}
    assert arg_rows(old, {"o": {"type": "object", "properties": {}}}) == [
        ("input", "o", "additionalProperties opened", False)
    ]


def test_the_root_input_schema_opening() -> None:
    old = wire("t", {"a": {"type": "string"}})
    new = wire(
        "t",
        {"a": {"type": "string"}},
        inputSchema={"type": "object", "properties": {"a": {"type": "string"}}},
    )
    assert rows(old, new) == [("input", "", "additionalProperties opened", False)]


def test_nullable_objects_and_arrays_are_compared_inside() -> None:
    def nullable(schema: dict[str, Any]) -> dict[str, Any]:
        return {"anyOf": [schema, {"type": "null"}]}

    old = {
        "o": nullable(
            {"type": "object", "properties": {"n": nullable({"type": "array", "items": {"type": "integer"}})}}
        )
    }
    new = {
        "o": nullable(
            {"type": "object", "properties": {"n": nullable({"type": "array", "items": {"type": "string"}})}}
        )
    }
    assert arg_rows(old, new) == [("input", "o.n[]", "type changed: integer -> string", True)]


def test_local_defs_references_are_followed_and_cycles_stop() -> None:
    def tree(leaf: str) -> dict[str, Any]:
        node = {
            "type": "object",
            "properties": {
                "leaf": {"type": leaf},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
        }
        return {
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node", "description": "top"}},
            "$defs": {"Node": node},
        }

    old, new = wire("t"), wire("t")
    old["inputSchema"], new["inputSchema"] = tree("string"), tree("integer")
    assert rows(old, new) == [
        ("input", "root.leaf", "type changed: string -> integer", True),
        # root.children[] is Node again: not compared a second time
    ]


def test_output_schema_changes_break_consumers_when_they_widen() -> None:
    old_output = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "name": {"type": "string"},
            "age": {"type": "integer"},
            "kind": {"type": "string"},
            "gone": {"type": "string"},
            "size": {"type": ["integer", "null"]},
        },
        "required": ["id", "name"],
    }
    new_output = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "name": {"type": "string"},
            "age": {"type": ["integer", "null"]},
            "kind": {"type": "integer"},
            "size": {"type": "integer", "description": "new words"},
            "extra": {"type": "string"},
        },
        "required": ["id", "extra"],
    }
    old, new = wire("t", outputSchema=old_output), wire("t", outputSchema=new_output)
    assert rows(old, new) == [
        ("output", "name", "now optional", True),
        ("output", "age", "type widened: integer -> integer|null", True),
        ("output", "kind", "type changed: string -> integer", True),
        ("output", "size", "type narrowed: integer|null -> integer", False),
        ("output", "extra", "added (required)", False),
        ("output", "gone", "removed", True),
    ]


def test_output_schema_removed_and_added() -> None:
    with_output = wire("t", outputSchema={"type": "object"})
    assert rows(with_output, wire("t")) == [("output", "", "removed: results are no longer structured", True)]
    assert rows(wire("t"), with_output) == [("output", "", "added", False)]


def test_tool_level_title_annotations_and_description() -> None:
    old = wire("t")
    new = wire(
        "t",
        title="New title",
        description="Other words",
        annotations={"title": "New title", **HINTS, "readOnlyHint": False, "destructiveHint": True},
    )
    assert rows(old, new) == [
        ("tool", "", 'title: "Title t" -> "New title"', False),
        ("tool", "", "annotation readOnlyHint: true -> false", False),
        ("tool", "", "annotation destructiveHint: false -> true", False),
        ("tool", "", "description changed", False),
    ]


def test_an_annotation_title_of_its_own_is_reported() -> None:
    new = wire("t", annotations={"title": "Other", **HINTS})
    assert rows(wire("t"), new) == [("tool", "", 'annotation title: "Title t" -> "Other"', False)]


def test_added_removed_renamed_in_order() -> None:
    old = ToolSet(
        (wire("keep"), wire("gone1"), wire("oldName", {"a": {"type": "string"}}), wire("gone2")),
        {"keep": "GET /k", "gone1": "GET /g1", "oldName": "POST /r", "gone2": "DELETE /g2"},
    )
    new = ToolSet(
        (wire("fresh"), wire("newName", {"a": {"type": "integer"}}), wire("keep", description="changed")),
        {"fresh": "PUT /f", "newName": "POST /r", "keep": "GET /k"},
    )
    changelog = compare(old, new)
    assert changelog.tools == (
        ToolChange("added", "fresh"),
        ToolChange(
            "renamed",
            "newName",
            "oldName",
            (
                Change("tool", "", 'title: "Title oldName" -> "Title newName"', False),
                Change("tool", "", "description changed", False),
                Change("input", "a", "type changed: string -> integer", True),
            ),
        ),
        ToolChange("changed", "keep", None, (Change("tool", "", "description changed", False),)),
        ToolChange("removed", "gone1"),
        ToolChange("removed", "gone2"),
    )
    assert changelog.summary() == "1 tool added, 2 removed, 1 renamed, 1 changed (4 breaking changes)"
    assert [tool.breaking_count for tool in changelog.tools] == [0, 2, 0, 1, 1]


def test_without_routes_a_rename_is_a_removal_and_an_addition() -> None:
    changelog = compare(ToolSet((wire("a"),)), ToolSet((wire("b"),)))
    assert changelog.tools == (ToolChange("added", "b"), ToolChange("removed", "a"))


def test_a_changed_route_of_the_same_tool() -> None:
    changelog = compare(ToolSet((wire("t"),), {"t": "GET /a"}), ToolSet((wire("t"),), {"t": "GET /b"}))
    assert changelog.tools == (
        ToolChange("changed", "t", None, (Change("tool", "", "route: GET /a -> GET /b", False),)),
    )


@pytest.mark.parametrize(
    ("kinds", "summary"),
    [
        (["added"], "1 tool added"),
        (["added", "added", "removed"], "2 tools added, 1 removed (1 breaking change)"),
        (["removed", "removed"], "2 tools removed (2 breaking changes)"),
        (["changed"], "1 tool changed"),
    ],
)
def test_summary(kinds: list[str], summary: str) -> None:
    tools = tuple(ToolChange(kind, f"t{index}") for index, kind in enumerate(kinds))  # type: ignore[arg-type]
    assert Changelog(tools).summary() == summary


def test_tools_are_paired_by_route_first_so_a_name_taken_by_another_route_is_a_rename() -> None:
    old = ToolSet((wire("get_build"),), {"get_build": "GET /build/{p}"})
    new = ToolSet(
        (wire("get_build"), wire("get_build_by_p")),
        {"get_build": "GET /build", "get_build_by_p": "GET /build/{p}"},
    )
    assert compare(old, new).tools == (
        ToolChange("added", "get_build"),
        ToolChange(
            "renamed",
            "get_build_by_p",
            "get_build",
            (
                Change("tool", "", 'title: "Title get_build" -> "Title get_build_by_p"', False),
                Change("tool", "", "description changed", False),
            ),
        ),
    )


def test_tools_sharing_a_route_are_paired_by_name() -> None:
    """AWS's `/#Action=AssumeRole` and `/#Action=GetSessionToken` are both `GET /`: the route names
    neither tool, so an unchanged API is no change and a renamed tool a removal and an addition."""
    routes = {"assume_role": "GET /", "get_session_token": "GET /", "list_roles": "GET /roles"}
    tools = (wire("get_session_token"), wire("assume_role"), wire("list_roles"))
    assert compare(ToolSet(tools, routes), ToolSet(tools[::-1], routes)).tools == ()
    renamed = {"assume_role_v2": "GET /", "get_session_token": "GET /", "roles": "GET /roles"}
    new = ToolSet((wire("get_session_token"), wire("assume_role_v2"), wire("roles")), renamed)
    assert [(tool.kind, tool.name, tool.old_name) for tool in compare(ToolSet(tools, routes), new).tools] == [
        ("added", "assume_role_v2", None),
        ("renamed", "roles", "list_roles"),
        ("removed", "assume_role", None),
    ]


def test_an_argument_whose_place_on_the_wire_keeps_is_renamed_not_removed_and_added() -> None:
    """Kubernetes' query `dryRun` beside DeleteOptions' `dryRun`: `dryRun_query` became `dryRun`."""
    string = {"type": "string"}
    old = ToolSet(
        (wire("t", {"dryRun_query": string, "dryRun_body": string}, ("dryRun_query",)),),
        {"t": "DELETE /a"},
        {"t": {"dryRun_query": "query dryRun", "dryRun_body": "body dryRun"}},
    )
    new = ToolSet(
        (wire("t", {"dryRun": string, "dryRun_body": string}, ("dryRun",)),),
        {"t": "DELETE /a"},
        {"t": {"dryRun": "query dryRun", "dryRun_body": "body dryRun"}},
    )
    assert compare(old, new).tools == (
        ToolChange("changed", "t", None, (Change("input", "dryRun", "renamed from dryRun_query", True),)),
    )


def test_arguments_that_swap_places_are_not_taken_for_renames() -> None:
    string = {"type": "string"}
    old = ToolSet(
        (wire("t", {"a": string, "b": string}),), {"t": "GET /a"}, {"t": {"a": "query x", "b": "query y"}}
    )
    new = ToolSet(
        (wire("t", {"a": string, "b": string}),), {"t": "GET /a"}, {"t": {"a": "query y", "b": "query x"}}
    )
    assert compare(old, new).tools == ()
