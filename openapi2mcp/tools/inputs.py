"""A tool's arguments: parameters and body fields under clash-free names, and the inputSchema."""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from openapi2mcp.diagnostics import Diagnostics, SpecError, pointer_join
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import Body, BodyField, JSONSchema, Parameter
from openapi2mcp.schemas.converter import SchemaConverter
from openapi2mcp.tools.bodies import RawBody, admits_object, choose_body, is_binary_schema
from openapi2mcp.tools.naming import argument_name, resolve_argument_clashes
from openapi2mcp.tools.operations import OperationRef
from openapi2mcp.tools.parameters import PARAMETER_LOCATIONS, RawParameter, collect_parameters
from openapi2mcp.tools.path_keys import PathKey
from openapi2mcp.tools.query_templates import query_templates
from openapi2mcp.tools.sendable import NON_EMPTY, forbid_empty, non_null

_TEMPLATE_NAME = re.compile(r"{([^{}]+)}")
WHOLE_BODY = "body"
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class Inputs:
    parameters: tuple[Parameter, ...]
    body: Body | None
    schema: JSONSchema
    body_note: str


@dataclass(frozen=True)
class _Slot:
    """One future argument before naming: where it goes and its converted schema."""

    raw_name: str
    location: str
    required: bool
    schema: JSONSchema
    required_in_body: bool = False  # required by the body schema, however optional the body is
    whole_body: bool = False  # the one argument of a body that is not flattened


def build_inputs(
    ref: OperationRef,
    resolver: Resolver,
    converter: SchemaConverter,
    diagnostics: Diagnostics,
    key: PathKey | None = None,
    credentials: frozenset[tuple[str, str]] = frozenset(),
    moved: frozenset[tuple[str, str]] = frozenset(),
) -> Inputs:
    """The arguments of the operation at `ref`, whose path key reads as `key` (default: a plain path);
    a parameter in one of the `credentials` places (security.credential_slots) is none of them; a
    parameter in `moved` (shared_names.py) takes its suffixed name (naming.resolve_argument_clashes)."""
    raw_parameters = operation_parameters(ref, resolver, diagnostics, key, credentials)
    raw_body = choose_body(
        ref.operation.get("requestBody"), pointer_join(ref.pointer, "requestBody"), resolver
    )
    slots = [_parameter_slot(parameter, converter) for parameter in raw_parameters]
    body_properties = _flattenable(raw_body, converter)
    slots += _body_slots(raw_body, body_properties, converter)
    names = resolve_argument_clashes([(slot.raw_name, slot.location) for slot in slots], moved)
    slots = _noting_moved_body_names(slots, names)
    parameter_names, body_names = names[: len(raw_parameters)], names[len(raw_parameters) :]
    parameters = tuple(p.bind(name) for p, name in zip(raw_parameters, parameter_names, strict=True))
    body = _bind_body(raw_body, body_properties, body_names, resolver) if raw_body else None
    defs = converter.local_defs(raw_body.schema, raw_body.schema_pointer) if raw_body else None
    return Inputs(parameters, body, _object_schema(slots, names, raw_body, defs), _body_note(raw_body))


def operation_parameters(
    ref: OperationRef,
    resolver: Resolver,
    diagnostics: Diagnostics,
    key: PathKey | None = None,
    credentials: frozenset[tuple[str, str]] = frozenset(),
) -> list[RawParameter]:
    """The parameters that become the operation's arguments: merged from the path item and the
    operation, without its credentials, query templates applied, path parameters matched to the path."""
    raw_parameters = collect_parameters(
        ref.path_item.get("parameters"),
        ref.operation.get("parameters"),
        pointer_join("#/paths", ref.path),
        ref.pointer,
        resolver,
        diagnostics,
    )
    raw_parameters = _without_credentials(raw_parameters, credentials, ref.pointer, diagnostics)
    key = key or PathKey(ref.path)
    raw_parameters = query_templates(ref, raw_parameters, key, diagnostics)
    return _match_path_template(ref, raw_parameters, key, diagnostics)


def _without_credentials(
    parameters: list[RawParameter],
    credentials: frozenset[tuple[str, str]],
    pointer: str,
    diagnostics: Diagnostics,
) -> list[RawParameter]:
    """The parameters but those that are the operation's credential (an API key declared both as a
    security scheme and as a query or header parameter): the configured key fills them, so the
    model never sees nor passes a secret, and a request never carries the key twice."""
    kept = []
    for parameter in parameters:
        place = parameter.name.lower() if parameter.location == "header" else parameter.name
        if (parameter.location, place) in credentials:
            diagnostics.info(
                pointer,
                f"{parameter.location} parameter {parameter.name!r} is the API key every security"
                " requirement of the operation sends: the configured credential fills it, not an argument",
            )
        else:
            kept.append(parameter)
    return kept


def _match_path_template(
    ref: OperationRef, parameters: list[RawParameter], key: PathKey, diagnostics: Diagnostics
) -> list[RawParameter]:
    """Every `{name}` of the path needs a path parameter; extra path parameters are dropped."""
    in_template = set(_TEMPLATE_NAME.findall(key.path))
    declared = {p.name for p in parameters if p.location == "path"}
    missing = sorted(in_template - declared)
    if missing:
        raise SpecError(ref.pointer, f"path parameter(s) {missing} of {ref.path!r} are not declared")
    unused = sorted(declared - in_template)
    if unused:
        diagnostics.warning(ref.pointer, f"path parameter(s) {unused} are not in the path template; dropped")
    return [p for p in parameters if p.location != "path" or p.name in in_template]


def _parameter_slot(parameter: RawParameter, converter: SchemaConverter) -> _Slot:
    """The parameter's own description first, then its schema's, then a deprecation note."""
    schema = dict(converter.input_schema(parameter.schema, parameter.schema_pointer))
    notes = [parameter.description.strip(), str(schema.get("description") or "").strip()]
    if parameter.deprecated:
        notes.append("Deprecated.")
    text = " ".join(dict.fromkeys(note for note in notes if note))
    if text:
        schema["description"] = text
    return _Slot(parameter.name, parameter.location, parameter.required, _sendable(parameter, schema))


def _sendable(parameter: RawParameter, schema: JSONSchema) -> JSONSchema:
    """Only values the runtime sends and the API accepts (see `openapi2mcp.tools.sendable`): a required
    parameter given as null (or as an empty header or cookie list) would be left out; a path
    segment is never empty; a query value is never empty (`name=`) unless `allowEmptyValue`."""
    if parameter.required:
        schema = non_null(schema)
    if parameter.content_type is not None:
        return schema  # sent as JSON text, which is never empty
    if parameter.location == "path":
        return forbid_empty(schema, NON_EMPTY, items=True)
    if parameter.location == "query":
        return forbid_empty(schema, _empty_in_query(parameter), items=not parameter.allow_empty_value)
    return forbid_empty(schema, ("array", "object")) if parameter.required else schema


def _empty_in_query(parameter: RawParameter) -> list[str]:
    """The types whose empty value must not be sent: `""` is sent as `name=`, refused unless
    `allowEmptyValue`; an empty array or object is sent as nothing when exploded (and an object in
    deepObject style), which a required parameter cannot be, otherwise as `name=` too."""
    kinds = [] if parameter.allow_empty_value else ["string"]
    for kind in ("array", "object"):
        sends_nothing = parameter.explode or (kind == "object" and parameter.style == "deepObject")
        refused = parameter.required if sends_nothing else not parameter.allow_empty_value
        if refused:
            kinds.append(kind)
    return kinds


def _flattenable(
    raw_body: RawBody | None, converter: SchemaConverter
) -> tuple[dict[str, Any], set[str]] | None:
    if raw_body is None or raw_body.kind not in ("json", "form", "multipart"):
        return None
    found = converter.object_properties(raw_body.schema, raw_body.schema_pointer)
    return found if found is not None and found[0] else None


def _body_slots(
    raw_body: RawBody | None, properties: tuple[dict[str, Any], set[str]] | None, converter: SchemaConverter
) -> list[_Slot]:
    if raw_body is None:
        return []
    if properties is None:
        schema = dict(converter.input_schema(raw_body.schema, raw_body.schema_pointer))
        if raw_body.kind in ("form", "multipart") and not admits_object(schema):
            raise SpecError(
                raw_body.schema_pointer,
                f"the {raw_body.media_type} body is sent as named fields, but its schema is not an"
                " object: it names no field to send",
            )
        if raw_body.required:
            schema = non_null(schema)  # the runtime sends no body for null
        if raw_body.description and "description" not in schema:
            schema["description"] = raw_body.description
        return [_Slot(WHOLE_BODY, "body", raw_body.required, schema, whole_body=True)]
    fields, required = properties
    base = pointer_join(raw_body.schema_pointer, "properties")
    return [
        _Slot(
            name,
            "body",
            raw_body.required and name in required,
            converter.input_schema(schema, pointer_join(base, name)),
            name in required,
        )
        for name, schema in fields.items()
    ]


def _noting_moved_body_names(slots: list[_Slot], names: list[str]) -> list[_Slot]:
    """The slots, where a body property (or the whole body) gives way to a parameter of its name, with
    the body side's description saying what the argument is and which one is the parameter: the one
    that kept the name, else (its name moved API-wide: `path_query`) the first in location order."""
    candidates: dict[str, list[tuple[bool, int, str, str]]] = defaultdict(list)
    for slot, name in zip(slots, names, strict=True):
        own = argument_name(slot.raw_name)
        if slot.location != "body":
            rank = (name != own, PARAMETER_LOCATIONS.index(slot.location), name, slot.location)
            candidates[own].append(rank)
    owners = {own: min(found)[2:] for own, found in candidates.items()}
    noted = []
    for slot, name in zip(slots, names, strict=True):
        own = argument_name(slot.raw_name)
        if slot.location == "body" and own in owners and name != own:
            argument, location = owners[own]
            what = "The request body" if slot.whole_body else f"Sent as `{slot.raw_name}` in the request body"
            note = f"{what}; the argument `{argument}` is the {location} parameter."
            text = " ".join(part for part in (note, str(slot.schema.get("description") or "")) if part)
            slot = dataclasses.replace(slot, schema={**slot.schema, "description": text})
        noted.append(slot)
    return noted


def _bind_body(
    raw_body: RawBody,
    properties: tuple[dict[str, Any], set[str]] | None,
    names: list[str],
    resolver: Resolver,
) -> Body:
    if properties is None:
        return Body(
            raw_body.media_type,
            raw_body.kind,
            raw_body.required,
            argument=names[0],
            binary=raw_body.kind == "binary"
            or is_binary_schema(raw_body.schema, resolver, raw_body.schema_pointer),
        )
    fields, required = properties
    base = pointer_join(raw_body.schema_pointer, "properties")
    bound = []
    for (name, schema), argument in zip(fields.items(), names, strict=True):
        encoding = raw_body.encoding.get(name)
        encoding = encoding if isinstance(encoding, dict) else {}
        explode = encoding.get("explode")
        bound.append(
            BodyField(
                argument=argument,
                name=name,
                required=name in required,
                binary=raw_body.kind == "multipart"
                and is_binary_schema(schema, resolver, pointer_join(base, name)),
                content_type=(
                    encoding.get("contentType") if isinstance(encoding.get("contentType"), str) else None
                ),
                style=encoding.get("style") if isinstance(encoding.get("style"), str) else None,
                explode=explode if isinstance(explode, bool) else None,
            )
        )
    return Body(raw_body.media_type, raw_body.kind, raw_body.required, fields=tuple(bound))


def _object_schema(
    slots: list[_Slot], names: list[str], raw_body: RawBody | None, defs: dict[str, JSONSchema] | None
) -> JSONSchema:
    """The inputSchema; `defs` are the body schema's local `$defs`, which its `#/$defs/...` refs name."""
    schema: JSONSchema = {
        "$schema": JSON_SCHEMA_DIALECT,
        "type": "object",
        "properties": {name: slot.schema for slot, name in zip(slots, names, strict=True)},
    }
    required = [name for slot, name in zip(slots, names, strict=True) if slot.required]
    if required:
        schema["required"] = required
    dependent = _optional_body_rule(slots, names, raw_body)
    if dependent:
        schema["dependentRequired"] = dependent
    schema["additionalProperties"] = False
    if defs:
        schema["$defs"] = defs
    return schema


def _optional_body_rule(
    slots: list[_Slot], names: list[str], raw_body: RawBody | None
) -> dict[str, list[str]]:
    """An optional object body may be left out, but once any field is given its required ones are due."""
    if raw_body is None or raw_body.required:
        return {}
    in_body = [(slot, name) for slot, name in zip(slots, names, strict=True) if slot.location == "body"]
    due = [name for slot, name in in_body if slot.required_in_body]
    rule = {name: [other for other in due if other != name] for _, name in in_body}
    return {name: others for name, others in rule.items() if others}


def _body_note(raw_body: RawBody | None) -> str:
    if raw_body is None or not raw_body.alternatives:
        return ""
    others = ", ".join(raw_body.alternatives)
    return f"Request body is sent as {raw_body.media_type} (the API also accepts {others})."
