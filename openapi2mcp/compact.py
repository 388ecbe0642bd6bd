"""Compact forms of a tool's schemas, giving up the least useful parts first.

MCP clients do not take tool definitions of any size: claude.ai silently drops a tool whose
inputSchema is over 16 KiB, and the TypeScript SDK refuses a message over 10 MiB, which one
tools/list of Kubernetes' CRD tools (1 MB each) easily is. `PLANS` are the forms, from the
schema as it is to its arguments' types alone:

1. descriptions below the arguments shortened to their first sentence;
2. descriptions and examples kept on the arguments and their own properties only, then on the
   arguments only (shortened, too);
3. nesting cut: a schema deeper than N levels below an argument (N = 8, 6, 4, 3, 2, 1, 0) becomes
   a stub that keeps its `type` (or `$ref`) only, so an object there is open;
4. the arguments' descriptions cut to 60 characters, then the arguments themselves made stubs,
   with that description, then without.

The arguments, their names and whether they are required never change, so every call that was
valid stays valid and is sent the same way; what a cut removes is checked by the API instead
of the generated server. Depth counts values, not keywords: an argument (a property of the root)
is depth 0, its properties and items depth 1; `anyOf`/`oneOf`/`allOf` branches share their
parent's depth, and the root's `$defs` are depth 1.

`Sizer` measures a schema under every plan in one walk, without building any form (large specs
have thousands of tools to measure); `Shrinker` builds the one form chosen. Both walk each dict
shared between schemas (converted schemas share nested dicts) once per depth.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from openapi2mcp.model import JSONSchema
from openapi2mcp.schemas import schema_size

SHORT_TEXT = 160  # characters of a shortened description
TINY_TEXT = 60  # ... and of a very short one
_UNLIMITED = 1_000_000

# Keywords whose value is a schema one level deeper (an item, a map value), or a map or list of them ...
_CHILD = ("items", "additionalProperties", "contains", "propertyNames", "unevaluatedProperties")
_CHILD_GROUPS = ("properties", "patternProperties", "prefixItems")
# ... or a schema for the same value, or a map or list of them.
_SAME = ("not", "if", "then", "else")
_SAME_GROUPS = ("anyOf", "oneOf", "allOf", "dependentSchemas")
_TEXT = "description"
_EXAMPLES = ("examples", "example")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n\s*\n")


@dataclass(frozen=True)
class Plan:
    """How much of a schema to keep: text down to `text_depth` (shortened to `text_length`
    characters when set), structure down to `structure_depth`."""

    text_depth: int
    text_length: int | None
    structure_depth: int
    what: str  # for diagnostics


AS_IS = 0  # the index of the plan that keeps everything
PLANS = (
    Plan(_UNLIMITED, None, _UNLIMITED, "kept whole"),
    Plan(_UNLIMITED, SHORT_TEXT, _UNLIMITED, "nested descriptions shortened"),
    Plan(1, SHORT_TEXT, _UNLIMITED, "descriptions kept down to the arguments' own properties"),
    Plan(0, SHORT_TEXT, _UNLIMITED, "descriptions kept on the arguments only"),
    *(Plan(0, SHORT_TEXT, depth, f"nesting cut below level {depth}") for depth in (8, 6, 4, 3, 2, 1)),
    Plan(0, SHORT_TEXT, 0, "nesting cut below the arguments"),
    Plan(0, TINY_TEXT, 0, f"nesting cut below the arguments, descriptions cut to {TINY_TEXT} characters"),
    Plan(0, TINY_TEXT, -1, f"each argument cut to its type, descriptions cut to {TINY_TEXT} characters"),
    Plan(-1, None, -1, "each argument cut to its type, descriptions dropped"),
)
_INDEXES = range(len(PLANS))


def stub(node: dict[str, Any], plan: Plan, depth: int) -> dict[str, Any]:
    """What is left of a schema past the cut: its `type` (or its `$ref`) and, when the plan keeps
    text at this depth, its description; nothing that constrains more."""
    out: dict[str, Any] = {}
    if isinstance(node.get("type"), str):
        out["type"] = node["type"]
    elif isinstance(node.get("$ref"), str):
        out["$ref"] = node["$ref"]
    if depth <= plan.text_depth and _TEXT in node:
        out[_TEXT] = shorten(node[_TEXT], plan.text_length)
    return out


def shorten(text: Any, length: int | None) -> Any:
    """The first sentence of `text`, at most `length` characters (an ellipsis marks a cut)."""
    if not isinstance(text, str) or length is None:
        return text
    first = " ".join(_SENTENCE_END.split(text.strip(), maxsplit=1)[0].split())
    if len(first) <= length:
        return first
    return first[: length - 1].rstrip() + "…"


class Shrinker:
    """Builds a schema's form under one plan; the input is never changed."""

    def __init__(self) -> None:
        self._memo: dict[tuple[int, int, int], tuple[Any, Any]] = {}  # → (node kept alive, result)

    def root(self, schema: JSONSchema, index: int) -> JSONSchema:
        """A tool's schema under `PLANS[index]`: its properties (arguments) at depth 0, `$defs` at 1."""
        if index == AS_IS:
            return schema
        out = dict(schema)
        if "properties" in schema:
            out["properties"] = self._each(schema["properties"], 0, index)
        if "$defs" in schema:
            out["$defs"] = self._each(schema["$defs"], 1, index)
        return out

    def shrink(self, node: Any, depth: int, index: int) -> Any:
        if not isinstance(node, dict):
            return node
        key = (id(node), depth, index)
        if key not in self._memo:
            self._memo[key] = node, self._shrink(node, depth, index)
        return self._memo[key][1]

    def _shrink(self, node: dict[str, Any], depth: int, index: int) -> dict[str, Any]:
        plan = PLANS[index]
        if depth > plan.structure_depth:
            return stub(node, plan, depth)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == _TEXT or key in _EXAMPLES:
                if depth <= plan.text_depth:
                    out[key] = shorten(value, plan.text_length) if key == _TEXT else value
            elif key in _CHILD:
                out[key] = self.shrink(value, depth + 1, index)
            elif key in _CHILD_GROUPS:
                out[key] = self._each(value, depth + 1, index)
            elif key in _SAME:
                out[key] = self.shrink(value, depth, index)
            elif key in _SAME_GROUPS:
                out[key] = self._each(value, depth, index)
            else:
                out[key] = value
        return out

    def _each(self, value: Any, depth: int, index: int) -> Any:
        """Each schema of a list or of a map of schemas, shrunk."""
        if isinstance(value, list):
            return [self.shrink(sub, depth, index) for sub in value]
        if isinstance(value, dict):
            return {name: self.shrink(sub, depth, index) for name, sub in value.items()}
        return value


Sizes = list[int]  # bytes of compact JSON under each plan, by plan index


class Sizer:
    """The size of a schema under every plan, exactly what `schema_size(Shrinker().root(...))`
    gives, from one walk (each dict once per depth) that builds nothing."""

    def __init__(self) -> None:
        self._memo: dict[tuple[int, int], tuple[Any, Sizes]] = {}  # → (node kept alive, sizes)
        self._key_sizes: dict[str, int] = {}
        self._scalar_sizes: dict[tuple[type, Any], int] = {}

    def root(self, schema: JSONSchema) -> Sizes:
        sizes, counts = [2] * len(PLANS), [0] * len(PLANS)
        for key, value in schema.items():
            if key == "properties":
                _add(sizes, counts, self._key(key), self._each(value, 0))
            elif key == "$defs":
                _add(sizes, counts, self._key(key), self._each(value, 1))
            else:
                _add_constant(sizes, counts, self._key(key) + self._value(value))
        return _closed(sizes, counts)

    def node(self, node: Any, depth: int) -> Sizes:
        if not isinstance(node, dict):
            return [self._value(node)] * len(PLANS)
        key = (id(node), depth)
        if key not in self._memo:
            self._memo[key] = node, self._node(node, depth)
        return self._memo[key][1]

    def _node(self, node: dict[str, Any], depth: int) -> Sizes:
        sizes, counts = [2] * len(PLANS), [0] * len(PLANS)
        for key, value in node.items():
            if key == _TEXT or key in _EXAMPLES:
                self._add_text(sizes, counts, key, value, depth)
            elif key in _CHILD:
                _add(sizes, counts, self._key(key), self.node(value, depth + 1))
            elif key in _CHILD_GROUPS:
                _add(sizes, counts, self._key(key), self._each(value, depth + 1))
            elif key in _SAME:
                _add(sizes, counts, self._key(key), self.node(value, depth))
            elif key in _SAME_GROUPS:
                _add(sizes, counts, self._key(key), self._each(value, depth))
            else:
                _add_constant(sizes, counts, self._key(key) + self._value(value))
        closed = _closed(sizes, counts)
        stubs: dict[tuple[bool, int | None], int] = {}
        for index, plan in enumerate(PLANS):
            if depth > plan.structure_depth:
                variant = (depth <= plan.text_depth, plan.text_length)
                if variant not in stubs:
                    stubs[variant] = self._flat(stub(node, plan, depth))
                closed[index] = stubs[variant]
        return closed

    def _add_text(self, sizes: Sizes, counts: list[int], key: str, value: Any, depth: int) -> None:
        by_length: dict[int | None, int] = {}
        for index, plan in enumerate(PLANS):
            if depth > plan.text_depth:
                continue
            length = plan.text_length if key == _TEXT else None
            if length not in by_length:
                by_length[length] = self._key(key) + self._value(shorten(value, length))
            sizes[index] += by_length[length]
            counts[index] += 1

    def _each(self, value: Any, depth: int) -> Sizes:
        if isinstance(value, list):
            sizes, counts = [2] * len(PLANS), [0] * len(PLANS)
            for sub in value:
                _add(sizes, counts, 0, self.node(sub, depth))  # an item has no `"key":`
            return _closed(sizes, counts)
        if isinstance(value, dict):
            sizes, counts = [2] * len(PLANS), [0] * len(PLANS)
            for name, sub in value.items():
                _add(sizes, counts, self._key(name), self.node(sub, depth))
            return _closed(sizes, counts)
        return [self._value(value)] * len(PLANS)

    def _value(self, value: Any) -> int:
        """Bytes of a JSON value; scalars (most values: types, formats, names) are measured once."""
        if isinstance(value, (dict, list)):
            return schema_size(value)
        key = (type(value), value)
        if key not in self._scalar_sizes:
            self._scalar_sizes[key] = schema_size(value)
        return self._scalar_sizes[key]

    def _flat(self, node: dict[str, Any]) -> int:
        """Bytes of a dict of scalars."""
        return 1 + sum(self._key(key) + self._value(value) + 1 for key, value in node.items()) + (not node)

    def _key(self, key: str) -> int:
        """Bytes of `"key":`."""
        if key not in self._key_sizes:
            self._key_sizes[key] = len(json.dumps(key, ensure_ascii=False).encode()) + 1
        return self._key_sizes[key]


def _add(sizes: Sizes, counts: list[int], key_size: int, child: Sizes) -> None:
    for index in _INDEXES:
        sizes[index] += key_size + child[index]
        counts[index] += 1


def _add_constant(sizes: Sizes, counts: list[int], size: int) -> None:
    for index in _INDEXES:
        sizes[index] += size
        counts[index] += 1


def _closed(sizes: Sizes, counts: list[int]) -> Sizes:
    """Sizes with the commas between the members counted."""
    return [size + count - 1 if count else size for size, count in zip(sizes, counts, strict=True)]


class Ladder:
    """One tool schema: its size under every plan, and the form chosen for a byte limit."""

    def __init__(self, schema: JSONSchema, sizer: Sizer) -> None:
        self.schema = schema
        self.sizes = sizer.root(schema)

    @property
    def size(self) -> int:
        return self.sizes[AS_IS]

    def fit(self, limit: int) -> int:
        """The index of the first plan whose form fits in `limit` bytes (0: no limit); the last
        plan's when none does."""
        if limit <= 0:
            return AS_IS
        return next((index for index in _INDEXES if self.sizes[index] <= limit), len(PLANS) - 1)
