"""A tool's outputSchema, from the JSON schema of its success response."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openapi2mcp.diagnostics import Diagnostics, SpecError, pointer_join
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import JSONSchema
from openapi2mcp.schemas.converter import SchemaConverter

WRAP_KEY = "result"


@dataclass(frozen=True)
class Output:
    schema: JSONSchema | None
    wrapped: bool


def _success_codes(responses: dict[str, Any]) -> list[str]:
    """2xx codes in numeric order, then the `2XX` range; `default` is usually the error shape."""
    exact = sorted(code for code in responses if len(code) == 3 and code.startswith("2") and code.isdigit())
    ranges = [code for code in responses if code.upper() == "2XX"]
    return exact + ranges


def _json_media(content: Any) -> str | None:
    if not isinstance(content, dict):
        return None
    candidates = [
        media
        for media in content
        if media.split(";")[0].strip().lower() == "application/json"
        or media.split(";")[0].strip().lower().endswith("+json")
    ]
    candidates.sort(key=lambda media: (not media.startswith("application/json"), media))
    return candidates[0] if candidates else None


def build_output(
    responses: Any, pointer: str, resolver: Resolver, converter: SchemaConverter, diagnostics: Diagnostics
) -> Output:
    """The first success response with a JSON schema; a non-object root is wrapped in `result`."""
    if not isinstance(responses, dict):
        return Output(None, False)
    base = pointer_join(pointer, "responses")
    for code in _success_codes(responses):
        try:
            response, response_pointer = resolver.deref(responses[code], pointer_join(base, code))
        except SpecError as error:  # a broken response costs its output schema, not the tool
            diagnostics.warning(error.pointer, f"{error.message}; this response is not described")
            continue
        if not isinstance(response, dict):
            continue
        media = _json_media(response.get("content"))
        if media is None:
            continue
        media_object = response["content"][media]
        schema = media_object.get("schema") if isinstance(media_object, dict) else None
        if schema is None:
            continue
        schema_pointer = pointer_join(response_pointer, "content", media, "schema")
        try:
            return _shape(schema, schema_pointer, converter)
        except SpecError as error:  # a broken output schema costs the outputSchema, not the tool
            diagnostics.warning(error.pointer, f"{error.message}; the tool has no outputSchema")
            return Output(None, False)
    return Output(None, False)


def _shape(schema: Any, pointer: str, converter: SchemaConverter) -> Output:
    if converter.local_defs(schema, pointer) is not None:
        # Local `$defs` refs would dangle in an output schema: describe only the root's type.
        if converter.is_object_schema(schema, pointer):
            return Output({"type": "object"}, False)
        return Output({"type": "object", "properties": {WRAP_KEY: {}}}, True)
    converted = converter.output_schema(schema, pointer)
    if converter.is_object_schema(schema, pointer):
        return Output({**converted, "type": "object"}, False)
    return Output({"type": "object", "properties": {WRAP_KEY: converted}}, True)
