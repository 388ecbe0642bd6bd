"""The dependencies of a generated package, resolved by uv at either end of their pins.

- lowest: every direct dependency at the lowest version its specifier allows (uv's
  `--resolution lowest-direct`);
- newest: the highest versions the specifiers allow (`--resolution highest`).

Transitive dependencies are whatever the resolver picks. The specifiers are the runtime's own
(`openapi2mcp_runtime.DEPENDENCIES`, which a generated pyproject lists): no second list of pins
is kept here. A resolution is a lock text (one `name==version` line per package); the hash of the
packages and the Python version names the cached venv of the e2e tests, so a new release inside a
pin gives a new venv. The e2e tests run one end, chosen by OPENAPI2MCP_E2E_DEPS (default lowest).

As a script (what .ci/run uses):
    python tests/server_deps.py lowest|newest    print the lock text of one end
    python tests/server_deps.py compare          both ends; exit 0 when they are the same packages,
                                                 1 when they differ, 2 when resolution failed
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import openapi2mcp_runtime

REPO = Path(__file__).resolve().parents[1]
E2E_DIR = REPO / "tests" / "e2e"

ENV_VAR = "OPENAPI2MCP_E2E_DEPS"
RESOLUTIONS = {"lowest": "lowest-direct", "newest": "highest"}  # end -> uv's --resolution
DEFAULT_END = "lowest"

HTTP_TIMEOUT = 15  # seconds uv waits on a silent index (it retries 3 times by default)
RESOLVE_TIMEOUT = 150.0  # seconds for a whole `uv pip compile`: a hard stop behind uv's own limits
SETUP_HINT = "run `bash scripts/setup`"

_PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")


class ResolutionError(Exception):
    """The dependencies could not be resolved (no uv, no network, no versions that fit)."""


def selected_end(environ: Mapping[str, str] = os.environ) -> str:
    """The end named by OPENAPI2MCP_E2E_DEPS (unset or empty: lowest); ValueError for another name."""
    end = environ.get(ENV_VAR, "").strip() or DEFAULT_END
    if end not in RESOLUTIONS:
        raise ValueError(f"{ENV_VAR}={end!r}: expected one of {', '.join(RESOLUTIONS)}")
    return end


RUNTIME_VAR = "OPENAPI2MCP_E2E_RUNTIME"
RUNTIMES = ("vendored", "package")


def selected_runtime(environ: Mapping[str, str] = os.environ) -> str:
    """The runtime the e2e tests' packages run on, named by OPENAPI2MCP_E2E_RUNTIME: `vendored` (the
    default: `_runtime/` in each package) or `package` (`generate --runtime package`, on the
    runtime wheel of this checkout: e2e/runtime_mode.py); ValueError for another name."""
    runtime = environ.get(RUNTIME_VAR, "").strip() or RUNTIMES[0]
    if runtime not in RUNTIMES:
        raise ValueError(f"{RUNTIME_VAR}={runtime!r}: expected one of {', '.join(RUNTIMES)}")
    return runtime


def runtime_options() -> list[str]:
    """The `openapi2mcp generate` options of the selected runtime."""
    return ["--runtime", "package"] if selected_runtime() == "package" else []


def package_requirements() -> tuple[str, ...]:
    """The dependencies every generated package declares (vendoring the runtime): the runtime's."""
    return tuple(openapi2mcp_runtime.DEPENDENCIES)


def venv_requirements() -> tuple[str, ...]:
    """What the e2e venv holds: the package's dependencies and those of every extra (`code`)."""
    extras = [entry for entries in openapi2mcp_runtime.EXTRAS.values() for entry in entries]
    return (*package_requirements(), *extras)


def parse_pins(text: str) -> tuple[tuple[str, str], ...]:
    """The `name==version` lines of a lock text (comments and blank lines skipped), by canonical
    name; ResolutionError on any other line."""
    pins = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _PIN.fullmatch(line)
        if match is None:
            raise ResolutionError(f"unexpected line in a lock text: {raw!r}")
        pins[canonicalize_name(match.group(1))] = match.group(2)
    if not pins:
        raise ResolutionError("the lock text names no package")
    return tuple(sorted(pins.items()))


@dataclass(frozen=True)
class Resolution:
    """One end's resolution: the requirements it was made from and the packages it chose."""

    end: str
    requirements: tuple[str, ...]
    pins: tuple[tuple[str, str], ...]  # (canonical name, version), sorted
    python: str  # the interpreter's version, which the resolution is for

    def version(self, name: str) -> str:
        versions = dict(self.pins)
        return versions.get(canonicalize_name(name), "(none)")

    @property
    def direct(self) -> list[str]:
        """Canonical names of the direct dependencies, `mcp` first."""
        names = sorted({canonicalize_name(Requirement(entry).name) for entry in self.requirements})
        return sorted(names, key=lambda name: name != "mcp")

    @property
    def key(self) -> str:
        """Names the venv: its Python and its packages (not the specifiers that chose them)."""
        content = "\n".join([f"python {self.python}", *(f"{n}=={v}" for n, v in self.pins)])
        return hashlib.sha256(content.encode()).hexdigest()[:16]

    def lock_text(self) -> str:
        head = [
            f"# {self.end} end ({ENV_VAR}={self.end}: uv pip compile --resolution {RESOLUTIONS[self.end]})",
            f"# for Python {self.python}, from the generated package's dependencies:",
            *(f"#   {entry}" for entry in self.requirements),
        ]
        return "\n".join([*head, *(f"{name}=={version}" for name, version in self.pins)]) + "\n"

    def summary(self) -> str:
        """E.g. `mcp 2.3.0 (lowest; httpx2 2.16.0, jsonschema 4.20.0; 28 packages)`."""
        mcp, *others = (f"{name} {self.version(name)}" for name in self.direct)
        return f"{mcp} ({self.end}; {', '.join(others)}; {len(self.pins)} packages)"

    def to_json(self) -> str:
        return json.dumps(
            {"end": self.end, "requirements": self.requirements, "pins": self.pins, "python": self.python}
        )

    @classmethod
    def from_json(cls, text: str) -> Resolution:
        data = json.loads(text)
        pins = tuple((str(name), str(version)) for name, version in data["pins"])
        return cls(data["end"], tuple(data["requirements"]), pins, data["python"])


def uv_command() -> str:
    """The uv binary of the `uv` package in the running venv (the dev extra)."""
    try:
        from uv import find_uv_bin
    except ImportError:
        raise ResolutionError(f"the uv package is not installed: {SETUP_HINT}") from None
    try:
        return str(find_uv_bin())
    except FileNotFoundError as error:
        raise ResolutionError(f"uv's binary is missing ({error}): {SETUP_HINT}") from None


def uv_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Our environment with uv's waits bounded and no Python downloads; `extra` last."""
    env = dict(os.environ)
    env.setdefault("UV_HTTP_TIMEOUT", str(HTTP_TIMEOUT))
    env.update({"UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1", "NO_COLOR": "1"})
    env.update(extra or {})
    return env


def resolve(
    end: str,
    requirements: Sequence[str] | None = None,
    python: str = sys.executable,
    uv_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = RESOLVE_TIMEOUT,
) -> Resolution:
    """Resolve `requirements` (default: the generated package's, with its extras) at `end` for the
    `python` interpreter; ResolutionError with uv's words when it fails or takes longer than
    `timeout`."""
    requirements = tuple(requirements if requirements is not None else venv_requirements())
    argv = [
        uv_command(),
        "pip",
        "compile",
        "-",
        "--no-config",
        "--resolution",
        RESOLUTIONS[end],
        "--python",
        python,
        "--no-header",
        "--no-annotate",
        "--quiet",
        *uv_args,
    ]
    what = f"the {end} end of {', '.join(requirements)}"
    try:
        done = subprocess.run(
            argv,
            input="\n".join(requirements) + "\n",
            capture_output=True,
            text=True,
            timeout=timeout,
            env=uv_env(env),
        )
    except subprocess.TimeoutExpired:
        raise ResolutionError(f"uv did not resolve {what} within {timeout:g}s (is PyPI reachable?)") from None
    if done.returncode != 0:
        raise ResolutionError(f"uv could not resolve {what} (exit {done.returncode}):\n{done.stderr.strip()}")
    return Resolution(end, requirements, parse_pins(done.stdout), python_version(python))


def python_version(python: str) -> str:
    if Path(python).resolve() == Path(sys.executable).resolve():
        return sys.version.split()[0]
    done = subprocess.run(
        [python, "-c", "import sys; print(sys.version.split()[0])"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout.strip()


def differences(first: Resolution, second: Resolution) -> list[str]:
    """`name a -> b` for each package whose version differs (`(none)` where one end lacks it)."""
    names = sorted({name for name, _ in first.pins} | {name for name, _ in second.pins})
    changed = [name for name in names if first.version(name) != second.version(name)]
    return [f"{name} {first.version(name)} -> {second.version(name)}" for name in changed]


# ---- the test run's resolution (pytest) ------------------------------------------------------

WORKER_KEY = "openapi2mcp_e2e_deps"  # how an xdist controller hands its resolution to workers
_OUTCOME = pytest.StashKey[str]()  # Resolution.to_json(), or "!" + why it failed


def e2e_in_scope(config: pytest.Config) -> bool:
    """Whether this run may start generated servers: an argument reaches tests/e2e and the mark
    expression is not `not e2e` (a cheap test made before collection)."""
    if re.fullmatch(r"\s*not\s+e2e\s*", config.getoption("markexpr", "") or ""):
        return False
    for arg in config.args:
        path = (config.invocation_params.dir / arg.split("::", 1)[0]).resolve()
        if path == E2E_DIR or E2E_DIR in path.parents or path in E2E_DIR.parents:
            return True
    return False


def _outcome(config: pytest.Config) -> str:
    if _OUTCOME not in config.stash:
        workerinput: dict[str, Any] = getattr(config, "workerinput", {})
        if WORKER_KEY in workerinput:
            config.stash[_OUTCOME] = str(workerinput[WORKER_KEY])
        else:
            try:
                config.stash[_OUTCOME] = resolve(selected_end()).to_json()
            except (ResolutionError, ValueError) as error:
                config.stash[_OUTCOME] = f"!{error}"
    return config.stash[_OUTCOME]


def run_resolution(config: pytest.Config) -> Resolution:
    """The resolution of this test run, made once (by the xdist controller for all its workers);
    fails the calling test or fixture with the reason when it could not be made."""
    outcome = _outcome(config)
    if outcome.startswith("!"):
        pytest.fail(f"cannot resolve the generated servers' dependencies: {outcome[1:]}", pytrace=False)
    return Resolution.from_json(outcome)


def report_line(config: pytest.Config) -> str | None:
    """`generated servers: mcp 2.3.0 (lowest; ...)` when this run may start them, else None."""
    if not e2e_in_scope(config):
        return None
    outcome = _outcome(config)
    if outcome.startswith("!"):
        return f"generated servers: cannot resolve their dependencies: {outcome[1:].splitlines()[0]}"
    return f"generated servers: {Resolution.from_json(outcome).summary()}"


def hand_to_worker(config: pytest.Config, workerinput: dict[str, Any]) -> None:
    if e2e_in_scope(config):
        workerinput[WORKER_KEY] = _outcome(config)


# ---- script ------------------------------------------------------------------------------


def main(argv: Sequence[str]) -> int:
    if len(argv) != 1 or argv[0] not in (*RESOLUTIONS, "compare"):
        print(f"usage: server_deps.py {'|'.join(RESOLUTIONS)}|compare", file=sys.stderr)
        return 2
    try:
        if argv[0] != "compare":
            print(resolve(argv[0]).lock_text(), end="")
            return 0
        lowest, newest = resolve("lowest"), resolve("newest")
    except (ResolutionError, ValueError) as error:
        print(f"server_deps: {error}", file=sys.stderr)
        return 2
    print(f"generated servers at the lowest end: {lowest.summary()}")
    print(f"generated servers at the newest end: {newest.summary()}")
    changed = differences(lowest, newest)
    if not changed:
        print(f"both ends resolve to the same {len(lowest.pins)} packages")
        return 0
    print(f"the ends differ in {len(changed)} packages: {', '.join(changed)}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
