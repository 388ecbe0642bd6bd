"""The tools' JSON Schema checks: arguments (with `format`), structured results, and the results
hooks.py makes, each tool's validators compiled by jsonschema on first use; `integral` turns an
integral float (JSON Schema counts 1.0 as an integer) into the int its `integer` schema asks for."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from mcp.types import CallToolResult

from ..discovery import meta_tools as mt
from ..discovery.listing import closed_again
from . import responses as res


class Validation:
    """Checks against the schemas of `tools` (by name); "meta" checks a meta-tool's arguments.
    `closed`: by tool name, the objects of its listed inputSchema that are closed again."""

    def __init__(
        self,
        tools: Mapping[str, Mapping[str, Any]],
        closed: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self._tools, self._closed = tools, closed or {}
        self._validators: dict[tuple[str, str], Any] = {}

    def errors(self, name: str, kind: str, value: Any) -> list[Any]:
        """jsonschema's errors for the tool's input ("in", `format` too), output ("out") or a
        meta-tool's input ("meta")."""
        if (validator := self._validators.get((name, kind))) is None:
            import jsonschema  # type: ignore[import-untyped,unused-ignore]

            if kind == "meta":
                schema = mt.definition(name, "")["inputSchema"]
            else:
                tool = self._tools[name]
                schema = tool["inputSchema"] if kind == "in" else tool.get("outputSchema") or {}
                if kind == "in" and (pointers := self._closed.get(name)):
                    schema = closed_again(schema, pointers)
            cls = jsonschema.validators.validator_for(
                schema, default=jsonschema.Draft202012Validator
            )
            checker = cls.FORMAT_CHECKER if kind != "out" else None
            validator = self._validators[(name, kind)] = cls(schema, format_checker=checker)
        return list(validator.iter_errors(value))

    def integral(self, name: str, arguments: Any) -> Any:
        """Valid `arguments` with each integral float whose schema says `integer` made an int, so
        that 1.0 is sent as 1 in a path, query, header, cookie, form or JSON body."""
        schema = self._tools[name]["inputSchema"]
        return _integral(schema, arguments, schema, 0)

    def output_problem(self, name: str, value: Any) -> str | None:
        return res.first_problem(self.errors(name, "out", value))

    def conformed(self, name: str, result: CallToolResult, how: str) -> CallToolResult:
        """A success of a tool with an output schema must carry conforming structured content
        (`how` the result was made in hooks.py, for the message)."""
        if result.is_error or "outputSchema" not in self._tools[name]:
            return result
        value = result.structured_content
        problem = "it has none" if value is None else self.output_problem(name, value)
        if problem is None:
            return result
        return res.error_result(
            f"The result of tool '{name}', {how} in hooks.py, does not match the tool's output schema"
            f" ({problem}). Fix hooks.py; the call itself was made."
        )


_BRANCHES = ("allOf", "anyOf", "oneOf")
_MOST_REFS = 64  # $ref hops and nesting followed for one value (a cycle of $refs stops here)


def _integral(schema: Any, value: Any, root: Mapping[str, Any], depth: int) -> Any:
    """`value` (valid against `schema`) with the integral floats `schema` types `integer` as ints."""
    if not isinstance(schema, Mapping) or depth > _MOST_REFS:
        return value
    if isinstance(value, float) and value.is_integer() and _says_integer(schema, root, depth):
        return int(value)
    if isinstance(value, dict):
        value = {
            key: _integral(_property(schema, key), item, root, depth + 1)
            for key, item in value.items()
        }
    elif isinstance(value, list):
        value = [
            _integral(_item(schema, index), item, root, depth + 1)
            for index, item in enumerate(value)
        ]
    for branch in _branches(schema, root):
        value = _integral(branch, value, root, depth + 1)
    return value


def _says_integer(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> bool:
    kind = schema.get("type")
    if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
        return True
    return depth <= _MOST_REFS and any(
        isinstance(branch, Mapping) and _says_integer(branch, root, depth + 1)
        for branch in _branches(schema, root)
    )


def _branches(schema: Mapping[str, Any], root: Mapping[str, Any]) -> list[Any]:
    """The subschemas that apply to the same value: allOf, anyOf, oneOf and a local $ref."""
    found = [branch for key in _BRANCHES for branch in schema.get(key) or ()]
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        found.append(_pointed(root, ref[1:]))
    return found


def _pointed(root: Any, pointer: str) -> Any:
    """The node of `root` at a JSON pointer (None where there is none)."""
    node = root
    for token in pointer.split("/")[1:] if pointer else ():
        key = unquote(token).replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping):
            node = node.get(key)
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


def _property(schema: Mapping[str, Any], key: str) -> Any:
    properties = schema.get("properties")
    if isinstance(properties, Mapping) and key in properties:
        return properties[key]
    patterns = schema.get("patternProperties")
    for pattern, found in patterns.items() if isinstance(patterns, Mapping) else ():
        if re.search(pattern, key):
            return found
    return schema.get("additionalProperties")


def _item(schema: Mapping[str, Any], index: int) -> Any:
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list) and index < len(prefix):
        return prefix[index]
    return schema.get("items")
