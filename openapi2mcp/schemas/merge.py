"""`allOf` merging for the schema converter: one schema holding what all branches say.

Union of properties and `required` (each branch's `items` merged as a property's schemas are),
intersection of types, tightest bounds; keywords that conflict stay as leftover pieces. A closed
branch (`additionalProperties: false`) closes the merged object over the union of all branches'
properties, unless an `anyOf`/`oneOf`, a leftover or a local `$ref` may bring properties that the
union does not list. See `openapi2mcp.schemas.converter` for the reasons.
"""

from __future__ import annotations

from collections.abc import Callable

from openapi2mcp.load.refs import JSON, Resolver
from openapi2mcp.schemas.keywords import (
    ANNOTATIONS,
    LOCATED,
    Located,
    Schema,
    exclusive_bounds,
    is_names,
    is_number,
    join,
    unwrap,
)
from openapi2mcp.schemas.refs import RefPath

Pieces = list[tuple[Schema, str]]
TypeReader = Callable[[Schema, str], tuple[list[str], bool]]
Warn = Callable[[str, str], None]

_LOWER = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"})
_UPPER = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"})


class AllOfMerger:
    """Flattens a schema's allOf branches (following their refs) and merges them."""

    def __init__(self, resolver: Resolver, refs: RefPath, types: TypeReader, warn: Warn) -> None:
        self._resolver = resolver
        self._refs = refs
        self._types = types  # the non-null types a piece declares, and whether it allows null
        self._warn = warn

    def merged(self, node: Schema, pointer: str) -> tuple[Schema, Pieces]:
        """The merged schema and the leftovers. The refs followed to the branches are on the path
        only while the branches are flattened (that ends an allOf cycle): a base merged into a
        schema is not nested in it, so a property referring to the base again expands it once."""
        pushed: list[str] = []
        try:
            pieces = self._pieces(node, pointer, pushed)
        finally:
            for ref in pushed:
                self._refs.pop(ref)
        return self._merge(pieces, pointer)

    def _pieces(self, node: Schema, pointer: str, pushed: list[str]) -> Pieces:
        """The schema's own keywords and its allOf branches, flattened; the refs followed are pushed."""
        own = {key: value for key, value in node.items() if key != "allOf"}
        pieces, branches = ([(own, pointer)] if own else []), node["allOf"]
        if not isinstance(branches, list):
            self._warn(join(pointer, "allOf"), "allOf must be a list; it is ignored")
            return pieces
        for index, branch in enumerate(branches):
            branch, here = self._follow(branch, join(pointer, "allOf", index), pieces, pushed)
            if isinstance(branch, dict) and "allOf" in branch:
                pieces.extend(self._pieces(branch, here, pushed))
            elif isinstance(branch, dict | bool):
                pieces.append(({} if branch is True else {"not": {}} if branch is False else branch, here))
            else:
                self._warn(here, "an allOf branch must be a schema; it is ignored")
        return pieces

    def _follow(self, branch: JSON, here: str, pieces: Pieces, pushed: list[str]) -> tuple[JSON, str]:
        """The schema at the end of a branch's chain of refs; their siblings become pieces."""
        while isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
            ref = branch["$ref"]
            local = self._refs.is_local_def(ref)
            target = None if local else self._resolver.lookup(ref, here)
            if siblings := {key: value for key, value in branch.items() if key != "$ref"}:
                pieces.append((siblings, here))
            if local:
                return {"$ref": ref}, here
            if self._refs.must_cut(ref):
                return self._refs.cut(ref, target)[0], here
            self._refs.push(ref)
            pushed.append(ref)
            branch, here = target, ref
        return branch, here

    def _merge(self, pieces: Pieces, pointer: str) -> tuple[Schema, Pieces]:
        """One schema holding what all pieces say, and the pieces' keywords that conflict with it."""
        merged: Schema = {}
        props: dict[str, list[Located]] = {}
        required: list[str] = []
        leftovers: Pieces = []
        extras: list[Located] = []
        items: list[Located] = []  # each branch's `items`: an array refined by a later branch
        types: list[str] | None = None
        nullable = closed = False
        for piece, where in pieces:
            piece = exclusive_bounds(piece)
            piece_types, piece_nullable = self._types(piece, where)
            if "type" in piece:
                declared = piece_types + ["null"] * piece_nullable
                types = declared if types is None else _intersect(types, declared)
            nullable = nullable or (piece_nullable and "type" not in piece)
            for key, value in piece.items():
                if key == "properties" and isinstance(value, dict):
                    for name, sub in value.items():
                        props.setdefault(name, []).append(Located(sub, join(where, key, name)))
                elif key == "required" and is_names(value):
                    required.extend(name for name in value if name not in required)
                elif key == "additionalProperties" and value in (False, True, {}):
                    closed = closed or value is False
                elif key == "additionalProperties":
                    extras.append(Located(value, join(where, key)))
                elif key == "items" and isinstance(value, dict):
                    items.append(Located(value, join(where, key)))
                elif key not in ("type", "nullable"):
                    _merge_keyword(merged, leftovers, key, value, where)
        if props:
            merged["properties"] = {name: _all(locs) for name, locs in props.items()}
        if items:
            merged["items"] = _all(items)
        if required:
            merged["required"] = required
        if closed and not leftovers and not merged.keys() & {"anyOf", "oneOf", "$ref"}:
            merged["additionalProperties"] = False
        elif extras and not closed:
            merged["additionalProperties"] = _all(extras)
        if types == []:
            self._warn(pointer, "the allOf branches have no type in common; the type is dropped")
        elif types:
            merged["type"] = types
        if nullable:
            merged["nullable"] = True
        return merged, leftovers


def _merge_keyword(merged: Schema, leftovers: Pieces, key: str, value: JSON, where: str) -> None:
    """Fold one keyword of an allOf piece into `merged`; a conflicting value becomes a leftover."""
    old = unwrap(merged.get(key), where)[0]
    if key not in merged:
        merged[key] = Located(value, join(where, key)) if key in LOCATED else value
    elif key in ANNOTATIONS or key.startswith("x-") or old == value:
        return  # the first description (the outer schema's own) wins
    elif key in _LOWER and is_number(old) and is_number(value):
        merged[key] = max(old, value)
    elif key in _UPPER and is_number(old) and is_number(value):
        merged[key] = min(old, value)
    else:
        leftovers.append(({key: value}, where))


def _all(locs: list[Located]) -> JSON:
    """One located schema, or an allOf of the distinct ones (a property defined by several branches)."""
    unique = [loc for index, loc in enumerate(locs) if all(loc.node != other.node for other in locs[:index])]
    return unique[0] if len(unique) == 1 else {"allOf": [loc.node for loc in unique]}


def _intersect(first: list[str], second: list[str]) -> list[str]:
    both = [name for name in first if name in second]
    if ("integer" in first and "number" in second) or ("number" in first and "integer" in second):
        both.append("integer")
    return list(dict.fromkeys(name for name in both if name != "number" or "integer" not in both))
