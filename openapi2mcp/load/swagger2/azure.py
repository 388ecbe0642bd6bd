"""AutoRest extensions of Azure's Swagger 2.0 specs that change what the API is:

- `x-ms-parameterized-host` (`hostTemplate: "{accountName}.{dnsSuffix}"` plus its parameters) → one
  server whose URL variables are those parameters (their `default`, where they have one; a value can
  be chosen with `--server-var`). The host is never a tool argument: a model cannot redirect calls.
- `x-ms-paths` (path keys that differ only in a query, `/files/{path}?op=APPEND`) → more path items,
  after those of `paths`; the path-key rules then send `op=APPEND` with every call.
"""

from __future__ import annotations

from typing import Any

from openapi2mcp.diagnostics import Diagnostics, pointer_join
from openapi2mcp.load.refs import unescape_token

_HOST = "x-ms-parameterized-host"
_PATHS = "x-ms-paths"


def parameterized_host_servers(
    document: dict[str, Any], fallback: list[dict[str, Any]], diagnostics: Diagnostics
) -> list[dict[str, Any]]:
    """The server of `x-ms-parameterized-host`, or `fallback` (from host/basePath) without one."""
    extension = document.get(_HOST)
    if extension is None:
        return fallback
    template = extension.get("hostTemplate") if isinstance(extension, dict) else None
    if not isinstance(template, str) or not template:
        diagnostics.warning(f"#/{_HOST}", "no `hostTemplate`; the extension is ignored")
        return fallback
    variables: dict[str, Any] = {}
    raw = extension.get("parameters")
    for index, parameter in enumerate(raw if isinstance(raw, list) else []):
        found = _parameter(document, parameter, pointer_join(f"#/{_HOST}", "parameters", index), diagnostics)
        if found is not None:
            name, variable = found
            variables[name] = variable
    scheme = "" if extension.get("useSchemePrefix") is False else _scheme(document) + "://"
    base_path = document.get("basePath")
    path = base_path.rstrip("/") if isinstance(base_path, str) and base_path.startswith("/") else ""
    server: dict[str, Any] = {"url": f"{scheme}{template}{path}"}
    if variables:
        server["variables"] = variables
    diagnostics.info(f"#/{_HOST}", f"the API's server is {server['url']!r} (its variables: --server-var)")
    return [server]


def _parameter(
    document: dict[str, Any], parameter: Any, pointer: str, diagnostics: Diagnostics
) -> tuple[str, dict[str, Any]] | None:
    """A host parameter (or a `#/parameters/NAME` reference to one) as a server variable."""
    if isinstance(parameter, dict) and isinstance(parameter.get("$ref"), str):
        ref = parameter["$ref"]
        shared = document.get("parameters")
        name = unescape_token(ref.removeprefix("#/parameters/"))
        parameter = shared.get(name) if ref.startswith("#/parameters/") and isinstance(shared, dict) else None
        if parameter is None:
            diagnostics.warning(pointer, f"host parameter reference {ref!r} points at nothing; ignored")
            return None
    if not isinstance(parameter, dict) or not isinstance(parameter.get("name"), str):
        diagnostics.warning(pointer, "a host parameter needs a `name`; ignored")
        return None
    variable: dict[str, Any] = {}
    default = parameter.get("default", parameter.get("x-ms-client-default"))
    if default is not None:
        variable["default"] = str(default)
    if isinstance(parameter.get("enum"), list):
        variable["enum"] = [str(item) for item in parameter["enum"]]
    if isinstance(parameter.get("description"), str):
        variable["description"] = parameter["description"]
    return parameter["name"], variable


def _scheme(document: dict[str, Any]) -> str:
    raw = document.get("schemes")
    schemes = [str(s).lower() for s in raw] if isinstance(raw, list) else []
    return "http" if schemes and "https" not in schemes and "http" in schemes else "https"


def with_x_ms_paths(document: dict[str, Any], diagnostics: Diagnostics) -> Any:
    """`paths`, followed by the path items of `x-ms-paths` whose keys `paths` does not have."""
    paths, extra = document.get("paths"), document.get(_PATHS)
    if not isinstance(extra, dict) or not extra or not isinstance(paths, dict | None):
        return paths
    merged = dict(paths or {})
    for key, item in extra.items():
        if key in merged:
            diagnostics.warning(pointer_join(f"#/{_PATHS}", key), "also in `paths`; this copy is ignored")
        else:
            merged[key] = item
    diagnostics.info(f"#/{_PATHS}", f"{len(merged) - len(paths or {})} path items added to `paths`")
    return merged
