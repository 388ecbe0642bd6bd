"""`generate --bundle` end to end: the official MCPB CLI validates the manifest and packs the
package, and the packed server, started as its manifest says (as Claude Desktop would: the
bundle's directory for `${__dirname}`, user_config values or their defaults), lists its tools."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from e2e_support import NPM_MODULES, REPO, NodeTools, generator_command
from mcp_support import run_async, stdio_session
from venv_support import ServerVenv

pytestmark = pytest.mark.e2e

PETSTORE = REPO / "specs" / "petstore.yaml"
CLI_TIMEOUT = 120


def mcpb(node_tools: NodeTools, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cli = NPM_MODULES / "@anthropic-ai" / "mcpb" / "dist" / "cli" / "cli.js"
    return subprocess.run(
        [str(node_tools.node), str(cli), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )


def with_mcpb_on_path(node_tools: NodeTools) -> dict[str, str]:
    """Our environment with the mcpb shim (and Node 24 for its `env node`) first on PATH."""
    path = os.pathsep.join([str(NPM_MODULES / ".bin"), str(node_tools.node.parent), os.environ["PATH"]])
    return {**os.environ, "PATH": path}


def substitute(value: Any, variables: dict[str, str]) -> Any:
    """MCPB's `${NAME}` substitution, for the strings of the mcp_config."""
    if isinstance(value, str):
        return re.sub(r"\$\{([^}]+)\}", lambda match: variables[match.group(1)], value)
    if isinstance(value, list):
        return [substitute(item, variables) for item in value]
    return {key: substitute(item, variables) for key, item in value.items()}


def test_the_packed_bundle_validates_and_its_server_lists_the_tools(
    node_tools: NodeTools, server_venv: ServerVenv, tmp_path: Path
) -> None:
    out = tmp_path / "petstore-mcp"
    generated = subprocess.run(
        [*generator_command(), "generate", str(PETSTORE), "-o", str(out), "--name", "petstore", "--bundle"],
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
        env=with_mcpb_on_path(node_tools),
    )
    assert generated.returncode == 0, generated.stderr
    bundle = out / "petstore.mcpb"
    assert generated.stderr.splitlines()[-1] == f"{out}: bundle packed: {bundle}"

    validated = mcpb(node_tools, "validate", "manifest.json", cwd=out)
    assert validated.returncode == 0 and "Manifest schema validation passes!" in validated.stdout, validated

    unpacked = tmp_path / "installed"
    assert mcpb(node_tools, "unpack", str(bundle), str(unpacked), cwd=tmp_path).returncode == 0
    files = sorted(str(path.relative_to(unpacked)) for path in unpacked.rglob("*") if path.is_file())
    assert {"manifest.json", "petstore/server.py", "petstore/data/tool_data.json"} <= set(files)
    assert not [name for name in files if name.startswith(".") or "__pycache__" in name]

    manifest = json.loads((unpacked / "manifest.json").read_text("utf-8"))
    values = {
        f"user_config.{key}": entry.get("default", "") for key, entry in manifest["user_config"].items()
    }
    values = {key: str(value).lower() if isinstance(value, bool) else value for key, value in values.items()}
    values["user_config.petstore_api_key_key"] = "k-123456"
    config = substitute(manifest["server"]["mcp_config"], {**values, "__dirname": str(unpacked)})
    command = shutil.which(config["command"], path=str(server_venv.python.parent))
    assert command is not None, f"{config['command']} is not in {server_venv.python.parent}"
    assert config["env"]["PETSTORE_API_KEY_KEY"] == "k-123456"

    async def listed() -> list[str]:
        async with stdio_session(command, config["args"], config["env"], cwd=tmp_path) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    assert run_async(listed) == [tool["name"] for tool in manifest["tools"]]
