"""Jupyter Server, the real service of the code-mode benchmark (benchmarks/code_mode.py): installed by
`scripts/setup` in .cache/services/jupyter, started on 127.0.0.1 with a token and a root folder of
its own, its spec the wheel's `jupyter_server/services/api/api.yaml`. The tasks' folders are written
on disk (files and notebooks made up here, the same each time), put back before each run, and read
back from disk to compare what the two ways of a task left."""

from __future__ import annotations

import hashlib
import json
import os
import random
import secrets
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
INSTALLED = REPO / ".cache" / "services" / "jupyter"
START_TIMEOUT = 60.0  # seconds for the service to answer


class ServiceFailed(RuntimeError):
    """Jupyter Server did not start."""


def spec() -> Path | None:
    """The service's own spec, from its installed wheel (None when it is not installed)."""
    found = sorted(INSTALLED.glob("lib/python*/site-packages/jupyter_server/services/api/api.yaml"))
    return found[0] if len(found) == 1 and (INSTALLED.parent / "jupyter.installed").is_file() else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Jupyter:
    """The service on 127.0.0.1, its root folder `workdir/root`; a context manager."""

    def __init__(self, workdir: Path) -> None:
        self.workdir, self.root = workdir, workdir / "root"
        self.token = secrets.token_hex(16)
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"}

    def __enter__(self) -> Jupyter:
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        argv = [
            str(INSTALLED / "bin" / "jupyter-server"),
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            "--ServerApp.open_browser=False",
            "--ServerApp.allow_root=True",
            "--FileContentsManager.delete_to_trash=False",
        ]
        env = {
            f"JUPYTER_{kind}_DIR": str(self.workdir / kind.lower()) for kind in ("CONFIG", "DATA", "RUNTIME")
        }
        env |= {"HOME": str(self.workdir), "PATH": os.environ.get("PATH", "")}
        with open(self.workdir / "jupyter.log", "ab") as log:
            self.process = subprocess.Popen(argv, env=env, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                logged = (self.workdir / "jupyter.log").read_text("utf-8", "replace")[-2000:]
                raise ServiceFailed(f"Jupyter Server did not start:\n{logged}")
            time.sleep(0.2)
        return self

    def _answers(self) -> bool:
        request = urllib.request.Request(self.origin + "/api/", headers=self.headers)
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return int(response.status) == 200
        except (urllib.error.URLError, OSError):
            return False

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def reset(self, folder: str) -> None:
        """Write `folder` (a key of FOLDERS) as it was made, whatever a run did to it."""
        target = self.root / folder
        shutil.rmtree(target, ignore_errors=True)
        for path, text in FOLDERS[folder]().items():
            file = target / path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text, "utf-8")

    def snapshot(self, folder: str) -> dict[str, str]:
        """Every file under `folder`: its path and a hash of its bytes."""
        base = self.root / folder
        return {
            str(file.relative_to(base)): hashlib.sha256(file.read_bytes()).hexdigest()[:16]
            for file in sorted(base.rglob("*"))
            if file.is_file() and ".ipynb_checkpoints" not in file.parts
        }


# ---- the tasks' folders --------------------------------------------------------------------------

LOG_LINES = ("INFO job started", "INFO read 1,204 rows", "WARN retrying upload", "INFO job finished")


def _text(rng: random.Random, lines: int) -> str:
    words = ("sales", "region", "forecast", "cohort", "revenue", "churn", "pipeline", "report", "q3", "model")
    return (
        "\n".join(" ".join(rng.choice(words) for _ in range(rng.randint(6, 14))) for _ in range(lines)) + "\n"
    )


def scratch() -> dict[str, str]:
    """36 files, 12 of them `.tmp`."""
    rng = random.Random(11)
    files = {}
    for number in range(36):
        kind = ("tmp", "csv", "log")[number % 3] if number % 3 == 0 else ("csv", "log", "txt")[number % 3]
        name = f"run-{number:02d}.{kind}"
        files[name] = _text(rng, rng.randint(3, 30)) if kind != "log" else "\n".join(LOG_LINES) + "\n"
    return files


def notes() -> dict[str, str]:
    """24 notes, 10 of them `.txt` (the rest Markdown already)."""
    rng = random.Random(12)
    topics = ("standup", "retro", "planning", "design", "incident", "interview", "onboarding", "budget")
    return {
        f"{topics[number % len(topics)]}-{number:02d}.{'txt' if number % 12 < 5 else 'md'}": _text(rng, 12)
        for number in range(24)
    }


HEAD = "<thead><tr><th></th><th>revenue</th><th>share</th></tr></thead>"


def _cell(rng: random.Random, number: int, imports: str) -> dict[str, Any]:
    source = (
        [imports, "\n"]
        if number == 0
        else [f"df_{number} = df.groupby('region').agg('sum')\n", "df_{number}.head()"]
    )
    rows = "".join(
        f"<tr><th>{region}</th><td>{rng.randint(1000, 99999)}</td><td>{rng.random():.4f}</td></tr>"
        for region in ("north", "south", "east", "west", "central")
    )
    return {
        "cell_type": "code",
        "execution_count": number + 1,
        "id": f"c{number:03d}",
        "metadata": {},
        "source": source,
        "outputs": [
            {
                "output_type": "execute_result",
                "execution_count": number + 1,
                "metadata": {},
                "data": {
                    "text/plain": [f"        revenue   share\nregion\n{rows[:200]}"],
                    "text/html": [f"<table class='dataframe'>{HEAD}<tbody>{rows}</tbody></table>"],
                },
            }
        ],
    }


def notebook(rng: random.Random, imports: str, cells: int) -> str:
    body = [_cell(rng, number, imports) for number in range(cells)]
    body.insert(1, {"cell_type": "markdown", "id": "m000", "metadata": {}, "source": ["# Quarterly figures"]})
    meta = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    return json.dumps({"cells": body, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def analysis() -> dict[str, str]:
    """8 notebooks (about 10-20 KB each: cells with tables as output), 3 of them import pandas."""
    rng = random.Random(13)
    libraries = ("import pandas as pd", "import polars as pl", "import numpy as np", "import pandas")
    files = {"README.md": "# Analysis\n\nOne notebook a question.\n", "data.csv": _text(rng, 40)}
    for number in range(8):
        imports = libraries[number % 3] if number != 5 else libraries[3]
        files[f"q{number + 1}-{('sales', 'churn', 'cohorts', 'pricing')[number % 4]}.ipynb"] = notebook(
            rng, imports, rng.randint(8, 16)
        )
    return files


def projects() -> dict[str, str]:
    """Four project folders of notebooks and data files."""
    rng = random.Random(14)
    files = {}
    for project in ("alpha", "beta", "gamma", "delta"):
        for number in range(rng.randint(3, 6)):
            files[f"{project}/nb-{number}.ipynb"] = notebook(rng, "import numpy as np", rng.randint(2, 6))
        for number in range(rng.randint(2, 5)):
            files[f"{project}/data-{number}.csv"] = _text(rng, rng.randint(5, 60))
    return files


FOLDERS = {"scratch": scratch, "notes": notes, "analysis": analysis, "projects": projects}
