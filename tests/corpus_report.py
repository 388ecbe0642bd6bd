"""The corpus report (`bash scripts/corpus-report`): generate every spec of `../shared/corpus`
(or, with `--folder DIR`, every spec file below DIR) in-process and print, per spec, its operations,
tools, skipped operations, diagnostics by level and kind, generation time, tools/list size in static
and dynamic mode and (with `--search`) how often a tool is found by its title and by its name, then
the totals.

Exit status: 0 all well; 1 a spec failed with an exception (or crashed, or hung), fewer than 99% of
the operations became tools, an operation was skipped without an error diagnostic pointing at it, or
a dynamic tools/list is over 8,000 bytes; 2 bad arguments, no corpus or no spec in the folder.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from corpus_runner import DEFAULT_TIMEOUT, KINDS, SEARCHED, SpecResult, run_corpus
from corpus_specs import CORPUS_MISSING, NO_MANIFEST, CorpusSpec, corpus_present, corpus_specs, folder_specs

GOAL = 0.99  # of the operations must become tools
DYNAMIC_LIST_LIMIT = 8_000  # bytes of the dynamic mode's tools/list, whatever the API (issue 15)
LEVELS = ("error", "warning", "info")

# Specs whose loaded document has more operations than the manifest counted in the file, and why.
COUNT_DIFFERENCES = {
    "ag-azure-datalake-store-fs": (22, "x-ms-paths: 19 more path items, merged into `paths`"),
    "azure-custom-baseurl-paging": (3, "x-ms-paths: 1 more path item, merged into `paths`"),
}


def count_note(result: SpecResult) -> str:
    """'' when the operation count is the manifest's; '*' a documented difference; '!' otherwise."""
    if result.failure or result.manifest_operations in (NO_MANIFEST, result.operations):
        return ""
    known = COUNT_DIFFERENCES.get(result.name)
    return "*" if known is not None and known[0] == result.operations else "!"


def totals(results: Sequence[SpecResult]) -> dict[str, Any]:
    done = [result for result in results if result.failure is None]
    operations = sum(result.operations for result in done)
    tools = sum(result.tools for result in done)
    kinds: dict[str, dict[str, int]] = {}
    for result in done:
        for item in result.diagnostics:
            kinds.setdefault(item["kind"], dict.fromkeys(LEVELS, 0))[item["level"]] += 1
    return {
        "specs": len(results),
        "failed": len(results) - len(done),
        "operations": operations,
        "manifest_operations": sum(result.manifest_operations for result in results),
        "tools": tools,
        "tool_ratio": tools / operations if operations else 1.0,
        "skipped": sum(len(result.skipped) for result in done),
        "unexplained": sum(len(result.unexplained) for result in done),
        "levels": {level: sum(result.count("level", level) for result in done) for level in LEVELS},
        "kinds": dict(sorted(kinds.items(), key=lambda pair: -sum(pair[1].values()))),
        "seconds": sum(result.seconds for result in done),
        "list_bytes": sum(result.list_bytes for result in done),
        "dynamic_bytes": max((result.dynamic_bytes for result in done), default=0),  # the largest
        "searched": sum(result.searched for result in done),
        "found_by_title": sum(result.found_by_title for result in done),
        "found_by_name": sum(result.found_by_name for result in done),
    }


def problems(results: Sequence[SpecResult]) -> list[str]:
    """Why the report exits 1 (empty: it exits 0)."""
    found = []
    for result in results:
        if result.failure is not None:
            last = result.failure.strip().splitlines()[-1]
            found.append(f"{result.name}: failed: {last}")
        found += [
            f"{result.name}: {operation} was skipped without an error diagnostic pointing at it"
            for operation in result.unexplained
        ]
        if result.dynamic_bytes > DYNAMIC_LIST_LIMIT:
            found.append(
                f"{result.name}: the dynamic tools/list is {result.dynamic_bytes:,} bytes;"
                f" the limit is {DYNAMIC_LIST_LIMIT:,}"
            )
    summary = totals(results)
    if summary["tool_ratio"] < GOAL:
        found.append(
            f"{summary['tools']} of {summary['operations']} operations became tools "
            f"({summary['tool_ratio']:.2%}); the goal is {GOAL:.0%}"
        )
    return found


HEADER = (
    "spec", "version", "ops", "tools", "skip", "error", "warn", "info", "gen s", "list bytes", "dyn bytes",
    "found",
)  # fmt: skip


def row(result: SpecResult) -> tuple[str, ...]:
    if result.failure is not None:
        return (result.name, result.version, "FAILED", *[""] * (len(HEADER) - 3))
    kinds = ", ".join(f"{kind} {count}" for kind, count in result.kinds().items())
    return (
        result.name,
        result.version,
        f"{result.operations}{count_note(result)}",
        str(result.tools),
        str(len(result.skipped)),
        *(str(result.count("level", level)) for level in LEVELS),
        f"{result.seconds:.2f}",
        f"{result.list_bytes:,}",
        f"{result.dynamic_bytes:,}",
        found_shares(result.searched, result.found_by_title, result.found_by_name),
        kinds,
    )


def found_shares(searched: int, by_title: int, by_name: int) -> str:
    """`by title @5 / by name @1` as shares of the tools searched for; '-' when none was (no --search)."""
    return f"{by_title / searched:.0%} / {by_name / searched:.0%}" if searched else "-"


def table(results: Sequence[SpecResult]) -> str:
    summary = totals(results)
    total = (
        "TOTAL",
        f"{summary['specs']} specs",
        str(summary["operations"]),
        str(summary["tools"]),
        str(summary["skipped"]),
        *(str(summary["levels"][level]) for level in LEVELS),
        f"{summary['seconds']:.2f}",
        f"{summary['list_bytes']:,}",
        f"max {summary['dynamic_bytes']:,}",
        found_shares(summary["searched"], summary["found_by_title"], summary["found_by_name"]),
        f"{summary['tool_ratio']:.2%} of the operations are tools",
    )
    rows = [(*HEADER, "diagnostics by kind"), *(row(result) for result in results), total]
    widths = [max(len(line[column]) for line in rows) for column in range(len(HEADER))]
    lines = []
    for line in rows:
        cells = [
            cell.ljust(width) if column < 2 else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(line, widths, strict=False))
        ]
        lines.append("  ".join([*cells, *line[len(HEADER) :]]).rstrip())
    lines.insert(1, "-" * len(lines[0]))
    lines.insert(len(lines) - 1, "-" * len(lines[0]))
    return "\n".join(lines)


def legend(results: Sequence[SpecResult]) -> list[str]:
    """The notes under the table: count differences and the per-kind totals."""
    lines = ["", "ops: every method of every path item of the loaded document (after $ref bundling and"]
    lines.append("Swagger 2.0 conversion); * differs from the manifest for a documented reason, ! does not.")
    lines.append(f"dyn bytes: the dynamic mode's tools/list (at most {DYNAMIC_LIST_LIMIT:,}).")
    lines.append(f"found (--search): of up to {SEARCHED} tools a spec, the share found within five by its")
    lines.append("title / found first by its name.")
    for result in results:
        if note := count_note(result):
            reason = COUNT_DIFFERENCES.get(result.name, (0, "UNDOCUMENTED"))[1]
            lines.append(f"  {note} {result.name}: manifest {result.manifest_operations}; {reason}")
    kinds = totals(results)["kinds"]
    lines += ["", f"{'diagnostics by kind':<20}{'error':>7}{'warning':>9}{'info':>7}{'total':>7}"]
    for kind, levels in kinds.items():
        counts = "".join(f"{levels[level]:>{width}}" for level, width in zip(LEVELS, (7, 9, 7), strict=True))
        lines.append(f"{kind:<20}{counts}{sum(levels.values()):>7}")
    unused = [kind for kind, _ in KINDS if kind not in kinds]
    if unused:
        lines.append(f"(no diagnostics of kind: {', '.join(unused)})")
    return lines


def details(results: Sequence[SpecResult], diagnostics: bool) -> list[str]:
    lines = []
    for result in results:
        if result.failure is not None:
            lines += ["", f"== {result.name}: FAILED", result.failure.rstrip()]
        elif diagnostics and result.diagnostics:
            lines += ["", f"== {result.name}"]
            lines += [
                f"{d['level']}: {d['pointer']}: {d['message']}  [{d['kind']}]" for d in result.diagnostics
            ]
    return lines


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/corpus-report", description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--only", action="append", metavar="NAME", help="only this spec (repeatable)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--repeat", type=int, default=1, help="generate N times, report the median")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per generation")
    parser.add_argument("--diagnostics", action="store_true", help="print every diagnostic per spec")
    parser.add_argument(
        "--folder", type=Path, metavar="DIR", help="every spec file below DIR instead of the corpus"
    )
    parser.add_argument("--search", action="store_true", help="search tools by title and by name")
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.repeat < 1 or args.timeout <= 0:
        parser.error("--jobs and --repeat must be at least 1, --timeout positive")
    return args


def chosen_specs(args: argparse.Namespace) -> list[CorpusSpec] | str:
    """The specs to report on, or why there are none (exit 2)."""
    if args.folder is not None:
        specs = folder_specs(args.folder) if args.folder.is_dir() else []
        if not specs:
            return f"no spec file (.json, .yaml, .yml) below {args.folder}"
    elif corpus_present():
        specs = corpus_specs()
    else:
        return CORPUS_MISSING
    if args.only:
        unknown = sorted(set(args.only) - {spec.name for spec in specs})
        if unknown:
            return f"no such spec: {', '.join(unknown)}"
        specs = [spec for spec in specs if spec.name in args.only]
    return specs


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    specs = chosen_specs(args)
    if isinstance(specs, str):
        print(f"corpus-report: {specs}", file=sys.stderr)
        return 2

    def progress(result: SpecResult) -> None:
        state = "FAILED" if result.failure else f"{result.tools} tools, {result.seconds:.2f} s"
        print(f"  {result.name}: {state}", file=sys.stderr, flush=True)

    results = run_corpus(
        specs, jobs=args.jobs, repeat=args.repeat, timeout=args.timeout, progress=progress, search=args.search
    )
    found = problems(results)
    print("\n".join([table(results), *legend(results), *details(results, args.diagnostics)]))
    if args.json:
        document = {"specs": [r.to_json() for r in results], "totals": totals(results), "problems": found}
        args.json.write_text(json.dumps(document, indent=1) + "\n", "utf-8")
    print("", *(f"PROBLEM: {problem}" for problem in found), sep="\n")
    print("corpus-report: " + ("FAILED" if found else "OK"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
