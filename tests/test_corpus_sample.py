"""`--corpus-every N` (CI's pass at the newest end of the pins): the corpus tests on every N-th corpus
spec by name, the other tests untouched; `--clients-every M`: the client libraries' tests on every
M-th of those."""

from __future__ import annotations

import subprocess
import sys

import pytest
from corpus_specs import CORPUS_MISSING, PAGED_SPECS, REPO, corpus_specs, sampled


def test_every_nth_name_in_sorted_order_from_the_first() -> None:
    names = ["delta", "alpha", "echo", "charlie", "bravo"]
    assert sampled(names, 2) == {"alpha", "charlie", "echo"}
    assert sampled(names, 1) == set(names) == sampled(names, 0)
    assert sampled(names, 9) == {"alpha"}


@pytest.mark.skipif(not corpus_specs(), reason=CORPUS_MISSING)
def test_only_the_sampled_specs_corpus_tests_are_collected() -> None:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
        "--corpus-every",
        "3",
        "--clients-every",
        "3",
    ]
    files = [f"tests/e2e/test_e2e_{name}.py" for name in ("corpus", "clients", "conformance")]
    done = subprocess.run([*command, *files], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    corpus = {line.rpartition("[")[2].rstrip("]") for line in ids if "test_e2e_corpus.py" in line}
    assert corpus == sampled([spec.name for spec in corpus_specs()], 3)
    paged = len(corpus & set(PAGED_SPECS))  # test_pages_hold_every_tool_exactly_once
    assert sum("test_e2e_corpus.py" in line for line in ids) == 5 * len(corpus) + paged  # 5 tests a spec
    assert sum("test_e2e_conformance.py" in line for line in ids) == 22  # not a corpus test: all kept
    # --clients-every 3: the client libraries' tests (ids SPEC-LIBRARY) on every third of those specs
    clients = [line.rpartition("[")[2].rstrip("]") for line in ids if "test_e2e_clients.py" in line]
    libraries = ("google-genai", "openai-agents", "langchain-mcp-adapters", "pydantic-ai")
    converted = {test.removesuffix(f"-{lib}") for test in clients for lib in libraries if test.endswith(lib)}
    assert converted == sampled(sorted(corpus), 3)
    assert len(clients) == len(libraries) * len(converted)
