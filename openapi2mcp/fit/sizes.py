"""The size of a tool schema under every plan of `compact.PLANS`, measured without building any form.

Large specs have thousands of schemas to measure under 14 plans each, so `Sizer` walks a schema
once (each dict shared between schemas once per depth) and keeps the 14 sizes of a node packed
in one integer, a 64-bit lane per plan: adding a member to all plans is one integer addition
instead of 14. `Ladder` holds the unpacked sizes of one schema and picks the form for a limit.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
from dataclasses import dataclass
from typing import Any

from openapi2mcp.fit.compact import (
    AS_IS,
    CHILD,
    CHILD_GROUPS,
    EXAMPLES,
    PLANS,
    SAME,
    SAME_GROUPS,
    TEXT,
    shorten,
)
from openapi2mcp.model import JSONSchema
from openapi2mcp.schemas.converter import schema_size

Sizes = list[int]  # bytes of compact JSON under each plan, by plan index
Packed = int  # the sizes under every plan, plan i in bits [64 i, 64 i + 64)

_LANE_BITS = 64  # no JSON text of 2**64 bytes can be measured, so a lane never carries into the next
_LANE = (1 << _LANE_BITS) - 1
_INDEXES = range(len(PLANS))


def _lanes(indexes: Any) -> Packed:
    """1 in the lane of each plan index."""
    return sum(1 << (_LANE_BITS * index) for index in set(indexes))


_ALL = _lanes(_INDEXES)  # 1 in every lane: `n * _ALL` is n under every plan
_IS_TEXT, _IS_CHILD, _IS_CHILD_GROUP, _IS_SAME, _IS_SAME_GROUP = range(5)
_ROLES = {
    TEXT: _IS_TEXT,
    **dict.fromkeys(EXAMPLES, _IS_TEXT),
    **dict.fromkeys(CHILD, _IS_CHILD),
    **dict.fromkeys(CHILD_GROUPS, _IS_CHILD_GROUP),
    **dict.fromkeys(SAME, _IS_SAME),
    **dict.fromkeys(SAME_GROUPS, _IS_SAME_GROUP),
}
_NO_TEXT = -1  # the text length of a stub without its description


def unpack(packed: Packed) -> Sizes:
    return [(packed >> (_LANE_BITS * index)) & _LANE for index in _INDEXES]


@dataclass(frozen=True)
class _DepthLanes:
    """Which plans do what to a node at one depth."""

    text: Packed  # plans that keep its descriptions and examples
    text_by_length: tuple[tuple[int | None, Packed], ...]  # ... by the length descriptions are cut to
    stubs: tuple[tuple[int | None, Packed], ...]  # the stubbing plans: (text length or _NO_TEXT, lanes)
    stubbed: Packed  # all the bits of the plans that make it a stub


@functools.cache
def _depth_lanes(depth: int) -> _DepthLanes:
    texts = [index for index in _INDEXES if depth <= PLANS[index].text_depth]
    by_length: dict[int | None, list[int]] = {}
    for index in texts:
        by_length.setdefault(PLANS[index].text_length, []).append(index)
    stubbed = [index for index in _INDEXES if depth > PLANS[index].structure_depth]
    variants: dict[int | None, list[int]] = {}
    for index in stubbed:
        plan = PLANS[index]
        variants.setdefault(plan.text_length if depth <= plan.text_depth else _NO_TEXT, []).append(index)
    stubs = tuple((length, _lanes(indexes)) for length, indexes in variants.items())
    texts_by_length = tuple((length, _lanes(indexes)) for length, indexes in by_length.items())
    return _DepthLanes(_lanes(texts), texts_by_length, stubs, _lanes(stubbed) * _LANE)


class Sizer:
    """The size of a schema under every plan, exactly what `schema_size(Shrinker().root(...))`
    gives, from one walk (each dict once per depth) that builds nothing."""

    def __init__(self) -> None:
        self._memo: dict[tuple[int, int], tuple[Any, Packed]] = {}  # → (node kept alive, sizes)
        self._key_sizes: dict[str, int] = {}
        self._members: dict[tuple[str, type, Any], int] = {}  # `"key":value,` of scalars
        self._scalar_sizes: dict[tuple[type, Any], int] = {}
        self._texts: dict[tuple[str, int], Packed] = {}  # (description, id of its depth's lanes) → sizes
        self._text_sizes: dict[tuple[str, int | None], int] = {}  # (description, length) → size

    def root(self, schema: JSONSchema) -> Sizes:
        """A tool's schema: its properties (arguments) at depth 0, `$defs` at 1."""
        total = 2 * _ALL
        for key, value in schema.items():
            if key == "properties":
                total += self._each(value, 0) + (self._key(key) + 1) * _ALL
            elif key == "$defs":
                total += self._each(value, 1) + (self._key(key) + 1) * _ALL
            else:
                total += self._member_size(key, value) * _ALL
        return unpack(total - _ALL if schema else total)  # no comma after the last member

    def node(self, node: Any, depth: int) -> Packed:
        if not isinstance(node, dict):
            return self._value(node) * _ALL
        key = (id(node), depth)
        if key not in self._memo:
            self._memo[key] = node, self._node(node, depth)
        return self._memo[key][1]

    def _node(self, node: dict[str, Any], depth: int) -> Packed:
        lanes = _depth_lanes(depth)
        total, members, texts = 2 * _ALL, 0, False
        for key, value in node.items():
            role = _ROLES.get(key)
            if role is None:
                total += self._member_size(key, value) * _ALL
                members += 1
                continue
            if role == _IS_TEXT:
                total += self._text(key, value, lanes)
                texts = True
                continue
            members += 1
            if role == _IS_CHILD:
                total += self.node(value, depth + 1)
            elif role == _IS_CHILD_GROUP:
                total += self._each(value, depth + 1)
            elif role == _IS_SAME:
                total += self.node(value, depth)
            else:
                total += self._each(value, depth)
            total += (self._key(key) + 1) * _ALL
        total -= _ALL if members else lanes.text if texts else 0  # no comma after the last member
        if not lanes.stubbed:
            return total
        total &= ~lanes.stubbed
        for text_length, variant in lanes.stubs:
            total |= self._stub(node, text_length) * variant
        return total

    def _stub(self, node: dict[str, Any], text_length: int | None) -> int:
        """Bytes of `compact.stub(node, ...)` (its `type` or `$ref`, and its description cut to
        `text_length` unless _NO_TEXT), measured without building it."""
        size = 2
        kept = node.get("type")
        if isinstance(kept, str):
            size += self._member_size("type", kept)
        elif isinstance(kept := node.get("$ref"), str):
            size += self._member_size("$ref", kept)
        if text_length != _NO_TEXT and TEXT in node:
            size += self._text_size(node[TEXT], text_length)
        return size - 1 if size > 2 else size  # no comma after the last member

    def _text(self, key: str, value: Any, lanes: _DepthLanes) -> Packed:
        """A description or examples, with its key and comma, in the plans that keep it."""
        if key != TEXT or not isinstance(value, str):
            return (self._key(key) + self._value(value) + 1) * lanes.text
        packed = self._texts.get((value, id(lanes)))  # lanes: one object per depth, kept by the cache
        if packed is None:
            packed = 0
            for length, mask in lanes.text_by_length:
                packed += self._text_size(value, length) * mask
            self._texts[value, id(lanes)] = packed
        return packed

    def _text_size(self, text: Any, length: int | None) -> int:
        """Bytes of `"description":text,` with the text shortened to `length`."""
        key = (text, length) if isinstance(text, str) else None
        size = self._text_sizes.get(key) if key else None
        if size is None:
            size = self._key(TEXT) + self._value(shorten(text, length)) + 1
            if key:
                self._text_sizes[key] = size
        return size

    def _each(self, value: Any, depth: int) -> Packed:
        """A list or map of schemas."""
        if isinstance(value, list):
            total = 2 * _ALL + len(value) * _ALL  # brackets and commas
            for sub in value:
                total += self.node(sub, depth)  # an item has no `"key":`
            return total - _ALL if value else total
        if isinstance(value, dict):
            total = 2 * _ALL
            for name, sub in value.items():
                total += self.node(sub, depth) + (self._key(name) + 1) * _ALL
            return total - _ALL if value else total
        return self._value(value) * _ALL

    def _member_size(self, key: str, value: Any) -> int:
        """Bytes of `"key":value,`; measured once for a scalar value."""
        if isinstance(value, (dict, list)):
            return self._key(key) + schema_size(value) + 1
        member = (key, type(value), value)
        if member not in self._members:
            self._members[member] = self._key(key) + self._value(value) + 1
        return self._members[member]

    def _value(self, value: Any) -> int:
        """Bytes of a JSON value; scalars (most values: types, formats, names) are measured once."""
        if isinstance(value, (dict, list)):
            return schema_size(value)
        key = (type(value), value)
        if key not in self._scalar_sizes:
            self._scalar_sizes[key] = schema_size(value)
        return self._scalar_sizes[key]

    def _key(self, key: str) -> int:
        """Bytes of `"key":`."""
        if key not in self._key_sizes:
            self._key_sizes[key] = len(json.dumps(key, ensure_ascii=False).encode()) + 1
        return self._key_sizes[key]


class Ladder:
    """One tool schema: its size under every plan, and the form chosen for a byte limit."""

    def __init__(self, schema: JSONSchema, sizer: Sizer) -> None:
        self.schema = schema
        self.sizes = sizer.root(schema)
        # Minus the smallest size so far, by plan: ascending, so bisect finds the first plan that fits.
        self._thresholds = [-size for size in itertools.accumulate(self.sizes, min)]

    @property
    def size(self) -> int:
        return self.sizes[AS_IS]

    def fit(self, limit: int) -> int:
        """The index of the first plan whose form fits in `limit` bytes (0: no limit); the last
        plan's when none does."""
        if limit <= 0:
            return AS_IS
        return min(bisect.bisect_left(self._thresholds, -limit), len(PLANS) - 1)
