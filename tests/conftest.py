"""Shared pytest configuration: end-to-end tests (marked `e2e`) run after the fast unit tests."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Unit and golden tests first, so `-x` stops on a cheap failure before servers start."""
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)
