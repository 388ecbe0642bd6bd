"""Search over the tools: BM25F over the index that generation ships (`search_index.json`).

One analyzer (search_text.py: split identifiers and words, drop stop words, Snowball-stem) serves
both sides: the generator loads this very file to build the index
(openapi2mcp/emit/search_index.py), the server uses it to read queries and to index the tools
hooks.py adds. The index holds, per term, each tool's field-weighted, length-normalised term
frequency (BM25F's pseudo-frequency), so a search only sums `idf * tf / (k1 + tf)` over the
postings of the query's terms and their synonyms, then weighs each tool by its path's depth (a
document prior: a shallower path is a likelier answer). Format: docs/search-index.md.
"""

from __future__ import annotations

import heapq
import json
import math
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from .search_text import action_terms, analyze, closed_class, expand

__all__ = [
    "FIELDS",
    "FORMAT_VERSION",
    "SearchIndex",
    "action_terms",
    "analyze",
    "build_index",
    "index_text",
]

FORMAT_VERSION = 2  # 1 had no path depths
# field -> (weight, length normalisation b); the order is the order of the stored average lengths
FIELDS: dict[str, tuple[float, float]] = {
    "name": (3.0, 0.5),  # tool name and operationId, identifier parts split
    "title": (3.0, 0.5),  # the summary (or the name humanised)
    "tags": (0.5, 0.3),  # tags and toolset
    "path": (1.5, 0.5),  # path segments, parameter names among them
    "verb": (1.0, 0.0),  # what the method does (get, list, create...), when the name does not say
    "params": (0.5, 0.5),  # argument names: path, query, header and body fields
    "description": (1.0, 0.75),
    "about": (0.3, 0.75),  # the description of the toolset's tag
    "schema": (0.3, 0.75),  # argument descriptions and enum values, nested ones too
    "output": (0.2, 0.75),  # the result's property names, nested ones too
}
K1 = 1.2
SCALE = 100  # stored frequencies are integers: round(tf * SCALE)
RERANK = 50  # the best matches are reranked by how much of their name the query says
NAME_BOOST = 1.0  # a name wholly in the query (or synonyms) scores this much more
_NAMED = 1e300  # the score of a tool named by the query in another case: above any match of words
# a tool's score is multiplied by depth ** -DEPTH_PRIOR, depth being its path's segment count (a
# document prior): of tools a query describes about equally, the top-level resource comes first
# (/accounts/{id}/members before /accounts/{id}/access/organizations/revoke_user for "give a colleague
# access to my account"). Chosen on three evaluation sets, kept by a rule fixed before a fourth ran
# (benchmarks/README.md).
DEPTH_PRIOR = 0.1


def fields_of_wire_tool(tool: Mapping[str, Any]) -> dict[str, str]:
    """The searchable text of a tool known only by its wire form (a hooks.py tool)."""
    annotations = tool.get("annotations") or {}
    title = tool.get("title") or annotations.get("title") or ""
    return {
        "name": str(tool["name"]),
        "title": str(title),
        "description": str(tool.get("description") or ""),
    }


def _analyzed(
    fields: Mapping[str, str | Sequence[str]], done: dict[str, list[str]] | None = None
) -> dict[str, list[str]]:
    """Each field's terms; a field may be one text or several (a schema's distinct descriptions);
    `done` keeps the terms of texts already analysed (the tools of an API share many)."""
    done = {} if done is None else done
    found = {}
    for field in FIELDS:
        value = fields.get(field, "")
        terms: list[str] = []
        for text in (value,) if isinstance(value, str) else value:
            if (known := done.get(text)) is None:
                known = done[text] = analyze(text)
            terms += known
        found[field] = terms
    return found


def _pseudo_frequencies(
    analyzed: Mapping[str, list[str]], averages: Mapping[str, float]
) -> dict[str, float]:
    """BM25F: each term's frequency per field, weighted and normalised by the field's length."""
    found: dict[str, float] = defaultdict(float)
    for field, (weight, b) in FIELDS.items():
        terms = analyzed[field]
        if not terms:
            continue
        norm = 1 - b + b * len(terms) / (averages.get(field) or 1.0)
        for term, count in Counter(terms).items():
            found[term] += weight * count / norm
    return found


Document = tuple[str, str, Mapping[str, str | Sequence[str]]]  # name, toolset, text(s) by field


def path_depth(path: str) -> int:
    """The segments of a path template, static and parameters (`/zones/{zone_id}/purge_cache`: 3),
    at least 1."""
    return max(1, sum(1 for segment in path.split("/") if segment))


def build_index(documents: Sequence[Document]) -> dict[str, Any]:
    """The index of the documents, as the JSON object `search_index.json` holds."""
    done: dict[str, list[str]] = {}
    analyzed = [_analyzed(fields, done) for *_, fields in documents]
    count = max(len(documents), 1)
    averages = {field: round(sum(len(a[field]) for a in analyzed) / count, 3) for field in FIELDS}
    postings: dict[str, list[int]] = defaultdict(
        list
    )  # each in tool order: the terms are sorted below
    for number, terms in enumerate(analyzed):
        for term, frequency in _pseudo_frequencies(terms, averages).items():
            postings[term].extend((number, max(1, round(frequency * SCALE))))
    return {
        "format": FORMAT_VERSION,
        "averageLengths": averages,
        "tools": [
            [name, toolset, path_depth(str(fields.get("path", "")))]
            for name, toolset, fields in documents
        ],
        "terms": dict(sorted(postings.items())),
    }


def index_text(index: Mapping[str, Any]) -> str:
    """`build_index`'s object as the file's text: compact, keys sorted, one term per line."""
    head = {key: value for key, value in index.items() if key != "terms"}
    opening = json.dumps(head, sort_keys=True, ensure_ascii=False, separators=(",", ":"))[:-1]
    terms = [
        f"{json.dumps(term, ensure_ascii=False)}:{json.dumps(postings, separators=(',', ':'))}"
        for term, postings in index["terms"].items()
    ]
    return "\n".join([f'{opening},"terms":{{', ",\n".join(terms), "}}"]) + "\n"


class _Tool(NamedTuple):
    name: str
    toolset: str | None  # None: a hooks.py tool
    # depth ** -DEPTH_PRIOR; a hooks.py tool, which has no path, counts as depth 1
    prior: float = 1.0


class SearchIndex:
    """The tools' index in memory: postings per term (tool number -> pseudo-frequency), the tools."""

    def __init__(self, tools: list[_Tool], postings: dict[str, dict[int, float]]) -> None:
        self._tools = tools
        self._postings = postings
        self._name_terms: dict[int, frozenset[str]] = {}  # filled as tools reach a first page
        self._by_name: dict[str, list[int]] | None = None  # casefolded name -> tools, on first use

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], extra_tools: Sequence[Mapping[str, Any]] = ()
    ) -> SearchIndex:
        """Read the shipped index; `extra_tools` are wire tool dicts (name, title?, description?,
        annotations?) of tools hooks.py adds at run time, indexed too. Raises OSError/ValueError when
        unreadable."""
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        if not isinstance(data, dict) or data.get("format") != FORMAT_VERSION:
            raise ValueError(f"{os.fspath(path)}: not a search index of format {FORMAT_VERSION}")
        try:
            tools = [
                _Tool(str(name), str(toolset), max(1, int(depth)) ** -DEPTH_PRIOR)
                for name, toolset, depth in data["tools"]
            ]
            postings: dict[str, dict[int, float]] = {
                term: dict(zip(flat[::2], (value / SCALE for value in flat[1::2]), strict=True))
                for term, flat in data["terms"].items()
            }
            averages = {str(field): float(value) for field, value in data["averageLengths"].items()}
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{os.fspath(path)}: malformed search index ({exc!r})") from None
        index = cls(tools, postings)
        index._add(extra_tools, averages)
        return index

    def _add(self, extra_tools: Iterable[Mapping[str, Any]], averages: Mapping[str, float]) -> None:
        known = {tool.name: number for number, tool in enumerate(self._tools)}
        for tool in extra_tools:
            name = str(tool["name"])
            if name in known:  # a hooks.py tool replacing a generated one: its own text wins
                number = known[name]
                for found in self._postings.values():
                    found.pop(number, None)
            else:
                number = known[name] = len(self._tools)
                self._tools.append(_Tool(name, None))
            for term, frequency in _pseudo_frequencies(
                _analyzed(fields_of_wire_tool(tool)), averages
            ).items():
                self._postings.setdefault(term, {})[number] = frequency

    def search(
        self,
        query: str,
        *,
        limit: int,
        names: Collection[str] | None = None,
        toolset: str | None = None,
    ) -> tuple[list[str], int]:
        """Best-first names of the tools matching `query`, only among `names` (None: all) and in
        `toolset` (None: any), at most `limit`; and the total number that matched. Deterministic
        order (ties by name). A query with no words to search by (empty, only stop words) lists
        every tool in scope in the API's order: how an agent browses a toolset."""
        offered = self._scope(names, toolset)
        terms = expand(query)
        typed = query.strip()
        named = self._named(typed)
        if not terms and not named:
            listed = [tool.name for tool in self._tools if offered(tool)]
            return listed[: max(limit, 0)], len(listed)
        scores = self._scores(terms)
        for number in named:  # an agent that knows the name gets that tool first
            # the name as typed before one that differs in case only (List_Rules, List_rules)
            scores[number] = math.inf if self._tools[number].name == typed else _NAMED
        matching = [
            (-score * tool.prior, tool.name, number)
            for number, score in scores.items()
            if offered(tool := self._tools[number])
        ]
        # only the best are ordered: a query matching 10,000 tools sorts 50 of them, not all
        wanted = heapq.nsmallest(max(RERANK, limit), matching)
        best = self._rerank(wanted[:RERANK], {term for variants in terms for term in variants})
        names_found = [name for _, name, _ in best + wanted[RERANK:]]
        return names_found[: max(limit, 0)], len(matching)

    @staticmethod
    def _scope(names: Collection[str] | None, toolset: str | None) -> Callable[[_Tool], bool]:
        """Whether a tool is among `names` (None: all) and in `toolset` (None: any)."""
        allowed = (
            names if names is None or isinstance(names, (set, frozenset, dict)) else set(names)
        )
        return lambda tool: (allowed is None or tool.name in allowed) and (
            toolset is None or tool.toolset == toolset
        )

    def _named(self, name: str) -> list[int]:
        """The tools named `name`, in any case (`getcustomers`: GetCustomers)."""
        if self._by_name is None:
            self._by_name = defaultdict(list)
            for number, tool in enumerate(self._tools):
                self._by_name[tool.name.casefold()].append(number)
        return self._by_name.get(name.casefold(), [])

    def _rerank(
        self, ranked: list[tuple[float, str, int]], query_terms: set[str]
    ) -> list[tuple[float, str, int]]:
        """The best matches boosted by the share of their name's words the query holds (or a synonym
        of): `deleteUser` before `deleteUserContactMethod` for "delete a user"."""
        boosted = []
        for negative, name, number in ranked:
            words = self._name_terms.get(number)
            if words is None:
                words = self._name_terms[number] = frozenset(analyze(name))
            share = len(words & query_terms) / len(words) if words else 0.0
            boosted.append((negative * (1 + NAME_BOOST * share), name, number))
        return sorted(boosted)

    def _scores(self, terms: Iterable[Mapping[str, float]]) -> dict[int, float]:
        """BM25F score of every tool matching a term. A word and its synonyms score as one term (as
        Lucene's SynonymQuery): the tools holding any of them give its idf, the best weighted
        frequency its tf; but a content word the query says itself keeps at least its own idf where a
        tool holds it (a rare word the agent typed is strong evidence, not diluted by its synonyms);
        action words and "who" (closed classes, whose literal choice says little) keep the group's.
        """
        scores: dict[int, float] = defaultdict(float)
        for variants in terms:
            frequencies: dict[int, float] = {}
            for term, weight in variants.items():
                for number, frequency in self._postings.get(term, {}).items():
                    if weight * frequency > frequencies.get(number, 0.0):
                        frequencies[number] = weight * frequency
            idf = self._idf(len(frequencies))
            best = {number: idf * tf / (K1 + tf) for number, tf in frequencies.items()}
            for term in (term for term, weight in variants.items() if weight == 1.0):
                if term in closed_class():
                    continue
                postings = self._postings.get(term, {})
                own = self._idf(len(postings))
                for number, tf in postings.items():
                    best[number] = max(best[number], own * tf / (K1 + tf))
            for number, score in best.items():
                scores[number] += score
        return scores

    def _idf(self, matching: int) -> float:
        return math.log(1 + (len(self._tools) - matching + 0.5) / (matching + 0.5))
