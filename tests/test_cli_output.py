"""What `generate` prints: diagnostics grouped by kind with their places in the spec (`--verbose`,
`--quiet`), GitHub Actions annotations (`--diagnostics-format github`), and a progress line on a
terminal only (`openapi2mcp/cli/diagnostics.py`, `cli/progress.py`)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time
from pathlib import Path

import pytest
from test_cli import CLI, EXIT_INPUT, run, run_process

from openapi2mcp.cli.diagnostics import escape_data, escape_property, grouped, kind_of
from openapi2mcp.diagnostics import Diagnostic, Level

# Two errors of one kind, one warning, five places of one info and another info.
SPEC = """\
openapi: 3.0.3
info: {title: G, version: '1'}
servers: [{url: 'https://g.test'}]
paths:
  /b/{id}:
    get: {operationId: b, responses: {'200': {description: ok}}}
  /c/{id}:
    get: {operationId: c, responses: {'200': {description: ok}}}
  /s:
    get: {operationId: s, servers: [{url: 'https://'}], responses: {'200': {description: ok}}}
  /h:
    get: {operationId: h1, parameters: [{name: Accept, in: header}], responses: {}}
    put: {operationId: h2, parameters: [{name: Accept, in: header}], responses: {}}
    post: {operationId: h3, parameters: [{name: Accept, in: header}], responses: {}}
    delete: {operationId: h4, parameters: [{name: Accept, in: header}], responses: {}}
    patch: {operationId: h5, parameters: [{name: Accept, in: header}], responses: {}}
  /d:
    get: {operationId: d, x-mcp: false, responses: {'200': {description: ok}}}
"""
ERRORS = [
    "error: path parameter(s) ['…'] of '…' are not declared; operation skipped (2 places)",
    "  g.yaml:6:5: #/paths/~1b~1{id}/get: path parameter(s) ['id'] of '/b/{id}' are not declared; "
    "operation skipped",
    "  g.yaml:8:5: #/paths/~1c~1{id}/get: path parameter(s) ['id'] of '/c/{id}' are not declared; "
    "operation skipped",
]
WARNING = (
    "warning: g.yaml:10:37: #/paths/~1s/get/servers/0: server URL 'https://' names no host; "
    "the API's base URL is used"
)
HEADERS = "info: header parameter 'Accept' is ignored, as OpenAPI specifies (5 places)"
HEADER_PLACES = [
    "  g.yaml:12:41: #/paths/~1h/get/parameters/0",
    "  g.yaml:13:41: #/paths/~1h/put/parameters/0",
    "  g.yaml:14:42: #/paths/~1h/post/parameters/0",
    "  g.yaml:15:44: #/paths/~1h/delete/parameters/0",
    "  g.yaml:16:43: #/paths/~1h/patch/parameters/0",
]
LEFT_OUT = "info: g.yaml:18:5: #/paths/~1d/get: x-mcp: false: left out"
SUMMARY = [
    "out: 6 tools written (2 errors reported)",
    "out: 6 tools in 1 toolset, tools/list about 576 tokens; recommended mode: static "
    "(details: openapi2mcp inspect out)",
    "out: environment: no variable required; 28 optional settings in out/README.md",
    "out: add it to Claude Code (after `pip install ./out`):",
    "  claude mcp add --transport stdio g -- g",
    "out: Claude Desktop, VS Code, Cursor, uvx, HTTP and more: out/README.md (Use it from a client)",
]


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    (tmp_path / "g.yaml").write_text(SPEC, encoding="utf-8")
    return tmp_path


def test_text_groups_each_kind_with_its_count_and_first_three_places_errors_first(spec: Path) -> None:
    result = run("generate", "g.yaml", "-o", "out", "--name", "g", cwd=spec)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        *ERRORS,
        WARNING,
        HEADERS,
        *HEADER_PLACES[:3],
        "  … 2 more (--verbose lists them all)",
        LEFT_OUT,
        *SUMMARY,
    ]


def test_verbose_lists_every_place(spec: Path) -> None:
    result = run("generate", "g.yaml", "-o", "out", "--name", "g", "--verbose", cwd=spec)
    assert result.stderr.splitlines() == [*ERRORS, WARNING, HEADERS, *HEADER_PLACES, LEFT_OUT, *SUMMARY]


def test_quiet_prints_the_errors_only_and_the_exit_status_tells_the_rest(spec: Path) -> None:
    result = run("generate", "g.yaml", "-o", "out", "--name", "g", "-q", cwd=spec)
    assert (result.returncode, result.stdout, result.stderr.splitlines()) == (0, "", ERRORS)
    assert (spec / "out" / "g" / "data" / "tool_data.json").is_file()


def test_quiet_with_strict_prints_the_warnings_that_fail_the_run(spec: Path) -> None:
    result = run("generate", "g.yaml", "-o", "out", "--name", "g", "--quiet", "--strict", cwd=spec)
    assert result.returncode == EXIT_INPUT
    assert result.stderr.splitlines() == [
        *ERRORS,
        WARNING,
        "openapi2mcp: error: --strict: 2 errors and 1 warnings (listed above); nothing was written",
    ]


def test_github_format_prints_one_annotation_per_diagnostic_on_stdout(spec: Path) -> None:
    result = run("generate", "g.yaml", "-o", "out", "--name", "g", "--diagnostics-format", "github", cwd=spec)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == SUMMARY
    header = "header parameter 'Accept' is ignored, as OpenAPI specifies"
    assert result.stdout.splitlines() == [
        "::error file=g.yaml,line=6,col=5,title=#/paths/~1b~1{id}/get::path parameter(s) ['id'] of "
        "'/b/{id}' are not declared; operation skipped",
        "::error file=g.yaml,line=8,col=5,title=#/paths/~1c~1{id}/get::path parameter(s) ['id'] of "
        "'/c/{id}' are not declared; operation skipped",
        "::warning file=g.yaml,line=10,col=37,title=#/paths/~1s/get/servers/0::server URL 'https://' "
        "names no host; the API's base URL is used",
        f"::notice file=g.yaml,line=12,col=41,title=#/paths/~1h/get/parameters/0::{header}",
        f"::notice file=g.yaml,line=13,col=41,title=#/paths/~1h/put/parameters/0::{header}",
        f"::notice file=g.yaml,line=14,col=42,title=#/paths/~1h/post/parameters/0::{header}",
        f"::notice file=g.yaml,line=15,col=44,title=#/paths/~1h/delete/parameters/0::{header}",
        f"::notice file=g.yaml,line=16,col=43,title=#/paths/~1h/patch/parameters/0::{header}",
        "::notice file=g.yaml,line=18,col=5,title=#/paths/~1d/get::x-mcp: false: left out",
    ]


def test_github_format_escapes_percent_comma_and_colon_in_properties_and_percent_in_the_message(
    tmp_path: Path,
) -> None:
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "E", "version": "1"},
        "servers": [{"url": "https://e.test"}],
        "paths": {"/x?q=1%,2:3": {"get": {"operationId": "x", "responses": {}}}},
    }
    (tmp_path / "a,b:c.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
    result = run(
        "generate", "a,b:c.json", "-o", "out", "--name", "e", "--diagnostics-format", "github", cwd=tmp_path
    )
    assert result.stdout.splitlines() == [
        "::notice file=a%2Cb%3Ac.json,line=14,col=4,title=#/paths/~1x?q=1%25%2C2%3A3/get::path key "
        "'/x?q=1%25,2:3': sends the fixed query 'q=1%25,2:3' with every call"
    ]


def test_escapes_are_those_of_githubs_toolkit() -> None:
    assert escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_a_kind_leaves_out_quoted_names_and_numbers() -> None:
    assert kind_of("header parameter 'Accept' is ignored") == "header parameter '…' is ignored"
    assert kind_of('value "x" of 1,234 items (0.5)') == 'value "…" of … items (…)'
    assert (
        kind_of("the arguments' own properties of oauth2 in v3")
        == "the arguments' own properties of oauth2 in v3"
    )


def test_an_unknown_diagnostics_format_is_refused(spec: Path) -> None:
    result = run("generate", "g.yaml", "-o", "out", "--name", "g", "--diagnostics-format", "sarif", cwd=spec)
    assert result.returncode == EXIT_INPUT
    assert result.stderr == "openapi2mcp: error: --diagnostics-format 'sarif': choose 'text' or 'github'\n"


def test_a_real_process_writing_to_a_pipe_prints_no_ansi_and_no_progress(spec: Path) -> None:
    result = run_process("generate", "g.yaml", "-o", "out", "--name", "g", cwd=spec)
    assert result.returncode == 0
    assert result.stderr.splitlines()[: len(ERRORS)] == ERRORS
    assert "\x1b" not in result.stderr + result.stdout


def run_on_terminal(*args: str, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """The console script with stdin, stdout and stderr on a pseudo-terminal: its exit status and
    everything it wrote there."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [str(CLI), *args], cwd=cwd, env=env, stdin=terminal, stdout=terminal, stderr=terminal
    )
    os.close(terminal)
    output = bytearray()
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # the terminal closed: the process is gone
                    break
                if not chunk:
                    break
                output += chunk
            elif process.poll() is not None:
                break
        return process.wait(timeout=30), output.decode("utf-8", "replace")
    finally:
        process.kill()
        os.close(controller)


def _environment(**changes: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    return {**env, "TERM": "xterm-256color", "COLUMNS": "100", **changes}


def test_a_terminal_shows_the_stages_as_they_run_and_coloured_diagnostics(spec: Path) -> None:
    status, output = run_on_terminal(
        "generate", "g.yaml", "-o", "out", "--name", "g", cwd=spec, env=_environment()
    )
    assert status == 0, output
    for stage in ("load", "format", "write"):
        assert stage in output
    assert "\x1b[2K" in output  # the progress line is redrawn, then erased
    assert "\x1b[1;31merror\x1b[0m" in output
    assert SUMMARY[0] in output


@pytest.mark.parametrize("setting", [{"CI": "true"}, {}])
def test_no_progress_and_no_ansi_in_ci_or_with_quiet_even_on_a_terminal(
    spec: Path, setting: dict[str, str]
) -> None:
    quiet = () if setting else ("--quiet",)
    status, output = run_on_terminal(
        "generate", "g.yaml", "-o", "out", "--name", "g", *quiet, cwd=spec, env=_environment(**setting)
    )
    assert status == 0, output
    assert "\x1b" not in output
    assert output.splitlines()[: len(ERRORS)] == ERRORS


def test_a_diagnostic_said_again_counts_once_in_its_group() -> None:
    said = [Diagnostic("#/paths/~1a/parameters/0", Level.INFO, "header parameter 'Accept' is ignored")] * 3
    other = Diagnostic("#/paths/~1b/parameters/0", Level.INFO, "header parameter 'Accept' is ignored")
    assert [(group.title, group.items) for group in grouped([*said, other])] == [
        ("header parameter 'Accept' is ignored", [said[0], other])
    ]


def test_inspect_quiet_leaves_out_the_note_on_skipped_operations(spec: Path) -> None:
    noted = run("inspect", "g.yaml", cwd=spec)
    quiet = run("inspect", "g.yaml", "--quiet", cwd=spec)
    note = "openapi2mcp: g.yaml: 2 operations skipped with errors (`openapi2mcp generate` lists them)\n"
    assert (noted.returncode, noted.stderr) == (0, note)
    assert (quiet.returncode, quiet.stderr, quiet.stdout) == (0, "", noted.stdout)
