"""Generation benchmark: the whole `openapi2mcp generate` process (start, imports, load, map, fit, render,
black, write), its wall time and peak memory, and how they grow with the number of operations.

Each measurement runs the CLI as a child process, `python -m openapi2mcp.cli generate SPEC --name bench -o
OUT`, after one warm-up run that is not counted; the peak memory is the child's own `ru_maxrss` (from
`os.wait4`). The child runs as an installed tool does, with bytecode: Python's bytecode cache goes under the
work directory (`PYTHONPYCACHEPREFIX`), written by the warm-up run, even where the environment sets
PYTHONDONTWRITEBYTECODE (which would recompile the generator's own modules at every start).

`python -m benchmarks.generation SPEC... [--runs N] [--curve]` prints the figures of each spec.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.load.bundle import bundle
from openapi2mcp.load.source import load_source
from openapi2mcp.model import METHOD_ORDER

from .subject import PACKAGE_NAME

CURVE_FRACTIONS = (0.125, 0.25, 0.5, 0.75, 1.0)  # of the operations, for the generation curve

TIMEOUT_SECONDS = 300.0  # one generation; the largest real specs take a few seconds
_KIB_PER_MIB = 1024
PEAK_CHILD = Path(__file__).with_name("peak_child.py")  # runs the CLI and reports its own VmHWM


class GenerationFailed(RuntimeError):
    """The generator exited with an error, was killed, or did not finish in time."""


@dataclass(frozen=True)
class GenerationFigures:
    operations: int
    seconds: float  # median wall of the whole `openapi2mcp generate` process
    peak_mib: float  # median peak RSS (VmHWM of that child, reported by peak_child.py)
    runs: int


def measure_generation(spec: Path, runs: int, workdir: Path) -> GenerationFigures:
    """Generate `spec` `runs` times (after a warm-up run) into `workdir`; the medians."""
    return _measure_interleaved([(spec, workdir)], runs)[0]


def generation_curve(
    spec: Path, fractions: Sequence[float], runs: int, workdir: Path, *, spread: bool = False
) -> list[GenerationFigures]:
    """Sub-specs keeping the first k operations (whole spec minus the other operations; components kept),
    written as JSON under workdir, each measured like measure_generation; for the linear curve.

    The sub-specs are measured in turns (one run of each, `runs` times), so that the machine getting
    slower or faster for a while moves every point alike. A spec split over several files is bundled
    first (its references to other files inlined), so each sub-spec is one self-contained file.
    `spread`: operations spread evenly over the spec instead of the first ones (`spread_operations`)."""
    workdir.mkdir(parents=True, exist_ok=True)
    document = _bundled(spec)
    total = count_operations(document)
    if total == 0:
        raise ValueError(f"{spec}: no operations to cut a curve from")
    subjects: list[tuple[Path, Path]] = []
    for fraction in fractions:
        if not 0 < fraction <= 1:
            raise ValueError(f"fraction {fraction} is not in (0, 1]")
        keep = max(1, round(fraction * total))
        path = workdir / f"{spec.stem}-{keep}-operations.json"
        cut = spread_operations(document, keep) if spread else first_operations(document, keep)
        path.write_text(json.dumps(cut, ensure_ascii=False), "utf-8")
        subjects.append((path, workdir / f"run-{keep}"))
    return _measure_interleaved(subjects, runs)


def _measure_interleaved(subjects: Sequence[tuple[Path, Path]], runs: int) -> list[GenerationFigures]:
    """Each (spec, workdir): a warm-up run, then `runs` rounds of one run of every spec; the medians."""
    if runs < 1:
        raise ValueError(f"runs must be at least 1, not {runs}")
    operations = [count_operations(_bundled(spec)) for spec, _ in subjects]
    for spec, workdir in subjects:
        workdir.mkdir(parents=True, exist_ok=True)
        _run_once(spec, workdir)  # warm-up: bytecode written, files in the page cache
    timings: list[list[tuple[float, float]]] = [[] for _ in subjects]
    for _ in range(runs):
        for timing, (spec, workdir) in zip(timings, subjects, strict=True):
            timing.append(_run_once(spec, workdir))
    return [
        GenerationFigures(
            operations=count,
            seconds=statistics.median(seconds for seconds, _ in timing),
            peak_mib=statistics.median(peak for _, peak in timing),
            runs=runs,
        )
        for count, timing in zip(operations, timings, strict=True)
    ]


def linearity(points: Sequence[GenerationFigures]) -> float:
    """How the cost of one more operation changes with size: the slope (seconds per operation, least
    squares) through the larger half of the points, from the median size up, divided by the slope
    through the smaller half, up to the median size.

    ~1.0 = linear (the fixed start-up cost of the process cancels out); above 1 grows faster than
    linear (a quadratic cost over the curve's 1/8 … 1 fractions gives about 2.3), below 1 slower."""
    ordered = sorted(points, key=lambda point: point.operations)
    if len(ordered) < 3:
        raise ValueError("linearity needs at least three points")
    middle = len(ordered) // 2
    lower, upper = _slope(ordered[: middle + 1]), _slope(ordered[middle:])
    if lower <= 0:
        raise ValueError("the smaller sub-specs took no longer than the smallest: too noisy to tell")
    return upper / lower


def _slope(points: Sequence[GenerationFigures]) -> float:
    """Seconds per operation of the least-squares line through `points`."""
    mean_n = statistics.fmean(point.operations for point in points)
    mean_t = statistics.fmean(point.seconds for point in points)
    spread = sum((point.operations - mean_n) ** 2 for point in points)
    if spread == 0:
        raise ValueError("linearity needs different numbers of operations")
    return sum((point.operations - mean_n) * (point.seconds - mean_t) for point in points) / spread


# Operations ---------------------------------------------------------------------------------------------


def count_operations(document: Any) -> int:
    """Operations as the generator finds them: the methods it knows under each path item of `paths`."""
    return sum(len(_methods(item)) for item in _paths(document).values())


def first_operations(document: dict[str, Any], keep: int) -> dict[str, Any]:
    """`document` with only its first `keep` operations (paths in order, methods in the generator's
    order): each kept path item keeps its other members (shared parameters, servers...), path items
    left without an operation are dropped, everything outside `paths` is kept."""
    return _with_operations(document, set(range(keep)))


def spread_operations(document: dict[str, Any], keep: int) -> dict[str, Any]:
    """Like `first_operations`, but `keep` operations spread evenly over the spec (every n-th one), so
    that each sub-spec is a sample of the whole even when the spec's operations grow heavier along it."""
    total = count_operations(document)
    return _with_operations(document, {index * total // keep for index in range(min(keep, total))})


def _with_operations(document: dict[str, Any], kept: set[int]) -> dict[str, Any]:
    """`document` with only the operations whose index (in the generator's order) is in `kept`."""
    paths: dict[str, Any] = {}
    index = 0
    for path, item in _paths(document).items():
        methods = _methods(item)
        dropped = {method for offset, method in enumerate(methods) if index + offset not in kept}
        index += len(methods)
        if len(dropped) < len(methods):
            paths[path] = {key: value for key, value in item.items() if key not in dropped}
    return {**document, "paths": paths}


def _paths(document: Any) -> dict[str, Any]:
    paths = document.get("paths") if isinstance(document, dict) else None
    return paths if isinstance(paths, dict) else {}


def _methods(item: Any) -> list[str]:
    return [method for method in METHOD_ORDER if method in item] if isinstance(item, dict) else []


def _bundled(spec: Path) -> Any:
    document, name = load_source(str(spec))
    return bundle(document, name, Diagnostics())


# One run ------------------------------------------------------------------------------------------------


def output_dir(workdir: Path) -> Path:
    """Where the runs in `workdir` generate the package (the last run's output stays)."""
    return workdir / "out"


def _run_once(spec: Path, workdir: Path) -> tuple[float, float]:
    """(wall seconds, peak MiB) of one `openapi2mcp generate` child process."""
    out, log, peak = output_dir(workdir), workdir / "generate.log", workdir / "peak-kib"
    shutil.rmtree(out, ignore_errors=True)
    peak.unlink(missing_ok=True)
    command = [
        sys.executable,
        str(PEAK_CHILD),
        str(peak),
        "openapi2mcp.cli",
        "generate",
        str(spec),
        "--name",
        PACKAGE_NAME,
        "-o",
        str(out),
    ]
    with log.open("wb") as stderr:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, env=_child_env(workdir))
        status, ended = _wait(process)
    seconds = ended - started
    if status != 0:
        tail = log.read_text("utf-8", "replace").strip().splitlines()[-3:]
        raise GenerationFailed(f"openapi2mcp generate {spec} exited with {status}: {' | '.join(tail)}")
    return seconds, int(peak.read_text()) / _KIB_PER_MIB


def _wait(process: subprocess.Popen[bytes]) -> tuple[int, float]:
    """Reap the child in a thread (the moment it ends, unlike Popen.wait's polling); kill it past the
    timeout."""
    reaped: list[tuple[int, float]] = []

    def wait() -> None:
        _, status = os.waitpid(process.pid, 0)
        reaped.append((os.waitstatus_to_exitcode(status), time.perf_counter()))

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    waiter.join(TIMEOUT_SECONDS)
    if waiter.is_alive():
        process.kill()
        waiter.join(10.0)
        process.returncode = -9
        raise GenerationFailed(f"openapi2mcp generate took more than {TIMEOUT_SECONDS:.0f} s: killed")
    process.returncode = reaped[0][0]  # reaped here: Popen must not wait for it again
    return reaped[0]


def _child_env(workdir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(workdir.resolve() / "pycache")
    return env


# Command line -------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks.generation", description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--curve", action="store_true", help="also the curve at 1/8, 1/4, 1/2, 3/4, 1")
    parser.add_argument("--spread", action="store_true", help="curve: operations spread over the spec")
    args = parser.parse_args(argv)
    curve = ("spread" if args.spread else "first") if args.curve else None
    with tempfile.TemporaryDirectory(prefix="openapi2mcp-generation-") as workdir:
        for spec in args.specs:
            try:
                _print(spec, args.runs, curve, Path(workdir))
            except (GenerationFailed, ValueError, OSError) as error:
                print(f"{spec.name}: {error}", file=sys.stderr)
                return 2
    return 0


def _print(spec: Path, runs: int, curve: str | None, workdir: Path) -> None:
    """The figures of `spec`; with `curve` ("first" or "spread" operations), its curve too."""
    workdir = workdir / spec.stem
    figures = measure_generation(spec, runs, workdir / "whole")
    print(
        f"{spec.name}: {figures.operations:,} operations, {figures.seconds:.2f} s, "
        f"{figures.peak_mib:.0f} MiB (medians of {figures.runs})",
        flush=True,
    )
    if curve is not None:
        fractions = CURVE_FRACTIONS
        points = generation_curve(spec, fractions, runs, workdir / "curve", spread=curve == "spread")
        for point in points:
            print(f"  {point.operations:>6,} operations: {point.seconds:.2f} s, {point.peak_mib:.0f} MiB")
        print(f"  linearity {linearity(points):.2f} (1.0 = linear)", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
