"""The generated server's search index (`search_index.json`, docs/search-index.md) from the model.

The analyzer and the index layout live in the runtime's own module, `templates/package/search.py`,
loaded here by path: generation and the server read words the same way because it is one file.
"""

from __future__ import annotations

import importlib
import re
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from openapi2mcp.model import ApiModel, JSONSchema, Tool

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
    about = {toolset.name: toolset.description for toolset in model.toolsets}
    documents = [
        (tool.name, tool.toolset, tool_fields(tool, search, about.get(tool.toolset, "")))
        for tool in model.tools
    ]
    return str(search.index_text(search.build_index(documents)))


def tool_fields(tool: Tool, search: ModuleType, toolset_description: str = "") -> dict[str, str]:
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
        "schema": " ".join(schema_words(tool.input_schema, names=False)),
        "output": " ".join(schema_words(tool.output_schema or {}, descriptions=False)),
    }


def schema_words(
    schema: JSONSchema, *, names: bool = True, descriptions: bool = True, depth: int = SCHEMA_DEPTH
) -> list[str]:
    """The words a JSON schema says about its data, in document order: nested property names (when
    `names`), descriptions (when `descriptions`) and string enum values, down to `depth` levels of
    properties, each string once; local `$ref`s (`#/$defs/...`) followed once each."""
    found: list[str] = []
    seen: set[str] = set()

    def visit(node: Any, level: int) -> None:
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/") and ref not in seen:
            seen.add(ref)
            visit(_pointer(schema, ref), level)
        description = node.get("description")
        if descriptions and isinstance(description, str):
            found.append(description)
        found.extend(value for value in node.get("enum") or () if isinstance(value, str))
        for key in ("items", "additionalProperties"):
            visit(node.get(key), level)
        for key in ("anyOf", "oneOf", "allOf"):
            for branch in node.get(key) or ():
                visit(branch, level)
        properties = node.get("properties")
        if isinstance(properties, dict) and level < depth:
            for name, value in properties.items():
                if names:
                    found.append(str(name))
                visit(value, level + 1)

    visit(schema, 0)
    return list(dict.fromkeys(found))


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
