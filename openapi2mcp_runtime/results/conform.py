"""A real API's answer made to fit the tool's output schema (pure: no I/O). APIs deviate from their
specs (null where not nullable, a number as a string, an array for a string, another root type); the
call still succeeded, so the result stays a success: its structuredContent leaves each deviating
value out (an array item becomes null, which generated output schemas allow: positions are kept),
the text block still carries the answer whole, and `_meta[META_KEY]` lists the JSON pointers of
what was left out or nulled. jsonschema finds the deviations; nothing here validates by hand.

Generated output schemas list no `required` and let every property and item be null (the
generator's tolerant output schemas), so leaving out or nulling a value always makes room; with a
stricter schema a deviation that stays (a missing required property) moves the fix to its parent,
up to the root, whose replacement is `{}`. When not even `{}` fits, `conform` gives None."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

META_KEY = "openapi2mcp/deviations"  # the result's _meta key listing what the answer's data lost
LISTED = 50  # pointers listed of each kind; `unlisted` counts the rest
_PASSES = 64  # validations at most (each pass fixes every deviation found, nested ones later)

Errors = Callable[[Any], Sequence[Any]]  # jsonschema's errors of a value against the output schema
Path = tuple[Any, ...]


@dataclass(frozen=True)
class Conformed:
    """Structured content that meets the output schema, and what of the answer it lacks."""

    value: dict[str, Any]
    left_out: tuple[Path, ...] = ()  # values not in `value` ((): the whole answer; `value` is {})
    nulled: tuple[Path, ...] = ()  # array items that are null in `value`

    @property
    def meta(self) -> dict[str, Any] | None:
        """`{META_KEY: {"leftOut": [...], "nulled": [...], "unlisted": n}}`, or None if nothing."""
        if not self.left_out and not self.nulled:
            return None
        left, nulled = [pointer(p) for p in self.left_out], [pointer(p) for p in self.nulled]
        unlisted = max(0, len(left) - LISTED) + max(0, len(nulled) - LISTED)
        return {
            META_KEY: {"leftOut": left[:LISTED], "nulled": nulled[:LISTED], "unlisted": unlisted}
        }


def pointer(path: Path) -> str:
    """The JSON pointer (RFC 6901) of `path`: `/items/0/name`, `""` for the root."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def conform(value: Any, errors: Errors) -> Conformed | None:
    """`value` (a copy of it, when it deviates) made to meet the schema whose errors `errors`
    gives; None when even `{}` does not."""
    if not isinstance(value, dict):  # structuredContent is an object: another root type is left out
        return Conformed({}, ((),)) if not errors({}) else None
    if not (found := errors(value)):
        return Conformed(value)
    value = copy.deepcopy(value)  # the same paths: `found` holds for the copy
    left: list[Path] = []
    nulled: list[Path] = []
    for _ in range(_PASSES):
        fixes = _outermost({path for error in found for path in _locations(error)})
        if () in fixes:
            return Conformed({}, ((),)) if value != {} and not errors({}) else None
        for path in sorted(fixes, key=lambda p: (len(p), _order(p)), reverse=True):
            _fix(value, path, left, nulled)
        if not (found := errors(value)):
            return Conformed(value, *_kept(left, nulled))
    return Conformed({}, ((),)) if not errors({}) else None


def _locations(error: Any) -> set[Path]:
    """Where to fix `error`: its value; for an anyOf/oneOf whose best branch fails only deeper
    down, that branch's own places; for properties `additionalProperties: false` rejects, those."""
    path = tuple(error.absolute_path)
    if error.validator in ("anyOf", "oneOf") and error.context:
        branches: dict[Any, list[Any]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        deeper = [subs for subs in branches.values() if all(_below(s, path) for s in subs)]
        if deeper:
            return {place for sub in min(deeper, key=len) for place in _locations(sub)}
    if (
        error.validator == "additionalProperties"
        and error.validator_value is False
        and isinstance(error.instance, dict)
        and isinstance(error.schema, dict)
    ):
        return {(*path, key) for key in _extra(error.instance, error.schema)} or {path}
    return {path}


def _below(error: Any, path: Path) -> bool:
    return len(error.absolute_path) > len(path)


def _extra(instance: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """The keys of `instance` neither in the schema's `properties` nor matching a pattern."""
    known = schema.get("properties") or {}
    patterns = list(schema.get("patternProperties") or {})
    return [
        key
        for key in instance
        if key not in known and not any(re.search(pattern, key) for pattern in patterns)
    ]


def _outermost(paths: Iterable[Path]) -> set[Path]:
    """The paths that lie under no other of them (fixing a value fixes everything in it)."""
    ordered = sorted(paths, key=len)
    kept: set[Path] = set()
    for path in ordered:
        if not any(path[:length] in kept for length in range(len(path))):
            kept.add(path)
    return kept


def _order(path: Path) -> tuple[Any, ...]:
    """Later array items first, so that leaving one out never moves another still to fix."""
    return tuple((0, part, "") if isinstance(part, int) else (1, 0, str(part)) for part in path)


def _fix(root: dict[str, Any], path: Path, left: list[Path], nulled: list[Path]) -> None:
    """Leave the value at `path` out of its object, or null it in its array (an item already null
    moves the fix to the array)."""
    parent: Any = root
    for part in path[:-1]:
        if not _has(parent, part):
            return  # inside a value an earlier fix of this pass left out
        parent = parent[part]
    last = path[-1]
    if not _has(parent, last):
        return
    if isinstance(parent, dict):
        del parent[last]
        left.append(path)
    elif parent[last] is not None:
        parent[last] = None
        nulled.append(path)
    else:
        _fix(root, path[:-1], left, nulled)


def _has(container: Any, part: Any) -> bool:
    if isinstance(container, dict):
        return part in container
    return isinstance(container, list) and isinstance(part, int) and part < len(container)


def _kept(left: list[Path], nulled: list[Path]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """Each list in document order, without paths inside a value left out later."""
    gone = set(left)

    def inside(path: Path) -> bool:
        return any(path[:length] in gone for length in range(len(path)))

    return (
        tuple(sorted((p for p in left if not inside(p)), key=_order)),
        tuple(sorted((p for p in nulled if not inside(p) and p not in gone), key=_order)),
    )
