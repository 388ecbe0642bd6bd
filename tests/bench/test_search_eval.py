"""benchmarks/search_eval: the evaluation set is well formed (enough tasks and specs, a large spec
and one without summaries, every expected tool generated) and the ranking keeps its recall.

The floors are what the ranking reaches today less a task or two, so a change that loses recall
fails here; issue 15's targets (recall@5 >= 90 %, recall@1 >= 60 %) are higher, and not met (see
benchmarks/README.md)."""

from __future__ import annotations

import pytest
from corpus_specs import CORPUS_MISSING, CORPUS_SPECS

from benchmarks.search_eval import GeneratedSpec, evaluate, generate_all, load_task_files, median_search_ms

pytestmark = pytest.mark.skipif(not CORPUS_SPECS.is_dir(), reason=CORPUS_MISSING)

RECALL_AT_1_FLOOR = 0.56
RECALL_AT_5_FLOOR = 0.78
SEARCH_MS_CEILING = 5.0


@pytest.fixture(scope="module")
def specs() -> list[GeneratedSpec]:
    return generate_all(CORPUS_SPECS)


def test_the_set_has_100_tasks_over_5_specs_a_large_one_and_one_without_summaries(
    specs: list[GeneratedSpec],
) -> None:
    assert sum(len(spec.tasks.tasks) for spec in specs) >= 100
    assert len(specs) >= 5
    assert max(len(spec.names) for spec in specs) >= 1000
    assert any(spec.summaries == 0 for spec in specs)


def test_every_task_has_a_query_and_expects_only_generated_tools(specs: list[GeneratedSpec]) -> None:
    unknown = [
        (spec.tasks.name, task.query, name)
        for spec in specs
        for task in spec.tasks.tasks
        for name in task.expected
        if name not in spec.names
    ]
    assert unknown == []
    assert all(task.query.strip() and task.expected for spec in specs for task in spec.tasks.tasks)


def test_no_query_is_asked_twice_of_a_spec() -> None:
    for spec_tasks in load_task_files():
        queries = [task.query.lower() for task in spec_tasks.tasks]
        assert len(queries) == len(set(queries)), spec_tasks.name


def test_recall_stays_above_its_floors(specs: list[GeneratedSpec]) -> None:
    results = [evaluate(spec) for spec in specs]
    tasks = sum(result.tasks for result in results)
    assert sum(result.hits_at_1 for result in results) / tasks >= RECALL_AT_1_FLOOR
    assert sum(result.hits_at_5 for result in results) / tasks >= RECALL_AT_5_FLOOR


def test_a_search_on_the_largest_spec_takes_under_5_ms(specs: list[GeneratedSpec]) -> None:
    largest = max(specs, key=lambda spec: len(spec.names))
    queries = [task.query for task in largest.tasks.tasks]
    assert median_search_ms(largest.index, queries, repeats=3) < SEARCH_MS_CEILING
