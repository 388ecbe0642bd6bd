"""Where a node of the converted OAS 3.0 document came from in the Swagger 2.0 document, so that
diagnostics found after the conversion point into the file the user has.

The conversion moves a few things: components (`#/components/schemas/X` ← `#/definitions/X`, and
parameters, responses, security schemes), request bodies (← the `body` parameter, or one `formData`
parameter per property) and response schemas (`…/content/<type>/schema` ← `…/schema`). Every other
pointer (paths, operations, parameters) is the same in both documents.
"""

from __future__ import annotations

import re

from openapi2mcp.diagnostics import pointer_join

_COMPONENTS = (
    ("#/components/schemas/", "#/definitions/"),
    ("#/components/parameters/", "#/parameters/"),
    ("#/components/responses/", "#/responses/"),
    ("#/components/securitySchemes/", "#/securityDefinitions/"),
)
_RESPONSE_CONTENT = re.compile(r"(/responses/[^/]+)/content/[^/]+/schema(?=/|$)")
_SCHEMA = re.compile(r"/content/[^/]+/schema(.*)")
_FIELD = re.compile(r"/properties/([^/]+)(.*)")


class SwaggerOrigins:
    """Collects where request bodies came from during a conversion; translates pointers after it."""

    def __init__(self, server_origin: str = "#/host") -> None:
        self._bodies: dict[str, str] = {}  # `…/requestBody` → the body parameter's pointer
        self._fields: dict[tuple[str, str], str] = {}  # (`…/requestBody`, property) → formData's
        self._server_origin = server_origin  # what the converted `servers` were made from

    def body(self, request_body: str, parameter: str) -> None:
        self._bodies[request_body] = parameter

    def form_field(self, request_body: str, name: str, parameter: str) -> None:
        self._fields[(request_body, pointer_join("", name)[1:])] = parameter

    def original(self, pointer: str) -> str:
        """The Swagger pointer of a node of the converted document (itself when it did not move)."""
        if pointer == "#/servers" or pointer.startswith("#/servers/"):
            return self._server_origin
        for new, old in _COMPONENTS:
            if pointer.startswith(new):
                pointer = old + pointer[len(new) :]
                break
        pointer = _RESPONSE_CONTENT.sub(r"\1/schema", pointer)
        request_body, found, tail = pointer.partition("/requestBody")
        return self._request_body(request_body + found, tail) if found else pointer

    def _request_body(self, request_body: str, tail: str) -> str:
        body = self._bodies.get(request_body)
        schema = _SCHEMA.match(tail)
        if schema is None:
            return body or request_body.removesuffix("/requestBody")
        if body is not None:
            return body + "/schema" + schema.group(1)
        field = _FIELD.match(schema.group(1))
        if field is not None and (request_body, field.group(1)) in self._fields:
            return self._fields[(request_body, field.group(1))] + field.group(2)
        return request_body.removesuffix("/requestBody")
