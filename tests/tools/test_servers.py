"""Server URLs: the API's default, an operation's or path item's own server, and `--server-var`."""

from __future__ import annotations

from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.model import ApiModel, GeneratorOptions
from openapi2mcp.tools.mapper import map_document
from openapi2mcp.tools.servers import ServerVariableError, check_overrides

OK = {"responses": {"200": {"description": "ok"}}}
REGIONAL = {
    "url": "https://{region}.api.test/{version}",
    "variables": {"region": {"default": "us", "enum": ["us", "eu"]}, "version": {"default": "v1"}},
}


def spec(servers: list[Any] | None = None, **paths: Any) -> dict[str, Any]:
    document: dict[str, Any] = {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": paths}
    if servers is not None:
        document["servers"] = servers
    return document


def mapped(
    document: dict[str, Any], source: str = "spec.yaml", **variables: str
) -> tuple[ApiModel, Diagnostics]:
    diagnostics = Diagnostics()
    options = GeneratorOptions("t", "T", server_variables=tuple(variables.items()))
    return map_document(document, options, diagnostics, source=source), diagnostics


def own_urls(model: ApiModel) -> dict[str, str | None]:
    return {tool.name: tool.base_url for tool in model.tools}


def test_variables_take_their_defaults_and_overrides_replace_them() -> None:
    assert mapped(spec([REGIONAL]))[0].default_base_url == "https://us.api.test/v1"
    model, _ = mapped(spec([REGIONAL]), region="eu", version="v2")
    assert model.default_base_url == "https://eu.api.test/v2"


def test_an_operation_server_wins_over_its_path_items_and_the_default_applies_elsewhere() -> None:
    document = spec(
        [{"url": "https://api.test"}],
        **{
            "/files": {
                "servers": [{"url": "https://path.test/"}],
                "post": {"operationId": "upload", "servers": [{"url": "https://files.test/v1/"}], **OK},
                "get": {"operationId": "listFiles", **OK},
            },
            "/items": {"get": {"operationId": "listItems", **OK}},
        },
    )
    model, diagnostics = mapped(document)
    assert own_urls(model) == {
        "listFiles": "https://path.test",
        "upload": "https://files.test/v1",
        "listItems": None,
    }
    assert list(diagnostics) == []


def test_an_operation_server_equal_to_the_default_is_no_own_server() -> None:
    document = spec(
        [{"url": "https://api.test/"}], **{"/a": {"get": {"servers": [{"url": "https://api.test"}], **OK}}}
    )
    assert own_urls(mapped(document)[0]) == {"get_a": None}


def test_operation_server_variables_are_overridden_too() -> None:
    op = {
        "operationId": "op",
        "servers": [{"url": "https://{region}.files.test", "variables": {"region": {"default": "us"}}}],
        **OK,
    }
    model, _ = mapped(spec([REGIONAL], **{"/a": {"get": op}}), region="eu")
    assert own_urls(model) == {"op": "https://eu.files.test"}


def test_a_relative_operation_server_is_resolved_against_the_default_server() -> None:
    op = {"operationId": "op", "servers": [{"url": "/v2"}], **OK}
    model, _ = mapped(spec([{"url": "https://api.test/v1"}], **{"/a": {"get": op}}))
    assert own_urls(model) == {"op": "https://api.test/v2"}


def test_a_relative_operation_server_is_resolved_against_the_specs_url() -> None:
    op = {"operationId": "op", "servers": [{"url": "/files"}], **OK}
    model, _ = mapped(spec(None, **{"/a": {"get": op}}), source="https://docs.test/api/openapi.yaml")
    assert own_urls(model) == {"op": "https://docs.test/files"}


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://", "server URL 'https://' names no host; the API's base URL is used"),
        ("relative/only", "server URL 'relative/only' is relative; the API's base URL is used"),
    ],
)
def test_an_unusable_operation_server_is_a_warning_and_the_api_base_url_is_used(
    url: str, message: str
) -> None:
    default = [{"url": "https://api.test"}] if url == "https://" else None  # no servers at all
    model, diagnostics = mapped(
        spec(default, **{"/a": {"get": {"operationId": "op", "servers": [{"url": url}], **OK}}})
    )
    assert own_urls(model) == {"op": None}
    warnings = [(d.pointer, d.message) for d in diagnostics if d.level == "warning"]
    assert warnings == [("#/paths/~1a/get/servers/0", message)]


def test_a_variable_without_a_default_is_a_warning_naming_the_option() -> None:
    _, diagnostics = mapped(spec([{"url": "https://{tenant}.api.test"}]))
    assert [(d.level.value, d.pointer, d.message) for d in diagnostics] == [
        (
            "warning",
            "#/servers/0",
            "server variable 'tenant' has no default: give one with --server-var tenant=VALUE",
        )
    ]
    model, diagnostics = mapped(spec([{"url": "https://{tenant}.api.test"}]), tenant="acme")
    assert model.default_base_url == "https://acme.api.test" and list(diagnostics) == []


def test_an_override_of_an_unknown_variable_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(
        ServerVariableError,
        match=r"--server-var zone: no server URL has that variable \(it has: region, version\)",
    ):
        check_overrides(spec([REGIONAL]), {"zone": "x"})


def test_an_override_outside_the_variables_enum_is_refused() -> None:
    with pytest.raises(ServerVariableError, match="--server-var region=ap: the spec allows only us, eu"):
        check_overrides(spec([REGIONAL]), {"region": "ap"})
    check_overrides(spec([REGIONAL]), {"region": "eu"})


def test_an_operation_servers_variable_can_be_overridden() -> None:
    op = {"servers": [{"url": "https://{bucket}.files.test"}], **OK}
    check_overrides(spec([{"url": "https://api.test"}], **{"/a": {"get": op}}), {"bucket": "b1"})


@pytest.mark.parametrize(
    ("url", "default"),
    [("/api/v2/", "/api/v2"), ("/api/v2", "/api/v2"), ("api/v2", "/api/v2"), ("/", "/")],
)
def test_a_relative_default_server_is_a_path_joined_at_run_time_and_said_so(url: str, default: str) -> None:
    model, diagnostics = mapped(spec([{"url": url}]))
    assert model.default_base_url == default
    shown = "" if default == "/" else default
    assert [(d.level.value, d.pointer, d.message) for d in diagnostics] == [
        (
            "info",
            "#/servers/0",
            f"server URL {url!r} is relative: at run time it is joined to the base URL set"
            f" (the service's origin https://host gives https://host{shown}/...)",
        )
    ]


def test_a_scheme_relative_default_server_takes_https() -> None:
    assert mapped(spec([{"url": "//api.test/v1"}]))[0].default_base_url == "https://api.test/v1"


def test_relative_operation_servers_under_a_relative_default_stay_paths_for_the_run_time() -> None:
    paths = {
        "/a": {"get": {"operationId": "rooted", "servers": [{"url": "/files/"}], **OK}},
        "/b": {"get": {"operationId": "under", "servers": [{"url": "v3"}], **OK}},
        "/c": {"get": {"operationId": "same", "servers": [{"url": "/api/v2/"}], **OK}},
        "/d": {"servers": [{"url": "https://files.test/x"}], "get": {"operationId": "absolute", **OK}},
    }
    model, diagnostics = mapped(spec([{"url": "/api/v2"}], **paths))
    assert own_urls(model) == {
        "rooted": "/files",
        "under": "/api/v2/v3",
        "same": None,
        "absolute": "https://files.test/x",
    }
    assert [d.level.value for d in diagnostics] == ["info"]
