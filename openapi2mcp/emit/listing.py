"""The listed form of an inputSchema: what tools/list sends, readable by the clients' converters
(docs/clients.md), while the server still enforces the schema as fitted.

google-genai's converter reads every subschema as an object, so a boolean subschema makes it fail
on the whole server. The listed form has none:

- `additionalProperties: false` is left out, and its place is recorded as a JSON pointer
  (`closed`, in the tool's route of tool_data.json); the runtime puts it back before validating
  (`openapi2mcp_runtime/results/validation.py`), so unknown arguments are still refused;
- `additionalProperties: true` is left out (the same meaning);
- any other `true` subschema is `{}`, any other `false` one `{"not": {}}` (the same meaning);
- a root without `properties` (a tool without arguments) gets `"properties": {}`.
"""

from __future__ import annotations

import copy
from typing import Any

from openapi2mcp.model import JSONSchema, Tool

_ONE = frozenset(
    {"items", "not", "if", "then", "else", "contains", "propertyNames", "additionalItems"}
    | {"unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalProperties"}
)
_MAP = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_LIST = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})


def escape(key: str) -> str:
    """A key as a JSON pointer token (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


def listed_input(schema: JSONSchema) -> tuple[JSONSchema, list[str]]:
    """The listed form of an inputSchema and the pointers of the objects it no longer closes, sorted."""
    closed: list[str] = []
    listed = _subschema(schema, "", closed)
    if not isinstance(listed, dict):  # (an inputSchema is an object; a boolean one stays as it is)
        return schema, []
    if "properties" not in listed and listed.get("type") == "object":
        listed["properties"] = {}
    return listed, sorted(closed)


def _subschema(schema: Any, pointer: str, closed: list[str]) -> Any:
    if schema is True:
        return {}
    if schema is False:
        return {"not": {}}
    if not isinstance(schema, dict):
        return schema
    listed: dict[str, Any] = {}
    for key, value in schema.items():
        where = f"{pointer}/{escape(key)}"
        if key == "additionalProperties" and isinstance(value, bool):
            if value is False:
                closed.append(pointer)
        elif key in _ONE:
            listed[key] = _subschema(value, where, closed)
        elif key in _MAP and isinstance(value, dict):
            listed[key] = {
                name: _subschema(sub, f"{where}/{escape(name)}", closed) for name, sub in value.items()
            }
        elif key in _LIST and isinstance(value, list):
            listed[key] = [_subschema(sub, f"{where}/{index}", closed) for index, sub in enumerate(value)]
        else:
            listed[key] = value
    return listed


def enforced_input(listed: Any, closed: Any) -> Any:
    """The inputSchema the runtime enforces: the listed one with `additionalProperties: false`
    back at each pointer of `closed` (as the runtime's `listing.closed_again` does); a pointer
    that names no object of it (data written by hand) is passed over."""
    if not isinstance(listed, dict) or not isinstance(closed, list) or not closed:
        return listed
    whole = copy.deepcopy(listed)
    for pointer in closed:
        node = _follow(whole, pointer) if isinstance(pointer, str) else None
        if isinstance(node, dict):
            node["additionalProperties"] = False
    return whole


def _follow(node: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


def listed_wire(tool: Tool) -> tuple[dict[str, Any], list[str]]:
    """The tool as tools/list sends it, and the pointers its runtime closes again."""
    wire = tool.wire()
    wire["inputSchema"], closed = listed_input(tool.input_schema)
    return wire, closed
