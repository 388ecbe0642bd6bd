"""Text the pipeline needs later, computed meanwhile by a forked child on another core.

Generation is one thread of pure Python, and machines have two cores or more: a stage's output that
depends only on data already at hand (the search index: the mapped model) is made by a child forked
from the generator, which inherits that data without copying or pickling it, and sends the text back
through a pipe while the parent fits sizes, renders and formats. Where fork is unavailable (Windows)
or unsafe (macOS, where CPython no longer forks by default), with one core, in a daemonic process (a
`multiprocessing.Pool` worker may not have children), or when the child cannot start or fails, the
parent computes the text itself: the same function on the same data, so the same bytes.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Final, NoReturn

_START_METHOD: Final = "fork"  # the only method that shares the parent's data instead of pickling it


def can_fork() -> bool:
    """Whether work can go to a forked child on another core."""
    forks = _START_METHOD in multiprocessing.get_all_start_methods() and sys.platform != "darwin"
    return forks and _cores() > 1 and not multiprocessing.current_process().daemon


def _cores() -> int:
    """The cores this process may run on (a container's CPU set, not the host's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class Pending:
    """The text of `work()`, being computed in a forked child (or, failing that, by `result`); as a
    context manager, the child is stopped on leaving if its text was not taken."""

    def __init__(self, work: Callable[[], str]) -> None:
        self._work = work
        self._text: str | None = None
        self._reader: Connection | None = None
        self._child: multiprocessing.process.BaseProcess | None = None
        if can_fork():
            self._start(work)

    def _start(self, work: Callable[[], str]) -> None:
        context = multiprocessing.get_context(_START_METHOD)
        reader, writer = context.Pipe(duplex=False)
        child = context.Process(target=_send, args=(work, reader, writer), daemon=True)
        try:
            child.start()
        except OSError:  # no process to be had (a limit on processes, memory): the parent works
            reader.close()
            return
        finally:
            writer.close()
        self._reader, self._child = reader, child

    def done(self) -> bool:
        """Whether `result` can answer without waiting for the child (or for the work, without one)."""
        if self._text is not None:
            return True
        return self._reader is not None and self._reader.poll()

    def result(self) -> str:
        """The text: the child's, or computed here when there is no child or it sent none."""
        if self._text is None:
            self._text = self._take()
        return self._text

    def _take(self) -> str:
        if self._reader is None or self._child is None:
            return self._work()
        try:
            data = self._reader.recv_bytes()
        except EOFError:  # the child ended without sending: the work raises here too, or succeeds
            data = None
        finally:
            self._reader.close()
            self._child.join()
            self._reader = self._child = None
        return self._work() if data is None else data.decode("utf-8")

    def __enter__(self) -> Pending:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Stop a child whose text was not taken (the generation failed before it needed it)."""
        if self._reader is not None and self._child is not None:
            self._child.terminate()
            self._child.join()
            self._reader.close()
            self._reader = self._child = None


def _send(work: Callable[[], str], reader: Connection, writer: Connection) -> NoReturn:
    """In the child: send the text and exit 0, or exit 1 quietly (the parent then does the work and
    reports). The child's copy of the reading end is closed first, so a send to a parent that died
    fails. It ends by `os._exit`: nothing of the parent's is flushed or run at exit here (a stream
    whose lock a thread of the parent held at the fork, a progress line, would hang the child)."""
    reader.close()
    try:
        text = work()
    except BaseException:  # the parent runs the same work, and its error surfaces there
        os._exit(1)
    writer.send_bytes(text.encode("utf-8"))
    writer.close()
    os._exit(0)
