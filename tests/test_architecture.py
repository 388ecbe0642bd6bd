"""The layout docs/architecture.md describes, as tests: stages import only earlier stages and the
shared modules, the command line (`cli/`) sits above them all and is imported by none, no module
imports itself back through others, and every module is readable whole; in the runtime package
(`openapi2mcp_runtime/`, relative imports) too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "openapi2mcp"
# Stage folders in pipeline order; a stage may import the ones before it (schemas/ serves tools/).
STAGES = ("load", "schemas", "tools", "fit", "emit", "ci", "report")
SHARED = {"openapi2mcp", "openapi2mcp.model", "openapi2mcp.diagnostics", "openapi2mcp.background"}
# The command line: it may import every stage and top module; only itself imports it.
COMMAND_LINE = "cli"
# ci/ runs the whole pipeline (`diff` generates both sides).
EXTRA = {"ci": {"openapi2mcp.pipeline"}}
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The openapi2mcp modules `path` imports (TYPE_CHECKING imports too), as module names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("openapi2mcp"):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("openapi2mcp"))
    return found


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
GRAPH = {name: {i for i in imports_of(path) if i in MODULES and i != name} for name, path in MODULES.items()}


def stage_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGES else None


def in_command_line(name: str) -> bool:
    parts = name.split(".")
    return len(parts) > 1 and parts[1] == COMMAND_LINE


def test_every_module_belongs_to_a_stage_the_command_line_or_the_top() -> None:
    placed = [n for n, p in MODULES.items() if p.parent == PACKAGE or stage_of(n) or in_command_line(n)]
    strays = sorted(MODULES.keys() - placed)
    assert strays == []


def test_only_the_command_line_imports_the_command_line() -> None:
    wrong = sorted(
        f"{name} -> {target}"
        for name, targets in GRAPH.items()
        if not in_command_line(name)
        for target in targets
        if in_command_line(target)
    )
    assert wrong == []


@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_imports_only_earlier_stages_and_the_shared_modules(stage: str) -> None:
    earlier = set(STAGES[: STAGES.index(stage) + 1])
    allowed = SHARED | EXTRA.get(stage, set())
    wrong = sorted(
        f"{name} -> {target}"
        for name, targets in GRAPH.items()
        if stage_of(name) == stage
        for target in targets
        if target not in allowed and (stage_of(target) or "(top)") not in earlier
    )
    assert wrong == []


def test_the_shared_modules_import_no_stage() -> None:
    assert {name: GRAPH[name] for name in SHARED if GRAPH.get(name)} == {}


def in_a_circle(graph: dict[str, set[str]]) -> list[str]:
    """The modules of `graph` that import themselves back through others."""

    def reaches(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo.extend(graph[current])
        return seen

    return sorted(name for name in graph if name in reaches(name))


def test_no_module_imports_itself_back_through_others() -> None:
    assert in_a_circle(GRAPH) == []


def test_every_module_is_short_enough_to_read_whole() -> None:
    long = {n: len(p.read_text().splitlines()) for n, p in (MODULES | RUNTIME_MODULES).items()}
    assert {n: lines for n, lines in long.items() if lines > MAX_LINES} == {}


RUNTIME = PACKAGE.parent / "openapi2mcp_runtime"
RUNTIME_MODULES = {module_name(path): path for path in sorted(RUNTIME.rglob("*.py"))}


def relative_imports_of(name: str, path: Path) -> set[str]:
    """The runtime modules `path` (module `name`) imports relatively, as module names."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


RUNTIME_GRAPH = {
    name: {i for i in relative_imports_of(name, path) if i in RUNTIME_MODULES and i != name}
    for name, path in RUNTIME_MODULES.items()
}


def test_the_runtime_has_its_folders_and_no_module_imports_itself_back() -> None:
    folders = {name.split(".")[1] for name in RUNTIME_MODULES if name.count(".") >= 2}
    assert folders == {"serving", "upstream", "discovery", "results", "hooks", "code_mode"}
    assert RUNTIME_GRAPH["openapi2mcp_runtime.tool_runtime"] >= {
        "openapi2mcp_runtime.upstream.http_client",
        "openapi2mcp_runtime.discovery.meta_tools",
    }  # (the relative imports are read)
    assert in_a_circle(RUNTIME_GRAPH) == []
