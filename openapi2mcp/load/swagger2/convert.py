"""Swagger 2.0 → OpenAPI 3.0.3, in Python, so the rest of the pipeline only ever sees OAS 3.0.

Paths, path items and operations keep their JSON pointers, so diagnostics found later still point
into the Swagger document. Problems become diagnostics, never exceptions (only a document that is
not Swagger 2.0 at all raises). The input is never mutated: converted nodes are new dicts, and
subtrees with nothing to convert are shared with it (see `swagger2_schemas`).

- `body` parameters become a `requestBody` with one content entry per `consumes` media type;
  `formData` parameters become an object schema under `multipart/form-data` (when a field is a
  `type: file` or `consumes` lists multipart) or `application/x-www-form-urlencoded`.
- Other parameters move `type`, `format`, `items`, `enum`, limits... into `schema`, and
  `collectionFormat` becomes `style`/`explode`.
- Shared `parameters` become `components/parameters`, except body/formData ones, which are inlined
  wherever they are used.
- Responses get one content entry per `produces` media type (default `application/json`).
"""

from __future__ import annotations

from typing import Any

from openapi2mcp.diagnostics import Diagnostics, pointer_join
from openapi2mcp.load.swagger2.azure import parameterized_host_servers, with_x_ms_paths
from openapi2mcp.load.swagger2.origins import SwaggerOrigins
from openapi2mcp.load.swagger2.schemas import (
    BINARY,
    RefRewriter,
    convert_schema,
    convert_schema_map,
    convert_security_definitions,
    convert_servers,
)

JSON = Any
OPENAPI_VERSION = "3.0.3"
_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch"})
_ROOT_KEPT = ("info", "tags", "externalDocs", "security")
_PARAMETER_KEPT = ("name", "in", "description", "required", "allowEmptyValue", "deprecated")
_SCHEMA_FIELDS = (
    "type", "format", "enum", "default", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "multipleOf",
)  # fmt: skip
_DEFAULT_MEDIA = ("application/json",)
_MULTIPART = "multipart/form-data"
_URLENCODED = "application/x-www-form-urlencoded"
_STYLES = {"ssv": ("spaceDelimited", False), "pipes": ("pipeDelimited", False), "multi": ("form", True)}

Located = tuple[dict[str, Any], str]  # a parameter and the pointer of its Swagger node


class NotSwagger2Error(ValueError):
    """The document does not declare `swagger: "2.0"`."""


def is_swagger2(document: JSON) -> bool:
    return isinstance(document, dict) and str(document.get("swagger")) == "2.0"


def convert_swagger2(document: JSON, diagnostics: Diagnostics) -> dict[str, Any]:
    """The OAS 3.0.3 form of a Swagger 2.0 document; the input is left unchanged.

    The result shares the subtrees that needed no change with the input: treat both as read-only."""
    return convert_swagger2_with_origins(document, diagnostics)[0]


def convert_swagger2_with_origins(
    document: JSON, diagnostics: Diagnostics
) -> tuple[dict[str, Any], SwaggerOrigins]:
    """`convert_swagger2`, and where the moved nodes came from (for later diagnostics)."""
    if not is_swagger2(document):
        raise NotSwagger2Error('not a Swagger 2.0 document (`swagger: "2.0"` is missing)')
    converter = _Converter(document, diagnostics)
    return converter.run(), converter.origins


def _media_types(value: JSON) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(item for item in value if isinstance(item, str) and item)


def _extensions(node: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in node.items() if key.startswith("x-")}


class _Converter:
    def __init__(self, document: dict[str, Any], diagnostics: Diagnostics) -> None:
        self.document = document
        self.diagnostics = diagnostics
        self.refs = RefRewriter(diagnostics)
        azure_host = "x-ms-parameterized-host" in document
        self.origins = SwaggerOrigins("#/x-ms-parameterized-host" if azure_host else "#/host")
        self.consumes = _media_types(document.get("consumes")) or _DEFAULT_MEDIA
        self.produces = _media_types(document.get("produces")) or _DEFAULT_MEDIA
        shared = document.get("parameters")
        self.shared_parameters: dict[str, Any] = shared if isinstance(shared, dict) else {}

    def run(self) -> dict[str, Any]:
        document = self.document
        out: dict[str, Any] = {"openapi": OPENAPI_VERSION}
        out.update((key, document[key]) for key in _ROOT_KEPT if key in document)
        out["servers"] = parameterized_host_servers(document, convert_servers(document), self.diagnostics)
        paths = with_x_ms_paths(document, self.diagnostics)
        if paths is not None:
            out["paths"] = self._paths(paths)
        components = self._components()
        if components:
            out["components"] = components
        out.update(_extensions(document))
        self.refs.finish()
        return out

    # -- components ---------------------------------------------------------------------------

    def _components(self) -> dict[str, Any]:
        document, components = self.document, {}
        definitions = document.get("definitions")
        if isinstance(definitions, dict):
            components["schemas"] = convert_schema_map(definitions, self.refs, "#/definitions")
        parameters = {}
        for name, parameter in self.shared_parameters.items():
            pointer = pointer_join("#/parameters", name)
            if isinstance(parameter, dict) and parameter.get("in") not in ("body", "formData"):
                parameters[name] = self._parameter(parameter, pointer)
        if parameters:
            components["parameters"] = parameters
        responses = document.get("responses")
        if isinstance(responses, dict):
            components["responses"] = {
                name: self._response(
                    response, pointer_join("#/responses", name),
                    pointer_join("#/components/responses", name), self.produces,
                )
                for name, response in responses.items()
            }  # fmt: skip
        schemes = convert_security_definitions(
            document.get("securityDefinitions"), "#/securityDefinitions", self.diagnostics
        )
        if schemes:
            components["securitySchemes"] = schemes
        return components

    # -- paths and operations -----------------------------------------------------------------

    def _paths(self, paths: JSON) -> JSON:
        if not isinstance(paths, dict):
            return paths  # the mapper reports it
        return {
            path: item if path.startswith("x-") else self._path_item(item, pointer_join("#/paths", path))
            for path, item in paths.items()
        }

    def _path_item(self, item: JSON, pointer: str) -> JSON:
        if not isinstance(item, dict):
            return item
        shared, shared_body = self._split(item.get("parameters"), pointer_join(pointer, "parameters"))
        out: dict[str, Any] = {}
        for key, value in item.items():
            if key in _METHODS and isinstance(value, dict):
                out[key] = self._operation(value, pointer_join(pointer, key), shared_body)
            elif key == "parameters":
                if shared:
                    out[key] = shared
            elif key == "$ref" and isinstance(value, str):
                out[key] = self.refs.ref(value)
            else:
                out[key] = value
        return out

    def _operation(self, operation: dict[str, Any], pointer: str, shared_body: list[Located]) -> JSON:
        parameters, body = self._split(operation.get("parameters"), pointer_join(pointer, "parameters"))
        own = {_identity(p) for p, _ in body}
        has_body = any(p.get("in") == "body" for p, _ in body)
        body += [
            (p, where)
            for p, where in shared_body
            if _identity(p) not in own and not (has_body and p.get("in") == "body")
        ]
        consumes = _media_types(operation.get("consumes")) or self.consumes
        produces = _media_types(operation.get("produces")) or self.produces
        out: dict[str, Any] = {}
        for key, value in operation.items():
            if key in ("consumes", "produces", "schemes"):
                continue
            if key == "parameters":
                if parameters:
                    out[key] = parameters
            elif key == "responses":
                where = pointer_join(pointer, "responses")
                out[key] = self._responses(value, where, produces)
            else:
                out[key] = value
        request_body = self._request_body(body, consumes, pointer_join(pointer, "requestBody"))
        if request_body is not None:
            out["requestBody"] = request_body
        return out

    def _split(self, raw: JSON, pointer: str) -> tuple[list[Any], list[Located]]:
        """(OAS 3 parameters, body/formData parameters with their Swagger pointers)."""
        if not isinstance(raw, list):
            return [], []
        parameters: list[Any] = []
        body: list[Located] = []
        for index, parameter in enumerate(raw):
            where = pointer_join(pointer, index)
            if not isinstance(parameter, dict):
                self.diagnostics.warning(where, "a parameter must be an object; ignored")
                continue
            target = self._target(parameter)
            if target.get("in") in ("body", "formData"):
                body.append((target, parameter.get("$ref", where)))
            elif isinstance(parameter.get("$ref"), str):
                parameters.append(self.refs.ref_node(parameter))
            else:
                parameters.append(self._parameter(parameter, where))
        return parameters, body

    def _target(self, parameter: dict[str, Any]) -> dict[str, Any]:
        """A `#/parameters/X` reference's target (itself when it is no such reference)."""
        ref = parameter.get("$ref")
        if not isinstance(ref, str):
            return parameter
        if ref.startswith("#/parameters/") and "/" not in ref[len("#/parameters/") :]:
            name = ref[len("#/parameters/") :].replace("~1", "/").replace("~0", "~")
            target = self.shared_parameters.get(name)
            if isinstance(target, dict):
                return target
        return parameter

    # -- parameters ---------------------------------------------------------------------------

    def _parameter(self, parameter: dict[str, Any], pointer: str) -> dict[str, Any]:
        out = {key: parameter[key] for key in _PARAMETER_KEPT if key in parameter}
        location = parameter.get("in")
        if location == "path":
            out["required"] = True
        schema = self._simple_schema(parameter, pointer)
        if schema.get("type") == "array":
            style, explode = self._style(parameter.get("collectionFormat"), str(location), pointer)
            out.update(style=style, explode=explode)
        out["schema"] = schema
        out.update(_extensions(parameter))
        return out

    def _simple_schema(self, node: dict[str, Any], pointer: str) -> dict[str, Any]:
        """The schema of a non-body parameter, header or `items` object (its fields moved over)."""
        if "type" not in node and ("schema" in node or isinstance(node.get("$ref"), str)):
            where = pointer_join(pointer, "schema") if "schema" in node else pointer
            converted = convert_schema(node.get("schema", node), self.refs, where)
            return dict(converted) if isinstance(converted, dict) else {}
        schema: dict[str, Any]
        if node.get("type") == "file":
            schema = dict(BINARY)
        else:
            schema = {key: node[key] for key in _SCHEMA_FIELDS if key in node}
        items = node.get("items")
        if isinstance(items, dict):
            schema["items"] = self._simple_schema(items, pointer_join(pointer, "items"))
        if node.get("x-nullable") is True:
            schema["nullable"] = True
        return schema

    def _style(self, collection_format: JSON, location: str, pointer: str) -> tuple[str, bool]:
        """`collectionFormat` (default csv) → OAS 3 `style`/`explode`."""
        fmt = collection_format if collection_format is not None else "csv"
        where = pointer_join(pointer, "collectionFormat")
        if fmt == "tsv":
            self.diagnostics.warning(
                where, "collectionFormat tsv has no OpenAPI 3 equivalent; treated as csv"
            )
        elif fmt in _STYLES:
            return _STYLES[str(fmt)]
        elif fmt != "csv":
            self.diagnostics.warning(where, f"unknown collectionFormat {fmt!r}; treated as csv")
        return ("form", False) if location in ("query", "formData") else ("simple", False)

    # -- request bodies -----------------------------------------------------------------------

    def _request_body(
        self, parameters: list[Located], consumes: tuple[str, ...], body_pointer: str
    ) -> dict[str, Any] | None:
        bodies = [(p, where) for p, where in parameters if p.get("in") == "body"]
        forms = [(p, where) for p, where in parameters if p.get("in") == "formData"]
        if bodies:
            for _, where in bodies[1:]:
                self.diagnostics.warning(where, "an operation can have only one body parameter; ignored")
            for _, where in forms:
                self.diagnostics.warning(where, "formData next to a body parameter; ignored")
            self.origins.body(body_pointer, bodies[0][1])
            return self._body(*bodies[0], consumes, body_pointer)
        if forms:
            for parameter, where in forms:
                self.origins.form_field(body_pointer, str(parameter.get("name", "")), where)
            return self._form(forms, consumes)
        return None

    def _body(
        self, parameter: dict[str, Any], where: str, consumes: tuple[str, ...], body_pointer: str
    ) -> dict[str, Any]:
        if "schema" not in parameter:
            self.diagnostics.warning(where, "a body parameter without a `schema`: any value is accepted")
        schema = convert_schema(parameter.get("schema", {}), self.refs, pointer_join(where, "schema"))
        out: dict[str, Any] = {}
        if isinstance(parameter.get("description"), str):
            out["description"] = parameter["description"]
        out["content"] = {media: {"schema": schema} for media in consumes}
        out["required"] = parameter.get("required") is True
        out.update(_extensions(parameter))
        if where.startswith("#/paths/"):
            moved = pointer_join(body_pointer, "content", consumes[0], "schema")
            self.refs.moves[where + "/schema"] = moved
        return out

    def _form(self, fields: list[Located], consumes: tuple[str, ...]) -> dict[str, Any]:
        files = any(p.get("type") == "file" for p, _ in fields)
        media = _MULTIPART if files or _MULTIPART in consumes else _URLENCODED
        properties: dict[str, Any] = {}
        encoding: dict[str, Any] = {}
        required: list[str] = []
        for parameter, where in fields:
            name = str(parameter.get("name", ""))
            schema = self._simple_schema(parameter, where)
            if isinstance(parameter.get("description"), str):
                schema["description"] = parameter["description"]
            properties[name] = schema
            if parameter.get("required") is True:
                required.append(name)
            if schema.get("type") == "array":
                style, explode = self._style(parameter.get("collectionFormat"), "formData", where)
                encoding[name] = {"style": style, "explode": explode}
        form: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            form["required"] = required
        content: dict[str, Any] = {"schema": form}
        if encoding:
            content["encoding"] = encoding
        return {"content": {media: content}, "required": bool(required)}

    # -- responses ----------------------------------------------------------------------------

    def _responses(self, responses: JSON, pointer: str, produces: tuple[str, ...]) -> JSON:
        if not isinstance(responses, dict):
            return responses  # the mapper reports it
        return {
            code: value if code.startswith("x-") else
            self._response(value, pointer_join(pointer, code), pointer_join(pointer, code), produces)
            for code, value in responses.items()
        }  # fmt: skip

    def _response(self, response: JSON, old: str, new: str, produces: tuple[str, ...]) -> JSON:
        if not isinstance(response, dict):
            return response
        if isinstance(response.get("$ref"), str):
            return self.refs.ref_node(response)
        description = response.get("description")
        out: dict[str, Any] = {"description": description if isinstance(description, str) else ""}
        headers = response.get("headers")
        if isinstance(headers, dict):
            out["headers"] = {
                name: self._header(header, pointer_join(old, "headers", name))
                for name, header in headers.items()
                if isinstance(header, dict)
            }
        if "schema" in response:
            schema = convert_schema(response["schema"], self.refs, pointer_join(old, "schema"))
            if response.get("x-nullable") is True and isinstance(schema, dict):
                schema = {**schema, "nullable": True}
            raw_examples = response.get("examples")
            examples = raw_examples if isinstance(raw_examples, dict) else {}
            content: dict[str, Any] = {}
            for media in produces:
                content[media] = {"schema": schema}
                if media in examples:
                    content[media]["example"] = examples[media]
            out["content"] = content
            self.refs.moves[old + "/schema"] = pointer_join(new, "content", produces[0]) + "/schema"
        out.update((key, value) for key, value in response.items() if key.startswith("x-"))
        out.pop("x-nullable", None)
        return out

    def _header(self, header: dict[str, Any], pointer: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if isinstance(header.get("description"), str):
            out["description"] = header["description"]
        out["schema"] = self._simple_schema(header, pointer)
        out.update(_extensions(header))
        return out


def _identity(parameter: dict[str, Any]) -> tuple[str, str]:
    return str(parameter.get("name")), str(parameter.get("in"))
