"""Discriminated `oneOf`/`anyOf` in input schemas: each branch pins the value that selects it.

OpenAPI's `discriminator: {propertyName, mapping?}` next to a `oneOf`/`anyOf` says which branch a
payload is by the value of `propertyName`. The values that select a branch are the `mapping` keys
whose target is the branch's `$ref` (a mapping value is a component name or a reference; targets
are compared after following references), or, when no mapping entry targets the branch, the
implicit value: the component name of its `#/components/schemas/<name>` reference. The converter
turns the `oneOf` into an `anyOf` (branches may overlap); each branch that can be pinned becomes a
copy with `properties: {<prop>: {"type": "string", "description"?, "enum": [...]}}` and `<prop>` in
`required`. `enum`, even for one value: one form when a mapping gives a branch several values, and
the form of value list that tool-calling clients support most widely (some ignore `const`).

A branch stays as it is when nothing can be pinned:
- it is inline or a local `$defs` reference and no mapping entry targets it;
- neither it nor the schema holding the discriminator lists the property (a discriminator naming a
  property of another object), or the branch is closed and does not list it;
- the property's own schema accepts none of the values: a non-string type, or an enum/const that
  shares no value with them. The spec's own values win: many specs forget the mapping and name
  their values in an enum, so the implicit component names are not values the API knows.
A mapping value that names no schema is ignored, and then no branch gets an implicit value (the
entry may be meant for any of them). It is reported unless it names another document: bundling
inlined what such a value names and left the mapping as written, so it names nothing here.

allOf inheritance (the parent holds the discriminator, each child is `allOf: [parent, {...}]`):
children listed in a discriminated oneOf are pinned like any branch, through their merged
properties. A parent referenced directly is not expanded into its children (they are found only by
searching every component, and the expansion would add reference cycles parent → child → parent
that the cut and cache rules do not know of): it stays the open object it is, which accepts every
child's payload. A plain oneOf of children that only inherit a discriminator stays a oneOf.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from openapi2mcp.diagnostics import SpecError
from openapi2mcp.load.refs import JSON, Resolver, unescape_token
from openapi2mcp.schemas.keywords import Schema, is_number, join
from openapi2mcp.schemas.refs import RefPath

COMPONENTS = "#/components/schemas/"
FILES = (".json", ".yaml", ".yml")  # a mapping value ending so names another document
Warn = Callable[[str, str], None]
Mapping = list[tuple[str, Any]]  # (value, the schema it selects), in the spec's order


class Discriminators:
    """Pins the discriminator property of each branch of a discriminated oneOf/anyOf."""

    def __init__(self, resolver: Resolver, refs: RefPath, warn: Warn) -> None:
        self._resolver = resolver
        self._refs = refs
        self._warn = warn

    def pinned(
        self, node: JSON, pointer: str, raw: list[JSON], branches: list[Schema], parent: Schema
    ) -> list[Schema]:
        """`branches` (converted from `raw`, read-only), each pinned where its values are known.

        `node` is the discriminator, at `pointer`; `parent` the converted `properties` of the schema
        holding it.
        """
        name = node.get("propertyName") if isinstance(node, dict) else None
        if not isinstance(name, str):
            self._warn(pointer, "discriminator must be an object with a propertyName; it is ignored")
            return branches
        values = self._values(node, raw, pointer)
        return [pin(branch, name, chosen, parent) for branch, chosen in zip(branches, values, strict=True)]

    def _values(self, node: dict[str, Any], raw: list[JSON], pointer: str) -> list[list[str]]:
        """The discriminator values that select each branch ([] when none is known)."""
        mapping, complete = self._mapping(node.get("mapping"), join(pointer, "mapping"))
        keys = {value for value, _ in mapping}
        chosen: list[list[str]] = []
        for branch in raw:
            target = self._branch_target(branch, pointer)
            explicit = [value for value, aim in mapping if aim is target]
            implicit = [value for value in implicit_value(branch) if complete and value not in keys]
            chosen.append(explicit or implicit)
        return chosen

    def _branch_target(self, branch: JSON, pointer: str) -> JSON:
        """The schema a branch names, its references followed; None for a chain that loops."""
        try:
            return self._refs.deref(branch, pointer)[0]
        except SpecError:  # the conversion cuts such a chain; no mapping entry can name it
            return None

    def _mapping(self, mapping: JSON, pointer: str) -> tuple[Mapping, bool]:
        """The resolved mapping entries, and whether every entry could be resolved."""
        if mapping is None:
            return [], True
        if not isinstance(mapping, dict):
            self._warn(pointer, "discriminator mapping must be an object; it is ignored")
            return [], False
        entries: Mapping = []
        complete = True
        for key, value in mapping.items():
            target = self._target(value, join(pointer, str(key)))
            if target is None or not (isinstance(key, str) or is_number(key)):
                complete = False
            else:
                entries.append((str(key), target))
        return entries, complete

    def _target(self, value: JSON, pointer: str) -> JSON:
        """The schema a mapping value names (a component name or a local reference); None if none.

        A reference into another document is not reported: bundling inlined what it names, and the
        mapping keeps the reference as written, so it names nothing here but is not wrong.
        """
        if isinstance(value, str):
            is_name = "/" not in value and "#" not in value
            try:
                return self._resolver.deref({"$ref": COMPONENTS + value if is_name else value}, pointer)[0]
            except SpecError:
                if not value.startswith("#") and ("#" in value or "/" in value or value.endswith(FILES)):
                    return None
        self._warn(pointer, f"discriminator mapping value {value!r} names no schema; it is ignored")
        return None


def implicit_value(branch: JSON) -> list[str]:
    """The component name of a `#/components/schemas/<name>` branch reference, as a list."""
    ref = branch.get("$ref") if isinstance(branch, dict) else None
    if not isinstance(ref, str) or not ref.startswith(COMPONENTS) or "/" in ref[len(COMPONENTS) :]:
        return []
    return [unescape_token(ref[len(COMPONENTS) :])]


def pin(branch: Schema, name: str, values: list[str], parent: Schema) -> Schema:
    """A copy of `branch` whose property `name` must be one of `values`, or `branch` unchanged."""
    props = branch.get("properties", {})
    own = props.get(name)
    if own is None and branch.get("additionalProperties") is not False:
        own = parent.get(name)
    if not isinstance(own, dict):
        return branch
    allowed = [value for value in values if accepts(own, value)]
    if not allowed:
        return branch
    described = {"description": own["description"]} if "description" in own else {}
    required = branch.get("required", [])
    return {
        **branch,
        "properties": {**props, name: {"type": "string", **described, "enum": allowed}},
        "required": required if name in required else [*required, name],
    }


def accepts(schema: Schema, value: str) -> bool:
    """False when the type, enum or const of a converted schema (or of each anyOf branch) rejects `value`."""
    if ("const" in schema and schema["const"] != value) or ("enum" in schema and value not in schema["enum"]):
        return False
    if schema.get("type", "string") != "string":
        return False
    branches = schema.get("anyOf")
    return not isinstance(branches, list) or any(accepts(branch, value) for branch in branches)
