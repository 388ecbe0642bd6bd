"""How the config file's errors name what is wrong: `ConfigError`, keys as TOML writes them, values
shown short, and a "did you mean" for an unknown key (config.py, config_overrides.py)."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


class ConfigError(Exception):
    """An option (flag or config key) or config file that cannot be used; the message names it."""


def toml_key(key: str) -> str:
    """A key as TOML writes it in a dotted path: bare, or quoted."""
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def suggestion(key: str, known: Iterable[str]) -> str:
    names = list(known)
    close = difflib.get_close_matches(key, names, n=1)
    return f" (did you mean {close[0]}?)" if close else f" (known: {', '.join(names)})"
