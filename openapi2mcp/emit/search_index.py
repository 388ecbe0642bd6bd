"""The generated server's search index (`search_index.json`, docs/search-index.md) from the model.

The analyzer and the index layout live in the runtime's own module, `templates/package/search.py`,
loaded here by path: generation and the server read words the same way because it is one file.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections import deque
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from openapi2mcp.model import ApiModel, JSONSchema, Tool
from openapi2mcp.tools.outputs import WRAP_KEY

SEARCH_INDEX_FILE = "search_index.json"
_PACKAGE = "openapi2mcp_runtime_templates"
SCHEMA_DEPTH = 3  # levels of nested properties whose words are indexed
_FOOTER = re.compile(r"(?:^|\n\n)HTTP: [A-Z]+ \S*(?:\n.*)?\Z", re.DOTALL)


@cache
def runtime_search(package_templates: Path) -> ModuleType:
    """`search.py` of the package templates (`templates/package/`), imported once as a submodule of a
    private package over that folder, so its relative import of `search_words.py` works (the
    package's `__init__` is a template: not run)."""
    if _PACKAGE not in sys.modules:
        package = ModuleType(_PACKAGE)
        package.__path__ = [str(package_templates)]
        sys.modules[_PACKAGE] = package
    return importlib.import_module(f"{_PACKAGE}.search")


def search_index_text(model: ApiModel, package_templates: Path) -> str:
    """The text of `search_index.json`: the same bytes for the same model, whatever the run."""
    search = runtime_search(package_templates)
    return str(search.index_text(search.build_index(documents(model, search))))


Fields = dict[str, str | list[str]]  # index field -> its text, or its texts (a schema's words)


def documents(model: ApiModel, search: ModuleType) -> list[tuple[str, str, Fields]]:
    """The documents of the index (`search.build_index`): per tool its name, toolset and fields."""
    about = {toolset.name: toolset.description for toolset in model.toolsets}
    return [
        (tool.name, tool.toolset, tool_fields(tool, search, about.get(tool.toolset, "")))
        for tool in model.tools
    ]


def tool_fields(tool: Tool, search: ModuleType, toolset_description: str = "") -> Fields:
    """The searchable text of a tool, by index field (search.FIELDS); `toolset_description` is the
    description of the spec's tag the tool's toolset is named after."""
    names = [tool.name] + (
        [tool.operation_id] if tool.operation_id and tool.operation_id != tool.name else []
    )
    arguments = [parameter.argument for parameter in tool.parameters]
    if tool.body is not None:
        arguments += [field.argument for field in tool.body.fields]
    return {
        "name": " ".join(names),
        "title": tool.title,
        "tags": " ".join([*tool.tags, tool.toolset]),
        "path": tool.path,
        "verb": "" if _says_what_it_does(search, names) else method_verb(tool.method, tool.path),
        "params": " ".join(arguments),
        "description": _FOOTER.sub("", tool.description),
        "about": toolset_description,
        "schema": schema_words(tool.input_schema, names=False),
        "output": schema_words(_result_schema(tool), descriptions=False),
    }


def _result_schema(tool: Tool) -> JSONSchema:
    """The output schema, without the `{"result": ...}` object a non-object result is wrapped in."""
    schema = tool.output_schema or {}
    if not tool.output_wrapped:
        return schema
    wrapped: JSONSchema = schema.get("properties", {}).get(WRAP_KEY, {})
    return {key: value for key, value in schema.items() if key != "properties"} | wrapped


def schema_words(
    schema: JSONSchema, *, names: bool = True, descriptions: bool = True, depth: int = SCHEMA_DEPTH
) -> list[str]:
    """The words a JSON schema says about its data, shallowest first: property names (when `names`),
    descriptions (when `descriptions`) and string enum values, down to `depth` levels of properties,
    each string once; local `$ref`s (`#/$defs/...`) followed once each."""
    found: dict[str, None] = {}
    seen: set[str] = set()
    level: list[Any] = [schema]
    for deeper in range(depth, -1, -1):  # how many levels of properties are left below this one
        below: list[Any] = []
        for node in _branches(level, schema, seen):
            if descriptions and isinstance(node.get("description"), str):
                found[node["description"]] = None
            found.update((value, None) for value in node.get("enum") or () if isinstance(value, str))
            properties = node.get("properties")
            if isinstance(properties, dict) and deeper:
                found.update((str(name), None) for name in properties if names)
                below.extend(properties.values())
        level = below
    return list(found)


def _branches(nodes: list[Any], document: JSONSchema, seen: set[str]) -> list[dict[str, Any]]:
    """The schema objects of `nodes` with what they hold at the same level: `$ref` targets (each once),
    `items`, `additionalProperties` and the branches of `anyOf`/`oneOf`/`allOf`."""
    found: list[dict[str, Any]] = []
    pending = deque(nodes)
    while pending:
        node = pending.popleft()
        if not isinstance(node, dict):
            continue
        found.append(node)
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/") and ref not in seen:
            seen.add(ref)
            pending.append(_pointer(document, ref))
        pending += [node.get("items"), node.get("additionalProperties")]
        for key in ("anyOf", "oneOf", "allOf"):
            pending += node.get(key) or []
    return found


def _pointer(document: JSONSchema, ref: str) -> Any:
    node: Any = document
    for part in ref[2:].split("/"):
        node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
    return node


def _says_what_it_does(search: ModuleType, names: list[str]) -> bool:
    """Whether the name holds a word of an action synonym group (create, get, list, update...)."""
    actions = search.action_terms()
    return any(term in actions for term in search.analyze(" ".join(names)))


def method_verb(method: str, path: str) -> str:
    """What a request of `method` on `path` usually does, in the words a user would search with."""
    method = method.upper()
    if method == "GET":
        return "get" if path.rstrip("/").endswith("}") else "list"
    return {"POST": "create", "PUT": "update", "PATCH": "update", "DELETE": "delete"}.get(method, "")
