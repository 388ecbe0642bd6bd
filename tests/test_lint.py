"""House rules as tests: ruff clean, mypy strict on the generator and on the generated runtime."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing() -> None:
    done = run(str(BIN / "ruff"), "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_generator_passes_mypy_strict() -> None:
    done = run(str(BIN / "mypy"), "--no-incremental")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_runtime_passes_mypy_strict_on_its_own() -> None:
    done = run(str(BIN / "mypy"), "--strict", "--no-incremental", "-p", "openapi2mcp_runtime")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_runtime_modules_copied_verbatim_are_already_black_formatted() -> None:
    from openapi2mcp.emit.formatting import format_python
    from openapi2mcp.emit.runtime_forms import runtime_sources

    for path, text in runtime_sources().items():
        assert format_python(text) == text, f"openapi2mcp_runtime/{path}: run black -l 100 on it"
