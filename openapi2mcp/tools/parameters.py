"""Operation parameters (path, query, header, cookie): merged, validated, bound to arguments."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

from openapi2mcp.diagnostics import Diagnostics, SpecError, pointer_join
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import Location, Parameter
from openapi2mcp.schemas.prose import plain_links

PARAMETER_LOCATIONS = ("path", "query", "header", "cookie")
_DEFAULT_STYLE = {"path": "simple", "query": "form", "header": "simple", "cookie": "form"}
_STYLES = {
    "path": {"simple", "label", "matrix"},
    "query": {"form", "spaceDelimited", "pipeDelimited", "deepObject"},
    "header": {"simple"},
    "cookie": {"form"},
}
# RFC 9110 token: what a header or cookie name may be made of.
HTTP_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
# OpenAPI: header parameters with these names are ignored (the body and security define them).
IGNORED_HEADERS = {"accept", "content-type", "authorization"}
# RFC 9110/9112: framing and hop-by-hop headers belong to the HTTP client; a value sent as an
# argument (`Transfer-Encoding: chunked` next to a Content-Length) would break the request.
CLIENT_HEADERS = {
    "content-length",
    "transfer-encoding",
    "host",
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "upgrade",
}


@dataclass(frozen=True)
class RawParameter:
    """A parameter before naming: the spec node, its pointer and its schema (raw)."""

    name: str
    location: Location
    required: bool
    style: str
    explode: bool
    allow_reserved: bool
    content_type: str | None
    schema: Any
    schema_pointer: str
    description: str
    deprecated: bool
    allow_empty_value: bool = False  # a query parameter that may be sent as `name=`

    def bind(self, argument: str) -> Parameter:
        return Parameter(
            argument=argument,
            name=self.name,
            location=self.location,
            required=self.required,
            style=self.style,
            explode=self.explode,
            allow_reserved=self.allow_reserved,
            content_type=self.content_type,
        )


def collect_parameters(
    path_level: Any,
    operation_level: Any,
    path_pointer: str,
    op_pointer: str,
    resolver: Resolver,
    diagnostics: Diagnostics,
) -> list[RawParameter]:
    """Path-item parameters overridden by operation parameters with the same name and location."""
    merged: dict[tuple[str, str], RawParameter] = {}
    for raw_list, base in ((path_level, path_pointer), (operation_level, op_pointer)):
        if raw_list is None:
            continue
        if not isinstance(raw_list, list):
            raise SpecError(pointer_join(base, "parameters"), "`parameters` must be a list")
        for index, raw in enumerate(raw_list):
            pointer = pointer_join(base, "parameters", index)
            parameter = _parameter(raw, pointer, resolver, diagnostics)
            if parameter is not None:
                merged[(parameter.location, parameter.name)] = parameter
    return list(merged.values())


def _parameter(raw: Any, pointer: str, resolver: Resolver, diagnostics: Diagnostics) -> RawParameter | None:
    node, pointer = resolver.deref(raw, pointer)
    if not isinstance(node, dict):
        raise SpecError(pointer, "a parameter must be an object")
    name, location = node.get("name"), node.get("in")
    if not isinstance(name, str) or not name:
        raise SpecError(pointer, "a parameter needs a `name`")
    if location not in PARAMETER_LOCATIONS:
        raise SpecError(pointer, f"parameter {name!r}: unsupported location `in: {location!r}`")
    if location in ("header", "cookie") and not HTTP_TOKEN.fullmatch(name):
        raise SpecError(pointer, f"{location} parameter {name!r} is not a valid HTTP {location} name")
    if location == "header" and name.lower() in IGNORED_HEADERS:
        diagnostics.info(pointer, f"header parameter {name!r} is ignored, as OpenAPI specifies")
        return None
    if location == "header" and name.lower() in CLIENT_HEADERS:
        diagnostics.info(
            pointer, f"header parameter {name!r} is ignored: the HTTP client sets it (message framing)"
        )
        return None
    style = node.get("style", _DEFAULT_STYLE[location])
    if style not in _STYLES[location]:
        raise SpecError(pointer, f"parameter {name!r}: style {style!r} is not valid in {location}")
    schema, schema_pointer, content_type = _schema_of(node, name, pointer)
    explode = node.get("explode", style == "form")
    return RawParameter(
        name=name,
        location=cast(Location, location),
        required=location == "path" or node.get("required") is True,
        style=style,
        explode=explode is True,
        allow_reserved=node.get("allowReserved") is True,
        content_type=content_type,
        schema=schema,
        schema_pointer=schema_pointer,
        description=plain_links(str(node.get("description") or "")),
        deprecated=node.get("deprecated") is True,
        allow_empty_value=location == "query" and node.get("allowEmptyValue") is True,
    )


def _schema_of(node: dict[str, Any], name: str, pointer: str) -> tuple[Any, str, str | None]:
    if "schema" in node:
        return node["schema"], pointer_join(pointer, "schema"), None
    content = node.get("content")
    if isinstance(content, dict) and len(content) == 1:
        media_type, media = next(iter(content.items()))
        schema = media.get("schema", {}) if isinstance(media, dict) else {}
        return schema, pointer_join(pointer, "content", media_type, "schema"), media_type
    if content is not None:
        raise SpecError(pointer, f"parameter {name!r}: `content` must have exactly one media type")
    return {"type": "string"}, pointer, None
