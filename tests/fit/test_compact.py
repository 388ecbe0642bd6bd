"""compact.py: the forms of a schema under each plan, and their sizes measured without building them."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from openapi2mcp.fit.compact import AS_IS, PLANS, Shrinker, shorten
from openapi2mcp.fit.sizes import Ladder, Sizer
from openapi2mcp.schemas.converter import schema_size

LONG = "First sentence here. " + "x" * 300
RICH: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "The name. More text.", "examples": ["Ünïcode ✓"]},
        "spec": {
            "type": "object",
            "description": LONG,
            "properties": {
                "tags": {
                    "type": "array",
                    "description": "Tags.\n\nSecond paragraph.",
                    "items": {"type": "string", "enum": ["a", "b"], "description": "One tag."},
                },
                "deep": {
                    "anyOf": [
                        {
                            "type": "object",
                            "properties": {"x": {"type": "integer", "description": "X."}},
                            "additionalProperties": False,
                        },
                        {"type": "null"},
                    ],
                    "description": "Deep.",
                },
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"$ref": "#/$defs/Thing"}]},
            },
            "required": ["tags"],
        },
    },
    "required": ["name"],
    "additionalProperties": False,
    "$defs": {
        "Thing": {"type": "object", "description": "A thing.", "properties": {"id": {"type": "string"}}}
    },
}


def index_of(what: str) -> int:
    return next(index for index, plan in enumerate(PLANS) if plan.what == what)


@pytest.mark.parametrize("index", range(len(PLANS)))
def test_the_sizer_gives_exactly_the_size_of_each_built_form(index: int) -> None:
    assert Sizer().root(RICH)[index] == schema_size(Shrinker().root(RICH, index))


def test_sizes_shrink_from_plan_to_plan() -> None:
    sizes = Sizer().root(RICH)
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[AS_IS] == schema_size(RICH)


def test_no_plan_changes_the_schema_it_is_given() -> None:
    before = copy.deepcopy(RICH)
    shrinker = Shrinker()
    for index in range(len(PLANS)):
        shrinker.root(RICH, index)
    assert before == RICH


def test_the_first_plan_shortens_every_nested_description_to_its_first_sentence() -> None:
    spec = Shrinker().root(RICH, index_of("nested descriptions shortened"))["properties"]["spec"]
    assert spec["description"] == "First sentence here."
    assert spec["properties"]["tags"]["description"] == "Tags."
    assert spec["properties"]["deep"]["anyOf"][0]["properties"]["x"] == {
        "type": "integer",
        "description": "X.",
    }


def test_descriptions_and_examples_can_be_kept_on_the_arguments_only() -> None:
    form = Shrinker().root(RICH, index_of("descriptions kept on the arguments only"))
    assert form["properties"]["name"] == {
        "type": "string",
        "description": "The name.",
        "examples": ["Ünïcode ✓"],
    }
    tags = form["properties"]["spec"]["properties"]["tags"]
    assert tags == {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
    assert form["$defs"]["Thing"] == {"type": "object", "properties": {"id": {"type": "string"}}}


def test_a_nesting_cut_leaves_types_and_refs_and_opens_objects() -> None:
    form = Shrinker().root(RICH, index_of("nesting cut below level 1"))
    spec = form["properties"]["spec"]["properties"]
    assert spec["tags"] == {"type": "array", "items": {"type": "string"}}
    closed_x = {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": False}
    assert spec["deep"] == {"anyOf": [closed_x, {"type": "null"}]}  # branches share their parent's depth
    assert spec["pair"] == {"type": "array", "prefixItems": [{"type": "string"}, {"$ref": "#/$defs/Thing"}]}
    assert form["required"] == ["name"] and form["additionalProperties"] is False
    below_arguments = Shrinker().root(RICH, index_of("nesting cut below the arguments"))
    spec = below_arguments["properties"]["spec"]
    assert spec["properties"] == {"tags": {"type": "array"}, "deep": {}, "pair": {"type": "array"}}
    assert spec["required"] == ["tags"] and spec["description"] == "First sentence here."


def test_the_last_plans_keep_only_each_arguments_type_with_or_without_its_description() -> None:
    short = Shrinker().root(
        RICH, index_of("each argument cut to its type, descriptions cut to 60 characters")
    )
    assert short["properties"] == {
        "name": {"type": "string", "description": "The name."},
        "spec": {"type": "object", "description": "First sentence here."},
    }
    bare = Shrinker().root(RICH, len(PLANS) - 1)
    assert bare["properties"] == {"name": {"type": "string"}, "spec": {"type": "object"}}
    assert bare["required"] == ["name"] and bare["$schema"] == RICH["$schema"]


def test_shorten_keeps_the_first_sentence_or_paragraph_and_marks_a_cut() -> None:
    assert shorten("One. Two.", 160) == "One."
    assert shorten("Version 1.2 is\nwrapped here.\n\nNext", 160) == "Version 1.2 is wrapped here."
    assert shorten("a" * 70, 60) == "a" * 59 + "…"
    assert shorten("Untouched. Text.", None) == "Untouched. Text."
    assert shorten(["not", "text"], 60) == ["not", "text"]


def test_a_ladder_picks_the_first_plan_that_fits() -> None:
    ladder = Ladder(RICH, Sizer())
    assert ladder.fit(0) == AS_IS
    assert ladder.fit(ladder.size) == AS_IS
    assert ladder.fit(ladder.size - 1) == 1
    assert ladder.fit(1) == len(PLANS) - 1
    middle = ladder.sizes[5]
    assert ladder.fit(middle) == min(index for index, size in enumerate(ladder.sizes) if size <= middle)


def test_shared_dicts_are_measured_and_built_once_per_depth_and_stay_shared() -> None:
    shared = {"type": "object", "description": "Shared. Long.", "properties": {"a": {"type": "string"}}}
    schema = {"type": "object", "properties": {"one": shared, "two": shared}}
    shrinker = Shrinker()
    form = shrinker.root(schema, 1)
    assert form["properties"]["one"] is form["properties"]["two"]
    assert Sizer().root(schema)[1] == schema_size(form)


def nested(depth: int) -> dict[str, Any]:
    """An object `depth` levels deep, each level with a long description and an example."""
    node: dict[str, Any] = {"type": "string", "description": "Leaf. " + "y" * 200, "examples": ["x"]}
    for level in range(depth):
        node = {
            "type": "object",
            "description": f"Level {level}. " + "z" * 200,
            "example": {"k": level},
            "properties": {"next": node, "ref": {"$ref": "#/$defs/Thing", "description": "A ref. More."}},
        }
    return node


AWKWARD: dict[str, Any] = {
    "type": "object",
    "properties": {
        "deep": nested(12),  # deeper than every plan's nesting cut
        "only_text": {"description": "Nothing but a description. " + "w" * 200},
        "only_examples": {"examples": [1, 2.5, None, True]},
        "odd_description": {"type": "object", "description": ["not", "text"], "properties": {}},
        "empty": {},
        "list_type": {"type": ["string", "null"], "description": "Two types."},
        "groups": {"anyOf": [{"type": "string"}, {"not": {"type": "null"}}], "allOf": []},
        "map": {"type": "object", "additionalProperties": nested(3), "patternProperties": {"^x": {}}},
        "unicode": {"type": "string", "description": "Ünïcödé ✓ " * 30, "enum": ["é", "✓"]},
    },
    "required": ["deep"],
    "$defs": {"Thing": nested(2), "Empty": {}},
}


@pytest.mark.parametrize("index", range(len(PLANS)))
def test_the_sizer_is_exact_on_awkward_schemas_too(index: int) -> None:
    schemas: list[dict[str, Any]] = [AWKWARD, {}, {"type": "object"}, {"properties": {}}]
    for schema in schemas:
        assert Sizer().root(schema)[index] == schema_size(Shrinker().root(schema, index)), schema
