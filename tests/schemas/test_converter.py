"""Tests for openapi2mcp.schemas.converter: OpenAPI Schema Objects → JSON Schema 2020-12 for MCP tools."""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from openapi2mcp.diagnostics import Diagnostics, SpecError, pointer_join
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.schemas.converter import OUTPUT_BUDGET, SchemaConverter, schema_size
from openapi2mcp.tools.mapper import map_document

BODY = "#/paths/~1pets/post/requestBody/content/application~1json/schema"
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "specs"
RECURSION_NOTE = "Recursive reference to {}; the recursion is cut here."


def make(
    schemas: dict[str, Any] | None = None,
    *,
    version: str = "3.0",
    max_ref_depth: int = 3,
) -> tuple[SchemaConverter, Diagnostics]:
    document = {"openapi": version, "components": {"schemas": schemas or {}}}
    diagnostics = Diagnostics()
    converter = SchemaConverter(
        Resolver(document), diagnostics, openapi_version=version, max_ref_depth=max_ref_depth
    )
    return converter, diagnostics


def to_input(schema: Any, schemas: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    return make(schemas, **options)[0].input_schema(schema, BODY)


def to_output(schema: Any, schemas: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    return make(schemas, **options)[0].output_schema(schema, BODY)


def warnings(diagnostics: Diagnostics) -> list[tuple[str, str]]:
    return [(item.pointer, item.message) for item in diagnostics]


def valid(schema: dict[str, Any], instance: Any) -> bool:
    Draft202012Validator.check_schema(schema)
    return bool(Draft202012Validator(schema).is_valid(instance))


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


PET = {
    "type": "object",
    "required": ["name", "kind"],
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 10},
        "kind": {"type": "string", "enum": ["cat", "dog"]},
        "age": {"type": "integer", "minimum": 0, "format": "int32"},
    },
}

# Input schemas -----------------------------------------------------------------------------------


def test_input_inlines_a_ref_and_keeps_every_constraint() -> None:
    assert to_input(ref("Pet"), {"Pet": PET}) == {
        "type": "object",
        "required": ["name", "kind"],
        "properties": {
            "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 10},
            "kind": {"type": "string", "enum": ["cat", "dog"]},
            "age": {"type": "integer", "minimum": 0, "format": "int32", "maximum": 2147483647},
        },
    }


@pytest.mark.parametrize(
    ("instance", "accepted"),
    [
        ({"name": "rex", "kind": "dog", "age": 3}, True),
        ({"name": "rex", "kind": "cow"}, False),  # enum
        ({"name": "Rex!", "kind": "dog"}, False),  # pattern
        ({"name": "rex", "kind": "dog", "age": -1}, False),  # minimum
        ({"name": "rex"}, False),  # required
        ({"name": "rex", "kind": "dog", "age": 1.5}, False),  # integer
    ],
)
def test_input_schema_rejects_what_the_spec_rejects(instance: dict[str, Any], accepted: bool) -> None:
    assert valid(to_input(ref("Pet"), {"Pet": PET}), instance) is accepted


def test_nullable_in_30_becomes_anyof_with_null_and_keeps_annotations_on_top() -> None:
    schema = {"type": "string", "nullable": True, "maxLength": 3, "description": "Nick.", "default": "a"}
    assert to_input(schema) == {
        "description": "Nick.",
        "default": "a",
        "anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}],
    }


def test_type_array_in_31_becomes_one_branch_per_type_with_its_own_keywords() -> None:
    schema = {"type": ["string", "integer", "null"], "maxLength": 5, "minimum": 1, "description": "Id."}
    result = to_input(schema, version="3.1")
    assert result == {
        "description": "Id.",
        "anyOf": [{"type": "string", "maxLength": 5}, {"type": "integer", "minimum": 1}, {"type": "null"}],
    }
    assert [valid(result, value) for value in ("abc", 2, None, "toolong", 0, 1.5)] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]


def test_type_array_of_one_type_and_null_is_that_type_or_null() -> None:
    assert to_input({"type": ["integer", "null"], "minimum": 1}, version="3.1") == {
        "anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
    }


def test_type_array_with_an_enum_keeps_only_the_enum() -> None:
    assert to_input({"type": ["string", "integer"], "enum": ["a", 1]}, version="3.1") == {"enum": ["a", 1]}


def test_nullable_enum_gains_null_and_loses_its_type() -> None:
    result = to_input({"type": "string", "enum": ["a", "b"], "nullable": True})
    assert result == {"enum": ["a", "b", None]}
    assert valid(result, None) and not valid(result, "c")


def test_nullable_sibling_of_a_ref_allows_null_and_description_sibling_wins() -> None:
    schemas = {"Name": {"type": "string", "description": "Target."}}
    assert to_input(
        {"$ref": "#/components/schemas/Name", "nullable": True, "description": "Mine."}, schemas
    ) == {"description": "Mine.", "anyOf": [{"type": "string"}, {"type": "null"}]}


def test_constraint_siblings_of_a_ref_apply_in_31_and_are_ignored_in_30() -> None:
    schemas = {"Name": {"type": "string", "minLength": 1}}
    schema = {"$ref": "#/components/schemas/Name", "maxLength": 5}
    assert to_input(schema, schemas, version="3.1") == {"type": "string", "minLength": 1, "maxLength": 5}
    assert to_input(schema, schemas, version="3.0") == {"type": "string", "minLength": 1}


def test_boolean_exclusive_bounds_of_30_become_numeric_bounds() -> None:
    schema = {
        "type": "number",
        "minimum": 0,
        "exclusiveMinimum": True,
        "maximum": 9,
        "exclusiveMaximum": False,
    }
    result = to_input(schema)
    assert result == {"type": "number", "exclusiveMinimum": 0, "maximum": 9}
    assert [valid(result, value) for value in (0, 0.5, 9, 9.5)] == [False, True, True, False]


def test_numeric_exclusive_bounds_of_31_are_kept() -> None:
    assert to_input({"type": "number", "exclusiveMinimum": 1, "exclusiveMaximum": 2}, version="3.1") == {
        "type": "number",
        "exclusiveMinimum": 1,
        "exclusiveMaximum": 2,
    }


def test_openapi_only_keywords_titles_and_extensions_are_dropped() -> None:
    schema = {
        "type": "object",
        "title": "Pet",
        "discriminator": {"propertyName": "kind"},
        "xml": {"name": "pet"},
        "externalDocs": {"url": "https://example.com"},
        "x-internal": True,
        "readOnly": False,
        "properties": {"kind": {"type": "string", "title": "Kind", "x-order": 1}},
    }
    assert to_input(schema) == {"type": "object", "properties": {"kind": {"type": "string"}}}


def test_deprecated_schemas_say_so_in_their_description() -> None:
    assert to_input({"type": "string", "deprecated": True, "description": "Old id."}) == {
        "type": "string",
        "description": "Deprecated. Old id.",
    }
    assert to_input({"type": "string", "deprecated": True}) == {
        "type": "string",
        "description": "Deprecated.",
    }


def test_a_short_scalar_example_is_kept_as_examples_and_others_are_dropped() -> None:
    assert to_input({"type": "string", "example": "cus_123"}) == {"type": "string", "examples": ["cus_123"]}
    assert to_input({"type": "integer", "examples": [7, 8]}, version="3.1") == {
        "type": "integer",
        "examples": [7],
    }
    assert to_input({"type": "string", "example": "x" * 100}) == {"type": "string"}
    assert to_input({"type": "object", "example": {"a": 1}}) == {"type": "object"}
    assert to_input({"type": "boolean", "example": True}) == {"type": "boolean"}


def test_read_only_properties_are_removed_from_input_objects_and_their_required() -> None:
    schemas = {"Id": {"type": "string", "readOnly": True}}
    schema = {
        "type": "object",
        "required": ["id", "ref_id", "name", "secret"],
        "properties": {
            "id": {"type": "string", "readOnly": True},
            "ref_id": ref("Id"),
            "name": {"type": "string"},
            "secret": {"type": "string", "writeOnly": True},
        },
    }
    assert to_input(schema, schemas) == {
        "type": "object",
        "required": ["name", "secret"],
        "properties": {"name": {"type": "string"}, "secret": {"type": "string"}},
    }


def test_binary_strings_become_base64_strings_with_a_note() -> None:
    assert to_input({"type": "string", "format": "binary", "description": "The file."}) == {
        "type": "string",
        "contentEncoding": "base64",
        "description": "The file. (base64-encoded)",
    }
    assert to_input({"type": "file"}) == {
        "type": "string",
        "contentEncoding": "base64",
        "description": "Base64-encoded binary data.",
    }
    assert to_input({"type": "string", "format": "byte"}) == {
        "type": "string",
        "contentEncoding": "base64",
        "description": "Base64-encoded binary data.",
    }


def test_boolean_schemas_become_objects_and_true_ones_are_dropped() -> None:
    schema = {
        "type": "object",
        "properties": {"any": True, "never": False, "list": {"type": "array", "items": True}},
        "additionalProperties": True,
    }
    assert to_input(schema) == {
        "type": "object",
        "properties": {"any": {}, "never": {"not": {}}, "list": {"type": "array"}},
    }


def test_items_in_tuple_form_become_prefix_items_with_a_warning() -> None:
    converter, diagnostics = make()
    pair = [{"type": "string"}, {"type": "integer"}]
    result = converter.input_schema({"type": "array", "items": pair}, BODY)
    assert result == {"type": "array", "prefixItems": pair}
    message = "items is a list (tuple form); it becomes prefixItems"
    assert warnings(diagnostics) == [(f"{BODY}/items", message)]


def test_additional_properties_false_and_schemas_are_kept_in_input() -> None:
    assert to_input({"type": "object", "additionalProperties": False}) == {
        "type": "object",
        "additionalProperties": False,
    }
    assert to_input({"type": "object", "additionalProperties": {"type": "integer"}}) == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
    }


def test_an_unknown_type_is_dropped_with_a_warning() -> None:
    converter, diagnostics = make()
    assert converter.input_schema({"type": "text", "maxLength": 3}, BODY) == {"maxLength": 3}
    assert warnings(diagnostics) == [(f"{BODY}/type", "unknown type 'text'; it is dropped")]


def test_a_pattern_python_warns_about_is_kept_without_a_python_warning(
    recwarn: pytest.WarningsRecorder,
) -> None:
    converter, diagnostics = make()
    schema = {"type": "string", "pattern": "[[A-Z0-9]{1,18}"}  # amadeus.com: `re` warns of a nested set
    assert converter.input_schema(schema, BODY) == schema
    assert [str(warning.message) for warning in recwarn] == []
    assert warnings(diagnostics) == []


def test_invalid_keyword_values_are_dropped_with_a_warning_and_never_crash() -> None:
    converter, diagnostics = make()
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "required": True, "minLength": "2", "pattern": "(["},
            "b": {"type": "integer", "enum": "x", "multipleOf": 0, "maximum": float("inf")},
            "c": 42,
        },
    }
    assert converter.input_schema(schema, BODY) == {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "c": {}},
    }
    a, b = f"{BODY}/properties/a", f"{BODY}/properties/b"
    assert warnings(diagnostics) == [
        (f"{a}/required", "required must be a list of names; it is dropped"),
        (f"{a}/minLength", "invalid value '2' for minLength; it is dropped"),
        (f"{a}/pattern", "invalid value '([' for pattern; it is dropped"),
        (f"{b}/multipleOf", "invalid value 0 for multipleOf; it is dropped"),
        (f"{b}/maximum", "invalid value inf for maximum; it is dropped"),
        (f"{b}/enum", "enum must be a non-empty list; it is dropped"),
        (f"{BODY}/properties/c", "a schema must be an object; it is ignored"),
    ]


def test_numbers_in_a_string_enum_become_strings_and_booleans_drop_the_enum() -> None:
    converter, diagnostics = make()
    assert converter.input_schema({"type": "string", "enum": [4.1, 4, "x"]}, BODY) == {
        "type": "string",
        "enum": ["4.1", "4", "x"],
    }
    assert converter.input_schema({"type": "string", "enum": [True, False]}, "#/b") == {"type": "string"}
    assert [message for _, message in warnings(diagnostics)] == [
        "enum of type string lists numbers; they are used as strings",
        "enum of type string lists non-strings (YAML booleans?); the enum is dropped",
    ]


def test_oneof_anyof_and_not_keep_their_converted_branches() -> None:
    schemas = {"Cat": {"type": "object", "properties": {"meow": {"type": "boolean"}}}}
    schema = {
        "oneOf": [ref("Cat"), {"type": "string", "nullable": True}],
        "anyOf": [{"type": "string"}, {"type": "object"}],
        "not": {"type": "string", "enum": ["x"]},
    }
    assert to_input(schema, schemas) == {
        "oneOf": [
            {"type": "object", "properties": {"meow": {"type": "boolean"}}},
            {"anyOf": [{"type": "string"}, {"type": "null"}]},
        ],
        "anyOf": [{"type": "string"}, {"type": "object"}],
        "not": {"type": "string", "enum": ["x"]},
    }


def test_oneof_with_a_discriminator_becomes_anyof_whose_branches_pin_the_discriminator() -> None:
    schemas = {
        "Cat": {"type": "object", "properties": {"kind": {"type": "string"}, "name": {"type": "string"}}},
        "Dog": {"type": "object", "properties": {"kind": {"type": "string"}, "name": {"type": "string"}}},
    }
    schema = {"oneOf": [ref("Cat"), ref("Dog")], "discriminator": {"propertyName": "kind"}}
    result = to_input(schema, schemas)
    assert result == {
        "anyOf": [
            {
                "type": "object",
                "properties": {"kind": {"type": "string", "enum": [name]}, "name": {"type": "string"}},
                "required": ["kind"],
            }
            for name in ("Cat", "Dog")
        ]
    }
    checks = [valid(result, {"kind": kind, "name": "Tom"}) for kind in ("Cat", "Dog", "")]
    assert checks == [True, True, False]


# allOf -------------------------------------------------------------------------------------------

CLOSED_BASE = {
    "type": "object",
    "required": ["id"],
    "properties": {"id": {"type": "integer"}},
    "additionalProperties": False,
}


def test_allof_with_a_closed_branch_merges_into_one_object_closed_over_the_union() -> None:
    schema = {
        "allOf": [
            ref("Base"),
            {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        ]
    }
    result = to_input(schema, {"Base": CLOSED_BASE})
    assert result == {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
        "required": ["id", "name"],
        "additionalProperties": False,
    }
    assert valid(result, {"id": 1, "name": "x"})
    assert not valid(result, {"id": 1, "name": "x", "other": 2})
    assert not valid(result, {"id": 1})


def test_allof_stays_open_when_a_oneof_may_add_properties() -> None:
    one_of = [
        {"properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"properties": {"b": {"type": "string"}}, "required": ["b"]},
    ]
    schema = {"allOf": [ref("Base"), {"oneOf": one_of}]}
    result = to_input(schema, {"Base": CLOSED_BASE})
    assert "additionalProperties" not in result
    assert valid(result, {"id": 1, "a": "x"})
    assert not valid(result, {"id": 1})


def test_allof_takes_the_tightest_bounds_and_the_common_type() -> None:
    schema = {"allOf": [{"type": "number", "minimum": 1, "maximum": 10}, {"type": "integer", "minimum": 3}]}
    assert to_input(schema) == {"type": "integer", "minimum": 3, "maximum": 10}


def test_allof_keeps_conflicting_keywords_in_a_leftover_allof() -> None:
    schema = {"allOf": [{"type": "string", "pattern": "^a"}, {"pattern": "b$", "description": "Ab."}]}
    result = to_input(schema)
    assert result == {"type": "string", "pattern": "^a", "description": "Ab.", "allOf": [{"pattern": "b$"}]}
    assert [valid(result, text) for text in ("ab", "a", "b")] == [True, False, False]


def test_allof_merges_a_property_defined_twice_as_an_allof_of_both() -> None:
    schema = {
        "allOf": [
            {"properties": {"n": {"type": "integer", "minimum": 1}}},
            {"properties": {"n": {"maximum": 5}}},
        ]
    }
    assert to_input(schema) == {"properties": {"n": {"type": "integer", "minimum": 1, "maximum": 5}}}


def test_allof_refining_a_collection_wrapper_keeps_the_item_type_in_both_schemas() -> None:
    """train-travel's `allOf: [Wrapper-Collection, {data: {items: Trip}}]`: the later branch's item
    type merges with the wrapper's `items: {type: object}` instead of being dropped."""
    wrapper = {"type": "object", "properties": {"data": {"type": "array", "items": {"type": "object"}}}}
    trip = {"type": "object", "properties": {"id": {"type": "string"}}}
    refined = {"properties": {"data": {"type": "array", "items": ref("Trip")}}}
    schemas = {"Wrapper": wrapper, "Trip": trip}
    schema = {"allOf": [ref("Wrapper"), refined]}
    assert to_input(schema, schemas)["properties"]["data"] == {"type": "array", "items": trip}
    output = to_output(schema, schemas)  # (null allowed everywhere: the item's shape is what counts)
    item = output["properties"]["data"]["anyOf"][0]["items"]["anyOf"][0]
    assert item == {"type": "object", "properties": {"id": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}


def test_a_base_merged_by_allof_is_not_on_the_path_of_the_schemas_own_properties() -> None:
    """PagerDuty's pattern: every schema is `allOf: [Base, {...}]`, so a Service's `teams` items
    (a TeamReference, itself built on Base) are no recursion of Base: they keep their properties.
    A property referring to the schema itself is still cut."""
    base = {"type": "object", "properties": {"id": {"type": "string"}, "summary": {"type": "string"}}}
    team = {"allOf": [ref("Base"), {"properties": {"type": {"type": "string"}}}]}
    teams = {"type": "array", "items": ref("TeamReference")}
    own = {"properties": {"teams": teams, "parent": ref("Service")}}
    schemas = {"Base": base, "TeamReference": team, "Service": {"allOf": [ref("Base"), own]}}
    output = to_output(ref("Service"), schemas)["properties"]  # (each $ref expanded once on a path)
    team_item = output["teams"]["anyOf"][0]["items"]["anyOf"][0]
    assert sorted(team_item["properties"]) == ["id", "summary", "type"]
    assert output["parent"] == {
        "description": "Recursive reference to Service; the recursion is cut here.",
        "anyOf": [{"type": "object"}, {"type": "null"}],
    }


def test_allof_with_an_outer_nullable_allows_null() -> None:
    schemas = {"Pet": {"type": "object", "properties": {"a": {"type": "string"}}}}
    assert to_input({"nullable": True, "allOf": [ref("Pet")]}, schemas) == {
        "anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}],
    }


def test_allof_branches_without_a_common_type_drop_the_type_with_a_warning() -> None:
    converter, diagnostics = make()
    assert converter.input_schema({"allOf": [{"type": "string"}, {"type": "array"}]}, BODY) == {}
    assert warnings(diagnostics) == [(BODY, "the allOf branches have no type in common; the type is dropped")]


def test_read_only_properties_of_an_allof_branch_are_removed_from_the_merged_required() -> None:
    schemas = {"Base": {"type": "object", "properties": {"id": {"type": "string", "readOnly": True}}}}
    branch = {"required": ["id", "name"], "properties": {"name": {"type": "string"}}}
    assert to_input({"allOf": [ref("Base"), branch]}, schemas) == {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    }


# Recursion ---------------------------------------------------------------------------------------

NODE = {
    "type": "object",
    "properties": {"value": {"type": "string"}, "children": {"type": "array", "items": ref("Node")}},
}


def node_levels(levels: int) -> dict[str, Any]:
    """The expected input form of NODE expanded `levels` times, then cut."""
    items: dict[str, Any] = {"type": "object", "description": RECURSION_NOTE.format("Node")}
    for _ in range(levels):
        items = {
            "type": "object",
            "properties": {"value": {"type": "string"}, "children": {"type": "array", "items": items}},
        }
    return items


def test_a_self_recursive_schema_is_expanded_max_ref_depth_times_then_cut() -> None:
    assert to_input(ref("Node"), {"Node": NODE}) == node_levels(3)
    assert to_input(ref("Node"), {"Node": NODE}, max_ref_depth=1) == node_levels(1)


def test_mutual_recursion_is_cut_at_the_repeated_reference() -> None:
    schemas = {
        "A": {"type": "object", "properties": {"b": ref("B")}},
        "B": {"type": "object", "properties": {"a": ref("A")}},
    }
    cut_a = {"type": "object", "description": RECURSION_NOTE.format("A")}
    assert to_input(ref("A"), schemas, max_ref_depth=1) == {
        "type": "object",
        "properties": {"b": {"type": "object", "properties": {"a": cut_a}}},
    }


def test_a_recursive_non_object_is_cut_to_an_empty_schema_with_a_description() -> None:
    schemas = {"List": {"type": "array", "items": ref("List")}}
    assert to_input(ref("List"), schemas, max_ref_depth=1) == {
        "type": "array",
        "items": {"description": RECURSION_NOTE.format("List")},
    }


def test_recursion_through_allof_is_cut_too() -> None:
    schemas = {"Tree": {"allOf": [{"type": "object", "properties": {"up": ref("Tree")}}]}}
    cut = {"type": "object", "description": RECURSION_NOTE.format("Tree")}
    assert to_input(ref("Tree"), schemas, max_ref_depth=1) == {"type": "object", "properties": {"up": cut}}


def test_recursion_through_a_31_ref_with_constraint_siblings_is_cut_too() -> None:
    schemas = {
        "List": {
            "type": "object",
            "properties": {"next": {"$ref": "#/components/schemas/List", "minProperties": 1}},
        }
    }
    cut = {"type": "object", "description": RECURSION_NOTE.format("List")}
    assert to_input(ref("List"), schemas, version="3.1", max_ref_depth=1) == {
        "type": "object",
        "properties": {"next": {**cut, "minProperties": 1}},
    }


def test_a_dense_cycle_over_budget_is_converted_again_entering_each_cycle_once() -> None:
    names = [f"S{index}" for index in range(8)]
    schemas = {
        name: {"type": "object", "properties": {other.lower(): ref(other) for other in names}}
        for name in names
    }
    result = to_input(ref("S0"), schemas)
    assert result == {
        "type": "object",
        "properties": {
            other.lower(): {"type": "object", "description": RECURSION_NOTE.format(other)} for other in names
        },
    }


def test_a_conversion_cached_inside_a_cycle_is_not_reused_outside_it() -> None:
    schemas = {
        "A": {"type": "object", "properties": {"b": ref("B")}},
        "B": {"type": "object", "properties": {"a": ref("A")}},
    }
    converter, _ = make(schemas, max_ref_depth=2)
    converter.input_schema(ref("A"), BODY)  # converts B while A is being expanded
    assert converter.input_schema(ref("B"), BODY) == to_input(ref("B"), schemas, max_ref_depth=2)


def test_nested_results_are_shared_between_conversions_of_the_same_ref() -> None:
    converter, _ = make({"Pet": PET, "Owner": {"type": "object", "properties": {"pet": ref("Pet")}}})
    first = converter.input_schema(ref("Owner"), BODY)
    assert converter.input_schema(ref("Pet"), BODY) == first["properties"]["pet"]
    assert converter.input_schema(ref("Owner"), BODY)["properties"] is first["properties"]


def test_the_top_level_result_is_fresh_and_may_be_mutated() -> None:
    converter, _ = make({"Pet": PET})
    first = converter.input_schema(ref("Pet"), BODY)
    first["description"] = "changed"
    assert "description" not in converter.input_schema(ref("Pet"), BODY)


def test_a_dangling_ref_raises_spec_error_with_its_pointer() -> None:
    converter, _ = make()
    schema = {"type": "object", "properties": {"owner": ref("Missing")}}
    with pytest.raises(SpecError) as raised:
        converter.input_schema(schema, BODY)
    assert raised.value.pointer == f"{BODY}/properties/owner"
    assert raised.value.message == "dangling reference '#/components/schemas/Missing': nothing is there"


def test_a_ref_to_another_document_raises_spec_error() -> None:
    converter, _ = make()
    with pytest.raises(SpecError) as raised:
        converter.output_schema({"$ref": "other.yaml#/Pet"}, BODY)
    assert raised.value.pointer == BODY


# Output schemas ----------------------------------------------------------------------------------


def test_output_keeps_the_shape_and_drops_every_assertion() -> None:
    schema = {
        "type": "object",
        "required": ["kind"],
        "additionalProperties": False,
        "properties": {
            "kind": {"type": "string", "enum": ["cat"], "format": "uuid", "pattern": "^c", "default": "cat"},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 2}, "minItems": 1},
        },
    }
    assert to_output(schema) == {
        "type": "object",
        "properties": {
            "kind": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "tags": {
                "anyOf": [
                    {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
                    {"type": "null"},
                ]
            },
        },
    }


@pytest.mark.parametrize(
    "instance",
    [
        {"name": "rex", "kind": "dog", "age": 3},
        {"name": "rex", "kind": "dog", "age": 3, "extra": {"x": 1}},  # extra property
        {"name": None, "kind": None, "age": None},  # nulls everywhere
        {"name": "REX!!!!!!!!!!!", "kind": "hamster"},  # pattern, length, unknown enum value
        {},  # missing required
        {"age": 3.5},  # documented integer, returned float
    ],
)
def test_output_schema_accepts_what_real_responses_do(instance: dict[str, Any]) -> None:
    assert valid(to_output(ref("Pet"), {"Pet": PET}), instance)


def test_output_schema_still_rejects_a_wrong_type() -> None:
    assert not valid(to_output(ref("Pet"), {"Pet": PET}), {"name": 5})


def test_output_widens_integer_to_number() -> None:
    assert to_output({"type": "integer"}) == {"type": "number"}


def test_output_drops_write_only_properties_and_keeps_read_only_ones() -> None:
    schema = {
        "type": "object",
        "properties": {
            "password": {"type": "string", "writeOnly": True},
            "id": {"type": "string", "readOnly": True},
        },
    }
    assert to_output(schema) == {
        "type": "object",
        "properties": {"id": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
    }


def test_output_allof_with_a_closed_branch_accepts_both_branches_and_extras() -> None:
    schema = {"allOf": [ref("Base"), {"type": "object", "properties": {"name": {"type": "string"}}}]}
    result = to_output(schema, {"Base": CLOSED_BASE})
    assert valid(result, {"id": 1, "name": "x", "other": True})
    assert valid(result, {"id": 2.5})
    assert not valid(result, {"id": "one"})


def test_output_oneof_becomes_anyof_of_tolerant_branches() -> None:
    schemas = {
        "Cat": {
            "type": "object",
            "required": ["meow"],
            "additionalProperties": False,
            "properties": {"meow": {"type": "boolean"}},
        },
        "Dog": {"type": "object", "required": ["bark"], "properties": {"bark": {"type": "boolean"}}},
    }
    result = to_output({"oneOf": [ref("Cat"), ref("Dog")]}, schemas)
    assert result == {
        "type": "object",
        "anyOf": [
            {"type": "object", "properties": {"meow": {"anyOf": [{"type": "boolean"}, {"type": "null"}]}}},
            {"type": "object", "properties": {"bark": {"anyOf": [{"type": "boolean"}, {"type": "null"}]}}},
        ],
    }
    assert valid(result, {"meow": True, "bark": True, "wag": 1})


def test_output_anyof_with_an_unconstrained_branch_collapses_to_its_description() -> None:
    schema = {"description": "Anything.", "anyOf": [{"type": "string"}, {"description": "Other."}]}
    assert to_output(schema) == {"description": "Anything."}


def test_output_anyof_whose_branches_become_equal_collapses_to_one_branch() -> None:
    schema = {"oneOf": [{"type": "string", "enum": ["a"]}, {"type": "string", "enum": ["b"]}]}
    assert to_output(schema) == {"type": "string"}


def test_output_objects_nest_at_most_three_levels() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for level in range(5, 0, -1):
        schema = {"type": "object", "description": f"Level {level}.", "properties": {"next": schema}}

    def nullable(inner: dict[str, Any]) -> dict[str, Any]:
        return {"description": inner.pop("description"), "anyOf": [inner, {"type": "null"}]}

    level4 = {"description": "Level 4."}  # the summary of a too-deep object
    level3 = {"type": "object", "description": "Level 3.", "properties": {"next": level4}}
    level2 = {"type": "object", "description": "Level 2.", "properties": {"next": nullable(level3)}}
    assert to_output(schema) == {
        "type": "object",
        "description": "Level 1.",
        "properties": {"next": nullable(level2)},
    }


def test_output_uses_fewer_levels_when_the_schema_would_list_too_many_properties() -> None:
    wide = {"type": "object", "properties": {f"p{n}": {"type": "string"} for n in range(OUTPUT_BUDGET)}}
    schema = {"type": "object", "properties": {"a": wide, "b": {"type": "string"}}}
    assert to_output(schema) == {
        "type": "object",
        "properties": {"a": {}, "b": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
    }


def test_output_cuts_recursion_at_the_first_repeated_reference() -> None:
    note = {"description": RECURSION_NOTE.format("Node"), "anyOf": [{"type": "object"}, {"type": "null"}]}
    assert to_output(ref("Node"), {"Node": NODE}) == {
        "type": "object",
        "properties": {
            "value": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "children": {"anyOf": [{"type": "array", "items": note}, {"type": "null"}]},
        },
    }


def test_output_descriptions_are_shortened_to_300_characters() -> None:
    description = to_output({"type": "string", "description": "word " * 100})["description"]
    assert len(description) == 300
    assert description.endswith("word…")


def test_output_keeps_a_nullable_root_nullable() -> None:
    assert to_output({"type": "array", "nullable": True}) == {"anyOf": [{"type": "array"}, {"type": "null"}]}


# Local definitions ($defs, OAS 3.1) -------------------------------------------------------------

ADDRESS = {
    "type": "object",
    "required": ["street"],
    "properties": {"street": {"type": "string"}, "city": {"type": "string", "title": "City"}},
}
CONVERTED_ADDRESS = {
    "type": "object",
    "required": ["street"],
    "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
}


def local(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def test_a_ref_to_a_local_definition_is_kept_with_its_annotation_siblings_converted() -> None:
    assert to_input({**local("address"), "description": "Home.", "title": "Address"}, version="3.1") == {
        "$ref": "#/$defs/address",
        "description": "Home.",
    }


def test_constraint_siblings_of_a_local_ref_apply_in_31_and_are_ignored_in_30() -> None:
    schema = {**local("code"), "maxLength": 5}
    assert to_input(schema, version="3.1") == {"$ref": "#/$defs/code", "maxLength": 5}
    assert to_input(schema, version="3.0") == {"$ref": "#/$defs/code"}


def test_a_nullable_local_ref_becomes_anyof_with_null() -> None:
    assert to_input({**local("code"), "nullable": True}) == {
        "anyOf": [{"$ref": "#/$defs/code"}, {"type": "null"}],
    }


def test_a_local_ref_in_an_output_schema_is_kept_and_may_be_null() -> None:
    schema = {"type": "object", "properties": {"home": local("address")}}
    assert to_output(schema, version="3.1") == {
        "type": "object",
        "properties": {"home": {"anyOf": [{"$ref": "#/$defs/address"}, {"type": "null"}]}},
    }


def test_an_allof_with_a_local_ref_keeps_the_ref_and_stays_open() -> None:
    closed = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}
    assert to_input({"allOf": [local("base"), closed]}, version="3.1") == {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "$ref": "#/$defs/base",
    }


def test_a_defs_ref_that_resolves_in_the_document_is_inlined() -> None:
    document = {"openapi": "3.1.0", "$defs": {"code": {"type": "string"}}}
    converter = SchemaConverter(Resolver(document), Diagnostics(), openapi_version="3.1.0")
    assert converter.input_schema(local("code"), BODY) == {"type": "string"}


def test_defs_keywords_are_dropped_from_converted_schemas() -> None:
    schema = {"type": "object", "$defs": {"address": ADDRESS}, "properties": {"home": local("address")}}
    assert to_input(schema, version="3.1") == {"type": "object", "properties": {"home": local("address")}}
    assert "$defs" not in to_output(schema, version="3.1")
    both = {"allOf": [{"type": "object", "$defs": {"a": ADDRESS}}, {"$defs": {"b": ADDRESS}}]}
    assert to_input(both, version="3.1") == {"type": "object"}


def test_local_defs_are_the_converted_defs_of_the_schema_or_the_schema_its_ref_names() -> None:
    person = {
        "type": "object",
        "$defs": {"address": ADDRESS, "home": {**local("address"), "nullable": True}},
        "properties": {"home": local("home")},
    }
    converter, diagnostics = make({"Person": person}, version="3.1")
    expected = {"address": CONVERTED_ADDRESS, "home": {"anyOf": [local("address"), {"type": "null"}]}}
    assert converter.local_defs(person, BODY) == expected
    assert converter.local_defs(ref("Person"), BODY) == expected
    assert warnings(diagnostics) == []


def test_local_defs_are_none_without_defs_and_warn_when_defs_is_not_an_object() -> None:
    converter, diagnostics = make(version="3.1")
    assert converter.local_defs({"type": "object"}, BODY) is None
    assert converter.local_defs({"type": "object", "$defs": {}}, BODY) is None
    assert converter.local_defs({"type": "object", "$defs": ["address"]}, BODY) is None
    assert warnings(diagnostics) == [(f"{BODY}/$defs", "$defs must be an object; it is dropped")]


def test_object_properties_keeps_a_property_that_refers_to_a_local_definition() -> None:
    converter, _ = make(version="3.1")
    schema = {"type": "object", "$defs": {"address": ADDRESS}, "properties": {"home": local("address")}}
    assert converter.object_properties(schema, BODY) == ({"home": local("address")}, set())


def map_body(schema: dict[str, Any]) -> dict[str, Any]:
    """The inputSchema of the one tool of a 3.1 document whose operation takes `schema` as its body."""
    body = {"required": True, "content": {"application/json": {"schema": schema}}}
    responses = {"204": {"description": "Ok."}}
    operation = {"operationId": "add_person", "requestBody": body, "responses": responses}
    document = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "1"},
        "servers": [{"url": "https://t.test"}],
        "paths": {"/people": {"post": operation}},
    }
    diagnostics = Diagnostics()
    model = map_document(document, GeneratorOptions(dist_name="t", env_prefix="T"), diagnostics)
    assert warnings(diagnostics) == []
    (tool,) = model.tools
    return dict(tool.input_schema)


def test_a_flattened_body_with_local_defs_puts_them_at_the_root_of_the_input_schema() -> None:
    result = map_body(
        {
            "type": "object",
            "required": ["name"],
            "$defs": {"address": ADDRESS},
            "properties": {"name": {"type": "string"}, "address": local("address")},
        }
    )
    assert result == {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "required": ["name"],
        "additionalProperties": False,
        "$defs": {"address": CONVERTED_ADDRESS},
    }
    assert valid(result, {"name": "x", "address": {"street": "s", "city": "c"}})
    assert not valid(result, {"name": "x", "address": {"street": 5, "city": "c"}})
    assert not valid(result, {"name": "x", "address": {"city": "c"}})


def test_a_whole_body_with_local_defs_puts_them_at_the_root_of_the_input_schema() -> None:
    result = map_body({"type": "array", "$defs": {"address": ADDRESS}, "items": local("address")})
    assert result == {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"body": {"type": "array", "items": {"$ref": "#/$defs/address"}}},
        "required": ["body"],
        "additionalProperties": False,
        "$defs": {"address": CONVERTED_ADDRESS},
    }
    assert valid(result, {"body": [{"street": "s"}]})
    assert not valid(result, {"body": [{"street": ["s"]}]})


def test_an_input_schema_has_no_defs_when_the_body_has_none() -> None:
    assert "$defs" not in map_body({"type": "object", "properties": {"name": {"type": "string"}}})


# Helpers for the mapper --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "object"}, True),
        (ref("Pet"), True),
        ({"allOf": [ref("Pet"), {"description": "More."}]}, True),
        ({"oneOf": [ref("Pet"), {"type": "object"}]}, True),
        ({"oneOf": [ref("Pet"), {"type": "string"}]}, False),
        ({"type": "object", "nullable": True}, False),
        ({"$ref": "#/components/schemas/Pet", "nullable": True}, False),
        ({"type": ["object", "null"]}, False),
        ({"properties": {"a": {"type": "string"}}}, False),
        ({"type": "array"}, False),
        ({}, False),
    ],
)
def test_is_object_schema_is_true_only_for_certain_objects(schema: Any, expected: bool) -> None:
    converter, _ = make({"Pet": PET})
    assert converter.is_object_schema(schema, BODY) is expected


def test_object_properties_returns_raw_properties_and_required_names() -> None:
    converter, _ = make({"Pet": PET})
    assert converter.object_properties(ref("Pet"), BODY) == (PET["properties"], {"name", "kind"})


def test_object_properties_merges_allof_and_leaves_out_read_only_properties() -> None:
    schemas = {
        "Base": {
            "type": "object",
            "required": ["id"],
            "properties": {"id": {"type": "string", "readOnly": True}, "tag": {"type": "string"}},
        },
        "Name": {"type": "string"},
    }
    schema = {"allOf": [ref("Base"), {"required": ["name"], "properties": {"name": ref("Name")}}]}
    converter, _ = make(schemas)
    assert converter.object_properties(schema, BODY) == (
        {"tag": {"type": "string"}, "name": ref("Name")},
        {"name"},
    )


@pytest.mark.parametrize(
    "schema",
    [
        {"oneOf": [ref("Pet"), {"type": "object", "properties": {"a": {}}}]},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"type": "object"},
        {"type": "object", "required": ["ghost"], "properties": {"a": {}}},
        {"type": "array", "properties": {"a": {}}},
    ],
    ids=["oneOf root", "map", "free-form", "required without property", "array"],
)
def test_object_properties_is_none_for_objects_that_cannot_be_flattened(schema: Any) -> None:
    converter, _ = make({"Pet": PET})
    assert converter.object_properties(schema, BODY) is None


def test_schema_size_counts_bytes_of_compact_json() -> None:
    assert schema_size({"description": "é", "type": "string"}) == 36  # é takes two bytes in UTF-8


# Real specs --------------------------------------------------------------------------------------

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def operation_schemas(document: dict[str, Any]) -> Iterator[tuple[str, Any, str]]:
    """("input" | "output", schema, pointer) for the parameters, bodies and responses of operations."""
    for path, item in (document.get("paths") or {}).items():
        for method in METHODS:
            operation = item.get(method) if isinstance(item, dict) else None
            if not isinstance(operation, dict):
                continue
            base = pointer_join("#/paths", path, method)
            for index, parameter in enumerate(operation.get("parameters") or []):
                if isinstance(parameter, dict) and "schema" in parameter:
                    yield "input", parameter["schema"], pointer_join(base, "parameters", index, "schema")
            body = operation.get("requestBody")
            for media_type, media in ((body or {}).get("content") or {}).items():
                where = pointer_join(base, "requestBody", "content", media_type, "schema")
                yield "input", media.get("schema", {}), where
            for status, response in (operation.get("responses") or {}).items():
                for media_type, media in ((response or {}).get("content") or {}).items():
                    where = pointer_join(base, "responses", status, "content", media_type, "schema")
                    yield "output", media.get("schema", {}), where


SCHEMA_KEYS = ("items", "additionalProperties", "not", "contains", "propertyNames")


def shallow_nodes(results: list[Any]) -> list[dict[str, Any]]:
    """Each distinct schema node once, as the metaschema sees it, checking the project's rules.

    Metaschema validity is compositional over subschema positions, so a node is checked with its
    subschemas replaced by `{}` (each is checked as a node of its own); results share subtrees, so
    each dict is visited once. Values that the 2020-12 metaschema judges by their JSON type alone
    (descriptions, defaults, examples, enum values, property names) are replaced by one value of that
    type, and a `required` list keeps only its pattern of repeats (the metaschema wants unique
    names): real specs then have a few hundred distinct nodes instead of thousands.
    """
    visited: set[int] = set()
    unique: dict[str, dict[str, Any]] = {}
    stack = list(results)
    while stack:
        node = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        assert isinstance(node, dict), node  # no boolean schemas
        assert not node.keys() & {"$ref", "$defs", "nullable", "discriminator"}, node
        assert not isinstance(node.get("type"), list), node
        flat = canonical(node)
        for key in SCHEMA_KEYS:
            if key in node and node[key] is not False:  # additionalProperties: false is the one boolean
                stack.append(node[key])
                flat[key] = {}
        for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            if key in node:
                stack.extend(node[key])
                flat[key] = [{} for _ in node[key]]
        for key in ("properties", "patternProperties"):
            if key in node:
                stack.extend(node[key].values())
                flat[key] = {"p" if key == "properties" else name: {} for name in node[key]}
        unique[repr(flat)] = flat  # equal nodes with keys in another order are merely checked twice
    return list(unique.values())


def canonical(node: dict[str, Any]) -> dict[str, Any]:
    """`node` with the values the metaschema only type-checks replaced by one value of their type."""
    flat = dict(node)
    if isinstance(flat.get("description"), str):
        flat["description"] = ""
    for key in ("default", "const"):
        if key in flat:
            flat[key] = None
    for key in ("examples", "enum"):
        if isinstance(flat.get(key), list):
            flat[key] = []
    names = flat.get("required")
    if isinstance(names, list) and all(isinstance(name, str) for name in names):
        flat["required"] = [str(names.index(name)) for name in names]
    return flat


def test_the_corpus_check_finds_an_invalid_schema_nested_in_a_result() -> None:
    nodes = shallow_nodes([{"type": "object", "properties": {"a": {"items": {"minLength": -1}}}}])
    with pytest.raises(SchemaError):
        Draft202012Validator.check_schema({"anyOf": nodes})
    with pytest.raises(AssertionError):
        shallow_nodes([{"type": "array", "items": {"type": ["string", "null"]}}])


def test_the_corpus_check_still_sees_repeated_required_names_and_wrong_typed_values() -> None:
    bad_nodes: list[dict[str, Any]] = [
        {"required": ["a", "b", "a"]},
        {"description": 5},
        {"enum": "a"},
        {"examples": {}},
    ]
    for bad in bad_nodes:
        with pytest.raises(SchemaError):
            Draft202012Validator.check_schema({"anyOf": shallow_nodes([{"properties": {"x": bad}}])})
    many = [{"type": "string", "description": f"Field {n}.", "enum": [n], "default": n} for n in range(50)]
    assert shallow_nodes(many) == [{"type": "string", "description": "", "enum": [], "default": None}]


# A fixed sample of the corpus: the largest 3.0 (cloudflare) and 3.1 (openai) specs, another large 3.0
# spec, reference cycles, 3.1 type arrays. stripe.yaml adds few node shapes that these lack and takes
# longer to parse than all of them together: OPENAPI2MCP_FULL_CORPUS=1 checks it too.
CORPUS_SAMPLE = [
    "cloudflare.json",
    "openai.yaml",
    "pagerduty.json",
    "rdm-schema-circular.json",
    "train-travel-v31.yaml",
]
if os.environ.get("OPENAPI2MCP_FULL_CORPUS"):
    CORPUS_SAMPLE.append("stripe.yaml")


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the spec corpus is not at {CORPUS}")
@pytest.mark.parametrize("name", CORPUS_SAMPLE)
def test_every_schema_of_a_real_spec_converts_to_clean_valid_json_schema(name: str) -> None:
    from openapi2mcp.load.source import load_source

    document, _ = load_source(str(CORPUS / name))
    converter = SchemaConverter(Resolver(document), Diagnostics(), openapi_version=document["openapi"])
    components = document.get("components", {}).get("schemas", {})
    jobs = [
        *operation_schemas(document),
        *(
            ("output", schema, pointer_join("#/components/schemas", key))
            for key, schema in components.items()
        ),
    ]
    started = time.perf_counter()
    results = [
        (converter.input_schema if kind == "input" else converter.output_schema)(schema, pointer)
        for kind, schema, pointer in jobs
    ]
    elapsed = time.perf_counter() - started
    nodes = shallow_nodes(results)
    print(f"{name}: {len(jobs)} schemas in {elapsed:.2f}s, {len(nodes)} distinct nodes")
    Draft202012Validator.check_schema({"anyOf": nodes})


FLOAT32_MAX = float(struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0])  # 0x7F7FFFFF: binary32's largest


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "integer", "format": "int32"}, {"minimum": -(2**31), "maximum": 2**31 - 1}),
        ({"type": "integer", "format": "int64", "minimum": 1}, {"minimum": 1, "maximum": 2**63 - 1}),
        (
            {"type": "integer", "format": "int32", "maximum": 2**40},
            {"minimum": -(2**31), "maximum": 2**31 - 1},
        ),
        (
            {"type": "integer", "format": "uint8", "exclusiveMaximum": 10},
            {"minimum": 0, "exclusiveMaximum": 10},
        ),
        ({"type": "number", "format": "int32"}, {}),
        ({"type": "integer", "format": "custom"}, {}),
        ({"type": "number", "format": "float"}, {"minimum": -FLOAT32_MAX, "maximum": FLOAT32_MAX}),
        ({"type": "number", "format": "float", "minimum": -90}, {"minimum": -90, "maximum": FLOAT32_MAX}),
        ({"type": "number", "format": "double"}, {}),
        ({"type": "integer", "format": "float"}, {}),
    ],
)
def test_a_numeric_format_becomes_bounds_in_input_schemas_only(
    schema: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert to_input(schema) == {**schema, **expected}
    output = to_output(schema)
    assert "minimum" not in output and "maximum" not in output
