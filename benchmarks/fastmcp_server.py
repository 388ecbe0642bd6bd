"""FastMCP's `from_openapi` on one spec: the peer of the benchmark. Run by the FastMCP venv's python, never
imported by the benchmark (stdlib + fastmcp + httpx2 + yaml only; FastMCP 4.x takes an httpx2 client).

`fastmcp_server.py SPEC --base-url URL` serves the spec over stdio, calls going to URL.
`fastmcp_server.py SPEC --build-only` prints one JSON line {"seconds", "peak_mib", "tools", ...}: seconds
from this script's start (interpreter start-up excluded) through `import fastmcp`, loading the spec and
FastMCP.from_openapi; peak_mib is the process's peak RSS then. The parts are printed too."""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

UNUSED_URL = "http://127.0.0.1:9"  # --build-only sends nothing


def quiet_fastmcp() -> None:
    """Before importing fastmcp: stdout is the protocol, so no banner and no update check (which would
    reach the network); FastMCP's logs go to stderr at its default level, as a user would run it."""
    os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")


def json_compatible(node: Any) -> Any:
    """What PyYAML loads, made JSON's: dates as ISO strings, keys (e.g. unquoted 200) as strings."""
    if isinstance(node, dict):
        return {str(key): json_compatible(value) for key, value in node.items()}
    if isinstance(node, list):
        return [json_compatible(item) for item in node]
    if isinstance(node, (datetime.date, datetime.datetime)):
        return node.isoformat()
    return node


def load_spec(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        spec = json.loads(text)
    else:
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        spec = json_compatible(yaml.load(text, Loader=loader))
    if not isinstance(spec, dict):
        raise SystemExit(f"{path}: not an OpenAPI document")
    return spec


def peak_mib() -> float:
    """VmHWM, as benchmarks/peak_child.py reads it (run with -I, this script cannot import it): ru_maxrss
    would start at the benchmark's own peak."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("/proc/self/status has no VmHWM")


def build_only(spec_path: Path) -> None:
    quiet_fastmcp()
    import_began = time.perf_counter()
    import fastmcp  # type: ignore[import-not-found,unused-ignore]  # noqa: F401  (timed apart)
    import httpx2

    load_began = time.perf_counter()
    spec = load_spec(spec_path)
    build_began = time.perf_counter()
    server = build_server(spec, httpx2.AsyncClient(base_url=UNUSED_URL, timeout=30.0), spec_path.stem)
    built = time.perf_counter()
    memory = peak_mib()
    tools = len(_run(server.list_tools()))  # not part of the build; FastMCP defers work to it
    figures = {
        "seconds": built - STARTED,
        "peak_mib": memory,
        "tools": tools,
        "import_seconds": load_began - import_began,
        "load_seconds": build_began - load_began,
        "from_openapi_seconds": built - build_began,
        "list_tools_seconds": time.perf_counter() - built,
    }
    print(json.dumps(figures), flush=True)


def build_server(spec: dict[str, Any], client: Any, name: str) -> Any:
    """FastMCP's defaults, but our client: without one it needs a `servers` URL in the spec."""
    from fastmcp import FastMCP  # type: ignore[import-not-found,unused-ignore]

    return FastMCP.from_openapi(spec, client=client, name=name)


def _run(coroutine: Any) -> Any:
    import asyncio

    return asyncio.run(coroutine)


def serve(spec_path: Path, base_url: str) -> None:
    quiet_fastmcp()
    import httpx2

    client = httpx2.AsyncClient(base_url=base_url, timeout=30.0)
    server = build_server(load_spec(spec_path), client, spec_path.stem)
    server.run(transport="stdio", show_banner=False)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("spec", type=Path)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--base-url", help="serve over stdio, calling this upstream")
    mode.add_argument("--build-only", action="store_true", help="time from_openapi and exit")
    args = parser.parse_args(argv)
    if args.build_only:
        build_only(args.spec)
    else:
        serve(args.spec, args.base_url)


if __name__ == "__main__":
    main(sys.argv[1:])
