"""`python peak_child.py REPORT MODULE [ARGS...]`: runs MODULE as `python -m MODULE ARGS...` would, then
writes the process's peak resident memory (VmHWM of /proc/self/status, KiB) to the file REPORT.

A child's `ru_maxrss` is no use here: on Linux it starts at the parent's peak (fork copies it and exec
keeps it), so a child of a benchmark that already holds 300 MiB would report at least that. Stdlib only,
run as a script: the FastMCP peer's server (another venv) reads its memory the same way."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path


def vmhwm_kib() -> int:
    """This process's peak resident memory so far, in KiB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("/proc/self/status has no VmHWM")


def main() -> None:
    report, module, *args = sys.argv[1:]
    sys.argv = [module, *args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:  # also after sys.exit() in the module
        Path(report).write_text(str(vmhwm_kib()))


if __name__ == "__main__":
    main()
