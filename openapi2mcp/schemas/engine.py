"""One conversion pass of the schema converter, under fixed limits (see `openapi2mcp.schemas.converter`).

`ConversionEngine.run` converts a Schema Object for input (every constraint kept) or output
(tolerant), with a limit on repeated references, on output nesting and on the properties listed;
past the budget it raises `OverBudget` and the caller runs again with tighter limits. Expanded
`$ref`s are cached across runs under the exact key of `RefPath.cache_key`.
"""

from __future__ import annotations

import json
from typing import Any

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.load.refs import JSON, Resolver
from openapi2mcp.schemas.discriminator import Discriminators
from openapi2mcp.schemas.keywords import (
    ANNOTATIONS,
    CHECKS,
    EXAMPLE_LIMIT,
    LOCATED,
    OUTPUT_KEYWORDS,
    SUBSCHEMA,
    SUBSCHEMA_LISTS,
    TYPES,
    Schema,
    dedupe,
    exclusive_bounds,
    format_bounds,
    is_names,
    is_number,
    is_regex,
    join,
    shorten,
    typed,
    unwrap,
    with_null,
)
from openapi2mcp.schemas.merge import AllOfMerger, Pieces
from openapi2mcp.schemas.prose import plain_links
from openapi2mcp.schemas.refs import OverBudget, RefPath


class ConversionEngine:
    """Converts the Schema Objects of one document; `$ref` conversions are cached across runs."""

    def __init__(self, resolver: Resolver, diagnostics: Diagnostics, *, siblings_apply: bool) -> None:
        self._resolver = resolver
        self._diagnostics = diagnostics
        self._siblings_apply = siblings_apply  # OAS 3.1: the siblings of a `$ref` count
        self.refs = RefPath(resolver)
        self._all_of_merger = AllOfMerger(resolver, self.refs, self.types, self.warn)
        self._discriminators = Discriminators(resolver, self.refs, self.warn)
        self._cache: dict[tuple[Any, ...], tuple[Schema, bool, int]] = {}
        self._nullable: dict[int, tuple[Schema, Schema]] = {}  # id → (schema kept alive, its nullable form)
        self._exhausted: dict[tuple[Any, ...], int] = {}  # cache key → most budget left when it ran out
        self._warned: set[tuple[str, str]] = set()
        self._settle(out=False)

    def run(
        self,
        schema: JSON,
        pointer: str,
        *,
        out: bool,
        ref_limit: int = 1,
        scc_once: bool = False,
        depth: int = 0,
        budget: int | None = None,
    ) -> Schema:
        """The converted schema; its top-level dict is fresh, the dicts below it are shared."""
        self._settle(out=out, ref_limit=ref_limit, scc_once=scc_once, depth=depth, budget=budget)
        return dict(self._convert(schema, pointer))

    def gather(self, schema: JSON, pointer: str) -> tuple[Schema | None, str, Pieces]:
        """`schema` dereferenced, with its allOf merged (outside any conversion)."""
        node, pointer = self.refs.deref(schema, pointer)
        if not isinstance(node, dict) or "allOf" not in node:
            return (node if isinstance(node, dict) else None), pointer, []
        self._settle(out=False)
        merged, leftovers = self._all_of_merger.merged(node, pointer)
        return merged, pointer, leftovers

    def types(self, node: Schema, pointer: str) -> tuple[list[str], bool]:
        """The non-null types a schema declares (integer widened in output), and whether null is allowed."""
        raw = node.get("type")
        names = raw if isinstance(raw, list) else [] if raw is None else [raw]
        types: list[str] = []
        for name in names:
            name = "string" if name == "file" else "number" if self._out and name == "integer" else name
            if name in TYPES and name not in types:
                types.append(name)
            elif name not in TYPES and name != "null":
                self.warn(join(pointer, "type"), f"unknown type {name!r}; it is dropped")
        if "integer" in types and "number" in types:
            types.remove("integer")
        if not types and names and all(name == "null" for name in names):
            return ["null"], False
        return types, node.get("nullable") is True or "null" in names

    def marked(self, node: JSON, pointer: str, marker: str) -> bool:
        """True when a property schema (or the schema its `$ref` names) has `marker: true`."""
        if isinstance(node, dict) and isinstance(node.get("$ref"), str) and node.get(marker) is not True:
            node = self.refs.deref(node, pointer)[0]
        return isinstance(node, dict) and node.get(marker) is True

    def warn(self, pointer: str, message: str) -> None:
        if (pointer, message) not in self._warned:
            self._warned.add((pointer, message))
            self._diagnostics.warning(pointer, message)

    def _settle(
        self,
        *,
        out: bool,
        ref_limit: int = 1,
        scc_once: bool = False,
        depth: int = 0,
        budget: int | None = None,
    ) -> None:
        self._out, self._depth, self._level, self._budget, self._spent = out, depth, 0, budget, 0
        self.refs.configure(ref_limit=ref_limit, scc_once=scc_once, limited=budget is not None)

    def _spend(self, properties: int) -> None:
        self._spent += properties
        if self._budget is not None and self._spent > self._budget:
            raise OverBudget

    # Schemas ------------------------------------------------------------------------------------

    def _convert(self, node: JSON, pointer: str) -> Schema:
        schema, nullable = self._core(node, pointer)
        return self._or_null(schema) if nullable else schema

    def _member(self, node: JSON, pointer: str) -> Schema:
        """A property, item or map value: in output schemas it may also be null."""
        schema = self._convert(node, pointer)
        return self._or_null(schema) if self._out else schema

    def _or_null(self, schema: Schema) -> Schema:
        """`with_null(schema)`, built once for each schema object: the properties that refer to one
        cached schema share one nullable form of it (in output schemas every member is nullable),
        which the later steps, measuring and compacting each shared dict once, read once."""
        known = self._nullable.get(id(schema))
        if known is None:
            known = self._nullable[id(schema)] = schema, with_null(schema)
        return known[1]

    def _core(self, node: JSON, pointer: str) -> tuple[Schema, bool]:
        """The converted schema without its null alternative, and whether null is allowed."""
        node, pointer = unwrap(node, pointer)
        if isinstance(node, bool):
            return ({} if node else {"not": {}}), False
        if not isinstance(node, dict):
            self.warn(pointer, "a schema must be an object; it is ignored")
            return {}, False
        if isinstance(node.get("$ref"), str):
            return self._ref(node, pointer)
        if "allOf" in node:
            return self._all_of(node, pointer)
        return self._plain(node, pointer)

    def _ref(self, node: Schema, pointer: str) -> tuple[Schema, bool]:
        ref = node["$ref"]
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        if self._siblings_apply and any(
            key not in ANNOTATIONS and not key.startswith("x-") for key in siblings
        ):
            return self._all_of({"allOf": [{"$ref": ref}, siblings]}, pointer)
        if self.refs.is_local_def(ref):
            schema, nullable = {"$ref": ref}, False
        else:
            target = self._resolver.lookup(ref, pointer)
            cut = self.refs.must_cut(ref)
            schema, nullable = self.refs.cut(ref, target) if cut else self._expand(ref, target)
        notes = {key: value for key, value in siblings.items() if key in ANNOTATIONS}
        if notes:  # 3.0 ignores other siblings, as the specification says
            more, more_nullable = self._plain(notes, pointer)
            schema, nullable = {**schema, **more}, nullable or more_nullable
        return schema, nullable

    def _expand(self, ref: str, target: JSON) -> tuple[Schema, bool]:
        key = self.refs.cache_key(ref, (self._out, self._depth - self._level))
        hit = self._cache.get(key)
        if hit is not None:
            self._spend(hit[2])
            return hit[0], hit[1]
        if self._budget is not None and self._budget - self._spent <= self._exhausted.get(key, -1):
            raise OverBudget  # it ran out with as much left before: see `_note_exhausted`
        spent = self._spent
        try:
            with self.refs.entered(ref):
                schema, nullable = self._core(target, ref)
        except OverBudget:
            self._note_exhausted(key, spent)
            raise
        self._cache[key] = (schema, nullable, self._spent - spent)
        return schema, nullable

    def _note_exhausted(self, key: tuple[Any, ...], spent_before: int) -> None:
        """Remember that the expansion of `key`, begun with `budget - spent_before` properties left,
        ran out of them (large output schemas do, each conversion tried again with tighter limits).

        Begun again with no more left, it would run out again, having read (and warned about) only
        what the first try read: the expansion of a key is always the same walk, and its cached parts
        cost what they cost the first time. `_expand` refuses it at once. Running out of nesting
        (`MAX_NESTED_REFS`) is not remembered: a cached part does not count its nesting again."""
        if self._budget is not None and self._spent > self._budget:
            left = self._budget - spent_before
            self._exhausted[key] = max(left, self._exhausted.get(key, -1))

    def _all_of(self, node: Schema, pointer: str) -> tuple[Schema, bool]:
        merged, leftovers = self._all_of_merger.merged(node, pointer)
        schema, nullable = self._plain(merged, pointer)
        if leftovers and not self._out:
            schema = {**schema, "allOf": [self._convert(piece, here) for piece, here in leftovers]}
        return schema, nullable

    def _plain(self, node: Schema, pointer: str) -> tuple[Schema, bool]:
        node = exclusive_bounds(node)
        types, nullable = self.types(node, pointer)
        binary = node.get("format") in ("binary", "byte") or node.get("type") == "file"
        types = types or (["string"] if binary else [])
        level = int(self._out and ("properties" in node or "object" in types))
        if level and self._level >= self._depth:
            description = node.get("description")
            described = (
                {"description": shorten(plain_links(description))} if isinstance(description, str) else {}
            )
            return described, nullable
        self._level += level
        try:
            out = self._keywords(node, pointer)
        finally:
            self._level -= level
        if not self._out:
            out.update(self._notes(node, pointer, out.get("description", ""), types, binary))
            out = format_bounds(out, types)
        return typed(out, types), nullable

    # Keywords -----------------------------------------------------------------------------------

    def _keywords(self, node: Schema, pointer: str) -> Schema:
        out = self._object(node, pointer) if "properties" in node or "required" in node else {}
        for key, raw in node.items():
            if key == "$ref" and self.refs.is_local_def(raw):  # left by allOf merging
                out[key] = raw
            elif self._out and key not in OUTPUT_KEYWORDS:
                continue
            elif key in CHECKS and not (key == "format" and raw in ("binary", "byte")):
                if CHECKS[key](raw):
                    value = plain_links(raw) if key == "description" else raw
                    out[key] = shorten(value) if self._out else value
                else:
                    self.warn(join(pointer, key), f"invalid value {raw!r} for {key}; it is dropped")
            elif key in LOCATED:
                value, here = unwrap(raw, join(pointer, key))
                if key in SUBSCHEMA:
                    self._single(out, key, value, here)
                elif key in SUBSCHEMA_LISTS:
                    self._list(out, key, value, here, node if "discriminator" in node else None)
                else:
                    self._patterns(out, value, here)
        return out

    def _object(self, node: Schema, pointer: str) -> Schema:
        """`properties` (without readOnly ones in input, writeOnly ones in output) and `required`."""
        raw, here = unwrap(node.get("properties", {}), join(pointer, "properties"))
        if not isinstance(raw, dict):
            self.warn(here, "properties must be an object; they are dropped")
            raw = {}
        props: Schema = {}
        for name, sub in raw.items():
            sub, sub_pointer = unwrap(sub, join(here, name))
            if not self.marked(sub, sub_pointer, "writeOnly" if self._out else "readOnly"):
                self._spend(1)
                props[name] = self._member(sub, sub_pointer)
        out: Schema = {"properties": props} if props else {}
        required = node.get("required")
        if self._out or required is None:
            return out
        if not is_names(required):
            self.warn(join(pointer, "required"), "required must be a list of names; it is dropped")
            return out
        names = [name for name in dict.fromkeys(required) if name in props or name not in raw]
        return {**out, "required": names} if names else out

    def _single(self, out: Schema, key: str, value: JSON, pointer: str) -> None:
        if key == "items" and isinstance(value, list):  # the draft-4 tuple form
            self.warn(pointer, "items is a list (tuple form); it becomes prefixItems")
            self._list(out, "prefixItems", value, pointer, None)
        elif key == "additionalProperties" and value is False:
            if not self._out:
                out[key] = False
        elif key != "not" or not self._out:
            member = key in ("items", "additionalProperties")
            converted = self._member(value, pointer) if member else self._convert(value, pointer)
            if converted or key == "not":  # `items: {}` and the like say nothing
                out[key] = converted

    def _list(self, out: Schema, key: str, value: JSON, pointer: str, holder: Schema | None) -> None:
        """A list of subschemas; `holder` is the schema holding the list when it has a discriminator."""
        if not isinstance(value, list) or not value:
            self.warn(pointer, f"{key} must be a non-empty list; it is dropped")
            return
        convert = self._member if key == "prefixItems" else self._convert
        branches = [convert(branch, join(pointer, index)) for index, branch in enumerate(value)]
        if key == "oneOf" and (self._out or holder is not None):
            key = "anyOf"
        if holder is not None and not self._out and key == "anyOf":
            where = join(pointer.rsplit("/", 1)[0], "discriminator")
            parent = out.get("properties", {})
            branches = self._discriminators.pinned(holder["discriminator"], where, value, branches, parent)
        if not self._out or key != "anyOf":
            out[key] = branches
            return
        branches = dedupe([*out.pop("anyOf", []), *branches])
        if any(branch.keys() <= {"description"} for branch in branches):
            return  # one branch accepts anything: so does the anyOf
        if len(branches) > 1:
            out["anyOf"] = branches
        else:
            out.update({k: v for k, v in branches[0].items() if k not in out})

    def _patterns(self, out: Schema, value: JSON, pointer: str) -> None:
        if not isinstance(value, dict):
            self.warn(pointer, "patternProperties must be an object; it is dropped")
            return
        converted: Schema = {}
        for pattern, sub in value.items():
            if is_regex(pattern):
                converted[pattern] = self._member(sub, join(pointer, pattern))
            else:
                self.warn(join(pointer, pattern), "invalid regular expression; it is dropped")
        if converted:
            out["patternProperties"] = converted

    def _notes(self, node: Schema, pointer: str, description: str, types: list[str], binary: bool) -> Schema:
        """Input-only keywords: a checked enum, base64 and deprecation notes, one short example."""
        notes = self._enum(node, pointer, types)
        if binary:
            notes["contentEncoding"] = "base64"
            description = f"{description} (base64-encoded)" if description else "Base64-encoded binary data."
        if node.get("deprecated") is True:
            description = f"Deprecated. {description}".strip()
        if description:
            notes["description"] = description
        examples = node.get("examples")
        example = node.get("example", examples[0] if isinstance(examples, list) and examples else None)
        if (isinstance(example, str) or is_number(example)) and len(json.dumps(example)) <= EXAMPLE_LIMIT:
            notes["examples"] = [example]
        return notes

    def _enum(self, node: Schema, pointer: str, types: list[str]) -> Schema:
        if "enum" not in node:
            return {}
        values, here = node["enum"], join(pointer, "enum")
        if not isinstance(values, list) or not values:
            self.warn(here, "enum must be a non-empty list; it is dropped")
            return {}
        strays = [value for value in values if value is not None and not isinstance(value, str)]
        if types != ["string"] or not strays:
            return {"enum": list(values)}
        if all(map(is_number, strays)):  # YAML read `4.1` as a number
            self.warn(here, "enum of type string lists numbers; they are used as strings")
            return {"enum": [value if value is None else str(value) for value in values]}
        self.warn(here, "enum of type string lists non-strings (YAML booleans?); the enum is dropped")
        return {}
