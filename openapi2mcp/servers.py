"""The default base URL: the spec's first server, with variables at their defaults."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.loader import is_url

_VARIABLE = re.compile(r"{([^{}]+)}")


def default_base_url(document: dict[str, Any], source: str, diagnostics: Diagnostics) -> str:
    servers = document.get("servers")
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        diagnostics.info("#/servers", "no servers: set the base URL with the environment or --base-url")
        return ""
    server = servers[0]
    url = str(server.get("url") or "")
    raw_variables = server.get("variables")
    variables: dict[str, Any] = raw_variables if isinstance(raw_variables, dict) else {}
    url = _VARIABLE.sub(lambda match: _variable_default(variables, match.group(1), diagnostics), url)
    if url.startswith(("http://", "https://")):
        return url
    if is_url(source):
        return urljoin(source, url)
    diagnostics.info("#/servers/0", f"server URL {url!r} is relative: set the base URL at run time")
    return url


def _variable_default(variables: dict[str, Any], name: str, diagnostics: Diagnostics) -> str:
    variable = variables.get(name)
    if isinstance(variable, dict) and variable.get("default") is not None:
        return str(variable["default"])
    diagnostics.warning("#/servers/0", f"server variable {name!r} has no default")
    return "{" + name + "}"
