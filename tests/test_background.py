"""background.py: text made by a forked child, or by the parent when there is none or it fails."""

from __future__ import annotations

import io
import multiprocessing
import os
import sys
import time
from pathlib import Path

import pytest

from openapi2mcp import background
from openapi2mcp.background import Pending, can_fork

PARENT = os.getpid()
needs_fork = pytest.mark.skipif(not can_fork(), reason="no fork or one core: the parent does the work")


def where() -> str:
    return "parent" if os.getpid() == PARENT else "child"


def fails_in_the_child() -> str:
    if os.getpid() != PARENT:
        raise RuntimeError("child")
    return "made by the parent"


def fails_everywhere() -> str:
    raise ValueError(f"bad spec ({where()})")


@needs_fork
def test_the_text_is_made_in_a_child_and_the_child_is_gone_once_it_is_taken() -> None:
    pending = Pending(lambda: where() + " é" * 100_000)  # over a pipe's buffer, not ASCII
    child = pending._child
    assert child is not None
    assert pending.result() == "child" + " é" * 100_000
    assert child.exitcode == 0


@needs_fork
def test_a_child_that_fails_leaves_the_work_to_the_parent(capfd: pytest.CaptureFixture[str]) -> None:
    assert Pending(fails_in_the_child).result() == "made by the parent"
    assert capfd.readouterr().err == ""  # the child's failure is not printed


def test_an_error_of_the_work_surfaces_in_the_parent() -> None:
    with pytest.raises(ValueError, match=r"bad spec \(parent\)"):
        Pending(fails_everywhere).result()


@needs_fork
def test_done_says_whether_the_child_has_sent_the_text() -> None:
    reading, writing = os.pipe()  # the child's work waits for a byte from the test
    try:
        pending = Pending(lambda: os.read(reading, 1).decode() + where())
        assert not pending.done()
        os.write(writing, b">")
        deadline = time.monotonic() + 30
        while not pending.done() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pending.done() and pending.result() == ">child"
    finally:
        os.close(reading)
        os.close(writing)


def test_the_text_is_made_once_however_often_it_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background, "_START_METHOD", "no-such-method")
    made: list[str] = []
    pending = Pending(lambda: made.append("text") or "text")
    assert not pending.done()
    assert [pending.result(), pending.result()] == ["text", "text"]
    assert made == ["text"] and pending.done()


def test_without_fork_the_parent_does_the_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background, "_START_METHOD", "no-such-method")
    assert not can_fork()
    pending = Pending(where)
    assert pending._child is None
    assert pending.result() == "parent"


def made_in_a_pool_worker() -> tuple[bool, bool, str]:
    """In a `multiprocessing.Pool` worker (a daemonic process, which may not have children)."""
    pending = Pending(lambda: f"made in {os.getpid()}")
    return can_fork(), pending._child is None, pending.result()


def test_a_pool_worker_does_the_work_itself() -> None:
    with multiprocessing.get_context("spawn").Pool(1) as pool:  # spawn: the same on every platform
        forks, no_child, text = pool.apply(made_in_a_pool_worker)
    assert (forks, no_child) == (False, True)
    assert text.startswith("made in ") and text != f"made in {PARENT}"  # by the worker, no error


def test_a_child_that_cannot_start_leaves_the_work_to_the_parent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background, "can_fork", lambda: True)

    def no_process(self: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")  # fork's EAGAIN: a limit on processes

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", no_process)
    pending = Pending(where)
    assert pending._child is None and pending._reader is None
    assert pending.result() == "parent"


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_a_process_held_to_one_core_does_the_work_itself() -> None:
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(before)})  # as a container given one CPU of a larger host
        assert not can_fork()
        assert Pending(where)._child is None
    finally:
        os.sched_setaffinity(0, before)


@needs_fork
def test_leaving_without_taking_the_text_stops_the_child() -> None:
    with Pending(lambda: time.sleep(30) or "late") as pending:
        child = pending._child
        assert child is not None and child.is_alive()
    assert not child.is_alive()
    assert child.exitcode is not None and child.exitcode < 0  # terminated, not finished


class FlushRecorder(io.StringIO):
    """A standard stream that notes which process flushes it."""

    def __init__(self, record: Path) -> None:
        super().__init__()
        self.record = record

    def flush(self) -> None:
        with self.record.open("a") as file:
            file.write(f"{os.getpid()}\n")


@needs_fork
def test_the_child_flushes_nothing_of_the_parents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "flushes"
    monkeypatch.setattr(sys, "stdout", FlushRecorder(record))
    monkeypatch.setattr(sys, "stderr", FlushRecorder(record))
    assert Pending(lambda: where()).result() == "child"
    flushed_by = set(record.read_text().split()) if record.exists() else set()
    assert flushed_by <= {str(PARENT)}  # multiprocessing flushes in the parent before it forks
