"""Generate each corpus spec in-process (`openapi2mcp.pipeline.generate`) and measure it: one
`SpecResult` per spec. Shared by `tests/corpus_report.py` and `tests/test_corpus.py`.

Every spec runs in a worker process (`run_corpus`), so that one spec's exception, crash or hang is
that spec's failure (with its traceback) and never the whole run's:

- an exception is caught in the worker and returned as text;
- a hang gets `SpecTimeout` raised after `timeout` seconds (SIGALRM), with the traceback of where it
  was; if the worker is stuck in C code and cannot raise, faulthandler dumps its stack to the spec's
  crash file and ends the process `HARD_GRACE` seconds later;
- a worker that dies (that hard limit, a segfault, the OOM killer) breaks the pool: the spec whose crash file
  has content is failed with it, every unfinished spec is run again in a new pool.
"""

from __future__ import annotations

import contextlib
import faulthandler
import json
import multiprocessing
import re
import signal
import statistics
import tempfile
import threading
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import mcp_types
import pydantic_core
from corpus_specs import CorpusSpec

from benchmarks.search_eval import found_at
from openapi2mcp import pipeline
from openapi2mcp.ci.changelog import compare
from openapi2mcp.ci.diff import parse_tool_data
from openapi2mcp.diagnostics import SpecError, pointer_join
from openapi2mcp.emit.render import tool_data_path
from openapi2mcp.emit.search_index import SEARCH_INDEX_FILE
from openapi2mcp.load.bundle import RefOptions
from openapi2mcp.load.refs import Resolver
from openapi2mcp.model import METHOD_ORDER, GeneratorOptions, Tool
from openapi2mcp.tools.naming import argument_name, env_token
from openapi2mcp_runtime.discovery import meta_tools, search, views

PORTABLE = re.compile(r"[A-Za-z0-9_-]{1,64}")  # the OpenAI API's rule for tool names
SNAKE_WORDS = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")  # `list_kernels`, `get_build_by_project_name`
SEARCHED = 200  # tools searched for by title and by name, at most, per spec (`search`)
DEFAULT_TIMEOUT = 180.0  # seconds for one spec (times --repeat); the largest takes ~8 s on 2 busy cores
HARD_GRACE = 30.0  # seconds after the timeout before a worker stuck in C code is ended

# A short, stable kind for each diagnostic message, first match wins; see the generator's messages.
KINDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("ignored header", r"^header parameter .* is ignored"),
        ("path key", r"^path key "),
        ("x-mcp", r"x-mcp"),
        ("external ref", r"another document|not followed|remote ref"),
        ("dangling ref", r"dangling reference|points at nothing"),
        ("circular ref", r"loops back"),
        ("invalid operation", r"^invalid operation:"),
        ("duplicate name", r"^tool name .* is shared by"),
        ("security", r"security|mutualtls|apikey|oauth2|credential"),
        ("server", r"\bservers?\b|base url"),
        ("swagger 2.0", r"path items added|also in `paths`|collectionFormat"),
        ("no paths", r"no `paths`"),
        ("size", r"inputSchemas (compacted|are over)|^tools/list is"),
        ("request body", r"request body|media type|body parameter|formData"),
        ("parameter", r"parameter"),
        ("invalid schema", r"items|allOf|anyOf|oneOf|enum|type|pattern|schema|it is dropped"),
    )
)


def kind_of(message: str) -> str:
    return next((kind for kind, pattern in KINDS if pattern.search(message)), "other")


@dataclass(frozen=True)
class Operation:
    """One method of one path item of the loaded document (after bundling and Swagger conversion)."""

    method: str
    path: str
    pointer: str  # #/paths/<path>/<method>

    @property
    def path_pointer(self) -> str:
        return self.pointer.rsplit("/", 1)[0]

    def explained_by(self, level: str, pointer: str, message: str) -> bool:
        """Does this diagnostic say why the operation has no tool? (see mapper.py: an error at or
        under the operation, or naming `METHOD path`; a path item that was skipped; `x-mcp: false`)."""
        if level == "error":
            if pointer == self.pointer or pointer.startswith(self.pointer + "/"):
                return True
            named = re.escape(f"{self.method.upper()} {self.path}") + r"(?=[\s;:,)]|$)"
            if re.search(named, message):
                return True
            under_path = pointer == self.path_pointer or pointer.startswith(self.path_pointer + "/")
            return under_path and message.endswith("path skipped")
        return "x-mcp: false" in message and pointer in (self.pointer, self.path_pointer, "#")


@dataclass
class SpecResult:
    """What generating one spec gave; `failure` is the traceback when it did not finish."""

    name: str
    version: str
    manifest_operations: int
    operations: int = 0
    tools: int = 0
    skipped: list[str] = field(default_factory=list)  # `METHOD path` of operations without a tool
    unexplained: list[str] = field(default_factory=list)  # ... that no diagnostic explains
    diagnostics: list[dict[str, str]] = field(default_factory=list)  # level, kind, pointer, message
    seconds: float = 0.0  # median generation time
    list_bytes: int = 0  # the tools/list result as the server sends it
    dynamic_bytes: int = 0  # ... in dynamic mode (search_tools, describe_tools, call_tool)
    searched: int = 0  # tools searched for by their title (`search`: up to SEARCHED, evenly spread)
    found_by_title: int = 0  # ... and found within the first five
    found_by_name: int = 0  # ... searched for by their name instead, and found first
    bad_names: list[str] = field(default_factory=list)  # tool names not portable, or not unique
    unwritten_names: list[str] = field(default_factory=list)  # derived names not snake-case words
    split_parameters: list[str] = field(default_factory=list)  # parameters with a needless or a second name
    self_diff: str = ""  # `openapi2mcp diff` of the tool data with itself: its summary when not empty
    failure: str | None = None

    def count(self, key: str, value: str) -> int:
        return sum(1 for item in self.diagnostics if item[key] == value)

    def kinds(self) -> dict[str, int]:
        counted: dict[str, int] = {}
        for item in self.diagnostics:
            counted[item["kind"]] = counted.get(item["kind"], 0) + 1
        return dict(sorted(counted.items(), key=lambda pair: (-pair[1], pair[0])))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SpecResult:
        return cls(**data)


def list_operations(document: Any) -> list[Operation]:
    """Every method of every path item, `x-mcp: false` ones included (path items are dereferenced
    as the mapper does; one that cannot be has no operations here)."""
    paths = document.get("paths") if isinstance(document, dict) else None
    if not isinstance(paths, dict):
        return []
    resolver = Resolver(document)
    found = []
    for path, raw_item in paths.items():
        path_pointer = pointer_join("#/paths", path)
        try:
            item, _ = resolver.deref(raw_item, path_pointer)
        except SpecError:
            continue
        if isinstance(item, dict):
            found += [Operation(m, path, pointer_join(path_pointer, m)) for m in METHOD_ORDER if m in item]
    return found


def tools_list_bytes(tool_data_json: str) -> int:
    """Bytes of `{"tools": [...]}` as the generated server sends it: runtime.py validates the tools
    into `ListToolsResult` and the SDK dumps that (by_alias, exclude_none) into compact UTF-8 JSON.
    (The result's other members, `ttlMs` and the like, depend on the protocol version: left out.)"""
    result = mcp_types.ListToolsResult.model_validate({"tools": json.loads(tool_data_json)["tools"]})
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return len(pydantic_core.to_json({"tools": dumped["tools"]}))


class SpecTimeout(Exception):
    """A spec took longer than its time limit."""


@contextlib.contextmanager
def deadline(seconds: float, crash_file: Path | None) -> Iterator[None]:
    """Raise SpecTimeout after `seconds`; if that cannot happen (stuck in C code), dump the stack
    into `crash_file` and end the process HARD_GRACE seconds later. An unused crash file is removed."""

    def expire(signum: int, frame: Any) -> None:
        raise SpecTimeout(f"still running after {seconds:g} s")

    alarm = threading.current_thread() is threading.main_thread()  # (signals need the main thread)
    if alarm:
        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    with contextlib.ExitStack() as stack:
        if crash_file is not None:
            handle = stack.enter_context(crash_file.open("w"))
            faulthandler.enable(handle)
            faulthandler.dump_traceback_later(seconds + HARD_GRACE, exit=True, file=handle)
        try:
            yield
        finally:
            if alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
            if crash_file is not None:
                faulthandler.cancel_dump_traceback_later()
                faulthandler.disable()
    if crash_file is not None:
        crash_file.unlink(missing_ok=True)


def analyse(
    spec: CorpusSpec,
    repeat: int = 1,
    timeout: float = DEFAULT_TIMEOUT,
    crash_file: Path | None = None,
    search: bool = False,
) -> SpecResult:
    """Generate one spec `repeat` times (in this process) and measure the result (with `search`,
    also search its tools by title and by name); never raises."""
    result = SpecResult(spec.name, spec.oas_version, spec.operations)
    try:
        with deadline(timeout * repeat, crash_file):
            generation = _measure(spec, repeat, result)
            if search:
                _search_known_items(generation, result)
    except Exception:  # the spec's failure, reported with its traceback
        result.failure = traceback.format_exc()
    return result


def _measure(spec: CorpusSpec, repeat: int, result: SpecResult) -> pipeline.Generation:
    options = GeneratorOptions(dist_name=spec.name, env_prefix=env_token(spec.name))
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        generation = pipeline.generate(str(spec.root), options, RefOptions(ref_root=spec.ref_root))
        times.append(time.perf_counter() - start)
    operations = list_operations(generation.document)
    diagnostics = [(item.level.value, item.pointer, item.message) for item in generation.diagnostics]
    with_tools = {tool.pointer for tool in generation.model.tools}
    skipped = [op for op in operations if op.pointer not in with_tools]
    result.operations, result.tools = len(operations), len(generation.model.tools)
    result.skipped = [f"{op.method.upper()} {op.path}" for op in skipped]
    result.unexplained = [
        f"{op.method.upper()} {op.path}"
        for op in skipped
        if not any(op.explained_by(*diagnostic) for diagnostic in diagnostics)
    ]
    result.diagnostics = [
        {"level": level, "kind": kind_of(message), "pointer": pointer, "message": message}
        for level, pointer, message in diagnostics
    ]
    result.seconds = statistics.median(times)
    _check_names(generation.model.tools, result)
    tool_data = generation.files[tool_data_path(options.package_name)]
    result.list_bytes = tools_list_bytes(tool_data)
    tool_set = parse_tool_data(tool_data, Path(tool_data_path(options.package_name)))
    self_diff = compare(tool_set, tool_set)
    result.self_diff = self_diff.summary() if self_diff.tools else ""
    result.dynamic_bytes = tools_list_bytes(json.dumps({"tools": dynamic_tools(json.loads(tool_data))}))
    return generation


def _check_names(tools: Sequence[Tool], result: SpecResult) -> None:
    """Tool names: portable (`^[A-Za-z0-9_-]{1,64}$`) and unique; those made for operations without
    an operationId snake-case words (`list_kernels`); a parameter has one argument in every tool, its
    own (sanitized) name unless another parameter of the tool has it too or, in some tool, a
    parameter of an earlier location (path, query, header, cookie) has it; never because a body
    property has it."""
    counts = Counter(tool.name for tool in tools)
    result.bad_names = [
        tool.name for tool in tools if counts[tool.name] > 1 or not PORTABLE.fullmatch(tool.name)
    ]
    result.unwritten_names = [
        tool.name for tool in tools if tool.operation_id is None and not SNAKE_WORDS.fullmatch(tool.name)
    ]
    order = ("path", "query", "header", "cookie")
    first: dict[str, int] = {}  # argument name -> the earliest location a parameter of that name is in
    arguments: dict[tuple[str, str], set[str]] = defaultdict(set)
    for tool in tools:
        for parameter in tool.parameters:
            own = argument_name(parameter.name)
            first[own] = min(first.get(own, 4), order.index(parameter.location))
            arguments[(parameter.location, parameter.name)].add(parameter.argument)
    for tool in tools:
        own = Counter(argument_name(parameter.name) for parameter in tool.parameters)
        result.split_parameters += [
            f"{tool.name}: {parameter.location} {parameter.name!r} is {parameter.argument!r}"
            for parameter in tool.parameters
            if parameter.argument != argument_name(parameter.name)
            and own[argument_name(parameter.name)] == 1
            and first[argument_name(parameter.name)] == order.index(parameter.location)
        ]
    result.split_parameters += [
        f"{location} {name!r} is {' or '.join(sorted(names))} in different tools"
        for (location, name), names in arguments.items()
        if len(names) > 1
    ]


def dynamic_tools(tool_data: dict[str, Any]) -> list[dict[str, Any]]:
    """The dynamic mode's tools/list (every tool offered), as the package's own meta_tools.py makes it."""
    tools = {tool["name"]: tool for tool in tool_data["tools"]}
    toolset_of = {name: route.get("toolset") for name, route in tool_data["routes"].items()}
    catalog = meta_tools.Catalog(tools, toolset_of, tool_data.get("toolsets") or {}, folder=".")
    listed: list[dict[str, Any]] = catalog.dynamic_tools(views.View(frozenset(tools), False, True))
    return listed


def _search_known_items(generation: pipeline.Generation, result: SpecResult) -> None:
    """Search up to SEARCHED tools, evenly spread, by their title (found: within the first five) and
    by their name (found: first), in the generated search index, as the server reads it."""
    text = next(text for path, text in generation.files.items() if path.endswith(f"/{SEARCH_INDEX_FILE}"))
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / SEARCH_INDEX_FILE).write_text(text, "utf-8")
        index = search.SearchIndex.load(Path(folder) / SEARCH_INDEX_FILE)
    tools = generation.model.tools
    for tool in tools[:: max(1, -(-len(tools) // SEARCHED))]:
        result.searched += 1
        result.found_by_title += found_at(index, tool.title, tool.name)[1]
        result.found_by_name += found_at(index, tool.name, tool.name)[0]


def run_corpus(
    specs: list[CorpusSpec],
    jobs: int = 2,
    repeat: int = 1,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Any = None,
    search: bool = False,
) -> list[SpecResult]:
    """`analyse` every spec in `jobs` worker processes; results in the order of `specs`.
    `progress(result)`, when given, is called as each spec finishes."""
    results: dict[str, SpecResult] = {}
    pending = list(specs)
    with tempfile.TemporaryDirectory(prefix="corpus-crash-") as crash_dir:
        for round_jobs in [jobs] + [1] * len(specs):  # after a lost worker, one spec at a time
            if not pending:
                break
            pending = _run_round(
                pending, round_jobs, repeat, timeout, search, Path(crash_dir), results, progress
            )
    return [results[spec.name] for spec in specs]


def _run_round(
    specs: list[CorpusSpec],
    jobs: int,
    repeat: int,
    timeout: float,
    search: bool,
    crash_dir: Path,
    results: dict[str, SpecResult],
    progress: Any,
) -> list[CorpusSpec]:
    """Run `specs`; return the ones a dead worker left unfinished (the one it was running, known
    by its crash file or, with one job, by the order, is failed)."""
    context = multiprocessing.get_context("spawn")  # never fork a threaded process (pytest-xdist)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures: dict[Future[SpecResult], CorpusSpec] = {
            pool.submit(analyse, spec, repeat, timeout, _crash_file(crash_dir, spec), search): spec
            for spec in specs
        }
        for future, spec in futures.items():
            with contextlib.suppress(BrokenProcessPool):
                results[spec.name] = future.result()
                if progress is not None:
                    progress(results[spec.name])
    unfinished = [spec for spec in specs if spec.name not in results]
    for index, spec in enumerate(unfinished):
        crash = _crash_file(crash_dir, spec)
        text = crash.read_text(errors="replace") if crash.is_file() else ""
        if text or (jobs == 1 and index == 0):
            results[spec.name] = SpecResult(
                spec.name,
                spec.oas_version,
                spec.operations,
                failure=f"the worker process died while generating it:\n{text or '(no stack dump)'}",
            )
            if progress is not None:
                progress(results[spec.name])
    return [spec for spec in unfinished if spec.name not in results]


def _crash_file(crash_dir: Path, spec: CorpusSpec) -> Path:
    """Where a worker dumps its stack for `spec` (a folder's spec is named by its path: flattened)."""
    return crash_dir / f"{spec.name.replace('/', '%')}.crash"
