"""What `inspect` measures: the wire tools, each tool's toolset and the toolsets, from the model of
an in-memory generation or from a generated package's `tool_data.json` (docs/tool-data.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openapi2mcp.ci.diff import find_tool_data, tool_data_text
from openapi2mcp.emit.listing import listed_wire
from openapi2mcp.emit.render import TOOL_DATA_FILE, TOOL_DATA_PLACES
from openapi2mcp.load.source import LoadError
from openapi2mcp.model import ApiModel, Toolset

NO_TOOLSET = "untagged"  # the toolset of a tool whose tool data names none (data older than toolsets)


@dataclass(frozen=True)
class Inventory:
    """The tools in tools/list order (wire form), the toolset of each, every toolset in order."""

    tools: tuple[dict[str, Any], ...]
    toolset_of: dict[str, str]  # tool name → toolset name
    toolsets: tuple[Toolset, ...]


def from_model(model: ApiModel) -> Inventory:
    return Inventory(
        tuple(listed_wire(tool)[0] for tool in model.tools),
        {tool.name: tool.toolset for tool in model.tools},
        model.toolsets,
    )


def read_package(path: Path) -> Inventory:
    """The tools of a generated package: its directory, its inner folder or its `tool_data.json`
    (LoadError when none is there or it cannot be read)."""
    data_path = tool_data_path(path)
    return from_tool_data(read_json(data_path), data_path)


def tool_data_path(path: Path) -> Path:
    """The `tool_data.json` of a package's directory, of its inner folder, or `path` itself."""
    if not path.exists():
        raise LoadError(f"{path}: no such file or directory")
    if path.is_dir():
        inner = [path / place for place in TOOL_DATA_PLACES if (path / place).is_file()]
        return inner[0] if inner else find_tool_data(path)
    return path


def read_json(path: Path) -> Any:
    """A package's data file, parsed (LoadError when it cannot be read or is no JSON)."""
    try:
        return json.loads(tool_data_text(path))
    except ValueError as error:
        raise LoadError(f"{path}: not a {path.name} file: {error}") from None


def from_tool_data(data: Any, path: Path) -> Inventory:
    """The inventory of a parsed `tool_data.json` (`path` names it in errors)."""
    tools = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(tools, list) or not all(_is_tool(tool) for tool in tools):
        raise LoadError(f'{path}: not a {TOOL_DATA_FILE} file (no "tools" list of named tools)')
    routes = _mapping(data.get("routes"))
    toolset_of = {tool["name"]: _toolset(routes.get(tool["name"])) for tool in tools}
    described = _mapping(data.get("toolsets"))
    names = dict.fromkeys([*described, *toolset_of.values()])  # the file's order, then any missing one
    toolsets = tuple(_toolset_entry(name, _mapping(described.get(name))) for name in names)
    return Inventory(tuple(tools), toolset_of, toolsets)


def _is_tool(tool: Any) -> bool:
    return isinstance(tool, dict) and isinstance(tool.get("name"), str)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _toolset(route: Any) -> str:
    name = _mapping(route).get("toolset")
    return name if isinstance(name, str) else NO_TOOLSET


def _toolset_entry(name: str, entry: dict[str, Any]) -> Toolset:
    description = entry.get("description")
    return Toolset(
        name, description if isinstance(description, str) else "", entry.get("default", True) is not False
    )
