"""Diagnostics: problems found in a spec, collected as values and printed at the end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum


class Level(StrEnum):
    """How bad a diagnostic is: errors skip an operation, warnings lose a detail."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem, located by a JSON pointer into the spec (`#/paths/~1pets/get`)."""

    pointer: str
    level: Level
    message: str

    def render(self) -> str:
        """One line: control characters and line separators of the spec shown escaped (`\\x1b`)."""
        return visible(f"{self.level.value}: {self.pointer}: {self.message}")


def visible(text: str) -> str:
    """Control characters and line separators of a spec's text shown escaped (`\\x1b`)."""
    return text.translate(_VISIBLE)


# C0 and C1 controls, DEL, U+2028 and U+2029: a spec's text must not move a terminal's cursor or
# start a new line in a diagnostic
_VISIBLE = {
    code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    for code in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)
}


class SpecError(Exception):
    """A problem that makes the current operation unusable; becomes an error diagnostic."""

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(f"{pointer}: {message}")
        self.pointer = pointer
        self.message = message


@dataclass
class Diagnostics:
    """A collector that the pipeline stages append to."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(self, level: Level, pointer: str, message: str) -> None:
        self.items.append(Diagnostic(pointer, level, message))

    def error(self, pointer: str, message: str) -> None:
        self.add(Level.ERROR, pointer, message)

    def warning(self, pointer: str, message: str) -> None:
        self.add(Level.WARNING, pointer, message)

    def info(self, pointer: str, message: str) -> None:
        self.add(Level.INFO, pointer, message)

    def extend(self, other: Diagnostics) -> None:
        """Append `other`'s diagnostics, in their order."""
        self.items.extend(other.items)

    def relocate(self, start: int, original: Callable[[str], str]) -> None:
        """Point the diagnostics from index `start` on at `original(pointer)` (a converted spec's
        nodes back in the user's file)."""
        for index in range(start, len(self.items)):
            item = self.items[index]
            self.items[index] = Diagnostic(original(item.pointer), item.level, item.message)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def count(self, level: Level) -> int:
        return sum(1 for item in self.items if item.level is level)


def pointer_join(base: str, *parts: str | int) -> str:
    """Append escaped reference tokens to a JSON pointer (`#/paths` + `/pets` → `#/paths/~1pets`)."""
    tokens = [str(part).replace("~", "~0").replace("/", "~1") for part in parts]
    return "/".join([base, *tokens])
