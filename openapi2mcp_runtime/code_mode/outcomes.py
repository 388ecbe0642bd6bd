"""How a program's run ends when it does not end with a value (sandbox.py, inner_calls.py)."""

from __future__ import annotations


class Refused(Exception):
    """The program was refused before it ran (its syntax, its types): nothing was sent."""


class Mistyped(Refused):
    """The type checker refused the program's types (its syntax is fine)."""


class Failed(Exception):
    """The program raised an exception it did not catch (the message: its traceback)."""


class Stopped(Exception):
    """A limit ended the program (the message names it)."""
