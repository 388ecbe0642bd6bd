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
from benchmarks.code_fake_digitalocean import DigitalOcean
from benchmarks.code_fake_pagerduty import SPEC as PAGERDUTY_SPEC
from benchmarks.code_fake_pagerduty import PagerDuty
from benchmarks.code_fake_petstore import PETS, Petstore
from benchmarks.code_fake_train import TrainTravel
from openapi2mcp.diagnostics import Diagnostics
from openapi2mcp.load.bundle import bundle
from openapi2mcp_runtime.code_mode.stubs import function_names


def _api_functions(program: str) -> set[str]:
    """The `api.NAME` the program uses."""
    return {
        node.attr
        for node in ast.walk(ast.parse(program))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "api"
    }


def test_the_task_set_covers_every_service_and_each_program_calls_its_described_tools() -> None:
    tasks = code_mode.TASKS
    assert len(tasks) >= 10 and len({task.name for task in tasks}) == len(tasks)
    per_service = Counter(task.service for task in tasks)
    assert set(per_service) == {*code_mode.SPECS, "jupyter"} and min(per_service.values()) >= 3
    for task in tasks:
        functions = set(function_names(list(task.tools)).values())
        assert _api_functions(task.program) == functions, task.name
        assert (task.folder in code_jupyter.FOLDERS) == (task.service == "jupyter"), task.name
        assert task.queries and task.ask, task.name


def test_the_tasks_tools_are_operations_of_their_corpus_spec() -> None:
    if not all(spec.is_file() for spec in code_mode.SPECS.values()):
        pytest.skip("the real-world corpus is not beside the repository")
    for service, spec in code_mode.SPECS.items():
        text = spec.read_text("utf-8")
        document = json.loads(text) if spec.suffix == ".json" else yaml.safe_load(text)
        paths = bundle(document, str(spec), Diagnostics())["paths"]  # (digitalocean's are in files)
        operations = {
            op["operationId"] for item in paths.values() for op in item.values() if "operationId" in op
        }
        used = {tool for task in code_mode.TASKS if task.service == service for tool in task.tools}
        assert used <= operations, (service, used - operations)


def _http(method: str, url: str, headers: dict[str, str] | None = None, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data, {"Content-Type": "application/json", **(headers or {})}, method=method
    )
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


def test_the_pagerduty_fake_pages_filters_and_resolves_until_it_is_reset() -> None:
    if not PAGERDUTY_SPEC.is_file():
        pytest.skip("the real-world corpus is not beside the repository")
    key = {"Authorization": "Token token=test"}
    with PagerDuty() as pagerduty:
        url = (
            pagerduty.base_url + "/incidents?statuses[]=triggered&statuses[]=acknowledged&limit=25&total=true"
        )
        status, first = _http("GET", url, key)
        assert status == 200 and len(first["incidents"]) == 25 and first["more"] and first["total"] > 25
        last = _http("GET", f"{url}&offset={first['total'] - 1}", key)[1]
        assert len(last["incidents"]) == 1 and not last["more"]
        assert {i["status"] for i in first["incidents"]} <= {"triggered", "acknowledged"}
        assert _http("GET", pagerduty.base_url + "/incidents", {})[0] == 401
        target = f"{pagerduty.base_url}/incidents/{first['incidents'][0]['id']}"
        resolve = {"incident": {"type": "incident_reference", "status": "resolved"}}
        assert _http("PUT", target, key, resolve)[0] == 400  # no From header
        me = {**key, "From": "125.greenholt.earline@graham.name"}
        assert _http("PUT", target, me, resolve)[1]["incident"]["status"] == "resolved"
        assert _http("GET", url, key)[1]["total"] == first["total"] - 1
        pagerduty.reset()
        assert _http("GET", url, key)[1] == first


def test_the_digitalocean_fake_pages_with_links_and_powers_off_until_it_is_reset() -> None:
    if not code_mode.SPECS["digitalocean"].is_file():
        pytest.skip("the real-world corpus is not beside the repository")
    with DigitalOcean() as digitalocean:
        url = digitalocean.base_url + "/v2/droplets?per_page=50"
        status, first = _http("GET", url)
        total = first["meta"]["total"]
        assert status == 200 and len(first["droplets"]) == 50 and total > 50
        assert first["links"]["pages"]["next"].endswith("/v2/droplets?per_page=50&page=2")
        last = -(-total // 50)
        final = _http("GET", f"{url}&page={last}")[1]
        assert len(final["droplets"]) == total - 50 * (last - 1) and "next" not in final["links"]["pages"]
        droplet = next(d for d in first["droplets"] if d["status"] == "active")
        assert len(json.dumps(droplet, separators=(",", ":"))) > 1_500  # (the spec's example, varied)
        target = f"{digitalocean.base_url}/v2/droplets/{droplet['id']}"
        action = _http("POST", target + "/actions", body={"type": "power_off"})
        assert action[0] == 201 and action[1]["action"]["resource_id"] == droplet["id"]
        assert _http("GET", target)[1]["droplet"]["status"] == "off"
        digitalocean.reset()
        assert _http("GET", target)[1]["droplet"] == droplet


def test_the_jupyter_folders_are_the_same_each_time() -> None:
    for make in code_jupyter.FOLDERS.values():
        assert make() == make()
