"""A helper module of another test folder, imported from its file: tests/ is on sys.path (its
conftest.py is there), the folders below it are not, unless pytest collected a test from them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent


def import_file(name: str, path: str) -> ModuleType:
    """The file at `path` (relative to tests/) as the top-level module `name`, imported once per
    process."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, TESTS / path)
        assert spec is not None and spec.loader is not None
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]
