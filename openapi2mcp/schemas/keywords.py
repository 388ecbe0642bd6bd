"""Keyword tables and small pure rules of the schema converter (see `openapi2mcp.schemas.converter`).

Nothing here knows about references or about a conversion in progress: which keywords are kept and
how their values are checked, how several types become one schema, and how null is added.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openapi2mcp.load.refs import JSON

Schema = dict[str, Any]
DESCRIPTION_LIMIT = 300
EXAMPLE_LIMIT = 80

TYPES = ("string", "number", "integer", "boolean", "array", "object")
SUBSCHEMA = frozenset({"items", "additionalProperties", "not", "contains", "propertyNames"})
SUBSCHEMA_LISTS = frozenset({"anyOf", "oneOf", "prefixItems"})
LOCATED = SUBSCHEMA | SUBSCHEMA_LISTS | {"patternProperties"}
OUTPUT_KEYWORDS = frozenset({"description", "items", "prefixItems", "additionalProperties", "anyOf", "oneOf"})
CONSTRAINTS = frozenset({"type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref"})
LIFTED = ("description", "default", "examples")
# One dict for every schema that is a type and nothing else (the null alternative of each member of an
# outputSchema, most items and plain properties): read-only, like every nested dict of a result.
TYPE_ONLY: dict[str, Schema] = {name: {"type": name} for name in (*TYPES, "null")}
NULL_TYPE = TYPE_ONLY["null"]
# Keywords that never constrain a converted schema. `$defs` is one: the caller hoists the local
# definitions of a tool's schema to its root (`SchemaConverter.local_defs`).
ANNOTATIONS = frozenset(
    {
        "description",
        "summary",
        "title",
        "default",
        "example",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "nullable",
        "discriminator",
        "xml",
        "externalDocs",
        "$defs",
    }
)
_FAMILY = {  # which type a keyword constrains, for splitting `type` arrays into anyOf branches
    **dict.fromkeys(("minLength", "maxLength", "pattern", "contentEncoding", "contentMediaType"), "string"),
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), "number"),
    **dict.fromkeys(("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"), "array"),
    **dict.fromkeys(
        (
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "minProperties",
            "maxProperties",
            "dependentRequired",
            "propertyNames",
        ),
        "object",
    ),
}


def is_number(value: JSON) -> bool:
    """A JSON number: not a boolean, not NaN or infinity (which YAML can write and JSON cannot)."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and (isinstance(value, int) or math.isfinite(value))
    )


def is_names(value: JSON) -> bool:
    return isinstance(value, list) and all(isinstance(name, str) for name in value)


def is_regex(value: JSON) -> bool:
    """A regular expression Python's `re` compiles (what the server's argument validation runs). Its
    FutureWarnings ("possible nested set" for `[[A-Z]`, a valid ECMA-262 class) are not printed: the
    pattern means today what the spec says."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            re.compile(value)
    except (re.error, TypeError):
        return False
    return isinstance(value, str)


CHECKS: dict[str, Callable[[JSON], bool]] = {  # scalar keywords kept in input schemas, and their checks
    **dict.fromkeys(
        (
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
            "minProperties",
            "maxProperties",
            "minContains",
            "maxContains",
        ),
        lambda value: is_number(value) and value >= 0 and float(value).is_integer(),
    ),
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"), is_number),
    **dict.fromkeys(
        ("description", "format", "contentEncoding", "contentMediaType"), lambda value: isinstance(value, str)
    ),
    "multipleOf": lambda value: is_number(value) and value > 0,
    "pattern": is_regex,
    "uniqueItems": lambda value: isinstance(value, bool),
    "const": lambda value: True,
    "default": lambda value: True,
    "dependentRequired": lambda value: isinstance(value, dict) and all(map(is_names, value.values())),
}


@dataclass(frozen=True)
class Located:
    """A keyword value moved by `allOf` merging, with the pointer where the spec wrote it."""

    node: JSON
    pointer: str


def unwrap(value: JSON, pointer: str) -> tuple[JSON, str]:
    return (value.node, value.pointer) if isinstance(value, Located) else (value, pointer)


def join(base: str, *tokens: str | int) -> str:
    """`diagnostics.pointer_join`, cheaper for the common tokens (this is the converter's hot path)."""
    for token in tokens:
        text = str(token)
        if "~" in text or "/" in text:
            text = text.replace("~", "~0").replace("/", "~1")
        base = f"{base}/{text}"
    return base


def exclusive_bounds(node: Schema) -> Schema:
    """OAS 3.0 `minimum: n, exclusiveMinimum: true` → 2020-12 `exclusiveMinimum: n` (same for max)."""
    if type(node.get("exclusiveMinimum")) is not bool and type(node.get("exclusiveMaximum")) is not bool:
        return node
    node = dict(node)
    for bound, flag in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if isinstance(node.get(flag), bool) and node.pop(flag) and bound in node:
            node[flag] = node.pop(bound)
    return node


# The numeric formats of OpenAPI (int32, int64, float) and of common practice, as the bounds of their
# values, for the JSON type they describe (`double` is every JSON number Python reads).
FLOAT_MAX = 3.4028234663852886e38  # the largest finite 32-bit float (IEEE 754 binary32)
FORMAT_RANGES: dict[tuple[str, str], tuple[float, float]] = {
    **{("integer", f"int{bits}"): (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) for bits in (8, 16, 32, 64)},
    **{("integer", f"uint{bits}"): (0, 2**bits - 1) for bits in (8, 16, 32, 64)},
    ("number", "float"): (-FLOAT_MAX, FLOAT_MAX),
}


def format_bounds(out: Schema, types: list[str]) -> Schema:
    """A numeric `format` as `minimum`/`maximum` (JSON Schema validators do not check formats), so
    that a valid argument fits the wire type (refugerestrooms.org's `lat`, a `float`, took 1.8e308);
    bounds of the spec's own that are tighter stay."""
    bounds = FORMAT_RANGES.get((types[0], str(out.get("format")))) if len(types) == 1 else None
    if bounds is None:
        return out
    low, high = bounds
    out = dict(out)
    if "exclusiveMinimum" not in out:
        out["minimum"] = max(out["minimum"], low) if is_number(out.get("minimum")) else low
    if "exclusiveMaximum" not in out:
        out["maximum"] = min(out["maximum"], high) if is_number(out.get("maximum")) else high
    return out


def typed(out: Schema, types: list[str]) -> Schema:
    """Add the type; several types become an anyOf with each type-specific keyword in its branch."""
    if len(types) < 2:
        if types and not out and types[0] in TYPE_ONLY:
            return TYPE_ONLY[types[0]]
        return {"type": types[0], **out} if types else out
    if "enum" in out or "const" in out:
        return out  # the values say it all

    def family(key: str, value: JSON) -> str | None:
        if key == "format":
            return "number" if value in ("int32", "int64", "float", "double") else "string"
        return _FAMILY.get(key)

    def branch(name: str) -> Schema:
        wanted = (name, "number" if name == "integer" else name)
        return {"type": name, **{key: value for key, value in out.items() if family(key, value) in wanted}}

    common = {key: value for key, value in out.items() if family(key, value) is None}
    if "anyOf" in common:
        common["allOf"] = [*common.get("allOf", []), {"anyOf": common.pop("anyOf")}]
    return {**common, "anyOf": [branch(name) for name in types]}


def accepts_null(schema: Schema) -> bool:
    keys = schema.keys() & CONSTRAINTS
    if keys == {"type"}:
        return bool(schema["type"] == "null")
    if keys == {"enum"}:
        return None in schema["enum"]
    if keys == {"anyOf"}:
        return any(accepts_null(branch) for branch in schema["anyOf"])
    return not keys


def with_null(schema: Schema) -> Schema:
    """`schema` or null: null joins an enum, or an anyOf carries the annotations on top."""
    if accepts_null(schema):
        return schema
    if "enum" in schema:
        values = schema["enum"] if None in schema["enum"] else [*schema["enum"], None]
        return {**{key: value for key, value in schema.items() if key != "type"}, "enum": values}
    top = {key: schema[key] for key in LIFTED if key in schema}
    rest = {key: value for key, value in schema.items() if key not in LIFTED} if top else schema
    branches = rest["anyOf"] if rest.keys() == {"anyOf"} else [rest]
    return {**top, "anyOf": [*branches, NULL_TYPE]}


def dedupe(branches: list[Schema]) -> list[Schema]:
    return [branch for index, branch in enumerate(branches) if branch not in branches[:index]]


def shorten(text: JSON) -> JSON:
    if not isinstance(text, str) or len(text) <= DESCRIPTION_LIMIT:
        return text
    return text[: DESCRIPTION_LIMIT - 1].rstrip() + "…"


def as_list(value: JSON) -> list[JSON]:
    return value if isinstance(value, list) else [value]
