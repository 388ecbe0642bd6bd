"""A fake of PagerDuty's REST API v2 (the corpus' pagerduty.json, OAS 3.0.2) for the code-mode
benchmark. Its records are the spec's own response examples (an incident of GET /incidents, the
service of GET /services, the users of GET /users, the notes of GET /incidents/{id}/notes), read
from the spec at start and varied with a fixed seed: ids, numbers, titles, dates, status, urgency,
service, team, escalation policy, priority, assignments, acknowledgements. Every other field of the
example is kept, so an object is the size of PagerDuty's own: 200 incidents on 10 services, 6
users, notes on about half the incidents. The clock is fixed at NOW (30 June 2025, 12:00 UTC).

Lists page as the spec says: `limit` (default 25, at most 100) and `offset`, answering `limit`,
`offset`, `more` and `total` (null unless `total=true`). GET /incidents filters on `statuses[]`,
`urgencies[]`, `service_ids[]`, `team_ids[]`, `user_ids[]` (the assignees), `incident_key` and
`since`/`until` (default: the month to NOW; `date_range=all` drops it), repeated parameters as the
spec's `explode: true` says. PUT /incidents/{id} and POST /incidents/{id}/notes want the `From`
header of a known user's email, as the spec says, and answer the updated incident or the new note."""

from __future__ import annotations

import copy
import functools
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .code_fake_http import FakeService, Handler, Reply, Request

SPEC = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "specs" / "pagerduty.json"
NOW = datetime(2025, 6, 30, 12, 0, tzinfo=UTC)
DEFAULT_LIMIT, MAX_LIMIT = 25, 100
INCIDENTS, FIRST_NUMBER = 200, 4101
STATUSES, URGENCIES = ("triggered", "acknowledged", "resolved"), ("high", "low")
TEAMS = {"PQ9K7I8": "Engineering", "PT4M2QZ": "Payments", "PB7C1XR": "Platform", "PM3J8DW": "Mobile"}
POLICIES = {"PT20YPA": "Another Escalation Policy", "PE5Q1LM": "Payments On-Call",
            "PE8R4TN": "Platform Primary", "PE2K9VB": "Mobile Escalation"}  # fmt: skip
SERVICES = (  # name, team id, escalation policy id
    ("Checkout API", "PT4M2QZ", "PE5Q1LM"), ("Payments Gateway", "PT4M2QZ", "PE5Q1LM"),
    ("Billing Worker", "PT4M2QZ", "PE5Q1LM"), ("Search Service", "PQ9K7I8", "PT20YPA"),
    ("My Mail Service", "PQ9K7I8", "PT20YPA"), ("Web Frontend", "PQ9K7I8", "PT20YPA"),
    ("Kubernetes Cluster", "PB7C1XR", "PE8R4TN"), ("Postgres Primary", "PB7C1XR", "PE8R4TN"),
    ("Mobile Backend", "PM3J8DW", "PE2K9VB"), ("Push Notifications", "PM3J8DW", "PE2K9VB"),
)  # fmt: skip
USERS = (  # name, job title, time zone, team id (the first two are the example's)
    ("Earline Greenholt", "Director of Engineering", "America/Lima", "PQ9K7I8"),
    ("Kyler Kuhn", "Senior Engineer", "Asia/Hong_Kong", "PQ9K7I8"),
    ("Mara Okafor", "Payments SRE", "Europe/London", "PT4M2QZ"),
    ("Tomasz Wilk", "Platform Engineer", "Europe/Warsaw", "PB7C1XR"),
    ("Priya Raman", "Staff Engineer", "Asia/Kolkata", "PB7C1XR"),
    ("Diego Salas", "Mobile Engineer", "America/Mexico_City", "PM3J8DW"),
)
TITLES = (
    "The server is on fire.", "5xx rate above 2% for 5 minutes", "p99 latency above 1.5 s",
    "Disk usage above 90% on a data volume", "Memory usage above 95%", "Health check failing",
    "Queue depth above 10,000 messages", "TLS certificate expires in 7 days", "Replication lag above 30 s",
    "Error budget burn rate above 10x", "Pod crash-looping", "Synthetic check failed from 3 regions",
)  # fmt: skip
NOTES = (
    "Firefighters are on the scene.", "Initial alert information indicates a 1-alarm fire",
    "Rolled back the last deploy; watching the error rate.", "Paged the database on-call.",
    "Looks like a noisy neighbour on the node; cordoned it.", "Customer impact confirmed on the status page.",
    "Waiting on the vendor's support ticket.", "Mitigated by scaling out to 12 replicas.",
)  # fmt: skip
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def pd_id(rng: random.Random, first: str = "P", length: int = 7) -> str:
    return first + "".join(rng.choices(ALNUM, k=length - 1))


def ref(
    template: dict[str, Any], id_: str, summary: str, parent: tuple[str, str] = ("", "")
) -> dict[str, Any]:
    """A copy of the example's reference, naming `id_` and `summary`; in its links, `id_` and the
    `parent` object's new id (its second) replace the example's (its first)."""
    found = copy.deepcopy(template)
    for key in ("self", "html_url"):
        if isinstance(found.get(key), str):
            found[key] = found[key].replace(template["id"], id_).replace(*parent)
    found.update(id=id_, summary=summary)
    return found


@functools.cache
def examples() -> dict[str, Any]:
    """The spec's response examples the records are made from."""
    paths = json.loads(SPEC.read_text("utf-8"))["paths"]

    def value(path: str, method: str) -> Any:
        content = paths[path][method]["responses"]["200"]["content"]["application/json"]
        return content["examples"]["response"]["value"]

    update = value("/incidents/{id}", "put")["incident"]
    return {
        "incident": value("/incidents", "get")["incidents"][0],
        "assignment": update["assignments"][0],
        "acknowledgement": update["acknowledgements"][0],
        "service": value("/services", "get")["services"][0],
        "users": value("/users", "get")["users"],
        "notes": value("/incidents/{id}/notes", "get")["notes"],
    }


def _users(rng: random.Random, example: dict[str, Any]) -> list[dict[str, Any]]:
    templates, team = example["users"], example["incident"]["teams"][0]
    users = []
    for index, (name, job, zone, team_id) in enumerate(USERS):
        user = copy.deepcopy(templates[index % 2])
        user_id = user["id"] if index < 2 else pd_id(rng)
        first, last = name.lower().split()
        user.update(ref(user, user_id, name), name=name, job_title=job, time_zone=zone)
        if index >= 2:
            user.update(email=f"{first}.{last}@example.com", role=rng.choice(("user", "limited_user")))
            user["description"] = f"{job}, {TEAMS[team_id]}"
        for key in ("contact_methods", "notification_rules"):
            user[key] = [ref(item, pd_id(rng), item["summary"]) for item in user[key]]
            for item in user[key]:
                item["self"] = f"{user['self']}/{key}/{item['id']}"
        user["teams"] = [ref(team, team_id, TEAMS[team_id])]
        users.append(user)
    return users


def _services(rng: random.Random, example: dict[str, Any]) -> list[dict[str, Any]]:
    template, incident = example["service"], example["incident"]
    services = []
    for index, (name, team_id, policy_id) in enumerate(SERVICES):
        service = copy.deepcopy(template)
        service_id = template["id"] if index == 0 else pd_id(rng)
        service.update(ref(template, service_id, name), name=name)
        created = datetime(2023, 1, 9, 15, tzinfo=UTC) + timedelta(days=47 * index)
        service.update(created_at=stamp(created), auto_resolve_timeout=rng.choice((14400, 86400, None)))
        service["acknowledgement_timeout"] = rng.choice((600, 1800, None))
        service["integrations"] = [
            ref(item, pd_id(rng), item["summary"], (template["id"], service_id))
            for item in template["integrations"]
        ]
        service["escalation_policy"] = ref(template["escalation_policy"], policy_id, POLICIES[policy_id])
        service["teams"] = [ref(incident["teams"][0], team_id, TEAMS[team_id])]
        service["support_hours"]["time_zone"] = rng.choice(("America/Lima", "Europe/Berlin", "UTC"))
        services.append(service)
    return services


def _incident(
    rng: random.Random, number: int, created: datetime, service: dict[str, Any], users: list[dict[str, Any]]
) -> dict[str, Any]:
    example = examples()
    template = example["incident"]
    incident: dict[str, Any] = copy.deepcopy(template)
    incident_id = pd_id(rng)
    status = (
        rng.choices(STATUSES, weights=(3, 2, 5))[0] if created < NOW - timedelta(hours=2) else "triggered"
    )
    title = rng.choice(TITLES)
    incident.update(ref(template, incident_id, f"[#{number}] {title}"), incident_number=number, title=title)
    incident.update(status=status, urgency=rng.choices(URGENCIES, weights=(11, 9))[0])
    incident["incident_key"] = f"{rng.getrandbits(128):032x}"
    incident["service"] = ref(template["service"], service["id"], service["name"])
    incident["escalation_policy"] = copy.deepcopy(service["escalation_policy"])
    incident["teams"] = copy.deepcopy(service["teams"])
    log_id = pd_id(rng, "Q", 14)
    entry = template["first_trigger_log_entry"]
    incident["first_trigger_log_entry"] = ref(entry, log_id, entry["summary"], (template["id"], incident_id))
    alerts = rng.randint(1, 4)
    triggered = 0 if status == "resolved" else alerts
    incident["alert_counts"] = {"all": alerts, "triggered": triggered, "resolved": alerts - triggered}
    incident["alert_grouping"]["started_at"] = stamp(created)
    priority = rng.choice((1, 2, 2, 3, 3, 4, 5, None))
    incident["priority"] = priority and ref(template["priority"], f"P53ZZH{priority}", f"P{priority}")
    owner = rng.choice([user for user in users if user["teams"][0]["id"] == service["teams"][0]["id"]])
    changed, by = created, ref(template["service"], service["id"], service["name"])
    assignments, acknowledgements = [], []
    if status == "acknowledged" or (status == "triggered" and rng.random() < 0.6):
        assignments = [{**example["assignment"], "at": stamp(created + timedelta(minutes=1))}]
        assignments[0]["assignee"] = ref(example["assignment"]["assignee"], owner["id"], owner["name"])
    if status == "acknowledged":
        changed = created + timedelta(minutes=rng.randint(3, 90))
        by = ref(example["acknowledgement"]["acknowledger"], owner["id"], owner["name"])
        acknowledgements = [{"at": stamp(changed), "acknowledger": by}]
    if status == "resolved":
        changed = min(created + timedelta(minutes=rng.randint(12, 60 * 30)), NOW - timedelta(minutes=5))
        by = ref(template["last_status_change_by"], owner["id"], owner["name"])
    incident.update(assignments=assignments, acknowledgements=acknowledgements, last_status_change_by=by)
    incident.update(
        created_at=stamp(created), updated_at=stamp(changed), last_status_change_at=stamp(changed)
    )
    incident["resolved_at"] = stamp(changed) if status == "resolved" else None
    return incident


def _notes(rng: random.Random, incident: dict[str, Any], users: list[dict[str, Any]]) -> list[dict[str, Any]]:
    templates = examples()["notes"]
    notes, at = [], parse_time(incident["created_at"])
    for _ in range(rng.choice((0, 0, 1, 2, 3)) if incident["status"] != "triggered" else 0):
        at = min(at + timedelta(minutes=rng.randint(4, 120)), NOW - timedelta(minutes=1))
        bot = rng.random() < 0.2
        note = copy.deepcopy(templates[1] if bot else templates[0])
        note.update(id=pd_id(rng), content=rng.choice(NOTES), created_at=stamp(at), updated_at=stamp(at))
        if not bot:
            author = rng.choice(users)
            note["user"] = ref(templates[0]["user"], author["id"], author["name"])
        notes.append(note)
    return notes


@functools.cache
def seed() -> dict[str, Any]:
    rng = random.Random(31)
    example = examples()
    users, services = _users(rng, example), _services(rng, example)
    weights = [rng.randint(2, 9) for _ in services]
    starts = sorted(rng.uniform(0, 29.9) for _ in range(INCIDENTS))
    incidents = [
        _incident(rng, FIRST_NUMBER + n, NOW - timedelta(days=30) + timedelta(days=day),
                  rng.choices(services, weights)[0], users)
        for n, day in enumerate(starts)
    ]  # fmt: skip
    notes = {incident["id"]: _notes(rng, incident, users) for incident in incidents}
    return {"users": users, "services": services, "incidents": incidents, "notes": notes}


def error(status: int, message: str, code: int, *details: str) -> Reply:
    return Reply(status, {"error": {"message": message, "code": code, "errors": list(details)}})


def invalid(detail: str) -> Reply:
    return error(400, "Invalid Input Provided", 2001, detail)


class PagerDuty(FakeService):
    def routes(self) -> list[tuple[str, str, Handler]]:
        return [
            ("GET", "/incidents", self.list_incidents),
            ("PUT", "/incidents/{id}", self.update_incident),
            ("GET", "/incidents/{id}/notes", self.list_notes),
            ("POST", "/incidents/{id}/notes", self.create_note),
            ("GET", "/services", self.list_services),
            ("GET", "/users", self.list_users),
        ]

    def reset(self) -> None:
        state = copy.deepcopy(seed())
        self.users: list[dict[str, Any]] = state["users"]
        self.services: list[dict[str, Any]] = state["services"]
        self.incidents: dict[str, dict[str, Any]] = {i["id"]: i for i in state["incidents"]}
        self.notes: dict[str, list[dict[str, Any]]] = state["notes"]
        self.resolutions: dict[str, str] = {}  # the `resolution` given when resolving, by incident
        self.rng = random.Random(32)  # the new notes' ids

    def snapshot(self) -> Any:
        return copy.deepcopy({"incidents": self.incidents, "notes": self.notes, "resolved": self.resolutions})

    def answer(self, method: str, target: str, body: Any, headers: Any) -> Reply:
        if not str(headers.get("Authorization", "")).startswith("Token token="):
            return error(401, "Unauthorized", 2006, "Authorization: Token token=<API_KEY> is missing")
        return super().answer(method, target, body, headers)

    @staticmethod
    def _values(request: Request, name: str, allowed: tuple[str, ...] = ()) -> list[str] | Reply:
        """A repeated (explode: true) query parameter's values, checked against `allowed`."""
        values = request.query.get(name, [])
        wrong = [value for value in values if allowed and value not in allowed]
        return invalid(f"{name} has an invalid value: {wrong[0]}") if wrong else values

    @staticmethod
    def _page(request: Request, key: str, items: list[dict[str, Any]]) -> Reply:
        try:
            limit, offset = int(request.arg("limit") or DEFAULT_LIMIT), int(request.arg("offset") or 0)
        except ValueError:
            return invalid("limit and offset must be integers")
        if limit < 1 or offset < 0:
            return invalid("limit must be positive, offset not negative")
        limit = min(limit, MAX_LIMIT)
        page = items[offset : offset + limit]
        total = len(items) if request.arg("total") == "true" else None
        more = offset + len(page) < len(items)
        return Reply(200, {key: page, "limit": limit, "offset": offset, "more": more, "total": total})

    def list_incidents(self, request: Request) -> Reply:
        filters: dict[str, list[str]] = {}
        for name, allowed in (("statuses[]", STATUSES), ("urgencies[]", URGENCIES), ("service_ids[]", ()),
                              ("team_ids[]", ()), ("user_ids[]", ())):  # fmt: skip
            values = self._values(request, name, allowed)
            if isinstance(values, Reply):
                return values
            filters[name] = values
        try:
            until = parse_time(request.arg("until") or stamp(NOW))
            since = parse_time(request.arg("since") or stamp(until - timedelta(days=30)))
        except ValueError:
            return invalid("since and until must be ISO 8601 times")
        if request.arg("date_range") == "all":
            since, until = datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)
        elif until - since > timedelta(days=183):
            return invalid("the range may not exceed 6 months")
        key = request.arg("incident_key")

        def wanted(incident: dict[str, Any]) -> bool:
            fields = {
                "statuses[]": [incident["status"]],
                "urgencies[]": [incident["urgency"]],
                "service_ids[]": [incident["service"]["id"]],
                "team_ids[]": [team["id"] for team in incident["teams"]],
                "user_ids[]": [a["assignee"]["id"] for a in incident["assignments"]],
            }
            if any(values and not set(values) & set(fields[name]) for name, values in filters.items()):
                return False
            created = parse_time(incident["created_at"])
            return since <= created < until and key in (None, incident["incident_key"])

        return self._page(request, "incidents", [i for i in self.incidents.values() if wanted(i)])

    def _find(self, request: Request, write: bool = False) -> tuple[dict[str, Any], dict[str, Any]] | Reply:
        """The incident the path names and, for a write, the user the `From` header names."""
        found = self.incidents.get(request.params["id"])
        if found is None:
            return error(404, "Not Found", 2100)
        email = next((value for name, value in request.headers.items() if name.lower() == "from"), None)
        user = next((user for user in self.users if user["email"] == email), None)
        if write and user is None:
            return invalid("A valid From header is required")
        return found, user or {}

    def update_incident(self, request: Request) -> Reply:
        if isinstance(target := self._find(request, write=True), Reply):
            return target
        (found, user), at = target, stamp(NOW)
        change = request.body.get("incident") if isinstance(request.body, dict) else None
        if not isinstance(change, dict) or change.get("type") not in ("incident", "incident_reference"):
            return invalid("incident.type is required")
        if change.get("status", "resolved") not in STATUSES or change.get("urgency", "high") not in URGENCIES:
            return invalid("Invalid status or urgency")
        by = ref(examples()["acknowledgement"]["acknowledger"], user["id"], user["name"])
        if (status := change.get("status")) and status != found["status"]:
            found.update(status=status, last_status_change_at=at, last_status_change_by=by)
            if status == "acknowledged":
                found["acknowledgements"].append({"at": at, "acknowledger": by})
            if status == "resolved":
                found.update(resolved_at=at, assignments=[])
                counts = found["alert_counts"]
                found["alert_counts"] = {"all": counts["all"], "triggered": 0, "resolved": counts["all"]}
                if change.get("resolution"):
                    self.resolutions[found["id"]] = change["resolution"]
        for field in ("title", "urgency"):
            found[field] = change.get(field, found[field])
        found.update(summary=f"[#{found['incident_number']}] {found['title']}", updated_at=at)
        return Reply(200, {"incident": found})

    def list_notes(self, request: Request) -> Reply:
        target = self._find(request)
        return target if isinstance(target, Reply) else Reply(200, {"notes": self.notes[target[0]["id"]]})

    def create_note(self, request: Request) -> Reply:
        if isinstance(target := self._find(request, write=True), Reply):
            return target
        (found, user), at = target, stamp(NOW)
        note = request.body.get("note") if isinstance(request.body, dict) else None
        if not isinstance(note, dict) or not isinstance(note.get("content"), str) or not note["content"]:
            return invalid("note.content is required")
        template = examples()["notes"][0]
        created = {**copy.deepcopy(template), "id": pd_id(self.rng), "content": note["content"]}
        created.update(created_at=at, updated_at=at, user=ref(template["user"], user["id"], user["name"]))
        self.notes[found["id"]].append(created)
        return Reply(200, {"note": created})

    def _listing(self, request: Request, key: str, items: list[dict[str, Any]], *fields: str) -> Reply:
        """`items` whose `fields` hold `query` and whose teams meet `team_ids[]`, paged."""
        if isinstance(teams := self._values(request, "team_ids[]"), Reply):
            return teams
        query = (request.arg("query") or "").lower()
        found = [
            item
            for item in items
            if any(query in item[field].lower() for field in fields)
            and (not teams or {team["id"] for team in item["teams"]} & set(teams))
        ]
        return self._page(request, key, found)

    def list_services(self, request: Request) -> Reply:
        name = request.arg("name")
        services = sorted(
            self.services, key=lambda s: s["name"], reverse=request.arg("sort_by") == "name:desc"
        )
        return self._listing(request, "services", [s for s in services if name in (None, s["name"])], "name")

    def list_users(self, request: Request) -> Reply:
        return self._listing(request, "users", self.users, "name", "email")
