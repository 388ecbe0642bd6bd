"""The generated package as a user installs it: console script, `python -m`, configuration, and no
OpenAPI spec at run time (tool definitions are precomputed in tool_data.json)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from e2e_support import Generated, dump, minimal_env, run_tool
from mcp_support import run_async, stdio_session, text_of
from prism_support import Prism, Prisms
from server_deps import selected_runtime

from openapi2mcp.cli.resolve import import_clash

pytestmark = pytest.mark.e2e

SPEC_SUFFIXES = (".yaml", ".yml", ".json")


def installed_dir(package: Generated, cwd: Path) -> Path:
    done = run_tool(
        [
            package.venv.python,
            "-c",
            f"import pathlib, {package.import_name} as m; print(pathlib.Path(m.__file__).parent)",
        ],
        minimal_env(),
        cwd,
        timeout=60,
    )
    assert done.returncode == 0, str(done)
    return Path(done.stdout.strip())


def test_one_console_script_and_the_declared_dependencies(petstore: Generated) -> None:
    project = tomllib.loads((petstore.source / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["name"] == "petstore"
    assert project["scripts"] == {"petstore": "petstore.server:main"}
    deps = {dep.replace(" ", "") for dep in project["dependencies"]}
    names = {re.match(r"[A-Za-z0-9_.-]+", dep).group(0) for dep in deps}  # type: ignore[union-attr]
    if selected_runtime() == "package":  # the runtime distribution brings the rest
        assert names == {"openapi2mcp-runtime"}, deps
    else:
        assert "mcp>=2.3,<3" in deps, deps
        assert names == {"mcp", "httpx2", "jsonschema", "snowballstemmer", "ijson", "pyjwt", "uvloop"}
    assert petstore.command.is_file()


_TOP_LEVEL = """
import importlib.metadata as md, json, sys
found = {}
for name in sys.argv[1:]:
    dist = md.distribution(name)
    text = dist.read_text("top_level.txt")
    tops = set(text.split()) if text else {
        str(f).split("/")[0].removesuffix(".py") for f in dist.files or ()
        if not str(f).split("/")[0].endswith((".dist-info", ".data", ".pth")) and str(f).split("/")[0] != ".."
    }
    found[name] = sorted(t for t in tops if t and not t.startswith("_"))
print(json.dumps(found))
"""


def test_every_module_the_servers_dependencies_install_is_a_reserved_name(
    petstore: Generated, tmp_path: Path
) -> None:
    """`--name` refuses a package named like a module the server's dependencies install (cli/resolve.py's
    SERVER_IMPORTS): checked against the packages of this run's end of the pins."""
    pins = [name for name, _ in petstore.venv.resolution.pins]
    done = run_tool([petstore.venv.python, "-c", _TOP_LEVEL, *pins], minimal_env(), tmp_path, timeout=60)
    assert done.returncode == 0, str(done)
    modules = {module: dist for dist, tops in json.loads(done.stdout).items() for module in tops}
    assert len(modules) >= len(pins) - 5, modules  # (a few distributions only add files to others)
    unreserved = {module: dist for module, dist in modules.items() if import_clash(module) is None}
    assert unreserved == {}


def test_the_installed_server_runs_on_uvloop(petstore: Generated, tmp_path: Path) -> None:
    code = (  # the runtime's wiring, vendored or installed: next to the server's ServerCommand
        f"import importlib; from {petstore.import_name}.server import ServerCommand; "
        "serving = ServerCommand.__module__.rpartition('.')[0]; "
        "print(importlib.import_module(serving + '.wiring').event_loop_options())"
    )
    done = run_tool([petstore.venv.python, "-c", code], minimal_env(), tmp_path, timeout=60)
    assert done.returncode == 0, str(done)
    assert done.stdout.strip() == "{'use_uvloop': True}"  # installed with the package on Linux


@pytest.mark.parametrize("how", ["script", "module"])
def test_help(petstore: Generated, how: str, tmp_path: Path) -> None:
    argv: list[str | Path] = (
        [petstore.command, "--help"]
        if how == "script"
        else [petstore.venv.python, "-m", petstore.import_name, "--help"]
    )
    done = run_tool(argv, minimal_env(), tmp_path, timeout=60)
    assert done.returncode == 0, str(done)
    for option in (
        "--transport",
        "--host",
        "--port",
        "--base-url",
        "--toolsets",
        "--tools",
        "--exclude-tools",
        "--read-only",
    ):
        assert option in done.stdout, str(done)


def test_no_spec_is_shipped_or_read(petstore: Generated, tmp_path: Path) -> None:
    """The data files are the generator's own (tool data, the schemas size fitting cut, the search
    index): no OpenAPI document in the tree or the installation, no file refers to the spec."""
    for root in (petstore.source, installed_dir(petstore, tmp_path)):
        files = [p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
        data = [p.name for p in files if p.suffix in SPEC_SUFFIXES]
        ours = {"tool_data.json", "tool_details.json", "search_index.json"}
        assert ours <= set(data), f"{root}: {data}"
        assert set(data) <= ours | {".openapi2mcp-manifest.json"}, f"{root}: {data}"
        for path in (p for p in files if p.suffix in (".py", ".json", ".toml")):
            text = path.read_text("utf-8", errors="replace")
            assert str(petstore.spec) not in text and "petstore.yaml" not in text, path
    assert json.loads((petstore.source / "petstore" / "data" / "tool_data.json").read_text())["tools"]


def test_python_dash_m_serves_from_an_empty_directory(
    petstore: Generated, prisms: Prisms, tmp_path: Path
) -> None:
    """`python -m petstore` with `--base-url` (no environment), started where no spec exists."""
    prism: Prism = prisms.get("petstore.yaml")
    empty = tmp_path / "empty"
    empty.mkdir()
    mark = prism.mark()

    async def body() -> tuple[Any, Any]:
        async with stdio_session(
            petstore.venv.python,
            args=["-m", "petstore", "--base-url", prism.base_url],
            env={"PETSTORE_API_KEY_KEY": "e2e-key-123456"},
            mode="legacy",
            errlog=tmp_path / "server.stderr",
            cwd=empty,
        ) as client:
            listing = await client.list_tools()
            return listing, await client.call_tool("showPetById", {"petId": "rex"})

    listing, result = run_async(body)
    assert len(listing.tools) == 7
    assert not result.is_error, dump(result.model_dump())
    assert result.structured_content == json.loads(text_of(result))
    requests = prism.wait_for_requests(mark, 1)
    assert [(r.method, r.path) for r in requests] == [("GET", "/pets/rex")]
    assert not requests[0].violations, str(requests[0])


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"PETSTORE_TIMEOUT": "soon"}, "PETSTORE_TIMEOUT must be a number of seconds"),
        ({"PETSTORE_CA_BUNDLE": "/nonexistent/ca.pem"}, "PETSTORE_CA_BUNDLE: cannot load CA certificates"),
        ({"PETSTORE_CLIENT_KEY": "/nonexistent/key.pem"}, "PETSTORE_CLIENT_KEY is set without"),
    ],
)
def test_bad_configuration_exits_with_a_message(
    petstore: Generated, tmp_path: Path, setting: dict[str, str], message: str
) -> None:
    done = run_tool(
        [petstore.command],
        minimal_env({**setting, "PETSTORE_BASE_URL": "http://127.0.0.1:9"}),
        tmp_path,
        timeout=60,
    )
    assert done.returncode == 2, str(done)
    assert message in done.stderr and "Traceback" not in done.stderr, str(done)


def test_readme_and_env_example_list_tools_and_variables(petstore: Generated) -> None:
    readme = (petstore.source / "README.md").read_text("utf-8")
    example = (petstore.source / ".env.example").read_text("utf-8")
    for tool in petstore.tool_data["tools"]:
        assert tool["name"] in readme, f"README does not list {tool['name']}"
    for variable in ("PETSTORE_BASE_URL", "PETSTORE_TIMEOUT", "PETSTORE_API_KEY_KEY"):
        assert variable in readme, f"README does not list {variable}"
        assert variable in example, f".env.example does not list {variable}"
