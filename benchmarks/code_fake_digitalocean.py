"""A fake of the DigitalOcean API (the corpus' digitalocean/DigitalOcean-public.v2.yaml, OAS 3.0,
multi-file) for the code-mode benchmark. Its records are the spec's own response examples, read from
the corpus at start and varied with a seeded random.Random: 200 droplets (the three of
`droplets_all`, each about 1,800 bytes of compact JSON: image, size, region, networks...), 90 volumes
(`volumes_all`), 70 snapshots (`snapshots_all`; 12 of a droplet that no longer exists), and the tags
they carry. Ids, names, regions, sizes, status, tags, dates and attachments vary; every other field
is the example's. Lists page as the spec says (`page`, `per_page` default 20 and at most 200,
`links.pages` first/prev/next/last, `meta.total`) and take the filters the spec gives them
(droplets: tag_name, name, type; volumes: name, region; snapshots: resource_type). The writes:
a droplet action (201 `action`, the actions list's example; power_off, shutdown and power_on
change the droplet's status), delete a volume or a snapshot (204), create a tag (201 `tag`, the
example) and tag resources (204). An unknown resource is the spec's 404 (`not_found`)."""

from __future__ import annotations

import copy
import random
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import yaml

from .code_fake_http import FakeService, Handler, Reply, Request

FOLDER = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "specs" / "digitalocean"
PUBLIC = "https://api.digitalocean.com"  # the spec's server: the origin of the `links.pages` URLs
DROPLETS, VOLUMES, SNAPSHOTS, GONE = 200, 90, 70, 12  # GONE: snapshots of deleted droplets
PER_PAGE, MAX_PER_PAGE = 20, 200
REGIONS = {"nyc1": "New York 1", "nyc3": "New York 3", "sfo3": "San Francisco 3", "ams3": "Amsterdam 3",
           "fra1": "Frankfurt 1", "lon1": "London 1", "sgp1": "Singapore 1", "tor1": "Toronto 1"}  # fmt: skip
SIZES = [  # slug, memory (MiB), vCPUs, disk (GiB), transfer (TiB), $ a month; weight
    ("s-1vcpu-1gb", 1024, 1, 25, 1.0, 5.0, 20), ("s-1vcpu-2gb", 2048, 1, 50, 2.0, 10.0, 25),
    ("s-2vcpu-2gb", 2048, 2, 60, 3.0, 15.0, 15), ("s-2vcpu-4gb", 4096, 2, 80, 4.0, 20.0, 18),
    ("s-4vcpu-8gb", 8192, 4, 160, 5.0, 40.0, 12), ("s-6vcpu-16gb", 16384, 6, 320, 6.0, 80.0, 7),
    ("s-8vcpu-32gb", 32768, 8, 640, 7.0, 160.0, 3),
]  # fmt: skip
SIZE_WEIGHTS = [size[-1] for size in SIZES]
ROLES = ("web", "api", "worker", "db", "cache", "queue", "search", "ci-runner")
ENVS = {"prod": 50, "stage": 30, "dev": 20}
EXTRA_TAGS = ("k8s", "legacy", "backup-daily", "monitoring", "team:payments", "team:platform")
START, END, EPOCH = datetime(2021, 1, 4), datetime(2025, 5, 30), datetime(1970, 1, 1)
NOT_FOUND = {"id": "not_found", "message": "The resource you requested could not be found."}


class _Loader(yaml.CSafeLoader):
    """YAML as JSON would have it: a date-time stays a string."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
}


def example(path: str, *keys: str | int) -> Any:
    """A value in one of the spec's files (under resources/): the file's data, then `keys`."""
    value = yaml.load((FOLDER / "resources" / path).read_text("utf-8"), Loader=_Loader)
    for key in keys:
        value = value[key]
    return value


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _between(rng: random.Random, start: datetime, end: datetime) -> datetime:
    return start + timedelta(seconds=rng.randrange(int((end - start).total_seconds())))


def _region(template: dict[str, Any], slug: str) -> dict[str, Any]:
    return {**copy.deepcopy(template), "name": REGIONS[slug], "slug": slug}


def _droplets(rng: random.Random, examples: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    born = sorted(_between(rng, START, END) for _ in range(DROPLETS))
    droplets, counters, next_id = {}, dict.fromkeys(ROLES, 0), 412_003_817
    for created in born:
        droplet = copy.deepcopy(rng.choice(examples))
        role, env = rng.choice(ROLES), rng.choices(list(ENVS), weights=list(ENVS.values()))[0]
        counters[role] += 1
        slug, memory, vcpus, disk, transfer, monthly, _ = rng.choices(SIZES, SIZE_WEIGHTS)[0]
        region = rng.choice(list(REGIONS))
        status = rng.choices(
            ("active", "off", "archive"), weights=(70, 22, 8) if env == "prod" else (55, 35, 10)
        )[0]
        backups = rng.random() < 0.4
        next_id += rng.randrange(40, 90_000)
        last = rng.randrange(2, 250)
        droplet.update(
            id=next_id,
            name=f"{role}-{counters[role]:02d}.{env}.example.com",
            memory=memory,
            vcpus=vcpus,
            disk=disk,
            status=status,
            created_at=_stamp(created),
            features=["backups", "private_networking", "ipv6"] if backups else ["private_networking"],
            backup_ids=[rng.randrange(50_000_000, 99_000_000)] if backups else [],
            snapshot_ids=[],
            volume_ids=[],
            size_slug=slug,
            region=_region(droplet["region"], region),
            tags=[role, f"env:{env}", *rng.sample(EXTRA_TAGS, rng.choice((0, 0, 1, 2)))],
            vpc_uuid=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        )
        droplet["disk_info"][0]["size"]["amount"] = disk
        size = droplet["size"]
        size.update(
            slug=slug, memory=memory, vcpus=vcpus, disk=disk, transfer=transfer, price_monthly=monthly
        )
        size["price_hourly"] = monthly / 672
        v4 = droplet["networks"]["v4"]
        v4[0]["ip_address"] = f"10.{rng.randrange(100, 140)}.{rng.randrange(256)}.{rng.randrange(2, 255)}"
        public = (
            f"{rng.choice((104, 138, 143, 157, 159, 164, 167))}.{rng.randrange(256)}.{rng.randrange(256)}"
        )
        v4[1].update(ip_address=f"{public}.{last}", gateway=f"{public}.1")
        for v6 in droplet["networks"]["v6"]:
            v6["ip_address"] = f"2604:a880:{rng.randrange(1, 5)}:d0::{rng.randrange(4096):x}:{last:x}001"
        droplets[next_id] = droplet
    return droplets


def _volumes(
    rng: random.Random, template: dict[str, Any], droplets: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    volumes, names = {}, dict.fromkeys(REGIONS, 0)
    for _ in range(VOLUMES):
        volume = copy.deepcopy(template)
        holder = rng.choice(list(droplets.values())) if rng.random() < 0.6 else None
        region = holder["region"]["slug"] if holder else rng.choice(list(REGIONS))
        names[region] += 1
        name = f"{holder['name'].split('.')[0] if holder else 'pvc'}-data-{region}-{names[region]}"
        after = datetime.strptime(holder["created_at"], "%Y-%m-%dT%H:%M:%SZ") if holder else START
        volume.update(
            id=str(uuid.UUID(int=rng.getrandbits(128), version=1)),
            region=_region(template["region"], region),
            droplet_ids=[holder["id"]] if holder else [],
            name=name,
            description=f"Block storage for {holder['name'] if holder else 'detached data'}",
            size_gigabytes=rng.choice((10, 25, 50, 100, 100, 250, 500, 1000)),
            created_at=_stamp(_between(rng, after, END + timedelta(days=1))),
            filesystem_type=rng.choice(("ext4", "ext4", "xfs")),
            filesystem_label=name[:16],
            tags=holder["tags"][1:2] if holder else rng.sample(("scratch", "archive", "env:dev"), 1),
        )
        if holder:
            holder["volume_ids"].append(volume["id"])
        volumes[volume["id"]] = volume
    return volumes


def _snapshots(
    rng: random.Random,
    examples: list[dict[str, Any]],
    droplets: dict[int, dict[str, Any]],
    volumes: dict[str, Any],
) -> dict[str, Any]:
    gone = [
        (rng.randrange(300_000_000, 412_000_000), f"{rng.choice(ROLES)}-old-{n:02d}") for n in range(GONE)
    ]
    snapshots = {}
    for n in range(SNAPSHOTS):
        snapshot = copy.deepcopy(examples[1] if n % 4 == 3 else examples[0])  # a volume's, a droplet's
        if n % 4 == 3:
            volume = rng.choice(list(volumes.values()))
            snapshot_id = str(uuid.UUID(int=rng.getrandbits(128), version=1))
            source = (volume["id"], volume["name"], volume["region"]["slug"], volume["size_gigabytes"])
            born, tags = volume["created_at"], volume["tags"]
        elif n < 2 * GONE and n % 2 == 0:  # of a droplet since destroyed
            snapshot_id, (resource_id, name) = str(rng.randrange(60_000_000, 160_000_000)), gone[n // 2]
            source, born, tags = (str(resource_id), name, rng.choice(list(REGIONS)), 25), _stamp(START), []
        else:
            droplet = rng.choice(list(droplets.values()))
            snapshot_id = str(rng.randrange(60_000_000, 160_000_000))
            name = droplet["name"].split(".")[0]
            source = (str(droplet["id"]), name, droplet["region"]["slug"], droplet["disk"])
            born, tags = droplet["created_at"], droplet["tags"][:2]
            droplet["snapshot_ids"].append(int(snapshot_id))
        resource, name, region, disk = source
        created = _between(rng, datetime.strptime(born, "%Y-%m-%dT%H:%M:%SZ"), END + timedelta(days=2))
        snapshot.update(
            id=snapshot_id,
            name=f"{name}-{(created - EPOCH) // timedelta(milliseconds=1)}",
            created_at=_stamp(created),
            regions=[region, *rng.sample([r for r in REGIONS if r != region], rng.choice((0, 0, 1)))],
            resource_id=resource,
            min_disk_size=disk,
            size_gigabytes=round(rng.uniform(0.05, 0.6) * disk, 2),
            tags=tags,
        )
        snapshots[snapshot_id] = snapshot
    return dict(sorted(snapshots.items(), key=lambda item: item[1]["created_at"]))


class DigitalOcean(FakeService):
    def __init__(self) -> None:
        rng = random.Random(31)
        listed = example("droplets/responses/examples.yml", "droplets_all", "value", "droplets")
        self.seed_droplets = _droplets(rng, listed)
        volume = example("volumes/examples.yml", "volumes_all", "value", "volumes", 0)
        self.seed_volumes = _volumes(rng, volume, self.seed_droplets)
        taken = example("snapshots/responses/examples.yml", "snapshots_all", "value", "snapshots")
        self.seed_snapshots = _snapshots(rng, taken, self.seed_droplets, self.seed_volumes)
        self.action = example("droplets/responses/all_droplet_actions.yml", "content", "application/json",
                              "example", "actions", 0)  # fmt: skip
        self.new_tag = example(
            "tags/responses/tags_new.yml", "content", "application/json", "schema", "example", "tag"
        )
        super().__init__()

    def routes(self) -> list[tuple[str, str, Handler]]:
        return [
            ("GET", "/v2/droplets", self.list_droplets),
            ("GET", "/v2/droplets/{droplet_id}", self.get_droplet),
            ("POST", "/v2/droplets/{droplet_id}/actions", self.droplet_action),
            ("GET", "/v2/volumes", self.list_volumes),
            ("GET", "/v2/volumes/{volume_id}", self.get_volume),
            ("DELETE", "/v2/volumes/{volume_id}", self.delete_volume),
            ("GET", "/v2/snapshots", self.list_snapshots),
            ("DELETE", "/v2/snapshots/{snapshot_id}", self.delete_snapshot),
            ("POST", "/v2/tags", self.create_tag),
            ("POST", "/v2/tags/{tag_id}/resources", self.tag_resources),
        ]

    def reset(self) -> None:
        self.droplets: dict[int, dict[str, Any]] = copy.deepcopy(self.seed_droplets)
        self.volumes: dict[str, dict[str, Any]] = copy.deepcopy(self.seed_volumes)
        self.snapshots: dict[str, dict[str, Any]] = copy.deepcopy(self.seed_snapshots)
        self.tags = {
            tag for record in [*self.droplets.values(), *self.volumes.values()] for tag in record["tags"]
        }
        self.actions: list[dict[str, Any]] = []

    def snapshot(self) -> Any:
        state = {name: getattr(self, name) for name in ("droplets", "volumes", "snapshots", "actions")}
        return copy.deepcopy({**state, "tags": sorted(self.tags)})

    def page(self, request: Request, key: str, items: list[dict[str, Any]]) -> Reply:
        """One page of `items` as the spec's lists answer: `key`, `links.pages`, `meta.total`."""
        try:
            page = max(int(request.arg("page") or 1), 1)
            per_page = min(max(int(request.arg("per_page") or PER_PAGE), 1), MAX_PER_PAGE)
        except ValueError:
            return Reply(400, {"id": "bad_request", "message": "page and per_page must be integers"})
        last = max(-(-len(items) // per_page), 1)
        query = {name: values[0] for name, values in request.query.items()}

        def link(number: int) -> str:
            return f"{PUBLIC}{request.path}?{urlencode({**query, 'page': number, 'per_page': per_page})}"

        pages = {"first": link(1), "prev": link(page - 1)} if page > 1 else {}
        pages |= {"last": link(last), "next": link(page + 1)} if page < last else {}
        chunk = items[(page - 1) * per_page : page * per_page]
        return Reply(200, {key: chunk, "links": {"pages": pages}, "meta": {"total": len(items)}})

    def list_droplets(self, request: Request) -> Reply:
        found = list(self.droplets.values())
        if (tag := request.arg("tag_name")) is not None:
            found = [droplet for droplet in found if tag in droplet["tags"]]
        if (name := request.arg("name")) is not None:
            found = [droplet for droplet in found if droplet["name"].lower() == name.lower()]
        if request.arg("type") == "gpus":
            found = []  # none of them is a GPU droplet
        return self.page(request, "droplets", found)

    def _droplet(self, request: Request) -> dict[str, Any] | None:
        try:
            return self.droplets.get(int(request.params["droplet_id"]))
        except ValueError:
            return None

    def get_droplet(self, request: Request) -> Reply:
        droplet = self._droplet(request)
        return Reply(200, {"droplet": droplet}) if droplet else Reply(404, NOT_FOUND)

    def droplet_action(self, request: Request) -> Reply:
        if (droplet := self._droplet(request)) is None:
            return Reply(404, NOT_FOUND)
        kind = request.body.get("type") if isinstance(request.body, dict) else None
        if not isinstance(kind, str):
            return Reply(422, {"id": "unprocessable_entity", "message": "type is required"})
        status = {"power_off": "off", "shutdown": "off", "power_on": "active"}.get(kind)
        droplet["status"] = status or droplet["status"]
        action = copy.deepcopy(self.action)
        started = datetime(2025, 6, 2, 9, 30) + timedelta(seconds=7 * len(self.actions))
        action.update(
            id=1_985_000_000 + len(self.actions),
            status="in-progress",
            type=kind,
            started_at=_stamp(started),
            completed_at=None,
            resource_id=droplet["id"],
            region=copy.deepcopy(droplet["region"]),
            region_slug=droplet["region"]["slug"],
        )
        self.actions.append(action)
        return Reply(201, {"action": action})

    def list_volumes(self, request: Request) -> Reply:
        found = list(self.volumes.values())
        if (name := request.arg("name")) is not None:
            found = [volume for volume in found if volume["name"] == name]
        if (region := request.arg("region")) is not None:
            found = [volume for volume in found if volume["region"]["slug"] == region]
        return self.page(request, "volumes", found)

    def get_volume(self, request: Request) -> Reply:
        volume = self.volumes.get(request.params["volume_id"])
        return Reply(200, {"volume": volume}) if volume else Reply(404, NOT_FOUND)

    def delete_volume(self, request: Request) -> Reply:
        if (volume := self.volumes.get(request.params["volume_id"])) is None:
            return Reply(404, NOT_FOUND)
        if volume["droplet_ids"]:
            return Reply(409, {"id": "conflict", "message": "The volume is attached to a Droplet."})
        del self.volumes[volume["id"]]
        return Reply(204)

    def list_snapshots(self, request: Request) -> Reply:
        found = list(self.snapshots.values())
        if (kind := request.arg("resource_type")) is not None:
            found = [snapshot for snapshot in found if snapshot["resource_type"] == kind]
        return self.page(request, "snapshots", found)

    def delete_snapshot(self, request: Request) -> Reply:
        if (snapshot := self.snapshots.pop(request.params["snapshot_id"], None)) is None:
            return Reply(404, NOT_FOUND)
        if snapshot["resource_type"] == "droplet" and (
            droplet := self.droplets.get(int(snapshot["resource_id"]))
        ):
            droplet["snapshot_ids"].remove(int(snapshot["id"]))
        return Reply(204)

    def create_tag(self, request: Request) -> Reply:
        name = request.body.get("name") if isinstance(request.body, dict) else None
        if not isinstance(name, str) or not name:
            return Reply(400, {"id": "bad_request", "message": "name is required"})
        self.tags.add(name)
        return Reply(201, {"tag": {**copy.deepcopy(self.new_tag), "name": name}})

    def tag_resources(self, request: Request) -> Reply:
        tag = request.params["tag_id"]
        resources = request.body.get("resources") if isinstance(request.body, dict) else None
        if tag not in self.tags or not isinstance(resources, list):
            return Reply(404 if tag not in self.tags else 400, NOT_FOUND)
        stores: dict[str, dict[Any, dict[str, Any]]] = {"droplet": self.droplets, "volume": self.volumes}
        records = []
        for resource in resources:
            key, kind = str(resource.get("resource_id")), resource.get("resource_type")
            record = stores.get(kind, {}).get(int(key) if kind == "droplet" and key.isdigit() else key)
            if record is None:
                return Reply(404, NOT_FOUND)
            records.append(record)
        for record in records:
            if tag not in record["tags"]:
                record["tags"].append(tag)
        return Reply(204)
