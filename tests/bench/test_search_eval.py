"""benchmarks/search_eval: the evaluation set is well formed (enough tasks and specs, a large spec
and one without summaries, every expected tool generated) and the ranking keeps its recall.

The floors are what the ranking reaches today less a task or two, on the dev set, on the held-out set
(`benchmarks/search_eval/heldout/`, other specs, never used to tune) and on held-out 2
(`benchmarks/search_eval/heldout2/`, four more specs, written before any search ran on them) and on
held-out 3 (`benchmarks/search_eval/heldout3/`, GitHub's REST API from the npm package that
`bash scripts/setup` installs, written before any search ran on it), so a change that loses recall
fails here. Issue 15's targets (recall@5 >= 90 %, recall@1 >= 60 %) are the dev set's floors: met;
the held-out sets are far below both (see benchmarks/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_specs import CORPUS_MISSING, CORPUS_SPECS

from benchmarks import search_eval
from benchmarks.search_eval import (
    GITHUB_SPECS,
    HELDOUT2_DIR,
    HELDOUT3_DIR,
    HELDOUT_DIR,
    TASKS_DIR,
    GeneratedSpec,
    evaluate,
    generate_all,
    known_items,
    known_items_table,
    load_task_files,
    main,
    median_search_ms,
    missing_sets,
)

pytestmark = pytest.mark.skipif(not CORPUS_SPECS.is_dir(), reason=CORPUS_MISSING)

RECALL_AT_1_FLOOR = 0.61  # reached: 62.5 % (80 of 128; 81 before issue 28's names); target: 60 %
RECALL_AT_5_FLOOR = 0.90  # issue 15's target; reached: 91.4 % (117 of 128)
HELDOUT_AT_1_FLOOR = 0.40  # reached: 43.0 % (34 of 79)
HELDOUT_AT_5_FLOOR = 0.67  # reached: 70.9 % (56 of 79)
HELDOUT2_AT_1_FLOOR = 0.21  # reached: 23.1 % (21 of 91); 22 % (20) when first measured
HELDOUT2_AT_5_FLOOR = 0.50  # reached: 52.7 % (48 of 91)
HELDOUT3_AT_1_FLOOR = 0.28  # reached: 30.8 % (24 of 78), as when first measured
HELDOUT3_AT_5_FLOOR = 0.51  # reached: 53.8 % (42 of 78), as when first measured
GITHUB_MISSING = f"GitHub's spec is not here ({GITHUB_SPECS.name}: run bash scripts/setup)"
SEARCH_MS_CEILING = 5.0
BY_TITLE_AT_5_FLOOR = 0.97  # reached: 98.7 % of every 5th tool of the dev set's specs


@pytest.fixture(scope="module")
def specs() -> list[GeneratedSpec]:
    return generate_all(CORPUS_SPECS)


@pytest.fixture(scope="module")
def heldout() -> list[GeneratedSpec]:
    return generate_all(CORPUS_SPECS, HELDOUT_DIR)


@pytest.fixture(scope="module")
def heldout2() -> list[GeneratedSpec]:
    return generate_all(CORPUS_SPECS, HELDOUT2_DIR)


@pytest.fixture(scope="module")
def heldout3() -> list[GeneratedSpec]:
    if not GITHUB_SPECS.is_dir():
        pytest.skip(GITHUB_MISSING)
    return generate_all(GITHUB_SPECS, HELDOUT3_DIR)


def test_the_held_out_set_has_60_tasks_over_3_other_specs_one_without_summaries(
    specs: list[GeneratedSpec], heldout: list[GeneratedSpec]
) -> None:
    assert sum(len(spec.tasks.tasks) for spec in heldout) >= 60
    assert len(heldout) >= 3
    assert not {spec.tasks.spec for spec in heldout} & {spec.tasks.spec for spec in specs}
    assert any(spec.summaries == 0 for spec in heldout)


def test_the_set_has_100_tasks_over_5_specs_a_large_one_and_one_without_summaries(
    specs: list[GeneratedSpec],
) -> None:
    assert sum(len(spec.tasks.tasks) for spec in specs) >= 100
    assert len(specs) >= 5
    assert max(len(spec.names) for spec in specs) >= 1000
    assert any(spec.summaries == 0 for spec in specs)


def test_held_out_2_has_75_tasks_over_4_specs_no_other_set_uses_one_without_summaries(
    specs: list[GeneratedSpec], heldout: list[GeneratedSpec], heldout2: list[GeneratedSpec]
) -> None:
    assert sum(len(spec.tasks.tasks) for spec in heldout2) >= 75
    assert len(heldout2) >= 4
    assert all(len(spec.names) >= 100 for spec in heldout2)
    assert not {spec.tasks.spec for spec in heldout2} & {spec.tasks.spec for spec in specs + heldout}
    assert any(spec.summaries == 0 for spec in heldout2)


def test_held_out_3_has_75_tasks_over_a_large_spec_outside_the_corpus(
    specs: list[GeneratedSpec],
    heldout: list[GeneratedSpec],
    heldout2: list[GeneratedSpec],
    heldout3: list[GeneratedSpec],
) -> None:
    assert sum(len(spec.tasks.tasks) for spec in heldout3) >= 75
    assert all(len(spec.names) >= 1000 for spec in heldout3)
    others = {spec.tasks.spec for spec in specs + heldout + heldout2}
    assert not {spec.tasks.spec for spec in heldout3} & others
    assert not any((CORPUS_SPECS / spec.tasks.spec).exists() for spec in heldout3)


def test_every_task_has_a_query_and_expects_only_generated_tools(
    specs: list[GeneratedSpec],
    heldout: list[GeneratedSpec],
    heldout2: list[GeneratedSpec],
    heldout3: list[GeneratedSpec],
) -> None:
    every = specs + heldout + heldout2 + heldout3
    unknown = [
        (spec.tasks.name, task.query, name)
        for spec in every
        for task in spec.tasks.tasks
        for name in task.expected
        if name not in spec.names
    ]
    assert unknown == []
    assert all(task.query.strip() and task.expected for spec in every for task in spec.tasks.tasks)


@pytest.mark.parametrize(
    "directory",
    [TASKS_DIR, HELDOUT_DIR, HELDOUT2_DIR, HELDOUT3_DIR],
    ids=["dev", "held-out", "held-out 2", "held-out 3"],
)
def test_no_query_is_asked_twice_of_a_spec(directory: Path) -> None:
    for spec_tasks in load_task_files(directory):
        queries = [task.query.lower() for task in spec_tasks.tasks]
        assert len(queries) == len(set(queries)), spec_tasks.name


def recall(specs: list[GeneratedSpec]) -> tuple[float, float]:
    results = [evaluate(spec) for spec in specs]
    tasks = sum(result.tasks for result in results)
    return (
        sum(result.hits_at_1 for result in results) / tasks,
        sum(result.hits_at_5 for result in results) / tasks,
    )


@pytest.mark.parametrize(
    ("evaluation_set", "at_1_floor", "at_5_floor"),
    [
        ("specs", RECALL_AT_1_FLOOR, RECALL_AT_5_FLOOR),
        ("heldout", HELDOUT_AT_1_FLOOR, HELDOUT_AT_5_FLOOR),
        ("heldout2", HELDOUT2_AT_1_FLOOR, HELDOUT2_AT_5_FLOOR),
        ("heldout3", HELDOUT3_AT_1_FLOOR, HELDOUT3_AT_5_FLOOR),
    ],
    ids=["dev", "held-out", "held-out 2", "held-out 3"],
)
def test_recall_stays_above_its_floors(
    request: pytest.FixtureRequest, evaluation_set: str, at_1_floor: float, at_5_floor: float
) -> None:
    """Recall@1 and recall@5 of each evaluation set (the fixture of that name) over its floors."""
    at_1, at_5 = recall(request.getfixturevalue(evaluation_set))
    assert at_1 >= at_1_floor
    assert at_5 >= at_5_floor


def test_a_hit_at_1_is_a_hit_at_5_and_at_10(specs: list[GeneratedSpec]) -> None:
    results = [evaluate(spec) for spec in specs]
    assert all(r.hits_at_1 <= r.hits_at_5 <= r.hits_at_10 <= r.tasks for r in results)
    assert sum(r.hits_at_10 for r in results) > sum(r.hits_at_5 for r in results)  # the page sees more
    assert all(len(top) == 5 for r in results for _, top in r.misses)  # misses show the first five


def test_a_search_on_the_largest_spec_takes_under_5_ms(specs: list[GeneratedSpec]) -> None:
    largest = max(specs, key=lambda spec: len(spec.names))
    queries = [task.query for task in largest.tasks.tasks]
    assert median_search_ms(largest.index, queries, repeats=3) < SEARCH_MS_CEILING


def test_a_tool_searched_for_by_its_name_comes_first_and_by_its_title_within_five(
    specs: list[GeneratedSpec],
) -> None:
    rows = [known_items(spec, every=5) for spec in specs]
    names, titles = sum(row.names for row in rows), sum(row.titles for row in rows)
    assert names >= 3830 // 5 and titles >= 3830 // 5  # every spec's tools have titles here
    assert sum(row.by_name_at_1 for row in rows) == names, known_items_table(rows)
    assert sum(row.by_title_at_5 for row in rows) >= BY_TITLE_AT_5_FLOOR * titles, known_items_table(rows)


def test_a_set_without_its_specs_is_not_measured_and_without_the_dev_set_nothing_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    nowhere = tmp_path / "none"
    monkeypatch.setitem(search_eval.SPECS_OUTSIDE_CORPUS, HELDOUT3_DIR, nowhere)
    assert missing_sets(CORPUS_SPECS) == ["held-out 3"]
    assert missing_sets(nowhere) == ["dev", "held-out", "held-out 2", "held-out 3"]
    assert main(["--corpus", str(nowhere)]) == 2
    assert capsys.readouterr().err == f"search_eval: no corpus at {nowhere}\n"
