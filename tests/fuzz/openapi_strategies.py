"""Hypothesis strategies for OpenAPI 3.0/3.1 documents that a generator must survive: paths with
templates, operations of every method, parameters of every `in` and style, request bodies of every
kind, schemas with `$ref`s (some dangling, some recursive), allOf/anyOf/oneOf, enums, odd names."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

HOSTILE = [
    '"""',
    "'''",
    "{{ 7*7 }}",
    "{% raw %}",
    "</script>",
    "\\",
    "\x00",
    "\u2028",
    "\x1b[2J",
    "__import__('os').system('exit 1')",
    "a.b/c~d",
    "..",
    "-",
    "_",
    "123",
    "class",
    "None",
    "",
    " ",
    "ünïcødé 名前 😀",
    "x" * 70,
]
COMPONENTS = ["A", "B", "Node", "weird name", "ünï"]

text = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=12))
names = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(min_size=1, max_size=12),
    st.from_regex(r"[a-z][a-zA-Z0-9_]{0,10}", fullmatch=True),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=False), text)


def refs() -> st.SearchStrategy[dict[str, Any]]:
    targets = [f"#/components/schemas/{name}" for name in COMPONENTS]
    targets += [
        "#/components/schemas/Missing",
        "#/paths",
        "#",
        "other.yaml#/X",
        "#/components/schemas/A/properties/a",
    ]
    return st.builds(lambda ref: {"$ref": ref}, st.sampled_from(targets))


def leaf_schemas() -> st.SearchStrategy[dict[str, Any]]:
    typed = st.fixed_dictionaries(
        {"type": st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array"])},
        optional={
            "format": st.sampled_from(["date-time", "binary", "byte", "int64", "uuid", "email", "weird"]),
            "enum": st.lists(scalars, max_size=4),
            "default": scalars,
            "description": text,
            "title": text,
            "nullable": st.booleans(),
            "minimum": st.integers(-5, 5),
            "pattern": st.sampled_from(["^a+$", "[", "\\d"]),
        },
    )
    return st.one_of(
        typed,
        refs(),
        st.just({}),
        st.just(True),
        st.builds(
            lambda t: {"type": t}, st.lists(st.sampled_from(["string", "null", "integer"]), max_size=3)
        ),
    )


def schemas() -> st.SearchStrategy[Any]:
    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        properties = st.dictionaries(names, inner, max_size=4)
        return st.one_of(
            st.fixed_dictionaries(
                {"type": st.just("object"), "properties": properties},
                optional={
                    "required": st.lists(names, max_size=3),
                    "additionalProperties": st.one_of(st.booleans(), inner),
                },
            ),
            st.fixed_dictionaries({"type": st.just("array"), "items": inner}),
            st.builds(
                lambda kind, items: {kind: items},
                st.sampled_from(["allOf", "anyOf", "oneOf"]),
                st.lists(inner, max_size=3),
            ),
            st.fixed_dictionaries({"not": inner}),
        )

    return st.recursive(leaf_schemas(), extend, max_leaves=8)


def parameters(path_names: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    where = st.sampled_from(["query", "header", "path", "cookie", "body", "nowhere"])
    name = st.one_of(names, st.sampled_from(path_names)) if path_names else names
    return st.fixed_dictionaries(
        {"name": name, "in": where},
        optional={
            "required": st.booleans(),
            "schema": schemas(),
            "style": st.sampled_from(
                ["form", "simple", "label", "matrix", "spaceDelimited", "pipeDelimited", "deepObject", "odd"]
            ),
            "explode": st.booleans(),
            "description": text,
            "content": st.builds(lambda s: {"application/json": {"schema": s}}, schemas()),
            "deprecated": st.booleans(),
        },
    )


MEDIA = [
    "application/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "application/octet-stream",
    "text/plain",
    "*/*",
    "application/vnd.x+json; charset=utf-8",
    "bad",
]


def bodies() -> st.SearchStrategy[dict[str, Any]]:
    content = st.dictionaries(
        st.sampled_from(MEDIA),
        st.fixed_dictionaries({}, optional={"schema": schemas(), "example": scalars}),
        max_size=3,
    )
    return st.one_of(
        st.fixed_dictionaries(
            {"content": content}, optional={"required": st.booleans(), "description": text}
        ),
        refs(),
    )


def responses() -> st.SearchStrategy[dict[str, Any]]:
    codes = st.sampled_from(["200", "201", "204", "2XX", "default", "404", "500", "abc"])
    response = st.fixed_dictionaries(
        {"description": text},
        optional={
            "content": st.dictionaries(
                st.sampled_from(MEDIA), st.fixed_dictionaries({}, optional={"schema": schemas()}), max_size=2
            )
        },
    )
    return st.dictionaries(codes, response, max_size=3)


@st.composite
def path_items(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    segments = draw(st.lists(st.one_of(names, st.builds("{{{}}}".format, names)), min_size=0, max_size=3))
    template = "/" + "/".join(segment.replace("/", "") for segment in segments)
    in_path = [segment[1:-1] for segment in segments if segment.startswith("{") and segment.endswith("}")]
    methods = draw(
        st.lists(
            st.sampled_from(["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"]),
            unique=True,
            max_size=3,
        )
    )
    item: dict[str, Any] = {}
    for method in methods:
        operation = draw(
            st.fixed_dictionaries(
                {"responses": responses()},
                optional={
                    "operationId": names,
                    "summary": text,
                    "description": text,
                    "tags": st.lists(names, max_size=2),
                    "parameters": st.lists(st.one_of(parameters(in_path), refs()), max_size=4),
                    "requestBody": bodies(),
                    "deprecated": st.booleans(),
                    "security": st.lists(
                        st.dictionaries(
                            st.sampled_from(["key", "oauth", "nope"]), st.lists(names, max_size=2), max_size=2
                        ),
                        max_size=2,
                    ),
                    "x-mcp": st.fixed_dictionaries(
                        {}, optional={"name": names, "exclude": st.booleans(), "description": text}
                    ),
                },
            )
        )
        item[method] = operation
    if draw(st.booleans()):
        item["parameters"] = draw(st.lists(parameters(in_path), max_size=2))
    return template, item


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    """A whole OpenAPI document (often not a valid one)."""
    version = draw(st.sampled_from(["3.0.3", "3.1.0", "3.0.0", "3.1.1"]))
    paths = dict(draw(st.lists(path_items(), max_size=5)))
    components_schemas = draw(st.dictionaries(st.sampled_from(COMPONENTS), schemas(), max_size=4))
    security_schemes = {
        "key": {
            "type": "apiKey",
            "in": draw(st.sampled_from(["header", "query", "cookie", "body"])),
            "name": draw(names),
        },
        "oauth": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": draw(text), "scopes": {}}}},
    }
    servers = draw(
        st.lists(
            st.fixed_dictionaries(
                {"url": st.one_of(text, st.just("https://api.test/{v}"))},
                optional={"variables": st.just({"v": {"default": "1"}})},
            ),
            max_size=2,
        )
    )
    document: dict[str, Any] = {
        "openapi": version,
        "info": draw(st.fixed_dictionaries({"title": text, "version": text}, optional={"description": text})),
        "paths": paths,
        "components": {"schemas": components_schemas, "securitySchemes": security_schemes},
    }
    if servers:
        document["servers"] = servers
    if draw(st.booleans()):
        document["tags"] = draw(
            st.lists(st.fixed_dictionaries({"name": names}, optional={"description": text}), max_size=3)
        )
    if draw(st.booleans()):
        document["security"] = [{"key": []}]
    return document
