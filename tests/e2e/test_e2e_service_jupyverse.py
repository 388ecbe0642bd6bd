"""jupyverse (PyPI, pinned in tests/services/jupyverse.txt), a FastAPI service: its OAS 3.1 spec is
fetched from the running service's `/openapi.json` (`anyOf` with null everywhere, parameters of any
type, a path template `/api/contents{path}`), with an overlay adding the request bodies jupyverse
reads but does not declare (tests/services/jupyverse-overlay.yaml). Driven only through the
generated server: every read-only tool with real arguments, a contents round trip (folder, file,
notebook), a session with its kernel, and the service's errors as isError with its own message; the
contents round trip and the errors over streamable HTTP (`--auth token`) too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from services_support import (
    HTTP_TIMEOUT,
    KERNEL_START_TIMEOUT,
    OVER_STDIO_AND_HTTP,
    Caller,
    Driven,
    Service,
    Tools,
    deviations,
    generate_with_options,
    http,
    installed,
    text_blocks,
    uncalled,
)
from venv_support import ServerVenv

pytestmark = pytest.mark.e2e

OVERLAY = Path(__file__).resolve().parents[1] / "services" / "jupyverse-overlay.yaml"
CONTENTS = "/api/contents/{path}"
DISABLED = ("auth", "login", "lab", "nbconvert", "terminals")  # (noauth serves the API unprotected)


@dataclass
class Jupyverse(Driven):
    root: Path

    def api(self, method: str, path: str, body: Any = None, timeout: float = HTTP_TIMEOUT) -> tuple[int, Any]:
        """The service's own API over plain HTTP: (status, the JSON of a success, else the body)."""
        answer = http(method, self.service.origin + path, body, timeout=timeout)
        return answer.status, (answer.json() if answer.body and answer.status < 300 else answer.body)


@pytest.fixture(scope="module")
def jupyverse(server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Jupyverse]:
    venv = installed("jupyverse", "bin/jupyverse", "bin/python")
    workdir = tmp_path_factory.mktemp("jupyverse")
    root = workdir / "root"  # (jupyverse serves its working directory)
    (root / "ro" / "sub").mkdir(parents=True)
    (root / "ro" / "sub" / "a.txt").write_text("line one\n", "utf-8")

    def argv(port: int) -> list[str]:
        disabled = [arg for name in DISABLED for arg in ("--disable", name)]
        return [str(venv / "bin" / "jupyverse"), "--host", "127.0.0.1", "--port", str(port), *disabled]

    # The kernelspec runs `python -m ipykernel_launcher`: the venv's python, first on PATH.
    env = {"HOME": str(workdir), "PATH": f"{venv / 'bin'}:/usr/bin:/bin"}
    env |= {f"JUPYTER_{kind}_DIR": str(workdir / kind.lower()) for kind in ("CONFIG", "DATA", "RUNTIME")}
    service = Service("jupyverse", argv, "/api/status", workdir, env, cwd=root).start()
    try:
        spec = workdir / "openapi.json"
        spec.write_bytes(http("GET", service.origin + "/openapi.json").body)
        out = tmp_path_factory.mktemp("gen-jupyverse")
        package = generate_with_options(spec, out, server_venv, "jupyverse-mcp", "--overlay", str(OVERLAY))
        with Jupyverse(service, package, Tools(package), package.env(service.origin), root) as jupyverse:
            yield jupyverse
            for kernel in jupyverse.api("GET", "/api/kernels")[1]:
                jupyverse.api("DELETE", f"/api/kernels/{kernel['id']}")
    finally:
        service.stop()


def test_the_spec_is_fastapis_and_the_undeclared_path_parameter_is_reported(jupyverse: Jupyverse) -> None:
    spec = json.loads(jupyverse.package.spec.read_text("utf-8"))
    assert spec["openapi"] == "3.1.0"
    assert spec["components"]["schemas"]["Content"]["properties"]["size"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "title": "Size",
    }
    # PATCH /api/sessions/{session_id} declares no parameter: skipped with an error, the rest built.
    assert "path parameter(s) ['session_id'] of '/api/sessions/{session_id}' are not declared" in (
        jupyverse.package.cli_output
    )
    assert ("PATCH", "/api/sessions/{session_id}") not in jupyverse.tools.by_operation
    assert len(jupyverse.tools.by_operation) == 20


def test_every_read_only_tool_answers_with_the_services_state(jupyverse: Jupyverse) -> None:
    """A folder and file on disk, a checkpoint and a session (with its kernel) made over plain
    HTTP; each GET tool agrees with the same GET over plain HTTP."""
    assert jupyverse.api("POST", "/api/contents/ro/sub/a.txt/checkpoints")[0] == 201
    session_body = {"kernel": {"name": "python3"}, "name": "s", "path": "ro/s.ipynb", "type": "notebook"}
    status, session = jupyverse.api("POST", "/api/sessions", session_body, KERNEL_START_TIMEOUT)
    assert status == 201, session
    kernel_id = session["kernel"]["id"]

    async def body(mcp: Caller) -> None:
        root = await mcp.ok("GET", "/api/contents")
        assert [item["path"] for item in root["content"]] == ["ro"]
        result = await mcp.success("GET", CONTENTS, path="ro/sub")
        assert deviations(result) is None  # (its Content allows a list)
        assert json.loads(text_blocks(result)[0]) == jupyverse.api("GET", "/api/contents/ro/sub")[1]
        assert [item["path"] for item in result.structured_content["content"]] == ["ro/sub/a.txt"]
        got = await mcp.ok("GET", CONTENTS, path="ro/sub/a.txt")
        assert (got["type"], got["content"]) == ("file", "line one\n")
        checkpoints = await mcp.ok("GET", "/api/contents/{path}/checkpoints", path="ro/sub/a.txt")
        assert [c["id"] for c in checkpoints] == ["checkpoint"]
        assert (await mcp.ok("GET", "/api/status"))["kernels"] == 1
        specs = await mcp.ok("GET", "/api/kernelspecs")
        assert specs == jupyverse.api("GET", "/api/kernelspecs")[1] and specs["default"] == "python3"
        spec_file = await mcp.ok(
            "GET", "/kernelspecs/{kernel_name}/{file_name}", kernel_name="python3", file_name="kernel.json"
        )
        assert spec_file["argv"][:3] == ["python", "-m", "ipykernel_launcher"]
        assert [k["id"] for k in await mcp.ok("GET", "/api/kernels")] == [kernel_id]
        assert (await mcp.ok("GET", "/api/kernels/{kernel_id}", kernel_id=kernel_id))["id"] == kernel_id
        assert [s["id"] for s in await mcp.ok("GET", "/api/sessions")] == [session["id"]]

    jupyverse.tools.called.clear()  # (what other tests of this worker called does not count)
    try:
        jupyverse.run(body)
    finally:
        jupyverse.api("DELETE", f"/api/sessions/{session['id']}")
        jupyverse.api("DELETE", f"/api/kernels/{kernel_id}")
    assert uncalled(jupyverse.tools) == []


@OVER_STDIO_AND_HTTP
@pytest.mark.representative(transport="http")  # (CI's second pass: tests/conftest.py)
def test_contents_round_trip(jupyverse: Jupyverse, transport: str) -> None:
    """Create a folder (POST, then PATCH to name it), a file in it (PUT), read, save, rename,
    a notebook (POST), delete; each step checked over plain HTTP."""
    top = f"rt-{transport}"  # (each transport's own folder: a worker's tests share the service)

    async def body(mcp: Caller) -> None:
        folder = await mcp.ok("POST", "/api/contents{path}", path="/", path_body="", type="directory")
        assert (folder["path"], folder["type"]) == ("Untitled Folder", "directory")
        await mcp.ok("PATCH", CONTENTS, path="Untitled Folder", path_body=top)
        assert jupyverse.api("GET", f"/api/contents/{top}")[1]["type"] == "directory"
        file, save = f"{top}/a.txt", {"type": "file", "format": "text"}
        await mcp.ok("PUT", CONTENTS, path=file, path_body=file, content="v1", **save)
        assert (await mcp.ok("GET", CONTENTS, path=file))["content"] == "v1"
        await mcp.ok("PUT", CONTENTS, path=file, path_body=file, content="v2", **save)
        assert jupyverse.api("GET", f"/api/contents/{file}")[1]["content"] == "v2"
        moved = await mcp.ok("PATCH", CONTENTS, path=file, path_body=f"{top}/b.txt")
        assert moved["path"] == f"{top}/b.txt"
        assert jupyverse.api("GET", f"/api/contents/{file}")[0] == 404
        assert jupyverse.api("GET", f"/api/contents/{top}/b.txt")[1]["content"] == "v2"
        notebook = await mcp.ok("POST", "/api/contents{path}", path=f"/{top}", path_body=top, type="notebook")
        assert notebook["path"] == f"{top}/Untitled.ipynb"
        stored = jupyverse.api("GET", f"/api/contents/{top}/Untitled.ipynb")[1]
        assert json.loads(stored["content"])["nbformat"] == 4
        assert (await mcp.ok("GET", CONTENTS, path=f"{top}/Untitled.ipynb")) == stored
        for path in (f"{top}/b.txt", top):
            assert "204" in await mcp.ok("DELETE", CONTENTS, path=path)
            assert jupyverse.api("GET", f"/api/contents/{path}")[0] == 404

    jupyverse.run(body, transport)
    assert not (jupyverse.root / top).exists()


def test_session_and_kernel_round_trip(jupyverse: Jupyverse) -> None:
    """Open a session (starting an ipykernel), read it, restart and interrupt its kernel, delete
    the session and the kernel."""

    async def body(mcp: Caller) -> None:
        session = await mcp.ok(
            "POST", "/api/sessions", kernel={"name": "python3"}, name="k", path="k.ipynb", type="notebook"
        )
        kernel_id = session["kernel"]["id"]
        assert [s["id"] for s in jupyverse.api("GET", "/api/sessions")[1]] == [session["id"]]
        await mcp.ok("POST", "/api/kernels/{kernel_id}/restart", kernel_id=kernel_id)
        await mcp.ok("POST", "/api/kernels/{kernel_id}/interrupt", kernel_id=kernel_id)
        assert jupyverse.api("GET", f"/api/kernels/{kernel_id}")[1]["id"] == kernel_id
        await mcp.ok("DELETE", "/api/sessions/{session_id}", session_id=session["id"])
        assert jupyverse.api("GET", "/api/sessions")[1] == []
        await mcp.ok("DELETE", "/api/kernels/{kernel_id}", kernel_id=kernel_id)
        assert jupyverse.api("GET", "/api/kernels")[1] == []

    jupyverse.run(body)


@OVER_STDIO_AND_HTTP
@pytest.mark.representative(transport="stdio")
def test_errors_carry_the_services_message(jupyverse: Jupyverse, transport: str) -> None:
    """404 for a missing file, for a save into a missing folder and for an unknown kernelspec file;
    500 for renaming a missing file (jupyverse does not catch it): isError with the service's body."""
    expected = {
        "get": jupyverse.api("GET", "/api/contents/er/missing.txt"),
        "save": jupyverse.api(
            "PUT", "/api/contents/er/a.txt", {"path": "er/a.txt", "type": "file", "format": "text"}
        ),
        "spec": jupyverse.api("GET", "/kernelspecs/nope/kernel.json"),
        "rename": jupyverse.api("PATCH", "/api/contents/er/missing.txt", {"path": "er/b.txt"}),
    }
    assert expected == {
        "get": (404, b'{"detail":"Item not found"}'),
        "save": (404, b'{"detail":"Error saving er/a.txt"}'),
        "spec": (404, b'{"detail":"Kernelspec nope/kernel.json not found"}'),
        "rename": (500, b"Internal Server Error"),
    }

    async def body(mcp: Caller) -> None:
        assert '{"detail":"Item not found"}' in await mcp.error("GET", CONTENTS, 404, path="er/missing.txt")
        saved = {"path_body": "er/a.txt", "type": "file", "format": "text"}
        text = await mcp.error("PUT", CONTENTS, 404, path="er/a.txt", **saved)
        assert '{"detail":"Error saving er/a.txt"}' in text
        text = await mcp.error(
            "GET", "/kernelspecs/{kernel_name}/{file_name}", 404, kernel_name="nope", file_name="kernel.json"
        )
        assert "Kernelspec nope/kernel.json not found" in text
        text = await mcp.error("PATCH", CONTENTS, 500, path="er/missing.txt", path_body="er/b.txt")
        assert "Internal Server Error" in text

    jupyverse.run(body, transport)
