"""An upstream that runs long operations (issue 30), on the recording upstream: a report API of
our own (POST /reports starts a job at /reports/jobs/{id}, which a GET polls and a POST .../cancel
cancels) and the part of AutoRest's LRO test server that the corpus's azure-lro.json describes
(Azure-AsyncOperation, Location, provisioningState, final-state-via). Every status answer says
`Retry-After: 0`, so a poll waits the runtime's least (0.05 s). Thread-safe; GET
/reports/jobs/{id} is also how a test reads a job's state."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field, replace
from typing import Any

from recording_upstream import Recorded, RecordingUpstream, Reply

NOW = (("Retry-After", "0"),)
JSON = (("Content-Type", "application/json"),)
RESOURCE = {"id": "100", "name": "foo"}


@dataclass
class Job:
    job_id: str
    rows: int
    polls_left: int  # -1: it never ends
    fail: bool
    status: str = "running"
    slow: float = 0.0  # seconds before each status answer


def reply(status: int, body: Any = None, *headers: tuple[str, str]) -> Reply:
    data = b"" if body is None else json.dumps(body).encode()
    return Reply(status, data, (*JSON, *NOW, *headers))


@dataclass
class LroService:
    """The responder of every path (`upstream()` makes the recording upstream around it)."""

    jobs: dict[str, Job] = field(default_factory=dict)
    polls: dict[str, int] = field(default_factory=dict)  # Azure operations: polls so far, by path
    lock: threading.Lock = field(default_factory=threading.Lock)

    def upstream(self) -> RecordingUpstream:
        return RecordingUpstream(routes={"/": self.answer})

    def answer(self, request: Recorded) -> Reply:
        with self.lock:
            if request.path.startswith("/reports"):
                return self._reports(request)
            return self._azure(request.method, request.path)

    # ---- the report API ------------------------------------------------------------------------

    def _reports(self, request: Recorded) -> Reply:
        parts = request.path.strip("/").split("/")  # reports, jobs, ID, cancel
        if request.method == "POST" and parts == ["reports"]:
            asked = json.loads(request.body or b"{}")
            job = Job(
                f"j{len(self.jobs) + 1}",
                int(asked.get("rows", 1)),
                int(asked.get("polls", 2)),
                bool(asked.get("fail")),
                slow=float(asked.get("slow", 0)),
            )
            self.jobs[job.job_id] = job
            return reply(
                202, {"id": job.job_id, "status": "queued"}, ("Location", f"/reports/jobs/{job.job_id}")
            )
        job = self.jobs.get(parts[2]) if len(parts) >= 3 and parts[1] == "jobs" else None
        if job is None:
            return reply(404, {"error": "no such job"})
        if request.method == "POST" and parts[3:] == ["cancel"]:
            if job.status == "running":
                job.status = "cancelled"
            return reply(202, {"id": job.job_id, "status": job.status})
        if request.method == "GET" and len(parts) == 3:
            return replace(reply(200, self._polled(job)), delay=job.slow)
        return reply(405, {"error": "method not allowed"})

    @staticmethod
    def _polled(job: Job) -> dict[str, Any]:
        if job.status == "running" and job.polls_left > 0:
            job.polls_left -= 1
            if job.polls_left == 0:
                job.status = "failed" if job.fail else "succeeded"
        state: dict[str, Any] = {"id": job.job_id, "status": job.status}
        if job.status == "running":
            state["percentComplete"] = 50
        if job.status == "succeeded":
            state["report"] = {"rows": job.rows}
        if job.status == "failed":
            state["error"] = {"code": "ReportFailed", "message": "the report could not be made"}
        return state

    # ---- AutoRest's LRO test server, in part -----------------------------------------------------

    def _azure(self, method: str, path: str) -> Reply:
        if (method, path) in _STARTS:
            return _STARTS[(method, path)]
        if method == "GET" and path in _POLLED:
            seen = self.polls.get(path, 0)
            self.polls[path] = seen + 1
            before, after = _POLLED[path]
            return before if seen == 0 else after
        return reply(404, {"error": f"not served: {method} {path}"})


def _async_start(path: str, status: int, body: Any) -> Reply:
    operation = f"{path}/operationResults/1"
    return reply(status, body, ("Azure-AsyncOperation", operation), ("Location", operation))


_CREATING = {**RESOURCE, "properties": {"provisioningState": "Creating"}}
_SUCCEEDED = {**RESOURCE, "properties": {"provisioningState": "Succeeded"}}
_ACCEPTED = {**RESOURCE, "properties": {"provisioningState": "Accepted"}}
P = "/lro"
_STARTS: dict[tuple[str, str], Reply] = {
    ("PUT", f"{P}/put/201/creating/succeeded/200"): reply(201, _CREATING),
    ("PUT", f"{P}/putasync/retry/succeeded"): _async_start(f"{P}/putasync/retry/succeeded", 200, _ACCEPTED),
    ("PUT", f"{P}/putasync/retry/failed"): _async_start(f"{P}/putasync/retry/failed", 200, _ACCEPTED),
    ("PUT", f"{P}/putasync/noretry/canceled"): _async_start(f"{P}/putasync/noretry/canceled", 200, _ACCEPTED),
    ("POST", f"{P}/post/202/retry/200"): reply(202, None, ("Location", f"{P}/post/newuri/202/retry/200")),
    ("DELETE", f"{P}/delete/202/retry/200"): reply(
        202, None, ("Location", f"{P}/delete/newuri/202/retry/200")
    ),
    ("POST", f"{P}/LROPostDoubleHeadersFinalLocationGet"): reply(
        202,
        None,
        ("Azure-AsyncOperation", f"{P}/LROPostDoubleHeadersFinalLocationGet/asyncOperationUrl"),
        ("Location", f"{P}/LROPostDoubleHeadersFinalLocationGet/location"),
    ),
    ("POST", f"{P}/LROPostDoubleHeadersFinalAzureHeaderGet"): reply(
        202,
        None,
        ("Azure-AsyncOperation", f"{P}/LROPostDoubleHeadersFinalAzureHeaderGet/asyncOperationUrl"),
        ("Location", f"{P}/LROPostDoubleHeadersFinalAzureHeaderGet/location"),
    ),
}
_IN_PROGRESS = reply(200, {"status": "InProgress"})
# a polled path: its first answer, then every later one
_POLLED: dict[str, tuple[Reply, Reply]] = {
    f"{P}/put/201/creating/succeeded/200": (
        reply(200, {**RESOURCE, "properties": {"provisioningState": "Updating"}}),
        reply(200, _SUCCEEDED),
    ),
    f"{P}/putasync/retry/succeeded/operationResults/1": (_IN_PROGRESS, reply(200, {"status": "Succeeded"})),
    f"{P}/putasync/retry/succeeded": (reply(200, _SUCCEEDED), reply(200, _SUCCEEDED)),
    f"{P}/putasync/retry/failed/operationResults/1": (
        _IN_PROGRESS,
        reply(200, {"status": "Failed", "error": {"code": "Conflict"}}),
    ),
    f"{P}/putasync/noretry/canceled/operationResults/1": (_IN_PROGRESS, reply(200, {"status": "Canceled"})),
    f"{P}/post/newuri/202/retry/200": (reply(202, None), reply(200, RESOURCE)),
    f"{P}/delete/newuri/202/retry/200": (reply(202, None), reply(200, _SUCCEEDED)),
    f"{P}/LROPostDoubleHeadersFinalLocationGet/asyncOperationUrl": (
        _IN_PROGRESS,
        reply(200, {"status": "succeeded"}),
    ),
    f"{P}/LROPostDoubleHeadersFinalLocationGet/location": (reply(200, RESOURCE), reply(200, RESOURCE)),
    f"{P}/LROPostDoubleHeadersFinalAzureHeaderGet/asyncOperationUrl": (
        _IN_PROGRESS,
        reply(200, {"status": "succeeded", "result": "from the operation"}),
    ),
    f"{P}/LROPostDoubleHeadersFinalAzureHeaderGet/location": (reply(200, RESOURCE), reply(200, RESOURCE)),
}
