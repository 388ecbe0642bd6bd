"""The MCP Inspector CLI (@modelcontextprotocol/inspector 2.12.0, Node 24) as a second client: its
`--strict` schema-portability lint over every sample spec, and tools/call with its Ajv validation of
structuredContent against the outputSchema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from e2e_support import SPECS, Finished, Generated, NodeTools, Packages, minimal_env, run_tool
from prism_support import Prism, Prisms

pytestmark = pytest.mark.e2e

ALL_SPECS = sorted(p for p in SPECS.iterdir() if p.suffix in (".yaml", ".yml", ".json"))


def inspector(
    tools: NodeTools, package: Generated, env: dict[str, str], options: list[str], home: Path
) -> Finished:
    """`mcp-inspector --cli OPTIONS -e K=V ... -- <server>`; the server only gets the -e variables."""
    variables = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    return run_tool(
        [
            tools.node,
            tools.inspector,
            "--cli",
            *options,
            "--format",
            "json",
            *variables,
            "--",
            package.command,
        ],
        minimal_env({"HOME": str(home)}),  # the CLI creates ~/.mcp-inspector/
        cwd=home,
        timeout=120,
    )


@pytest.mark.parametrize("spec", ALL_SPECS, ids=[p.name for p in ALL_SPECS])
def test_strict_lint_finds_no_error(
    node_tools: NodeTools, packages: Packages, spec: Path, tmp_path: Path
) -> None:
    package: Generated = packages.get(spec)
    done = inspector(
        node_tools,
        package,
        package.env("http://127.0.0.1:9"),
        ["--method", "tools/list", "--strict"],
        tmp_path,
    )
    assert done.returncode == 0, str(done)
    output = json.loads(done.stdout)
    listed = [tool["name"] for tool in output["result"]["tools"]]
    assert listed == [tool["name"] for tool in package.tool_data["tools"]], listed
    errors = [
        {"tool": group["toolName"], **finding}
        for group in output.get("schemaFindings", [])
        for finding in group["findings"]
        if finding["severity"] == "error"
    ]
    assert not errors, json.dumps(errors, indent=1)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [("listPets", {"limit": 2, "tags": ["cat"]}), ("showPetById", {"petId": "rex-1"})],
)
def test_tools_call_output_validates(
    node_tools: NodeTools,
    packages: Packages,
    prisms: Prisms,
    tool: str,
    arguments: dict[str, Any],
    tmp_path: Path,
) -> None:
    package: Generated = packages.get("petstore.yaml")
    prism: Prism = prisms.get("petstore.yaml")
    mark = prism.mark()
    done = inspector(
        node_tools,
        package,
        package.env(prism.base_url, API_KEY_KEY="e2e-inspector-key"),
        ["--method", "tools/call", "--tool-name", tool, "--tool-args-json", json.dumps(arguments)],
        tmp_path,
    )
    assert done.returncode == 0, str(done)
    result = json.loads(done.stdout)["result"]
    assert result.get("isError") is False and result["structuredContent"], str(done)
    (request,) = prism.wait_for_requests(mark, 1)
    assert not request.violations, str(request)
