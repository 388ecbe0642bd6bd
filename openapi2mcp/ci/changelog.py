"""The tool changelog between two versions of an API (pure: two lists of wire tools in, a Changelog out).

A tool is a dict in the MCP wire form of `tool_data.json` "tools". Tools are paired by route
(`METHOD path`) first, then by name: a tool whose route has another name than before is renamed,
even when its old name now belongs to another route; an argument whose place on the wire has another
name is renamed (`pairing.py`).

Schemas are compared by keyword: `type` (also of `anyOf`/`oneOf` alternatives and `enum` values),
`enum`/`const`, the bounds (`minimum`, `maximum`, their exclusive forms, `min`/`maxLength`,
`min`/`maxItems`, `min`/`maxProperties`), `pattern`, `additionalProperties: false`, and recursively
`properties`/`required` and `items`, through local `#/$defs/` references and nullable `anyOf`/`oneOf`
(one alternative plus `null`). A change narrows what the schema accepts, widens it, or both: a
narrowed input breaks callers, a widened output (a property removed or no longer required, a new
type or enum value) breaks consumers of structured results. `allOf`, the structure of alternatives,
`uniqueItems`, `multipleOf` etc. are not compared; `description`, `default` and `format` are reported
for arguments (never breaking), not for outputs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from openapi2mcp.ci.pairing import previous_names, renamed_arguments, with_new_argument_names
from openapi2mcp.schemas.keywords import as_list, is_number
from openapi2mcp.tools.hints import HINT_NAMES

WireTool = dict[str, Any]
Kind = Literal["added", "removed", "renamed", "changed"]
Side = Literal["tool", "input", "output"]
Effect = Literal["narrows", "widens", "both", "neutral"]

KINDS: tuple[Kind, ...] = ("added", "removed", "renamed", "changed")
_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_NOTES = ("description", "default", "format")
_LOCAL_DEFS = "#/$defs/"
_MISSING = object()
_JSON_TYPES: dict[type, str] = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
}


@dataclass(frozen=True)
class Change:
    """A difference of the tool, or of a schema at `path` (`body.address.zip`, `tags[]`; "" the root)."""

    side: Side
    path: str
    text: str
    breaking: bool


@dataclass(frozen=True)
class ToolChange:
    kind: Kind
    name: str  # the NEW name; the OLD one for a removed tool
    old_name: str | None = None  # a renamed tool's OLD name
    changes: tuple[Change, ...] = ()

    @property
    def breaking_count(self) -> int:
        """A removed or renamed tool is one breaking change, plus each breaking change of its own."""
        return int(self.kind in ("removed", "renamed")) + sum(change.breaking for change in self.changes)


@dataclass(frozen=True)
class Changelog:
    """Changed tools in NEW's order, then removed tools in OLD's order; unchanged tools are left out."""

    tools: tuple[ToolChange, ...]

    def count(self, kind: Kind) -> int:
        return sum(tool.kind == kind for tool in self.tools)

    @property
    def breaking_count(self) -> int:
        return sum(tool.breaking_count for tool in self.tools)

    def summary(self) -> str:
        """One line, e.g. "2 tools added, 1 removed, 3 changed (2 breaking changes)"."""
        counts = [(number, kind) for kind in KINDS if (number := self.count(kind))]
        if not counts:
            return "no tool changes"
        first, kind = counts[0]
        parts = [f"{first} {_plural(first, 'tool')} {kind}", *(f"{n} {k}" for n, k in counts[1:])]
        breaking = self.breaking_count
        tail = f" ({breaking} breaking {_plural(breaking, 'change')})" if breaking else ""
        return ", ".join(parts) + tail


@dataclass(frozen=True)
class ToolSet:
    """One side of the comparison: the wire tools in order, and by name each tool's route (`GET /pets`)
    and where each of its arguments goes (`query limit`)."""

    tools: tuple[WireTool, ...]
    routes: Mapping[str, str] = field(default_factory=dict)
    arguments: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # pairing.argument_places


def compare(old: ToolSet, new: ToolSet) -> Changelog:
    old_by_name = {tool["name"]: tool for tool in old.tools}
    names = [tool["name"] for tool in new.tools]
    previous_of = previous_names(old_by_name, old.routes, names, new.routes)
    entries: list[ToolChange] = []
    for tool in new.tools:
        name = tool["name"]
        previous = previous_of.get(name)
        if previous is None:
            entries.append(ToolChange("added", name))
            continue
        routes = (old.routes.get(previous), new.routes.get(name))
        renamed = renamed_arguments(old.arguments.get(previous, {}), new.arguments.get(name, {}))
        before = with_new_argument_names(old_by_name[previous], renamed)
        changes = tool_changes(before, tool, routes, renamed)
        if previous != name:
            entries.append(ToolChange("renamed", name, previous, changes))
        elif changes:
            entries.append(ToolChange("changed", name, None, changes))
    matched = set(previous_of.values())
    entries += [ToolChange("removed", tool["name"]) for tool in old.tools if tool["name"] not in matched]
    return Changelog(tuple(entries))


def tool_changes(
    old: WireTool,
    new: WireTool,
    routes: tuple[str | None, str | None],
    renamed: Mapping[str, str] | None = None,
) -> tuple[Change, ...]:
    """Everything that differs between two versions of one tool, in a fixed order; `renamed` (NEW
    argument → OLD) are arguments that `old` already has under their new names."""
    changes: list[Change] = []
    if None not in routes and routes[0] != routes[1]:
        changes.append(Change("tool", "", f"route: {routes[0]} -> {routes[1]}", False))
    if old.get("title") != new.get("title"):
        changes.append(
            Change("tool", "", f"title: {_show(old.get('title'))} -> {_show(new.get('title'))}", False)
        )
    changes += _annotation_changes(old, new)
    if old.get("description") != new.get("description"):
        changes.append(Change("tool", "", "description changed", False))
    changes += [Change("input", new, f"renamed from {old}", True) for new, old in (renamed or {}).items()]
    changes += SchemaDiff("input", _schema(old, "inputSchema"), _schema(new, "inputSchema")).run()
    changes += _output_changes(old, new)
    return tuple(changes)


def _annotation_changes(old: WireTool, new: WireTool) -> list[Change]:
    before, after = _schema(old, "annotations"), _schema(new, "annotations")
    keys = list(HINT_NAMES)
    if (before.get("title"), after.get("title")) != (old.get("title"), new.get("title")):
        keys.insert(0, "title")  # only when it is not just the tool's title again
    return [
        Change("tool", "", f"annotation {key}: {_show(before.get(key))} -> {_show(after.get(key))}", False)
        for key in keys
        if before.get(key) != after.get(key)
    ]


def _output_changes(old: WireTool, new: WireTool) -> list[Change]:
    before, after = old.get("outputSchema"), new.get("outputSchema")
    if isinstance(before, dict) and isinstance(after, dict):
        return SchemaDiff("output", before, after).run()
    if isinstance(before, dict):
        return [Change("output", "", "removed: results are no longer structured", True)]
    if isinstance(after, dict):
        return [Change("output", "", "added", False)]
    return []


class SchemaDiff:
    """The changes from one version of an input or output schema to the next, by property path."""

    def __init__(self, side: Literal["input", "output"], old_root: dict[str, Any], new_root: dict[str, Any]):
        self.side = side
        self.roots = (old_root, new_root)
        self.changes: list[Change] = []

    def run(self) -> list[Change]:
        self._schema(self.roots[0], self.roots[1], "", frozenset())
        return self.changes

    def _add(self, path: str, text: str, effect: Effect) -> None:
        breaking_effect = "narrows" if self.side == "input" else "widens"
        self.changes.append(Change(self.side, path, text, effect in ("both", breaking_effect)))

    def _schema(self, old: Any, new: Any, path: str, seen: frozenset[str]) -> None:
        refs = {f"{side} {_ref(schema)}" for side, schema in enumerate((old, new)) if _ref(schema)}
        if refs & seen:
            return  # a recursive schema, already being compared further up this path
        seen |= refs
        old, new = self._resolve(old, 0), self._resolve(new, 1)
        self._types(old, new, path)
        self._enums(old, new, path)
        self._bounds(old, new, path)
        if self.side == "input":
            self._notes(old, new, path)
        before, after = self._part(old, "properties", 0), self._part(new, "properties", 1)
        if before is not None and after is not None:
            self._object(before, after, path, seen)
        before, after = self._part(old, "items", 0), self._part(new, "items", 1)
        if before is not None and after is not None:
            self._schema(before["items"], after["items"], f"{path}[]", seen)

    def _resolve(self, schema: Any, side: int) -> dict[str, Any]:
        """The schema with a local `$defs` reference replaced by its target (siblings kept)."""
        if not isinstance(schema, dict):
            return {"not": {}} if schema is False else {}
        ref = _ref(schema)
        if ref is None or not ref.startswith(_LOCAL_DEFS):
            return schema
        target = _schema(self.roots[side], "$defs").get(ref[len(_LOCAL_DEFS) :].replace("~1", "/"))
        if not isinstance(target, dict) or _ref(target) is not None:
            return schema  # dangling, or a reference to a reference: compared as it stands
        return {**target, **{key: value for key, value in schema.items() if key != "$ref"}}

    def _part(self, schema: dict[str, Any], key: str, side: int) -> dict[str, Any] | None:
        """The schema if it has `key`, else its one non-null `anyOf`/`oneOf` alternative that has it."""
        if key == "properties" and ("properties" in schema or _declares(schema, "object")):
            return schema
        if key == "items" and isinstance(schema.get("items"), dict):
            return schema
        alternatives = [self._resolve(alternative, side) for alternative in _alternatives(schema) or []]
        kept = [alternative for alternative in alternatives if not _declares(alternative, "null")]
        return self._part(kept[0], key, side) if len(kept) == 1 else None

    def _accepted(self, schema: dict[str, Any], side: int) -> frozenset[str] | None:
        """The JSON types the schema accepts, None when it does not restrict them."""
        declared = schema.get("type")
        if isinstance(declared, str | list):
            return frozenset(str(kind) for kind in as_list(declared))
        values = _values(schema)
        if values is not None:
            return frozenset(_json_type(value) for value in values)
        alternatives = _alternatives(schema)
        if alternatives is None:
            return None
        found: set[str] = set()
        for alternative in alternatives:
            kinds = self._accepted(self._resolve(alternative, side), side)
            if kinds is None:
                return None
            found |= kinds
        return frozenset(found)

    def _types(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        if _values(old) is not None and _values(new) is not None:
            return  # both enumerate their values: `_enums` says what changed
        before, after = self._accepted(old, 0), self._accepted(new, 1)
        if before == after:
            return
        lost = before is None or any(not _covered(kind, after) for kind in before)
        gained = after is None or any(not _covered(kind, before) for kind in after)
        effect: Effect = "both" if lost and gained else "narrows" if lost else "widens"
        verb = {"both": "changed", "narrows": "narrowed", "widens": "widened"}[effect]
        self._add(path, f"type {verb}: {_show_types(before)} -> {_show_types(after)}", effect)

    def _enums(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        before, after = _values(old), _values(new)
        if before is None and after is not None:
            self._add(path, f"enum added: {_show_all(after)}", "narrows")
        elif before is not None and after is None:
            self._add(path, f"enum removed (was {_show_all(before)})", "widens")
        elif before is not None and after is not None:
            old_keys, new_keys = {_key(v) for v in before}, {_key(v) for v in after}
            if removed := [value for value in before if _key(value) not in new_keys]:
                self._add(path, f"enum values removed: {_show_all(removed)}", "narrows")
            if added := [value for value in after if _key(value) not in old_keys]:
                self._add(path, f"enum values added: {_show_all(added)}", "widens")

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        for keyword in (*_LOWER_BOUNDS, *_UPPER_BOUNDS, "pattern"):
            before, after = old.get(keyword, _MISSING), new.get(keyword, _MISSING)
            if before == after:
                continue
            if after is _MISSING:
                self._add(path, f"{keyword} removed (was {_show(before)})", "widens")
            elif before is _MISSING:
                self._add(path, f"{keyword} added: {_show(after)}", "narrows")
            elif keyword == "pattern" or not (is_number(before) and is_number(after)):
                self._add(path, f"{keyword} changed: {_show(before)} -> {_show(after)}", "both")
            else:
                raised = after > before
                effect: Effect = "narrows" if raised == (keyword in _LOWER_BOUNDS) else "widens"
                verb = "raised" if raised else "lowered"
                self._add(path, f"{keyword} {verb}: {_show(before)} -> {_show(after)}", effect)

    def _notes(self, old: dict[str, Any], new: dict[str, Any], path: str) -> None:
        for keyword in _NOTES:
            before, after = old.get(keyword, _MISSING), new.get(keyword, _MISSING)
            if before != after:
                shown = f"{keyword}: {_show(before)} -> {_show(after)}"
                self._add(path, "description changed" if keyword == "description" else shown, "neutral")

    def _object(self, old: dict[str, Any], new: dict[str, Any], path: str, seen: frozenset[str]) -> None:
        before, after = _schema(old, "properties"), _schema(new, "properties")
        old_required, new_required = _required(old), _required(new)
        for name, schema in after.items():
            child = f"{path}.{name}" if path else name
            if name not in before:
                if name in new_required:  # narrows; a new optional property breaks neither side
                    self._add(child, "added (required)", "narrows")
                else:
                    self._add(child, "added (optional)", "neutral")
                continue
            if name in new_required and name not in old_required:
                self._add(child, "now required", "narrows")
            elif name in old_required and name not in new_required:
                self._add(child, "now optional", "widens")
            self._schema(before[name], schema, child, seen)
        for name in before:
            if name not in after:
                self._add(f"{path}.{name}" if path else name, "removed", "both")
        closed_before, closed_after = (schema.get("additionalProperties") is False for schema in (old, new))
        if closed_after and not closed_before:
            self._add(path, "additionalProperties closed", "narrows")
        elif closed_before and not closed_after:
            self._add(path, "additionalProperties opened", "widens")


def _schema(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _alternatives(schema: dict[str, Any]) -> list[Any] | None:
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            return list(schema[keyword])
    return None


def _covered(kind: str, types: frozenset[str] | None) -> bool:
    return types is None or kind in types or (kind == "integer" and "number" in types)


def _values(schema: dict[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    enum = schema.get("enum")
    return list(enum) if isinstance(enum, list) else None


def _json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), "object")


def _ref(schema: Any) -> str | None:
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    return ref if isinstance(ref, str) else None


def _declares(schema: dict[str, Any], kind: str) -> bool:
    return kind in as_list(schema.get("type"))


def _required(schema: dict[str, Any]) -> set[str]:
    required = schema.get("required")
    return {str(name) for name in required} if isinstance(required, list) else set()


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _show(value: Any) -> str:
    return "none" if value is _MISSING else json.dumps(value, ensure_ascii=False)


def _show_all(values: list[Any]) -> str:
    return ", ".join(_show(value) for value in values)


def _show_types(types: frozenset[str] | None) -> str:
    return "any" if types is None else "|".join(sorted(types))


def _plural(number: int, word: str) -> str:
    return word if number == 1 else f"{word}s"
