"""The generated server's data file (`tool_data.json`, see docs/tool-data.md) from the model."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from openapi2mcp.emit.listing import listed_input, listed_wire
from openapi2mcp.emit.sharing import MarkerCollision, share_repeats
from openapi2mcp.model import ApiModel, Body, GeneratorOptions, LongRunning, Parameter, SecurityScheme, Tool

FORMAT_VERSION = 1
DETAILS_FORMAT_VERSION = 2  # 1 had no table of shared objects


def tool_data(model: ApiModel, options: GeneratorOptions, generator: str) -> dict[str, Any]:
    """The data file; each tool in its listed form (`listing.py`), its route with the objects the
    runtime closes again (`closed`) and its size as listed."""
    listed = [listed_wire(tool) for tool in model.tools]
    routes = {
        tool.name: _route(tool) | {"closed": closed, "listBytes": list_bytes(wire)}
        for tool, (wire, closed) in zip(model.tools, listed, strict=True)
    }
    return {
        "format": FORMAT_VERSION,
        "generator": generator,
        "server": {"name": options.dist_name, "version": model.version, "title": model.title},
        "tools": [wire for wire, _closed in listed],
        "routes": routes,
        "toolsets": toolset_summary(model),
        "securitySchemes": {scheme.key: _scheme(scheme) for scheme in model.security_schemes},
    }


def list_bytes(wire: dict[str, Any]) -> int:
    """The tool's size in a tools/list answer: UTF-8 bytes of its compact JSON (the runtime's `auto`
    mode and `inspect` estimate tokens as a quarter of the bytes)."""
    return len(json.dumps(wire, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def tool_details(fitted: ApiModel, mapped: ApiModel) -> dict[str, Any]:
    """`tool_details.json`: the schemas size fitting changed, as mapped (dynamic mode's describe_tools
    shows them whole), each object they share written once (`sharing`). Fitting returns the same
    schema object when it leaves one as it was."""
    details: dict[str, Any] = {}
    for small, whole in zip(fitted.tools, mapped.tools, strict=True):
        changed: dict[str, Any] = {}
        if small.input_schema is not whole.input_schema:
            changed["inputSchema"], closed = listed_input(whole.input_schema)
            if closed:  # the objects the runtime lists closed again under LISTED_SCHEMAS=exact
                changed["closed"] = closed
        if small.output_schema is not whole.output_schema and whole.output_schema is not None:
            changed["outputSchema"] = whole.output_schema
        if changed:
            details[small.name] = changed
    try:
        encoded, shared = share_repeats(list(details.values()))
    except MarkerCollision:  # written whole: the runtime expands only where there is a table
        return {"format": DETAILS_FORMAT_VERSION, "tools": details}
    tools = dict(zip(details, encoded, strict=True))
    return {"format": DETAILS_FORMAT_VERSION, "shared": shared, "tools": tools}


def toolset_summary(model: ApiModel) -> dict[str, dict[str, Any]]:
    """Each toolset in order: how many tools it has, whether it is on by default, its description."""
    counts = Counter(tool.toolset for tool in model.tools)
    return {
        toolset.name: {
            "count": counts[toolset.name],
            "default": toolset.default,
            "description": toolset.description,
        }
        for toolset in model.toolsets
    }


def _route(tool: Tool) -> dict[str, Any]:
    route: dict[str, Any] = {"baseUrl": tool.base_url} if tool.base_url else {}
    return route | {
        "method": tool.method,
        "path": tool.path,
        "fixedQuery": [list(pair) for pair in tool.fixed_query],
        **({"templatedQuery": list(tool.templated_query)} if tool.templated_query else {}),
        "params": [_parameter(parameter) for parameter in tool.parameters],
        "body": _body(tool.body) if tool.body else None,
        "security": [
            [{"scheme": use.scheme, "scopes": list(use.scopes)} for use in alt] for alt in tool.security
        ],
        "wrapped": tool.output_wrapped,
        "hasOutputSchema": tool.output_schema is not None,
        "toolset": tool.toolset,
        **({"longRunning": _long_running(tool.long_running)} if tool.long_running else {}),
    }


def _long_running(long_running: LongRunning) -> dict[str, Any]:
    return {
        "source": long_running.source,
        "finalStateVia": long_running.final_state_via,
        "cancel": long_running.cancel,
    }


def _parameter(parameter: Parameter) -> dict[str, Any]:
    return {
        "arg": parameter.argument,
        "name": parameter.name,
        "in": parameter.location,
        "required": parameter.required,
        "style": parameter.style,
        "explode": parameter.explode,
        "allowReserved": parameter.allow_reserved,
        "contentType": parameter.content_type,
    }


def _body(body: Body) -> dict[str, Any]:
    return {
        "mediaType": body.media_type,
        "kind": body.kind,
        "required": body.required,
        "fields": [
            {
                "arg": field.argument,
                "name": field.name,
                "required": field.required,
                "binary": field.binary,
                "contentType": field.content_type,
                "style": field.style,
                "explode": field.explode,
            }
            for field in body.fields
        ],
        "arg": body.argument,
        "binary": body.binary,
    }


def _scheme(scheme: SecurityScheme) -> dict[str, Any]:
    data: dict[str, Any] = {"type": scheme.kind, "env": dict(scheme.env)}
    if scheme.kind == "apiKey":
        data |= {"in": scheme.location, "name": scheme.parameter_name}
    if scheme.kind == "http":
        data["scheme"] = scheme.http_scheme
    if scheme.kind == "oauth2":
        data["tokenUrl"] = scheme.token_url
    return data
