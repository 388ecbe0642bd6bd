"""Prism for the end-to-end tests: `prism mock SPEC` (installed by `bash scripts/setup` into
.cache/npm) on a free loopback port, and the requests its log shows, with the validation rules
each one broke."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pytest
from e2e_support import (
    START_TIMEOUT,
    Background,
    NodeTools,
    PerSpec,
    free_port,
    minimal_env,
    read_text,
    tail,
    wait_until,
)

# A request's first log line, up to its info mark: Prism sometimes wraps it before "Request received".
_PRISM_REQUEST = re.compile(r"\[HTTP SERVER\] (\w+) (\S+) \u2139")


@dataclass(frozen=True)
class PrismRequest:
    """One request in Prism's log, with the log lines that belong to it."""

    method: str
    path: str
    lines: tuple[str, ...]

    @property
    def finished(self) -> bool:
        return any("Responding with" in line or "Request terminated" in line for line in self.lines)

    @property
    def violations(self) -> list[str]:
        text = self.lines
        if not any("Request did not pass the validation rules" in line for line in text):
            return []
        return [line.strip() for line in text if "error" in line] or ["(no details)"]

    def __str__(self) -> str:
        return "\n".join(self.lines)


@dataclass
class Prism:
    """`prism mock SPEC` on a free loopback port; its log lines tell what reached it."""

    tools: NodeTools
    spec: Path
    log: Path
    port: int = 0
    start_timeout: float = START_TIMEOUT  # (a spec of megabytes takes Prism longer)
    _process: Background | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Prism:
        for _attempt in range(3):
            self.port = free_port()
            self._process = Background(
                [
                    str(self.tools.node),
                    str(self.tools.prism),
                    "mock",
                    str(self.spec),
                    "-h",
                    "127.0.0.1",
                    "-p",
                    str(self.port),
                ],
                self.log,
            )
            start = len(read_text(self.log))
            self._process.start(minimal_env())
            listening = f"Prism is listening on http://127.0.0.1:{self.port}"
            wait_until(partial(self._started, listening, start), self.start_timeout)
            if listening in read_text(self.log)[start:]:
                return self
            self.stop()
            if "EADDRINUSE" not in read_text(self.log)[start:]:
                break
        pytest.fail(f"Prism did not start on {self.spec}:\n{tail(self.log)}", pytrace=False)

    def _alive(self) -> bool:
        return self._process is not None and self._process.alive()

    def _started(self, listening: str, start: int) -> bool:
        return listening in read_text(self.log)[start:] or not self._alive()

    def stop(self) -> None:
        if self._process is not None:
            self._process.stop()

    def mark(self) -> int:
        """A position in the log: requests after it are the ones a test caused."""
        return len(read_text(self.log))

    def requests_since(self, mark: int) -> list[PrismRequest]:
        groups: list[list[str]] = []
        for line in read_text(self.log)[mark:].splitlines():
            if _PRISM_REQUEST.search(line):
                groups.append([line])
            elif groups:
                groups[-1].append(line)
        requests = []
        for lines in groups:
            match = _PRISM_REQUEST.search(lines[0])
            assert match is not None
            requests.append(PrismRequest(match.group(1).upper(), match.group(2), tuple(lines)))
        return requests

    def wait_for_requests(self, mark: int, count: int, timeout: float = 10.0) -> list[PrismRequest]:
        """The requests since `mark` once `count` of them are finished (log lines come late)."""
        wait_until(lambda: sum(r.finished for r in self.requests_since(mark)) >= count, timeout)
        time.sleep(0.2)  # a violation line may follow the response line
        requests = self.requests_since(mark)
        finished = sum(r.finished for r in requests)
        assert finished >= count, (
            f"Prism logged {finished} finished requests, expected {count}:\n{tail(self.log)}"
        )
        return requests


class Prisms(PerSpec[Prism]):
    """One Prism mock per spec, started on first use, stopped at the end of the session."""

    def __init__(self, tools: NodeTools, factory: pytest.TempPathFactory) -> None:
        def start(path: Path) -> Prism:
            log = factory.mktemp(f"prism-{path.stem}") / "prism.log"
            return Prism(tools, path, log).start()  # (stops itself on failure)

        super().__init__(start)

    def stop_all(self) -> None:
        for prism in self.made.values():
            prism.stop()
