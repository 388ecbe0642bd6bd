"""A progress line while `generate` works through a large spec: on a terminal only.

One transient `rich` line (spinner, stage, bar, operations mapped, time) on stderr, gone when the
stage list ends. Nothing at all (not even `rich`'s import) when stderr is not a terminal, when `CI`
is set or with `--quiet`: a log gets no cursor movements and no colours."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

from openapi2mcp.pipeline import UNOBSERVED, Stages

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

REFRESHES_PER_SECOND = 8  # the display's own thread redraws this often: little time taken from the work
_STEPS_PER_UPDATE = 32  # map operations: the count is handed to `rich` every so many


def on_terminal(stream: TextIO | None = None, quiet: bool = False) -> bool:
    """Whether to draw: `stream` (stderr) is a terminal, not in CI (`CI` set), not `--quiet`."""
    stream = sys.stderr if stream is None else stream
    return not quiet and not os.environ.get("CI") and stream.isatty()


@contextmanager
def progress(shown: bool) -> Iterator[Stages]:
    """A `Stages` that draws the progress line while the block runs, or one that does nothing."""
    if not shown:
        yield UNOBSERVED
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[count]}"),
        TimeElapsedColumn(),
    )
    console = Console(stderr=True)
    with Progress(
        *columns, console=console, transient=True, refresh_per_second=REFRESHES_PER_SECOND
    ) as display:
        yield _Drawn(display)


class _Drawn:
    """Stages shown on a `rich` progress line: one task per stage (its own spinner, bar and time)."""

    def __init__(self, display: Progress) -> None:
        self._display = display
        self._task: TaskID | None = None
        self._total: int | None = None
        self._done = 0

    def stage(self, name: str, total: int | None = None) -> None:
        if self._task is not None:
            self._display.remove_task(self._task)
        self._total, self._done = total or None, 0
        count = f"0/{total}" if total else ""
        self._task = self._display.add_task(name, total=self._total, count=count)

    def step(self) -> None:
        self._done += 1
        if self._task is not None and (self._done % _STEPS_PER_UPDATE == 0 or self._done == self._total):
            total = max(self._total or 0, self._done)
            self._display.update(self._task, completed=self._done, total=total, count=f"{self._done}/{total}")
