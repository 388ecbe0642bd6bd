"""The generator fuzzed: hypothesis-made OpenAPI documents and seeded mutations of the corpus's specs
never end in a traceback; the packages compile, import and list valid, unique tool names."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from corpus_specs import CORPUS_MISSING, CORPUS_SPECS, corpus_present
from fuzz_checks import check_generation, fuzz_settings, long_run, write_spec
from hypothesis import given
from hypothesis import strategies as st
from mutations import mutate
from openapi_strategies import documents

from openapi2mcp.load.source import LoadError, load_source, parse_text

pytestmark = pytest.mark.timeout(6 * 3600 if long_run() else 300)
SMALL_SPEC_BYTES = 400_000  # mutating larger specs takes longer than it finds more


@fuzz_settings()
@given(document=documents(), form=st.sampled_from(["json", "yaml"]))
def test_made_up_documents(document: dict[str, Any], form: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        check_generation(write_spec(Path(folder), document, form), Path(folder) / "out")


def small_corpus_files() -> list[Path]:
    if not corpus_present():
        return []
    files = [path for path in sorted(CORPUS_SPECS.iterdir()) if path.is_file()]
    return [path for path in files if path.stat().st_size < SMALL_SPEC_BYTES]


_LOADED: dict[Path, Any] = {}


def loaded(path: Path) -> Any:
    if path not in _LOADED:
        _LOADED[path] = load_source(str(path))[0]
    return _LOADED[path]


@pytest.mark.skipif(not corpus_present(), reason=CORPUS_MISSING)
@fuzz_settings()
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), count=st.integers(1, 6))
def test_mutated_corpus_specs(data: st.DataObject, seed: int, count: int) -> None:
    path = data.draw(st.sampled_from(small_corpus_files()), label="spec")
    document = mutate(loaded(path), seed, count)
    with tempfile.TemporaryDirectory() as folder:
        check_generation(write_spec(Path(folder), document, "json"), Path(folder) / "out")


YAML_PIECES = [*":-[]{},&*!<>|'\"#?%@` \n\t\\.0123456789abxe+~=_", "!!map ", "!!str ", "!!binary ", "!!set "]
YAML_PIECES += [
    "<<: ",
    "&a ",
    "*a",
    "---\n",
    "...\n",
    "\x00",
    "\x85",
    "\u2028",
    "\ufeff",
    "0b_",
    "0x",
    "2001-01-01",
]
YAML_PIECES += [
    ".inf",
    "!!python/object/apply:os.system ",
    "%YAML 1.2\n",
    "? ",
    "openapi: 3.0.3\n",
    "1" * 5000,
]


@fuzz_settings()
@given(
    text=st.lists(st.sampled_from(YAML_PIECES), max_size=40).map("".join),
    name=st.sampled_from(["a.yaml", "a.json"]),
)
def test_made_up_text_is_data_or_a_load_error(text: str, name: str) -> None:
    try:
        parse_text(text, name)
    except LoadError as error:
        assert str(error).startswith(name)
