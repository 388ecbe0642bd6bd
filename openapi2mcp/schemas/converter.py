"""Convert OpenAPI Schema Objects into JSON Schema 2020-12 for MCP `inputSchema` and `outputSchema`.

Input schemas keep every constraint of the spec, so that a call which validates is a request the API
accepts. Output schemas are tolerant, so that a client validating `structuredContent` never rejects
a real response because the spec lies. Both inline every `$ref` (except references to local `$defs`,
below), cut recursion, and hold no `type` arrays and no boolean schemas; the one boolean kept is
`additionalProperties: false`, the form the MCP documentation itself uses for closed objects.

Decisions:
- Recursion: along one path a `$ref` is expanded at most `max_ref_depth` times in input schemas and
  once in output schemas; the next occurrence becomes `{"type": "object"}` (object-like targets) or
  `{}`, with a description naming the schema. An input schema that grows past `INPUT_BUDGET`
  properties or `MAX_NESTED_REFS` nested references is converted again entering each reference
  cycle once (no member of a cycle is expanded inside another member of the same cycle). The refs of
  `allOf` branches are on the path only while the branches are flattened: a base merged into a
  schema is not nested in it (PagerDuty builds every schema on one base, and a Service's team
  references, built on it too, are no recursion).
- Caching: a `$ref`'s conversion is cached under the counts of the references of its own cycle on
  the current path (found with Tarjan's algorithm), the only context it depends on, so a result
  never depends on which conversions ran before.
- `allOf` is merged into one schema: union of properties and `required`, intersection of types,
  tightest bounds, the branches' `items` merged as a property defined twice is (a collection
  wrapper refined by a later branch); conflicting keywords stay in an `allOf` of leftovers (input
  only). A branch with `additionalProperties: false` closes the merged object over the union of all
  branches' properties: that is the author's intent, while the literal meaning (each closed branch
  rejects the others' properties) accepts almost nothing. The object stays open when
  `anyOf`/`oneOf`, leftovers or a local `$ref` may bring properties that the union does not list.
- Null: OAS 3.0 `nullable: true` and 3.1 `"null"` in a `type` array are honoured in every version,
  as `{"anyOf": [<schema>, {"type": "null"}]}` with description/default/examples on top, or by adding
  `null` to an `enum` (whose `type` is then dropped).
- Discriminators: a `oneOf` with a `discriminator` becomes `anyOf`; in input schemas each branch of
  a discriminated `oneOf`/`anyOf` is a copy pinning the property to the values that select it (its
  `mapping` keys, else its component name) as `enum`, unless the property's own schema rejects
  them (see `schema_discriminator`). The parent of an allOf hierarchy is not expanded.
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
- Local definitions (OAS 3.1 / JSON Schema 2020-12): a `#/$defs/...` reference that does not resolve
  in the document names a definition of the tool schema's own `$defs`; it is kept as a `$ref`. The
  `$defs` keyword is dropped wherever it appears, and `local_defs` gives the converted definitions
  of a request body's schema, for the caller to hoist to the root of the tool's inputSchema.

Modules: this one holds the public API and the choice of limits for each run; `schema_convert` one
conversion pass; `schema_refs` cycles, cuts and the cache key; `schema_merge` allOf merging;
`schema_keywords` the keyword tables and the pure rules for types and null; `schema_discriminator`
the discriminator values of the branches.
"""

from __future__ import annotations

import json
from typing import Any

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.load.refs import JSON, Resolver
from openapi2mcp.schemas.engine import ConversionEngine
from openapi2mcp.schemas.keywords import is_names, join, unwrap
from openapi2mcp.schemas.refs import OverBudget

OUTPUT_DEPTH = 3
OUTPUT_BUDGET = 200
INPUT_BUDGET = 5000


def schema_size(schema: JSON) -> int:
    """Bytes of the compact JSON form of `schema`."""
    return len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False).encode())


class SchemaConverter:
    """Converts the Schema Objects of one document; `$ref` conversions are cached across calls."""

    def __init__(
        self,
        resolver: Resolver,
        diagnostics: Diagnostics,
        *,
        openapi_version: str = "3.0",
        max_ref_depth: int = 3,
    ) -> None:
        siblings_apply = not openapi_version.startswith(("2.", "3.0"))  # 3.1: `$ref` siblings count
        self._engine = ConversionEngine(resolver, diagnostics, siblings_apply=siblings_apply)
        self._max_ref_depth = max(1, max_ref_depth)
        # Input schemas by (id of the Schema Object, its pointer), the object kept alive: the same
        # object comes again and again (Swagger 2.0 path-level parameters, once for each operation).
        self._inputs: dict[tuple[int, str], tuple[JSON, dict[str, Any]]] = {}

    def input_schema(self, schema: JSON, pointer: str) -> dict[str, Any]:
        """The schema of one tool argument. Nested dicts are shared: do not mutate them.

        A conversion within the limits is remembered: converting the same object again gives the same
        result (the engine's cache is exact). One over them is not: it is done again, as it may stay
        within them once more of its references are cached."""
        known = self._inputs.get((id(schema), pointer))
        if known is not None:
            return dict(known[1])
        try:
            converted = self._engine.run(
                schema, pointer, out=False, ref_limit=self._max_ref_depth, budget=INPUT_BUDGET
            )
        except OverBudget:
            return self._engine.run(schema, pointer, out=False, scc_once=True)
        self._inputs[id(schema), pointer] = schema, converted
        return dict(converted)

    def output_schema(self, schema: JSON, pointer: str) -> dict[str, Any]:
        """A tolerant schema of a response. Nested dicts are shared: do not mutate them.

        A root that is certainly an object gets `"type": "object"` even when it is an anyOf, as MCP
        wants of an outputSchema; the caller wraps other roots.
        """
        result = self._tolerant(schema, pointer)
        if "type" not in result and self.is_object_schema(schema, pointer):
            return {"type": "object", **result}
        return result

    def _tolerant(self, schema: JSON, pointer: str) -> dict[str, Any]:
        for depth in range(OUTPUT_DEPTH, 1, -1):
            try:
                return self._engine.run(schema, pointer, out=True, depth=depth, budget=OUTPUT_BUDGET)
            except OverBudget:
                continue
        return self._engine.run(schema, pointer, out=True, depth=1)

    def is_object_schema(self, schema: JSON, pointer: str) -> bool:
        """True when every value `schema` accepts is a JSON object (so never null)."""
        return self._is_object(schema, pointer, 0)

    def object_properties(self, schema: JSON, pointer: str) -> tuple[dict[str, JSON], set[str]] | None:
        """Raw property schemas and required names of a plain object, readOnly properties left out.

        None when the object cannot be flattened into arguments: a root anyOf/oneOf/not, a map
        (`additionalProperties` or `patternProperties` schemas), no properties, or a required name
        without a property schema.
        """
        node, ptr, leftovers = self._engine.gather(schema, pointer)
        if node is None or leftovers or node.keys() & {"anyOf", "oneOf", "not", "patternProperties"}:
            return None
        raw, required = node.get("properties"), node.get("required", [])
        extra = unwrap(node.get("additionalProperties", True), ptr)[0]
        if (
            self._engine.types(node, ptr)[0] not in ([], ["object"])
            or not isinstance(raw, dict)
            or not raw
            or extra not in (True, False, {})
            or not is_names(required)
            or set(required) - raw.keys()
        ):
            return None
        props: dict[str, JSON] = {}
        for name, sub in raw.items():
            sub, here = unwrap(sub, join(ptr, "properties", name))
            if not self._engine.marked(sub, here, "readOnly"):
                props[name] = sub
        return props, {name for name in required if name in props}

    def local_defs(self, schema: JSON, pointer: str) -> dict[str, dict[str, Any]] | None:
        """The converted (input) `$defs` of `schema`, after a `$ref` at its root; None without any.

        They belong at the root of the tool's inputSchema, where the `#/$defs/...` references that
        `input_schema` keeps find them.
        """
        node, ptr = self._engine.refs.deref(schema, pointer)
        defs = node.get("$defs") if isinstance(node, dict) else None
        if defs is None:
            return None
        here = join(ptr, "$defs")
        if not isinstance(defs, dict):
            self._engine.warn(here, "$defs must be an object; it is dropped")
            return None
        return {name: self.input_schema(sub, join(here, name)) for name, sub in defs.items()} or None

    def _is_object(self, schema: JSON, pointer: str, depth: int) -> bool:
        if depth > 8 or (isinstance(schema, dict) and schema.get("nullable") is True):
            return False
        node, pointer, _ = self._engine.gather(schema, pointer)
        if node is None:
            return False
        types, nullable = self._engine.types(node, pointer)
        if types or nullable:
            return types == ["object"] and not nullable
        for key in ("oneOf", "anyOf"):
            branches, here = unwrap(node.get(key), join(pointer, key))
            if isinstance(branches, list) and branches:
                return all(
                    self._is_object(branch, join(here, index), depth + 1)
                    for index, branch in enumerate(branches)
                )
        return False
