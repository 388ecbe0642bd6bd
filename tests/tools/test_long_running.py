"""Long-running operations (tools/long_running.py, issue 30): each rule that makes an operation
long-running (Azure's extension, a 202 with a status header, `x-mcp.task`, the config's `task`), what
is recorded (source, final-state-via, the cancelling tool's name), the warnings for bad values, the
wire tool's `execution` and the route's `longRunning`, a Swagger 2.0 spec, and the corpus's Azure
LRO spec."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpus_specs import CORPUS_MISSING, CORPUS_SPECS

from openapi2mcp.diagnostics import Diagnostics, Level
from openapi2mcp.emit.tool_data import list_bytes, tool_data
from openapi2mcp.fit.budget import _sized, _Totals
from openapi2mcp.fit.sizes import Sizer
from openapi2mcp.model import GeneratorOptions, Icon, LongRunning, SizeLimits, TaskChoice, Tool, ToolOverride
from openapi2mcp.pipeline import generate
from openapi2mcp.tools.mapper import map_document

OK = {"200": {"description": "ok"}}
POST = "#/paths/~1reports/post"  # the pointer of the operation under test
AZURE_LRO = CORPUS_SPECS / "azure-lro.json"
Found = list[tuple[Level, str, str]]


def spec(post: dict[str, Any] | None = None, **components: Any) -> dict[str, Any]:
    """POST /reports (createReport, with `post` merged in), GET and DELETE /reports/{id}."""
    identifier = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Reports", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/reports": {"post": {"operationId": "createReport", "responses": OK, **(post or {})}},
            "/reports/{id}": {
                "parameters": [identifier],
                "get": {"operationId": "getReport", "responses": OK},
                "delete": {"operationId": "cancelReport", "responses": {"204": {"description": "gone"}}},
            },
        },
        **({"components": components} if components else {}),
    }


def run(document: dict[str, Any], *overrides: ToolOverride, **options: Any) -> tuple[dict[str, Tool], Found]:
    diagnostics = Diagnostics()
    chosen = GeneratorOptions(dist_name="reports", env_prefix="R", overrides=overrides, **options)
    model = map_document(document, chosen, diagnostics)
    return {tool.name: tool for tool in model.tools}, [(d.level, d.pointer, d.message) for d in diagnostics]


def created(post: dict[str, Any], *overrides: ToolOverride, found: Found | None = None) -> LongRunning | None:
    """createReport's `long_running`, with no diagnostics (or exactly `found`)."""
    tools, diagnostics = run(spec(post), *overrides)
    assert diagnostics == (found or [])
    return tools["createReport"].long_running


def accepted(*headers: str) -> dict[str, Any]:
    """A `202` response declaring `headers`."""
    declared = {name: {"schema": {"type": "string"}} for name in headers}
    return {"responses": {"202": {"description": "accepted", "headers": declared}}}


# ---------------------------------------------------------------------------------------------
# x-ms-long-running-operation


def test_the_azure_extension_makes_an_operation_long_running() -> None:
    lro = created({"x-ms-long-running-operation": True})
    assert lro == LongRunning("x-ms-long-running-operation", None, None)


def test_the_azure_extension_false_is_not_long_running() -> None:
    assert created({"x-ms-long-running-operation": False}) is None


def test_a_non_boolean_azure_extension_is_a_warning_and_ignored() -> None:
    found = [
        (
            Level.WARNING,
            f"{POST}/x-ms-long-running-operation",
            "x-ms-long-running-operation must be true or false; ignored",
        )
    ]
    assert created({"x-ms-long-running-operation": "true"}, found=found) is None
    # the other rules still apply
    assert created({"x-ms-long-running-operation": 1, **accepted("Location")}, found=found) == LongRunning(
        "202 response header"
    )


@pytest.mark.parametrize("via", ["location", "azure-async-operation", "original-uri", "operation-location"])
def test_final_state_via_is_recorded(via: str) -> None:
    options = {"x-ms-long-running-operation-options": {"final-state-via": via}}
    assert created({"x-ms-long-running-operation": True, **options}) == LongRunning(
        "x-ms-long-running-operation", via
    )


def test_a_bad_final_state_via_is_a_warning_and_none() -> None:
    pointer = f"{POST}/x-ms-long-running-operation-options"
    bad = {
        "x-ms-long-running-operation": True,
        "x-ms-long-running-operation-options": {"final-state-via": "Body"},
    }
    found = [
        (
            Level.WARNING,
            f"{pointer}/final-state-via",
            "final-state-via 'Body' is not one of location, azure-async-operation, original-uri, "
            "operation-location; ignored",
        )
    ]
    assert created(bad, found=found) == LongRunning("x-ms-long-running-operation")
    not_an_object = {"x-ms-long-running-operation": True, "x-ms-long-running-operation-options": "location"}
    found = [(Level.WARNING, pointer, "x-ms-long-running-operation-options must be an object; ignored")]
    assert created(not_an_object, found=found) == LongRunning("x-ms-long-running-operation")


def test_the_options_of_an_operation_that_is_not_long_running_are_not_read() -> None:
    assert created({"x-ms-long-running-operation-options": {"final-state-via": "nowhere"}}) is None


# ---------------------------------------------------------------------------------------------
# A 202 response with a status header


@pytest.mark.parametrize(
    "header",
    [
        "Location",
        "location",
        "Operation-Location",
        "OPERATION-LOCATION",
        "Azure-AsyncOperation",
        "azure-asyncoperation",
    ],
)
def test_a_202_that_declares_a_status_header_in_any_case_is_long_running(header: str) -> None:
    assert created(accepted("Retry-After", header)) == LongRunning("202 response header")


@pytest.mark.parametrize(
    "post",
    [
        accepted(),
        accepted("Retry-After", "X-Location"),
        {"responses": {"202": {"description": "accepted"}}},
        {"responses": {"201": {"description": "created", "headers": {"Location": {"schema": {}}}}}},
    ],
)
def test_a_202_without_a_status_header_or_another_code_with_one_is_not_long_running(
    post: dict[str, Any],
) -> None:
    assert created(post) is None


def test_a_202_given_by_reference_is_read_through_it() -> None:
    accepted_response = accepted("Operation-Location")["responses"]["202"]
    document = spec({"responses": {"202": {"$ref": "#/components/responses/Accepted"}}}, responses={})
    document["components"]["responses"]["Accepted"] = accepted_response
    tools, diagnostics = run(document)
    assert diagnostics == []
    assert tools["createReport"].long_running == LongRunning("202 response header")


def test_a_202_whose_reference_is_broken_is_not_long_running_and_the_tool_stays() -> None:
    tools, diagnostics = run(spec({"responses": {"202": {"$ref": "#/components/responses/Nowhere"}}}))
    assert tools["createReport"].long_running is None
    assert [level for level, _, _ in diagnostics] == [Level.WARNING]  # outputs.py's, for the response


# ---------------------------------------------------------------------------------------------
# x-mcp task


def test_x_mcp_task_true_makes_an_operation_long_running() -> None:
    assert created({"x-mcp": {"task": True}}) == LongRunning("x-mcp")


def test_x_mcp_task_false_turns_every_rule_off() -> None:
    both = {"x-ms-long-running-operation": True, **accepted("Location")}
    assert created({"x-mcp": {"task": False}, **both}) is None


def test_x_mcp_task_wins_over_the_azure_extension_as_the_source() -> None:
    lro = {"x-mcp": {"task": True}, "x-ms-long-running-operation": True, **accepted("Location")}
    assert created(lro) == LongRunning("x-mcp")


def test_x_mcp_task_with_cancel_names_the_cancelling_tool() -> None:
    assert created({"x-mcp": {"task": {"cancel": "cancelReport"}}}) == LongRunning(
        "x-mcp", None, "cancelReport"
    )
    assert created({"x-mcp": {"task": {}}}) == LongRunning("x-mcp")


def test_a_bad_x_mcp_task_is_a_warning_and_the_other_rules_decide() -> None:
    found = [
        (
            Level.WARNING,
            f"{POST}/x-mcp/task",
            "x-mcp task must be true, false or {cancel: OPERATION} (an operationId or 'METHOD /path'); "
            "ignored",
        )
    ]
    assert created({"x-mcp": {"task": "yes"}}, found=found) is None
    lro = {"x-mcp": {"task": "yes"}, "x-ms-long-running-operation": True}
    assert created(lro, found=found) == LongRunning("x-ms-long-running-operation")


def test_a_cancel_that_is_not_a_string_is_a_warning_and_the_tool_stays_long_running() -> None:
    message = (
        "x-mcp task cancel must be an operationId or 'METHOD /path' (a non-empty string); "
        "the tool is long-running without a cancel"
    )
    for cancel in (3, "  ", ["cancelReport"]):
        found = [(Level.WARNING, f"{POST}/x-mcp/task/cancel", message)]
        assert created({"x-mcp": {"task": {"cancel": cancel}}}, found=found) == LongRunning("x-mcp")


def test_an_unknown_key_of_x_mcp_task_is_a_warning() -> None:
    found = [
        (Level.WARNING, f"{POST}/x-mcp/task/cancle", "unknown key of x-mcp task (known: cancel); ignored")
    ]
    assert created({"x-mcp": {"task": {"cancle": "cancelReport"}}}, found=found) == LongRunning("x-mcp")


# ---------------------------------------------------------------------------------------------
# The config file's task


def test_the_config_task_makes_an_operation_long_running_or_not() -> None:
    assert created({}, ToolOverride("POST /reports", task=TaskChoice(True))) == LongRunning("config")
    lro = {"x-ms-long-running-operation": True, **accepted("Location")}
    assert created(lro, ToolOverride("createReport", task=TaskChoice(False))) is None


def test_the_config_task_beats_the_spec_x_mcp_task() -> None:
    assert created({"x-mcp": {"task": False}}, ToolOverride("createReport", task=TaskChoice(True))) == (
        LongRunning("config")
    )
    with_cancel = {"x-mcp": {"task": {"cancel": "cancelReport"}}}
    assert created(with_cancel, ToolOverride("createReport", task=TaskChoice(True))) == LongRunning("config")
    assert created({"x-mcp": {"task": True}}, ToolOverride("createReport", task=TaskChoice(False))) is None
    # an override without a task leaves the spec's
    assert created({"x-mcp": {"task": True}}, ToolOverride("createReport", title="Create")) == (
        LongRunning("x-mcp")
    )


def test_the_config_task_cancel_names_the_cancelling_tool() -> None:
    override = ToolOverride("POST /reports", task=TaskChoice(True, "DELETE /reports/{id}"))
    assert created({}, override) == LongRunning("config", None, "cancelReport")


def test_the_later_of_two_overrides_of_one_operation_decides() -> None:
    first = ToolOverride("createReport", task=TaskChoice(True, "cancelReport"))
    assert created({}, first, ToolOverride("POST /reports", task=TaskChoice(False))) is None
    assert created({}, ToolOverride("POST /reports", task=TaskChoice(False)), first) == (
        LongRunning("config", None, "cancelReport")
    )


# ---------------------------------------------------------------------------------------------
# Resolving cancel to a tool name


@pytest.mark.parametrize("reference", ["cancelReport", "DELETE /reports/{id}", "delete /reports/{id}"])
def test_cancel_is_resolved_to_the_tool_name_of_the_operation(reference: str) -> None:
    document = spec({"x-mcp": {"task": {"cancel": reference}}})
    document["paths"]["/reports/{id}"]["delete"]["x-mcp"] = {"name": "stop_report"}
    tools, diagnostics = run(document)
    assert diagnostics == []
    assert tools["createReport"].long_running == LongRunning("x-mcp", None, "stop_report")


def test_cancel_is_resolved_after_unique_naming_and_config_renames() -> None:
    rename = ToolOverride("cancelReport", name="reports_cancel")
    tools, diagnostics = run(spec({"x-mcp": {"task": {"cancel": "cancelReport"}}}), rename, name_style="mcp")
    assert diagnostics == []
    assert tools["createReport"].long_running == LongRunning("x-mcp", None, "reports_cancel")


def test_a_cancel_that_names_no_operation_is_a_warning() -> None:
    found = [
        (
            Level.WARNING,
            f"{POST}/x-mcp/task/cancel",
            "x-mcp task cancel 'cancelReprot' names no operation (give an operationId or 'METHOD /path' as "
            "the spec writes them); the tool is long-running without a cancel",
        )
    ]
    assert created({"x-mcp": {"task": {"cancel": "cancelReprot"}}}, found=found) == LongRunning("x-mcp")
    found = [
        (
            Level.WARNING,
            POST,
            "override task cancel 'PUT /reports/{id}' names no operation (give an operationId or "
            "'METHOD /path' as the spec writes them); the tool is long-running without a cancel",
        )
    ]
    override = ToolOverride("createReport", task=TaskChoice(True, "PUT /reports/{id}"))
    assert created({}, override, found=found) == LongRunning("config")


def test_a_cancel_that_names_an_operation_without_a_tool_is_a_warning() -> None:
    message = (
        "x-mcp task cancel 'cancelReport' names an operation that has no tool (left out by x-mcp: false, "
        "the selectors or an error); the tool is long-running without a cancel"
    )
    document = spec({"x-mcp": {"task": {"cancel": "cancelReport"}}})
    tools, diagnostics = run(document, exclude=("method:delete",))
    assert tools["createReport"].long_running == LongRunning("x-mcp")
    assert (Level.WARNING, f"{POST}/x-mcp/task/cancel", message) in diagnostics
    document["paths"]["/reports/{id}"]["delete"]["x-mcp"] = False
    tools, diagnostics = run(document)
    assert tools["createReport"].long_running == LongRunning("x-mcp")
    assert diagnostics == [
        (Level.INFO, "#/paths/~1reports~1{id}/delete", "x-mcp: false: left out"),
        (Level.WARNING, f"{POST}/x-mcp/task/cancel", message),
    ]


# ---------------------------------------------------------------------------------------------
# What is sent and written


def test_the_wire_tool_has_execution_after_annotations_and_before_icons_and_meta() -> None:
    tools, _ = run(spec({"x-mcp": {"task": True}}), icons=(Icon("https://example.com/logo.png"),))
    wire = tools["createReport"].wire()
    assert list(wire) == [
        "name", "title", "description", "inputSchema", "annotations", "execution", "icons", "_meta",
    ]  # fmt: skip
    assert wire["execution"] == {"taskSupport": "optional"}
    assert "execution" not in tools["getReport"].wire()


def test_the_route_records_long_running_for_a_long_running_tool_only() -> None:
    lro = {
        "x-ms-long-running-operation": True,
        "x-ms-long-running-operation-options": {"final-state-via": "azure-async-operation"},
        "x-mcp": {"task": {"cancel": "cancelReport"}},
    }
    options = GeneratorOptions(dist_name="reports", env_prefix="R")
    model = map_document(spec(lro), options, Diagnostics())
    data = tool_data(model, options, "openapi2mcp test")
    assert data["routes"]["createReport"]["longRunning"] == {
        "source": "x-mcp",
        "finalStateVia": "azure-async-operation",
        "cancel": "cancelReport",
    }
    assert list(data["routes"]["createReport"])[-4:] == ["toolset", "longRunning", "closed", "listBytes"]
    assert "longRunning" not in data["routes"]["getReport"]
    assert data["tools"][0]["execution"] == {"taskSupport": "optional"}
    assert data["routes"]["createReport"]["listBytes"] == list_bytes(data["tools"][0])


def test_the_measured_tools_list_counts_execution() -> None:
    document = spec({"x-mcp": {"task": True}})
    model = map_document(document, GeneratorOptions(dist_name="reports", env_prefix="R"), Diagnostics())
    sized = [_sized(tool, SizeLimits(), Sizer()) for tool in model.tools]
    wires = [tool.wire() for tool in model.tools]
    assert _Totals.of(sized)(0, 0) == len(json.dumps({"tools": wires}, separators=(",", ":")).encode())


# ---------------------------------------------------------------------------------------------
# Swagger 2.0 and the corpus


SWAGGER = {
    "swagger": "2.0",
    "info": {"title": "Jobs", "version": "1"},
    "host": "jobs.example.com",
    "paths": {
        "/jobs": {
            "put": {
                "operationId": "Jobs_Create",
                "x-ms-long-running-operation": True,
                "x-ms-long-running-operation-options": {"final-state-via": "original-uri"},
                "responses": {"200": {"description": "done"}, "201": {"description": "started"}},
            },
            "post": {
                "operationId": "Jobs_Start",
                "responses": {"202": {"$ref": "#/responses/Accepted"}},
            },
            "get": {"operationId": "Jobs_List", "responses": {"200": {"description": "ok"}}},
            "delete": {
                "operationId": "Jobs_Stop",
                "x-ms-long-running-operation": True,
                "x-ms-long-running-operation-options": {"final-state-via": "last"},
                "responses": {"202": {"description": "accepted"}},
            },
        }
    },
    "responses": {
        "Accepted": {"description": "accepted", "headers": {"azure-asyncoperation": {"type": "string"}}}
    },
}


def test_a_swagger_2_spec_keeps_the_azure_extension_and_the_202_headers(tmp_path: Path) -> None:
    path = tmp_path / "jobs.json"
    path.write_text(json.dumps(SWAGGER), encoding="utf-8")
    generation = generate(str(path), GeneratorOptions(dist_name="jobs", env_prefix="JOBS"))
    found = {tool.name: tool.long_running for tool in generation.model.tools}
    assert found == {
        "Jobs_List": None,
        "Jobs_Create": LongRunning("x-ms-long-running-operation", "original-uri"),
        "Jobs_Start": LongRunning("202 response header"),
        "Jobs_Stop": LongRunning("x-ms-long-running-operation"),
    }
    warnings = [(d.pointer, d.message) for d in generation.diagnostics if d.level == Level.WARNING]
    assert warnings == [
        (
            "#/paths/~1jobs/delete/x-ms-long-running-operation-options/final-state-via",
            "final-state-via 'last' is not one of location, azure-async-operation, original-uri, "
            "operation-location; ignored",
        )
    ]
    data = json.loads(generation.files["jobs/data/tool_data.json"])
    assert data["routes"]["Jobs_Create"]["longRunning"] == {
        "source": "x-ms-long-running-operation",
        "finalStateVia": "original-uri",
        "cancel": None,
    }
    assert [tool["name"] for tool in data["tools"] if "execution" in tool] == [
        "Jobs_Create",
        "Jobs_Start",
        "Jobs_Stop",
    ]


def expected_long_running(document: dict[str, Any]) -> dict[str, str | None]:
    """`METHOD /path` → final-state-via of every operation the spec itself marks long-running: the
    Azure extension true, or a 202 (through a `#/responses/` reference) declaring a status header."""
    found: dict[str, str | None] = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method == "parameters" or not isinstance(operation, dict):
                continue
            response = operation.get("responses", {}).get("202", {})
            if "$ref" in response:
                response = document["responses"][response["$ref"].split("/")[-1]]
            headers = {name.lower() for name in response.get("headers", {})}
            if operation.get("x-ms-long-running-operation") is True or headers & {
                "location", "operation-location", "azure-asyncoperation"
            }:  # fmt: skip
                options = operation.get("x-ms-long-running-operation-options", {})
                found[f"{method.upper()} {path}"] = options.get("final-state-via")
    return found


@pytest.mark.skipif(not AZURE_LRO.is_file(), reason=CORPUS_MISSING)
def test_the_corpus_azure_lro_spec_marks_exactly_its_long_running_operations() -> None:
    document = json.loads(AZURE_LRO.read_text("utf-8-sig"))
    expected = expected_long_running(document)
    assert len(expected) == 81
    generation = generate(str(AZURE_LRO), GeneratorOptions(dist_name="lro", env_prefix="LRO"))
    found = {
        f"{tool.method} {tool.path}": tool.long_running.final_state_via
        for tool in generation.model.tools
        if tool.long_running is not None
    }
    assert found == expected
    assert {tool.long_running.source for tool in generation.model.tools if tool.long_running} == {
        "x-ms-long-running-operation"
    }
    assert sorted(via for via in found.values() if via) == ["azure-async-operation", "location"]
