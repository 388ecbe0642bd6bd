"""Azure's AutoRest extensions in Swagger 2.0: `x-ms-parameterized-host` and `x-ms-paths`."""

from __future__ import annotations

from typing import Any

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.load.swagger2.convert import convert_swagger2
from openapi2mcp.model import GeneratorOptions
from openapi2mcp.tools.mapper import map_document

OK = {"responses": {"200": {"description": "ok"}}}


def swagger(**root: Any) -> dict[str, Any]:
    return {"swagger": "2.0", "info": {"title": "A", "version": "1"}, "host": "fallback.test", **root}


def converted(document: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
    diagnostics = Diagnostics()
    out = convert_swagger2(document, diagnostics)
    return out, [(d.level.value, d.pointer, d.message) for d in diagnostics]


HOST = {
    "hostTemplate": "{accountName}.{dnsSuffix}",
    "parameters": [
        {"name": "accountName", "in": "path", "required": True, "type": "string", "description": "Account"},
        {"$ref": "#/parameters/dnsSuffix"},
    ],
}
SHARED = {"dnsSuffix": {"name": "dnsSuffix", "in": "path", "type": "string", "default": "store.test"}}


def test_a_parameterized_host_becomes_a_server_whose_variables_are_its_parameters() -> None:
    out, diagnostics = converted(
        swagger(
            basePath="/v2/",
            schemes=["https"],
            parameters=SHARED,
            paths={},
            **{"x-ms-parameterized-host": HOST},
        )
    )
    assert out["servers"] == [
        {
            "url": "https://{accountName}.{dnsSuffix}/v2",
            "variables": {"accountName": {"description": "Account"}, "dnsSuffix": {"default": "store.test"}},
        }
    ]
    assert diagnostics == [
        (
            "info",
            "#/x-ms-parameterized-host",
            "the API's server is 'https://{accountName}.{dnsSuffix}/v2' (its variables: --server-var)",
        )
    ]


def test_the_host_variables_take_server_var_values_and_never_become_tool_arguments() -> None:
    document = swagger(
        parameters=SHARED,
        paths={"/files": {"get": {"operationId": "list", **OK}}},
        **{"x-ms-parameterized-host": HOST},
    )
    options = GeneratorOptions("a", "A", server_variables=(("accountName", "acme"),))
    model = map_document(convert_swagger2(document, Diagnostics()), options, Diagnostics(), source="a.json")
    assert model.default_base_url == "https://acme.store.test"
    assert model.tools[0].input_schema["properties"] == {}


def test_use_scheme_prefix_false_keeps_the_template_as_the_whole_url() -> None:
    host = {
        "hostTemplate": "{endpoint}",
        "useSchemePrefix": False,
        "parameters": [{"name": "endpoint", "type": "string"}],
    }
    out, _ = converted(swagger(paths={}, **{"x-ms-parameterized-host": host}))
    assert out["servers"] == [{"url": "{endpoint}", "variables": {"endpoint": {}}}]


def test_a_dangling_host_parameter_reference_is_a_warning() -> None:
    host = {"hostTemplate": "{a}.test", "parameters": [{"$ref": "#/parameters/missing"}]}
    out, diagnostics = converted(swagger(paths={}, **{"x-ms-parameterized-host": host}))
    assert out["servers"] == [{"url": "https://{a}.test"}]
    assert (
        "warning",
        "#/x-ms-parameterized-host/parameters/0",
        "host parameter reference '#/parameters/missing' points at nothing; ignored",
    ) in diagnostics


def test_x_ms_paths_are_added_after_paths_and_their_query_keys_are_sent_with_every_call() -> None:
    document = swagger(
        paths={
            "/files/{p}": {
                "get": {
                    "operationId": "get",
                    "parameters": [{"name": "p", "in": "path", "required": True, "type": "string"}],
                    **OK,
                }
            }
        },
        **{
            "x-ms-paths": {
                "/files/{p}?op=APPEND": {
                    "post": {
                        "operationId": "append",
                        "parameters": [{"name": "p", "in": "path", "required": True, "type": "string"}],
                        **OK,
                    }
                },
                "/files/{p}": {"put": {"operationId": "shadowed", **OK}},
            }
        },
    )
    out, diagnostics = converted(document)
    assert list(out["paths"]) == ["/files/{p}", "/files/{p}?op=APPEND"]
    assert ("warning", "#/x-ms-paths/~1files~1{p}", "also in `paths`; this copy is ignored") in diagnostics
    assert ("info", "#/x-ms-paths", "1 path items added to `paths`") in diagnostics
    model = map_document(out, GeneratorOptions("a", "A"), Diagnostics(), source="a.json")
    assert [(t.name, t.method, t.path, t.fixed_query) for t in model.tools] == [
        ("get", "GET", "/files/{p}", ()),
        ("append", "POST", "/files/{p}", (("op", "APPEND"),)),
    ]
