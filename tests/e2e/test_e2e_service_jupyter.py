"""Jupyter Server (PyPI, pinned in tests/services/jupyter.txt), a real service, driven only through
the server generated from its own Swagger 2.0 spec (the wheel's `services/api/api.yaml`, relative
basePath `/`: the base URL given is the origin), its token in `{PREFIX}_HEADERS`. Every read-only
tool is called with real arguments; contents (nested paths, a directory, a notebook) and kernels
with sessions go through a create → read → update → delete round trip, each step checked over plain
HTTP; the service's real errors come back as isError with its own message. The contents round trip
and the errors also run over streamable HTTP (`--auth token`) in both protocol eras, the kernels and
sessions round trip in the current one."""

from __future__ import annotations

import json
import secrets
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from e2e_support import generate_and_install
from services_support import (
    HTTP_TIMEOUT,
    KERNEL_START_TIMEOUT,
    OVER_EVERY_TRANSPORT,
    OVER_STDIO_AND_HTTP,
    Caller,
    Driven,
    Service,
    Tools,
    deviations,
    http,
    installed,
    text_blocks,
    uncalled,
)
from venv_support import ServerVenv

pytestmark = pytest.mark.e2e

CONTENTS = "/api/contents/{path}"


@dataclass
class Jupyter(Driven):
    token: str

    def api(self, method: str, path: str, body: Any = None, timeout: float = HTTP_TIMEOUT) -> Any:
        """The service's own API, over plain HTTP: (status, the JSON of a success, else the body)."""
        headers = {"Authorization": f"token {self.token}"}
        answer = http(method, self.service.origin + path, body, headers, timeout)
        return answer.status, (answer.json() if answer.body and answer.status < 300 else answer.body)

    def message(self, method: str, path: str, status: int, body: Any = None) -> str:
        """The body of the service's error answer to a request (asserting its status)."""
        answer = http(method, self.service.origin + path, body, {"Authorization": f"token {self.token}"})
        assert answer.status == status, (answer.status, answer.body)
        return answer.body.decode()


def _spec(root: Path) -> Path:
    found = sorted(root.glob("lib/python*/site-packages/jupyter_server/services/api/api.yaml"))
    assert len(found) == 1, f"Jupyter Server's api.yaml under {root}: {found}"
    return found[0]


@pytest.fixture(scope="module")
def jupyter(server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Jupyter]:
    root = installed("jupyter", "bin/jupyter-server")
    workdir = tmp_path_factory.mktemp("jupyter")
    (workdir / "root").mkdir()
    token = secrets.token_hex(16)

    def argv(port: int) -> list[str]:
        return [
            str(root / "bin" / "jupyter-server"),
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={workdir / 'root'}",
            "--ServerApp.open_browser=False",
            "--ServerApp.allow_root=True",  # (CI runs as root)
        ]

    env = {f"JUPYTER_{kind}_DIR": str(workdir / kind.lower()) for kind in ("CONFIG", "DATA", "RUNTIME")}
    service = Service("jupyter", argv, "/api/", workdir, {**env, "HOME": str(workdir)}).start()
    try:
        package = generate_and_install(
            _spec(root), tmp_path_factory.mktemp("gen-jupyter"), server_venv, "jupyter-mcp"
        )
        env = package.env(service.origin, HEADERS=json.dumps({"Authorization": f"token {token}"}))
        with Jupyter(service, package, Tools(package), env, token) as jupyter:
            yield jupyter
            for kernel in jupyter.api("GET", "/api/kernels")[1]:  # (kernels run in sessions of their own)
                jupyter.api("DELETE", f"/api/kernels/{kernel['id']}")
    finally:
        service.stop()


def test_every_read_only_tool_answers_with_the_services_state(jupyter: Jupyter) -> None:
    """Real arguments from state made over plain HTTP: a nested folder, a file with a checkpoint,
    a kernel, a session, a terminal; each GET tool agrees with the same GET over plain HTTP."""
    for folder in ("ro", "ro/sub"):
        assert jupyter.api("PUT", f"/api/contents/{folder}", {"type": "directory"})[0] == 201
    file = {"type": "file", "format": "text", "content": "line one\n"}
    assert jupyter.api("PUT", "/api/contents/ro/sub/a.txt", file)[0] == 201
    assert jupyter.api("POST", "/api/contents/ro/sub/a.txt/checkpoints")[0] == 201
    status, kernel = jupyter.api("POST", "/api/kernels", {"name": "python3"}, KERNEL_START_TIMEOUT)
    assert status == 201, kernel
    session_body = {"path": "ro/s.ipynb", "type": "notebook", "name": "s", "kernel": {"id": kernel["id"]}}
    status, session = jupyter.api("POST", "/api/sessions", session_body)
    assert status == 201, session
    status, terminal = jupyter.api("POST", "/api/terminals")
    assert status == 200, terminal

    async def body(mcp: Caller) -> None:
        await _read_contents(jupyter, mcp)
        sessions = await mcp.ok("GET", "/api/sessions")
        assert [s["id"] for s in sessions] == [session["id"]]
        got = await mcp.ok("GET", "/api/sessions/{session}", session=session["id"])
        assert (got["path"], got["kernel"]["id"]) == ("ro/s.ipynb", kernel["id"])
        assert [k["id"] for k in await mcp.ok("GET", "/api/kernels")] == [kernel["id"]]
        got = await mcp.ok("GET", "/api/kernels/{kernel_id}", kernel_id=kernel["id"])
        assert (got["id"], got["name"]) == (kernel["id"], "python3")
        specs = await mcp.ok("GET", "/api/kernelspecs")
        assert specs["default"] == "python3" and "python3" in specs["kernelspecs"]
        section = await mcp.ok("GET", "/api/config/{section_name}", section_name="notebook")
        assert section == jupyter.api("GET", "/api/config/notebook")[1]
        assert [t["name"] for t in await mcp.ok("GET", "/api/terminals")] == [terminal["name"]]
        got = await mcp.ok("GET", "/api/terminals/{terminal_id}", terminal_id=terminal["name"])
        assert got["name"] == terminal["name"]
        me, plain = await mcp.ok("GET", "/api/me"), jupyter.api("GET", "/api/me")[1]
        assert sorted(me["identity"]) == sorted(plain["identity"])  # (a new anonymous user each time)
        status = await mcp.ok("GET", "/api/status")
        assert status["kernels"] == 1 and status["started"] == jupyter.api("GET", "/api/status")[1]["started"]
        spec_text = await mcp.ok("GET", "/api/spec.yaml")
        assert isinstance(spec_text, str) and spec_text.startswith('swagger: "2.0"')
        resolved = await mcp.ok("GET", "/api/resolvePath", path="ro/sub/a.txt")
        assert resolved == jupyter.api("GET", "/api/resolvePath?path=ro/sub/a.txt")[1]

    jupyter.tools.called.clear()  # (what other tests of this worker called does not count)
    try:
        jupyter.run(body)
    finally:
        jupyter.api("DELETE", f"/api/sessions/{session['id']}")
        jupyter.api("DELETE", f"/api/terminals/{terminal['name']}")
    # GET /api/ (the version): test_the_version_tool_follows_the_services_redirect
    assert uncalled(jupyter.tools) == [("GET", "/api/")]


async def _read_contents(jupyter: Jupyter, mcp: Caller) -> None:
    """A file, a folder (its listing deviates from the spec's `content: string`), checkpoints."""
    got = await mcp.ok("GET", CONTENTS, path="ro/sub/a.txt")
    assert (got["path"], got["type"], got["content"]) == ("ro/sub/a.txt", "file", "line one\n")
    result = await mcp.success("GET", CONTENTS, path="ro/sub")
    assert deviations(result) == {"leftOut": ["/content"], "nulled": [], "unlisted": 0}
    listing = json.loads(text_blocks(result)[0])
    assert listing == jupyter.api("GET", "/api/contents/ro/sub")[1]
    assert [item["path"] for item in listing["content"]] == ["ro/sub/a.txt"]
    assert "content" not in result.structured_content
    assert result.structured_content["path"] == "ro/sub"
    checkpoints = await mcp.ok("GET", "/api/contents/{path}/checkpoints", path="ro/sub/a.txt")
    assert checkpoints == jupyter.api("GET", "/api/contents/ro/sub/a.txt/checkpoints")[1]
    assert len(checkpoints) == 1


@OVER_EVERY_TRANSPORT
@pytest.mark.representative(transport="stdio")  # (CI's second pass: tests/conftest.py)
def test_contents_round_trip_with_nested_paths_and_a_notebook(jupyter: Jupyter, transport: str) -> None:
    """Create (PUT a folder, a nested one, a file; POST a notebook), read, save, rename, delete."""
    top = f"rt-{transport}"  # (each transport's own folder: a worker's tests share the service)

    async def body(mcp: Caller) -> None:
        for folder in (top, f"{top}/deep"):
            made = await mcp.ok("PUT", CONTENTS, path=folder, type="directory")
            assert (made["path"], made["type"]) == (folder, "directory")
        text = {"type": "file", "format": "text"}
        await mcp.ok("PUT", CONTENTS, path=f"{top}/deep/a.txt", content="v1", **text)
        assert jupyter.api("GET", f"/api/contents/{top}/deep/a.txt")[1]["content"] == "v1"
        assert (await mcp.ok("GET", CONTENTS, path=f"{top}/deep/a.txt"))["content"] == "v1"
        await mcp.ok("PUT", CONTENTS, path=f"{top}/deep/a.txt", content="v2", **text)
        assert jupyter.api("GET", f"/api/contents/{top}/deep/a.txt")[1]["content"] == "v2"
        moved = await mcp.ok("PATCH", CONTENTS, path=f"{top}/deep/a.txt", path_body=f"{top}/b.txt")
        assert moved["path"] == f"{top}/b.txt"
        assert jupyter.api("GET", f"/api/contents/{top}/deep/a.txt")[0] == 404
        assert jupyter.api("GET", f"/api/contents/{top}/b.txt")[1]["content"] == "v2"
        notebook = await mcp.ok("POST", CONTENTS, path=f"{top}/deep", type="notebook")
        assert notebook["path"] == f"{top}/deep/Untitled.ipynb"
        status, stored = jupyter.api("GET", f"/api/contents/{top}/deep/Untitled.ipynb")
        assert (status, stored["type"], stored["content"]["nbformat"]) == (200, "notebook", 4)
        result = await mcp.success("GET", CONTENTS, path=f"{top}/deep/Untitled.ipynb")
        assert deviations(result) == {"leftOut": ["/content"], "nulled": [], "unlisted": 0}
        assert json.loads(text_blocks(result)[0])["content"] == stored["content"]
        for path in (f"{top}/deep/Untitled.ipynb", f"{top}/b.txt"):
            assert "204" in (await mcp.ok("DELETE", CONTENTS, path=path))
            assert jupyter.api("GET", f"/api/contents/{path}")[0] == 404
        assert jupyter.api("GET", f"/api/contents/{top}/deep")[1]["content"] == []

    jupyter.run(body, transport)


@OVER_EVERY_TRANSPORT
@pytest.mark.representative(transport="http-legacy")
def test_contents_errors_carry_the_services_message(jupyter: Jupyter, transport: str) -> None:
    """404 for a missing file, 409 for a rename onto an existing file, 400 for a file saved as JSON: each
    an isError whose text has the body the service gives the same request over plain HTTP."""
    top = f"er-{transport}"
    for path in (top, f"{top}/x.txt", f"{top}/y.txt"):
        kind = {"type": "directory"} if path == top else {"type": "file", "format": "text", "content": path}
        assert jupyter.api("PUT", f"/api/contents/{path}", kind)[0] == 201
    saved = {"type": "file", "format": "json", "content": "z"}
    missing = jupyter.message("GET", f"/api/contents/{top}/missing.txt", 404)
    clash = jupyter.message("PATCH", f"/api/contents/{top}/x.txt", 409, {"path": f"{top}/y.txt"})
    unknown = jupyter.message("PUT", f"/api/contents/{top}/z", 400, saved)
    assert "does not exist" in missing and "already exists" in clash and "'text' or 'base64'" in unknown

    async def body(mcp: Caller) -> None:
        assert missing in await mcp.error("GET", CONTENTS, 404, path=f"{top}/missing.txt")
        renamed = {"path": f"{top}/x.txt", "path_body": f"{top}/y.txt"}
        assert clash in await mcp.error("PATCH", CONTENTS, 409, **renamed)
        assert unknown in await mcp.error("PUT", CONTENTS, 400, path=f"{top}/z", **saved)

    jupyter.run(body, transport)
    assert jupyter.api("GET", f"/api/contents/{top}/x.txt")[1]["content"] == f"{top}/x.txt"
    assert jupyter.api("GET", f"/api/contents/{top}/z")[0] == 404


@OVER_STDIO_AND_HTTP
@pytest.mark.representative(transport="http")
def test_kernels_and_sessions_round_trip(jupyter: Jupyter, transport: str) -> None:
    """Start a kernel (ipykernel), list it, restart and interrupt it, open a session on it, rename
    the session, delete the session and the kernel; a deleted kernel is a 404 with its message."""

    async def body(mcp: Caller) -> None:
        kernel = await mcp.ok("POST", "/api/kernels", name="python3")
        assert jupyter.api("GET", f"/api/kernels/{kernel['id']}")[1]["name"] == "python3"
        assert kernel["id"] in [k["id"] for k in await mcp.ok("GET", "/api/kernels")]
        restarted = await mcp.ok("POST", "/api/kernels/{kernel_id}/restart", kernel_id=kernel["id"])
        assert restarted["id"] == kernel["id"]
        await mcp.ok("POST", "/api/kernels/{kernel_id}/interrupt", kernel_id=kernel["id"])
        session = await mcp.ok(
            "POST",
            "/api/sessions",
            path="ks/n.ipynb",
            type="notebook",
            name="n",
            kernel={"id": kernel["id"], "name": "python3"},
        )
        assert jupyter.api("GET", f"/api/sessions/{session['id']}")[1]["kernel"]["id"] == kernel["id"]
        renamed = await mcp.ok("PATCH", "/api/sessions/{session}", session=session["id"], path="ks/m.ipynb")
        assert renamed["path"] == "ks/m.ipynb"
        assert jupyter.api("GET", f"/api/sessions/{session['id']}")[1]["path"] == "ks/m.ipynb"
        await mcp.ok("DELETE", "/api/sessions/{session}", session=session["id"])
        assert jupyter.api("GET", f"/api/sessions/{session['id']}")[0] == 404
        other = await mcp.ok("POST", "/api/kernels", name="python3")
        await mcp.ok("DELETE", "/api/kernels/{kernel_id}", kernel_id=other["id"])
        assert jupyter.api("GET", f"/api/kernels/{other['id']}")[0] == 404
        gone = jupyter.message("GET", f"/api/kernels/{other['id']}", 404)
        assert gone in await mcp.error("GET", "/api/kernels/{kernel_id}", 404, kernel_id=other["id"])
        unknown = str(uuid.uuid4())
        no_session = jupyter.message("GET", f"/api/sessions/{unknown}", 404)
        assert no_session in await mcp.error("GET", "/api/sessions/{session}", 404, session=unknown)

    jupyter.run(body, transport)


def test_the_version_tool_follows_the_services_redirect(jupyter: Jupyter) -> None:
    """The spec's GET /api/ is answered `302 Found, Location: /api`: a redirect on the same origin is
    followed (tests/runtime/test_runtime_redirects.py), so the tool answers the version."""
    assert http("GET", jupyter.service.origin + "/api/").status == 302
    version = jupyter.api("GET", "/api")[1]

    async def body(mcp: Caller) -> None:
        assert await mcp.ok("GET", "/api/") == version

    jupyter.run(body)


def test_checkpoints_config_and_terminals_round_trips(jupyter: Jupyter) -> None:
    """A checkpoint made, a file changed and restored from it, the checkpoint deleted; a config
    section updated and read back; a terminal opened and closed."""
    saved = {"type": "file", "format": "text"}
    assert jupyter.api("PUT", "/api/contents/cp.txt", {**saved, "content": "kept"})[0] == 201

    async def body(mcp: Caller) -> None:
        checkpoint = await mcp.ok("POST", "/api/contents/{path}/checkpoints", path="cp.txt")
        assert jupyter.api("GET", "/api/contents/cp.txt/checkpoints")[1] == [checkpoint]
        await mcp.ok("PUT", CONTENTS, path="cp.txt", content="changed", **saved)
        restore = "/api/contents/{path}/checkpoints/{checkpoint_id}"
        await mcp.ok("POST", restore, path="cp.txt", checkpoint_id=checkpoint["id"])
        assert jupyter.api("GET", "/api/contents/cp.txt")[1]["content"] == "kept"
        await mcp.ok("DELETE", restore, path="cp.txt", checkpoint_id=checkpoint["id"])
        assert jupyter.api("GET", "/api/contents/cp.txt/checkpoints")[1] == []
        updated = await mcp.ok(
            "PATCH", "/api/config/{section_name}", section_name="tests", body={"k": [1, "two"]}
        )
        assert updated == {"k": [1, "two"]} == jupyter.api("GET", "/api/config/tests")[1]
        terminal = await mcp.ok("POST", "/api/terminals")
        assert [t["name"] for t in jupyter.api("GET", "/api/terminals")[1]] == [terminal["name"]]
        await mcp.ok("DELETE", "/api/terminals/{terminal_id}", terminal_id=terminal["name"])
        assert jupyter.api("GET", "/api/terminals")[1] == []

    jupyter.run(body)


CLEAN_UP = """
from typing import Any
import api
folder = api.get_contents(path={folder!r})
items: Any = folder["content"]  # the API lists a folder where its spec says a string
gone = []
for item in items:
    if item["name"].endswith(".tmp"):
        api.delete_contents(path=item["path"])
        gone.append(item["name"])
try:
    api.get_contents(path={folder!r} + "/missing.txt")
except OSError:
    error = api.last_error()
sorted(gone), error["status"] if error else None
"""


@OVER_STDIO_AND_HTTP
@pytest.mark.representative(transport="stdio")
def test_code_mode_runs_a_program_against_the_service(jupyter: Jupyter, transport: str) -> None:
    """--mode code (issue 31): one program lists a folder, deletes the files that match and reads
    a missing one; only its answer comes back, and the service's state says the deletes happened.
    A program that does not type-check sends nothing."""
    top = f"code-{transport}"
    assert jupyter.api("PUT", f"/api/contents/{top}", {"type": "directory"})[0] == 201
    for name in ("a.txt", "b.tmp", "c.tmp", "d.txt"):
        file = {"type": "file", "format": "text", "content": name}
        assert jupyter.api("PUT", f"/api/contents/{top}/{name}", file)[0] == 201
    env = {**jupyter.env, f"{jupyter.package.env_prefix}_MODE": "code"}

    async def body(mcp: Caller) -> None:
        listed = await mcp.client.list_tools()
        assert [tool.name for tool in listed.tools] == ["search_tools", "describe_tools", "run_code"]
        refused = await mcp.client.call_tool("run_code", {"code": "import api\napi.delete_contents()"})
        assert refused.is_error and "missing-argument" in text_blocks(refused)[0]
        ran = await mcp.client.call_tool("run_code", {"code": CLEAN_UP.format(folder=top)})
        assert not ran.is_error, text_blocks(ran)
        assert ran.structured_content == {"result": [["b.tmp", "c.tmp"], 404], "printed": "", "calls": 4}

    with Jupyter(jupyter.service, jupyter.package, jupyter.tools, env, jupyter.token) as coded:
        coded.run(body, transport)
    listing = jupyter.api("GET", f"/api/contents/{top}")[1]["content"]
    assert sorted(item["name"] for item in listing) == ["a.txt", "d.txt"]
