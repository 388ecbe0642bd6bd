"""The fuzzer's hypothesis profile `long` (`--hypothesis-profile long`, see the README's "Untrusted
specs"); without it the fuzz tests run a small bounded, derandomized number of examples (CI)."""

from __future__ import annotations

from fuzz_checks import COMMON_SETTINGS
from hypothesis import settings

settings.register_profile("long", max_examples=2_000, **COMMON_SETTINGS)
