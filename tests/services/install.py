"""Install the real services of the e2e tests into .cache/services (run by scripts/setup).

- jupyter, jupyverse: a venv each, built by uv from the fully pinned lists beside this file
  (jupyter.txt, jupyverse.txt);
- alertmanager: the Debian bookworm packages of debian.txt, fetched with `apt-get download` and
  unpacked with `dpkg-deb -x` (no system install), plus the Swagger 2.0 spec of API v2 taken from
  the -dev package's `embedded_spec.go` and a copy of the binary that reads its default
  notification templates from `./tmpl` instead of the path Debian compiles in (see `_relocate`).

Each service is rebuilt only when its pin file changed (a stamp holds the file's digest). Usage:
    python tests/services/install.py [NAME ...]      (default: all)
A service that cannot be installed leaves its reason in .cache/services/NAME.error (its tests fail
with it) and the others are still installed; exit status 1 then.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
ROOT = REPO / ".cache" / "services"

# Debian's 02-Do_not_embed_blobs.patch makes Alertmanager read default.tmpl and email.tmpl from this
# directory, compiled in; the test copy reads them from `tmpl` under its working directory instead
# (the same length, so the Go string header stays valid).
DEBIAN_TEMPLATES = b"/usr/share/prometheus/alertmanager"
RELATIVE_TEMPLATES = b"./" * 15 + b"tmpl"
AM_SOURCE = "usr/share/gocode/src/github.com/prometheus/alertmanager"
_SWAGGER_JSON = re.compile(r"SwaggerJSON = json\.RawMessage\(\[\]byte\(`(.*?)`\)\)", re.S)


class InstallError(Exception):
    pass


def run(argv: list[str], timeout: float, cwd: Path | None = None) -> None:
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise InstallError(f"{' '.join(argv)}: {error}") from None
    if result.returncode != 0:
        raise InstallError(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout}{result.stderr}")


def uv() -> str:
    from uv import find_uv_bin

    return str(find_uv_bin())


def install_venv(name: str) -> None:
    """A venv at ROOT/NAME with exactly the packages of NAME.txt (uv pip sync)."""
    target = ROOT / name
    shutil.rmtree(target, ignore_errors=True)
    run([uv(), "venv", "--no-config", "--quiet", "--python", sys.executable, str(target)], timeout=120)
    python = str(target / "bin" / "python")
    pins = str(HERE / f"{name}.txt")
    run([uv(), "pip", "sync", "--no-config", "--quiet", "--python", python, pins], timeout=900)


def debian_packages() -> list[str]:
    lines = (HERE / "debian.txt").read_text("utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def apt_download(packages: list[str], into: Path) -> None:
    """`apt-get download PKG=VERSION ...` into `into`; after an `apt-get update` if the lists lack them."""
    argv = ["apt-get", "download", "-q", *packages]
    try:
        run(argv, timeout=600, cwd=into)
    except InstallError:
        run(["apt-get", "update", "-q"], timeout=600)
        run(argv, timeout=600, cwd=into)


def install_alertmanager() -> None:
    target = ROOT / "alertmanager"
    shutil.rmtree(target, ignore_errors=True)
    debs, tree = target / "debs", target / "root"
    debs.mkdir(parents=True)
    apt_download(debian_packages(), debs)
    for deb in sorted(debs.glob("*.deb")):
        run(["dpkg-deb", "-x", str(deb), str(tree)], timeout=300)
    go_spec = (tree / AM_SOURCE / "api" / "v2" / "restapi" / "embedded_spec.go").read_text("utf-8")
    match = _SWAGGER_JSON.search(go_spec)
    if match is None:
        raise InstallError("no SwaggerJSON literal in the -dev package's embedded_spec.go")
    spec = json.loads(match.group(1))
    (target / "openapi.json").write_text(json.dumps(spec, indent=1) + "\n", "utf-8")
    templates = target / "tmpl"
    templates.mkdir()
    for name in ("default.tmpl", "email.tmpl"):
        shutil.copy(tree / "usr" / "share" / "prometheus" / "alertmanager" / name, templates / name)
    _relocate(tree / "usr" / "bin" / "prometheus-alertmanager", target / "alertmanager")


def _relocate(binary: Path, out: Path) -> None:
    """Copy the binary with its template directory (exactly one occurrence) made relative."""
    data = binary.read_bytes()
    # The directory alone, not a prefix of a longer literal (the UI paths start with it too).
    places = [m.start() for m in re.finditer(re.escape(DEBIAN_TEMPLATES) + rb"(?![/a-z-])", data)]
    if len(places) != 1:
        raise InstallError(f"{binary}: expected the template directory once, found it {len(places)} times")
    at = places[0]
    out.write_bytes(data[:at] + RELATIVE_TEMPLATES + data[at + len(DEBIAN_TEMPLATES) :])
    out.chmod(0o755)


SERVICES: dict[str, tuple[Path, Callable[[], None]]] = {
    "jupyter": (HERE / "jupyter.txt", lambda: install_venv("jupyter")),
    "jupyverse": (HERE / "jupyverse.txt", lambda: install_venv("jupyverse")),
    "alertmanager": (HERE / "debian.txt", install_alertmanager),
}


def stamp_of(pins: Path) -> str:
    return hashlib.sha256(pins.read_bytes() + Path(__file__).read_bytes()).hexdigest()


def ensure(name: str) -> None:
    pins, install = SERVICES[name]
    stamp, error = ROOT / f"{name}.installed", ROOT / f"{name}.error"
    if stamp.is_file() and stamp.read_text() == stamp_of(pins):
        return
    print(f"setup: installing the test service {name} into {stamp.parent.relative_to(REPO)}", file=sys.stderr)
    stamp.unlink(missing_ok=True)
    ROOT.mkdir(parents=True, exist_ok=True)
    try:
        install()
    except InstallError as failure:
        error.write_text(str(failure))
        raise
    error.unlink(missing_ok=True)
    stamp.write_text(stamp_of(pins))


def main(names: list[str]) -> int:
    unknown = [name for name in names if name not in SERVICES]
    if unknown:
        print(f"install.py: unknown service(s) {unknown} (known: {', '.join(SERVICES)})", file=sys.stderr)
        return 2
    status = 0
    for name in names or list(SERVICES):
        try:
            ensure(name)
        except InstallError as error:
            print(
                f"setup: cannot install the test service {name} (its tests will fail): {error}",
                file=sys.stderr,
            )
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
