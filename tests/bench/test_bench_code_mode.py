"""benchmarks/code_mode.py without running it (it takes minutes): its task set is consistent (each
program calls only the functions of the tools its task describes, on the spec's operations) and its
fake services keep, change and put back their state over HTTP."""

from __future__ import annotations

import ast
import json
import urllib.error
import urllib.request
from collections import Counter
from typing import Any

import pytest
import yaml

from benchmarks import code_jupyter, code_mode
from benchmarks.code_fake_petstore import PETS, Petstore
from benchmarks.code_fake_train import TrainTravel
from openapi2mcp_runtime.code_mode.stubs import function_names


def _api_functions(program: str) -> set[str]:
    """The `api.NAME` the program uses."""
    return {
        node.attr
        for node in ast.walk(ast.parse(program))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "api"
    }


def test_the_task_set_covers_three_services_and_each_program_calls_its_described_tools() -> None:
    tasks = code_mode.TASKS
    assert len(tasks) >= 10 and len({task.name for task in tasks}) == len(tasks)
    per_service = Counter(task.service for task in tasks)
    assert set(per_service) == {"train", "petstore", "jupyter"} and min(per_service.values()) >= 3
    for task in tasks:
        functions = set(function_names(list(task.tools)).values())
        assert _api_functions(task.program) == functions, task.name
        assert (task.folder in code_jupyter.FOLDERS) == (task.service == "jupyter"), task.name
        assert task.queries and task.ask, task.name


def test_the_tasks_tools_are_operations_of_their_corpus_spec() -> None:
    if not all(spec.is_file() for spec in code_mode.SPECS.values()):
        pytest.skip("the real-world corpus is not beside the repository")
    for service, spec in code_mode.SPECS.items():
        paths = yaml.safe_load(spec.read_text("utf-8"))["paths"]
        operations = {
            op["operationId"] for item in paths.values() for op in item.values() if "operationId" in op
        }
        used = {tool for task in code_mode.TASKS if task.service == service for tool in task.tools}
        assert used <= operations, (service, used - operations)


def _http(method: str, url: str) -> tuple[int, Any]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
            return int(response.status), json.loads(body) if body else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_the_train_fake_deletes_a_booking_until_it_is_reset() -> None:
    with TrainTravel() as train:
        status, stations = _http("GET", train.base_url + "/stations")
        assert status == 200 and len(stations["data"]) == 40
        booking = next(iter(train.bookings))
        assert _http("DELETE", f"{train.base_url}/bookings/{booking}") == (204, None)
        assert _http("GET", f"{train.base_url}/bookings/{booking}")[0] == 404
        train.reset()
        assert _http("GET", f"{train.base_url}/bookings/{booking}")[0] == 200
        origin, destination = stations["data"][0]["id"], stations["data"][1]["id"]
        query = f"/trips?origin={origin}&destination={destination}&date=2024-03-01T00:00:00Z"
        first, again = _http("GET", train.base_url + query), _http("GET", train.base_url + query)
        assert first == again and 15 <= len(first[1]["data"]) <= 24


def test_the_petstore_fake_answers_by_status_and_deletes() -> None:
    with Petstore() as petstore:
        counted = sum(
            len(_http("GET", f"{petstore.base_url}/pet/findByStatus?status={status}")[1])
            for status in ("available", "pending", "sold")
        )
        assert counted == PETS == sum(_http("GET", petstore.base_url + "/store/inventory")[1].values())
        assert _http("DELETE", petstore.base_url + "/pet/1001")[0] == 200
        assert _http("GET", petstore.base_url + "/pet/1001")[0] == 404
        petstore.reset()
        assert _http("GET", petstore.base_url + "/pet/1001")[0] == 200


def test_the_jupyter_folders_are_the_same_each_time() -> None:
    for make in code_jupyter.FOLDERS.values():
        assert make() == make()
