"""Shared pytest configuration: end-to-end tests (marked `e2e`) run after the fast unit tests;
the generated servers' dependencies resolved once per run and named in the report (server_deps.py);
a static HTTP site on 127.0.0.1 for the tests that fetch specs and referenced documents."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import server_deps
from corpus_specs import corpus_specs, sampled

Site = tuple[str, dict[str, bytes]]


@pytest.fixture
def site() -> Iterator[Site]:
    """A local HTTP server: its base URL and the files it serves (path → body, filled by the test);
    `/moved/*` redirects to `/other/*`; anything else is 404."""
    files: dict[str, bytes] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path in files:
                self.send_response(200)
                self.send_header("Content-Length", str(len(files[self.path])))
                self.end_headers()
                self.wfile.write(files[self.path])
            elif self.path.startswith("/moved/"):
                self.send_response(302)
                self.send_header("Location", "/other/" + self.path[len("/moved/") :])
                self.end_headers()
            else:
                self.send_error(404)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", files
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--servers-only",
        action="store_true",
        help="run only the tests that use the venv of generated servers (the `server_venv` fixture), "
        "whose outcome depends on OPENAPI2MCP_E2E_DEPS; the others would repeat a run at the other end",
    )
    parser.addoption(
        "--calls-folder",
        metavar="DIR",
        help="tests/e2e/test_e2e_folder.py: call tools of a sample of DIR's specs against Prism",
    )
    parser.addoption("--calls-sample", type=int, default=50, metavar="N", help="specs sampled (50)")
    parser.addoption("--calls-seed", type=int, default=0, metavar="S", help="the sample's seed (0)")
    parser.addoption(
        "--representative-only",
        action="store_true",
        help="the tests marked `representative(...)` run only the parametrization it names, not their"
        " whole grid of protocol eras and transports (CI's pass at the newest end of the pins: the"
        " lowest end's pass runs every combination)",
    )
    parser.addoption(
        "--corpus-every",
        type=int,
        default=1,
        metavar="N",
        help="the corpus tests (tests/e2e/test_e2e_corpus.py) on every N-th corpus spec only, by name"
        " (CI's pass at the newest end of the pins: the lowest end's pass runs them on all)",
    )
    parser.addoption(
        "--clients-every",
        type=int,
        default=1,
        metavar="N",
        help="the client libraries' tests (tests/e2e/test_e2e_clients.py) on every N-th of the specs"
        " the corpus tests run on (CI's pass at the newest end of the pins: 3)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Unit and golden tests first, so `-x` stops on a cheap failure before servers start;
    with --servers-only, the tests that start no generated server are deselected, with
    --representative-only the parametrizations of a `representative` test but the one it names,
    with --corpus-every N the corpus tests of the specs it leaves out, and with --clients-every M
    the client libraries' tests but on every M-th of the specs left."""
    servers_only, every = config.getoption("servers_only"), config.getoption("corpus_every")
    representative_only = config.getoption("representative_only")
    names = [spec.name for spec in corpus_specs()]
    kept = sampled(names, every)
    converted = sampled(sorted(kept), config.getoption("clients_every"))  # (test_e2e_clients' rule)

    def deselected(item: pytest.Item) -> bool:
        if servers_only and "server_venv" not in getattr(item, "fixturenames", ()):
            return True
        if not _representative(item) and representative_only:  # (the marker checked in every run)
            return True
        spec = _corpus_spec_of(item)
        if spec is None:
            return False
        return spec not in (converted if item.path.name == "test_e2e_clients.py" else kept)

    others = [item for item in items if deselected(item)]
    if others:
        config.hook.pytest_deselected(items=others)
        left_out = set(map(id, others))
        items[:] = [item for item in items if id(item) not in left_out]
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)


def _representative(item: pytest.Item) -> bool:
    """Whether `item` is the parametrization its `representative(name=value, ...)` marker names
    (True for a test without the marker). A grid of protocol eras and transports runs whole in the
    first CI pass; the second one (the other runtime form, the newest pins) needs each behaviour
    once: the marker names which combination, so that each era and transport stays in that pass."""
    marker = item.get_closest_marker("representative")
    if marker is None:
        return True
    params = getattr(item, "callspec", None)
    params = params.params if params is not None else {}
    if marker.args or not marker.kwargs or not set(marker.kwargs) <= set(params):
        raise pytest.UsageError(
            f"{item.nodeid}: representative() takes name=value pairs of the test's parameters"
            f" ({', '.join(params) or 'none'}), not {marker.args} {marker.kwargs}"
        )
    return all(params[name] == value for name, value in marker.kwargs.items())


def _corpus_spec_of(item: pytest.Item) -> str | None:
    """The corpus spec a test of test_e2e_corpus.py or test_e2e_clients.py runs on (None for any
    other test)."""
    callspec = getattr(item, "callspec", None)
    if item.path.name not in ("test_e2e_corpus.py", "test_e2e_clients.py") or callspec is None:
        return None
    return callspec.params.get("name") or None


def pytest_configure(config: pytest.Config) -> None:
    try:
        server_deps.selected_end()
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None


def pytest_report_header(config: pytest.Config) -> list[str]:
    """`generated servers: mcp 2.3.0 (lowest; ...)` when e2e tests may run."""
    line = server_deps.report_line(config)
    return [line] if line else []


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The same line at the end of a quiet run (-q prints no header): CI's log names the versions."""
    if config.get_verbosity() < 0 and (line := server_deps.report_line(config)):
        terminalreporter.write_line(line)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: each worker gets the controller's resolution (one resolution per run)."""
    server_deps.hand_to_worker(node.config, node.workerinput)
