"""The trimmer of trimming.py: a JSON value shrunk to a budget of characters, never below what its
output schema requires (`required`, `minItems`, `minProperties`, `minLength`, through local `$ref`
and allOf/anyOf/oneOf), each cut recorded by path."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

to_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
"""serialize.to_json, without making an encoder for each call."""
_json = to_json
_MAP_KEYS = 100  # an object with more properties is a map (see Trimmer._object)
_FIXED = ("enum", "const", "pattern", "format", "contentEncoding", "contentMediaType")


def flat(schemas: Iterable[Any], root: Any, depth: int = 0) -> list[Mapping[str, Any]]:
    """Every schema that applies: `$ref`s (local) resolved, allOf/anyOf/oneOf branches all taken,
    so their constraints add up (conservative: whatever some branch requires is kept)."""
    found: list[Mapping[str, Any]] = []
    for schema in schemas:
        if not isinstance(schema, Mapping) or depth > 16:
            continue
        found.append(schema)
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target: Any = root
            for part in ref[2:].split("/"):
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, Mapping) else None
            found += flat([target], root, depth + 1)
        for key in ("allOf", "anyOf", "oneOf"):
            if isinstance(branches := schema.get(key), list):
                found += flat(branches, root, depth + 1)
    return found


def _size(value: Any, bound: int) -> int:
    """The length of `value`'s JSON text, or some length over `bound` when it is longer: a long
    array or object is not serialized whole to learn that it is too long (its items are)."""
    if isinstance(value, list | dict) and len(value) > 1:
        total = 1  # the opening bracket; each item adds its comma (the last: the closing bracket)
        pairs = value.items() if isinstance(value, dict) else ((None, item) for item in value)
        for key, item in pairs:
            total += (0 if key is None else len(_json(key)) + 1) + len(_json(item)) + 1
            if total > bound:
                break
        return total
    if isinstance(value, list | dict) and value:  # one item: its own size, bounded the same way
        if isinstance(value, list):
            return _size(value[0], bound) + 2
        key, item = next(iter(value.items()))
        return len(_json(key)) + 1 + _size(item, bound) + 2
    return len(_json(value))


def _fewer(
    keys: list[str],
    required: set[str],
    floor: int,
    sizes: Mapping[str, tuple[int, int]],
    fitted: Mapping[str, int],
    used: int,
    budget: int,
) -> list[str]:
    """`keys` without the optional ones, from the end, whose leaving out brings `used` within
    `budget` (as the values were fitted), keeping at least `floor`."""
    count, dropped = len(keys), set()
    for key in reversed(keys):
        if used <= budget or count <= floor:
            break
        if key not in required:
            used -= sizes[key][0] + fitted[key] + (1 if count > 1 else 0)
            dropped.add(key)
            count -= 1
    return [key for key in keys if key not in dropped]


def _most(schemas: Sequence[Mapping[str, Any]], key: str) -> int:
    return max((s[key] for s in schemas if isinstance(s.get(key), int)), default=0)


class Trimmer:
    """Shrinks a JSON value to a budget of characters, recording each cut (arrays, strings,
    properties) by path."""

    def __init__(self, root_schema: Any, unread: set[tuple[Any, ...]]) -> None:
        self.root, self.unread = root_schema, unread  # unread: arrays whose total is unknown
        self.arrays: list[tuple[tuple[Any, ...], int, int | None]] = []
        self.strings: list[tuple[tuple[Any, ...], int, int]] = []
        self.objects: list[tuple[tuple[Any, ...], int, int]] = []

    def fit(
        self,
        value: Any,
        schemas: list[Mapping[str, Any]],
        budget: int,
        size: int,
        path: tuple[Any, ...],
    ) -> tuple[Any, int]:
        """`value` (of JSON size `size`) within `budget` characters where its schemas allow."""
        if size <= budget:
            return value, size
        if isinstance(value, str):
            return self._string(value, schemas, budget, size, path)
        if isinstance(value, list):
            return self._array(value, schemas, budget, path)
        if isinstance(value, dict):
            return self._object(value, schemas, budget, path)
        return value, size

    def _string(
        self,
        text: str,
        schemas: list[Mapping[str, Any]],
        budget: int,
        size: int,
        path: tuple[Any, ...],
    ) -> tuple[str, int]:
        if any(key in schema for schema in schemas for key in _FIXED):
            return text, size
        marker = len(f"… [{len(text):,} more characters]")  # at least as long as the real one
        keep = max(budget - 2 - marker, _most(schemas, "minLength"), 0)
        for _ in range(64):  # escapes make the JSON longer than the text: shorten by the excess
            cut = text[:keep] + f"… [{len(text) - keep:,} more characters]"
            cut_size = len(_json(cut))
            if cut_size <= budget or keep <= _most(schemas, "minLength"):
                break
            keep = max(keep - max(cut_size - budget, 1), _most(schemas, "minLength"))
        if cut_size >= size:
            return text, size
        self.strings.append((path, keep, len(text)))
        return cut, cut_size

    def _array(
        self, items: list[Any], schemas: list[Mapping[str, Any]], budget: int, path: tuple[Any, ...]
    ) -> tuple[list[Any], int]:
        """Whole items from the start while they fit; the first `minItems` shrunk if need be, and
        the first one too when it fits once shrunk (one huge document)."""
        required = min(_most(schemas, "minItems"), len(items))
        kept: list[Any] = []
        used = 2
        for index, item in enumerate(items):
            comma = 1 if kept else 0
            size = _size(item, budget)
            room = budget - used - comma
            if size > room and index >= max(required, 1):
                break
            if size > room:
                share = max(room // max(required - index, 1), 0)
                marks = self._marks()
                item, size = self.fit(item, self._item(schemas, index), share, size, (*path, index))
                if size > room and index >= required:
                    self._forget(marks)
                    break
            kept.append(item)
            used += comma + size
        if len(kept) < len(items) or path in self.unread:
            total = None if path in self.unread else len(items)
            self.arrays.append((path, len(kept), total))
        return kept, used

    def _marks(self) -> tuple[int, int, int]:
        return len(self.arrays), len(self.strings), len(self.objects)

    def _forget(self, marks: tuple[int, int, int]) -> None:
        """Forget the cuts recorded since `marks`: their value is not used."""
        del self.arrays[marks[0] :], self.strings[marks[1] :], self.objects[marks[2] :]

    def _item(self, schemas: list[Mapping[str, Any]], index: int) -> list[Mapping[str, Any]]:
        found: list[Any] = []
        for schema in schemas:
            prefix = schema.get("prefixItems")
            if isinstance(prefix, list) and index < len(prefix):
                found.append(prefix[index])
            elif isinstance(schema.get("items"), Mapping):
                found.append(schema["items"])
        return flat(found, self.root)

    def _object(
        self,
        value: dict[str, Any],
        schemas: list[Mapping[str, Any]],
        budget: int,
        path: tuple[Any, ...],
    ) -> tuple[dict[str, Any], int]:
        """Small values whole, the larger ones sharing what is left; if that is still too long,
        optional properties are left out from the end, and the others share again. A map (over
        _MAP_KEYS properties) keeps its properties in order while they fit, the required ones all.
        """
        required = {name for schema in schemas for name in schema.get("required") or ()}
        if len(value) > _MAP_KEYS:
            return self._map(value, required, _most(schemas, "minProperties"), budget, path)
        keys = list(value)
        sizes = {key: (len(_json(key)) + 1, _size(value[key], budget)) for key in keys}
        marks, floor = self._marks(), _most(schemas, "minProperties")
        new, used, fitted = self._share(value, keys, sizes, schemas, budget, path)
        kept = keys
        while used > budget:  # a larger share may fit a kept value less tightly: check again
            fewer = _fewer(kept, required, floor, sizes, fitted, used, budget)
            if len(fewer) == len(kept):
                break
            kept = fewer  # what the previous sharing cut is forgotten
            del self.arrays[marks[0] :], self.strings[marks[1] :], self.objects[marks[2] :]
            new, used, fitted = self._share(value, kept, sizes, schemas, budget, path)
        if len(kept) < len(keys):
            self.objects.append((path, len(kept), len(keys)))
        return new, used

    def _map(
        self, value: dict[str, Any], required: set[str], floor: int, budget: int, path: Any
    ) -> tuple[dict[str, Any], int]:
        entry = {k: len(_json(k)) + len(_json(value[k])) + 2 for k in required & set(value)}
        reserved, used, full = sum(entry.values()), 1, False
        new: dict[str, Any] = {}
        for key, item in value.items():
            if key in required:
                size = entry[key]
                reserved -= size
            elif full:
                continue
            else:
                size = len(_json(key)) + len(_json(item)) + 2  # colon and comma
                full = len(new) >= floor and used + size + reserved > budget
                if full:
                    continue
            new[key], used = item, used + size
        if len(new) < len(value):
            self.objects.append((path, len(new), len(value)))
        return new, max(used, 2)

    def _share(
        self,
        value: dict[str, Any],
        keys: list[str],
        sizes: Mapping[str, tuple[int, int]],
        schemas: list[Mapping[str, Any]],
        budget: int,
        path: tuple[Any, ...],
    ) -> tuple[dict[str, Any], int, dict[str, int]]:
        """The `keys` of `value`, the smallest values first, each fitted to an equal share of what
        is left: (the object, its size, each value's size)."""
        frame = 2 + max(len(keys) - 1, 0) + sum(sizes[key][0] for key in keys)  # braces, commas
        remaining, left = budget - frame, len(keys)
        new: dict[str, Any] = {}
        fitted: dict[str, int] = {}
        for key in sorted(keys, key=lambda k: sizes[k][1]):  # stable: ties in document order
            child, share = self._property(schemas, key), max(remaining // left, 0)
            new[key], fitted[key] = self.fit(value[key], child, share, sizes[key][1], (*path, key))
            remaining, left = remaining - fitted[key], left - 1
        return {key: new[key] for key in keys}, frame + sum(fitted.values()), fitted

    def _property(self, schemas: list[Mapping[str, Any]], key: str) -> list[Mapping[str, Any]]:
        found: list[Any] = []
        for schema in schemas:
            properties = schema.get("properties")
            if isinstance(properties, Mapping) and key in properties:
                found.append(properties[key])
            elif isinstance(schema.get("additionalProperties"), Mapping):
                found.append(schema["additionalProperties"])
        return flat(found, self.root)
