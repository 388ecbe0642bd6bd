"""Fixtures of the end-to-end tests; the machinery is in e2e_support.py (and the *_support.py
modules beside it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import server_deps
from e2e_support import Generated, NodeTools, Packages
from petstore_support import pets_upstream
from prism_support import Prism, Prisms
from recording_upstream import RecordingUpstream
from runtime_mode import install_runtime_wheel
from venv_support import ServerVenv


@pytest.fixture(scope="session")
def node_tools() -> NodeTools:
    """Node 24, Prism, the conformance suite and the Inspector from .cache/npm (bash scripts/setup)."""
    return NodeTools.locate()


@pytest.fixture(scope="session")
def server_venv(pytestconfig: pytest.Config) -> ServerVenv:
    """The venv that runs generated servers: their dependencies at the end of their pins that
    OPENAPI2MCP_E2E_DEPS names (lowest by default), built once, cached in .cache/e2e-venv; with
    OPENAPI2MCP_E2E_RUNTIME=package also the runtime wheel of this checkout."""
    venv = ServerVenv.ensure(server_deps.run_resolution(pytestconfig))
    if server_deps.selected_runtime() == "package":
        install_runtime_wheel(venv)
    return venv


@pytest.fixture(scope="session")
def packages(server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory) -> Packages:
    return Packages(server_venv, tmp_path_factory)


@pytest.fixture(scope="session")
def prisms(node_tools: NodeTools, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prisms]:
    running = Prisms(node_tools, tmp_path_factory)
    try:
        yield running
    finally:
        running.stop_all()


# ---- the petstore package (specs/petstore.yaml) ------------------------------------------------


@pytest.fixture(scope="module")
def petstore(packages: Packages) -> Generated:
    return packages.get("petstore.yaml")


@pytest.fixture(scope="module")
def prism(prisms: Prisms) -> Prism:
    """Prism mocking specs/petstore.yaml."""
    return prisms.get("petstore.yaml")


@pytest.fixture(scope="module")
def upstream() -> Iterator[RecordingUpstream]:
    """The petstore's upstream: GET /pets answers petstore_support.PETS (a module whose tests need
    another upstream defines its own `upstream` fixture)."""
    with pets_upstream() as recording:
        yield recording
