"""Narrow an argument's schema to the values its request can carry: no empty value, no null.

The generated server validates arguments against the inputSchema, so a schema-valid argument must
make a request that the API and the runtime (openapi2mcp_runtime/upstream/serialize.py) accept:
- the runtime leaves out a parameter or a whole body given as null, so a required one must not
  accept null (`non_null`);
- `""`, `[]` and `{}` make an empty path segment, which the runtime refuses, and an empty query
  value (`name=`) or none at all, which OpenAPI forbids unless `allowEmptyValue` (`forbid_empty`).

Both work on converted input schemas (`openapi2mcp.schemas.converter`), whose nested dicts are shared and
read-only: they copy every dict they change, and never change the schema they are given.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from openapi2mcp.model import JSONSchema
from openapi2mcp.schemas.keywords import CONSTRAINTS

NON_EMPTY = {"string": "minLength", "array": "minItems", "object": "minProperties"}
_EMPTY: dict[str, Any] = {"string": "", "array": [], "object": {}}
_BRANCHES = ("anyOf", "oneOf")


def forbid_empty(schema: JSONSchema, types: Collection[str], items: bool = False) -> JSONSchema:
    """`schema` with `minLength`/`minItems`/`minProperties: 1` for each of `types` (keys of
    NON_EMPTY) it may be, at the top and in its anyOf/oneOf branches; with `items`, the items of an
    array may not be `""` either. A minimum already given, or values that exclude the empty one
    (`enum`, `const`), are kept."""
    out = dict(schema)
    for key in _BRANCHES:
        if isinstance(out.get(key), list):
            out[key] = [_forbid_in(branch, types, items) for branch in out[key]]
    for name in _empty_kinds(out, types):
        if not out.get(NON_EMPTY[name]):
            out[NON_EMPTY[name]] = 1
    if items and out.get("type") == "array" and isinstance(out.get("items"), dict):
        out["items"] = forbid_empty(out["items"], ("string",))
    return out


def _forbid_in(branch: Any, types: Collection[str], items: bool) -> Any:
    return forbid_empty(branch, types, items) if isinstance(branch, dict) else branch


def _empty_kinds(node: JSONSchema, types: Collection[str]) -> list[str]:
    """Which of `types` the node accepts an empty value of (a node without a type may be any)."""
    if "enum" in node or "const" in node:
        values = node["enum"] if isinstance(node.get("enum"), list) else [node.get("const")]
        return [name for name in types if any(_is_empty(value, name) for value in values)]
    kind = node.get("type")
    if isinstance(kind, str):
        return [kind] if kind in types else []
    if node.keys() & {"anyOf", "oneOf", "$ref"}:
        return []  # the branches decide; a local reference is left as it is
    return [name for name in NON_EMPTY if name in types]


def _is_empty(value: Any, kind: str) -> bool:
    return type(value) is type(_EMPTY[kind]) and value == _EMPTY[kind]


def admits_null(schema: JSONSchema) -> bool:
    """Whether null may be valid: False only where the schema certainly excludes it."""
    if "type" in schema and schema["type"] != "null":
        return False
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        return False
    if "const" in schema and schema["const"] is not None:
        return False
    for key in _BRANCHES:
        branches = schema.get(key)
        if isinstance(branches, list) and not any(_branch_admits_null(b) for b in branches):
            return False
    if any(not _branch_admits_null(branch) for branch in schema.get("allOf") or []):
        return False
    return not _only_null(schema.get("not"))


def _branch_admits_null(branch: Any) -> bool:
    return not isinstance(branch, dict) or admits_null(branch)


def _only_null(schema: Any) -> bool:
    """Whether `schema` is certainly satisfied by null (so that `not` it excludes null)."""
    if not isinstance(schema, dict):
        return False
    return (schema.keys() & CONSTRAINTS) <= {"type"} and schema.get("type", "null") == "null"


def non_null(schema: JSONSchema) -> JSONSchema:
    """`schema` without null: null leaves an `enum`, a `{"type": "null"}` branch leaves an
    anyOf/oneOf (a single branch left is merged into the schema), a null `default` goes, and a
    schema that would still accept null (one without a type, `{}`) gets `"not": {"type": "null"}`.
    A schema that accepts null only is returned as it is: nothing else could be sent."""
    if not admits_null(schema) or _is_null_type(schema):
        return schema
    out = {key: value for key, value in schema.items() if not (key == "default" and value is None)}
    if isinstance(out.get("enum"), list):
        out["enum"] = [value for value in out["enum"] if value is not None]
        return out
    for key in _BRANCHES:
        if isinstance(out.get(key), list):
            kept = [b for b in out[key] if not (isinstance(b, dict) and _is_null_type(b))]
            if not kept:
                return schema
            out[key] = kept
    branches = next((key for key in _BRANCHES if isinstance(out.get(key), list)), None)
    if branches is not None and admits_null(out):
        out[branches] = [_non_null_branch(branch) for branch in out[branches]]
    return _with_not_null(out) if admits_null(out) else _merge_single_branch(out)


def _non_null_branch(branch: Any) -> Any:
    return non_null(branch) if isinstance(branch, dict) else branch


def _is_null_type(branch: JSONSchema) -> bool:
    """Whether null is the one value `branch` allows."""
    return (
        branch.get("type") == "null"
        or branch.get("enum") == [None]
        or ("const" in branch and branch["const"] is None)
    )


def _with_not_null(schema: JSONSchema) -> JSONSchema:
    if "not" not in schema:
        return {**schema, "not": {"type": "null"}}
    return {**schema, "allOf": [*(schema.get("allOf") or []), {"not": {"type": "null"}}]}


def _merge_single_branch(schema: JSONSchema) -> JSONSchema:
    """`{"anyOf": [X], "description": d}` → `{**X, "description": d}` when no keyword clashes."""
    for key in _BRANCHES:
        branches = schema.get(key)
        if not (isinstance(branches, list) and len(branches) == 1 and isinstance(branches[0], dict)):
            continue
        rest = {name: value for name, value in schema.items() if name != key}
        if not rest.keys() & branches[0].keys():
            return {**branches[0], **rest}
    return schema
