"""The venv that runs generated servers in the end-to-end tests: one resolution of the generated
package's dependencies (tests/server_deps.py: the lowest or newest end of their pins) built by uv
into .cache/e2e-venv, and generated packages installed into it; a lock between pytest-xdist workers."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from server_deps import Resolution, package_requirements, selected_runtime, uv_command, uv_env

from openapi2mcp.emit.runtime_forms import runtime_requirement

# The venvs that run generated servers: one per resolution of the generated package's dependencies
# (server_deps.py: the lowest or newest end of its pins), named by the hash of what they contain.
VENV_ROOT = Path(__file__).resolve().parents[2] / ".cache" / "e2e-venv"


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock between pytest-xdist workers (and concurrent runs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def tree_digest(root: Path, pattern: str = "*") -> str:
    """The files under `root` matching `pattern`, by path and bytes, as one hex digest."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob(pattern) if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class ServerVenv:
    """A venv holding exactly one resolution of the generated package's dependencies (built by uv,
    reused across runs while the resolution is the same; the 2 last used are kept), into which
    generated packages are installed without their dependencies."""

    path: Path
    resolution: Resolution

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    def bin(self, name: str) -> Path:
        return self.path / "bin" / name

    @classmethod
    def ensure(cls, resolution: Resolution) -> ServerVenv:
        venv = cls(VENV_ROOT / resolution.key, resolution)
        ready = venv.path / ".e2e-ready"
        with file_lock(VENV_ROOT / ".lock"):
            if ready.is_file():
                ready.touch()  # (the most recently used venvs are kept)
                return venv
            prune_venvs(keep=1)
            shutil.rmtree(venv.path, ignore_errors=True)  # (a build that was cut short)
            lock = venv.path.with_name(venv.path.name + ".lock.txt")
            lock.write_text(resolution.lock_text())
            venv._uv("venv", "--python", sys.executable, str(venv.path), timeout=120)
            venv._uv("pip", "sync", "--python", str(venv.python), str(lock), timeout=600)
            lock.replace(venv.path / "lock.txt")
            ready.write_text(resolution.key + "\n")
        return venv

    def _uv(self, *args: str, timeout: float) -> None:
        argv = [uv_command(), *args, "--no-config"]
        try:
            result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=uv_env())
        except subprocess.TimeoutExpired:
            pytest.fail(f"building the e2e venv {self.path} took over {timeout:g}s: {argv}", pytrace=False)
        if result.returncode != 0:
            pytest.fail(
                f"cannot build the e2e venv {self.path}: {' '.join(argv)}\n{result.stdout}\n{result.stderr}",
                pytrace=False,
            )

    def install(self, source: Path, dist_name: str) -> None:
        """Install a generated package (no deps: the venv has them), unless it is there."""
        digest = self._checked_digest(source)
        with file_lock(VENV_ROOT / ".lock"):
            if self._installed(dist_name, digest):
                return
            result = self._uv_install({dist_name: source})
            if result.returncode != 0:
                pytest.fail(f"uv pip install {source}:\n{result.stdout}\n{result.stderr}", pytrace=False)
            self._marker(dist_name).write_text(digest)

    def install_many(self, sources: Mapping[str, Path]) -> dict[str, str]:
        """`install` for many packages (dist name -> tree) in one uv run; returns uv's output for
        each package that could not be installed (after a failed batch, each is installed alone)."""
        digests = {name: self._checked_digest(source) for name, source in sources.items()}
        failed: dict[str, str] = {}
        with file_lock(VENV_ROOT / ".lock"):
            todo = {name: sources[name] for name in sources if not self._installed(name, digests[name])}
            if todo and self._uv_install(todo).returncode != 0:
                for name, source in todo.items():
                    result = self._uv_install({name: source})
                    if result.returncode != 0:
                        failed[name] = f"{result.stdout}\n{result.stderr}"
            for name in todo:
                if name not in failed:
                    self._marker(name).write_text(digests[name])
        return failed

    def _checked_digest(self, source: Path) -> str:
        """The tree's digest, after checking that the package declares the dependencies this venv
        was resolved from (else the e2e tests would run it against the wrong versions)."""
        pyproject = tomllib.loads((source / "pyproject.toml").read_text("utf-8"))
        declared = pyproject.get("project", {}).get("dependencies")
        vendored = selected_runtime() == "vendored"
        expected = package_requirements() if vendored else (runtime_requirement(),)
        if sorted(declared or ()) != sorted(expected):
            pytest.fail(
                f"{source} declares the dependencies {declared}, but the e2e venv was made for "
                f"{list(expected)} (openapi2mcp_runtime.DEPENDENCIES, or the runtime distribution with"
                f" --runtime package: see tests/server_deps.py)",
                pytrace=False,
            )
        return tree_digest(source)

    def _marker(self, dist_name: str) -> Path:
        marker = self.path / ".e2e-installed" / f"{dist_name}.sha256"
        marker.parent.mkdir(exist_ok=True)
        return marker

    def _installed(self, dist_name: str, digest: str) -> bool:
        marker = self._marker(dist_name)
        return marker.is_file() and marker.read_text() == digest and self.bin(dist_name).is_file()

    def _uv_install(self, sources: Mapping[str, Path]) -> subprocess.CompletedProcess[str]:
        """uv pip install the trees, rebuilt (each in an isolated build environment) and reinstalled."""
        reinstall = [arg for name in sources for arg in ("--reinstall-package", name)]
        return subprocess.run(
            [
                uv_command(),
                "pip",
                "install",
                "--no-config",
                "--python",
                str(self.python),
                "--quiet",
                "--no-deps",
                *reinstall,
                *map(str, sources.values()),
            ],
            capture_output=True,
            text=True,
            timeout=300 + 30 * len(sources),
            env=uv_env(),
        )


def prune_venvs(keep: int) -> None:
    """Remove all but the `keep` most recently used venvs (and anything else) under VENV_ROOT;
    call with the lock held."""
    VENV_ROOT.mkdir(parents=True, exist_ok=True)
    venvs = [path for path in VENV_ROOT.iterdir() if (path / ".e2e-ready").is_file()]
    venvs.sort(key=lambda path: (path / ".e2e-ready").stat().st_mtime, reverse=True)
    kept = set(venvs[:keep])
    for stale in VENV_ROOT.iterdir():
        if stale.name == ".lock" or stale in kept:
            continue
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)
