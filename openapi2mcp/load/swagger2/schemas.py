"""Swagger 2.0 → OAS 3.0 pieces without operations: schemas, `$ref`s, servers, security schemes.

Schemas are rewritten copy-on-write: a subtree with nothing to change is shared with the input,
never copied and never mutated, so converting a large document costs one walk, not a deep copy.
"""

from __future__ import annotations

from typing import Any

from openapi2mcp.diagnostics import Diagnostics, pointer_join

JSON = Any

# Keys whose value is a schema (or a list of schemas), and keys whose value maps names to schemas.
_SCHEMA_KEYS = frozenset({"items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"})
_SCHEMA_MAP_KEYS = frozenset({"properties", "patternProperties", "definitions"})
_REF_PREFIXES = (
    ("#/definitions/", "#/components/schemas/"),
    ("#/responses/", "#/components/responses/"),
    ("#/parameters/", "#/components/parameters/"),
)
_OAUTH2_FLOWS = {
    "implicit": ("implicit", ("authorizationUrl",)),
    "password": ("password", ("tokenUrl",)),
    "application": ("clientCredentials", ("tokenUrl",)),
    "accessCode": ("authorizationCode", ("authorizationUrl", "tokenUrl")),
}

BINARY = {"type": "string", "format": "binary"}

# Where a schema sits: a JSON pointer, or (parent, token) pairs rendered only for a diagnostic.
Where = str | tuple["Where", str | int]


class RefRewriter:
    """Rewrites Swagger `$ref` strings to their OAS 3.0 places.

    Refs into `#/paths/...` are kept (paths keep their pointers); a ref into a moved part of an
    operation (a response's `schema`, a body parameter's `schema`) is fixed by `finish()` once every
    move is known.
    """

    def __init__(self, diagnostics: Diagnostics) -> None:
        self.diagnostics = diagnostics
        self.moves: dict[str, str] = {}  # old Swagger pointer → its new OAS 3 pointer
        self._pending: list[tuple[dict[str, Any], str]] = []

    def ref(self, ref: str) -> str:
        for old, new in _REF_PREFIXES:
            if ref.startswith(old):
                return new + ref[len(old) :]
        if ref == "#/definitions":
            return "#/components/schemas"
        return ref

    def ref_node(self, node: dict[str, Any]) -> dict[str, Any]:
        """A new `{"$ref": ...}` node (siblings kept); refs that may point into a moved node are
        queued for `finish()`."""
        ref = node["$ref"]
        out = {**node, "$ref": self.ref(ref)}
        if ref.startswith(("#/paths/", "#/responses/")) and ref.count("/") > 2:
            self._pending.append((out, ref))
        return out

    def finish(self) -> None:
        """Point the queued refs at the new places of the nodes they point into."""
        if not self.moves:
            return
        for node, ref in self._pending:
            for old in sorted(self.moves, key=len, reverse=True):
                if ref == old or ref.startswith(old + "/"):
                    node["$ref"] = self.moves[old] + ref[len(old) :]
                    break


def convert_schema(node: JSON, refs: RefRewriter, where: Where) -> JSON:
    """The OAS 3.0 form of a Swagger schema: refs moved, `x-nullable`, `type: file`, discriminator,
    and JSON-Schema forms Swagger does not allow but real specs use (`type` lists, list `items`,
    Azure's `{type: object, format: file}` for a stream)."""
    if not isinstance(node, dict):
        return node
    if _is_file(node):
        node = {**{k: v for k, v in node.items() if k != "type"}, **BINARY}
    elif isinstance(node.get("type"), list) or node.get("type") == "null":
        node = _type_list(node, refs, where)
    if isinstance(node.get("items"), list):
        node = _items_list(node, refs, where)
    changed: dict[str, Any] | None = None
    for key, value in node.items():
        if key in _SCHEMA_KEYS:
            new = _schema_or_list(value, refs, (where, key))
        elif key in _SCHEMA_MAP_KEYS and isinstance(value, dict):
            new = convert_schema_map(value, refs, (where, key))
        else:
            continue
        if new is not value:
            changed = changed if changed is not None else dict(node)
            changed[key] = new
    out = changed if changed is not None else node
    if isinstance(out.get("$ref"), str):
        out = refs.ref_node(out)
    if out.get("x-nullable") is True:
        out = {**{k: v for k, v in out.items() if k != "x-nullable"}, "nullable": True}
    if isinstance(out.get("discriminator"), str):
        out = {**out, "discriminator": {"propertyName": out["discriminator"]}}
    return out


def _is_file(node: dict[str, Any]) -> bool:
    """`type: file`, or `format: file` (AutoRest's stream) on an object, a string or no type."""
    kind = node.get("type")
    return kind == "file" or (node.get("format") == "file" and kind in (None, "object", "string"))


def convert_schema_map(schemas: dict[str, Any], refs: RefRewriter, where: Where) -> dict[str, Any]:
    """A name → schema mapping (`properties`, `definitions`), copied only when something changed."""
    changed: dict[str, Any] | None = None
    for name, value in schemas.items():
        new = convert_schema(value, refs, (where, name))
        if new is not value:
            changed = changed if changed is not None else dict(schemas)
            changed[name] = new
    return changed if changed is not None else schemas


def _schema_or_list(value: JSON, refs: RefRewriter, where: Where) -> JSON:
    if isinstance(value, list):
        items = [convert_schema(item, refs, (where, index)) for index, item in enumerate(value)]
        return value if all(new is old for new, old in zip(items, value, strict=True)) else items
    return convert_schema(value, refs, where)


def _type_list(node: dict[str, Any], refs: RefRewriter, where: Where) -> dict[str, Any]:
    """`type: [string, "null"]` / `type: "null"` (JSON Schema, not Swagger) → `type` + `nullable`."""
    raw = node["type"]
    names = [name for name in (raw if isinstance(raw, list) else [raw]) if isinstance(name, str)]
    kept = [name for name in names if name != "null"]
    out = {key: value for key, value in node.items() if key != "type"}
    if len(kept) == 1:
        out["type"] = kept[0]
    elif kept:
        refs.diagnostics.warning(
            render(where, "type"), f"type {raw!r}: OpenAPI 3.0 allows one type; read as any type"
        )
    if "null" in names:
        out["nullable"] = True
    return out


def _items_list(node: dict[str, Any], refs: RefRewriter, where: Where) -> dict[str, Any]:
    """`items: [a, b]` (not Swagger, common in generated specs) → `items: {anyOf: [a, b]}`."""
    entries = node["items"]
    refs.diagnostics.warning(
        render(where, "items"), "`items` must be a schema, not a list; read as any of its entries"
    )
    items = entries[0] if len(entries) == 1 else {"anyOf": entries} if entries else {}
    return {**node, "items": items}


def render(where: Where, *tail: str | int) -> str:
    """The JSON pointer of a location built as nested (parent, token) pairs."""
    tokens: list[str | int] = list(reversed(tail))
    while isinstance(where, tuple):
        where, token = where
        tokens.append(token)
    return pointer_join(where, *reversed(tokens))


def convert_servers(document: dict[str, Any]) -> list[dict[str, str]]:
    """`host` + `basePath` + `schemes` → one server (https preferred); no host → relative basePath."""
    base_path = document.get("basePath")
    base = base_path if isinstance(base_path, str) and base_path.startswith("/") else "/"
    host = document.get("host")
    if not isinstance(host, str) or not host:
        return [{"url": base}]
    raw = document.get("schemes")
    schemes = [s for s in raw if isinstance(s, str)] if isinstance(raw, list) else []
    web = [s.lower() for s in schemes if s.lower() in ("http", "https")]
    scheme = "https" if "https" in web or not web else web[0]
    return [{"url": f"{scheme}://{host}{base.rstrip('/')}"}]


def convert_security_definitions(definitions: JSON, pointer: str, diagnostics: Diagnostics) -> dict[str, Any]:
    """`securityDefinitions` → `components/securitySchemes`; unknown kinds become warnings."""
    if not isinstance(definitions, dict):
        if definitions is not None:
            diagnostics.warning(pointer, "`securityDefinitions` must be an object; ignored")
        return {}
    out: dict[str, Any] = {}
    for key, scheme in definitions.items():
        where = pointer_join(pointer, key)
        converted = _security_scheme(scheme, where, diagnostics)
        if converted is not None:
            out[key] = converted
    return out


def _security_scheme(scheme: JSON, where: str, diagnostics: Diagnostics) -> dict[str, Any] | None:
    if not isinstance(scheme, dict):
        diagnostics.warning(where, "a security definition must be an object; ignored")
        return None
    extras = {k: v for k, v in scheme.items() if k == "description" or k.startswith("x-")}
    kind = scheme.get("type")
    if kind == "basic":
        return {"type": "http", "scheme": "basic", **extras}
    if kind == "apiKey":
        return {"type": "apiKey", "name": scheme.get("name"), "in": scheme.get("in"), **extras}
    if kind == "oauth2":
        flow = scheme.get("flow")
        if flow not in _OAUTH2_FLOWS:
            diagnostics.warning(where, f"unknown oauth2 flow {flow!r}; security scheme ignored")
            return None
        name, urls = _OAUTH2_FLOWS[str(flow)]
        scopes = scheme.get("scopes")
        body: dict[str, Any] = {url: scheme.get(url, "") for url in urls}
        body["scopes"] = scopes if isinstance(scopes, dict) else {}
        return {"type": "oauth2", "flows": {name: body}, **extras}
    diagnostics.warning(where, f"unknown security definition type {kind!r}; ignored")
    return None
