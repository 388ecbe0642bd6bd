"""Results an agent can read: a tool result's JSON trimmed to PREFIX_MAX_RESULT_CHARS characters
(arrays from the end, long strings cut, optional properties of a huge object from the end, never
what the output schema requires), plain text cut, and the note and `_meta[META_KEY]` that say
what was left out and how to page.

Deterministic, and fast: a value is measured as its compact JSON text (`serialize.to_json`); the
trimmer enters only what must shrink, sizing each child of a container it enters once (an array's
items only until its budget is spent), so a 1 MB value costs about two serializations of it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING or not __package__:  # mypy, or loaded as a top-level module next to its siblings
    import serialize as ser  # type: ignore[import-not-found,unused-ignore]
else:
    from . import serialize as ser

META_KEY = "openapi2mcp/trimmed"  # the result's _meta key describing a trimmed result
NOTE_RESERVE = 1_000  # characters of the limit kept for the note (the JSON gets the rest)
_NAMED = 3  # cuts of each kind named in the note (up to _LISTED in _meta)
_LISTED = 50
_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
"""serialize.to_json, without making an encoder for each call."""
_MAP_KEYS = 100  # an object with more properties is a map (see _Trimmer._object)
_FIXED = ("enum", "const", "pattern", "format", "contentEncoding", "contentMediaType")
_PAGING = re.compile(  # argument names, lower-cased, without `_`, `-`, `.`, `[`, `]`, `$`
    r"page(number|no|size|token|cursor|after|before)?|nextpagetoken|perpage|(next)?cursor|limit"
    r"|offset|skip|top|after|before|startingafter|endingbefore|nexttoken|continuation(token)?"
    r"|marker|max(results|items)|start(index)?"
)


class Limits(Protocol):
    """What `Fit.of` reads of the runtime's Settings."""

    @property
    def prefix(self) -> str: ...
    @property
    def max_result_chars(self) -> int: ...


@dataclass(frozen=True)
class Fit:
    """How one tool's results are fitted: the limit, the output schema, the paging arguments."""

    limit: int
    setting: str  # the variable's name, for the note
    schema: Mapping[str, Any] | None = None
    paging: tuple[str, ...] = ()

    @classmethod
    def of(cls, settings: Limits, route: ser.Route, schema: Mapping[str, Any] | None) -> Fit:
        return cls(
            settings.max_result_chars, f"{settings.prefix}_MAX_RESULT_CHARS", schema, paging(route)
        )


@dataclass(frozen=True)
class BodyCut:
    """The body was cut at PREFIX_MAX_RESPONSE_BYTES: `omitted` bytes (or more) were not read."""

    omitted: int
    at_least: bool
    setting: str  # e.g. "API_MAX_RESPONSE_BYTES=1000000"


@dataclass(frozen=True)
class Trimmed:
    value: Any  # the structured content (for plain text: the text)
    text: str  # what the first content block shows: the value's JSON, or the cut text
    note: str  # the second content block
    meta: dict[str, Any]  # the result's _meta


def paging(route: ser.Route) -> tuple[str, ...]:
    """The arguments of the operation's query parameters and body fields named like paging ones."""
    fields = route.body.fields if route.body else ()
    return tuple(
        param.arg
        for param in (*route.params, *fields)
        if param.location in ("query", "body")
        and _PAGING.fullmatch(re.sub(r"[_.\[\]$-]", "", param.name.lower()))
    )


def json_path(parts: Sequence[Any]) -> str:
    """`$.filter.status`, `$.tags[0]`, `$['odd name']`."""
    return "$" + "".join(
        f"[{p}]" if isinstance(p, int) else f".{p}" if re.fullmatch(r"\w+", p) else f"[{p!r}]"
        for p in parts
    )


# ---- the trimmer -----------------------------------------------------------------------------


def _flat(schemas: Iterable[Any], root: Any, depth: int = 0) -> list[Mapping[str, Any]]:
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
            found += _flat([target], root, depth + 1)
        for key in ("allOf", "anyOf", "oneOf"):
            if isinstance(branches := schema.get(key), list):
                found += _flat(branches, root, depth + 1)
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


def _most(schemas: Sequence[Mapping[str, Any]], key: str) -> int:
    return max((s[key] for s in schemas if isinstance(s.get(key), int)), default=0)


class _Trimmer:
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
        return _flat(found, self.root)

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
        marks = self._marks()
        new, used, fitted = self._share(value, keys, sizes, schemas, budget, path)
        count, floor, dropped = len(keys), _most(schemas, "minProperties"), set()
        for key in reversed(keys):
            if used <= budget or count <= floor:
                break
            if key not in required:
                used -= sizes[key][0] + fitted[key] + (1 if count > 1 else 0)
                dropped.add(key)
                count -= 1
        if dropped:  # what the first sharing cut is forgotten
            kept = [key for key in keys if key not in dropped]
            del self.arrays[marks[0] :], self.strings[marks[1] :], self.objects[marks[2] :]
            new, used, _ = self._share(value, kept, sizes, schemas, budget, path)
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
        return _flat(found, self.root)


# ---- results -----------------------------------------------------------------------------------


def trim_json(
    value: Any,
    text: str,
    fit: Fit,
    cut: BodyCut | None = None,
    unread: Iterable[tuple[Any, ...]] = (),
) -> Trimmed | None:
    """`value` (whose JSON is `text`) within the limit; None when it fits and the body was whole.
    `unread`: the arrays the cut body left open (their total is unknown)."""
    if len(text) <= fit.limit and cut is None:
        return None
    budget = fit.limit - NOTE_RESERVE if fit.limit > 2 * NOTE_RESERVE else fit.limit // 2
    trimmer = _Trimmer(fit.schema, set(unread))
    schemas = _flat([fit.schema], fit.schema)
    trimmed, shown = value, text
    if len(text) > budget:
        trimmed = trimmer.fit(value, schemas, budget, len(text), ())[0]
        shown = _json(trimmed)
    recorded = {path for path, _, _ in trimmer.arrays}
    for path in dict.fromkeys(unread):  # open arrays the trimmer did not enter: all read is shown
        if path not in recorded and (length := _length(trimmed, path)) is not None:
            trimmer.arrays.append((path, length, None))
    cuts = {
        kind: [{"path": json_path(p), "kept": kept, "total": total} for p, kept, total in entries]
        for kind, entries in (
            ("arrays", trimmer.arrays),
            ("strings", trimmer.strings),
            ("properties", trimmer.objects),
        )
    }
    original = None if cut else len(text)
    return _result(trimmed, shown, fit, cut, original, cuts)


def _length(value: Any, path: tuple[Any, ...]) -> int | None:
    """The length of the array at `path`; None if trimming left it out."""
    for part in path:
        if (isinstance(value, dict) and part in value) or (
            isinstance(value, list) and part < len(value)
        ):
            value = value[part]
        else:
            return None
    return len(value) if isinstance(value, list) else None


def trim_text(text: str, fit: Fit, cut: BodyCut | None = None) -> Trimmed | None:
    """Plain text cut to the limit (less the note's reserve); None when it fits and is whole."""
    if len(text) <= fit.limit and cut is None:
        return None
    budget = fit.limit - NOTE_RESERVE if fit.limit > 2 * NOTE_RESERVE else fit.limit // 2
    shown = text if len(text) <= fit.limit else text[:budget]
    strings = [{"path": "$", "kept": len(shown), "total": len(text)}] if shown != text else []
    cuts: dict[str, list[dict[str, Any]]] = {"arrays": [], "strings": strings, "properties": []}
    return _result(shown, shown, fit, cut, None if cut else len(text), cuts)


def _result(
    value: Any,
    shown: str,
    fit: Fit,
    cut: BodyCut | None,
    original: int | None,
    cuts: Mapping[str, list[dict[str, Any]]],
) -> Trimmed:
    listed = {kind: entries[:_LISTED] for kind, entries in cuts.items()}
    meta: dict[str, Any] = {
        "originalChars": original,
        "shownChars": len(shown),
        "limit": fit.limit,
        "setting": fit.setting,
        **listed,
        "unlisted": sum(len(entries) - len(listed[kind]) for kind, entries in cuts.items()),
        "paging": list(fit.paging),
    }
    if cut:
        meta["responseCut"] = {
            "omittedBytes": cut.omitted,
            "atLeast": cut.at_least,
            "setting": cut.setting,
        }
    return Trimmed(
        value, shown, _note(fit, cut, original, cuts)[: NOTE_RESERVE - 1], {META_KEY: meta}
    )


def _note(
    fit: Fit, cut: BodyCut | None, original: int | None, cuts: Mapping[str, list[dict[str, Any]]]
) -> str:
    parts = []
    if cut:
        parts.append(
            f"The API answered successfully, but its response was too long: {cut.omitted:,}"
            f"{' or more' if cut.at_least else ''} bytes were left out ({cut.setting}); shown is"
            " what was read before the cut."
        )
    arrays, strings, objects = cuts["arrays"], cuts["strings"], cuts["properties"]
    if original is not None:
        parts.append(f"Trimmed to fit {fit.setting}={fit.limit:,} (the result had {original:,}).")
    elif strings or objects or any(entry["total"] is not None for entry in arrays):
        parts.append(f"What was read was trimmed to fit {fit.setting}={fit.limit:,}.")
    left = [
        f"items of {a['path']} after the first {a['kept']:,}"
        + ("" if a["total"] is None else f" (of {a['total']:,})")
        for a in arrays[:_NAMED]
    ]
    left += [f"{s['total'] - s['kept']:,} characters of {s['path']}" for s in strings[:_NAMED]]
    left += [f"{o['total'] - o['kept']:,} properties of {o['path']}" for o in objects[:_NAMED]]
    if left:
        unnamed = len(arrays) + len(strings) + len(objects) - len(left)
        parts.append(f"Left out: {'; '.join(left)}{f'; {unnamed} more' if unnamed else ''}.")
    if fit.paging:
        parts.append(f"To get the rest, page with this tool's arguments {', '.join(fit.paging)}.")
    else:
        parts.append("This operation has no paging arguments: narrow the request to get the rest.")
    return "[" + " ".join(parts) + " The call succeeded: repeating it unchanged gives the same.]"
