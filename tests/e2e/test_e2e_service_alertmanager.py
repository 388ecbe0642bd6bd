"""Prometheus Alertmanager 0.25 (Go; Debian bookworm's package, tests/services/debian.txt), a real
service, driven only through the server generated from its own Swagger 2.0 spec of API v2 (relative
basePath `/api/v2/`: the base URL given is the origin). Every read-only tool is called with real
arguments; alerts are posted through a tool; silences go through create → read → update (re-post
with the id) → delete (expire), each step checked over plain HTTP; the service's real errors (400,
404, 500) come back as isError with its own message. The silence round trip and the errors also run
over streamable HTTP (`--auth token`)."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from e2e_support import generate_and_install
from services_support import OVER_STDIO_AND_HTTP, Caller, Driven, Service, Tools, http, installed, uncalled
from venv_support import ServerVenv

pytestmark = pytest.mark.e2e

CONFIG = """\
route:
  receiver: team-x
  group_by: [alertname]
receivers:
  - name: team-x
  - name: team-y
"""
API = "/api/v2"
MATCHERS = [{"name": "alertname", "value": "DiskFull", "isRegex": False}]


@dataclass
class Alertmanager(Driven):
    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """The service's own API v2 over plain HTTP: (status, the JSON of a success, else the body)."""
        answer = http(method, self.service.origin + API + path, body)
        return answer.status, (answer.json() if answer.body and answer.status < 300 else answer.body)


@pytest.fixture(scope="module")
def alertmanager(server_venv: ServerVenv, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Alertmanager]:
    root = installed("alertmanager", "alertmanager", "openapi.json", "tmpl/default.tmpl")
    workdir = tmp_path_factory.mktemp("alertmanager")
    shutil.copytree(root / "tmpl", workdir / "tmpl")  # (the binary reads them from ./tmpl)
    (workdir / "alertmanager.yml").write_text(CONFIG, "utf-8")

    def argv(port: int) -> list[str]:
        return [
            str(root / "alertmanager"),
            "--config.file=alertmanager.yml",
            "--storage.path=data",
            f"--web.listen-address=127.0.0.1:{port}",
            "--cluster.listen-address=",  # no clustering (no gossip port)
        ]

    service = Service("alertmanager", argv, "/-/ready", workdir).start()
    try:
        package = generate_and_install(
            root / "openapi.json",
            tmp_path_factory.mktemp("gen-alertmanager"),
            server_venv,
            "alertmanager-mcp",
        )
        with Alertmanager(service, package, Tools(package), package.env(service.origin)) as alertmanager:
            yield alertmanager
    finally:
        service.stop()


def _time(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def _silence(comment: str, **extra: Any) -> dict[str, Any]:
    return {
        "matchers": MATCHERS,
        "startsAt": _time(timedelta(minutes=-1)),
        "endsAt": _time(timedelta(hours=1)),
        "createdBy": "openapi2mcp tests",
        "comment": comment,
        **extra,
    }


def test_every_read_only_tool_answers_with_the_services_state(alertmanager: Alertmanager) -> None:
    """An alert posted through its tool, a silence made over plain HTTP; each GET tool agrees."""
    status, made = alertmanager.api(
        "POST", "/silences", _silence("read-only", matchers=[MATCHERS[0] | {"value": "Quiet"}])
    )
    assert status == 200, made
    alert = {"labels": {"alertname": "DiskFull", "severity": "page"}, "annotations": {"summary": "disk"}}

    async def body(mcp: Caller) -> None:
        await mcp.ok("POST", "/alerts", body=[alert])
        alerts = await mcp.ok("GET", "/alerts", filter=["alertname=DiskFull"])
        assert [a["labels"] for a in alerts] == [alert["labels"]]
        assert alerts == alertmanager.api("GET", "/alerts?filter=alertname%3DDiskFull")[1]
        assert [r["name"] for r in alerts[0]["receivers"]] == ["team-x"]
        groups = await mcp.ok("GET", "/alerts/groups", receiver="team-x")
        assert [(g["labels"], len(g["alerts"])) for g in groups] == [({"alertname": "DiskFull"}, 1)]
        receivers = await mcp.ok("GET", "/receivers")
        assert sorted(r["name"] for r in receivers) == ["team-x", "team-y"]
        got = await mcp.ok("GET", "/silence/{silenceID}", silenceID=made["silenceID"])
        assert got == alertmanager.api("GET", f"/silence/{made['silenceID']}")[1]
        assert (got["comment"], got["status"]["state"]) == ("read-only", "active")
        silences = await mcp.ok("GET", "/silences", filter=["alertname=Quiet"])
        assert [s["id"] for s in silences] == [made["silenceID"]]
        status = await mcp.ok("GET", "/status")
        assert status["cluster"]["status"] == "disabled"
        assert status["config"]["original"] == alertmanager.api("GET", "/status")[1]["config"]["original"]

    alertmanager.tools.called.clear()  # (what other tests of this worker called does not count)
    alertmanager.run(body)
    assert uncalled(alertmanager.tools) == []


@OVER_STDIO_AND_HTTP
@pytest.mark.representative(transport="stdio")  # (CI's second pass: tests/conftest.py)
def test_silence_round_trip(alertmanager: Alertmanager, transport: str) -> None:
    """Create a silence, read it, update its comment and end (re-posted with its id), expire it."""
    first, ends = _silence("first"), _time(timedelta(hours=2))

    async def body(mcp: Caller) -> None:
        made = await mcp.ok("POST", "/silences", **first)
        silence_id = made["silenceID"]
        status, stored = alertmanager.api("GET", f"/silence/{silence_id}")
        assert (status, stored["comment"], stored["matchers"]) == (
            200,
            "first",
            [MATCHERS[0] | {"isEqual": True}],
        )
        got = await mcp.ok("GET", "/silence/{silenceID}", silenceID=silence_id)
        assert got["comment"] == "first"
        # An update keeps the start the service stored (it moved a past one to the creation time).
        second = first | {"id": silence_id, "comment": "second", "endsAt": ends, "startsAt": got["startsAt"]}
        updated = await mcp.ok("POST", "/silences", **second)
        assert updated == {"silenceID": silence_id}  # (an active silence keeps its id)
        stored = alertmanager.api("GET", f"/silence/{silence_id}")[1]
        assert (stored["comment"], stored["endsAt"], stored["status"]["state"]) == (
            "second",
            second["endsAt"],
            "active",
        )
        await mcp.ok("DELETE", "/silence/{silenceID}", silenceID=silence_id)
        assert alertmanager.api("GET", f"/silence/{silence_id}")[1]["status"]["state"] == "expired"

    alertmanager.run(body, transport)


@OVER_STDIO_AND_HTTP
@pytest.mark.representative(transport="http")
def test_errors_carry_the_services_message(alertmanager: Alertmanager, transport: str) -> None:
    """400 for a silence ending before it starts, for a start that is no date-time (go-swagger's
    check) and for a filter that is no regex, 404 for an unknown silence, 500 for expiring one:
    isError, with the body plain HTTP gets."""
    backwards = _silence("backwards", startsAt=_time(timedelta(hours=1)), endsAt=_time(timedelta(hours=-1)))
    undated = _silence("undated", startsAt="yesterday")  # (formats are not checked before sending)
    unknown = str(uuid.uuid4())
    expected = {
        "backwards": alertmanager.api("POST", "/silences", backwards),
        "undated": alertmanager.api("POST", "/silences", undated),
        "regex": alertmanager.api("GET", "/alerts?filter=alertname%3D~%5B"),
        "get": alertmanager.api("GET", f"/silence/{unknown}"),
        "delete": alertmanager.api("DELETE", f"/silence/{unknown}"),
    }
    assert expected == {
        "backwards": (400, b'"Failed to create silence: start time must be before end time"\n'),
        "undated": (400, expected["undated"][1]),
        "regex": (400, b'"error parsing regexp: missing closing ]: `[)$`"\n'),
        "get": (404, b""),
        "delete": (500, b'"silence not found"\n'),
    }

    assert b'parsing time \\"yesterday\\"' in expected["undated"][1]  # (go-swagger's own check)

    async def body(mcp: Caller) -> None:
        text = await mcp.error("POST", "/silences", 400, **backwards)
        assert "start time must be before end time" in text
        text = await mcp.error("POST", "/silences", 400, **undated)
        assert expected["undated"][1].decode().strip() in text
        text = await mcp.error("GET", "/alerts", 400, filter=["alertname=~["])
        assert "error parsing regexp: missing closing ]" in text
        text = await mcp.error("GET", "/silence/{silenceID}", 404, silenceID=unknown)
        assert "(empty response body)" in text
        text = await mcp.error("DELETE", "/silence/{silenceID}", 500, silenceID=unknown)
        assert '"silence not found"' in text

    alertmanager.run(body, transport)
    assert "backwards" not in [s["comment"] for s in alertmanager.api("GET", "/silences")[1]]
