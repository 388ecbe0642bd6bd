"""The README's first command: `bash scripts/demo` generates, installs and runs the sample server."""

from __future__ import annotations

import os
import subprocess

import pytest
from e2e_support import REPO, free_port

pytestmark = pytest.mark.e2e


def test_the_demo_lists_the_tools_and_calls_two_of_them_against_the_mock() -> None:
    env = {**os.environ, "DEMO_MOCK_PORT": str(free_port()), "DEMO_HTTP_PORT": str(free_port())}
    done = subprocess.run(
        ["bash", "scripts/demo", "--once"], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert "7 tools:" in lines
    assert any(line.split()[:1] == ["listPets"] for line in lines)
    assert 'listPets({"limit": 2}) -> isError=False' in lines
    assert 'showPetById({"petId": "rex"}) -> isError=False' in lines
    assert "Traceback" not in done.stdout + done.stderr
