"""The venvs of the MCP client libraries (test_e2e_clients.py): one per library, each its own
resolution (langchain-mcp-adapters needs mcp<2, the generated servers mcp>=2.3).

`tests/e2e/clients/NAME.in` names the library at its pinned version; `NAME.lock` is every package
of its venv, pinned (`PYTHONPATH=tests .venv/bin/python tests/e2e/client_venvs.py` writes them
again with uv). A venv is `.cache/client-venvs/NAME-<hash of its lock>`, made by uv from the lock
once and reused.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from e2e_support import CACHE
from server_deps import uv_command, uv_env
from venv_support import file_lock

PINS = Path(__file__).resolve().parent / "clients"
VENV_ROOT = CACHE / "client-venvs"
# The library, its venv's name and the script (in clients/) that converts with it.
SCRIPTS = {
    "google-genai": "convert_google_genai.py",
    "openai-agents": "convert_openai_agents.py",
    "langchain-mcp-adapters": "convert_langchain.py",
    "pydantic-ai": "convert_pydantic_ai.py",
}


@dataclass(frozen=True)
class ClientVenv:
    name: str
    path: Path

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    @property
    def script(self) -> Path:
        return PINS / SCRIPTS[self.name]

    def version(self, package: str) -> str:
        """The pinned version of `package` in the lock ("" when it has none)."""
        for line in (PINS / f"{self.name}.lock").read_text("utf-8").splitlines():
            if line.lower().startswith(f"{package.lower()}=="):
                return line.split("==", 1)[1].strip()
        return ""

    @classmethod
    def ensure(cls, name: str) -> ClientVenv:
        lock = PINS / f"{name}.lock"
        key = hashlib.sha256(f"{sys.version}\n{lock.read_text('utf-8')}".encode()).hexdigest()[:16]
        venv = cls(name, VENV_ROOT / f"{name}-{key}")
        ready = venv.path / ".ready"
        with file_lock(VENV_ROOT / f".{name}.lock"):
            if ready.is_file():
                return venv
            for stale in VENV_ROOT.glob(f"{name}-*"):
                shutil.rmtree(stale, ignore_errors=True)
            _uv("venv", "--python", sys.executable, str(venv.path))
            _uv("pip", "sync", "--python", str(venv.python), "--compile-bytecode", str(lock))
            ready.write_text(key + "\n")
        return venv


def _uv(*args: str) -> None:
    argv = [uv_command(), *args, "--no-config", "--quiet"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=uv_env())
    if done.returncode != 0:
        pytest.fail(f"cannot build a client venv: {' '.join(argv)}\n{done.stderr}", pytrace=False)


def lock() -> None:
    """Write each NAME.lock from NAME.in (uv pip compile, for this Python)."""
    for name in SCRIPTS:
        argv = [uv_command(), "pip", "compile", str(PINS / f"{name}.in"), "--no-config", "--quiet"]
        argv += ["--python", sys.executable, "--no-header", "--no-annotate", "-o", str(PINS / f"{name}.lock")]
        subprocess.run(argv, check=True, timeout=300, env=uv_env())


if __name__ == "__main__":
    lock()
