"""The FastMCP peer of the benchmark, without FastMCP: tool naming, the relaxed requirements, the spec
loading of its server script, and the build measurement driven by a stand-in python."""

from __future__ import annotations

import datetime
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from benchmarks import fastmcp_peer as peer
from benchmarks import fastmcp_server

# fastmcp-slim 4.1.6's Requires-Dist, abridged: base, client, server and one other extra.
SLIM_REQUIRES = [
    "mcp-types<3.0.0,>=2.0.0",
    "pydantic[email]>=2.12.0",
    "anthropic<2,>=0.48.0; extra == 'anthropic'",
    "certifi>=2026.10.19; extra == 'anthropic'",
    "authlib>=1.6.11; extra == 'client'",
    "beartype>=0.23.0rc2; (python_version >= '3.15') and extra == 'client'",
    "httpx2>=2.5.0; extra == 'client'",
    "mcp<3.0.0,>=2.3.0; extra == 'client'",
    "certifi>=2026.10.19; extra == 'server'",
    "httpx2>=2.5.0; extra == 'server'",
    "py-key-value-aio[filetree,memory]<0.5.0,>=0.4.4; extra == 'server'",
    "pyyaml<7.0,>=6.0; extra == 'server'",
]


def tool(name: str, description: str = "") -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {"type": "object"}}


# ---- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "operation_id", "expected"),
    [
        ("get", "/accounts", "accounts-list-accounts", "accounts_list_accounts"),
        ("get", "/api/v1/pods", "listCoreV1PodForAllNamespaces", "listCoreV1PodForAllNamespaces"),
        ("post", "/x", "pets.create  (v2)", "pets_create_v2"),
        ("get", "/x", "getThing__deprecated_alias", "getThing"),
        ("get", "/zones/{zone_id}/dns", None, "GET_zoneszone_iddns"),
        ("get", "/x", "a" * 80, "a" * 56),
    ],
)
def test_base_name_follows_fastmcp(method: str, path: str, operation_id: str | None, expected: str) -> None:
    assert peer.fastmcp_base_name(method, path, operation_id) == expected


def test_tool_name_finds_the_slugged_operation_id() -> None:
    tools = [tool("accounts_list_accounts"), tool("zones_get")]
    assert peer.tool_name(tools, "get", "/accounts", "accounts-list-accounts") == "accounts_list_accounts"


def test_tool_name_of_a_cut_operation_id() -> None:
    operation_id = "readCoreV1NamespacedPersistentVolumeClaimStatusWithAVeryLongTail"
    tools = [tool(operation_id[:56])]
    assert peer.tool_name(tools, "get", "/p", operation_id) == operation_id[:56]


def test_tool_name_is_none_when_absent_or_ambiguous() -> None:
    assert peer.tool_name([tool("other")], "get", "/accounts", "accounts-list") is None
    shared = [tool("listThings"), tool("listThings_2")]  # two operations cut to the same 56 characters
    assert peer.tool_name(shared, "get", "/things", "listThings") is None


def test_tool_name_without_operation_id() -> None:
    tools = [tool("GET_health"), tool("Ping_it", "Executes GET /ping")]
    assert peer.tool_name(tools, "get", "/health", None) == "GET_health"
    assert peer.tool_name(tools, "GET", "/ping", None) == "Ping_it"  # named from a summary it cannot see
    assert peer.tool_name(tools, "get", "/nothing", None) is None


# ---- the venv ------------------------------------------------------------------------------------


def test_requirements_for_client_and_server_with_certifi_relaxed() -> None:
    assert peer.slim_requirements(SLIM_REQUIRES, peer.EXTRAS) == [
        "authlib>=1.6.11",
        "certifi",
        "httpx2>=2.5.0",
        "mcp-types<3.0.0,>=2.0.0",
        "mcp<3.0.0,>=2.3.0",
        "py-key-value-aio[filetree,memory]<0.5.0,>=0.4.4",
        "pydantic[email]>=2.12.0",
        "pyyaml<7.0,>=6.0",
    ]


def test_only_certifi_is_relaxed() -> None:
    assert set(peer.RELAXED) == {"certifi"}
    assert peer.slim_requirements(["certifi>=2026.10.19"], ()) == ["certifi"]


def test_a_stamped_venv_is_reused_without_pip(tmp_path: Path) -> None:
    home = tmp_path / f"fastmcp-{peer.VERSION}"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "python").write_text("")
    (home / peer.STAMP).write_text("fastmcp==4.1.6\n")
    assert peer.fastmcp_python(tmp_path) == home / "bin" / "python"


def write_spec(tmp_path: Path, document: dict[str, Any]) -> Path:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(document))
    return spec


OAS3 = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}}
SWAGGER2 = {
    "swagger": "2.0",
    "info": {"title": "t", "version": "1"},
    "paths": {
        "/pets": {
            "post": {
                "operationId": "addPet",
                "parameters": [{"in": "body", "name": "pet", "schema": {"type": "object"}}],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


def test_server_command_runs_the_script_isolated(tmp_path: Path) -> None:
    python, spec = tmp_path / "venv" / "bin" / "python", write_spec(tmp_path, OAS3)
    command = peer.server_command(python, spec, "http://127.0.0.1:9")
    assert command == [
        str(python),
        "-I",
        str(peer.SERVER_SCRIPT),
        str(spec),
        "--base-url",
        "http://127.0.0.1:9",
    ]
    assert peer.SERVER_SCRIPT.is_file()


def test_swagger2_is_given_to_fastmcp_as_openapi3(tmp_path: Path) -> None:
    python, spec = tmp_path / "venv" / "bin" / "python", write_spec(tmp_path, SWAGGER2)
    served = peer.fastmcp_spec(python, spec)
    assert served == tmp_path / "venv" / "specs" / "spec.openapi3.json"
    document = json.loads(served.read_text())
    assert document["openapi"].startswith("3.")
    assert "requestBody" in document["paths"]["/pets"]["post"]
    assert peer.server_command(python, spec, "http://127.0.0.1:9")[3] == str(served)


# ---- build measurement (a stand-in python) -------------------------------------------------------


def stand_in_python(tmp_path: Path, body: str) -> Path:
    """An executable that replays one line per run from a counter file, instead of FastMCP."""
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\n{body}\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return python


def test_measure_build_takes_medians_of_fresh_processes(tmp_path: Path) -> None:
    lines = tmp_path / "lines"
    lines.write_text(
        "".join(
            json.dumps({"seconds": s, "peak_mib": m, "tools": 3}) + "\n"
            for s, m in [(3, 300), (1, 100), (2, 250)]
        )
    )
    python = stand_in_python(
        tmp_path, f'echo log line; head -n 1 {lines}; sed -i 1d {lines}; echo "$@" >> {tmp_path}/argv'
    )
    spec = write_spec(tmp_path, OAS3)
    assert peer.measure_build(python, spec, runs=3) == (2, 250)
    argv = (tmp_path / "argv").read_text().splitlines()
    assert argv == [f"-I {peer.SERVER_SCRIPT} {spec} --build-only"] * 3


def test_a_failing_build_says_why(tmp_path: Path) -> None:
    python = stand_in_python(tmp_path, "echo 'ModuleNotFoundError: No module named fastmcp' >&2; exit 1")
    with pytest.raises(peer.PeerUnavailable, match="No module named fastmcp"):
        peer.measure_build(python, write_spec(tmp_path, OAS3), runs=1)


# ---- the server script's spec loading ------------------------------------------------------------


def test_yaml_spec_made_json_compatible(tmp_path: Path) -> None:
    spec = tmp_path / "api.yaml"
    spec.write_text(
        "openapi: 3.0.0\ninfo: {title: t, version: 2024-01-31}\n"
        "paths:\n  /x:\n    get:\n      responses:\n        200: {description: ok}\n"
    )
    loaded = fastmcp_server.load_spec(spec)
    assert loaded["info"]["version"] == "2024-01-31"
    assert list(loaded["paths"]["/x"]["get"]["responses"]) == ["200"]
    json.dumps(loaded)


def test_json_spec_and_dates() -> None:
    moment = datetime.datetime(2024, 1, 31, 12, 0)
    assert fastmcp_server.json_compatible({1: [moment, {"d": moment.date()}]}) == {
        "1": ["2024-01-31T12:00:00", {"d": "2024-01-31"}]
    }


def test_not_a_document(tmp_path: Path) -> None:
    spec = tmp_path / "list.json"
    spec.write_text("[1, 2]")
    with pytest.raises(SystemExit, match="not an OpenAPI document"):
        fastmcp_server.load_spec(spec)
