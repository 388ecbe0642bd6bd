"""Request bodies: choose one media type deterministically, then flatten or keep whole."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openapi2mcp.diagnostics import SpecError, pointer_join
from openapi2mcp.model import BodyKind
from openapi2mcp.refs import Resolver

FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"


def media_kind(media_type: str) -> BodyKind:
    """What kind of payload a request media type carries."""
    base = media_type.split(";", 1)[0].strip().lower()
    if base == "application/json" or base.endswith("+json") or base == "*/*":
        return "json"
    if base == FORM:
        return "form"
    if base.startswith("multipart/"):
        return "multipart"
    if base.startswith("text/") or base in ("application/xml", "application/yaml") or base.endswith("+xml"):
        return "text"
    return "binary"


def _rank(media_type: str) -> tuple[int, int, str]:
    base = media_type.split(";", 1)[0].strip().lower()
    order: tuple[str, ...] = ("json", "form", "multipart", "text", "binary")
    exact_json = 0 if base == "application/json" else 1
    return order.index(media_kind(media_type)), exact_json, base


@dataclass(frozen=True)
class RawBody:
    """The chosen media type of a request body, with its raw schema and encoding object."""

    media_type: str
    kind: BodyKind
    required: bool
    schema: Any
    schema_pointer: str
    encoding: dict[str, Any]
    description: str
    alternatives: tuple[str, ...]  # the media types that were not chosen


def choose_body(raw: Any, pointer: str, resolver: Resolver) -> RawBody | None:
    """The request body's preferred media type: JSON, then form, multipart, text, binary."""
    if raw is None:
        return None
    node, pointer = resolver.deref(raw, pointer)
    if not isinstance(node, dict):
        raise SpecError(pointer, "a request body must be an object")
    content = node.get("content")
    if not isinstance(content, dict) or not content:
        raise SpecError(pointer, "a request body needs at least one media type in `content`")
    media_type = min(content, key=_rank)
    media = content[media_type]
    if not isinstance(media, dict):
        raise SpecError(pointer_join(pointer, "content", media_type), "a media type must be an object")
    schema = media.get("schema")
    schema_pointer = pointer_join(pointer, "content", media_type, "schema")
    kind = media_kind(media_type)
    if schema is None:
        schema = {"type": "string", "format": "binary"} if kind == "binary" else {}
    encoding = media.get("encoding")
    return RawBody(
        media_type=media_type,
        kind=kind,
        required=node.get("required") is True,
        schema=schema,
        schema_pointer=schema_pointer,
        encoding=encoding if isinstance(encoding, dict) else {},
        description=str(node.get("description") or ""),
        alternatives=tuple(other for other in content if other != media_type),
    )


def is_binary_schema(schema: Any, resolver: Resolver, pointer: str) -> bool:
    """A string of raw bytes (`format: binary`), sent as bytes from a base64 argument."""
    node, _ = resolver.deref(schema, pointer)
    return isinstance(node, dict) and node.get("format") == "binary"
