"""The code-mode benchmark's tasks on PagerDuty (the corpus' pagerduty.json, served by
code_fake_pagerduty.py), written twice as in code_tasks.py. The lists page as PagerDuty's do, 25
incidents a page (its default limit): a page of 25 incidents is about 60,000 characters, where 50
would pass the server's MAX_RESULT_CHARS (100,000) and be trimmed. The spec gives `statuses[]` and
`urgencies[]` one value each (its schemas say string), so two statuses take two listings. The clock
is the fake's NOW, 30 June 2025 12:00 UTC; the writes are made as Earline Greenholt (`From`)."""

from __future__ import annotations

from typing import Any

from .code_agent import Agent
from .code_tasks import Task

PAGE = 25
ME = "125.greenholt.earline@graham.name"
MONTH_AGO, THREE_DAYS_AGO, WEEK_AGO = "2025-05-31T12:00:00Z", "2025-06-27T12:00:00Z", "2025-06-23T12:00:00Z"
RESOLUTION = "Stale low-urgency alert, closed in the weekly clean-up"
HANDOVER = "Kyler is off shift; Earline Greenholt takes over."

# The programs' paging helper: the same calls as _incidents below.
PAGING = f"""import api
def incidents(**filters):
    found, offset = [], 0
    while True:
        page = api.listIncidents(limit={PAGE}, offset=offset, **filters)
        found += page["incidents"]
        if not page["more"]:
            return found
        offset += {PAGE}
"""


async def _incidents(agent: Agent, **filters: Any) -> list[dict[str, Any]]:
    """Every incident matching `filters`, a page at a time until `more` is false."""
    found: list[dict[str, Any]] = []
    offset = 0
    while True:
        page = await agent.call_tool("listIncidents", {"limit": PAGE, "offset": offset, **filters})
        found += page["incidents"]
        if not page["more"]:
            return found
        offset += PAGE


async def open_by_service(agent: Agent) -> Any:
    counts: dict[str, dict[str, int]] = {}
    for status in ("triggered", "acknowledged"):
        for incident in await _incidents(agent, statuses__=status):
            by_urgency = counts.setdefault(incident["service"]["summary"], {"high": 0, "low": 0})
            by_urgency[incident["urgency"]] += 1
    return counts


OPEN_BY_SERVICE = (
    PAGING
    + """counts = {}
for status in ["triggered", "acknowledged"]:
    for incident in incidents(statuses__=status):
        by_urgency = counts.setdefault(incident["service"]["summary"], {"high": 0, "low": 0})
        by_urgency[incident["urgency"]] += 1
counts
"""
)


async def unassigned_high(agent: Agent) -> Any:
    old = await _incidents(
        agent, statuses__="triggered", urgencies__="high", since=MONTH_AGO, until=THREE_DAYS_AGO
    )
    return [
        [
            incident["incident_number"],
            incident["service"]["summary"],
            incident["title"],
            incident["created_at"],
        ]
        for incident in old
        if not incident["assignments"]
    ]


UNASSIGNED_HIGH = (
    PAGING
    + """old = incidents(statuses__="triggered", urgencies__="high", since="2025-05-31T12:00:00Z",
                until="2025-06-27T12:00:00Z")
[[i["incident_number"], i["service"]["summary"], i["title"], i["created_at"]]
 for i in old if not i["assignments"]]
"""
)


async def payments_open(agent: Agent) -> Any:
    services = (await agent.call_tool("listServices", {"limit": PAGE, "offset": 0}))["services"]
    names = {s["id"]: s["name"] for s in services if "Payments" in [team["summary"] for team in s["teams"]]}
    found = []
    for status in ("triggered", "acknowledged"):
        for incident in await _incidents(agent, service_ids__=sorted(names), statuses__=status):
            found.append([incident["incident_number"], names[incident["service"]["id"]], status])
    return sorted(found)


PAYMENTS_OPEN = (
    PAGING
    + """from typing import Any
services: Any = api.listServices(limit=25, offset=0)["services"]  # the stub's teams lack summary
names = {s["id"]: s["name"] for s in services if "Payments" in [t["summary"] for t in s["teams"]]}
found = []
for status in ["triggered", "acknowledged"]:
    for incident in incidents(service_ids__=sorted(names), statuses__=status):
        found.append([incident["incident_number"], names[incident["service"]["id"]], status])
sorted(found)
"""
)


async def latest_notes(agent: Agent) -> Any:
    latest = []
    for incident in await _incidents(agent, statuses__="acknowledged", urgencies__="high"):
        notes = (await agent.call_tool("listIncidentNotes", {"id": incident["id"]}))["notes"]
        last = max(notes, key=lambda note: note["created_at"]) if notes else None
        latest.append(
            [incident["incident_number"], last and last["user"]["summary"], last and last["content"]]
        )
    return latest


LATEST_NOTES = (
    PAGING
    + """latest = []
for incident in incidents(statuses__="acknowledged", urgencies__="high"):
    notes = api.listIncidentNotes(id=incident["id"])["notes"]
    last = max(notes, key=lambda note: note["created_at"]) if notes else None
    latest.append([incident["incident_number"], last and last["user"]["summary"], last and last["content"]])
latest
"""
)


async def resolve_stale_low(agent: Agent) -> Any:
    stale = await _incidents(
        agent, statuses__="triggered", urgencies__="low", since=MONTH_AGO, until=WEEK_AGO
    )
    resolved = []
    for incident in stale:
        change = {"type": "incident_reference", "status": "resolved", "resolution": RESOLUTION}
        updated = await agent.call_tool(
            "updateIncident", {"id": incident["id"], "From": ME, "incident": change}
        )
        resolved.append([updated["incident"]["incident_number"], updated["incident"]["status"]])
    return resolved


RESOLVE_STALE_LOW = (
    PAGING
    + """resolved = []
for incident in incidents(statuses__="triggered", urgencies__="low", since="2025-05-31T12:00:00Z",
                          until="2025-06-23T12:00:00Z"):
    updated = api.updateIncident(id=incident["id"], From="125.greenholt.earline@graham.name", incident={
        "type": "incident_reference", "status": "resolved",
        "resolution": "Stale low-urgency alert, closed in the weekly clean-up"})
    resolved.append([updated["incident"]["incident_number"], updated["incident"]["status"]])
resolved
"""
)


async def hand_over(agent: Agent) -> Any:
    users = (await agent.call_tool("listUsers", {"query": "Kyler Kuhn"}))["users"]
    noted = []
    for incident in await _incidents(agent, user_ids__=[users[0]["id"]]):
        note = {"content": HANDOVER}
        await agent.call_tool("createIncidentNote", {"id": incident["id"], "From": ME, "note": note})
        noted.append(incident["incident_number"])
    return noted


HAND_OVER = (
    PAGING
    + """kyler = api.listUsers(query="Kyler Kuhn")["users"][0]
noted = []
for incident in incidents(user_ids__=[kyler["id"]]):
    api.createIncidentNote(id=incident["id"], From="125.greenholt.earline@graham.name",
                           note={"content": "Kyler is off shift; Earline Greenholt takes over."})
    noted.append(incident["incident_number"])
noted
"""
)

LIST = "list incidents"
PAGERDUTY_TASKS = [
    Task("pagerduty: open incidents per service and urgency", "pagerduty",
         "How many open (triggered or acknowledged) incidents does each service have, by urgency?",
         (LIST,), ("listIncidents",), open_by_service, OPEN_BY_SERVICE),
    Task("pagerduty: unassigned high-urgency incidents > 3 days", "pagerduty",
         "Which triggered high-urgency incidents of the last month, older than 3 days, has nobody assigned?",
         (LIST,), ("listIncidents",), unassigned_high, UNASSIGNED_HIGH),
    Task("pagerduty: open incidents of the Payments team", "pagerduty",
         "List the open incidents on the services the Payments team owns, with service and status",
         ("list services", LIST), ("listServices", "listIncidents"), payments_open, PAYMENTS_OPEN),
    Task("pagerduty: latest note of acknowledged high incidents", "pagerduty",
         "For each acknowledged high-urgency incident, who wrote its latest note and what does it say?",
         (LIST, "list the notes of an incident"), ("listIncidents", "listIncidentNotes"),
         latest_notes, LATEST_NOTES),
    Task("pagerduty: resolve stale low-urgency incidents", "pagerduty",
         "Resolve every triggered low-urgency incident older than a week, saying it is a stale alert",
         (LIST, "resolve an incident"), ("listIncidents", "updateIncident"),
         resolve_stale_low, RESOLVE_STALE_LOW),
    Task("pagerduty: hand over Kyler's incidents", "pagerduty",
         "Kyler Kuhn is off shift: add a hand-over note to every incident assigned to him",
         ("find a user by name", LIST, "add a note to an incident"),
         ("listUsers", "listIncidents", "createIncidentNote"), hand_over, HAND_OVER),
]  # fmt: skip
