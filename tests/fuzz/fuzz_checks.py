"""What every generation must hold, whatever the spec: no exception but the documented ones, Python
files that compile, a package that imports and lists its tools, tool names valid and unique."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import yaml
from generated_servers import listed_tools
from hypothesis import HealthCheck, settings

from openapi2mcp import pipeline
from openapi2mcp.load.bundle import RefOptions
from openapi2mcp.model import GeneratorOptions

PORTABLE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
PACKAGE = "fuzzed_pkg"
OPTIONS = GeneratorOptions(dist_name=PACKAGE, env_prefix="FUZZED")
CI_EXAMPLES = 25  # per fuzz test, without a profile: about 5 s each on this machine
COMMON_SETTINGS: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": list(HealthCheck),
    "database": None,
    "print_blob": True,
}


def long_run() -> bool:
    """Whether the chosen profile asks for more examples than hypothesis's default (`long` does)."""
    return settings().max_examples > settings.get_profile("default").max_examples


def fuzz_settings() -> settings:
    """The chosen profile when it asks for more examples than hypothesis's default (`long`); else
    CI's small bounded run, derandomized so that CI is repeatable."""
    if long_run():
        return settings(settings(), **COMMON_SETTINGS)
    return settings(max_examples=CI_EXAMPLES, derandomize=True, **COMMON_SETTINGS)


def write_spec(folder: Path, document: Any, form: str) -> Path:
    """The document as a JSON or YAML file in `folder`."""
    path = folder / f"spec.{form}"
    if form == "json":
        path.write_text(json.dumps(document), encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    return path


def check_generation(spec: Path, out: Path, ref_root: Path | None = None) -> list[str] | None:
    """Generate `spec` in-process and check the package; its tool names, or None when the spec is
    refused with the documented LoadError."""
    try:
        generation = pipeline.generate(str(spec), OPTIONS, RefOptions(ref_root=ref_root))
    except pipeline.LoadError as error:
        assert str(error).strip(), "a LoadError without a message"
        return None
    for name, text in generation.files.items():
        if name.endswith(".py"):
            compile(text, name, "exec")
    tools = json.loads(generation.files[f"{PACKAGE}/data/tool_data.json"])["tools"]
    names = [tool["name"] for tool in tools]
    assert len(names) == len(set(names)), f"duplicate tool names: {names}"
    assert all(PORTABLE_NAME.match(name) for name in names), names
    assert [tool.name for tool in generation.model.tools] == names
    for name, text in {**generation.files, **generation.starters}.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")
    assert listed(out) == names
    return names


def listed(out: Path) -> list[str]:
    """The names the generated server lists (imported in this process, then forgotten)."""
    sys.path.insert(0, str(out))
    try:
        return anyio.run(_list_tools)
    finally:
        sys.path.remove(str(out))
        for key in [key for key in sys.modules if key == PACKAGE or key.startswith(PACKAGE + ".")]:
            del sys.modules[key]


async def _list_tools() -> list[str]:
    return [tool.name for tool in await listed_tools(PACKAGE, {"FUZZED_MODE": "static"})]
