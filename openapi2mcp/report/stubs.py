"""`inspect --stubs`: the `api` module a code-mode server's programs import (`api.pyi`), over every
tool, each with its whole schemas (`tool_details.json`): the runtime's code_mode/stubs.py makes it,
as the server does for the tools a program names."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from openapi2mcp.load.source import LoadError
from openapi2mcp.report.inventory import read_json, tool_data_path
from openapi2mcp_runtime.code_mode import stubs
from openapi2mcp_runtime.discovery.meta_tools import Details

DETAILS_FILE = "tool_details.json"


def api_stub(data: Mapping[str, Any], details: Mapping[str, Any]) -> str:
    """The stub of a package's tool data (`tool_data.json`, `tool_details.json`, parsed)."""
    whole, routes = Details(details), data.get("routes") or {}
    tools = [
        {
            **tool,
            **whole.whole(tool["name"]),
            "wrapped": bool((routes.get(tool["name"]) or {}).get("wrapped")),
        }
        for tool in data.get("tools") or ()
    ]
    return stubs.module_stub(tools, stubs.function_names([tool["name"] for tool in tools])).text


def package_stub(path: Path) -> str:
    """The stub of a generated package (its directory, inner folder or `tool_data.json`)."""
    data_path = tool_data_path(path)
    data = read_json(data_path)
    if not isinstance(data, dict) or not isinstance(data.get("tools"), list):
        raise LoadError(f'{data_path}: not a tool_data.json file (no "tools" list)')
    details_path = data_path.with_name(DETAILS_FILE)
    details = read_json(details_path) if details_path.is_file() else {}
    return api_stub(data, details if isinstance(details, dict) else {})
