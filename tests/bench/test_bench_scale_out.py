"""The scale-out benchmark (benchmarks/scale_out.py): haproxy's configuration, and a tiny run of the
petstore package behind haproxy, 2 instances and 2 workers (skipped where haproxy is not installed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks import scale_out

REPO = Path(__file__).resolve().parents[2]


def test_haproxy_balances_each_request_round_robin_over_the_backends() -> None:
    assert scale_out.haproxy_config(9000, [9001, 9002]) == (
        "global\n    nbthread 1\n    maxconn 512\n"
        "defaults\n    mode http\n    timeout connect 5s\n    timeout client 60s\n    timeout server 60s\n"
        "frontend mcp\n    bind 127.0.0.1:9000\n    default_backend servers\n"
        "backend servers\n    balance roundrobin\n"
        "    server s0 127.0.0.1:9001\n    server s1 127.0.0.1:9002\n"
    )


def test_layouts_describe_themselves() -> None:
    assert scale_out.Layout("instances", 1).describe() == "1 instance, `--stateless`"
    assert scale_out.Layout("instances", 4).describe() == "4 instances, `--stateless`"
    assert scale_out.Layout("workers", 2).describe() == "1 server, `--stateless --workers 2`"


@pytest.mark.e2e
def test_two_instances_and_two_workers_behind_haproxy_answer_every_call(tmp_path: Path) -> None:
    if shutil.which("haproxy") is None:
        pytest.skip("haproxy is not installed (Debian: apt-get install haproxy)")
    layouts = [scale_out.Layout("instances", 2), scale_out.Layout("workers", 2)]
    found = scale_out.run(REPO / "specs" / "petstore.yaml", 200, layouts, tmp_path)
    assert [(figures.layout, figures.calls, figures.errors) for figures in found] == [
        (layouts[0], 200, 0),
        (layouts[1], 200, 0),
    ]
    instances = found[0].server_cpu_seconds
    assert len(instances) == 2 and all(used > 0 for used in instances)  # round-robin reached both
    assert len(found[1].server_cpu_seconds) == 2
