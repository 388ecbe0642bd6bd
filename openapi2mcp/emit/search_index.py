"""The generated server's search index (`search_index.json`, docs/search-index.md) from the model.

The analyzer and the index layout live in the runtime's own module, `templates/package/search.py`,
loaded here by path: generation and the server read words the same way because it is one file.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from openapi2mcp.model import ApiModel, Tool

SEARCH_INDEX_FILE = "search_index.json"
_MODULE = "openapi2mcp_runtime_search"
_FOOTER = re.compile(r"(?:^|\n\n)HTTP: [A-Z]+ \S*(?:\n.*)?\Z", re.DOTALL)


@cache
def runtime_search(package_templates: Path) -> ModuleType:
    """`search.py` of the package templates (`templates/package/`), imported once under a private name."""
    path = package_templates / "search.py"
    spec = importlib.util.spec_from_file_location(_MODULE, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[_MODULE] = module
    spec.loader.exec_module(module)
    return module


def search_index_text(model: ApiModel, package_templates: Path) -> str:
    """The text of `search_index.json`: the same bytes for the same model, whatever the run."""
    search = runtime_search(package_templates)
    documents = [(tool.name, tool.toolset, tool_fields(tool, search)) for tool in model.tools]
    return str(search.index_text(search.build_index(documents)))


def tool_fields(tool: Tool, search: ModuleType) -> dict[str, str]:
    """The searchable text of a tool, by index field (search.FIELDS)."""
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
    }


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
