"""Build the `openapi2mcp-runtime` wheel from this checkout (scripts/build-runtime-wheel): the
package `openapi2mcp_runtime/` under a pyproject rendered from templates/runtime/, built by uv."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import openapi2mcp_runtime
from openapi2mcp.emit.render import environment

REPO = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT = 300  # seconds for uv to build it (it may fetch hatchling first)


def staged(folder: Path) -> None:
    """The distribution's source tree in `folder`: pyproject.toml, README.md and the package."""
    context = {
        "version": openapi2mcp_runtime.__version__,
        "dependencies": openapi2mcp_runtime.DEPENDENCIES,
        "extras": openapi2mcp_runtime.EXTRAS,
    }
    for name in ("pyproject.toml", "README.md"):
        text = environment().get_template(f"runtime/{name}.jinja").render(context)
        (folder / name).write_text(text, "utf-8")
    ignored = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "openapi2mcp_runtime", folder / "openapi2mcp_runtime", ignore=ignored)


def build(out: Path) -> Path:
    """The wheel, built into `out` (created); SystemExit with uv's output when the build fails."""
    out.mkdir(parents=True, exist_ok=True)
    uv = Path(sys.executable).with_name("uv")
    with tempfile.TemporaryDirectory() as folder:
        staged(Path(folder))
        name = f"openapi2mcp_runtime-{openapi2mcp_runtime.__version__}-py3-none-any.whl"
        (out / name).unlink(missing_ok=True)
        done = subprocess.run(
            [str(uv), "build", "--wheel", "--out-dir", str(out), folder, "--no-config"],
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT,
        )
        if done.returncode != 0 or not (out / name).is_file():
            raise SystemExit(f"build-runtime-wheel: uv build failed:\n{done.stdout}\n{done.stderr}")
    return out / name


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "dist"))
