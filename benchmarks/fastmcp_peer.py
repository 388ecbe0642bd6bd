"""FastMCP 4.1.6 (`from_openapi`) as the benchmark's peer, in a venv of its own (`--compare fastmcp`).

`pip install fastmcp==4.1.6` cannot resolve here: fastmcp-slim 4.1.6's `server` extra pins
`certifi>=2026.10.19`, newer than any certifi the registry has. So fastmcp and fastmcp-slim are installed
with --no-deps, then fastmcp-slim's own requirements for the extras fastmcp asks for (client, server) from
its metadata, with exactly one change: the certifi lower bound is dropped (RELAXED). certifi is the CA
bundle; nothing measured here uses TLS.

Runs in the benchmark's venv; the server itself is benchmarks/fastmcp_server.py run by the peer's python."""

from __future__ import annotations

import functools
import json
import re
import shutil
import statistics
import subprocess
import sys
import venv
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement

VERSION = "4.1.6"
PACKAGES = (f"fastmcp=={VERSION}", f"fastmcp-slim=={VERSION}")
EXTRAS = ("client", "server")  # fastmcp 4.1.6 requires fastmcp-slim[client,server]==4.1.6
RELAXED = {"certifi": "certifi>=2026.10.19 is newer than the registry's newest certifi: any version"}
SERVER_SCRIPT = Path(__file__).with_name("fastmcp_server.py")
STAMP = "openapi2mcp-bench-installed"
PIP_TIMEOUT = 900.0
BUILD_TIMEOUT = 900.0
MAX_NAME = 56  # FastMCP cuts tool names to 56 characters


class PeerUnavailable(RuntimeError):
    """The peer could not be installed or run."""


# ---- the venv --------------------------------------------------------------------------------


def fastmcp_python(cache_dir: Path) -> Path:
    """The python of a venv at cache_dir/fastmcp-4.1.6 with fastmcp==4.1.6 installed (--no-deps, then its
    dependencies); created once, reused when its stamp file is there. Raises PeerUnavailable with a clear
    message if pip fails."""
    home = cache_dir.absolute() / f"fastmcp-{VERSION}"
    python = home / "bin" / "python"
    stamp = home / STAMP
    if stamp.is_file() and python.exists():
        return python
    if home.exists():
        shutil.rmtree(home)  # a half-made venv from an interrupted install
    home.parent.mkdir(parents=True, exist_ok=True)
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(home)
    except (OSError, subprocess.CalledProcessError) as failed:
        raise PeerUnavailable(f"FastMCP {VERSION}: cannot create a venv at {home}: {failed}") from failed
    _pip(python, ["--no-deps", *PACKAGES])
    requirements = slim_requirements(_installed_requires(python, "fastmcp-slim"), EXTRAS)
    _pip(python, requirements)
    stamp.write_text("\n".join([*PACKAGES, *requirements]) + "\n", encoding="utf-8")
    return python


def slim_requirements(requires: Iterable[str], extras: Sequence[str]) -> list[str]:
    """The requirements that apply with these extras on this interpreter (markers evaluated, the
    extra marker dropped), the RELAXED ones without their version bound; sorted and de-duplicated."""
    chosen: set[str] = set()
    for line in requires:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is not None and not any(marker.evaluate({"extra": extra}) for extra in extras):
            continue
        requirement.marker = None
        if requirement.name.lower() in RELAXED:
            requirement.specifier = type(requirement.specifier)()
        chosen.add(str(requirement))
    return sorted(chosen)


def _installed_requires(python: Path, distribution: str) -> list[str]:
    script = f"import importlib.metadata as m, json; print(json.dumps(m.requires({distribution!r}) or []))"
    completed = _run(
        [str(python), "-I", "-c", script], timeout=60.0, what=f"reading {distribution}'s metadata"
    )
    requires: list[str] = json.loads(completed.stdout)
    return requires


def _pip(python: Path, arguments: list[str]) -> None:
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", *arguments]
    _run(command, timeout=PIP_TIMEOUT, what="pip install " + " ".join(arguments))


def _run(command: list[str], timeout: float, what: str) -> subprocess.CompletedProcess[str]:
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as timed_out:
        raise PeerUnavailable(f"FastMCP {VERSION}: {what}: no end within {timeout:g} s") from timed_out
    if completed.returncode != 0:
        tail = "\n".join(completed.stderr.strip().splitlines()[-15:])
        raise PeerUnavailable(f"FastMCP {VERSION}: {what} failed (exit {completed.returncode}):\n{tail}")
    return completed


# ---- serving and building --------------------------------------------------------------------


def server_command(python: Path, spec: Path, base_url: str) -> list[str]:
    """argv that serves the spec with FastMCP.from_openapi over stdio (-I: nothing of ours on its path).
    A Swagger 2.0 spec is served as its OpenAPI 3 conversion (see fastmcp_spec)."""
    served = fastmcp_spec(python, spec)
    return [str(python), "-I", str(SERVER_SCRIPT), str(served), "--base-url", base_url]


def fastmcp_spec(python: Path, spec: Path) -> Path:
    """The spec FastMCP is given: the spec itself, or for Swagger 2.0 (which FastMCP 4.1.6 rejects:
    "Invalid OpenAPI schema") our own conversion to OpenAPI 3.0.3, written once into the peer's venv
    (python/../../specs) and reused while newer than the spec. Not timed: FastMCP's figures on a Swagger
    spec are for that OpenAPI 3 document, as a user would have to convert it first."""
    converted = python.parent.parent / "specs" / f"{spec.stem}.openapi3.json"
    if converted.is_file() and converted.stat().st_mtime_ns >= spec.stat().st_mtime_ns:
        return converted
    if not _is_swagger2(str(spec.absolute()), spec.stat().st_mtime_ns):
        return spec
    from openapi2mcp.diagnostics import Diagnostics
    from openapi2mcp.load.source import load_source
    from openapi2mcp.load.swagger2.convert import convert_swagger2

    document, _ = load_source(str(spec))
    converted.parent.mkdir(parents=True, exist_ok=True)
    partial = converted.with_suffix(".partial")
    partial.write_text(json.dumps(convert_swagger2(document, Diagnostics())), encoding="utf-8")
    partial.replace(converted)
    return converted


@functools.lru_cache(maxsize=64)
def _is_swagger2(spec: str, mtime_ns: int) -> bool:
    """Remembered per file version: parsing a big spec takes seconds."""
    from openapi2mcp.load.source import load_source
    from openapi2mcp.load.swagger2.convert import is_swagger2

    return is_swagger2(load_source(spec)[0])


def measure_build(python: Path, spec: Path, runs: int) -> tuple[float, float]:
    """Median seconds of from_openapi (cold, each run a fresh process) and the median peak MiB of that
    process. The seconds include `import fastmcp` and loading the spec, as a user's cold start pays
    them (the issue's "8.2 s cold in-process"), not the interpreter's own start-up."""
    figures = [build_figures(python, spec) for _ in range(runs)]
    return (
        statistics.median(figure["seconds"] for figure in figures),
        statistics.median(figure["peak_mib"] for figure in figures),
    )


def build_figures(python: Path, spec: Path) -> dict[str, Any]:
    """One fresh `fastmcp_server.py SPEC --build-only` process: its JSON line."""
    command = [str(python), "-I", str(SERVER_SCRIPT), str(fastmcp_spec(python, spec)), "--build-only"]
    completed = _run(command, timeout=BUILD_TIMEOUT, what=f"from_openapi on {spec.name}")
    lines = completed.stdout.strip().splitlines()
    if not lines:
        raise PeerUnavailable(f"FastMCP {VERSION}: from_openapi on {spec.name} printed nothing")
    figures: dict[str, Any] = json.loads(lines[-1])
    return figures


# ---- which tool is which operation -----------------------------------------------------------


def fastmcp_base_name(method: str, path: str, operation_id: str | None) -> str:
    """FastMCP's name before de-duplication: the operationId up to a "__", else "METHOD_path"; slugged
    and cut to 56 characters (OpenAPIProvider._generate_default_name; an operation without an
    operationId but with a summary is named from the summary, which this cannot see)."""
    text = operation_id.split("__")[0] if operation_id else f"{method.upper()}_{path}"
    return _slugify(text)[:MAX_NAME]


def _slugify(text: str) -> str:
    slug = re.sub(r"[\s\-\.]+", "_", text)
    slug = re.sub(r"[^a-zA-Z0-9_]", "", slug)
    return re.sub(r"_+", "_", slug).strip("_")


def tool_name(tools: list[dict[str, Any]], method: str, path: str, operation_id: str | None) -> str | None:
    """Which FastMCP tool serves this operation (FastMCP names tools from operationId, possibly cut/slugged).
    None when no tool has that name or when it is ambiguous: another operation got the same name (FastMCP
    then appends _2, _3, … in spec order, which one operation alone cannot tell)."""
    base = fastmcp_base_name(method, path, operation_id)
    names = {str(tool.get("name")) for tool in tools}
    if base and base in names and f"{base}_2" not in names:
        return base
    if operation_id is None:  # no operationId, no summary, no description: "Executes GET /path"
        described = f"Executes {method.upper()} {path}"
        matches = [str(tool["name"]) for tool in tools if tool.get("description") == described]
        if len(matches) == 1:
            return matches[0]
    return None


def main(argv: list[str]) -> None:
    """`python -m benchmarks.fastmcp_peer CACHE_DIR [SPEC]`: make the venv; with a spec, one build."""
    python = fastmcp_python(Path(argv[0]))
    print(python)
    if len(argv) > 1:
        print(json.dumps(build_figures(python, Path(argv[1]))))


if __name__ == "__main__":
    main(sys.argv[1:])
