"""Server URLs: the spec's first server (the API's base URL) and the servers of a path item or an
operation, with variables at their defaults or at the values the user chose (`--server-var`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin, urlsplit

from openapi2mcp.diagnostics import Diagnostics, pointer_join
from openapi2mcp.load.source import is_url

_VARIABLE = re.compile(r"{([^{}]+)}")


class ServerVariableError(Exception):
    """A `--server-var` the spec does not allow; the CLI reports it and exits with status 2."""


def default_base_url(
    document: dict[str, Any],
    source: str,
    diagnostics: Diagnostics,
    overrides: Mapping[str, str] | None = None,
) -> str:
    """The first root server's URL, absolute when the spec says where; "" when there is none."""
    servers = document.get("servers")
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        diagnostics.info("#/servers", "no servers: set the base URL with the environment or --base-url")
        return ""
    url = server_url(servers[0], "#/servers/0", overrides or {}, diagnostics)
    if url.startswith(("http://", "https://")):
        return url
    if is_url(source):
        return urljoin(source, url)
    if url.startswith("//"):  # a network-path reference: the host is there, the scheme is not
        diagnostics.info("#/servers/0", f"server URL {url!r} has no scheme: https is assumed")
        return "https:" + url
    if not url:
        return url
    path = urljoin("/", url).rstrip("/") or "/"
    diagnostics.info(
        "#/servers/0",
        f"server URL {url!r} is relative: at run time it is joined to the base URL set"
        f" (the service's origin https://host gives https://host{'' if path == '/' else path}/...)",
    )
    return path


def relative_base_path(default: str) -> str | None:
    """The path a relative default server adds to the base URL set at run time ("" for "/");
    None when the default is absolute or there is none (the base URL set is used as it is)."""
    return default.rstrip("/") if default.startswith("/") else None


def own_base_url(
    path_item: dict[str, Any],
    operation: dict[str, Any],
    pointer: str,
    default: str,
    source: str,
    diagnostics: Diagnostics,
    overrides: Mapping[str, str] | None = None,
) -> str | None:
    """The operation's own server (else its path item's) when it differs from `default`; else None.

    A relative URL is resolved against the spec's URL, else against the default server. `pointer`
    locates the operation; a path item's servers are reported at the path item.
    """
    found = _own_servers(path_item, operation, pointer)
    if found is None:
        return None
    servers, first = found
    if not isinstance(servers[0], dict):
        diagnostics.warning(first, "a server must be an object; the API's default server is used")
        return None
    url = server_url(servers[0], first, overrides or {}, diagnostics)
    if not url.startswith(("http://", "https://")):
        base = source if is_url(source) else default.rstrip("/") + "/"
        if relative_base_path(default) is not None and not is_url(source) and not url.startswith("//"):
            path = urljoin(base, url).rstrip("/") or "/"  # joined to the base URL at run time, too
            return None if path.rstrip("/") == default.rstrip("/") else path
        if not base.startswith(("http://", "https://")):
            diagnostics.warning(first, f"server URL {url!r} is relative; the API's base URL is used")
            return None
        url = urljoin(base, url)
    if not urlsplit(url).hostname:
        diagnostics.warning(first, f"server URL {url!r} names no host; the API's base URL is used")
        return None
    return None if url.rstrip("/") == default.rstrip("/") else url.rstrip("/")


def _own_servers(
    path_item: dict[str, Any], operation: dict[str, Any], pointer: str
) -> tuple[list[Any], str] | None:
    """The operation's `servers`, else its path item's, with the pointer of the first one."""
    for node, where in ((operation, pointer), (path_item, pointer.rsplit("/", 1)[0])):
        servers = node.get("servers")
        if isinstance(servers, list) and servers:
            return servers, pointer_join(where, "servers", 0)
    return None


def server_url(
    server: dict[str, Any], pointer: str, overrides: Mapping[str, str], diagnostics: Diagnostics
) -> str:
    """A server object's URL with each `{variable}` replaced by its override or its default."""
    raw_variables = server.get("variables")
    variables: dict[str, Any] = raw_variables if isinstance(raw_variables, dict) else {}

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in overrides:
            return overrides[name]
        variable = variables.get(name)
        if isinstance(variable, dict) and variable.get("default") is not None:
            return str(variable["default"])
        diagnostics.warning(
            pointer, f"server variable {name!r} has no default: give one with --server-var {name}=VALUE"
        )
        return "{" + name + "}"

    return _VARIABLE.sub(value, str(server.get("url") or ""))


def check_overrides(document: dict[str, Any], overrides: Mapping[str, str]) -> None:
    """Every override must name a variable of some server and respect that variable's `enum`."""
    if not overrides:
        return
    declared: dict[str, list[dict[str, Any]]] = {}
    for server in _all_servers(document):
        variables = server.get("variables")
        for name in _VARIABLE.findall(str(server.get("url") or "")):
            variable = variables.get(name) if isinstance(variables, dict) else None
            declared.setdefault(name, []).append(variable if isinstance(variable, dict) else {})
    for name, chosen in overrides.items():
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise ServerVariableError(
                f"--server-var {name}: no server URL has that variable (it has: {known})"
            )
        for variable in declared[name]:
            allowed = variable.get("enum")
            if isinstance(allowed, list) and allowed and chosen not in [str(item) for item in allowed]:
                options = ", ".join(str(item) for item in allowed)
                raise ServerVariableError(f"--server-var {name}={chosen}: the spec allows only {options}")


def _all_servers(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Root, path-item and operation servers (path items that are `$ref`s are not followed)."""
    root = document.get("servers")
    found: list[Any] = list(root) if isinstance(root, list) else []
    paths = document.get("paths")
    for item in paths.values() if isinstance(paths, dict) else ():
        if not isinstance(item, dict):
            continue
        nodes = [item, *(value for value in item.values() if isinstance(value, dict))]
        for node in nodes:
            servers = node.get("servers")
            found.extend(servers if isinstance(servers, list) else ())
    return [server for server in found if isinstance(server, dict)]
