"""Claude Code, the CLI people add MCP servers with (npm `@anthropic-ai/claude-code`, pinned in
tools/npm): every `claude mcp add` line that `generate`, the generated README, our README and
docs/getting-started.md print is run as printed, in a shell, in a fresh home; then `claude mcp list`
starts or reaches the server and must say Connected. Both commands work offline.

The only edits are the ones a user makes: the package's real path in place of the README's
`/path/to/NAME` placeholder, and the HTTP server's real port in place of 8000."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from e2e_support import NPM_MODULES, REPO, SETUP_HINT, Generated, generator_command, read_text
from http_support import HttpServer
from server_deps import runtime_options, selected_runtime, uv_command, uv_env
from venv_support import ServerVenv

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]
CLAUDE = NPM_MODULES / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
QUIET = {  # Claude Code's documented switches for its own traffic: nothing leaves the machine
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}
ADD_LINE = re.compile(r"^\s*(claude mcp add .*)$", re.MULTILINE)


@dataclass(frozen=True)
class ClaudeCode:
    """The CLI with its own home (its config, ~/.claude.json) and a project folder to run in."""

    home: Path
    project: Path
    path: str  # PATH: where the user's installed servers and uv are found

    def run(self, command: str, **env: str) -> subprocess.CompletedProcess[str]:
        """A shell command line, as a user pastes it, with `claude` on PATH."""
        # The user's shell: what uv needs to reach the index (certificates, proxies) and their uv
        # cache (not a cold one per test), with a home of its own.
        uv_cache = os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv")
        settings = {**QUIET, "HOME": str(self.home), "PATH": self.path, "UV_CACHE_DIR": uv_cache}
        environment = uv_env({**settings, **env})
        return subprocess.run(
            ["bash", "-c", command],
            capture_output=True,
            text=True,
            env=environment,
            cwd=self.project,
            timeout=180,
            check=False,
        )

    def connected(self, line: str, name: str, **env: str) -> None:
        """`line` adds server `name`, and `claude mcp list` says it is connected."""
        added = self.run(line, **env)
        assert added.returncode == 0, f"$ {line}\n{added.stdout}\n{added.stderr}"
        listed = self.run("claude mcp list", **env)
        status = [row for row in listed.stdout.splitlines() if row.startswith(f"{name}: ")]
        shown = f"$ {line}\n{listed.stdout}{listed.stderr}"
        assert len(status) == 1 and status[0].endswith("Connected"), shown


@pytest.fixture
def claude(server_venv: ServerVenv, tmp_path: Path) -> ClaudeCode:
    if not CLAUDE.is_file():
        pytest.fail(f"Claude Code is missing ({CLAUDE.relative_to(REPO)}): {SETUP_HINT}", pytrace=False)
    bin_dir = tmp_path / "bin"  # `claude` and uv's `uvx`, as a user has them on PATH
    bin_dir.mkdir()
    (bin_dir / "claude").symlink_to(CLAUDE)
    uv = Path(uv_command())
    for tool in ("uv", "uvx"):
        if (uv.parent / tool).is_file():
            (bin_dir / tool).symlink_to(uv.parent / tool)
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    path = os.pathsep.join([str(bin_dir), str(server_venv.python.parent), os.environ.get("PATH", "")])
    return ClaudeCode(tmp_path / "home", tmp_path / "project", path)


def add_lines(text: str) -> list[str]:
    return ADD_LINE.findall(text)


def test_the_line_generate_prints_adds_a_connected_server(claude: ClaudeCode, petstore: Generated) -> None:
    (line,) = add_lines(petstore.cli_output)
    claude.connected(line, petstore.name)


def test_the_generated_readmes_stdio_lines_add_a_connected_server(
    claude: ClaudeCode, petstore: Generated
) -> None:
    installed, uvx, _http = add_lines(read_text(petstore.source / "README.md"))
    claude.connected(installed, petstore.name)
    if selected_runtime() == "package":  # uvx would resolve openapi2mcp-runtime from PyPI
        return  # (the line is the same; the first pass, vendored, connects it)
    claude.run(f"claude mcp remove {petstore.name}")
    claude.connected(uvx.replace(f"/path/to/{petstore.name}", str(petstore.source)), petstore.name)


def test_the_generated_readmes_http_line_reaches_the_token_endpoint(
    claude: ClaudeCode, petstore: Generated, tmp_path: Path
) -> None:
    *_stdio, http = add_lines(read_text(petstore.source / "README.md"))
    token = "claude-code-token"
    env = petstore.env("http://127.0.0.1:9", MCP_TOKENS=token)
    server = HttpServer(petstore, env, tmp_path / "server.log", args=["--auth", "token"]).start()
    try:
        line = http.replace("127.0.0.1:8000", f"127.0.0.1:{server.port}")
        claude.connected(line, petstore.name, **{f"{petstore.env_prefix}_MCP_TOKEN": token})
        claude.run(f"claude mcp remove {petstore.name}")
        wrong = {f"{petstore.env_prefix}_MCP_TOKEN": "not-the-token"}
        assert claude.run(line, **wrong).returncode == 0
        listed = claude.run("claude mcp list", **wrong).stdout
        assert "Connected" not in listed, listed  # the token is what connects it
    finally:
        server.stop()


@pytest.fixture(scope="module")
def readme_package(server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package our README generates (`--name petstore-mcp --env-prefix PETSTORE`), installed."""
    workdir = tmp_path_factory.mktemp("readme")
    command = [*generator_command(), "generate", str(REPO / "specs" / "petstore.yaml"), "-o", "petstore-mcp",
               "--name", "petstore-mcp", "--env-prefix", "PETSTORE", *runtime_options()]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, cwd=workdir, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    server_venv.install(workdir / "petstore-mcp", "petstore-mcp")
    return server_venv.bin("petstore-mcp")


def test_our_readmes_lines_add_a_connected_server(claude: ClaudeCode, readme_package: Path) -> None:
    """The line `generate` is shown printing, and the Claude Code line of the tour (the README) and
    of 'Add it to a client' (Getting started), its script at `~/.venvs/petstore/bin/petstore-mcp`,
    here a link to the installed one."""
    lines: set[str] = set()
    for page in (REPO / "README.md", REPO / "docs" / "getting-started.md"):
        text = " ".join(read_text(page).split())  # the item wraps its inline code
        printed = re.findall(r"(claude mcp add --transport stdio petstore-mcp [^`]*?-- petstore-mcp)", text)
        listed = re.findall(r"`(claude mcp add [^`]*)`", text)
        assert len(printed) == 1 and len(listed) == 1, (page.name, printed, listed)
        lines.update((*printed, *listed))
    scripts = claude.home / ".venvs" / "petstore" / "bin"
    scripts.mkdir(parents=True)
    (scripts / "petstore-mcp").symlink_to(readme_package)
    for line in sorted(lines):
        claude.connected(line, "petstore-mcp")
        claude.run("claude mcp remove petstore-mcp")
