"""Running `openapi2mcp generate` on a hostile spec, as a user would, and what every case must hold."""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLI = Path(sys.executable).with_name("openapi2mcp")
SECRET = "SENTINEL-7f3a-outside-the-ref-root"  # the content of a file no reference may read


@dataclass(frozen=True)
class Outcome:
    returncode: int
    stdout: str
    stderr: str
    seconds: float  # wall time
    cpu_seconds: float  # the CLI process's user + system time: what a slow path costs, whatever the load
    out: Path

    def everything(self) -> str:
        """stdout, stderr and every file written, as one text (to look for what must not be there)."""
        written = [p.read_bytes().decode("utf-8", "replace") for p in self.out.rglob("*") if p.is_file()]
        return "\n".join([self.stdout, self.stderr, *written])


def generate(spec: Path, tmp: Path, *args: str, timeout: float = 30) -> Outcome:
    """`openapi2mcp generate SPEC` in a subprocess; a case ends with exit 0 (diagnostics) or 2, in
    time, without a traceback."""
    out = tmp / "out"
    started, used = time.perf_counter(), _children_cpu()
    done = subprocess.run(
        [str(CLI), "generate", str(spec), "-o", str(out), "--name", "hostile", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=tmp,
    )
    seconds, cpu_seconds = time.perf_counter() - started, _children_cpu() - used
    outcome = Outcome(done.returncode, done.stdout, done.stderr, seconds, cpu_seconds, out)
    assert done.returncode in (0, 2), (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-2000:]
    return outcome


def _children_cpu() -> float:
    """User + system seconds of this process's finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def refused(outcome: Outcome, *fragments: str) -> None:
    """Exit 2 with one `openapi2mcp: error:` line holding every fragment."""
    assert outcome.returncode == 2, outcome.stderr
    lines = outcome.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("openapi2mcp: error: "), outcome.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def written(outcome: Outcome) -> str:
    """`N tools written (M errors reported)` of a successful run."""
    found = re.search(r"\d+ tools written \(\d+ errors reported\)", outcome.stderr)
    assert found and outcome.returncode == 0, outcome.stderr
    return found.group()


def write_json(path: Path, document: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def spec(paths: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"openapi": "3.0.3", "info": {"title": "hostile", "version": "1"}, "paths": paths, **more}


def operation(operation_id: str = "op", **more: Any) -> dict[str, Any]:
    return {"operationId": operation_id, "responses": {"200": {"description": "ok"}}, **more}
