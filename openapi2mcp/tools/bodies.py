"""Request bodies: choose one media type deterministically, then flatten or keep whole.

The argument of a whole text or binary body is always a string, whatever schema the spec gives:
- binary media types (`application/octet-stream`, `image/png`, ...) take raw bytes, so the schema
  becomes `{type: string, format: binary}` (a base64 argument) unless it already is a string of
  `format: binary`, `byte` or `base64`; an object schema (Swagger's `{type: object, format: file}`)
  describes no JSON value that could be sent.
- text media types (XML, YAML, `text/*`) are sent as the document text, as is: a schema that is
  not a string schema (an XML object model) becomes `{type: string}`, described as that document.
The spec's descriptions (the body's, then the schema's) are kept on the new schema, and the body's
description is given to a kept schema that has none (the converter would describe it as
"Base64-encoded binary data." and hide the body's own).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openapi2mcp.diagnostics import SpecError, pointer_join
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import BodyKind
from openapi2mcp.schemas.keywords import as_list
from openapi2mcp.schemas.prose import plain_links

FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"
BINARY = {"type": "string", "format": "binary"}
_BYTE_FORMATS = ("binary", "byte", "base64")  # string formats that a binary body keeps


def media_kind(media_type: str) -> BodyKind:
    """What kind of payload a request media type carries."""
    base = _base_type(media_type)
    if base == "application/json" or base.endswith("+json") or base == "*/*":
        return "json"
    if base == FORM:
        return "form"
    if base.startswith("multipart/"):
        return "multipart"
    if base.startswith("text/") or base in ("application/xml", "application/yaml") or base.endswith("+xml"):
        return "text"
    return "binary"


def _base_type(media_type: str) -> str:
    """`application/json; charset=utf-8` → `application/json`."""
    return media_type.split(";", 1)[0].strip().lower()


def _rank(media_type: str) -> tuple[int, int, str]:
    base = _base_type(media_type)
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
    media_type = min(
        content, key=lambda media: (_names_no_field(content[media], media, resolver), _rank(media))
    )
    media = content[media_type]
    if not isinstance(media, dict):
        raise SpecError(pointer_join(pointer, "content", media_type), "a media type must be an object")
    schema = media.get("schema")
    schema_pointer = pointer_join(pointer, "content", media_type, "schema")
    kind = media_kind(media_type)
    if schema is None:
        schema = dict(BINARY) if kind == "binary" else {}
    description = plain_links(str(node.get("description") or ""))
    schema = _string_argument(schema, schema_pointer, kind, media_type, description, resolver)
    encoding = media.get("encoding")
    return RawBody(
        media_type=media_type,
        kind=kind,
        required=node.get("required") is True,
        schema=schema,
        schema_pointer=schema_pointer,
        encoding=encoding if isinstance(encoding, dict) else {},
        description=description,
        alternatives=tuple(other for other in content if other != media_type),
    )


def _names_no_field(media: Any, media_type: str, resolver: Resolver) -> bool:
    """A form or multipart media type whose schema's `type` excludes an object: its fields have no
    names, so another media type of the body is preferred (none: the operation is skipped later)."""
    if media_kind(media_type) not in ("form", "multipart") or not isinstance(media, dict):
        return False
    try:
        node, _ = resolver.deref(media.get("schema"), "#")
    except SpecError:  # reported where the chosen schema is converted
        return False
    return not admits_object(node)


def admits_object(schema: Any) -> bool:
    """Whether a schema may be an object: not a schema (left to the converter), untyped (`anyOf`
    branches may be), or `object` among its types."""
    return not isinstance(schema, dict) or "type" not in schema or "object" in as_list(schema["type"])


def is_binary_schema(schema: Any, resolver: Resolver, pointer: str) -> bool:
    """A string of raw bytes (`format: binary`), sent as bytes from a base64 argument."""
    node, _ = resolver.deref(schema, pointer)
    return isinstance(node, dict) and node.get("format") == "binary"


def _string_argument(
    schema: Any, pointer: str, kind: BodyKind, media_type: str, body_description: str, resolver: Resolver
) -> Any:
    """The schema a whole text or binary body is sent from: `schema` itself when it is a string
    schema that fits, otherwise a new string schema with the spec's descriptions (see the module)."""
    if kind not in ("text", "binary"):
        return schema
    node, _ = resolver.deref(schema, pointer)
    if not isinstance(node, dict):
        return schema  # not a schema: the converter reports it
    own = [_description(schema), _description(node)]
    if _is_string_schema(node) and (kind == "text" or node.get("format") in _BYTE_FORMATS):
        if body_description and not any(own):  # before the converter's "Base64-encoded" default
            return {**node, "description": body_description}
        return schema
    notes = [body_description, *own]
    if kind == "binary":
        replacement: dict[str, Any] = dict(BINARY)
    else:
        replacement = {"type": "string"}
        notes.append(f"The request body as {_document_name(media_type)} ({media_type}), sent as is.")
    text = _sentences(notes)
    return {**replacement, "description": text} if text else replacement


def _sentences(notes: list[str]) -> str:
    """The distinct non-empty notes as one text, each but the last ending like a sentence."""
    kept = list(dict.fromkeys(note.strip() for note in notes if note.strip()))
    ended = [note if note.endswith((".", "!", "?", ":")) else note + "." for note in kept[:-1]]
    return " ".join(ended + kept[-1:])


def _is_string_schema(node: dict[str, Any]) -> bool:
    """Every value it accepts is a string (or null); an untyped `format: binary` counts."""
    types = [name for name in as_list(node.get("type")) if name not in (None, "null")]
    if types:
        return all(name == "string" for name in types)
    return node.get("format") in ("binary", "byte")


def _description(node: Any) -> str:
    description = node.get("description") if isinstance(node, dict) else None
    return plain_links(description.strip()) if isinstance(description, str) else ""


def _document_name(media_type: str) -> str:
    base = _base_type(media_type)
    if base.endswith("xml"):
        return "an XML document"
    if base.endswith("yaml"):
        return "a YAML document"
    return "text"
