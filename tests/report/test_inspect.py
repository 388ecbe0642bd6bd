"""`openapi2mcp inspect SPEC|PACKAGE` through the real CLI app: exact figures on specs/petstore.yaml and
on its generated package, the JSON document's shape, the client findings on synthetic specs (over 128
tools, an inputSchema over 16 KiB, a name the OpenAI API refuses), the advice, and the error exits."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from openapi2mcp.cli.app import app

REPO = Path(__file__).resolve().parents[2]
PETSTORE = REPO / "specs" / "petstore.yaml"
CLI = Path(sys.executable).with_name("openapi2mcp")
EXIT_INPUT = 2


def run(*args: str, cwd: Path) -> tuple[int, str, str]:
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def inspect_json(*args: str, cwd: Path) -> dict[str, Any]:
    code, stdout, stderr = run("inspect", *args, "--format", "json", cwd=cwd)
    assert code == 0, stderr
    document: dict[str, Any] = json.loads(stdout)
    return document


def write_spec(path: Path, tags: dict[str, int], description: str = "", **extra: Any) -> Path:
    """An OpenAPI 3.0 spec with `count` GET operations `{tag}{i}` tagged `tag`, for each tag."""
    paths: dict[str, Any] = {
        f"/{tag}/{i}": {
            "get": {
                "operationId": f"{tag}{i}",
                "tags": [tag],
                "description": description,
                "responses": {"200": {"description": "ok"}},
            }
        }
        for tag, count in tags.items()
        for i in range(count)
    }
    paths.update(extra)
    spec = {"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": paths}
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def petstore_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pkg")
    code, _, stderr = run("generate", str(PETSTORE), "-o", "out", "--name", "petstore", cwd=root)
    assert code == 0, stderr
    return root / "out"


# ---------------------------------------------------------------------------------------------
# Figures


def test_a_spec_is_measured_in_memory_with_exact_figures(tmp_path: Path) -> None:
    report = inspect_json(str(PETSTORE), cwd=tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing written
    assert (report["source"], report["kind"], report["tools"]) == (str(PETSTORE), "spec", 7)
    assert report["toolsList"] == {"bytes": 6272, "tokens": 1568}
    assert report["default"] == {"toolsets": ["pets", "untagged"], "tools": 7, "bytes": 6272, "tokens": 1568}
    assert report["toolsets"] == [
        {"name": "pets", "default": True, "description": "", "tools": 6, "bytes": 5857, "tokens": 1465},
        {"name": "untagged", "default": True, "description": "", "tools": 1, "bytes": 426, "tokens": 107},
    ]
    assert [(t["name"], t["bytes"], t["tokens"]) for t in report["largestTools"]] == [
        ("listPets", 1192, 298),
        ("replacePet", 1077, 270),
        ("renamePet", 971, 243),
        ("createPet", 957, 240),
        ("showPetById", 942, 236),
        ("deletePet", 701, 176),
        ("get_health", 414, 104),
    ]
    assert report["largestTools"][0] == {
        "name": "listPets",
        "toolset": "pets",
        "bytes": 1192,
        "tokens": 298,
        "inputSchemaBytes": 362,
    }


def test_the_bytes_are_those_of_the_packages_tools_list_in_compact_json(petstore_package: Path) -> None:
    data = json.loads((petstore_package / "petstore" / "data" / "tool_data.json").read_text("utf-8"))
    compact = json.dumps({"tools": data["tools"]}, separators=(",", ":"), ensure_ascii=False)
    report = inspect_json(str(petstore_package), cwd=petstore_package.parent)
    assert report["toolsList"]["bytes"] == len(compact.encode("utf-8")) == 6272


@pytest.mark.parametrize("where", ["out", "out/petstore", "out/petstore/data/tool_data.json"])
def test_a_package_gives_the_figures_of_its_spec(petstore_package: Path, where: str) -> None:
    from_package = inspect_json(where, cwd=petstore_package.parent)
    from_spec = inspect_json(str(PETSTORE), cwd=petstore_package.parent)
    assert (from_package.pop("source"), from_package.pop("kind")) == (where, "package")
    del from_spec["source"], from_spec["kind"]
    assert from_package == from_spec


def test_the_json_document_has_stable_keys(tmp_path: Path) -> None:
    report = inspect_json(str(PETSTORE), cwd=tmp_path)
    assert list(report) == [
        "format",
        "source",
        "kind",
        "bytesPerToken",
        "tools",
        "toolsList",
        "default",
        "toolsets",
        "largestTools",
        "clients",
        "recommendation",
    ]
    assert (report["format"], report["bytesPerToken"]) == (1, 4)
    assert [client["id"] for client in report["clients"]] == [
        "vscode",
        "openai",
        "cursor",
        "claude-ai",
        "claude-code",
    ]
    assert all(
        list(c) == ["id", "client", "rule", "source", "ok", "finding", "tools"] for c in report["clients"]
    )
    recommendation = report["recommendation"]
    assert list(recommendation) == ["mode", "maxListTokens", "reason", "toolsets"]
    assert [choice["budget"] for choice in recommendation["toolsets"]] == [
        "128 tools",
        "40 tools",
        "20,000 tokens",
    ]
    assert list(recommendation["toolsets"][0]) == [
        "budget",
        "limit",
        "unit",
        "clients",
        "isDefault",
        "toolsets",
        "tools",
        "bytes",
        "tokens",
        "flag",
    ]


def test_every_client_limit_names_where_it_is_documented(tmp_path: Path) -> None:
    sources = {c["id"]: c["source"] for c in inspect_json(str(PETSTORE), cwd=tmp_path)["clients"]}
    assert "https://code.visualstudio.com/docs/copilot/customization/mcp-servers" in sources["vscode"]
    assert "https://platform.openai.com/docs/guides/function-calling" in sources["openai"]
    assert sources["cursor"].startswith("Cursor docs")
    assert sources["claude-ai"].startswith("observed")
    assert "https://code.claude.com/docs/en/mcp" in sources["claude-code"]


def test_a_small_api_is_fine_everywhere_and_static(tmp_path: Path) -> None:
    report = inspect_json(str(PETSTORE), cwd=tmp_path)
    assert [(c["id"], c["ok"], c["tools"]) for c in report["clients"]] == [
        ("vscode", True, []),
        ("openai", True, []),
        ("cursor", True, []),
        ("claude-ai", True, []),
        ("claude-code", True, []),
    ]
    assert report["clients"][0]["finding"] == "7 tools listed (the default toolsets, static mode): within 128"
    recommendation = report["recommendation"]
    assert (recommendation["mode"], recommendation["maxListTokens"]) == ("static", 20000)
    assert (
        recommendation["reason"] == "the default toolsets' tools/list is about 1,568 tokens, at most 20,000"
    )
    assert [(c["isDefault"], c["toolsets"], c["flag"]) for c in recommendation["toolsets"]] == [
        (True, ["pets", "untagged"], ""),
    ] * 3


def test_the_text_report_is_a_readable_table(tmp_path: Path) -> None:
    code, stdout, _ = run("inspect", str(PETSTORE), cwd=tmp_path)
    assert code == 0
    lines = stdout.splitlines()
    assert lines[:9] == [
        f"{PETSTORE} (spec): 7 tools in 2 toolsets",
        "tools/list: 6,272 bytes, about 1,568 tokens (estimate: ceil(bytes / 4))",
        "default toolsets: all (7 tools, 6,272 bytes, about 1,568 tokens)",
        "",
        "toolset   default  tools  bytes  tokens",
        "pets      yes          6  5,857   1,465",
        "untagged  yes          1    426     107",
        "",
        "largest tools  toolset   bytes  tokens  inputSchema",
    ]
    assert lines[9] == "listPets       pets      1,192     298          362"
    assert "  VS Code: ok: 7 tools listed (the default toolsets, static mode): within 128" in lines
    assert lines[-5:] == [
        "recommended mode: static (the default toolsets' tools/list is about 1,568 tokens, at most 20,000)",
        "recommended toolsets (static mode):",
        "  128 tools (VS Code, OpenAI API): the default toolsets fit (7 tools, about 1,568 tokens)",
        "  40 tools (Cursor): the default toolsets fit (7 tools, about 1,568 tokens)",
        "  20,000 tokens (static mode): the default toolsets fit (7 tools, about 1,568 tokens)",
    ]


# ---------------------------------------------------------------------------------------------
# Client limits and advice on synthetic specs

LONG_FORM = {  # a body of 40 described fields: an inputSchema of about 21 KB before compaction
    "post": {
        "operationId": "big.upload",
        "tags": ["b"],
        "requestBody": {
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            f"field{i}": {"type": "string", "description": "w" * 500} for i in range(40)
                        },
                    }
                }
            }
        },
        "responses": {"200": {"description": "ok"}},
    }
}


@pytest.fixture
def many_tools(tmp_path: Path) -> Path:
    """131 tools: a (100) and b (30 + big.upload), each GET with a 700-character description."""
    return write_spec(tmp_path / "many.json", {"a": 100, "b": 30}, "d" * 700, **{"/big": LONG_FORM})


def findings(report: dict[str, Any]) -> dict[str, tuple[bool, str, list[str]]]:
    return {c["id"]: (c["ok"], c["finding"], c["tools"]) for c in report["clients"]}


def test_over_128_tools_vs_code_openai_and_cursor_are_named_with_the_excess(many_tools: Path) -> None:
    found = findings(inspect_json(str(many_tools), cwd=many_tools.parent))
    listed = "131 tools listed (the default toolsets, static mode)"
    assert found["vscode"] == (False, f"{listed}: over 128; the user must deselect 3 more", [])
    assert found["openai"] == (
        False,
        f"{listed}: over 128: a request with all of them is refused; every name is valid",
        [],
    )
    assert found["cursor"] == (False, f"{listed}: over 40; tool selection degrades with 91 more", [])
    assert found["claude-ai"] == (True, "every inputSchema is within 16,384 bytes", [])  # compacted


def test_an_input_schema_over_16_kib_and_a_dotted_name_are_named(many_tools: Path) -> None:
    report = inspect_json(
        str(many_tools), "--input-schema-limit", "0", "--name-style", "mcp", cwd=many_tools.parent
    )
    found = findings(report)
    assert found["claude-ai"] == (
        False,
        "1 tool with an inputSchema over 16,384 bytes (dropped)",
        ["big.upload"],
    )
    assert found["openai"][0] is False and found["openai"][2] == ["big.upload"]
    assert found["openai"][1].endswith("; 1 tool named outside ^[a-zA-Z0-9_-]{1,64}$ (refused)")
    big = next(tool for tool in report["largestTools"] if tool["name"] == "big.upload")
    assert big["inputSchemaBytes"] > 16 * 1024


def test_a_package_generated_without_the_schema_limit_shows_the_dropped_tool(many_tools: Path) -> None:
    code, _, stderr = run(
        "generate",
        str(many_tools),
        "-o",
        "pkg",
        "--name",
        "m",
        "--input-schema-limit",
        "0",
        cwd=many_tools.parent,
    )
    assert code == 0, stderr
    found = findings(inspect_json("pkg", cwd=many_tools.parent))
    assert found["claude-ai"][0::2] == (False, ["big_upload"])


def test_a_large_list_is_dynamic_and_the_largest_toolsets_that_fit_are_advised(many_tools: Path) -> None:
    recommendation = inspect_json(str(many_tools), cwd=many_tools.parent)["recommendation"]
    assert recommendation["mode"] == "dynamic"
    assert recommendation["reason"].endswith(" tokens, over 20,000")
    chosen = [
        (c["budget"], c["isDefault"], c["toolsets"], c["tools"], c["flag"])
        for c in recommendation["toolsets"]
    ]
    assert chosen == [
        ("128 tools", False, ["a"], 100, "--toolsets a"),
        ("40 tools", False, ["b"], 31, "--toolsets b"),
        ("20,000 tokens", False, ["b"], 31, "--toolsets b"),
    ]
    assert all(c["tokens"] <= 20_000 for c in recommendation["toolsets"][1:])


def test_a_spec_takes_the_options_of_the_config_file(many_tools: Path) -> None:
    (many_tools.parent / "openapi2mcp.toml").write_text('include = ["tag:b"]\n', encoding="utf-8")
    code, stdout, stderr = run("inspect", str(many_tools), "--format", "json", cwd=many_tools.parent)
    assert code == 0 and stderr == "info: openapi2mcp.toml: options read\n"
    assert [(t["name"], t["tools"]) for t in json.loads(stdout)["toolsets"]] == [("b", 31)]


# ---------------------------------------------------------------------------------------------
# Bad input: one line, exit 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("missing.yaml",), "missing.yaml: cannot read the file: No such file or directory"),
        (("empty",), "empty: not a generated package (no <package>/tool_data.json in it)"),
        (
            ("bad",),
            "bad/tool_data.json: not a tool_data.json file: Expecting value: line 1 column 1 (char 0)",
        ),
        ((str(PETSTORE), "--format", "xml"), "--format 'xml': choose 'text' or 'json'"),
        (
            ("empty", "--include", "tag:a"),
            "--include: for a spec only; a package's tools are already generated",
        ),
        (("notes.txt",), "notes.txt:1:5: invalid YAML"),
        ((), "missing SPEC|PACKAGE: give it on the command line"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "tool_data.json").write_text("nope", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("a: b: c\n", encoding="utf-8")
    code, stdout, stderr = run("inspect", *args, cwd=tmp_path)
    assert (code, stdout) == (EXIT_INPUT, "")
    assert stderr.startswith(f"openapi2mcp: error: {message}") and stderr.count("\n") == 1, stderr


def test_the_installed_program_exits_2_without_a_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(CLI), "inspect", "nowhere"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (EXIT_INPUT, "")
    assert done.stderr == "openapi2mcp: error: nowhere: cannot read the file: No such file or directory\n"


def test_operations_skipped_with_errors_are_counted_on_stderr_and_left_out(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path / "broken.json",
        {"a": 1},
        **{"/b/{id}": {"get": {"operationId": "broken", "responses": {"200": {"description": "ok"}}}}},
    )
    code, stdout, stderr = run("inspect", str(spec), "--format", "json", cwd=tmp_path)
    assert code == 0
    assert stderr == (
        f"openapi2mcp: {spec}: 1 operation skipped with errors (`openapi2mcp generate` lists them)\n"
    )
    assert json.loads(stdout)["tools"] == 1


# ---- --stubs: the api.pyi of code mode ----


def test_stubs_print_the_api_module_of_a_package_and_of_its_spec(
    petstore_package: Path, tmp_path: Path
) -> None:
    code, from_package, _ = run("inspect", str(petstore_package), "--stubs", cwd=tmp_path)
    assert code == 0
    assert from_package.startswith('"""This API\'s functions. Call each with keyword arguments;')
    for function in (
        "listPets",
        "createPet",
        "showPetById",
        "replacePet",
        "deletePet",
        "renamePet",
        "get_health",
    ):
        assert f"\ndef {function}(" in from_package
    assert "def showPetById(*, petId: str) -> ShowPetByIdResult:" in from_package
    code, from_spec, _ = run("inspect", str(PETSTORE), "--stubs", cwd=tmp_path)
    assert (code, from_spec) == (0, from_package)


def test_the_stubs_are_a_module_the_sandbox_type_checks(petstore_package: Path, tmp_path: Path) -> None:
    from pydantic_monty import ExternalModule, Monty, MontyTypingError

    stub = run("inspect", str(petstore_package), "--stubs", cwd=tmp_path)[1]
    api = ExternalModule({"showPetById": lambda **_: {"name": "Rex"}}, stubs=stub)
    with Monty() as pool, pool.checkout(type_check=True, external_modules={"api": api}) as session:
        assert session.feed_run("import api\napi.showPetById(petId='1')['name']") == "Rex"
        with pytest.raises(MontyTypingError, match="missing-argument"):
            session.feed_run("import api\napi.showPetById()")


def test_stubs_of_a_missing_package_exit_2(tmp_path: Path) -> None:
    code, _, stderr = run("inspect", str(tmp_path / "nothing"), "--stubs", cwd=tmp_path)
    assert code == EXIT_INPUT and "nothing: cannot read the file: No such file or directory" in stderr
    code, _, stderr = run("inspect", str(tmp_path), "--stubs", cwd=tmp_path)
    assert code == EXIT_INPUT and "tool_data.json" in stderr
