"""Issue 31's benchmark: code mode next to dynamic mode.

- Context bytes: 24 multi-step tasks (listing, filtering, joining two endpoints, acting on each match)
  over four corpus specs, each served by an in-memory fake on 127.0.0.1 (train-travel-v31.yaml:
  code_fake_train.py; swagger-petstore3.yaml: code_fake_petstore.py; and two vendor APIs whose
  records are the spec's own response examples: pagerduty.json, code_fake_pagerduty.py;
  digitalocean/, code_fake_digitalocean.py), and over Jupyter Server (a real service, installed by
  scripts/setup). Each task is scripted both ways with the same API calls (code_tasks*.py): dynamic,
  search_tools → describe_tools → call_tool, N times; code, search_tools → describe_tools →
  run_code. What enters the agent's context is counted (code_agent.py): the tools/list answer once
  per task, then each tools/call's arguments (JSON) and its result's text content, in UTF-8 bytes
  and in tokens (o200k_base).
  The service is put back before each run, and both runs must give the same answer and leave the
  same state.
- Speed: a one-call program against the direct tool call (code_speed.py), medians, same run.

`python -m benchmarks.code_mode [--calls N] [--pause MS] [--markdown FILE] [--only SUBJECT,...]` prints
one table a figure and exits 1 if a target of issue 31 is missed, 2 if it cannot run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openapi2mcp.model import GeneratorOptions
from openapi2mcp.pipeline import generate

from . import code_jupyter, code_speed, report
from .code_agent import TOKENIZER, Agent, Ledger, TaskFailed, server_env, session
from .code_fake_digitalocean import DigitalOcean
from .code_fake_http import FakeService
from .code_fake_pagerduty import PagerDuty
from .code_fake_petstore import Petstore
from .code_fake_train import TrainTravel
from .code_tasks import PETSTORE_TASKS, TRAIN_TASKS, Task
from .code_tasks_digitalocean import DIGITALOCEAN_TASKS
from .code_tasks_jupyter import JUPYTER_TASKS
from .code_tasks_pagerduty import PAGERDUTY_TASKS

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "specs"
SPECS = {
    "train": CORPUS / "train-travel-v31.yaml",
    "petstore": CORPUS / "swagger-petstore3.yaml",
    "pagerduty": CORPUS / "pagerduty.json",
    "digitalocean": CORPUS / "digitalocean" / "DigitalOcean-public.v2.yaml",
}
FAKES: dict[str, Callable[[], FakeService]] = {
    "train": TrainTravel,
    "petstore": Petstore,
    "pagerduty": PagerDuty,
    "digitalocean": DigitalOcean,
}
CREDENTIALS = {  # the servers want them set; the fakes check none but PagerDuty's `Token token=` form
    "train": {"BENCH_OAUTH2_TOKEN": "bench"},
    "petstore": {"BENCH_PETSTORE_AUTH_TOKEN": "bench", "BENCH_API_KEY_KEY": "bench"},
    "pagerduty": {"BENCH_API_KEY_KEY": "Token token=bench"},
    "digitalocean": {"BENCH_BEARER_AUTH_TOKEN": "bench"},
}
PACKAGE = "bench_code"
MODES = ("dynamic", "code")
RATIO_TARGET = 10.0  # dynamic ÷ code, the set's median, in bytes and in tokens: at least
SPEED_TARGET = 2.0  # run_code of a one-call program ÷ the direct call, medians: at most
TASKS = [*TRAIN_TASKS, *PETSTORE_TASKS, *JUPYTER_TASKS, *PAGERDUTY_TASKS, *DIGITALOCEAN_TASKS]


@dataclass
class Subject:
    """A service the tasks run against, and its generated package."""

    name: str
    out: Path
    settings: dict[str, str]
    reset: Callable[[Task], None]
    snapshot: Callable[[Task], Any]
    tasks: list[Task] = field(default_factory=list)


@dataclass(frozen=True)
class Outcome:
    task: Task
    ledgers: dict[str, Ledger]
    answers: dict[str, Any]
    states: dict[str, Any]

    @property
    def ratio(self) -> float:
        return self.ledgers["dynamic"].total / self.ledgers["code"].total

    @property
    def token_ratio(self) -> float:
        return self.ledgers["dynamic"].tokens / self.ledgers["code"].tokens

    def mismatch(self) -> str:
        """Why the two runs are not the same task done ('' when they are)."""
        dynamic, code = self.answers["dynamic"], self.answers["code"]
        if dynamic != code:
            return f"answers differ: dynamic {dynamic!r:.300}, code {code!r:.300}"
        if self.states["dynamic"] != self.states["code"]:
            return "the service's state differs after the two runs"
        calls = {mode: ledger.api_calls for mode, ledger in self.ledgers.items()}
        return "" if calls["dynamic"] == calls["code"] else f"API calls differ: {calls}"


def write_package(spec: Path, out: Path) -> Path:
    """Generate `spec` in-process into `out` (package `bench_code`)."""
    options = GeneratorOptions(dist_name=PACKAGE.replace("_", "-"), env_prefix="BENCH")
    for path, text in generate(str(spec), options).files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
    return out


def as_json(value: Any) -> Any:
    """An answer as JSON data (tuples as lists), as run_code's answer is."""
    return json.loads(json.dumps(value))


async def run_task(task: Task, clients: dict[str, Any], subject: Subject) -> Outcome:
    ledgers, answers, states = {}, {}, {}
    for mode in MODES:
        subject.reset(task)
        agent = Agent(clients[mode])
        await agent.list_tools()
        await agent.find(task.queries, task.tools)
        agent.ledger.preamble = agent.ledger.total
        answer = await (task.dynamic(agent) if mode == "dynamic" else agent.run_code(task.program))
        ledgers[mode], answers[mode], states[mode] = agent.ledger, as_json(answer), subject.snapshot(task)
    return Outcome(task, ledgers, answers, states)


async def run_subject(subject: Subject, errlog: Path) -> list[Outcome | TaskFailed]:
    """The subject's tasks, each both ways, on one server per mode."""
    async with AsyncExitStack() as stack:
        clients = {}
        for mode in MODES:
            env = server_env(subject.out, mode, subject.settings)
            clients[mode] = await stack.enter_async_context(session(subject.out, PACKAGE, env, errlog))
        outcomes: list[Outcome | TaskFailed] = []
        for task in subject.tasks:
            try:
                outcomes.append(outcome := await run_task(task, clients, subject))
            except TaskFailed as error:  # (raised out of the sessions' task groups, it would be wrapped)
                outcomes.append(TaskFailed(f"{task.name}: {error}"))
                continue
            print(f"  {task.name}: {outcome.ratio:.1f}x", flush=True)
        return outcomes


def fake_subject(name: str, fake: FakeService, workdir: Path) -> Subject:
    out = write_package(SPECS[name], workdir / name)
    settings = {"BENCH_BASE_URL": fake.base_url, **CREDENTIALS[name]}
    tasks = [task for task in TASKS if task.service == name]
    return Subject(name, out, settings, lambda task: fake.reset(), lambda task: fake.snapshot(), tasks)


def jupyter_subject(jupyter: code_jupyter.Jupyter, spec: Path, workdir: Path) -> Subject:
    out = write_package(spec, workdir / "jupyter")
    settings = {"BENCH_BASE_URL": jupyter.origin, "BENCH_HEADERS": json.dumps(jupyter.headers)}
    tasks = [task for task in TASKS if task.service == "jupyter"]
    return Subject(
        "jupyter",
        out,
        settings,
        lambda task: jupyter.reset(task.folder),
        lambda task: jupyter.snapshot(task.folder),
        tasks,
    )


def measure_context(workdir: Path, jupyter_spec: Path | None, names: set[str]) -> list[Outcome | TaskFailed]:
    """The tasks of the fakes in `names`, then Jupyter's if `jupyter_spec`."""
    outcomes: list[Outcome | TaskFailed] = []
    with ExitStack() as stack:
        subjects = [
            fake_subject(name, stack.enter_context(fake()), workdir)
            for name, fake in FAKES.items()
            if name in names
        ]
        if jupyter_spec is not None:
            jupyter = stack.enter_context(code_jupyter.Jupyter(workdir / "jupyter-service"))
            subjects.append(jupyter_subject(jupyter, jupyter_spec, workdir))
        for subject in subjects:
            outcomes += asyncio.run(run_subject(subject, workdir / "servers.log"))
    return outcomes


def context_table(outcomes: Sequence[Outcome]) -> str:
    """Per task: the bytes each way and their ratio; then the same after discovery (the part of a
    task that follows tools/list, search_tools and describe_tools)."""
    head = "| task | API calls | dynamic | code | ratio | after discovery: dynamic | code | ratio |"
    lines = ["### Context bytes, dynamic vs code mode", "", head, "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for outcome in outcomes:
        dynamic, code = outcome.ledgers["dynamic"], outcome.ledgers["code"]
        lines.append(
            f"| {outcome.task.name} | {code.api_calls} | {dynamic.total:,} B | {code.total:,} B"
            f" | **{outcome.ratio:.1f}x** | {dynamic.work:,} B | {code.work:,} B"
            f" | {dynamic.work / code.work:.1f}x |"
        )
    work = statistics.median(o.ledgers["dynamic"].work / o.ledgers["code"].work for o in outcomes)
    median = f"**{statistics.median(o.ratio for o in outcomes):.1f}x**"
    lines.append(f"| median of {len(outcomes)} | | | | {median} | | | {work:.1f}x |")
    return "\n".join(lines) + "\n"


def tokens_table(outcomes: Sequence[Outcome]) -> str:
    """Per task: the tokens each way, their ratio, and the bytes a token takes each way."""
    lines = [
        f"### Context tokens ({TOKENIZER}), dynamic vs code mode",
        "",
        "| task | dynamic | code | ratio | bytes a token: dynamic | code |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for outcome in outcomes:
        dynamic, code = outcome.ledgers["dynamic"], outcome.ledgers["code"]
        lines.append(
            f"| {outcome.task.name} | {dynamic.tokens:,} | {code.tokens:,}"
            f" | **{outcome.token_ratio:.1f}x** | {dynamic.total / dynamic.tokens:.2f}"
            f" | {code.total / code.tokens:.2f} |"
        )
    median = statistics.median(outcome.token_ratio for outcome in outcomes)
    lines.append(f"| median of {len(outcomes)} | | | **{median:.1f}x** | | |")
    return "\n".join(lines) + "\n"


def services_table(outcomes: Sequence[Outcome]) -> str:
    """Per service: the median ratio, and the medians of what discovery and the task's own calls
    cost each way (the ratio is about dynamic's reads ÷ code's discovery)."""
    lines = [
        "### By service (medians)",
        "",
        "| service | tasks | dynamic | code | ratio | code: discovery | dynamic: after discovery |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for service in dict.fromkeys(outcome.task.service for outcome in outcomes):
        mine = [outcome for outcome in outcomes if outcome.task.service == service]
        dynamic, code = ([o.ledgers[mode] for o in mine] for mode in MODES)
        lines.append(
            f"| {service} | {len(mine)} | {statistics.median(d.total for d in dynamic):,.0f} B"
            f" | {statistics.median(c.total for c in code):,.0f} B"
            f" | **{statistics.median(o.ratio for o in mine):.1f}x**"
            f" | {statistics.median(c.preamble for c in code):,.0f} B"
            f" | {statistics.median(d.work for d in dynamic):,.0f} B |"
        )
    return "\n".join(lines) + "\n"


def parts_table(outcomes: Sequence[Outcome]) -> str:
    """Where each mode's bytes go: the median over the tasks of each part."""
    parts = ("tools/list", "search_tools", "describe_tools", "call_tool", "run_code")
    lines = [
        "### Where the bytes go (median over the tasks)",
        "",
        "| mode | " + " | ".join(parts) + " | total |",
    ]
    lines.append("|---|" + "---:|" * (len(parts) + 1))
    for mode in MODES:
        ledgers = [outcome.ledgers[mode] for outcome in outcomes]
        cells = [statistics.median(ledger.listed for ledger in ledgers)]
        cells += [statistics.median(ledger.by_tool.get(part, 0) for ledger in ledgers) for part in parts[1:]]
        total = statistics.median(ledger.total for ledger in ledgers)
        lines.append(f"| {mode} | " + " | ".join(f"{cell:,.0f} B" for cell in cells) + f" | {total:,.0f} B |")
    return "\n".join(lines) + "\n"


def rows(outcomes: Sequence[Outcome], speed: code_speed.Speed | None) -> list[report.Row]:
    found = [
        report.Row(
            f"context {unit}, dynamic ÷ code, median of {len(outcomes)} tasks",
            f"{median:.1f}x",
            target=f"≥ {RATIO_TARGET:g}x",
            value=median,
            limit=RATIO_TARGET,
            at_least=True,
        )
        for unit, median in (
            ("bytes", statistics.median(outcome.ratio for outcome in outcomes)),
            (f"tokens ({TOKENIZER})", statistics.median(outcome.token_ratio for outcome in outcomes)),
        )
    ]
    if speed is None:
        return found
    paced, unpaced = speed.paced, speed.unpaced
    pause = f"{speed.pause * 1000:g} ms between calls"
    return [
        *found,
        report.Row(
            f"one-call program vs direct call, {pause} ({len(paced.code)} each)", code_speed.summary(paced)
        ),
        report.Row(
            f"run_code ÷ direct call, medians, {pause}",
            report.ratio(paced.ratio),
            target=f"≤ {SPEED_TARGET:g}x",
            value=paced.ratio,
            limit=SPEED_TARGET,
            noisy=True,
        ),
        report.Row(f"the same without pauses ({len(unpaced.code)} each)", code_speed.summary(unpaced)),
        report.Row("run_code ÷ direct call, medians, without pauses", report.ratio(unpaced.ratio)),
        report.Row(f"CPU a call (server and sandbox workers), {pause}", code_speed.cpu_summary(paced)),
    ]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="benchmarks.code_mode", description=__doc__)
    parser.add_argument("--calls", type=int, default=200, help="timed calls each way (default 200)")
    parser.add_argument("--pause", type=float, default=30.0, help="ms between paced calls (default 30)")
    parser.add_argument("--no-speed", action="store_true", help="measure the context only")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    parser.add_argument("--only", default="", help="run only these subjects' tasks, e.g. pagerduty,train")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    names = set(filter(None, args.only.split(","))) or {*SPECS, "jupyter"}
    if unknown := names - {*SPECS, "jupyter"}:
        print(f"benchmarks.code_mode: no such subject: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    jupyter_spec = code_jupyter.spec() if "jupyter" in names else None
    if missing := [str(spec) for name, spec in SPECS.items() if name in names and not spec.exists()]:
        print(f"benchmarks.code_mode: no such spec: {', '.join(missing)}", file=sys.stderr)
        return 2
    if "jupyter" in names and jupyter_spec is None:
        print("benchmarks.code_mode: Jupyter Server is not installed (bash scripts/setup)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="openapi2mcp-code-mode-") as name:
        workdir = Path(name)
        try:
            measured = measure_context(workdir, jupyter_spec, names)
        except code_jupyter.ServiceFailed as error:
            print(f"benchmarks.code_mode: {error}", file=sys.stderr)
            return 2
        if failed := [str(error) for error in measured if isinstance(error, TaskFailed)]:
            print("benchmarks.code_mode: tasks failed:\n" + "\n".join(failed), file=sys.stderr)
            return 2
        outcomes = [outcome for outcome in measured if isinstance(outcome, Outcome)]
        if wrong := [f"{o.task.name}: {o.mismatch()}" for o in outcomes if o.mismatch()]:
            print("benchmarks.code_mode: the two runs differ:\n" + "\n".join(wrong), file=sys.stderr)
            return 2
        speed = None
        if not args.no_speed:  # (measured on the petstore package)
            settings = CREDENTIALS["petstore"]
            if not (workdir / "petstore").exists():  # --only left the petstore out
                write_package(SPECS["petstore"], workdir / "petstore")
            speed = code_speed.measure(workdir / "petstore", PACKAGE, settings, args.calls, args.pause / 1000)
    found = rows(outcomes, speed)
    text = (
        context_table(outcomes)
        + "\n"
        + tokens_table(outcomes)
        + "\n"
        + services_table(outcomes)
        + "\n"
        + parts_table(outcomes)
        + "\n"
        + report.table("Issue 31: code mode", found, with_peer=False)
    )
    return report.published("benchmarks.code_mode", text, found, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
