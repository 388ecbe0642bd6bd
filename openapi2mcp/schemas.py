"""Convert OpenAPI Schema Objects into JSON Schema 2020-12 for MCP `inputSchema` and `outputSchema`.

Input schemas keep every constraint of the spec, so that a call which validates is a request the API
accepts. Output schemas are tolerant, so that a client validating `structuredContent` never rejects
a real response because the spec lies. Both inline every `$ref`, cut recursion, and hold no `type`
arrays and no boolean schemas; the one boolean kept is `additionalProperties: false`, the form the
MCP documentation itself uses for closed objects.

Decisions:
- Recursion: along one path a `$ref` is expanded at most `max_ref_depth` times in input schemas and
  once in output schemas; the next occurrence becomes `{"type": "object"}` (object-like targets) or
  `{}`, with a description naming the schema. An input schema that grows past `INPUT_BUDGET`
  properties or `MAX_NESTED_REFS` nested references is converted again entering each reference
  cycle once (no member of a cycle is expanded inside another member of the same cycle).
- Caching: a `$ref`'s conversion is cached under the counts of the references of its own cycle on
  the current path (found with Tarjan's algorithm), the only context it depends on, so a result
  never depends on which conversions ran before.
- `allOf` is merged into one schema: union of properties and `required`, intersection of types,
  tightest bounds; conflicting keywords stay in an `allOf` of leftovers (input only). A branch with
  `additionalProperties: false` closes the merged object over the union of all branches' properties:
  that is the author's intent, while the literal meaning (each closed branch rejects the others'
  properties) accepts almost nothing. The object stays open when `anyOf`/`oneOf` or leftovers may
  bring properties that the union does not list.
- Null: OAS 3.0 `nullable: true` and 3.1 `"null"` in a `type` array are honoured in every version,
  as `{"anyOf": [<schema>, {"type": "null"}]}` with description/default/examples on top, or by adding
  `null` to an `enum` (whose `type` is then dropped). A `oneOf` with a `discriminator` becomes `anyOf`.
- Output schemas keep types, properties, items and descriptions (cut to `DESCRIPTION_LIMIT`), and
  drop every assertion a lying spec could break: required, enum, const, format, pattern, bounds,
  `additionalProperties: false`, `not`, writeOnly properties. `integer` widens to `number`; every
  property, item and map value also accepts null; `oneOf` becomes `anyOf`. Objects nest at most
  `OUTPUT_DEPTH` levels (deeper objects become `{}` with their description), fewer when the result
  would list more than `OUTPUT_BUDGET` properties.
- Titles are dropped (component names add size; descriptions carry the meaning). Input schemas keep
  one short string or number example as `examples`, and say "Deprecated." in the description.
- Results share nested dicts with each other and with the cache (that is what makes large specs
  fast): the top-level dict returned is fresh, everything below it must be treated as read-only.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from openapi2mcp.diagnostics import Diagnostics, SpecError
from openapi2mcp.refs import JSON, Resolver, unescape_token

Schema = dict[str, Any]
Pieces = list[tuple[Schema, str]]
OUTPUT_DEPTH = 3
OUTPUT_BUDGET = 200
INPUT_BUDGET = 5000
MAX_NESTED_REFS = 24
DESCRIPTION_LIMIT = 300
EXAMPLE_LIMIT = 80

_TYPES = ("string", "number", "integer", "boolean", "array", "object")
_SUBSCHEMA = frozenset({"items", "additionalProperties", "not", "contains", "propertyNames"})
_SUBSCHEMA_LISTS = frozenset({"anyOf", "oneOf", "prefixItems"})
_LOCATED = _SUBSCHEMA | _SUBSCHEMA_LISTS | {"patternProperties"}
_OUTPUT_KEYWORDS = frozenset({"description", "items", "prefixItems", "additionalProperties", "anyOf",
                              "oneOf"})
_CONSTRAINTS = frozenset({"type", "enum", "const", "anyOf", "oneOf", "allOf", "not"})
_LIFTED = ("description", "default", "examples")
_ANNOTATIONS = frozenset({"description", "summary", "title", "default", "example", "examples", "deprecated",
                          "readOnly", "writeOnly", "nullable", "discriminator", "xml", "externalDocs"})
_LOWER = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"})
_UPPER = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"})
_FAMILY = {  # which type a keyword constrains, for splitting `type` arrays into anyOf branches
    **dict.fromkeys(("minLength", "maxLength", "pattern", "contentEncoding", "contentMediaType"), "string"),
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), "number"),
    **dict.fromkeys(("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"), "array"),
    **dict.fromkeys(("properties", "required", "additionalProperties", "patternProperties", "minProperties",
                     "maxProperties", "dependentRequired", "propertyNames"), "object"),
}


def _is_number(value: JSON) -> bool:
    """A JSON number: not a boolean, not NaN or infinity (which YAML can write and JSON cannot)."""
    return isinstance(value, int | float) and not isinstance(value, bool) \
        and (isinstance(value, int) or math.isfinite(value))


def _is_names(value: JSON) -> bool:
    return isinstance(value, list) and all(isinstance(name, str) for name in value)


def _is_regex(value: JSON) -> bool:
    try:
        re.compile(value)
    except (re.error, TypeError):
        return False
    return isinstance(value, str)


_CHECKS: dict[str, Callable[[JSON], bool]] = {  # scalar keywords kept in input schemas, and their checks
    **dict.fromkeys(("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
                     "minContains", "maxContains"),
                    lambda value: _is_number(value) and value >= 0 and float(value).is_integer()),
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"), _is_number),
    **dict.fromkeys(("description", "format", "contentEncoding", "contentMediaType"),
                    lambda value: isinstance(value, str)),
    "multipleOf": lambda value: _is_number(value) and value > 0,
    "pattern": _is_regex,
    "uniqueItems": lambda value: isinstance(value, bool),
    "const": lambda value: True,
    "default": lambda value: True,
    "dependentRequired": lambda value: isinstance(value, dict) and all(map(_is_names, value.values())),
}


class _OverBudget(Exception):
    """A conversion grew past its budget; it is done again with tighter limits."""


@dataclass(frozen=True)
class _Located:
    """A keyword value moved by `allOf` merging, with the pointer where the spec wrote it."""

    node: JSON
    pointer: str


def _unwrap(value: JSON, pointer: str) -> tuple[JSON, str]:
    return (value.node, value.pointer) if isinstance(value, _Located) else (value, pointer)


def _join(base: str, *tokens: str | int) -> str:
    """`diagnostics.pointer_join`, cheaper for the common tokens (this is the converter's hot path)."""
    for token in tokens:
        text = str(token)
        if "~" in text or "/" in text:
            text = text.replace("~", "~0").replace("/", "~1")
        base = f"{base}/{text}"
    return base


def schema_size(schema: JSON) -> int:
    """Bytes of the compact JSON form of `schema`."""
    return len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False).encode())


class SchemaConverter:
    """Converts the Schema Objects of one document; `$ref` conversions are cached across calls."""

    def __init__(self, resolver: Resolver, diagnostics: Diagnostics, *, openapi_version: str = "3.0",
                 max_ref_depth: int = 3) -> None:
        self._resolver = resolver
        self._diagnostics = diagnostics
        self._siblings_apply = not openapi_version.startswith(("2.", "3.0"))  # 3.1: `$ref` siblings count
        self._max_ref_depth = max(1, max_ref_depth)
        self._cache: dict[tuple[Any, ...], tuple[Schema, bool, int]] = {}
        self._scc: dict[str, str] = {}  # ref → the ref naming its strongly connected component
        self._warned: set[tuple[str, str]] = set()
        self._counts: dict[str, int] = {}  # refs being expanded → times on the current path
        self._settle(out=False)

    def input_schema(self, schema: JSON, pointer: str) -> dict[str, Any]:
        """The schema of one tool argument. Nested dicts are shared: do not mutate them."""
        try:
            return self._run(schema, pointer, out=False, ref_limit=self._max_ref_depth, budget=INPUT_BUDGET)
        except _OverBudget:
            return self._run(schema, pointer, out=False, scc_once=True)

    def output_schema(self, schema: JSON, pointer: str) -> dict[str, Any]:
        """A tolerant schema of a response. Nested dicts are shared: do not mutate them.

        A root that is certainly an object gets `"type": "object"` even when it is an anyOf, as MCP
        wants of an outputSchema; the caller wraps other roots.
        """
        result = self._tolerant(schema, pointer)
        if "type" not in result and self.is_object_schema(schema, pointer):
            return {"type": "object", **result}
        return result

    def _tolerant(self, schema: JSON, pointer: str) -> Schema:
        for depth in range(OUTPUT_DEPTH, 1, -1):
            try:
                return self._run(schema, pointer, out=True, depth=depth, budget=OUTPUT_BUDGET)
            except _OverBudget:
                continue
        return self._run(schema, pointer, out=True, depth=1)

    def is_object_schema(self, schema: JSON, pointer: str) -> bool:
        """True when every value `schema` accepts is a JSON object (so never null)."""
        return self._is_object(schema, pointer, 0)

    def object_properties(self, schema: JSON, pointer: str) -> tuple[dict[str, JSON], set[str]] | None:
        """Raw property schemas and required names of a plain object, readOnly properties left out.

        None when the object cannot be flattened into arguments: a root anyOf/oneOf/not, a map
        (`additionalProperties` or `patternProperties` schemas), no properties, or a required name
        without a property schema.
        """
        node, ptr, leftovers = self._gather(schema, pointer)
        if node is None or leftovers or node.keys() & {"anyOf", "oneOf", "not", "patternProperties"}:
            return None
        raw, required = node.get("properties"), node.get("required", [])
        extra = _unwrap(node.get("additionalProperties", True), ptr)[0]
        if self._types(node, ptr)[0] not in ([], ["object"]) or not isinstance(raw, dict) or not raw \
                or extra not in (True, False, {}) or not _is_names(required) or set(required) - raw.keys():
            return None
        props: dict[str, JSON] = {}
        for name, sub in raw.items():
            sub, here = _unwrap(sub, _join(ptr, "properties", name))
            if not self._marked(sub, here, "readOnly"):
                props[name] = sub
        return props, {name for name in required if name in props}

    # Runs ---------------------------------------------------------------------------------------

    def _settle(self, *, out: bool, ref_limit: int = 1, scc_once: bool = False, depth: int = 0,
                budget: int | None = None) -> None:
        self._out, self._ref_limit, self._scc_once = out, ref_limit, scc_once
        self._depth, self._level, self._budget, self._spent = depth, 0, budget, 0

    def _run(self, schema: JSON, pointer: str, *, out: bool, ref_limit: int = 1, scc_once: bool = False,
             depth: int = 0, budget: int | None = None) -> Schema:
        self._settle(out=out, ref_limit=ref_limit, scc_once=scc_once, depth=depth, budget=budget)
        return dict(self._convert(schema, pointer))

    def _spend(self, properties: int) -> None:
        self._spent += properties
        if self._budget is not None and self._spent > self._budget:
            raise _OverBudget

    def _warn(self, pointer: str, message: str) -> None:
        if (pointer, message) not in self._warned:
            self._warned.add((pointer, message))
            self._diagnostics.warning(pointer, message)

    # Conversion ---------------------------------------------------------------------------------

    def _convert(self, node: JSON, pointer: str) -> Schema:
        schema, nullable = self._core(node, pointer)
        return _with_null(schema) if nullable else schema

    def _member(self, node: JSON, pointer: str) -> Schema:
        """A property, item or map value: in output schemas it may also be null."""
        schema = self._convert(node, pointer)
        return _with_null(schema) if self._out else schema

    def _core(self, node: JSON, pointer: str) -> tuple[Schema, bool]:
        """The converted schema without its null alternative, and whether null is allowed."""
        node, pointer = _unwrap(node, pointer)
        if isinstance(node, bool):
            return ({} if node else {"not": {}}), False
        if not isinstance(node, dict):
            self._warn(pointer, "a schema must be an object; it is ignored")
            return {}, False
        if isinstance(node.get("$ref"), str):
            return self._ref(node, pointer)
        if "allOf" in node:
            return self._all_of(node, pointer)
        return self._plain(node, pointer)

    def _plain(self, node: Schema, pointer: str) -> tuple[Schema, bool]:
        node = _exclusive_bounds(node)
        types, nullable = self._types(node, pointer)
        binary = node.get("format") in ("binary", "byte") or node.get("type") == "file"
        types = types or (["string"] if binary else [])
        level = int(self._out and ("properties" in node or "object" in types))
        if level and self._level >= self._depth:
            description = node.get("description")
            return ({"description": _shorten(description)} if isinstance(description, str) else {}), nullable
        self._level += level
        try:
            out = self._keywords(node, pointer)
        finally:
            self._level -= level
        if not self._out:
            out.update(self._notes(node, pointer, out.get("description", ""), types, binary))
        return _typed(out, types), nullable

    def _keywords(self, node: Schema, pointer: str) -> Schema:
        out = self._object(node, pointer) if "properties" in node or "required" in node else {}
        for key, raw in node.items():
            if self._out and key not in _OUTPUT_KEYWORDS:
                continue
            if key in _CHECKS and not (key == "format" and raw in ("binary", "byte")):
                if _CHECKS[key](raw):
                    out[key] = _shorten(raw) if self._out else raw
                else:
                    self._warn(_join(pointer, key), f"invalid value {raw!r} for {key}; it is dropped")
            elif key in _LOCATED:
                value, here = _unwrap(raw, _join(pointer, key))
                if key in _SUBSCHEMA:
                    self._single(out, key, value, here)
                elif key in _SUBSCHEMA_LISTS:
                    self._list(out, key, value, here, "discriminator" in node)
                else:
                    self._patterns(out, value, here)
        return out

    def _object(self, node: Schema, pointer: str) -> Schema:
        """`properties` (without readOnly ones in input, writeOnly ones in output) and `required`."""
        raw, here = _unwrap(node.get("properties", {}), _join(pointer, "properties"))
        if not isinstance(raw, dict):
            self._warn(here, "properties must be an object; they are dropped")
            raw = {}
        props: Schema = {}
        for name, sub in raw.items():
            sub, sub_pointer = _unwrap(sub, _join(here, name))
            if not self._marked(sub, sub_pointer, "writeOnly" if self._out else "readOnly"):
                self._spend(1)
                props[name] = self._member(sub, sub_pointer)
        out: Schema = {"properties": props} if props else {}
        required = node.get("required")
        if self._out or required is None:
            return out
        if not _is_names(required):
            self._warn(_join(pointer, "required"), "required must be a list of names; it is dropped")
            return out
        names = [name for name in dict.fromkeys(required) if name in props or name not in raw]
        return {**out, "required": names} if names else out

    def _single(self, out: Schema, key: str, value: JSON, pointer: str) -> None:
        if key == "items" and isinstance(value, list):  # the draft-4 tuple form
            self._warn(pointer, "items is a list (tuple form); it becomes prefixItems")
            self._list(out, "prefixItems", value, pointer, False)
        elif key == "additionalProperties" and value is False:
            if not self._out:
                out[key] = False
        elif key != "not" or not self._out:
            member = key in ("items", "additionalProperties")
            converted = self._member(value, pointer) if member else self._convert(value, pointer)
            if converted or key == "not":  # `items: {}` and the like say nothing
                out[key] = converted

    def _list(self, out: Schema, key: str, value: JSON, pointer: str, discriminated: bool) -> None:
        if not isinstance(value, list) or not value:
            self._warn(pointer, f"{key} must be a non-empty list; it is dropped")
            return
        convert = self._member if key == "prefixItems" else self._convert
        branches = [convert(branch, _join(pointer, index)) for index, branch in enumerate(value)]
        if key == "oneOf" and (self._out or discriminated):
            key = "anyOf"
        if not self._out or key != "anyOf":
            out[key] = branches
            return
        branches = _dedupe([*out.pop("anyOf", []), *branches])
        if any(branch.keys() <= {"description"} for branch in branches):
            return  # one branch accepts anything: so does the anyOf
        if len(branches) > 1:
            out["anyOf"] = branches
        else:
            out.update({k: v for k, v in branches[0].items() if k not in out})

    def _patterns(self, out: Schema, value: JSON, pointer: str) -> None:
        if not isinstance(value, dict):
            self._warn(pointer, "patternProperties must be an object; it is dropped")
            return
        converted: Schema = {}
        for pattern, sub in value.items():
            if _is_regex(pattern):
                converted[pattern] = self._member(sub, _join(pointer, pattern))
            else:
                self._warn(_join(pointer, pattern), "invalid regular expression; it is dropped")
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
        if (isinstance(example, str) or _is_number(example)) and len(json.dumps(example)) <= EXAMPLE_LIMIT:
            notes["examples"] = [example]
        return notes

    def _enum(self, node: Schema, pointer: str, types: list[str]) -> Schema:
        if "enum" not in node:
            return {}
        values, here = node["enum"], _join(pointer, "enum")
        if not isinstance(values, list) or not values:
            self._warn(here, "enum must be a non-empty list; it is dropped")
            return {}
        strays = [value for value in values if value is not None and not isinstance(value, str)]
        if types != ["string"] or not strays:
            return {"enum": list(values)}
        if all(map(_is_number, strays)):  # YAML read `4.1` as a number
            self._warn(here, "enum of type string lists numbers; they are used as strings")
            return {"enum": [value if value is None else str(value) for value in values]}
        self._warn(here, "enum of type string lists non-strings (YAML booleans?); the enum is dropped")
        return {}

    def _types(self, node: Schema, pointer: str) -> tuple[list[str], bool]:
        """The non-null types a schema declares (integer widened in output), and whether null is allowed."""
        raw = node.get("type")
        names = raw if isinstance(raw, list) else [] if raw is None else [raw]
        types: list[str] = []
        for name in names:
            name = "string" if name == "file" else "number" if self._out and name == "integer" else name
            if name in _TYPES and name not in types:
                types.append(name)
            elif name not in _TYPES and name != "null":
                self._warn(_join(pointer, "type"), f"unknown type {name!r}; it is dropped")
        if "integer" in types and "number" in types:
            types.remove("integer")
        if not types and names and all(name == "null" for name in names):
            return ["null"], False
        return types, node.get("nullable") is True or "null" in names

    def _marked(self, node: JSON, pointer: str, marker: str) -> bool:
        """True when a property schema (or the schema its `$ref` names) has `marker: true`."""
        if isinstance(node, dict) and isinstance(node.get("$ref"), str) and node.get(marker) is not True:
            node = self._resolver.deref(node, pointer)[0]
        return isinstance(node, dict) and node.get(marker) is True

    # References ---------------------------------------------------------------------------------

    def _ref(self, node: Schema, pointer: str) -> tuple[Schema, bool]:
        ref = node["$ref"]
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        if self._siblings_apply and any(key not in _ANNOTATIONS and not key.startswith("x-")
                                        for key in siblings):
            return self._all_of({"allOf": [{"$ref": ref}, siblings]}, pointer)
        target = self._resolver.lookup(ref, pointer)
        schema, nullable = self._cut(ref, target) if self._must_cut(ref) else self._expand(ref, target)
        notes = {key: value for key, value in siblings.items() if key in _ANNOTATIONS}
        if notes:  # 3.0 ignores other siblings, as the specification says
            more, more_nullable = self._plain(notes, pointer)
            schema, nullable = {**schema, **more}, nullable or more_nullable
        return schema, nullable

    def _expand(self, ref: str, target: JSON) -> tuple[Schema, bool]:
        cycle = self._scc[ref]
        state = tuple(sorted((other, n) for other, n in self._counts.items() if self._scc[other] == cycle))
        key = (self._out, self._depth - self._level, self._ref_limit, self._scc_once, ref, state)
        hit = self._cache.get(key)
        if hit is not None:
            self._spend(hit[2])
            return hit[0], hit[1]
        spent = self._spent
        self._push(ref)
        try:
            schema, nullable = self._core(target, ref)
        finally:
            self._pop(ref)
        self._cache[key] = (schema, nullable, self._spent - spent)
        return schema, nullable

    def _must_cut(self, ref: str) -> bool:
        cycle = self._scc_of(ref)
        if self._scc_once:
            return any(self._scc[other] == cycle for other in self._counts)
        return self._counts.get(ref, 0) >= self._ref_limit

    def _cut(self, ref: str, target: JSON) -> tuple[Schema, bool]:
        note = f"Recursive reference to {unescape_token(ref.rsplit('/', 1)[-1])}; the recursion is cut here."
        nullable = isinstance(target, dict) and (target.get("nullable") is True
                                                 or "null" in _as_list(target.get("type")))
        if self._objectish(target, ref, 0):
            return {"type": "object", "description": note}, nullable
        return {"description": note}, nullable

    def _objectish(self, node: JSON, pointer: str, depth: int) -> bool:
        if not isinstance(node, dict) or depth > 3:
            return False
        if "object" in _as_list(node.get("type")) or "properties" in node or "additionalProperties" in node:
            return True
        branches = node.get("allOf")
        return isinstance(branches, list) and any(
            self._objectish(*self._resolver.deref(branch, pointer), depth + 1) for branch in branches)

    def _push(self, ref: str) -> None:
        self._counts[ref] = self._counts.get(ref, 0) + 1
        if self._budget is not None and sum(self._counts.values()) > MAX_NESTED_REFS:
            self._pop(ref)
            raise _OverBudget

    def _pop(self, ref: str) -> None:
        self._counts[ref] -= 1
        if not self._counts[ref]:
            del self._counts[ref]

    def _scc_of(self, root: str) -> str:
        """Tarjan's algorithm over the reference graph, run from each reference not seen yet."""
        if root in self._scc:
            return self._scc[root]
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        work: list[tuple[str, Iterator[str]]] = []

        def enter(ref: str) -> None:
            index[ref] = low[ref] = len(index)
            stack.append(ref)
            work.append((ref, self._edges(ref)))

        enter(root)
        while work:
            ref, edges = work[-1]
            for nxt in edges:
                if nxt not in self._scc and nxt not in index:
                    enter(nxt)
                    break
                if nxt not in self._scc:  # on the stack: part of the current component
                    low[ref] = min(low[ref], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[ref])
                if low[ref] == index[ref]:
                    while (member := stack.pop()) != ref:
                        self._scc[member] = ref
                    self._scc[ref] = ref
        return self._scc[root]

    def _edges(self, ref: str) -> Iterator[str]:
        try:
            target = self._resolver.lookup(ref, ref)
        except SpecError:  # reported where the conversion meets it
            return iter(())
        return iter(dict.fromkeys(_refs_in(target)))

    # allOf --------------------------------------------------------------------------------------

    def _all_of(self, node: Schema, pointer: str) -> tuple[Schema, bool]:
        pushed: list[str] = []
        try:
            merged, leftovers = self._merge(self._pieces(node, pointer, pushed), pointer)
            schema, nullable = self._plain(merged, pointer)
            if leftovers and not self._out:
                schema = {**schema, "allOf": [self._convert(piece, here) for piece, here in leftovers]}
        finally:
            for ref in pushed:
                self._pop(ref)
        return schema, nullable

    def _gather(self, schema: JSON, pointer: str) -> tuple[Schema | None, str, Pieces]:
        """`schema` dereferenced, with its allOf merged (outside any conversion)."""
        node, pointer = self._resolver.deref(schema, pointer)
        if not isinstance(node, dict) or "allOf" not in node:
            return (node if isinstance(node, dict) else None), pointer, []
        self._settle(out=False)
        pushed: list[str] = []
        try:
            merged, leftovers = self._merge(self._pieces(node, pointer, pushed), pointer)
        finally:
            for ref in pushed:
                self._pop(ref)
        return merged, pointer, leftovers

    def _pieces(self, node: Schema, pointer: str, pushed: list[str]) -> Pieces:
        """The schema's own keywords and its allOf branches, flattened; the refs followed are pushed."""
        own = {key: value for key, value in node.items() if key != "allOf"}
        pieces, branches = ([(own, pointer)] if own else []), node["allOf"]
        if not isinstance(branches, list):
            self._warn(_join(pointer, "allOf"), "allOf must be a list; it is ignored")
            return pieces
        for index, branch in enumerate(branches):
            here = _join(pointer, "allOf", index)
            while isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
                ref, target = branch["$ref"], self._resolver.lookup(branch["$ref"], here)
                if siblings := {key: value for key, value in branch.items() if key != "$ref"}:
                    pieces.append((siblings, here))
                if self._must_cut(ref):
                    branch = self._cut(ref, target)[0]
                    break
                self._push(ref)
                pushed.append(ref)
                branch, here = target, ref
            if isinstance(branch, dict) and "allOf" in branch:
                pieces.extend(self._pieces(branch, here, pushed))
            elif isinstance(branch, dict | bool):
                pieces.append(({} if branch is True else {"not": {}} if branch is False else branch, here))
            else:
                self._warn(here, "an allOf branch must be a schema; it is ignored")
        return pieces

    def _merge(self, pieces: Pieces, pointer: str) -> tuple[Schema, Pieces]:
        """One schema holding what all pieces say, and the pieces' keywords that conflict with it."""
        merged: Schema = {}
        props: dict[str, list[_Located]] = {}
        required: list[str] = []
        leftovers: Pieces = []
        extras: list[_Located] = []
        types: list[str] | None = None
        nullable = closed = False
        for piece, where in pieces:
            piece = _exclusive_bounds(piece)
            piece_types, piece_nullable = self._types(piece, where)
            if "type" in piece:
                declared = piece_types + ["null"] * piece_nullable
                types = declared if types is None else _intersect(types, declared)
            nullable = nullable or (piece_nullable and "type" not in piece)
            for key, value in piece.items():
                if key == "properties" and isinstance(value, dict):
                    for name, sub in value.items():
                        props.setdefault(name, []).append(_Located(sub, _join(where, key, name)))
                elif key == "required" and _is_names(value):
                    required.extend(name for name in value if name not in required)
                elif key == "additionalProperties" and value in (False, True, {}):
                    closed = closed or value is False
                elif key == "additionalProperties":
                    extras.append(_Located(value, _join(where, key)))
                elif key not in ("type", "nullable"):
                    _merge_keyword(merged, leftovers, key, value, where)
        if props:
            merged["properties"] = {name: _all(locs) for name, locs in props.items()}
        if required:
            merged["required"] = required
        if closed and not leftovers and not merged.keys() & {"anyOf", "oneOf"}:
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

    def _is_object(self, schema: JSON, pointer: str, depth: int) -> bool:
        if depth > 8 or (isinstance(schema, dict) and schema.get("nullable") is True):
            return False
        node, pointer, _ = self._gather(schema, pointer)
        if node is None:
            return False
        types, nullable = self._types(node, pointer)
        if types or nullable:
            return types == ["object"] and not nullable
        for key in ("oneOf", "anyOf"):
            branches, here = _unwrap(node.get(key), _join(pointer, key))
            if isinstance(branches, list) and branches:
                return all(self._is_object(branch, _join(here, index), depth + 1)
                           for index, branch in enumerate(branches))
        return False


def _merge_keyword(merged: Schema, leftovers: Pieces, key: str, value: JSON, where: str) -> None:
    """Fold one keyword of an allOf piece into `merged`; a conflicting value becomes a leftover."""
    old = _unwrap(merged.get(key), where)[0]
    if key not in merged:
        merged[key] = _Located(value, _join(where, key)) if key in _LOCATED else value
    elif key in _ANNOTATIONS or key.startswith("x-") or old == value:
        return  # the first description (the outer schema's own) wins
    elif key in _LOWER and _is_number(old) and _is_number(value):
        merged[key] = max(old, value)
    elif key in _UPPER and _is_number(old) and _is_number(value):
        merged[key] = min(old, value)
    else:
        leftovers.append(({key: value}, where))


def _all(locs: list[_Located]) -> JSON:
    """One located schema, or an allOf of the distinct ones (a property defined by several branches)."""
    unique = [loc for index, loc in enumerate(locs) if all(loc.node != other.node for other in locs[:index])]
    return unique[0] if len(unique) == 1 else {"allOf": [loc.node for loc in unique]}


def _intersect(first: list[str], second: list[str]) -> list[str]:
    both = [name for name in first if name in second]
    if ("integer" in first and "number" in second) or ("number" in first and "integer" in second):
        both.append("integer")
    return list(dict.fromkeys(name for name in both if name != "number" or "integer" not in both))


def _exclusive_bounds(node: Schema) -> Schema:
    """OAS 3.0 `minimum: n, exclusiveMinimum: true` → 2020-12 `exclusiveMinimum: n` (same for max)."""
    if type(node.get("exclusiveMinimum")) is not bool and type(node.get("exclusiveMaximum")) is not bool:
        return node
    node = dict(node)
    for bound, flag in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if isinstance(node.get(flag), bool) and node.pop(flag) and bound in node:
            node[flag] = node.pop(bound)
    return node


def _typed(out: Schema, types: list[str]) -> Schema:
    """Add the type; several types become an anyOf with each type-specific keyword in its branch."""
    if len(types) < 2:
        return {"type": types[0], **out} if types else out
    if "enum" in out or "const" in out:
        return out  # the values say it all

    def family(key: str, value: JSON) -> str | None:
        if key == "format":
            return "number" if value in ("int32", "int64", "float", "double") else "string"
        return _FAMILY.get(key)

    def branch(name: str) -> Schema:
        wanted = (name, "number" if name == "integer" else name)
        return {"type": name, **{key: value for key, value in out.items() if family(key, value) in wanted}}

    common = {key: value for key, value in out.items() if family(key, value) is None}
    if "anyOf" in common:
        common["allOf"] = [*common.get("allOf", []), {"anyOf": common.pop("anyOf")}]
    return {**common, "anyOf": [branch(name) for name in types]}


def _accepts_null(schema: Schema) -> bool:
    keys = schema.keys() & _CONSTRAINTS
    if keys == {"type"}:
        return bool(schema["type"] == "null")
    if keys == {"enum"}:
        return None in schema["enum"]
    if keys == {"anyOf"}:
        return any(_accepts_null(branch) for branch in schema["anyOf"])
    return not keys


def _with_null(schema: Schema) -> Schema:
    """`schema` or null: null joins an enum, or an anyOf carries the annotations on top."""
    if _accepts_null(schema):
        return schema
    if "enum" in schema:
        values = schema["enum"] if None in schema["enum"] else [*schema["enum"], None]
        return {**{key: value for key, value in schema.items() if key != "type"}, "enum": values}
    top = {key: schema[key] for key in _LIFTED if key in schema}
    rest = {key: value for key, value in schema.items() if key not in _LIFTED}
    branches = rest["anyOf"] if rest.keys() == {"anyOf"} else [rest]
    return {**top, "anyOf": [*branches, {"type": "null"}]}


def _dedupe(branches: list[Schema]) -> list[Schema]:
    return [branch for index, branch in enumerate(branches) if branch not in branches[:index]]


def _shorten(text: JSON) -> JSON:
    if not isinstance(text, str) or len(text) <= DESCRIPTION_LIMIT:
        return text
    return text[: DESCRIPTION_LIMIT - 1].rstrip() + "…"


def _as_list(value: JSON) -> list[JSON]:
    return value if isinstance(value, list) else [value]


def _refs_in(node: JSON) -> Iterator[str]:
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("$ref"), str):
                yield item["$ref"]
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
