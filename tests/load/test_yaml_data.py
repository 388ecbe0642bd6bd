"""yaml_data.py: data built from libyaml's events is exactly what PyYAML's loader gives, or its error."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from openapi2mcp.load.yaml_data import StringDateLoader, load_yaml, to_json

TEXTS = {
    "plain": "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths: {}\n",
    "scalars": "a: 1\nb: 1.5\nc: -0x1F\nd: 0o17\ne: 017\nf: 190:20:30\ng: .inf\nh: -.Inf\ni: .NaN\nj: ~\n"
    "k: null\nl: ''\nm:\nn: 1_000\no: 0b101\np: +12\nq: 1e3\nr: 6.8523015e+5\ns: 685.230_15e+03\n",
    "booleans the YAML 1.2 way": "a: true\nb: False\nc: yes\nd: no\ne: on\nf: OFF\ng: y\n",
    "dates stay strings": "a: 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00\nc: '2001-12-14'\n",
    "keys made strings": "1: a\n1.0: b\ntrue: c\n~: d\n2001-01-01: e\n0x10: f\nyes: g\n",
    "quoted and block": "a: '1'\nb: \"true\"\nc: |\n  line\nd: >-\n  folded\ne: ! 12\nf: !!str 12\n",
    "anchors and aliases": "a: &x {k: [1, 2]}\nb: *x\nc: [&y v, *y, *x]\nd: &z\n  - *x\n",
    "value key": "example: =\nother: '='\n",
    "merge key": "base: &b {a: 1}\nderived:\n  <<: *b\n  c: 2\n",
    "explicit tags": "a: !!binary aGVsbG8=\nb: !!timestamp 2001-12-14\nc: !!set {x, y}\nd: !!float 1\n",
    "tagged mapping": "a: !!map {b: 1}\n",
    "duplicate keys": "a: 1\nb: 2\na: 3\n",
    "duplicate anchor": "a: &x 1\nb: &x 2\nc: *x\n",
    "undefined alias": "a: *nowhere\n",
    "unhashable key": "? [a, b]\n: c\n",
    "alias as key": "a: &k key\n*k : v\n",
    "two documents": "a: 1\n---\nb: 2\n",
    "empty stream": "",
    "only a comment": "# nothing\n",
    "a scalar document": "just text\n",
    "invalid": "a: [1, 2\nb: }\n",
    "a bad number before a bad structure": "a: 0b_\nb: [1, 2\nc: }\n",
    "a bad number": "a: 0x_\n",
    "tab indentation": "a:\n\tb: 1\n",
    "deep": "a: " + "[" * 120 + "]" * 120 + "\n",
    "json": '{"a": [1, 2.5, true, null, "x"], "b": {"c": "d"}}',
}


def pyyaml(text: str) -> Any:
    return to_json(yaml.load(text, Loader=StringDateLoader))


def outcome(load: Any, text: str) -> tuple[str, str]:
    try:
        return "data", json.dumps(load(text))  # json tells 1, 1.0 and true apart
    except Exception as error:
        return "error", f"{type(error).__name__}: {error}"


@pytest.mark.parametrize("name", TEXTS)
def test_the_data_or_the_error_is_pyyamls(name: str) -> None:
    assert outcome(load_yaml, TEXTS[name]) == outcome(pyyaml, TEXTS[name])


def test_aliases_are_copies_as_to_json_made_them() -> None:
    data = load_yaml(TEXTS["anchors and aliases"])
    assert data["a"] == data["b"] and data["a"] is not data["b"]
    assert data["a"]["k"] is not data["b"]["k"]


def test_plain_specs_are_built_from_events_without_pyyamls_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("PyYAML's loader was used")

    monkeypatch.setattr(yaml, "load", refuse)
    for name in ("plain", "scalars", "keys made strings", "quoted and block", "anchors and aliases", "json"):
        load_yaml(TEXTS[name])
