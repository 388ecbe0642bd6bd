"""JSON Schemas made Python types for the `api` stub (stubs.py): a schema becomes a union of
members (types, Literal values, None); an object with properties a TypedDict (a `Shape`), which the
type's text refers to by its index, to be named once the whole module is known.

Rules: string, integer, number, boolean, null -> str, int, float, bool, None; array -> list[T];
enum/const -> Literal (strings, ints, bools; other values their type); anyOf/oneOf -> a union,
each branch merged with what the schema says beside it; allOf -> one merged schema (a part whose
type contradicts the rest left out: the wider type never refuses a valid call); an object with
properties -> a TypedDict (none past `Limits.depth` levels: then `dict[str, Any]`); with only
additionalProperties -> dict[str, T]; a free-form object -> dict[str, Any]; a missing or boolean
schema -> Any; a local `$ref` -> a TypedDict named after its definition, made once per function
(a reference back into one being made is its name: recursion). In a result (`result=True`) None is
left out of unions and numbers are int (stubs.py says why). Schemas are JSON as `json.load` gives
them (dicts and lists); anything else in their place, or schemas nested past `NESTING`, mean Any.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

_TYPE_KEYS = frozenset(
    {"type", "properties", "items", "additionalProperties", "enum", "const", "allOf", "$ref"}
)
NESTING = 48  # a list of lists of... this deep is Any
_OWN_KEYS = _TYPE_KEYS | {"required"}  # what a schema beside its anyOf/oneOf says of each branch


def hole(index: int) -> str:
    """How a type's text refers to the function's TypedDict number `index`."""
    return f"\x00{index}\x00"


HOLE = re.compile("\x00(\\d+)\x00")


@dataclass
class Shape:
    """A TypedDict being made: its wanted name and fields (key, type text, required)."""

    base: str
    fields: list[tuple[str, str, bool]] = field(default_factory=list)


@dataclass(frozen=True)
class TypeUnion:
    """A type as the members of a union: types, Literal values, and None."""

    members: tuple[str, ...] = ()
    literals: tuple[str, ...] = ()
    nullable: bool = False

    def __or__(self, other: TypeUnion) -> TypeUnion:
        return TypeUnion(
            tuple(dict.fromkeys(self.members + other.members)),
            tuple(dict.fromkeys(self.literals + other.literals)),
            self.nullable or other.nullable,
        )

    def text(self, result: bool) -> str:
        """As a type; in a result (`result`) without None."""
        if "Any" in self.members:
            return "Any"
        literals = [value for value in self.literals if _literal_type(value) not in self.members]
        parts = [*self.members, *([f"Literal[{', '.join(literals)}]"] if literals else [])]
        if self.nullable and not (result and parts):
            parts.append("None")
        return " | ".join(parts) or "Any"


def _literal_type(literal: str) -> str:
    return "str" if literal.startswith('"') else "bool" if literal in ("True", "False") else "int"


ANY, OPEN_DICT = TypeUnion(("Any",)), TypeUnion(("dict[str, Any]",))
_SCALARS = {
    "string": TypeUnion(("str",)),
    "integer": TypeUnion(("int",)),
    "number": TypeUnion(("float",)),
    "boolean": TypeUnion(("bool",)),
    "null": TypeUnion(nullable=True),
}


@dataclass(frozen=True)
class Limits:
    """How much of the schemas a function's stub shows."""

    depth: int  # TypedDict levels (0: every object is dict[str, Any])
    literals: int | None  # the values a Literal may have (None: all); more become their type
    arg_chars: int  # an argument's description in `Args:` (0: none)


class TooLarge(Exception):
    """The TypedDicts made so far are already over the size guard (stubs.py tries less)."""


@dataclass
class Made:
    """The TypedDicts one function's types made (a type's text refers to each by `hole`), and their
    characters so far: past `limit`, TooLarge."""

    shapes: list[Shape] = field(default_factory=list)
    limit: int | None = None
    chars: int = 0

    def add(self, shape: Shape, key: str, text: str, required: bool) -> None:
        shape.fields.append((key, text, required))
        self.chars += len(key) + len(text) + 6  # at least what it takes in the stub
        if self.limit is not None and self.chars > self.limit:
            raise TooLarge


class SchemaTypes:
    """One schema's parts made types (`root` holds the `$defs` its references point to)."""

    def __init__(self, root: Any, limits: Limits, result: bool, made: Made) -> None:
        self.root, self.limits, self.result, self.made = root, limits, result, made
        self.by_ref: dict[str, TypeUnion] = {}
        self.nesting = 0  # schemas inside schemas: past NESTING, Any (Python's stack is finite)

    def text(self, schema: Any, name: str, level: int) -> str:
        return self.union(schema, name, level).text(self.result)

    def union(self, schema: Any, name: str, level: int) -> TypeUnion:
        if not isinstance(schema, dict) or self.nesting >= NESTING:
            return ANY
        self.nesting += 1
        try:
            return self.inside(schema, name, level)
        finally:
            self.nesting -= 1

    def inside(self, schema: dict[str, Any], name: str, level: int) -> TypeUnion:
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self.reference(ref, level)
        if "allOf" in schema:
            schema = self.merged(schema, ())
        branches = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(branches, list) and branches:
            return self.alternatives(schema, branches, name, level)
        if "const" in schema or isinstance(schema.get("enum"), list):
            return self.literal([schema["const"]] if "const" in schema else schema["enum"])
        kinds = schema.get("type")
        if isinstance(kinds, list):
            found = [
                self.single(schema, kind, name, level) for kind in kinds if isinstance(kind, str)
            ]
            return joined(found) if found else ANY
        return self.single(schema, kinds if isinstance(kinds, str) else None, name, level)

    def single(self, schema: dict[str, Any], kind: str | None, name: str, level: int) -> TypeUnion:
        if kind is None:
            kind = "object" if "properties" in schema or "additionalProperties" in schema else kind
            kind = "array" if kind is None and "items" in schema else kind
        if kind == "object":
            return self.object(schema, name, level)
        if kind == "array":
            return TypeUnion((f"list[{self.text(schema.get('items'), name + 'Item', level)}]",))
        if kind == "number" and self.result:
            return _SCALARS["integer"]
        return _SCALARS.get(kind or "", ANY)

    def object(self, schema: dict[str, Any], name: str, level: int) -> TypeUnion:
        if isinstance(schema.get("properties"), dict) and schema["properties"]:
            return (
                TypeUnion((self.shape(schema, name, level),))
                if level < self.limits.depth
                else OPEN_DICT
            )
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            return TypeUnion((f"dict[str, {self.text(extra, name + 'Value', level)}]",))
        return OPEN_DICT

    def shape(self, schema: dict[str, Any], name: str, level: int, ref: str | None = None) -> str:
        """A new TypedDict (its fields made after `ref` points to it: recursion finds it)."""
        shape, text = Shape(name), hole(len(self.made.shapes))
        self.made.shapes.append(shape)
        if ref is not None:
            self.by_ref[ref] = TypeUnion((text,))
        required = listed(schema.get("required"))
        for key, sub in schema["properties"].items():
            self.made.add(
                shape, key, self.text(sub, name + pascal(key), level + 1), key in required
            )
        return text

    def reference(self, ref: str, level: int) -> TypeUnion:
        """A local `$ref`: an object definition is a TypedDict named after it, made once."""
        if ref in self.by_ref:
            return self.by_ref[ref]
        target = self.resolve(ref)
        if not isinstance(target, dict):
            return ANY
        name, merged = pascal(_pointer_tokens(ref)[-1]), self.merged(target, (ref,))
        if not _is_plain_object(merged):
            self.by_ref[ref] = ANY  # a reference back into a non-object while making it
            self.by_ref[ref] = found = self.union(merged, name, level)
            return found
        if level >= self.limits.depth:
            return OPEN_DICT
        return TypeUnion((self.shape(merged, name, level, ref),))

    def resolve(self, ref: str) -> Any:
        """What a local reference (`#/$defs/Pet`) points to in the schema; None when nothing."""
        node = self.root if ref.startswith("#") else None
        for token in _pointer_tokens(ref):
            if isinstance(node, dict):
                node = node.get(token)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node

    def merged(self, schema: dict[str, Any], seen: tuple[str, ...]) -> dict[str, Any]:
        """`schema` with its allOf merged in (a part that contradicts the rest left out); `seen`: the
        references followed and allOfs entered on the way ("" for each inline one)."""
        parts = schema.get("allOf")
        if not isinstance(parts, list):
            return schema
        result: dict[str, Any] = {key: value for key, value in schema.items() if key != "allOf"}
        for part in parts if len(seen) < NESTING else ():
            ref = part.get("$ref") if isinstance(part, dict) else None
            ref = ref if isinstance(ref, str) and ref and ref not in seen else ""
            part = self.resolve(ref) if ref else part
            if isinstance(part, dict) and not isinstance(part.get("$ref"), str):
                result = _combined(result, self.merged(part, (*seen, ref))) or result
        return result

    def alternatives(
        self, schema: dict[str, Any], branches: list[Any], name: str, level: int
    ) -> TypeUnion:
        """anyOf/oneOf: the union of the branches, each merged with what the schema says beside."""
        own = {key: value for key, value in schema.items() if key in _OWN_KEYS}
        if own and not any(isinstance(b, dict) and b.keys() & _TYPE_KEYS for b in branches):
            return self.union(own, name, level)  # branches only say which properties are required
        named = [index for index, branch in enumerate(branches) if not _plain_value(branch)]
        found = []
        for index, branch in enumerate(branches):
            here = name + (str(named.index(index) + 1) if len(named) > 1 and index in named else "")
            if own and isinstance(branch, dict):
                ref = branch.get("$ref")
                target = self.resolve(ref) if isinstance(ref, str) else branch
                branch = (
                    _combined(own, self.merged(target, ())) if isinstance(target, dict) else own
                )
            if branch is not None:
                found.append(self.union(branch, here, level))
        return joined(found) if found else ANY

    def literal(self, values: list[Any]) -> TypeUnion:
        """enum/const: strings, ints and bools as Literal values (when few enough), others their type."""
        few = self.limits.literals is None or len(values) <= self.limits.literals
        literals, members = [], []
        for value in values:
            if few and (isinstance(value, str | bool) or type(value) is int):
                literals.append(quoted(value) if isinstance(value, str) else str(value))
            elif value is not None:
                kind = _VALUE_TYPES.get(type(value), "Any")
                members.append("int" if kind == "float" and self.result else kind)
        return TypeUnion(
            tuple(dict.fromkeys(members)), tuple(dict.fromkeys(literals)), None in values
        )


_VALUE_TYPES: dict[type, str] = {
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
    list: "list[Any]",
    dict: "dict[str, Any]",
}


def joined(unions: Iterable[TypeUnion]) -> TypeUnion:
    result = TypeUnion()
    for union in unions:
        result = result | union
    return result


def _combined(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any] | None:
    """Two schemas that both apply as one (properties and required joined, types intersected);
    None when their types exclude each other."""
    merged = dict(first)
    for key, value in second.items():
        if key == "properties" and isinstance(value, dict):
            known = mapped(merged.get(key))
            merged[key] = known | {name: sub for name, sub in value.items() if name not in known}
        elif key == "required" and isinstance(value, list):
            merged[key] = [*(merged.get(key) or []), *value]
        elif key == "type" and "type" in merged:
            mine, theirs = _as_list(merged["type"]), _as_list(value)
            both = [
                kind
                for kind in mine
                if kind in theirs or (kind == "integer" and "number" in theirs)
            ]
            both += ["integer"] if "integer" in theirs and "number" in mine else []
            if not both:
                return None
            merged[key] = both
        else:
            merged.setdefault(key, value)
    return merged


def _plain_value(schema: Any) -> bool:
    """Whether a branch holds no TypedDict (so the others are numbered without it)."""
    if not isinstance(schema, dict) or schema.keys() & {"properties", "allOf", "anyOf", "oneOf"}:
        return False
    kinds = _as_list(schema.get("type"))
    return set(kinds) <= _PLAIN or (
        "type" not in schema and bool(schema.keys() & {"enum", "const"})
    )


_PLAIN = {"string", "integer", "number", "boolean", "null"}


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def listed(value: Any) -> list[Any]:
    """`value` when a list, else []."""
    return value if isinstance(value, list) else []


def mapped(value: Any) -> dict[str, Any]:
    """`value` when a dict, else {}."""
    return value if isinstance(value, dict) else {}


def _is_plain_object(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type", "object")
    return (
        isinstance(schema.get("properties"), dict)
        and bool(schema["properties"])
        and kinds in ("object", ["object"])
        and not schema.keys() & {"anyOf", "oneOf"}
    )


def _pointer_tokens(ref: str) -> list[str]:
    tokens = unquote(ref.partition("#")[2]).split("/")[1:]
    return [token.replace("~1", "/").replace("~0", "~") for token in tokens] or [""]


def quoted(text: str) -> str:
    """`text` as a Python string literal in double quotes (all ASCII when it holds a lone surrogate,
    which UTF-8 cannot carry)."""
    return json.dumps(text, ensure_ascii=_SURROGATE.search(text) is not None)


_SURROGATE = re.compile("[\ud800-\udfff]")


@lru_cache(maxsize=65_536)
def pascal(text: str) -> str:
    """`text` in PascalCase, for a TypedDict's name: `pet_owner` -> `PetOwner`."""
    name = "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", text))
    return "T" + name if name[:1].isdigit() else name
