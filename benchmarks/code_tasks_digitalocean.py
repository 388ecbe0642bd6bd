"""The code-mode benchmark's tasks over DigitalOcean (code_fake_digitalocean.py): listing and
aggregating, filtering, joining two endpoints, acting on each match. Each is written twice with the
same API calls (code_tasks.py says how). The lists page as an agent would: droplets 50 a page (a
droplet is about 1,800 characters, so a page is about 91,000, under the server's 100,000-character
MAX_RESULT_CHARS; 60 would be trimmed), volumes and snapshots 200 (the most the API gives), each
list read until its `links.pages` has no `next`. The tagging program passes `resources` inline: a
list of dicts assigned to a variable first is `list[dict[str, str]]`, which the sandbox's type checker
refuses where the stub says `list[TagsAssignResourcesResourcesItem]`."""

from __future__ import annotations

from typing import Any

from .code_agent import Agent
from .code_tasks import Task

DROPLETS_PER_PAGE, PER_PAGE = 50, 200
BEFORE = "2024-01-01"  # "older than": created before this day


async def _all(agent: Agent, tool: str, key: str, per_page: int, **filters: str) -> list[dict[str, Any]]:
    """Every page of a list: page 1, 2... until `links.pages` has no `next`."""
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        answer = await agent.call_tool(tool, {**filters, "per_page": per_page, "page": page})
        items += answer[key]
        if "next" not in answer["links"]["pages"]:
            return items
        page += 1


async def _droplets(agent: Agent, **filters: str) -> list[dict[str, Any]]:
    return await _all(agent, "droplets_list", "droplets", DROPLETS_PER_PAGE, **filters)


# The programs' paging loop, as an agent writes it (the same calls as `_all`).
PAGES = """
def all_pages(list_page, key, per_page, **filters):
    items, page = [], 1
    while True:
        answer = list_page(per_page=per_page, page=page, **filters)
        items += answer[key]
        if "next" not in answer["links"]["pages"]:
            return items
        page += 1
"""


async def cost_per_region(agent: Agent) -> Any:
    cost: dict[str, list[Any]] = {}
    for droplet in await _droplets(agent):
        if droplet["status"] == "active":
            count, dollars = cost.get(droplet["region"]["slug"], [0, 0.0])
            cost[droplet["region"]["slug"]] = [count + 1, dollars + droplet["size"]["price_monthly"]]
    return {region: [count, round(dollars, 2)] for region, (count, dollars) in sorted(cost.items())}


COST_PER_REGION = f"""import api
{PAGES}
cost = {{}}
for droplet in all_pages(api.droplets_list, "droplets", 50):
    if droplet["status"] == "active":
        count, dollars = cost.get(droplet["region"]["slug"], [0, 0.0])
        cost[droplet["region"]["slug"]] = [count + 1, dollars + droplet["size"]["price_monthly"]]
{{region: [count, round(dollars, 2)] for region, (count, dollars) in sorted(cost.items())}}
"""


async def power_off_stale_staging(agent: Agent) -> Any:
    stopped = []
    for droplet in await _droplets(agent, tag_name="env:stage"):
        if droplet["status"] == "active" and droplet["created_at"] < BEFORE:
            await agent.call_tool(
                "dropletActions_post", {"droplet_id": droplet["id"], "body": {"type": "power_off"}}
            )
            stopped.append(droplet["name"])
    return sorted(stopped)


POWER_OFF_STALE_STAGING = f"""import api
{PAGES}
stopped = []
for droplet in all_pages(api.droplets_list, "droplets", 50, tag_name="env:stage"):
    if droplet["status"] == "active" and droplet["created_at"] < "2024-01-01":
        api.dropletActions_post(droplet_id=droplet["id"], body={{"type": "power_off"}})
        stopped.append(droplet["name"])
sorted(stopped)
"""


async def volumes_of_stopped_droplets(agent: Agent) -> Any:
    volumes = await _all(agent, "volumes_list", "volumes", PER_PAGE)
    off = {droplet["id"]: droplet["name"] for droplet in await _droplets(agent) if droplet["status"] == "off"}
    found = sorted(
        [volume["name"], off[held_by], volume["size_gigabytes"]]
        for volume in volumes
        for held_by in volume["droplet_ids"]
        if held_by in off
    )
    return [sum(gigabytes for _, _, gigabytes in found), found]


VOLUMES_OF_STOPPED_DROPLETS = f"""import api
{PAGES}
volumes = all_pages(api.volumes_list, "volumes", 200)
off = {{d["id"]: d["name"] for d in all_pages(api.droplets_list, "droplets", 50) if d["status"] == "off"}}
found = sorted([v["name"], off[held_by], v["size_gigabytes"]]
               for v in volumes for held_by in v["droplet_ids"] if held_by in off)
[sum(gigabytes for _, _, gigabytes in found), found]
"""


async def delete_orphan_snapshots(agent: Agent) -> Any:
    snapshots = await _all(agent, "snapshots_list", "snapshots", PER_PAGE, resource_type="droplet")
    alive = {str(droplet["id"]) for droplet in await _droplets(agent)}
    deleted = []
    for snapshot in snapshots:
        if snapshot["resource_id"] not in alive:
            await agent.call_tool("snapshots_delete", {"snapshot_id": snapshot["id"]})
            deleted.append([snapshot["name"], snapshot["size_gigabytes"]])
    return [len(deleted), round(sum(gigabytes for _, gigabytes in deleted), 2), sorted(deleted)]


DELETE_ORPHAN_SNAPSHOTS = f"""import api
{PAGES}
snapshots = all_pages(api.snapshots_list, "snapshots", 200, resource_type="droplet")
alive = {{str(d["id"]) for d in all_pages(api.droplets_list, "droplets", 50)}}
deleted = []
for snapshot in snapshots:
    if snapshot["resource_id"] not in alive:
        api.snapshots_delete(snapshot_id=snapshot["id"])
        deleted.append([snapshot["name"], snapshot["size_gigabytes"]])
[len(deleted), round(sum(gigabytes for _, gigabytes in deleted), 2), sorted(deleted)]
"""


async def tag_costly_frankfurt(agent: Agent) -> Any:
    costly = [
        droplet
        for droplet in await _droplets(agent)
        if droplet["region"]["slug"] == "fra1" and droplet["size"]["price_monthly"] >= 40
    ]
    await agent.call_tool("tags_create", {"name": "cost-review"})
    resources = [{"resource_id": str(droplet["id"]), "resource_type": "droplet"} for droplet in costly]
    await agent.call_tool("tags_assign_resources", {"tag_id": "cost-review", "resources": resources})
    return [sorted(droplet["name"] for droplet in costly), sum(d["size"]["price_monthly"] for d in costly)]


TAG_COSTLY_FRANKFURT = f"""import api
{PAGES}
costly = [d for d in all_pages(api.droplets_list, "droplets", 50)
          if d["region"]["slug"] == "fra1" and d["size"]["price_monthly"] >= 40]
api.tags_create(name="cost-review")
api.tags_assign_resources(
    tag_id="cost-review",
    resources=[{{"resource_id": str(d["id"]), "resource_type": "droplet"}} for d in costly],
)
[sorted(d["name"] for d in costly), sum(d["size"]["price_monthly"] for d in costly)]
"""


async def delete_old_unattached_volumes(agent: Agent) -> Any:
    deleted = []
    for volume in await _all(agent, "volumes_list", "volumes", PER_PAGE):
        if not volume["droplet_ids"] and volume["created_at"] < BEFORE:
            await agent.call_tool("volumes_delete", {"volume_id": volume["id"]})
            deleted.append(volume["size_gigabytes"])
    return [len(deleted), sum(deleted)]


DELETE_OLD_UNATTACHED_VOLUMES = f"""import api
{PAGES}
deleted = []
for volume in all_pages(api.volumes_list, "volumes", 200):
    if not volume["droplet_ids"] and volume["created_at"] < "2024-01-01":
        api.volumes_delete(volume_id=volume["id"])
        deleted.append(volume["size_gigabytes"])
[len(deleted), sum(deleted)]
"""

LIST = "list all droplets"
DIGITALOCEAN_TASKS = [
    Task("digitalocean: monthly cost of active droplets per region", "digitalocean",
         "What do the active droplets cost a month in each region (and how many are there)?",
         (LIST,), ("droplets_list",), cost_per_region, COST_PER_REGION),
    Task("digitalocean: power off stale staging droplets", "digitalocean",
         "Power off every active droplet tagged env:stage that was created before 2024",
         (LIST, "power off a droplet"), ("droplets_list", "dropletActions_post"),
         power_off_stale_staging, POWER_OFF_STALE_STAGING),
    Task("digitalocean: volumes of powered-off droplets", "digitalocean",
         "Which volumes are attached to droplets that are off, and how many GB is that?",
         ("list block storage volumes", LIST), ("volumes_list", "droplets_list"),
         volumes_of_stopped_droplets, VOLUMES_OF_STOPPED_DROPLETS),
    Task("digitalocean: delete snapshots of deleted droplets", "digitalocean",
         "Delete every droplet snapshot whose droplet no longer exists",
         ("list snapshots", LIST, "delete a snapshot"),
         ("snapshots_list", "droplets_list", "snapshots_delete"),
         delete_orphan_snapshots, DELETE_ORPHAN_SNAPSHOTS),
    Task("digitalocean: tag costly fra1 droplets for review", "digitalocean",
         "Tag every fra1 droplet costing $40 a month or more with a new tag, cost-review",
         (LIST, "create a tag", "tag resources"), ("droplets_list", "tags_create", "tags_assign_resources"),
         tag_costly_frankfurt, TAG_COSTLY_FRANKFURT),
    Task("digitalocean: delete old unattached volumes", "digitalocean",
         "Delete every volume attached to no droplet that was created before 2024",
         ("list block storage volumes", "delete a volume"), ("volumes_list", "volumes_delete"),
         delete_old_unattached_volumes, DELETE_OLD_UNATTACHED_VOLUMES),
]  # fmt: skip
