"""The schema narrowing of `openapi2mcp.tools.sendable`, on converted schemas, without a spec around."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from openapi2mcp.tools.sendable import NON_EMPTY, admits_null, forbid_empty, non_null

NULL = {"type": "null"}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string"}, {"type": "string"}),
        (NULL, NULL),
        ({"const": None}, {"const": None}),
        ({"enum": [None]}, {"enum": [None]}),
        ({"enum": ["a", None], "default": None}, {"enum": ["a"]}),
        ({"not": {"enum": ["x"]}}, {"not": {"enum": ["x"]}, "allOf": [{"not": NULL}]}),
        ({"not": NULL}, {"not": NULL}),
        (
            {"allOf": [{"type": "object"}], "description": "d"},
            {"allOf": [{"type": "object"}], "description": "d"},
        ),
        ({"$ref": "#/$defs/Pet"}, {"$ref": "#/$defs/Pet", "not": NULL}),
        (
            {"anyOf": [{"type": "string", "description": "own"}, NULL], "description": "top"},
            {"anyOf": [{"type": "string", "description": "own"}], "description": "top"},
        ),
        (
            {"anyOf": [{"type": "string"}, NULL], "oneOf": [{"minLength": 2}, {"maxLength": 1}]},
            {"type": "string", "oneOf": [{"minLength": 2}, {"maxLength": 1}]},
        ),
        ({"anyOf": [NULL, {"enum": [None]}]}, {"anyOf": [NULL, {"enum": [None]}]}),
    ],
    ids=[
        "typed",
        "null-only",
        "const-null",
        "enum-null-only",
        "enum",
        "has-not",
        "not-null",
        "all-of-typed",
        "local-ref",
        "clash-not-merged",
        "any-of-and-one-of",
        "null-branches-only",
    ],
)
def test_non_null(schema: dict[str, Any], expected: dict[str, Any]) -> None:
    before = copy.deepcopy(schema)
    assert non_null(schema) == expected
    assert schema == before


@pytest.mark.parametrize(
    ("schema", "admits"),
    [
        ({}, True),
        ({"description": "d", "minLength": 1}, True),
        (NULL, True),
        ({"type": "integer"}, False),
        ({"enum": [1, None]}, True),
        ({"enum": [1]}, False),
        ({"const": 1}, False),
        ({"anyOf": [{"type": "integer"}, NULL]}, True),
        ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, False),
        ({"allOf": [{}, {"type": "object"}]}, False),
        ({"not": {}}, False),
        ({"not": {"$ref": "#/$defs/X"}}, True),
    ],
)
def test_admits_null_is_false_only_when_null_is_certainly_invalid(
    schema: dict[str, Any], admits: bool
) -> None:
    assert admits_null(schema) is admits


@pytest.mark.parametrize(
    ("schema", "types", "expected"),
    [
        ({}, NON_EMPTY, {"minLength": 1, "minItems": 1, "minProperties": 1}),
        ({}, ("string",), {"minLength": 1}),
        ({"type": "array"}, ("string",), {"type": "array"}),
        ({"$ref": "#/$defs/Name"}, NON_EMPTY, {"$ref": "#/$defs/Name"}),
        ({"enum": [[], [1]]}, NON_EMPTY, {"enum": [[], [1]], "minItems": 1}),
        ({"enum": [0, False, None]}, NON_EMPTY, {"enum": [0, False, None]}),
        ({"const": ""}, ("string",), {"const": "", "minLength": 1}),
        ({"type": "object", "minProperties": 2}, NON_EMPTY, {"type": "object", "minProperties": 2}),
    ],
    ids=["untyped", "untyped-string", "other-type", "local-ref", "enum-empty", "enum-falsy", "const", "kept"],
)
def test_forbid_empty(schema: dict[str, Any], types: tuple[str, ...], expected: dict[str, Any]) -> None:
    assert forbid_empty(schema, types) == expected


def test_forbid_empty_reaches_string_items_only_when_asked_and_never_changes_its_input() -> None:
    items = {"anyOf": [{"type": "string"}, NULL]}
    schema = {"type": "array", "items": items}
    assert forbid_empty(schema, ("array",)) == {"type": "array", "items": items, "minItems": 1}
    assert forbid_empty(schema, ("array",), items=True) == {
        "type": "array",
        "items": {"anyOf": [{"type": "string", "minLength": 1}, NULL]},
        "minItems": 1,
    }
    assert schema == {"type": "array", "items": {"anyOf": [{"type": "string"}, NULL]}}
