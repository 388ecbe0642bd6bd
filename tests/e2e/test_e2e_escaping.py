"""Hostile strings from a spec reach tools/list verbatim and never execute or break the package.

specs/escaping.yaml is served as is; a second, even more hostile copy (built here, so that its
injected code names a marker file in this test's tmp dir) proves that nothing runs: not at
generation, not at install, not at import, not while serving."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote

import pytest
from e2e_support import SPECS, Generated, Packages, generate_and_install, minimal_env, run_tool
from mcp_support import run_async, stdio_session, text_of
from recording_upstream import RecordingUpstream, Reply
from venv_support import ServerVenv

from openapi2mcp.load.source import load_source

pytestmark = pytest.mark.e2e

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def payloads(marker: Path) -> list[str]:
    """Strings that run code creating `marker` if any layer evaluates, formats or executes them."""
    m = str(marker)
    return [
        f'"""; __import__("pathlib").Path({m!r}).touch(); """',
        f"'''; __import__('pathlib').Path({m!r}).touch(); '''",
        f'\\"; __import__("os").system("touch {m}"); #',
        f"\"\n__import__('pathlib').Path({m!r}).touch()\n\"",
        f"{{{{ cycler.__init__.__globals__.os.system('touch {m}') }}}}",
        f"{{% set x = cycler.__init__.__globals__.os.system('touch {m}') %}}",
        f"$(touch {m}) `touch {m}` ; touch {m}",
        f"{{0.__class__}} %s %(x)s {{x!r}} \\N{{BULLET}} \\x41 \\u0041 -- touch {m}",
        f"\r\n\t\x0c\u2028\u2029 line separators; touch {m}",
    ]


def hostile_document(marker: Path) -> dict[str, Any]:
    """specs/escaping.yaml plus an operation whose every string is a payload."""
    document: dict[str, Any] = load_source(str(SPECS / "escaping.yaml"))[0]
    bad = payloads(marker)
    document["info"]["description"] += "\n" + "\n".join(bad)
    document["paths"]["/hostile/{thing}"] = {
        "post": {
            "operationId": bad[0],
            "security": [],
            "summary": bad[1],
            "description": "\n".join(bad),
            "parameters": [
                {
                    "name": "thing",
                    "in": "path",
                    "required": True,
                    "description": bad[2],
                    "schema": {"type": "string", "enum": bad[:4], "default": bad[0]},
                },
                {
                    "name": bad[3],
                    "in": "query",
                    "description": bad[4],
                    "schema": {"type": "string", "enum": bad[4:], "example": bad[5]},
                },
            ],
            "requestBody": {
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "description": bad[6],
                            "properties": {
                                "note": {"type": "string", "description": bad[7], "enum": bad},
                                "kind": {"type": "string", "description": bad[8], "pattern": "^[a-z]+$"},
                            },
                        }
                    }
                }
            },
            "responses": {
                "200": {
                    "description": bad[5],
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {bad[6]: {"type": "string", "description": bad[7]}},
                            }
                        }
                    },
                }
            },
        }
    }
    return document


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any], list[Any]]]:
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                yield method.upper(), path, item[method], item.get("parameters", [])


def verbatim_problems(document: dict[str, Any], package: Generated, tools: list[Any]) -> list[str]:
    """Every hostile title, description, enum and default of the spec, compared with tools/list."""
    by_route = {(r["method"], r["path"]): name for name, r in package.tool_data["routes"].items()}
    listed = {tool.name: tool.model_dump(by_alias=True, exclude_none=True) for tool in tools}
    problems: list[str] = []

    def same(label: str, expected: Any, actual: Any) -> None:
        if expected != actual:
            problems.append(f"{label}: expected {expected!r}, got {actual!r}")

    def contains(label: str, expected: str, actual: str) -> None:
        if expected.strip() not in actual:
            problems.append(f"{label}: {expected.strip()!r} is not in {actual!r}")

    for method, path, operation, shared in operations(document):
        name = by_route.get((method, path))
        if name is None or name not in listed:
            problems.append(f"{method} {path}: no tool")
            continue
        tool, route = listed[name], package.tool_data["routes"][name]
        where = f"{method} {path} ({name})"
        if "summary" in operation:
            same(f"{where} title", operation["summary"], tool.get("title"))
            same(f"{where} annotations.title", operation["summary"], tool["annotations"].get("title"))
            contains(f"{where} description", operation["summary"], tool["description"])
        if "description" in operation:
            contains(f"{where} description", operation["description"], tool["description"])
        properties = tool["inputSchema"].get("properties", {})
        arguments = {p["name"]: p["arg"] for p in route["params"]}
        for parameter in [*shared, *operation.get("parameters", [])]:
            arg = arguments.get(parameter["name"])
            if arg is None or arg not in properties:
                problems.append(f"{where}: parameter {parameter['name']!r} has no argument")
                continue
            prop, schema = properties[arg], parameter.get("schema", {})
            if "description" in parameter:
                same(f"{where} {arg} description", parameter["description"], prop.get("description"))
            for key in ("enum", "default"):
                if key in schema:
                    same(f"{where} {arg} {key}", schema[key], prop.get(key))
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
        fields = {f["name"]: f["arg"] for f in (route.get("body") or {}).get("fields", [])}
        for field_name, schema in body.get("schema", {}).get("properties", {}).items():
            prop = properties.get(fields.get(field_name, ""), {})
            for key in ("description", "enum"):  # (schema `title`s are dropped on purpose)
                if key in schema:
                    same(f"{where} body {field_name!r} {key}", schema[key], prop.get(key))
        response = operation["responses"].get("200", {}).get("content", {}).get("application/json")
        if response and "outputSchema" in tool:
            out = tool["outputSchema"].get("properties", {})
            for field_name, schema in response["schema"].get("properties", {}).items():
                if field_name not in out:
                    problems.append(f"{where} outputSchema: no property {field_name!r} in {list(out)}")
                elif "description" in schema:
                    same(
                        f"{where} output {field_name!r}",
                        schema["description"],
                        out[field_name].get("description"),
                    )
    return problems


def import_every_module(package: Generated, cwd: Path) -> None:
    root = package.source
    modules = sorted(
        ".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        for p in (root / package.import_name).rglob("*.py")
        if p.stem != "__main__"
    )
    done = run_tool(
        [
            package.venv.python,
            "-c",
            "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)",
            *modules,
        ],
        minimal_env(),
        cwd,
        timeout=60,
    )
    assert done.returncode == 0, str(done)
    assert not done.stdout.strip(), f"importing printed something:\n{done}"


def list_and_info(package: Generated, env: dict[str, str], tmp_path: Path) -> tuple[list[Any], Any]:
    async def body() -> tuple[list[Any], Any]:
        async with stdio_session(
            package.command, env=env, mode="legacy", errlog=tmp_path / "server.stderr", cwd=tmp_path
        ) as client:
            return list((await client.list_tools()).tools), client.server_info

    return run_async(body)


def test_escaping_spec_comes_out_verbatim(packages: Packages, tmp_path: Path) -> None:
    package: Generated = packages.get("escaping.yaml")
    document, _ = load_source(str(package.spec))
    import_every_module(package, tmp_path)
    tools, info = list_and_info(package, package.env("http://127.0.0.1:9"), tmp_path)
    problems = verbatim_problems(document, package, tools)
    assert not problems, "\n".join(problems)
    assert info.version == document["info"]["version"]


@pytest.fixture(scope="module")
def hostile(
    server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any], Generated]:
    """The hostile copy, generated (cwd: its work dir) and installed; nothing may create `marker`."""
    root = tmp_path_factory.mktemp("hostile")
    marker = root / "PWNED"
    document = hostile_document(marker)
    spec = root / "hostile.json"
    spec.write_text(json.dumps(document, indent=1), "utf-8")
    work = root / "work"
    work.mkdir()
    package = generate_and_install(spec, work, server_venv, name="hostile")
    assert not marker.exists(), "injected code ran while generating or installing"
    return marker, document, package


def test_injected_code_never_runs(hostile: tuple[Path, dict[str, Any], Generated], tmp_path: Path) -> None:
    marker, document, package = hostile
    import_every_module(package, tmp_path)
    tools, _ = list_and_info(package, package.env("http://127.0.0.1:9"), tmp_path)
    assert not marker.exists(), "injected code ran"
    assert not list(tmp_path.glob("**/PWNED")), "injected code ran (relative path)"
    problems = verbatim_problems(document, package, tools)
    assert not problems, "\n".join(problems)


@pytest.fixture
def echo_api() -> Iterator[tuple[str, RecordingUpstream]]:
    """An API that records each request and answers 200 with a JSON object."""
    upstream = RecordingUpstream(default=Reply(body=b"{}")).start()
    try:
        yield f"{upstream.url}/api", upstream
    finally:
        upstream.stop()


def test_hostile_values_reach_the_api_verbatim(
    hostile: tuple[Path, dict[str, Any], Generated],
    echo_api: tuple[str, RecordingUpstream],
    tmp_path: Path,
) -> None:
    marker, _, package = hostile
    base_url, upstream = echo_api
    bad = payloads(marker)
    name = next(n for n, r in package.tool_data["routes"].items() if r["path"] == "/hostile/{thing}")
    route = package.tool_data["routes"][name]
    query_arg = next(p["arg"] for p in route["params"] if p["in"] == "query")
    arguments = {"thing": bad[0], query_arg: bad[4], "note": bad[7], "kind": "abc"}

    async def body() -> Any:
        async with stdio_session(
            package.command, env=package.env(base_url), mode="legacy", errlog=tmp_path / "server.stderr"
        ) as client:
            await client.list_tools()
            return await client.call_tool(name, arguments)

    result = run_async(body)
    assert not marker.exists(), "injected code ran while serving"
    assert not result.is_error, text_of(result)
    seen = [(request.method, request.target, request.body) for request in upstream.requests]
    assert len(seen) == 1, seen
    _, raw_path, raw_body = seen[0]
    path, _, query = raw_path.partition("?")
    segments = path.split("/")
    assert segments[:3] == ["", "api", "hostile"] and len(segments) == 4, raw_path
    assert unquote(segments[3]) == bad[0], raw_path
    assert parse_qs(query, keep_blank_values=True) == {bad[3]: [bad[4]]}, raw_path
    assert json.loads(raw_body) == {"note": bad[7], "kind": "abc"}
