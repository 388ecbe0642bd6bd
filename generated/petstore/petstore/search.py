"""TEMPORARY stub of the search helper's module (replaced at merge)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any


class SearchIndex:
    def __init__(self, docs: dict[str, tuple[str | None, set[str]]]) -> None:
        self.docs = docs

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], extra_tools: Sequence[Mapping[str, Any]] = ()
    ) -> SearchIndex:
        with open(os.path.join(os.path.dirname(path), "tool_data.json"), "rb") as file:
            data = json.load(file)
        docs = {}
        for tool in [*data["tools"], *extra_tools]:
            route = data["routes"].get(tool["name"], {})
            text = f"{tool['name']} {tool.get('description') or ''} {route.get('path', '')}"
            docs[tool["name"]] = (route.get("toolset"), set(re.findall(r"[a-z0-9]+", text.lower())))
        return cls(docs)

    def search(
        self,
        query: str,
        *,
        limit: int,
        names: Collection[str] | None = None,
        toolset: str | None = None,
    ) -> tuple[list[str], int]:
        words = set(re.findall(r"[a-z0-9]+", query.lower()))
        scored = [
            (-len(words & tokens), name)
            for name, (own, tokens) in self.docs.items()
            if (names is None or name in names)
            and (toolset is None or own == toolset)
            and words & tokens
        ]
        scored.sort()
        return [name for _, name in scored[:limit]], len(scored)
