"""Tests for openapi2mcp.schemas.discriminator: a discriminated oneOf/anyOf pins each branch's value."""

from __future__ import annotations

import copy
from typing import Any

from test_converter import BODY, RECURSION_NOTE, make, ref, to_input, to_output, valid, warnings

OPTIONS: dict[str, Any] = {
    "One": {
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"type": "string", "description": "The kind."}, "one": {"type": "number"}},
    },
    "Two": {
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"type": "string", "description": "The kind."}, "two": {"type": "string"}},
    },
}
ONE: dict[str, Any] = {
    "type": "object",
    "properties": {"kind": {"type": "string", "description": "The kind."}, "one": {"type": "number"}},
    "required": ["kind"],
}
TWO: dict[str, Any] = {
    "type": "object",
    "properties": {"kind": {"type": "string", "description": "The kind."}, "two": {"type": "string"}},
    "required": ["kind"],
}


def kind(*values: str) -> dict[str, Any]:
    return {"type": "string", "description": "The kind.", "enum": list(values)}


def pinned_one(*values: str) -> dict[str, Any]:
    return {**ONE, "properties": {**ONE["properties"], "kind": kind(*values)}}


def pinned_two(*values: str) -> dict[str, Any]:
    return {**TWO, "properties": {**TWO["properties"], "kind": kind(*values)}}


def one_of(mapping: dict[Any, str] | None = None, key: str = "oneOf") -> dict[str, Any]:
    discriminator: dict[str, Any] = {"propertyName": "kind"}
    if mapping is not None:
        discriminator["mapping"] = mapping
    return {key: [ref("One"), ref("Two")], "discriminator": discriminator}


def test_mapping_keys_pin_the_branch_their_reference_names() -> None:
    schema = one_of({"first": "#/components/schemas/One", "second": "#/components/schemas/Two"})
    result = to_input(schema, OPTIONS)
    assert result == {"anyOf": [pinned_one("first"), pinned_two("second")]}
    assert valid(result, {"kind": "first", "one": 1})
    assert not valid(result, {"kind": ""})
    assert not valid(result, {"kind": "One"})


def test_without_a_mapping_the_component_name_is_the_value() -> None:
    result = to_input(one_of(), OPTIONS)
    assert result == {"anyOf": [pinned_one("One"), pinned_two("Two")]}


def test_a_discriminated_anyof_is_pinned_too() -> None:
    assert to_input(one_of(key="anyOf"), OPTIONS) == {"anyOf": [pinned_one("One"), pinned_two("Two")]}


def test_mapping_values_may_be_bare_names_and_several_keys_may_select_one_branch() -> None:
    schema = one_of({"a": "One", "b": "One", "c": "#/components/schemas/Two"})
    assert to_input(schema, OPTIONS) == {"anyOf": [pinned_one("a", "b"), pinned_two("c")]}


def test_a_branch_without_mapping_entry_gets_its_name_unless_that_name_selects_another() -> None:
    assert to_input(one_of({"first": "One"}), OPTIONS) == {"anyOf": [pinned_one("first"), pinned_two("Two")]}
    assert to_input(one_of({"Two": "One"}), OPTIONS) == {"anyOf": [pinned_one("Two"), TWO]}


def test_a_mapping_target_reached_through_an_alias_is_the_same_branch() -> None:
    schemas = {**OPTIONS, "Alias": ref("One")}
    schema = {"oneOf": [ref("Alias"), ref("Two")], "discriminator": {"propertyName": "kind",
                                                                      "mapping": {"first": "One"}}}
    assert to_input(schema, schemas) == {"anyOf": [pinned_one("first"), pinned_two("Two")]}


def test_an_unresolved_mapping_value_is_reported_and_no_implicit_value_is_used() -> None:
    converter, diagnostics = make(OPTIONS)
    schema = one_of({"first": "One", "lost": "#/components/schemas/Gone"})
    assert converter.input_schema(schema, BODY) == {"anyOf": [pinned_one("first"), TWO]}
    assert warnings(diagnostics) == [(
        f"{BODY}/discriminator/mapping/lost",
        "discriminator mapping value '#/components/schemas/Gone' names no schema; it is ignored",
    )]


def test_a_mapping_value_naming_another_document_is_ignored_without_a_warning() -> None:
    converter, diagnostics = make(OPTIONS)
    schema = one_of({"first": "options.yaml#/One", "second": "Two"})
    assert converter.input_schema(schema, BODY) == {"anyOf": [ONE, pinned_two("second")]}
    assert warnings(diagnostics) == []


def test_numeric_mapping_keys_are_the_strings_yaml_read_as_numbers() -> None:
    assert to_input(one_of({1: "One"}), OPTIONS) == {"anyOf": [pinned_one("1"), pinned_two("Two")]}


def test_a_discriminator_without_property_name_is_reported_and_ignored() -> None:
    converter, diagnostics = make(OPTIONS)
    schema = {"oneOf": [ref("One"), ref("Two")], "discriminator": {"mapping": {"a": "One"}}}
    assert converter.input_schema(schema, BODY) == {"anyOf": [ONE, TWO]}
    assert warnings(diagnostics) == [
        (f"{BODY}/discriminator", "discriminator must be an object with a propertyName; it is ignored")
    ]


def test_the_propertys_own_values_win_over_discriminator_values_it_rejects() -> None:
    schemas = {
        "One": {"type": "object", "properties": {"kind": {"type": "string", "enum": ["one", "One"]}}},
        "Two": {"type": "object", "properties": {"kind": {"type": "string", "enum": ["two"]}}},
        "Three": {"type": "object", "properties": {"kind": {"type": "integer"}}},
    }
    schema = {"oneOf": [ref("One"), ref("Two"), ref("Three")], "discriminator": {"propertyName": "kind"}}
    assert to_input(schema, schemas) == {"anyOf": [
        {"type": "object", "properties": {"kind": {"type": "string", "enum": ["One"]}}, "required": ["kind"]},
        {"type": "object", "properties": {"kind": {"type": "string", "enum": ["two"]}}},
        {"type": "object", "properties": {"kind": {"type": "integer"}}},
    ]}


def test_a_nullable_property_is_pinned_to_its_values_without_null() -> None:
    schemas = {"One": {"type": "object", "properties": {"kind": {"type": "string", "nullable": True,
                                                                 "description": "The kind."}}}}
    schema = {"oneOf": [ref("One")], "discriminator": {"propertyName": "kind"}}
    assert to_input(schema, schemas) == {"anyOf": [
        {"type": "object", "properties": {"kind": kind("One")}, "required": ["kind"]},
    ]}


def test_the_property_may_be_declared_by_the_schema_holding_the_discriminator() -> None:
    schema = {
        "type": "object",
        "properties": {"tag": {"type": "string", "enum": ["a", "b", "z"]}},
        "discriminator": {"propertyName": "tag", "mapping": {"a": "One", "b": "Two", "c": "Two"}},
        "oneOf": [ref("One"), ref("Two"), ref("Closed")],
    }
    schemas = {**OPTIONS, "Closed": {"type": "object", "additionalProperties": False}}
    assert to_input(schema, schemas) == {
        "type": "object",
        "properties": {"tag": {"type": "string", "enum": ["a", "b", "z"]}},
        "anyOf": [
            {**ONE, "properties": {**ONE["properties"], "tag": {"type": "string", "enum": ["a"]}},
             "required": ["kind", "tag"]},
            {**TWO, "properties": {**TWO["properties"], "tag": {"type": "string", "enum": ["b"]}},
             "required": ["kind", "tag"]},
            {"type": "object", "additionalProperties": False},
        ],
    }


def test_nothing_is_pinned_when_no_schema_lists_the_property_or_branches_are_inline() -> None:
    elsewhere = {"oneOf": [ref("One"), ref("Two")], "discriminator": {"propertyName": "type"}}
    assert to_input(elsewhere, OPTIONS) == {"anyOf": [ONE, TWO]}
    inline = {"oneOf": [OPTIONS["One"], OPTIONS["Two"]], "discriminator": {"propertyName": "kind"}}
    assert to_input(inline, OPTIONS) == {"anyOf": [ONE, TWO]}


def test_pinning_copies_and_never_changes_the_shared_conversion_of_a_branch() -> None:
    converter, _ = make(copy.deepcopy(OPTIONS))
    first = converter.input_schema(ref("One"), BODY)
    before = copy.deepcopy(first)
    assert converter.input_schema(one_of(), BODY) == {"anyOf": [pinned_one("One"), pinned_two("Two")]}
    assert first == before == ONE
    assert converter.input_schema(ref("One"), BODY) == ONE


def test_output_schemas_stay_tolerant() -> None:
    result = to_output(one_of({"first": "One"}), OPTIONS)
    loose = {"description": "The kind.", "anyOf": [{"type": "string"}, {"type": "null"}]}
    number, string = ({"anyOf": [{"type": name}, {"type": "null"}]} for name in ("number", "string"))
    assert result == {"type": "object", "anyOf": [
        {"type": "object", "properties": {"kind": loose, "one": number}},
        {"type": "object", "properties": {"kind": loose, "two": string}},
    ]}


# allOf inheritance: the parent holds the discriminator, the children are `allOf: [parent, {...}]`.

PET = {"type": "object", "required": ["pet_type"], "properties": {"pet_type": {"type": "string"}},
       "discriminator": {"propertyName": "pet_type", "mapping": {"cat": "Cat", "dog": "Dog"}}}
CHILDREN = {
    "Pet": PET,
    "Cat": {"allOf": [ref("Pet"), {"type": "object", "properties": {"hunts": {"type": "boolean"}}}]},
    "Dog": {"allOf": [ref("Pet"), {"type": "object", "properties": {"bark": {"type": "boolean"}}}]},
}


def test_a_parent_referenced_directly_stays_the_open_object_every_child_fits() -> None:
    result = to_input(ref("Pet"), CHILDREN)
    assert result == {
        "type": "object", "required": ["pet_type"], "properties": {"pet_type": {"type": "string"}},
    }
    assert valid(result, {"pet_type": "dog", "bark": True})


def test_children_in_a_discriminated_oneof_are_pinned_through_their_merged_properties() -> None:
    schema = {"oneOf": [ref("Cat"), ref("Dog")], "discriminator": {"propertyName": "pet_type"}}
    assert to_input(schema, CHILDREN) == {"anyOf": [
        {"type": "object", "properties": {"pet_type": {"type": "string", "enum": ["Cat"]},
                                          "hunts": {"type": "boolean"}}, "required": ["pet_type"]},
        {"type": "object", "properties": {"pet_type": {"type": "string", "enum": ["Dog"]},
                                          "bark": {"type": "boolean"}}, "required": ["pet_type"]},
    ]}


def test_a_parent_listing_its_own_children_pins_each_child_and_stays_satisfiable() -> None:
    schemas = {**CHILDREN, "Pet": {**PET, "oneOf": [ref("Cat"), ref("Dog")]}}
    cut = {"description": RECURSION_NOTE.format("Pet"), "required": ["pet_type"]}
    assert to_input(ref("Pet"), schemas, max_ref_depth=1) == {
        "type": "object",
        "properties": {"pet_type": {"type": "string"}},
        "required": ["pet_type"],
        "anyOf": [
            {"type": "object", "properties": {"hunts": {"type": "boolean"},
                                              "pet_type": {"type": "string", "enum": ["cat"]}}, **cut},
            {"type": "object", "properties": {"bark": {"type": "boolean"},
                                              "pet_type": {"type": "string", "enum": ["dog"]}}, **cut},
        ],
    }
    deeper = to_input(ref("Pet"), schemas)
    checks = [valid(deeper, {"pet_type": value}) for value in ("cat", "dog", "Cat", "")]
    assert checks == [True, True, False, False]
