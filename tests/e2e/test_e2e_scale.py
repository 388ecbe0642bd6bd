"""Containers and scale-out end to end, with the petstore package: the image's server command run as
the image runs it (its ENTRYPOINT, CMD, ENV and HEALTHCHECK read from the generated Dockerfile, as an
unprivileged user), the image itself built and run where a container engine works, and `--stateless`
(`--workers N`, any instance answering any request, the per-session features refused clearly)."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from e2e_support import (
    START_TIMEOUT,
    Generated,
    accepts_connections,
    free_port,
    kill_group,
    minimal_env,
    read_text,
    run_tool,
    tail,
    wait_until,
)
from http_support import ACCEPT, HttpServer, era_session, http_session
from mcp import MCPError
from mcp_support import CALL_TIMEOUT, MODES, run_async, text_of
from petstore_support import PETS
from recording_upstream import RecordingUpstream

pytestmark = pytest.mark.e2e
TOKEN = "a-long-random-test-token"
NOBODY = 65534  # the unprivileged user the image's command runs as when the tests run as root


def rpc(method: str, params: dict[str, Any], id_: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def post(url: str, message: dict[str, Any], **headers: str) -> httpx2.Response:
    version = {"MCP-Protocol-Version": "2025-06-18"}
    return httpx2.post(url, json=message, headers={**ACCEPT, **version, **headers}, timeout=CALL_TIMEOUT)


# ---- the image's server command ----------------------------------------------------------------


def dockerfile(package: Generated) -> dict[str, Any]:
    """ENV (name → value), ENTRYPOINT, CMD and the HEALTHCHECK command of the generated Dockerfile."""
    text = read_text(package.source / "Dockerfile")
    text = re.sub(r"\\\n\s*", " ", "\n".join(x for x in text.splitlines() if not x.startswith("#")))
    found: dict[str, Any] = {"ENV": {}}
    for line in text.splitlines():
        keyword, _, rest = line.strip().partition(" ")
        if keyword == "ENV":
            found["ENV"].update(pair.split("=", 1) for pair in rest.split())
        elif keyword in ("ENTRYPOINT", "CMD"):
            found[keyword] = json.loads(rest)
        elif keyword == "HEALTHCHECK":
            found[keyword] = json.loads(rest.partition(" CMD ")[2])
    return found


def image_env(package: Generated, image: dict[str, Any], **extra: str) -> dict[str, str]:
    """The image's environment: its ENV, the venv's bin first on PATH (where `pip install .` puts the
    console script and `python`), and what `docker run -e` would add."""
    path = f"{package.venv.path / 'bin'}:{os.environ.get('PATH', '')}"
    return minimal_env({**image["ENV"], "PATH": path, **extra})


def unprivileged(python: Path) -> dict[str, Any]:
    """Popen's arguments that run a child as an unprivileged user: none when the tests are not root;
    nobody when they are, if nobody can run the venv's interpreter (a root-only pyenv cannot)."""
    if os.geteuid() != 0:
        return {}
    real = python.resolve()
    if any(not path.stat().st_mode & stat.S_IXOTH for path in (real, *real.parents)):
        return {}
    return {"user": NOBODY, "group": NOBODY, "extra_groups": []}


def test_the_image_command_refuses_to_start_without_a_token(petstore: Generated, tmp_path: Path) -> None:
    """The exact argv and ENV of the image (0.0.0.0, token auth) with no token: exit 2 before binding."""
    image = dockerfile(petstore)
    finished = run_tool([*image["ENTRYPOINT"], *image["CMD"]], image_env(petstore, image), tmp_path)
    assert finished.returncode == 2, finished
    assert "--auth token needs PETSTORE_MCP_TOKENS" in finished.stderr, finished


def test_the_image_command_serves_healthz_and_authenticated_tools(
    petstore: Generated, upstream: RecordingUpstream, tmp_path: Path
) -> None:
    """The image's argv (--host 0.0.0.0 → 127.0.0.1 and --port 8000 → a free port: servers here
    listen on loopback only), its ENV plus the token and base URL `docker run -e` would pass, run as
    an unprivileged user; its HEALTHCHECK command (same port change) passes; tools/list needs the token."""
    image = dockerfile(petstore)
    port = free_port()
    argv = [*image["ENTRYPOINT"], *image["CMD"]]
    assert argv[argv.index("--host") + 1] == "0.0.0.0" and argv[argv.index("--port") + 1] == "8000"
    argv[argv.index("--host") + 1], argv[argv.index("--port") + 1] = "127.0.0.1", str(port)
    env = image_env(petstore, image, PETSTORE_MCP_TOKENS=TOKEN, PETSTORE_BASE_URL=upstream.url)
    log, dropped = tmp_path / "server.log", unprivileged(petstore.venv.python)
    with open(log, "ab") as out:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                   env=env, cwd="/", start_new_session=True, **dropped)  # fmt: skip
    try:
        wait_until(lambda: accepts_connections(port) or process.poll() is not None, START_TIMEOUT)
        assert process.poll() is None, tail(log)
        check = [part.replace(":8000/", f":{port}/") for part in image["HEALTHCHECK"]]
        healthy = subprocess.run(check, env=env, capture_output=True, text=True, timeout=30)
        assert healthy.returncode == 0, healthy.stderr
        health = httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=CALL_TIMEOUT)
        assert (health.status_code, health.json()) == (200, {"status": "ok"})
        url = f"http://127.0.0.1:{port}/mcp"
        assert post(url, rpc("tools/list", {})).status_code == 401
        names = [tool.name for tool in run_async(lambda: authorized_tools(url)).tools]
        assert names == [tool["name"] for tool in petstore.tool_data["tools"]]
        assert os.stat(f"/proc/{process.pid}").st_uid == (NOBODY if dropped else os.geteuid())
    finally:
        kill_group(process)


async def authorized_tools(url: str) -> Any:
    """tools/list by the official client, with the bearer token."""
    async with http_session(url, headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        return await client.list_tools()


def docker_works() -> str | None:
    """Why the image cannot be built here (None: a container engine answers)."""
    docker = shutil.which("docker")
    if docker is None:
        return "no `docker` command"
    try:
        info = subprocess.run([docker, "info"], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "`docker info` did not answer within 30 s"
    if info.returncode != 0:
        return f"`docker info` failed: {(info.stderr.strip().splitlines() or ['?'])[-1][:200]}"
    return None


def test_the_image_builds_and_serves(petstore: Generated, tmp_path: Path) -> None:
    """docker build, docker run (a token, the port on 127.0.0.1), /healthz, tools/list with the token,
    a non-root user in the container."""
    if (reason := docker_works()) is not None:
        pytest.skip(f"no working container engine: {reason}")
    tag, name, port = "openapi2mcp-e2e-petstore:test", f"openapi2mcp-e2e-{os.getpid()}", free_port()
    build = subprocess.run(["docker", "build", "-t", tag, str(petstore.source)],
                           capture_output=True, text=True, timeout=900)  # fmt: skip
    assert build.returncode == 0, build.stderr[-4000:]
    run = ["docker", "run", "-d", "--rm", "--name", name, "-p", f"127.0.0.1:{port}:8000",
           "-e", f"PETSTORE_MCP_TOKENS={TOKEN}", tag]  # fmt: skip
    started = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    try:
        url = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            try:
                return httpx2.get(url + "/healthz", timeout=2).status_code == 200
            except httpx2.HTTPError:
                return False

        assert wait_until(healthy, 60), subprocess.run(["docker", "logs", name], capture_output=True).stderr
        listed = run_async(lambda: authorized_tools(url + "/mcp"))
        assert len(listed.tools) == len(petstore.tool_data["tools"])
        assert post(url + "/mcp", rpc("tools/list", {})).status_code == 401
        uid = subprocess.run(["docker", "exec", name, "id", "-u"], capture_output=True, text=True, timeout=60)
        assert uid.stdout.strip() == "10001"
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60)


# ---- --stateless and --workers -------------------------------------------------------------------


def test_workers_without_stateless_exit_2_naming_both(petstore: Generated, tmp_path: Path) -> None:
    argv = [petstore.command, "--transport", "http", "--port", str(free_port()), "--workers", "2"]
    finished = run_tool(argv, minimal_env(petstore.env("http://127.0.0.1:9")), tmp_path)
    assert finished.returncode == 2, finished
    assert "--workers 2 needs --stateless" in finished.stderr, finished


@pytest.fixture(scope="module")
def workers(
    petstore: Generated, upstream: RecordingUpstream, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    """Two stateless worker processes on one port."""
    log = tmp_path_factory.mktemp("workers") / "server.log"
    server = HttpServer(petstore, petstore.env(upstream.url, API_KEY_KEY="k"), log,
                        args=["--stateless", "--workers", "2"]).start()  # fmt: skip
    yield server
    server.stop()


def worker_processes(pid: int) -> list[int]:
    """The children of `pid` that multiprocessing spawned (uvicorn's workers)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(int(child))
    return found


def test_workers_are_that_many_processes_keeping_no_session(workers: HttpServer) -> None:
    assert workers._process is not None and workers._process.process is not None
    pid = workers._process.process.pid
    assert wait_until(lambda: len(worker_processes(pid)) == 2, START_TIMEOUT), worker_processes(pid)
    opened = post(workers.url, rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                                   "clientInfo": {"name": "t", "version": "1"}}))  # fmt: skip
    assert opened.status_code == 200 and "mcp-session-id" not in opened.headers


@MODES
def test_stateless_workers_serve_a_client_and_refuse_per_session_state(
    workers: HttpServer, upstream: RecordingUpstream, mode: str
) -> None:
    async def body() -> tuple[Any, Any, Any]:
        async with era_session(workers.url, mode) as client:
            listed = await client.list_tools()
            called = await client.call_tool("listPets", {})
            refused: Any = None
            if mode == "legacy":
                try:
                    with warnings.catch_warnings():  # deprecated from 2026-07-28; legacy clients use it
                        warnings.simplefilter("ignore", UserWarning)  # MCPDeprecationWarning
                        await client.set_logging_level("info")
                except MCPError as error:
                    refused = error
            return listed, called, refused

    listed, called, refused = run_async(body)
    assert [tool.name for tool in listed.tools][:2] == ["listPets", "createPet"]
    assert not called.is_error and json.loads(text_of(called)) == {"result": PETS}
    if mode == "legacy":
        assert refused is not None and "keeps none (--stateless)" in str(refused)


def test_any_instance_answers_any_request(
    petstore: Generated, upstream: RecordingUpstream, tmp_path: Path
) -> None:
    """Two separate stateless servers: a client initializes on one and calls on the other (with an
    Mcp-Session-Id it made up, which neither keeps); enable_toolsets is refused with isError."""
    env = petstore.env(upstream.url, API_KEY_KEY="k")
    args = ["--stateless", "--dynamic-toolsets"]
    first = HttpServer(petstore, env, tmp_path / "first.log", args=args).start()
    second = HttpServer(petstore, env, tmp_path / "second.log", args=args).start()
    try:
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        assert post(first.url, rpc("initialize", hello)).status_code == 200
        session = {"Mcp-Session-Id": "made-up-by-the-client"}
        called = post(second.url, rpc("tools/call", {"name": "listPets", "arguments": {}}, 2), **session)
        result = called.json()["result"]
        assert not result.get("isError") and result["structuredContent"] == {"result": PETS}
        enable = rpc("tools/call", {"name": "enable_toolsets", "arguments": {"toolsets": ["pets"]}}, 3)
        refused = post(first.url, enable, **session).json()["result"]
        assert refused["isError"] is True
        assert refused["content"][0]["text"].startswith(
            "This connection has no session to remember enabled toolsets in (a --stateless server"
        )
    finally:
        first.stop()
        second.stop()
