"""tests/services/install.py, the installer of the e2e tests' real services: the pieces that need no
network (the Alertmanager binary's template directory made relative, the spec taken from Go)."""

from __future__ import annotations

from pathlib import Path

import pytest
from module_files import import_file

INSTALL = Path(__file__).resolve().parent / "services" / "install.py"


install = import_file("services_install", "services/install.py")

UI = b"/usr/share/prometheus/alertmanager/ui/"
TEMPLATES = b"/usr/share/prometheus/alertmanager"


def test_the_template_directory_is_made_relative_in_place(tmp_path: Path) -> None:
    binary = tmp_path / "in"
    binary.write_bytes(b"\x00abc" + TEMPLATES + b"3552713" + UI + b"\x01")
    install._relocate(binary, tmp_path / "out")
    out = (tmp_path / "out").read_bytes()
    assert out == b"\x00abc" + b"./" * 15 + b"tmpl" + b"3552713" + UI + b"\x01"
    assert len(out) == binary.stat().st_size and (tmp_path / "out").stat().st_mode & 0o111


@pytest.mark.parametrize("data", [UI + b"x", TEMPLATES + b"1" + TEMPLATES + b"2"], ids=["absent", "twice"])
def test_a_binary_without_exactly_one_template_directory_is_refused(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "in").write_bytes(data)
    with pytest.raises(install.InstallError, match="expected the template directory once"):
        install._relocate(tmp_path / "in", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_pinned_lists_pin_every_package() -> None:
    for name in ("jupyter", "jupyverse"):
        lines = (INSTALL.parent / f"{name}.txt").read_text("utf-8").splitlines()
        requirements = [line for line in lines if line and not line.lstrip().startswith("#")]
        assert requirements and all("==" in line for line in requirements), name
    assert install.debian_packages() == [
        "prometheus-alertmanager=0.25.0-1+b4",
        "golang-github-prometheus-alertmanager-dev=0.25.0-1",
    ]
