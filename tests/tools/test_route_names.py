"""Names for operations whose operationId no person chose (`openapi2mcp.tools.route_names`), how ties
between them are broken (`naming.choose_tool_names`), and one argument name per parameter, on the
operations of Jupyter Server's REST API (`jupyter_server.yaml`, none has an operationId)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.model import ApiModel, GeneratorOptions
from openapi2mcp.pipeline import generate
from openapi2mcp.tools.mapper import map_document
from openapi2mcp.tools.naming import NameChoice, choose_tool_names, short_hash
from openapi2mcp.tools.route_names import fastapi_route_name, route_name

JUPYTER = Path(__file__).with_name("jupyter_server.yaml")
OPTIONS = GeneratorOptions(dist_name="j", env_prefix="J")
PORTABLE = re.compile(r"[A-Za-z0-9_-]{1,64}")
OK = {"200": {"description": "ok"}}

JUPYTER_NAMES = [
    ("GET /api/", "get_api"),
    ("GET /api/contents/{path}", "get_contents"),
    ("PUT /api/contents/{path}", "replace_contents"),
    ("POST /api/contents/{path}", "create_contents"),
    ("DELETE /api/contents/{path}", "delete_contents"),
    ("PATCH /api/contents/{path}", "update_contents"),
    ("GET /api/contents/{path}/checkpoints", "list_contents_checkpoints"),
    ("POST /api/contents/{path}/checkpoints", "create_contents_checkpoint"),
    # as shallow a route has the name: this one takes its next form
    (
        "POST /api/contents/{path}/checkpoints/{checkpoint_id}",
        "create_contents_checkpoint_by_path_checkpoint_id",
    ),
    ("DELETE /api/contents/{path}/checkpoints/{checkpoint_id}", "delete_contents_checkpoint"),
    ("GET /api/resolvePath", "resolve_path"),
    ("GET /api/sessions/{session}", "get_session"),
    ("DELETE /api/sessions/{session}", "delete_session"),
    ("PATCH /api/sessions/{session}", "update_session"),
    ("GET /api/sessions", "list_sessions"),
    ("POST /api/sessions", "create_session"),
    ("GET /api/kernels", "list_kernels"),
    ("POST /api/kernels", "create_kernel"),
    ("GET /api/kernels/{kernel_id}", "get_kernel"),
    ("DELETE /api/kernels/{kernel_id}", "delete_kernel"),
    ("POST /api/kernels/{kernel_id}/interrupt", "interrupt_kernel"),
    ("POST /api/kernels/{kernel_id}/restart", "restart_kernel"),
    ("GET /api/kernelspecs", "list_kernelspecs"),
    ("GET /api/config/{section_name}", "get_config"),
    ("PATCH /api/config/{section_name}", "update_config"),
    ("GET /api/terminals", "list_terminals"),
    ("POST /api/terminals", "create_terminal"),
    ("GET /api/terminals/{terminal_id}", "get_terminal"),
    ("DELETE /api/terminals/{terminal_id}", "delete_terminal"),
    ("GET /api/me", "get_me"),
    ("GET /api/status", "get_status"),
    ("GET /api/spec.yaml", "get_spec_yaml"),
]


def jupyter_document() -> dict[str, Any]:
    """The fixture as OAS 3.0, as the pipeline loads it."""
    return copy.deepcopy(generate(str(JUPYTER), OPTIONS).document)


def named(document: dict[str, Any]) -> ApiModel:
    return map_document(copy.deepcopy(document), OPTIONS, Diagnostics())


def routes(model: ApiModel) -> dict[str, str]:
    return {f"{tool.method} {tool.path}": tool.name for tool in model.tools}


# ---------------------------------------------------------------------------------------------
# Jupyter Server


def test_jupyter_servers_operations_get_a_verb_and_their_resource() -> None:
    model = generate(str(JUPYTER), OPTIONS).model
    assert [(f"{tool.method} {tool.path}", tool.name) for tool in model.tools] == JUPYTER_NAMES


def test_the_path_parameter_path_is_the_argument_path_in_every_tool_and_the_bodys_path_moves() -> None:
    tools = {tool.name: tool for tool in generate(str(JUPYTER), OPTIONS).model.tools}
    for name in ("get_contents", "replace_contents", "update_contents", "delete_contents"):
        first = tools[name].parameters[0]
        assert (first.argument, first.name, first.location) == ("path", "path", "path")
    for name in ("replace_contents", "update_contents"):
        body = tools[name].body
        assert body is not None
        assert [(field.argument, field.name) for field in body.fields if field.name == "path"] == [
            ("path_body", "path")
        ]
        assert tools[name].input_schema["properties"]["path_body"] == {
            "type": "string",
            "description": "Sent as `path` in the request body; the argument `path` is the path parameter."
            " The new path",
        }
    assert list(tools["update_contents"].input_schema["properties"]) == ["path", "path_body"]
    assert tools["update_contents"].input_schema["required"] == ["path"]


def test_adding_an_operation_renames_no_other_tool() -> None:
    document = jupyter_document()
    before = routes(named(document))
    document["paths"]["/api/events"] = {"get": {"responses": OK}}
    document["paths"]["/api/kernels/{kernel_id}/channels"] = {
        "parameters": [{"name": "kernel_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "get": {"responses": OK},
    }
    after = routes(named(document))
    assert {route: after[route] for route in before} == before
    assert (after["GET /api/events"], after["GET /api/kernels/{kernel_id}/channels"]) == (
        "list_events",
        "list_kernel_channels",
    )


def test_a_deeper_route_that_would_share_a_name_takes_its_next_form_and_renames_nothing() -> None:
    document = jupyter_document()
    before = routes(named(document))
    document["paths"]["/api/v2/kernels"] = {"get": {"responses": OK}}
    after = routes(named(document))
    assert {route: after[route] for route in before} == before
    assert after["GET /api/v2/kernels"] == "list_kernels_api_v2"


def test_names_do_not_depend_on_the_order_of_the_spec() -> None:
    document = jupyter_document()
    backward = {**document, "paths": dict(reversed(list(document["paths"].items())))}
    assert routes(named(backward)) == routes(named(document))


# ---------------------------------------------------------------------------------------------
# route_name


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("get", "/pets", "list_pets"),
        ("post", "/pets", "create_pet"),
        ("get", "/pets/{petId}", "get_pet"),
        ("put", "/pets/{petId}", "replace_pet"),
        ("patch", "/pets/{petId}", "update_pet"),
        ("delete", "/pets/{petId}", "delete_pet"),
        ("head", "/pets/{petId}", "head_pet"),
        ("get", "/policies/{id}/entries", "list_policy_entries"),
        ("post", "/addresses", "create_address"),
        ("get", "/status", "get_status"),  # not a plural
        ("get", "/sms", "get_sms"),  # three letters: not taken for a plural
        ("get", "/V1/carts/{cartId}/billing-address", "get_cart_billing_address"),
        ("get", "/rest/v2.1/giftCards/{code}", "get_gift_card"),
        ("post", "/carts/{cartId}/estimate-shipping-methods", "estimate_cart_shipping_methods"),
        ("post", "/person/register", "register_person"),
        ("get", "/users/search", "search_users"),
        ("post", "/v1/{name}:cancel", "cancel"),  # Google's custom method
        ("post", "/v1/operations/{name}:cancel", "cancel_operation"),
        ("get", "/", "get_root"),
        ("get", "/api", "get_api"),
        ("get", "/request?view=collection", "get_request_view_collection"),
        ("get", "/weather?city={city}", "get_weather"),
        ("post", "/#Action=AssumeRole", "create_root_action_assume_role"),
        ("get", "/users/日本", "get_users"),  # a segment without ASCII words adds none
        ("options", "/pets", "options_pets"),
    ],
)
def test_a_route_reads_as_a_verb_and_its_resource(method: str, path: str, expected: str) -> None:
    assert route_name(method, path).names[0] == expected


def test_the_longer_forms_add_the_path_parameters_then_the_prefix_and_depth_counts_segments() -> None:
    name = route_name("post", "/api/contents/{path}/checkpoints/{checkpoint_id}")
    assert name.names == (
        "create_contents_checkpoint",
        "create_contents_checkpoint_by_path_checkpoint_id",
        "create_contents_checkpoint_by_path_checkpoint_id_api",
    )
    assert name.depth == 5
    assert route_name("get", "/request?view=collection").depth == 2


# ---------------------------------------------------------------------------------------------
# FastAPI's default operationIds


@pytest.mark.parametrize(
    ("operation_id", "method", "path", "expected"),
    [
        ("create_variable_variables__post", "post", "/variables/", "create_variable"),
        ("read_item_items__item_id__get", "get", "/items/{item_id}", "read_item"),
        ("read_root__get", "get", "/", "read_root"),
        ("get_file_files__file_path__get", "get", "/files/{file_path}", "get_file"),
        ("read_item_items__item_id__get", "put", "/items/{item_id}", None),  # another method
        ("read_item_items__id__get", "get", "/items/{item_id}", None),  # another path
        ("readItem", "get", "/items/{item_id}", None),
        ("_items__item_id__get", "get", "/items/{item_id}", None),  # no route name
    ],
)
def test_fastapis_default_operation_id_is_recognized_exactly(
    operation_id: str, method: str, path: str, expected: str | None
) -> None:
    assert fastapi_route_name(operation_id, method, path) == expected


def fastapi_spec(*operations: tuple[str, str, str]) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for path, method, operation_id in operations:
        paths.setdefault(path, {})[method] = {"operationId": operation_id, "responses": OK}
    return {"openapi": "3.1.0", "info": {"title": "F", "version": "1"}, "paths": paths}


def test_a_fastapi_operation_id_reads_as_its_route_name_where_that_stays_unique() -> None:
    document = fastapi_spec(
        ("/items/", "get", "read_items_items__get"),
        ("/v2/items/", "get", "read_items_v2_items__get"),  # deeper: keeps its whole operationId
        ("/a/x", "get", "same_a_x_get"),
        ("/b/x", "get", "same_b_x_get"),  # as deep as /a/x: both keep their operationIds
        ("/users/", "post", "createUser"),  # a person's
        ("/teams/", "post", "createUser_teams__post"),  # gives way to the person's name
    )
    assert [tool.name for tool in named(document).tools] == [
        "read_items",
        "read_items_v2_items__get",
        "same_a_x_get",
        "same_b_x_get",
        "createUser",
        "createUser_teams__post",
    ]


# ---------------------------------------------------------------------------------------------
# choose_tool_names


def derived(identity: str, *names: str, depth: int = 1) -> NameChoice:
    return NameChoice(names, identity, derived=True, depth=depth)


def test_of_derived_names_alike_the_shallowest_keeps_it_and_the_others_take_their_next_form() -> None:
    choices = [
        derived("GET /b/{id}", "get_b", "get_b_by_id", depth=2),
        derived("GET /b", "get_b", depth=1),
        NameChoice(("other",), "GET /o"),
    ]
    assert choose_tool_names(choices) == ["get_b_by_id", "get_b", "other"]


def test_derived_names_alike_at_the_same_depth_all_take_their_next_form() -> None:
    choices = [derived("GET /v1/x", "list_x", "list_x_v1"), derived("GET /v2/x", "list_x", "list_x_v2")]
    assert choose_tool_names(choices) == ["list_x_v1", "list_x_v2"]


def test_a_derived_name_without_another_form_gets_a_hash_of_its_route() -> None:
    choices = [derived("GET /a", "get_a"), NameChoice(("get_a",), "GET /b")]
    assert choose_tool_names(choices) == [f"get_a_{short_hash('GET /a')}", "get_a"]


def test_the_choice_does_not_depend_on_the_order_and_every_name_is_portable() -> None:
    choices = [
        derived("GET /b/{id}", "get_b", "get_b_by_id", depth=2),
        derived("GET /b", "get_b"),
        derived("GET /v1/x", "list_x", "list_x_v1"),
        derived("GET /v2/x", "list_x", "list_x_v2"),
        NameChoice(("list_x_v1",), "GET /z"),
    ]
    forward = dict(zip((c.identity for c in choices), choose_tool_names(choices), strict=True))
    backward = dict(zip((c.identity for c in choices[::-1]), choose_tool_names(choices[::-1]), strict=True))
    assert forward == backward
    assert len(set(forward.values())) == len(choices)
    assert all(PORTABLE.fullmatch(name) for name in forward.values())
