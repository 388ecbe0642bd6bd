"""The resolution of generated packages' dependencies at both ends of their pins (server_deps.py):
reading the specifiers, the lock text and the venv key, the run's one resolution, and uv failing
clearly without an index. Two tests resolve against PyPI for real (marked e2e)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import server_deps
from packaging.requirements import Requirement
from packaging.version import Version
from server_deps import REPO, Resolution, ResolutionError

from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import generate

PINS = (("anyio", "4.16.0"), ("httpx2", "2.16.0"), ("mcp", "2.3.0"))


def resolution(end: str = "lowest", pins: tuple[tuple[str, str], ...] = PINS, **changes: Any) -> Resolution:
    fields: dict[str, Any] = {
        "end": end,
        "requirements": ("mcp>=2.3,<3", "httpx2>=2.16,<3"),
        "pins": pins,
        "python": "3.11.7",
    }
    return Resolution(**(fields | changes))


# ---- choosing the end ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "end"),
    [
        ({}, "lowest"),
        ({"OPENAPI2MCP_E2E_DEPS": ""}, "lowest"),
        ({"OPENAPI2MCP_E2E_DEPS": " newest "}, "newest"),
    ],
)
def test_the_end_comes_from_the_environment(environ: dict[str, str], end: str) -> None:
    assert server_deps.selected_end(environ) == end


def test_an_unknown_end_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"^OPENAPI2MCP_E2E_DEPS='highest': expected one of lowest, newest$"):
        server_deps.selected_end({"OPENAPI2MCP_E2E_DEPS": "highest"})


# ---- the specifiers ------------------------------------------------------------------------


def test_the_requirements_are_what_the_generator_writes() -> None:
    """The runtime's dependencies are the list a package that vendors the runtime declares."""
    options = GeneratorOptions(dist_name="petstore", env_prefix="PETSTORE")
    written = generate(str(REPO / "specs" / "petstore.yaml"), options).files["pyproject.toml"]
    requirements = server_deps.package_requirements()
    assert requirements == tuple(tomllib.loads(written)["project"]["dependencies"])
    assert "mcp" in {Requirement(entry).name for entry in requirements}


# ---- lock text and key ---------------------------------------------------------------------


def test_pins_are_read_by_canonical_name_and_sorted() -> None:
    text = "# header\n\nMCP==2.3.0\nJinja2==3.1.6  # why\ntyping_extensions==4.16.0\n"
    assert server_deps.parse_pins(text) == (
        ("jinja2", "3.1.6"),
        ("mcp", "2.3.0"),
        ("typing-extensions", "4.16.0"),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mcp>=2.3\n", "unexpected line in a lock text: 'mcp>=2.3'"),
        ("anyio==4\n-e ./here\n", "unexpected line in a lock text: '-e ./here'"),
        ("# nothing\n", "the lock text names no package"),
    ],
)
def test_anything_but_pins_in_a_lock_text_is_an_error(text: str, message: str) -> None:
    with pytest.raises(ResolutionError, match=message):
        server_deps.parse_pins(text)


def test_the_lock_text_says_how_it_was_made_and_reads_back() -> None:
    lock = resolution().lock_text()
    assert lock == (
        "# lowest end (OPENAPI2MCP_E2E_DEPS=lowest: uv pip compile --resolution lowest-direct)\n"
        "# for Python 3.11.7, from the generated package's dependencies:\n"
        "#   mcp>=2.3,<3\n"
        "#   httpx2>=2.16,<3\n"
        "anyio==4.16.0\nhttpx2==2.16.0\nmcp==2.3.0\n"
    )
    assert server_deps.parse_pins(lock) == PINS


def test_the_key_is_the_venv_content() -> None:
    """Same packages and Python: same venv, whichever end or specifiers chose them; any other
    version or Python: another venv."""
    key = resolution().key
    assert len(key) == 16
    assert resolution(end="newest").key == key
    assert resolution(requirements=("mcp>=2.3.0,<3",)).key == key
    newer = (("anyio", "4.16.0"), ("httpx2", "2.16.2"), ("mcp", "2.3.0"))
    assert len({key, resolution(pins=newer).key, resolution(python="3.11.8").key}) == 3


def test_the_summary_names_mcp_first_then_the_other_direct_dependencies() -> None:
    assert resolution().summary() == "mcp 2.3.0 (lowest; httpx2 2.16.0; 3 packages)"


def test_a_resolution_survives_the_trip_to_a_worker() -> None:
    made = resolution()
    assert Resolution.from_json(made.to_json()) == made


def test_differences_name_each_changed_package() -> None:
    newer = (("httpx2", "2.16.2"), ("mcp", "2.3.0"), ("pydantic", "2.14.3"))
    assert server_deps.differences(resolution(), resolution("newest", newer)) == [
        "anyio 4.16.0 -> (none)",
        "httpx2 2.16.0 -> 2.16.2",
        "pydantic (none) -> 2.14.3",
    ]
    assert server_deps.differences(resolution(), resolution("newest")) == []


# ---- one resolution per run ---------------------------------------------------------------


def fake_config(args: list[str], markexpr: str = "", workerinput: dict[str, Any] | None = None) -> Any:
    config = SimpleNamespace(
        args=args,
        invocation_params=SimpleNamespace(dir=REPO),
        getoption=lambda name, default=None: markexpr if name == "markexpr" else default,
        stash=pytest.Stash(),
    )
    if workerinput is not None:
        config.workerinput = workerinput
    return config


@pytest.mark.parametrize(
    ("args", "markexpr", "in_scope"),
    [
        (["tests"], "", True),
        (["."], "e2e", True),
        (["tests/e2e/test_e2e_petstore.py::test_x"], "", True),
        (["tests"], "not e2e", False),
        (["tests/test_cli.py", "tests/runtime"], "", False),
    ],
)
def test_servers_are_resolved_for_only_runs_that_may_start_them(
    args: list[str], markexpr: str, in_scope: bool
) -> None:
    assert server_deps.e2e_in_scope(fake_config(args, markexpr)) is in_scope


@pytest.fixture
def counted_resolve(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []

    def resolve(end: str) -> Resolution:
        calls.append(end)
        return resolution(end)

    monkeypatch.setattr(server_deps, "resolve", resolve)
    monkeypatch.setenv("OPENAPI2MCP_E2E_DEPS", "newest")
    return calls


def test_the_controller_resolves_once_and_hands_it_to_each_worker(counted_resolve: list[str]) -> None:
    config = fake_config(["tests"])
    line = "generated servers: mcp 2.3.0 (newest; httpx2 2.16.0; 3 packages)"
    assert server_deps.report_line(config) == line
    inputs: list[dict[str, Any]] = [{}, {}]
    for workerinput in inputs:
        server_deps.hand_to_worker(config, workerinput)
    assert counted_resolve == ["newest"]
    worker = fake_config(["tests"], workerinput=inputs[1])
    assert server_deps.run_resolution(worker) == resolution("newest")
    assert counted_resolve == ["newest"]


def test_a_failed_resolution_is_reported_and_fails_the_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    def resolve(end: str) -> Resolution:
        raise ResolutionError("uv could not resolve it\nsecond line")

    monkeypatch.setattr(server_deps, "resolve", resolve)
    config = fake_config(["tests/e2e"])
    assert server_deps.report_line(config) == (
        "generated servers: cannot resolve their dependencies: uv could not resolve it"
    )
    with pytest.raises(pytest.fail.Exception, match="uv could not resolve it\nsecond line"):
        server_deps.run_resolution(config)


def test_no_resolution_when_no_server_may_start(counted_resolve: list[str]) -> None:
    config = fake_config(["tests"], "not e2e")
    workerinput: dict[str, Any] = {}
    server_deps.hand_to_worker(config, workerinput)
    assert server_deps.report_line(config) is None
    assert (workerinput, counted_resolve) == ({}, [])


# ---- uv without an index -------------------------------------------------------------------


@pytest.fixture
def silent_index() -> Iterator[str]:
    """An address that accepts connections and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/simple"
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in accepted:
            connection.close()
        server.close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_index_fails_at_once_with_uvs_reason() -> None:
    index = f"http://127.0.0.1:{closed_port()}/simple"
    start = time.monotonic()
    with pytest.raises(ResolutionError) as caught:
        server_deps.resolve(
            "lowest",
            ["mcp>=2.3,<3"],
            uv_args=["--index-url", index, "--no-cache"],
            env={"UV_HTTP_RETRIES": "0"},
        )
    assert time.monotonic() - start < 20
    message = str(caught.value)
    assert message.startswith("uv could not resolve the lowest end of mcp>=2.3,<3 (exit 2):\n"), message
    assert f"{index}/mcp/" in message and "Connection refused" in message, message


def test_a_silent_index_is_given_up_after_the_timeout(silent_index: str) -> None:
    start = time.monotonic()
    with pytest.raises(ResolutionError) as caught:
        server_deps.resolve(
            "newest", ["mcp>=2.3,<3"], uv_args=["--index-url", silent_index, "--no-cache"], timeout=2
        )
    assert time.monotonic() - start < 10
    assert str(caught.value) == (
        "uv did not resolve the newest end of mcp>=2.3,<3 within 2s (is PyPI reachable?)"
    )


# ---- against PyPI ----------------------------------------------------------------------------


@pytest.mark.e2e
def test_the_two_ends_of_a_pin_on_pypi() -> None:
    """packaging>=23,<25: 23.0 is the first release it allows, 24.2 the last."""
    ends = {end: server_deps.resolve(end, ["packaging>=23,<25"]) for end in ("lowest", "newest")}
    assert ends["lowest"].pins == (("packaging", "23.0"),)
    assert ends["newest"].pins == (("packaging", "24.2"),)


@pytest.mark.e2e
def test_the_generated_package_resolves_at_both_ends() -> None:
    """Every direct dependency within its specifier, lowest no later than newest, and the lowest
    mcp is the lower bound of its pin (2.3.0 for mcp>=2.3,<3)."""
    lowest, newest = (server_deps.resolve(end) for end in ("lowest", "newest"))
    for entry in lowest.requirements:
        requirement = Requirement(entry)
        low, new = Version(lowest.version(requirement.name)), Version(newest.version(requirement.name))
        assert low in requirement.specifier and new in requirement.specifier, (entry, low, new)
        assert low <= new, (entry, low, new)
    mcp = next(Requirement(e) for e in lowest.requirements if Requirement(e).name == "mcp")
    bound = next(Version(spec.version) for spec in mcp.specifier if spec.operator == ">=")
    assert Version(lowest.version("mcp")) == bound
    assert Path(server_deps.uv_command()).is_file()


def test_servers_only_keeps_the_tests_that_use_the_server_venv() -> None:
    """`--servers-only` (the second CI pass) deselects the e2e tests that start no generated server."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--collect-only",
            "--servers-only",
            "tests/e2e/test_e2e_demo.py",
            "tests/e2e/test_e2e_package.py",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    files = {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}
    assert files == {"tests/e2e/test_e2e_package.py"}, done.stdout
    assert "1 deselected" in done.stdout, done.stdout


def test_representative_only_keeps_the_one_combination_each_marked_test_names() -> None:
    """`--representative-only` (the second CI pass) keeps one parametrization of each test marked
    `representative(...)`: a marker that names none would leave its test out of that pass."""
    files = sorted(
        path.relative_to(REPO).as_posix()
        for path in (REPO / "tests" / "e2e").glob("test_e2e_*.py")
        if "@pytest.mark.representative(" in path.read_text("utf-8")
    )
    marked = {
        f"{path}::{test}"
        for path in files
        for test in re.findall(
            r"^@pytest\.mark\.representative\(.*\n(?:@.*\n)*def (\w+)", (REPO / path).read_text("utf-8"), re.M
        )
    }
    markers = sum((REPO / path).read_text("utf-8").count("@pytest.mark.representative(") for path in files)
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only"]
    done = subprocess.run(
        [*argv, "--representative-only", *files], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert done.returncode == 0, done.stdout + done.stderr
    kept = [line.partition("[")[0] for line in done.stdout.splitlines() if "::" in line]
    assert len(marked) == markers >= 11
    assert {test: kept.count(test) for test in marked} == dict.fromkeys(marked, 1)
