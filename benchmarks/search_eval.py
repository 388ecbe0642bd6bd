"""Search evaluation (issue 15): recall@1, recall@5 and recall@10 (search_tools' default page) of the
generated servers' `search_tools` ranking on tasks phrased as an agent would phrase them, and the
median time of one search on the largest spec.

`benchmarks/search_eval/*.yaml` holds, per corpus spec, tasks and the tools that would be right (any
one of them counts as a hit; by name, or by route, `POST /designs`, for an operation whose name the
generator derives): the dev set, whose misses a ranking change may look at.
`benchmarks/search_eval/heldout/*.yaml` is the held-out set, same format, over other specs, written
before the ranking was improved: reported separately, never looked at to tune the ranking (one decision
has since been informed by it). `benchmarks/search_eval/heldout2/*.yaml` is held-out 2, same format, over
four more specs, written and committed before any search ran on them. `benchmarks/search_eval/heldout3/`
is held-out 3: GitHub's REST API, a spec outside the corpus (npm `@octokit/openapi`, which
`bash scripts/setup` installs into `.cache/npm`), written before any search ran on it to decide one
change (the path-depth prior) by a rule fixed beforehand. Each spec is generated in memory by the real
pipeline; its `search_index.json` is loaded by the generated package's own `search.py`
(`SearchIndex`), as the server does.

Known items: each tool of every set's specs searched for by its own name (as an agent that knows or
guesses an operationId) and by its title: how often it comes first, and within five.

`python -m benchmarks.search_eval [--corpus DIR] [--repeats N] [--misses]` prints a table per set,
then the known items' table.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from openapi2mcp.emit.search_index import SEARCH_INDEX_FILE
from openapi2mcp.model import METHOD_ORDER, GeneratorOptions
from openapi2mcp.pipeline import generate
from openapi2mcp_runtime.discovery import search

REPO = Path(__file__).resolve().parents[1]
TASKS_DIR = Path(__file__).with_name("search_eval")
HELDOUT_DIR = TASKS_DIR / "heldout"
HELDOUT2_DIR = TASKS_DIR / "heldout2"
HELDOUT3_DIR = TASKS_DIR / "heldout3"
SETS = {  # reported in this order
    "dev": TASKS_DIR,
    "held-out": HELDOUT_DIR,
    "held-out 2": HELDOUT2_DIR,
    "held-out 3": HELDOUT3_DIR,
}
CORPUS = REPO.parent / "shared" / "corpus" / "specs"
# GitHub's own description of its REST API, from the npm package tools/npm pins
GITHUB_SPECS = REPO / ".cache" / "npm" / "node_modules" / "@octokit" / "openapi" / "generated"
SPECS_OUTSIDE_CORPUS = {HELDOUT3_DIR: GITHUB_SPECS}  # a set's specs folder, when not the corpus
PACKAGE = "search_eval"
DEPTH = 5  # recall@5
PAGE = 10  # recall@10: what an agent sees with search_tools' default limit


@dataclass(frozen=True)
class Task:
    query: str
    expected: tuple[str, ...]  # tool names; a route (`POST /designs`) names the tool of that operation


@dataclass(frozen=True)
class SpecTasks:
    name: str  # the task file's stem
    spec: str  # the spec's file name in the corpus
    tasks: tuple[Task, ...]


@dataclass(frozen=True)
class SpecResult:
    name: str
    operations: int
    tasks: int
    hits_at_1: int
    hits_at_5: int
    hits_at_10: int
    index_bytes: int
    misses: tuple[tuple[str, tuple[str, ...]], ...]  # (query, top five) of the tasks missed at 5


def load_task_files(directory: Path = TASKS_DIR) -> list[SpecTasks]:
    found = []
    for path in sorted(directory.glob("*.yaml")):
        data: dict[str, Any] = yaml.safe_load(path.read_text("utf-8"))
        tasks = tuple(Task(str(t["query"]), tuple(str(n) for n in t["expected"])) for t in data["tasks"])
        found.append(SpecTasks(path.stem, str(data["spec"]), tasks))
    return found


@dataclass(frozen=True)
class GeneratedSpec:
    tasks: SpecTasks
    index: Any  # the package's search.SearchIndex, read from the generated file
    names: tuple[str, ...]  # every generated tool, in order
    index_bytes: int
    summaries: int  # operations of the spec that have a summary
    titles: tuple[str, ...]  # each tool's title, in the order of `names`


def generate_spec(spec_tasks: SpecTasks, corpus: Path, directory: Path) -> GeneratedSpec:
    """The spec generated in memory by the real pipeline; its index file loaded as the server does."""
    generation = generate(str(corpus / spec_tasks.spec), GeneratorOptions(dist_name=PACKAGE, env_prefix="E"))
    text = generation.files[f"{PACKAGE}/data/{SEARCH_INDEX_FILE}"]
    path = directory / f"{spec_tasks.name}.json"
    path.write_text(text, encoding="utf-8")
    index = search.SearchIndex.load(path)
    names = tuple(tool.name for tool in generation.model.tools)
    titles = tuple(tool.title for tool in generation.model.tools)
    routes = {f"{tool.method} {tool.path}": tool.name for tool in generation.model.tools}
    return GeneratedSpec(
        by_name(spec_tasks, routes), index, names, len(text.encode()), summaries(generation.document), titles
    )


def by_name(spec_tasks: SpecTasks, routes: dict[str, str]) -> SpecTasks:
    """The tasks with each expected route (`POST /designs`, for an operation without an operationId,
    whose tool name the generator derives) as its tool's name; an unknown route stays as written."""
    tasks = tuple(
        Task(task.query, tuple(routes.get(name, name) for name in task.expected)) for task in spec_tasks.tasks
    )
    return dataclasses.replace(spec_tasks, tasks=tasks)


def summaries(document: dict[str, Any]) -> int:
    return sum(
        1
        for item in document.get("paths", {}).values()
        for key, operation in item.items()
        if key in METHOD_ORDER and isinstance(operation, dict) and operation.get("summary")
    )


def generate_all(corpus: Path = CORPUS, tasks: Path = TASKS_DIR) -> list[GeneratedSpec]:
    """Every spec of the task files in `tasks` (the dev set by default, or a held-out set's folder)."""
    with tempfile.TemporaryDirectory() as work:
        return [generate_spec(spec_tasks, corpus, Path(work)) for spec_tasks in load_task_files(tasks)]


def evaluate(spec: GeneratedSpec) -> SpecResult:
    hits_1 = hits_5 = hits_10 = 0
    misses = []
    for task in spec.tasks.tasks:
        page, _ = spec.index.search(task.query, limit=PAGE)
        top = page[:DEPTH]
        hits_1 += bool(top[:1] and top[0] in task.expected)
        found = any(name in task.expected for name in top)
        hits_5 += found
        hits_10 += any(name in task.expected for name in page)
        if not found:
            misses.append((task.query, tuple(top)))
    return SpecResult(
        spec.tasks.name,
        len(spec.names),
        len(spec.tasks.tasks),
        hits_1,
        hits_5,
        hits_10,
        spec.index_bytes,
        tuple(misses),
    )


@dataclass(frozen=True)
class KnownItems:
    """Each tool searched for by its own name (as an agent that knows or guesses an operationId) and
    by its title when it has one of its own: how often the tool comes first, and within the first five."""

    name: str
    names: int
    by_name_at_1: int
    by_name_at_5: int
    titles: int
    by_title_at_1: int
    by_title_at_5: int


def known_items(spec: GeneratedSpec, every: int = 1) -> KnownItems:
    """`every`: only every n-th tool (in tool order) is searched for."""
    by_name, by_title = [0, 0], [0, 0]
    names = titles = 0
    for name, title in list(zip(spec.names, spec.titles, strict=True))[::every]:
        names += 1
        _tally(found_at(spec.index, name, name), by_name)
        if title and title != name:
            titles += 1
            _tally(found_at(spec.index, title, name), by_title)
    return KnownItems(spec.tasks.name, names, by_name[0], by_name[1], titles, by_title[0], by_title[1])


def found_at(index: Any, query: str, name: str) -> tuple[bool, bool]:
    """Whether the tool `name` comes first for `query`, and whether within five (tests/corpus_runner.py
    asks the same of any folder's specs)."""
    page, _ = index.search(query, limit=DEPTH)
    return page[:1] == [name], name in page


def _tally(found: tuple[bool, bool], hits: list[int]) -> None:
    hits[0] += found[0]
    hits[1] += found[1]


def known_items_table(rows: Sequence[KnownItems]) -> str:
    lines = [
        "| spec | tools | by name @1 | by name @5 | with a title | by title @1 | by title @5 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in [*rows, _total(rows)]:
        lines.append(
            f"| {r.name} | {r.names} | {_share(r.by_name_at_1, r.names)} | {_share(r.by_name_at_5, r.names)}"
            f" | {r.titles} | {_share(r.by_title_at_1, r.titles)} | {_share(r.by_title_at_5, r.titles)} |"
        )
    return "\n".join(lines)


def _total(rows: Sequence[KnownItems]) -> KnownItems:
    counts = [field.name for field in dataclasses.fields(KnownItems) if field.name != "name"]
    return KnownItems("**all**", **{count: sum(getattr(row, count) for row in rows) for count in counts})


def _share(count: int, of: int) -> str:
    return f"{count / of:.1%}" if of else "-"


def median_search_ms(index: Any, queries: Sequence[str], repeats: int) -> float:
    """Median wall time of one `search` call (limit 10), over every query `repeats` times."""
    times = []
    for _ in range(repeats):
        for query in queries:
            start = time.perf_counter()
            index.search(query, limit=10)
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


@dataclass(frozen=True)
class Run:
    by_set: dict[str, list[SpecResult]]  # by set (the keys of SETS)
    known: list[KnownItems]  # every spec of every set
    median_ms: float  # one search on the dev set's largest spec
    largest: str  # that spec's name


def specs_folder(tasks: Path, corpus: Path = CORPUS) -> Path:
    """Where the specs of the task files in `tasks` are: the corpus, or a folder of their own."""
    return SPECS_OUTSIDE_CORPUS.get(tasks, corpus)


def missing_sets(corpus: Path = CORPUS) -> list[str]:
    """The sets whose specs folder is not here (no corpus beside the repository, or no setup run)."""
    return [name for name, directory in SETS.items() if not specs_folder(directory, corpus).is_dir()]


def run(corpus: Path = CORPUS, repeats: int = 20) -> Run:
    """Every set whose specs are here (the dev set's must be)."""
    missing = missing_sets(corpus)
    generated = {
        name: generate_all(specs_folder(directory, corpus), directory)
        for name, directory in SETS.items()
        if name not in missing
    }
    largest = max(generated["dev"], key=lambda spec: len(spec.names))
    queries = [task.query for task in largest.tasks.tasks]
    return Run(
        {name: [evaluate(spec) for spec in specs] for name, specs in generated.items()},
        [known_items(spec) for specs in generated.values() for spec in specs],
        median_search_ms(largest.index, queries, repeats),
        largest.tasks.name,
    )


def table(results: Sequence[SpecResult]) -> str:
    lines = [
        "| spec | operations | tasks | recall@1 | recall@5 | recall@10 | index bytes |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.name} | {r.operations} | {r.tasks} | {r.hits_at_1 / r.tasks:.0%} | "
            f"{r.hits_at_5 / r.tasks:.0%} | {r.hits_at_10 / r.tasks:.0%} | {r.index_bytes:,} |"
        )
    tasks = sum(r.tasks for r in results)
    hits = [sum(r.hits_at_1 for r in results), sum(r.hits_at_5 for r in results)]
    hits.append(sum(r.hits_at_10 for r in results))
    shares = " | ".join(f"{count / tasks:.1%} ({count})" for count in hits)  # 89.8 %, not a rounded 90 %
    lines.append(f"| **all** | {sum(r.operations for r in results)} | {tasks} | {shares} | |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.search_eval", description=__doc__)
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus specs folder")
    parser.add_argument("--repeats", type=int, default=20, help="times each query is timed")
    parser.add_argument("--misses", action="store_true", help="also print the tasks missed at 5")
    args = parser.parse_args(argv)
    missing = missing_sets(args.corpus)
    if "dev" in missing:
        print(f"search_eval: no corpus at {args.corpus}", file=sys.stderr)
        return 2
    done = run(args.corpus, args.repeats)
    for name, results in done.by_set.items():
        print(f"{name}:\n{table(results)}\n")
    for name in missing:
        folder = specs_folder(SETS[name], args.corpus)
        print(f"{name}: not measured: {folder} is not here (bash scripts/setup installs it)\n")
    print(f"each tool searched for by its name and by its title:\n{known_items_table(done.known)}\n")
    print(f"search median on {done.largest}: {done.median_ms:.2f} ms")
    if args.misses:  # the dev set's only: the held-out sets' misses are not for tuning
        for result in done.by_set["dev"]:
            for query, top in result.misses:
                print(f"{result.name}: {query!r} -> {', '.join(top)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
