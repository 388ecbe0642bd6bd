"""The openapi2mcp-runtime wheel of this checkout (scripts/build-runtime-wheel) in the server venv,
for the packages generated with `--runtime package` when OPENAPI2MCP_E2E_RUNTIME=package
(server_deps.selected_runtime; .ci/run's second pass)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping

import pytest
from e2e_support import CACHE, REPO
from server_deps import uv_command, uv_env
from venv_support import ServerVenv, file_lock, tree_digest

WHEELS = CACHE / "runtime-wheel"
BUILD_TIMEOUT = 360.0  # seconds for scripts/build-runtime-wheel (uv may fetch hatchling first)


def install_runtime_wheel(venv: ServerVenv) -> None:
    """Build the runtime wheel of this checkout and install it into `venv` (no dependencies: the venv
    has them), once for the sources as they are."""
    digest = tree_digest(REPO / "openapi2mcp_runtime", "*.py")[:16]  # the runtime's sources as they are
    marker = venv.path / ".runtime-wheel"
    with file_lock(WHEELS.with_suffix(".lock")):
        if marker.is_file() and marker.read_text() == digest:
            return
        built = _run(["bash", str(REPO / "scripts" / "build-runtime-wheel"), str(WHEELS / digest)])
        wheel = built.stdout.strip().splitlines()[-1]
        _run([uv_command(), "pip", "install", "--no-config", "--no-deps", "--reinstall",
              "--python", str(venv.python), wheel], env=uv_env())  # fmt: skip
        marker.write_text(digest)


def _run(argv: list[str], env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=BUILD_TIMEOUT, env=dict(env) if env else None
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(argv)} took over {BUILD_TIMEOUT:g} s", pytrace=False)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}", pytrace=False)
    return done
