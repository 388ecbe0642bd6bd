"""The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, Node 24) against a
generated server on streamable HTTP, its upstream Prism serving the same spec (specs/conformance.yaml:
operationIds test_simple_text, test_error_handling, json_schema_2020_12_tool)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_support import Finished, Generated, NodeTools, Packages, minimal_env, run_tool
from http_support import HttpServer
from prism_support import Prism, Prisms

pytestmark = pytest.mark.e2e


SCENARIOS = [
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
    "logging-set-level",
    "tools-call-simple-text",
    "tools-call-error",
    "json-schema-2020-12",  # (pending suite: runs only when named)
]
# Notifications sent while a call runs reach an HTTP client only in SSE answers (`--sse`).
SSE_SCENARIOS = ["tools-call-with-progress", "tools-call-with-logging"]


@pytest.fixture(scope="module")
def conformance_servers(
    packages: Packages, prisms: Prisms, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, HttpServer]]:
    """The generated servers by kind, each started when a test first needs it, then serving every
    scenario of its kind until the end of the module: "json" answers in JSON bodies (the default),
    "sse" in SSE streams (`--sse`), "exact" in JSON bodies, listing schemas exact
    (PREFIX_LISTED_SCHEMAS)."""
    package: Generated = packages.get("conformance.yaml")
    prism: Prism = prisms.get("conformance.yaml")
    started: list[HttpServer] = []

    class Servers(dict[str, HttpServer]):
        def __missing__(self, kind: str) -> HttpServer:
            log = tmp_path_factory.mktemp(f"conformance-server-{kind}") / "server.log"
            args = ["--sse"] if kind == "sse" else []
            listed = {"LISTED_SCHEMAS": "exact"} if kind == "exact" else {}
            started.append(HttpServer(package, package.env(prism.base_url, **listed), log, args=args))
            self[kind] = started[-1].start()
            return self[kind]

    try:
        yield Servers()
    finally:
        for server in started:
            server.stop()


@pytest.fixture
def conformance_server(
    request: pytest.FixtureRequest, conformance_servers: dict[str, HttpServer]
) -> HttpServer:
    """The running server of the test's kind (its parameter). (Module-scoped and parametrized beside
    `scenario`, a fixture takes the tests' scope: it would start a server for every test.)"""
    return conformance_servers[request.param]


def checks_of(done: Finished) -> list[dict[str, Any]]:
    """The checks `--verbose` prints as a JSON array after its first line."""
    start = done.stdout.find("\n[")
    assert start >= 0, f"no JSON checks in the output:\n{done}"
    checks, _ = json.JSONDecoder().raw_decode(done.stdout, start + 1)
    assert isinstance(checks, list), str(done)
    return checks


# By default the listed inputSchemas leave `additionalProperties: false` out (google-genai's
# converter cannot read a boolean and failed on every tool: docs/clients.md); the runtime still
# refuses unknown arguments. This scenario's check "json-schema-2020-12-additionalProperties" wants
# the field listed: it passes with PREFIX_LISTED_SCHEMAS=exact (the "exact" server), and fails with
# the default, which chooses google-genai.
PORTABLE = pytest.mark.xfail(
    strict=True,
    reason="by default listed schemas omit additionalProperties: false (docs/clients.md)",
)
LISTED_FORM_SCENARIO = "json-schema-2020-12"


def _case(transport: str, scenario: str) -> Any:
    marks = [PORTABLE] if scenario == LISTED_FORM_SCENARIO else []
    return pytest.param(transport, scenario, marks=marks)


@pytest.mark.parametrize(
    ("conformance_server", "scenario"),
    [_case("json", scenario) for scenario in SCENARIOS]
    + [_case("sse", s) for s in SCENARIOS + SSE_SCENARIOS]
    + [pytest.param("exact", s) for s in ("tools-list", LISTED_FORM_SCENARIO)],
    indirect=["conformance_server"],
)
def test_conformance_scenario(
    node_tools: NodeTools, conformance_server: HttpServer, scenario: str, tmp_path: Path
) -> None:
    done = run_tool(
        [
            node_tools.node,
            node_tools.conformance,
            "server",
            "--url",
            conformance_server.url,
            "--scenario",
            scenario,
            "--verbose",
        ],
        minimal_env({"HOME": str(tmp_path)}),
        cwd=tmp_path,  # (nothing is written without -o; never into the repository either way)
        timeout=120,
    )
    checks = checks_of(done)
    by_status: dict[str, list[str]] = {}
    for check in checks:
        by_status.setdefault(check["status"], []).append(check["id"])
    failures = [c for c in checks if c["status"] == "FAILURE"]
    report = "\n".join(f"{c['id']}: {c.get('errorMessage', '')}" for c in failures)
    assert not failures, f"{scenario}: failed checks:\n{report}\n\n{done}"
    assert done.returncode == 0, str(done)
    assert by_status.get("SUCCESS"), f"{scenario}: no check passed: {by_status}\n{done}"
    assert not by_status.get("WARNING"), f"{scenario}: warnings {by_status['WARNING']}\n{done}"
