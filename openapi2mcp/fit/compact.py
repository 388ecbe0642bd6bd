"""Compact forms of a tool's schemas, giving up the least useful parts first.

MCP clients do not take tool definitions of any size: claude.ai silently drops a tool whose
inputSchema is over 16 KiB, and the TypeScript SDK refuses a message over 10 MiB, which one
tools/list of Kubernetes' CRD tools (1 MB each) easily is. `PLANS` are the forms, from the
schema as it is to its arguments' types alone:

1. descriptions below the arguments shortened to their first sentence;
2. descriptions and examples kept on the arguments and their own properties only, then on the
   arguments only (shortened, too);
3. nesting cut: a schema deeper than N levels below an argument (N = 8, 6, 4, 3, 2, 1, 0) becomes
   a stub that keeps its `type` (or `$ref`) only, so an object there is open;
4. the arguments' descriptions cut to 60 characters, then the arguments themselves made stubs,
   with that description, then without.

The arguments, their names and whether they are required never change, so every call that was
valid stays valid and is sent the same way; what a cut removes is checked by the API instead
of the generated server. Depth counts values, not keywords: an argument (a property of the root)
is depth 0, its properties and items depth 1; `anyOf`/`oneOf`/`allOf` branches share their
parent's depth, and the root's `$defs` are depth 1.

`compact_sizes.Sizer` measures a schema under every plan in one walk, without building any form
(large specs have thousands of tools to measure); `Shrinker` builds the one form chosen. Both walk
each dict shared between schemas (converted schemas share nested dicts) once per depth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from openapi2mcp.model import JSONSchema

SHORT_TEXT = 160  # characters of a shortened description
TINY_TEXT = 60  # ... and of a very short one
_UNLIMITED = 1_000_000

# Keywords whose value is a schema one level deeper (an item, a map value), or a map or list of them ...
CHILD = ("items", "additionalProperties", "contains", "propertyNames", "unevaluatedProperties")
CHILD_GROUPS = ("properties", "patternProperties", "prefixItems")
# ... or a schema for the same value, or a map or list of them.
SAME = ("not", "if", "then", "else")
SAME_GROUPS = ("anyOf", "oneOf", "allOf", "dependentSchemas")
TEXT = "description"
EXAMPLES = ("examples", "example")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n\s*\n")


@dataclass(frozen=True)
class Plan:
    """How much of a schema to keep: text down to `text_depth` (shortened to `text_length`
    characters when set), structure down to `structure_depth`."""

    text_depth: int
    text_length: int | None
    structure_depth: int
    what: str  # for diagnostics


AS_IS = 0  # the index of the plan that keeps everything
PLANS = (
    Plan(_UNLIMITED, None, _UNLIMITED, "kept whole"),
    Plan(_UNLIMITED, SHORT_TEXT, _UNLIMITED, "nested descriptions shortened"),
    Plan(1, SHORT_TEXT, _UNLIMITED, "descriptions kept down to the arguments' own properties"),
    Plan(0, SHORT_TEXT, _UNLIMITED, "descriptions kept on the arguments only"),
    *(Plan(0, SHORT_TEXT, depth, f"nesting cut below level {depth}") for depth in (8, 6, 4, 3, 2, 1)),
    Plan(0, SHORT_TEXT, 0, "nesting cut below the arguments"),
    Plan(0, TINY_TEXT, 0, f"nesting cut below the arguments, descriptions cut to {TINY_TEXT} characters"),
    Plan(0, TINY_TEXT, -1, f"each argument cut to its type, descriptions cut to {TINY_TEXT} characters"),
    Plan(-1, None, -1, "each argument cut to its type, descriptions dropped"),
)


def stub(node: dict[str, Any], plan: Plan, depth: int) -> dict[str, Any]:
    """What is left of a schema past the cut: its `type` (or its `$ref`) and, when the plan keeps
    text at this depth, its description; nothing that constrains more."""
    out: dict[str, Any] = {}
    if isinstance(node.get("type"), str):
        out["type"] = node["type"]
    elif isinstance(node.get("$ref"), str):
        out["$ref"] = node["$ref"]
    if depth <= plan.text_depth and TEXT in node:
        out[TEXT] = shorten(node[TEXT], plan.text_length)
    return out


def shorten(text: Any, length: int | None) -> Any:
    """The first sentence of `text`, at most `length` characters (an ellipsis marks a cut)."""
    if not isinstance(text, str) or length is None:
        return text
    first = " ".join(_SENTENCE_END.split(text.strip(), maxsplit=1)[0].split())
    if len(first) <= length:
        return first
    return first[: length - 1].rstrip() + "…"


class Shrinker:
    """Builds a schema's form under one plan; the input is never changed."""

    def __init__(self) -> None:
        self._memo: dict[tuple[int, int, int], tuple[Any, Any]] = {}  # → (node kept alive, result)

    def root(self, schema: JSONSchema, index: int) -> JSONSchema:
        """A tool's schema under `PLANS[index]`: its properties (arguments) at depth 0, `$defs` at 1."""
        if index == AS_IS:
            return schema
        out = dict(schema)
        if "properties" in schema:
            out["properties"] = self._each(schema["properties"], 0, index)
        if "$defs" in schema:
            out["$defs"] = self._each(schema["$defs"], 1, index)
        return out

    def shrink(self, node: Any, depth: int, index: int) -> Any:
        if not isinstance(node, dict):
            return node
        key = (id(node), depth, index)
        if key not in self._memo:
            self._memo[key] = node, self._shrink(node, depth, index)
        return self._memo[key][1]

    def _shrink(self, node: dict[str, Any], depth: int, index: int) -> dict[str, Any]:
        plan = PLANS[index]
        if depth > plan.structure_depth:
            return stub(node, plan, depth)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == TEXT or key in EXAMPLES:
                if depth <= plan.text_depth:
                    out[key] = shorten(value, plan.text_length) if key == TEXT else value
            elif key in CHILD:
                out[key] = self.shrink(value, depth + 1, index)
            elif key in CHILD_GROUPS:
                out[key] = self._each(value, depth + 1, index)
            elif key in SAME:
                out[key] = self.shrink(value, depth, index)
            elif key in SAME_GROUPS:
                out[key] = self._each(value, depth, index)
            else:
                out[key] = value
        return out

    def _each(self, value: Any, depth: int, index: int) -> Any:
        """Each schema of a list or of a map of schemas, shrunk."""
        if isinstance(value, list):
            return [self.shrink(sub, depth, index) for sub in value]
        if isinstance(value, dict):
            return {name: self.shrink(sub, depth, index) for name, sub in value.items()}
        return value
