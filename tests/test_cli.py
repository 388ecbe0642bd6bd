"""The command line: `openapi2mcp generate SPEC -o OUT --name NAME`.

Most tests run the Typer app in-process (CliRunner, fast); the ones about what a user sees from the real
program (exit status, no traceback on stderr) also run `.venv/bin/openapi2mcp` as a subprocess."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from openapi2mcp.cli import app

REPO = Path(__file__).resolve().parents[1]
PETSTORE = REPO / "specs" / "petstore.yaml"
CLI = Path(sys.executable).with_name("openapi2mcp")
EXIT_INPUT = 2


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    crashed: bool = False  # an exception escaped the command (a traceback, exit status 1)


def run(*args: str, cwd: Path) -> Run:
    """The CLI in-process, from `cwd`."""
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(app, list(args))
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    return Run(result.exit_code, result.stdout, result.stderr, crashed)


def run_process(*args: str, cwd: Path) -> Run:
    """The installed console script in a subprocess, from `cwd`."""
    assert CLI.is_file(), f"{CLI} is missing: install the project into the venv"
    done = subprocess.run(
        [str(CLI), *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    return Run(done.returncode, done.stdout, done.stderr, "Traceback" in done.stderr)


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def assert_clean_failure(result: Run, *fragments: str) -> None:
    """Exit 2, one `openapi2mcp: error:` line holding every fragment, nothing else, no traceback."""
    assert result.returncode == EXIT_INPUT, result.stderr
    assert not result.crashed
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("openapi2mcp: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.fixture(scope="module")
def petstore_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One generation of the Petstore, made once for the module."""
    root = tmp_path_factory.mktemp("petstore")
    result = run("generate", str(PETSTORE), "-o", "out", "--name", "petstore", cwd=root)
    assert result.returncode == 0, result.stderr
    return root / "out"


@pytest.fixture
def previous_out(tmp_path: Path, petstore_out: Path) -> Path:
    """An OUT a previous generation wrote, plus a file of the user's."""
    out = tmp_path / "out"
    shutil.copytree(petstore_out, out)
    (out / "NOTES.md").write_text("mine\n", encoding="utf-8")
    return out


# ---------------------------------------------------------------------------------------------
# Success


def test_a_successful_generation_exits_0_and_prints_the_summary_line(tmp_path: Path) -> None:
    result = run_process("generate", str(PETSTORE), "-o", "petstore-mcp", "--name", "petstore", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-1] == "petstore-mcp: 7 tools written (0 errors reported)"
    assert "Traceback" not in result.stderr
    assert (tmp_path / "petstore-mcp" / "petstore" / "server.py").is_file()
    assert (tmp_path / "petstore-mcp" / "pyproject.toml").is_file()


@pytest.mark.parametrize(
    ("name", "prefix", "package"),
    [("zoo", "ZOO", "zoo"), ("my-api", "MY_API", "my_api"), ("Pet_Store-2", "PET_STORE_2", "Pet_Store_2")],
)
def test_the_env_prefix_defaults_to_the_name_upper_cased_with_non_alphanumerics_as_underscores(
    tmp_path: Path, name: str, prefix: str, package: str
) -> None:
    out = tmp_path / "out"
    assert run("generate", str(PETSTORE), "-o", str(out), "--name", name, cwd=tmp_path).returncode == 0
    server = (out / package / "server.py").read_text("utf-8")
    assert f'ENV_PREFIX = "{prefix}"' in server
    assert re.findall(r"^(?:# )?([A-Z0-9_]+)=", (out / ".env.example").read_text("utf-8"), flags=re.M) == [
        f"{prefix}_BASE_URL",
        f"{prefix}_TIMEOUT",
        f"{prefix}_HEADERS",
        f"{prefix}_MAX_RESPONSE_BYTES",
        f"{prefix}_API_KEY_KEY",
    ]


def test_an_explicit_env_prefix_is_upper_cased_with_non_alphanumerics_as_underscores(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run(
        "generate",
        str(PETSTORE),
        "-o",
        str(out),
        "--name",
        "zoo",
        "--env-prefix",
        "pet shop.v2",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert 'ENV_PREFIX = "PET_SHOP_V2"' in (out / "zoo" / "server.py").read_text("utf-8")


def test_name_style_mcp_keeps_dots_in_tool_names(tmp_path: Path) -> None:
    spec = tmp_path / "dots.yaml"
    spec.write_text(
        "openapi: 3.0.3\ninfo: {title: D, version: '1'}\n"
        "paths:\n  /a:\n    get:\n      operationId: pets.list\n"
        "      responses: {'200': {description: ok}}\n",
        encoding="utf-8",
    )
    for style, expected in (("mcp", "pets.list"), ("portable", "pets_list")):
        out = tmp_path / style
        assert (
            run(
                "generate", "dots.yaml", "-o", style, "--name", "d", "--name-style", style, cwd=tmp_path
            ).returncode
            == 0
        )
        tools = json.loads((out / "d" / "tool_data.json").read_text("utf-8"))["tools"]
        assert [tool["name"] for tool in tools] == [expected]


def test_diagnostics_go_to_stderr_with_level_pointer_and_message_and_the_rest_is_generated(
    tmp_path: Path,
) -> None:
    spec = tmp_path / "broken.yaml"
    spec.write_text(
        "openapi: 3.0.3\n"
        "info: {title: B, version: '1'}\n"
        "servers: [{url: 'https://b.test'}]\n"
        "paths:\n"
        "  /a/{id}:\n"
        "    get: {operationId: noParam, responses: {'200': {description: ok}}}\n"
        "  /b:\n"
        "    get: {operationId: hidden, x-mcp: false, responses: {'200': {description: ok}}}\n"
        "    post: {operationId: fine, responses: {'200': {description: ok}}}\n",
        encoding="utf-8",
    )
    result = run_process("generate", "broken.yaml", "-o", "out", "--name", "b", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "error: #/paths/~1a~1{id}/get: path parameter(s) ['id'] of '/a/{id}' are not declared; "
        "operation skipped",
        "info: #/paths/~1b/get: x-mcp: false: left out",
        "out: 1 tools written (1 errors reported)",
    ]
    tools = json.loads((tmp_path / "out" / "b" / "tool_data.json").read_text("utf-8"))["tools"]
    assert [tool["name"] for tool in tools] == ["fine"]


def test_regenerating_into_a_previous_output_keeps_the_users_files(
    previous_out: Path, tmp_path: Path
) -> None:
    result = run("generate", str(PETSTORE), "-o", str(previous_out), "--name", "petstore", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (previous_out / "NOTES.md").read_text("utf-8") == "mine\n"


# ---------------------------------------------------------------------------------------------
# Unreadable input: exit 2, a message naming the file (and line), no traceback, OUT untouched


UNREADABLE = {
    "missing": (None, "missing.yaml: cannot read the file"),
    "yaml-syntax": ("openapi: 3.0.0\npaths:\n  a: b: c\n", "bad.yaml:3:7: invalid YAML"),
    "json-syntax": ('{"openapi": "3.0.0",\n "paths": {,}}\n', "bad.json:2:12: invalid JSON"),
    "not-utf8": (b"openapi: 3.0.0\ninfo: {title: \xff\xfe}\n", "bad.yaml: not UTF-8"),
    "not-a-mapping": ("- a\n- b\n", "bad.yaml: not an OpenAPI document"),
    "wrong-version": (
        "openapi: 2.5.0\ninfo: {title: x, version: '1'}\npaths: {}\n",
        "bad.yaml: not an OpenAPI 3.0 or 3.1",
    ),
}


def unreadable_spec(tmp_path: Path, case: str) -> str:
    content, message = UNREADABLE[case]
    name = message.split(":", 1)[0]
    if isinstance(content, bytes):
        (tmp_path / name).write_bytes(content)
    elif content is not None:
        (tmp_path / name).write_text(content, encoding="utf-8")
    return name


@pytest.mark.parametrize("case", list(UNREADABLE))
def test_an_unreadable_spec_exits_2_with_a_message_naming_the_file_and_no_traceback(
    tmp_path: Path, case: str
) -> None:
    name = unreadable_spec(tmp_path, case)
    result = run("generate", name, "-o", "out", "--name", "t", cwd=tmp_path)
    assert_clean_failure(result, UNREADABLE[case][1])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case", ["missing", "yaml-syntax", "json-syntax"])
def test_an_unreadable_spec_leaves_an_existing_output_byte_for_byte_untouched(
    tmp_path: Path, previous_out: Path, case: str
) -> None:
    before = tree(previous_out)
    name = unreadable_spec(tmp_path, case)
    result = run_process("generate", name, "-o", str(previous_out), "--name", "petstore", cwd=tmp_path)
    assert_clean_failure(result, UNREADABLE[case][1])
    assert tree(previous_out) == before
    assert sorted(p.name for p in previous_out.parent.iterdir() if p.name.startswith(".out.")) == []


def test_a_directory_as_spec_exits_2_naming_it(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    assert_clean_failure(
        run("generate", "specs", "-o", "out", "--name", "t", cwd=tmp_path), "specs: cannot read the file"
    )


def test_a_swagger_2_spec_is_converted_and_generated_with_exit_0(tmp_path: Path) -> None:
    (tmp_path / "swagger.yaml").write_text(
        'swagger: "2.0"\ninfo: {title: S, version: "1"}\nhost: api.example.com\nbasePath: /v1\n'
        "paths:\n  /pets:\n    get:\n      operationId: listPets\n"
        "      responses: {'200': {description: ok, schema: {type: array, items: {type: string}}}}\n",
        encoding="utf-8",
    )
    result = run_process("generate", "swagger.yaml", "-o", "out", "--name", "s", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == "out: 1 tools written (0 errors reported)"
    assert (tmp_path / "out" / "s" / "server.py").is_file()


def test_a_string_with_a_lone_surrogate_never_causes_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(
        '{"openapi": "3.0.3", "info": {"title": "Sur \\ud800", "version": "1"}, "paths": {"/a": {"get": '
        '{"operationId": "a", "summary": "x \\ud800", "responses": {"200": {"description": "ok"}}}}}}',
        encoding="utf-8",
    )
    result = run_process("generate", "s.json", "-o", "out", "--name", "s", cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert result.returncode in (0, EXIT_INPUT)


# ---------------------------------------------------------------------------------------------
# Invalid options


@pytest.mark.parametrize("name", ["1pets", "my api", "a.b", "pets/x", "-pets", "ünï", ""])
def test_an_invalid_name_exits_2_naming_the_option_and_writes_nothing(tmp_path: Path, name: str) -> None:
    result = run("generate", str(PETSTORE), "-o", "out", "--name", name, cwd=tmp_path)
    assert_clean_failure(result, f"--name {name!r}")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["pets-", "pets_"])
def test_a_name_that_is_not_a_valid_distribution_name_exits_2(tmp_path: Path, name: str) -> None:
    result = run("generate", str(PETSTORE), "-o", "out", "--name", name, cwd=tmp_path)
    assert_clean_failure(result, "--name")


def test_an_invalid_name_style_exits_2(tmp_path: Path) -> None:
    result = run(
        "generate", str(PETSTORE), "-o", "out", "--name", "p", "--name-style", "dotted", cwd=tmp_path
    )
    assert_clean_failure(result, "--name-style 'dotted'")


def test_an_invalid_name_leaves_an_existing_output_untouched(tmp_path: Path, previous_out: Path) -> None:
    before = tree(previous_out)
    assert_clean_failure(run("generate", str(PETSTORE), "-o", str(previous_out), "--name", "9", cwd=tmp_path))
    assert tree(previous_out) == before


def test_a_foreign_file_in_the_way_exits_2_and_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("my readme\n", encoding="utf-8")
    result = run("generate", str(PETSTORE), "-o", "out", "--name", "petstore", cwd=tmp_path)
    assert result.returncode == EXIT_INPUT
    assert "Traceback" not in result.stderr
    assert "README.md" in result.stderr.splitlines()[-1]
    assert tree(out) == {"README.md": b"my readme\n"}


def test_an_output_path_that_is_a_file_exits_2(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("a file\n", encoding="utf-8")
    result = run("generate", str(PETSTORE), "-o", "out", "--name", "petstore", cwd=tmp_path)
    assert_clean_failure(result, "out: exists and is not a directory")
    assert (tmp_path / "out").read_text("utf-8") == "a file\n"


def test_a_bug_in_the_generator_is_one_clear_line_with_exit_3_and_no_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import openapi2mcp.cli as cli

    def broken(*_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "generate", broken)
    monkeypatch.setattr(
        "sys.argv", ["openapi2mcp", "generate", "x.yaml", "-o", str(tmp_path / "o"), "--name", "x"]
    )
    monkeypatch.delenv(cli.DEBUG_VARIABLE, raising=False)
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 3
    err = capsys.readouterr().err
    assert err.startswith("openapi2mcp: internal error: RuntimeError: boom\n")
    assert "Traceback" not in err
    assert not (tmp_path / "o").exists()


# ---------------------------------------------------------------------------------------------
# --server-var and --strict

REGIONAL_SPEC = (
    "openapi: 3.0.3\n"
    "info: {title: R, version: '1'}\n"
    "servers: [{url: 'https://{region}.r.test', variables: {region: {default: us, enum: [us, eu]}}}]\n"
    "paths:\n"
    "  /a: {get: {operationId: a, responses: {'200': {description: ok}}}}\n"
)


def test_server_var_sets_the_default_base_url_of_the_generated_server(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(REGIONAL_SPEC, encoding="utf-8")
    result = run("generate", "r.yaml", "-o", "out", "--name", "r", "--server-var", "region=eu", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    server = (tmp_path / "out" / "r" / "server.py").read_text("utf-8")
    assert 'DEFAULT_BASE_URL = "https://eu.r.test"' in server


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("region", "--server-var 'region': use NAME=VALUE"),
        ("zone=x", "--server-var zone: no server URL has that variable (it has: region)"),
        ("region=ap", "--server-var region=ap: the spec allows only us, eu"),
    ],
)
def test_a_bad_server_var_exits_2_and_writes_nothing(tmp_path: Path, value: str, fragment: str) -> None:
    (tmp_path / "r.yaml").write_text(REGIONAL_SPEC, encoding="utf-8")
    result = run("generate", "r.yaml", "-o", "out", "--name", "r", "--server-var", value, cwd=tmp_path)
    assert_clean_failure(result, fragment)
    assert not (tmp_path / "out").exists()


def test_strict_fails_on_a_warning_prints_the_diagnostics_and_leaves_out_untouched(
    tmp_path: Path, previous_out: Path
) -> None:
    before = tree(previous_out)
    (tmp_path / "w.yaml").write_text(REGIONAL_SPEC.replace("default: us, ", ""), encoding="utf-8")
    result = run_process("generate", "w.yaml", "-o", "out", "--name", "petstore", "--strict", cwd=tmp_path)
    assert result.returncode == EXIT_INPUT and not result.crashed
    assert result.stderr.splitlines() == [
        "warning: #/servers/0: server variable 'region' has no default: "
        "give one with --server-var region=VALUE",
        "openapi2mcp: error: --strict: 0 errors and 1 warnings (listed above); nothing was written",
    ]
    assert tree(previous_out) == before


def test_strict_passes_a_spec_with_only_info_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(REGIONAL_SPEC.replace("/a:", "/a?x=1:"), encoding="utf-8")
    result = run("generate", "r.yaml", "-o", "out", "--name", "r", "--strict", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("info: #/paths/~1a?x=1/get: ")


def _nested_spec(levels: int) -> str:
    schema: dict[str, object] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    operation = {"requestBody": {"content": {"application/json": {"schema": schema}}}, "responses": {}}
    paths = {"/deep": {"post": operation}, "/b": {"get": {"operationId": "fine", "responses": {}}}}
    return json.dumps({"openapi": "3.0.3", "info": {"title": "D", "version": "1"}, "paths": paths})


def test_a_spec_nested_hundreds_of_levels_deep_exits_2_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text(_nested_spec(400), encoding="utf-8")
    result = run_process("generate", "deep.json", "-o", "out", "--name", "d", cwd=tmp_path)
    assert_clean_failure(result, "deep.json: the spec is nested too deeply to be processed")
    assert not (tmp_path / "out").exists()


def test_a_spec_nested_a_hundred_levels_deep_is_generated(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text(_nested_spec(100), encoding="utf-8")
    result = run("generate", "deep.json", "-o", "out", "--name", "d", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-1] == "out: 2 tools written (0 errors reported)"


# ---------------------------------------------------------------------------------------------
# Size options (openapi2mcp/budget.py)


def petstore_tools(out: Path) -> list[dict[str, object]]:
    tools: list[dict[str, object]] = json.loads((out / "petstore" / "tool_data.json").read_text("utf-8"))[
        "tools"
    ]
    return tools


def test_size_options_reach_the_generated_tools(tmp_path: Path) -> None:
    result = run(
        "generate", str(PETSTORE), "-o", "out", "--name", "petstore",
        "--input-schema-limit", "150", "--output-schemas", "none", "--tools-list-limit", "0",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    tools = petstore_tools(tmp_path / "out")
    assert all("outputSchema" not in tool for tool in tools)
    sizes = [len(json.dumps(tool["inputSchema"], separators=(",", ":"))) for tool in tools]
    assert max(sizes) > 150  # some cannot fit: reported
    compacted = [line for line in result.stderr.splitlines() if line.startswith("info: #: ")]
    assert len(compacted) == 1 and "inputSchemas compacted to fit 150 bytes" in compacted[0]
    unmet = [line for line in result.stderr.splitlines() if line.startswith("warning: #: ")]
    assert len(unmet) == 1 and "are over 150 bytes even with each argument cut to its type" in unmet[0]


def test_without_limits_the_schemas_are_as_converted(tmp_path: Path, petstore_out: Path) -> None:
    result = run(
        "generate", str(PETSTORE), "-o", "out", "--name", "petstore",
        "--input-schema-limit", "0", "--output-schemas", "full", "--tools-list-limit", "0",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert petstore_tools(tmp_path / "out") == petstore_tools(petstore_out)  # the petstore fits anyway


@pytest.mark.parametrize(
    ("option", "value", "fragment"),
    [
        ("--output-schemas", "some", "--output-schemas 'some': choose 'compact', 'full' or 'none'"),
        ("--input-schema-limit", "-1", "--input-schema-limit -1: give a number of bytes, or 0 for no limit"),
        ("--tools-list-limit", "-5", "--tools-list-limit -5: give a number of bytes, or 0 for no limit"),
    ],
)
def test_a_bad_size_option_exits_2_and_writes_nothing(
    tmp_path: Path, option: str, value: str, fragment: str
) -> None:
    result = run("generate", str(PETSTORE), "-o", "out", "--name", "petstore", option, value, cwd=tmp_path)
    assert_clean_failure(result, fragment)
    assert not (tmp_path / "out").exists()
