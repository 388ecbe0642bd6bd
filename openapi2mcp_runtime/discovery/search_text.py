"""The search's analyzer: text to terms, the same on both sides (the generator indexing the tools,
the server reading a query). Words and identifier parts (camelCase, snake_case, kebab-case, path
segments; CJK text as character pairs), stop words dropped, Snowball-stemmed; a query's phrases
read as the words they mean and each term widened by its synonyms. The vocabulary is
search_words.py's; search.py ranks with what this gives. Format and steps: docs/search-index.md.
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import cache, lru_cache
from typing import Any

from .search_words import ACTIONS, PHRASES, STOP_WORDS, SYNONYMS

__all__ = [
    "SYNONYM_WEIGHT",
    "action_terms",
    "analyze",
    "closed_class",
    "expand",
    "rephrase",
    "words",
]

SYNONYM_WEIGHT = 0.6  # a synonym's match counts this much of the query word's own
_WORDS_CACHED = 1 << 16  # words (and identifier runs) kept analysed: a corpus spec has < 20,000
_WORD = re.compile(r"[^\W_]+")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")
# Han (with its extension A and compatibility ideographs), hiragana, katakana (with the prolonged
# sound mark), Hangul syllables
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK = re.compile(f"[{_CJK_CHARS}]")
_CJK_OR_NOT = re.compile(f"[{_CJK_CHARS}]+|[^{_CJK_CHARS}]+")


@cache
def _stemmer() -> Any:
    """Snowball's English stemmer through snowballstemmer's public `stemmer()`: PyStemmer's C one when
    it is installed (the generator has it: 1 µs a word instead of 25), else the pure-Python one; the
    same stems either way (tests/emit/test_search_index.py compares them). Imported on first use:
    importing snowballstemmer loads every language's (about 15 ms)."""
    import snowballstemmer  # type: ignore[import-untyped,unused-ignore]

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=_WORDS_CACHED)
def _stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


def words(text: str) -> list[str]:
    """Lower-case words of `text`, identifiers split: `listCoreV1Pod`, `dns_records`, `dns-records`,
    `/zones/{zone_id}` give their parts (camelCase is split in ASCII words only). Chinese, Japanese
    and Korean, written without spaces, give their overlapping character pairs (Lucene's CJK
    bigrams): `スクリプトタグの削除` and `スクリプトタグを削除` share all pairs but two."""
    return [part for run in _WORD.findall(text) for part in _parts(run)]


@lru_cache(maxsize=_WORDS_CACHED)
def _parts(run: str) -> tuple[str, ...]:
    if run.isascii():
        return tuple(part.lower() for part in _PART.findall(run))
    if not _CJK.search(run):
        return (run.lower(),)
    return tuple(
        part
        for piece in _CJK_OR_NOT.findall(run)
        for part in (_cjk_pairs(piece) if _CJK.match(piece) else _parts(piece))
    )


def _cjk_pairs(piece: str) -> tuple[str, ...]:
    """A run of CJK characters as its overlapping pairs (a single character stays whole)."""
    return tuple(piece[start : start + 2] for start in range(max(len(piece) - 1, 1)))


def analyze(text: str) -> list[str]:
    """The terms of `text`: its words less stop words and one-letter words (a CJK character is a
    word), stemmed."""
    return [term for run in _WORD.findall(text) for term in _run_terms(run)]


@lru_cache(maxsize=_WORDS_CACHED)
def _run_terms(run: str) -> tuple[str, ...]:
    return tuple(
        _stem(word)
        for word in _parts(run)
        if (len(word) > 1 or _CJK.match(word)) and word not in STOP_WORDS
    )


@cache
def _synonyms() -> dict[str, tuple[str, ...]]:
    """Stemmed word -> the stems of its groups' other words."""
    found: dict[str, set[str]] = defaultdict(set)
    for group in SYNONYMS:
        stems = {_stem(word) for word in group}
        for stem in stems:
            found[stem] |= stems - {stem}
    return {stem: tuple(sorted(others)) for stem, others in found.items()}


@cache
def closed_class() -> frozenset[str]:
    """Query words whose group's idf stands for them: actions, and "who"."""
    return action_terms() | {_stem(word) for word in ("who", "whose")}


@cache
def action_terms() -> frozenset[str]:
    """The stems of every word of ACTIONS."""
    return frozenset(_stem(word) for group in ACTIONS for word in group)


@cache
def _phrases() -> re.Pattern[str]:
    longest_first = sorted(PHRASES, key=len, reverse=True)
    spaced = (r"\s+".join(map(re.escape, phrase.split())) for phrase in longest_first)
    return re.compile(r"\b(?:" + "|".join(spaced) + r")\b", re.IGNORECASE)


def rephrase(query: str) -> str:
    """The query with its phrases (PHRASES: "how many", "Turn  off", "sign up"...) read as the words
    they mean; the rest as typed: its case splits identifiers (`confirmCarbonOffset`)."""
    return _phrases().sub(lambda match: PHRASES[" ".join(match.group().lower().split())], query)


def expand(query: str) -> list[dict[str, float]]:
    """Each distinct query term (phrases read first) with its synonyms: term -> weight (the term's own
    1.0)."""
    table = _synonyms()
    expanded = []
    for term in dict.fromkeys(analyze(rephrase(query))):
        variants = {other: SYNONYM_WEIGHT for other in table.get(term, ())}
        expanded.append(variants | {term: 1.0})
    return expanded
