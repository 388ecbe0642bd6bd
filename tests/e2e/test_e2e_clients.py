"""The MCP client libraries people build on, each in its own venv (client_venvs.py), converting
every corpus spec's tools through its own documented MCP path, as it does before calling a model
(no model is called): google-genai (`tools=[session]`), openai-agents (`MCPServerStdio`, strict
schemas), langchain-mcp-adapters (`MultiServerMCPClient.get_tools`) and pydantic-ai
(`MCPToolset`). The generated server runs in the server venv; the library starts it over stdio.

Two client processes per library convert every spec, each one half of them (static mode; dynamic
mode for every third: the meta-tools' schemas are the runtime's constants, the same for every API;
one server each), so that the library is imported twice, not once per spec; the first test that
needs a report makes the eight, two at a time, the halves of one library side by side (the
libraries' passes differ in length: both cores stay busy to the end), and the pytest-xdist workers
share them. With --clients-every N (tests/conftest.py) only every N-th of the specs the corpus
tests run on is converted. What converts, and why some tools are not strict for OpenAI:
docs/clients.md.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from client_venvs import SCRIPTS, ClientVenv
from corpus_specs import sampled
from e2e_support import default_env_prefix, minimal_env, run_tool
from test_e2e_corpus import PREFIX, Build, corpus_builds, names, packages_dir
from venv_support import ServerVenv, file_lock

from openapi2mcp.emit.listing import enforced_input

RUN_TIMEOUT = 1800.0  # seconds for one library's pass over half the corpus (two passes at a time)
# The test that makes a library's report waits for its whole pass (pyproject's 300 s is per test).
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(2 * RUN_TIMEOUT + 120)]
__all__ = ["corpus_builds"]  # (the fixture, shared with the corpus tests)

META_TOOLS = ["search_tools", "describe_tools", "call_tool"]
# What openai-agents' strict conversion says of a schema it cannot take without changing what it
# accepts: an object open to undeclared properties (a free-form object of the spec, or a tool
# without arguments: strict mode needs `additionalProperties: false`, which google-genai cannot
# read), or a one-entry allOf beside keywords it cannot merge.
NOT_STRICT_BECAUSE = (
    "UserError: JSON schema contains an object that permits undeclared properties",
    "UserError: JSON schema contains a singleton `allOf` entry with incompatible parent keyword(s)",
)
RUN_FAILED = "(the client process failed)"  # the report's only key when it did


EXACT = "exact"  # the label of openai-agents' third session: static, PREFIX_LISTED_SCHEMAS=exact
# Dynamic mode lists the same three meta-tools for every API, whose schemas are constants of the
# runtime (discovery/meta_tools.py); only their descriptions and search's answers differ: a session
# in that mode for every third converted spec (21 of 62, sorted by name) tests as much as 62 would.
DYNAMIC_EVERY = 3


HALVES = 2  # client processes per library (each converts every HALVES-th spec)


def converted_specs(builds: dict[str, Build], config: pytest.Config) -> list[str]:
    """The specs the libraries convert: the built ones (the corpus tests' sample), every N-th of them
    with --clients-every N (the same rule as tests/conftest.py, which selects their tests)."""
    return sorted(sampled(list(builds), config.getoption("clients_every")))


def job(
    builds: dict[str, Build], venv: ServerVenv, errlog: Path, client: str, names: list[str], half: int
) -> dict[str, Any]:
    """The sessions of one half of the converted specs `names`: static mode (and dynamic mode for
    the DYNAMIC_EVERY-th converted spec) with the default settings; for openai-agents also static
    with the schemas listed exact, whose strict conversion it tells."""
    servers = {}
    dynamic = sampled(names, DYNAMIC_EVERY)
    for name in names[half::HALVES]:
        build = builds[name]
        if build.returncode != 0 or build.install_error is not None:
            continue
        prefix = default_env_prefix(PREFIX + name)
        env = {f"{prefix}_BASE_URL": "http://127.0.0.1:9", f"{prefix}_TIMEOUT": "10"}  # nothing is called
        modes = ("static", "dynamic") if name in dynamic else ("static",)
        sessions = {mode: env | {f"{prefix}_MODE": mode} for mode in modes}
        if client == "openai-agents":
            sessions[EXACT] = sessions["static"] | {f"{prefix}_LISTED_SCHEMAS": "exact"}
        servers[name] = {"command": str(venv.bin(PREFIX + name)), "sessions": sessions}
    return {"servers": servers, "errlog": str(errlog)}


def run_client(
    part: tuple[str, int], builds: dict[str, Build], names: list[str], venv: ServerVenv, workdir: Path
) -> dict[str, Any]:
    """One library's pass over one half of the converted specs `names`: its report (on failure, the
    output of the process, which every test of the library then fails with)."""
    client, half = part
    stem = workdir / "clients" / f"{client}.{half}"  # (its files: STEM.job.json, .json, .stderr)
    own = job(builds, venv, Path(f"{stem}.stderr"), client, names, half)
    Path(f"{stem}.job.json").write_text(json.dumps(own), "utf-8")
    library = ClientVenv.ensure(client)
    argv: list[str | Path] = [library.python, library.script, f"{stem}.job.json", f"{stem}.json"]
    done = run_tool(argv, minimal_env(), workdir, timeout=RUN_TIMEOUT)
    if done.returncode != 0:
        return {RUN_FAILED: str(done)}
    report: dict[str, Any] = json.loads(Path(f"{stem}.json").read_text("utf-8"))
    return report


def client_report(
    client: str, builds: dict[str, Build], venv: ServerVenv, workdir: Path, config: pytest.Config
) -> dict[str, Any]:
    """The library's report on the converted specs. The first test that needs one makes all of
    them, two processes at a time (the machine has 2 cores), once per run for every pytest-xdist
    worker; a library's report joins its halves' (or says that one failed)."""
    folder = workdir / "clients"
    with file_lock(folder / ".lock"):
        if not (folder / "done").is_file():
            names = converted_specs(builds, config)
            run = partial(run_client, builds=builds, names=names, venv=venv, workdir=workdir)
            parts = [(name, half) for name in SCRIPTS for half in range(HALVES)]
            with ThreadPoolExecutor(max_workers=2) as pool:
                reports = list(pool.map(run, parts))
            for name in SCRIPTS:
                halves = [report for (of, _), report in zip(parts, reports, strict=True) if of == name]
                failed = [report[RUN_FAILED] for report in halves if RUN_FAILED in report]
                joined = {k: v for half in halves for k, v in half.items()}
                if failed:
                    joined = {RUN_FAILED: "\n\n".join(failed)}
                (folder / f"{name}.json").write_text(json.dumps(joined), "utf-8")
            (folder / "done").write_text("\n".join(SCRIPTS) + "\n")
    report: dict[str, Any] = json.loads((folder / f"{client}.json").read_text("utf-8"))
    assert RUN_FAILED not in report, f"{client}: {report[RUN_FAILED]}"
    return report


@pytest.mark.parametrize("client", list(SCRIPTS))
@pytest.mark.parametrize("name", names())
def test_every_tool_converts_in_both_modes(
    client: str,
    name: str,
    corpus_builds: dict[str, Build],
    server_venv: ServerVenv,
    tmp_path_factory: pytest.TempPathFactory,
    pytestconfig: pytest.Config,
) -> None:
    package = corpus_builds[name].package(packages_dir(tmp_path_factory), server_venv)
    workdir = packages_dir(tmp_path_factory)
    report = client_report(client, corpus_builds, server_venv, workdir, pytestconfig)[name]
    tools = [tool["name"] for tool in package.tool_data["tools"]]
    dynamic = name in sampled(converted_specs(corpus_builds, pytestconfig), DYNAMIC_EVERY)
    labels = ["static"] + ["dynamic"] * dynamic + [EXACT] * (client == "openai-agents")
    assert sorted(report) == sorted(labels), f"{client}: sessions"
    for mode, expected in (("static", tools), ("dynamic", META_TOOLS))[: 1 + dynamic]:
        got = report[mode]
        assert "error" not in got, f"{client}, {mode} mode: {got}"
        assert got["listed"] == expected, f"{client}, {mode} mode: not the tools listed"
        assert got["failed"] == {}, f"{client}, {mode} mode: {len(got['failed'])} did not convert"
        assert got["converted"] == expected, f"{client}, {mode} mode"
        if "strict" in got:  # openai-agents
            assert sorted([*got["strict"], *got["not_strict"]]) == sorted(expected)
            reasons = got["not_strict"].items()
            odd = {tool: why for tool, why in reasons if not why.startswith(NOT_STRICT_BECAUSE)}
            assert odd == {}, f"{client}, {mode} mode: not strict for another reason"
    if client == "openai-agents":
        strict_when_exact(report[EXACT], package.tool_data, f"{name}, listed exact")
    if not dynamic:
        return
    if client == "openai-agents":
        assert report["dynamic"]["strict"] == ["search_tools", "describe_tools"]
    # search_tools called through the library's own path: an empty query lists the first tools
    first = f'"name": "{tools[0]}"' if tools else '"total": 0'
    assert first in report["dynamic"]["called"].replace("'", '"'), report["dynamic"]["called"][:500]


def strict_when_exact(got: dict[str, Any], data: dict[str, Any], where: str) -> None:
    """With PREFIX_LISTED_SCHEMAS=exact every tool converts, and a tool is not strict only where
    its schema cannot be (an object open to undeclared properties, which the spec made so, or
    the library's allOf limit): tools without arguments and empty closed objects are strict."""
    tools = [tool["name"] for tool in data["tools"]]
    assert "error" not in got, f"{where}: {got}"
    assert got["listed"] == got["converted"] == tools and got["failed"] == {}, where
    schemas = {
        t["name"]: enforced_input(t["inputSchema"], data["routes"][t["name"]]["closed"])
        for t in data["tools"]
    }
    for tool, why in got["not_strict"].items():
        assert why.startswith(NOT_STRICT_BECAUSE), f"{where}: {tool}: {why}"
        if why.startswith(NOT_STRICT_BECAUSE[0]):
            assert open_objects(schemas[tool]), f"{where}: {tool} has no open object: {why}"
    assert sorted([*got["strict"], *got["not_strict"]]) == sorted(tools), where


def open_objects(node: Any, pointer: str = "") -> list[str]:
    """Where `node` has an object that declares no property and is not closed (a free-form
    object of the spec: `{"type": "object"}`, a map), as JSON pointers."""
    if isinstance(node, list):
        return [p for index, item in enumerate(node) for p in open_objects(item, f"{pointer}/{index}")]
    if not isinstance(node, dict):
        return []
    kind = node.get("type")
    is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
    here = (
        [pointer]
        if is_object and not node.get("properties") and node.get("additionalProperties") is not False
        else []
    )
    return here + [p for key, value in node.items() for p in open_objects(value, f"{pointer}/{key}")]
