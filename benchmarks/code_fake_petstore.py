"""A fake of the Swagger Petstore (the corpus' swagger-petstore3.yaml, OAS 3.0) for the code-mode
benchmark, under the spec's server path `/api/v3`: 250 pets (category, one to three tags, one to
three photo URLs, a status), 30 orders, the inventory counted from the pets. The pet and store
operations answer as the spec says (a pet by id, by status, by tags; update with form; delete;
orders by id; inventory); an unknown pet or order is a 404."""

from __future__ import annotations

import copy
import random
from datetime import datetime, timedelta
from typing import Any

from .code_fake_http import FakeService, Handler, Reply, Request

STATUSES = ("available", "pending", "sold")
CATEGORIES = ("Dogs", "Cats", "Birds", "Fish", "Reptiles", "Small animals")
TAGS = (
    "vaccinated", "neutered", "house-trained", "senior", "young", "special-needs", "indoor", "outdoor",
    "good-with-kids", "good-with-cats", "needs-garden", "bonded-pair",
)  # fmt: skip
NAMES = (
    "Bella", "Max", "Luna", "Charlie", "Lucy", "Cooper", "Daisy", "Milo", "Lola", "Rocky", "Nala",
    "Teddy", "Zoe", "Bear", "Coco", "Oscar", "Ruby", "Leo", "Rosie", "Toby", "Willow", "Jasper",
    "Penny", "Finn", "Hazel", "Ollie", "Pepper", "Simba", "Maple", "Ziggy", "Biscuit", "Mochi",
)  # fmt: skip
FIRST_PET, PETS, ORDERS = 1001, 250, 30
PHOTOS = "https://images.petstore.example/pets"


def _pets() -> dict[int, dict[str, Any]]:
    rng = random.Random(3)
    pets = {}
    for pet_id in range(FIRST_PET, FIRST_PET + PETS):
        category = rng.randrange(len(CATEGORIES))
        tags = rng.sample(range(len(TAGS)), rng.randint(1, 3))
        pets[pet_id] = {
            "id": pet_id,
            "name": f"{rng.choice(NAMES)} {pet_id % 97}",
            "category": {"id": category + 1, "name": CATEGORIES[category]},
            "photoUrls": [f"{PHOTOS}/{pet_id}/photo-{n}.jpg" for n in range(1, rng.randint(1, 3) + 1)],
            "tags": [{"id": tag + 1, "name": TAGS[tag]} for tag in sorted(tags)],
            "status": rng.choices(STATUSES, weights=(5, 2, 3))[0],
        }
    return pets


def _orders(pets: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
    rng = random.Random(4)
    start = datetime(2024, 3, 1, 9, 0)
    orders = {}
    for order_id in range(1, ORDERS + 1):
        status = rng.choice(("placed", "approved", "delivered"))
        orders[order_id] = {
            "id": order_id,
            "petId": rng.choice(list(pets)),
            "quantity": 1,
            "shipDate": (start + timedelta(hours=7 * order_id)).isoformat() + ".000+00:00",
            "status": status,
            "complete": status == "delivered",
        }
    return orders


class Petstore(FakeService):
    base_path = "/api/v3"
    SEED_PETS = _pets()
    SEED_ORDERS = _orders(SEED_PETS)

    def routes(self) -> list[tuple[str, str, Handler]]:
        return [
            ("PUT", "/pet", self.update_pet),
            ("POST", "/pet", self.add_pet),
            ("GET", "/pet/findByStatus", self.find_by_status),
            ("GET", "/pet/findByTags", self.find_by_tags),
            ("GET", "/pet/{petId}", self.get_pet),
            ("POST", "/pet/{petId}", self.update_with_form),
            ("DELETE", "/pet/{petId}", self.delete_pet),
            ("GET", "/store/inventory", self.inventory),
            ("GET", "/store/order/{orderId}", self.get_order),
            ("DELETE", "/store/order/{orderId}", self.delete_order),
        ]

    def reset(self) -> None:
        self.pets = copy.deepcopy(self.SEED_PETS)
        self.orders = copy.deepcopy(self.SEED_ORDERS)

    def snapshot(self) -> Any:
        return copy.deepcopy({"pets": self.pets, "orders": self.orders})

    def _pet(self, request: Request) -> dict[str, Any] | Reply:
        try:
            pet_id = int(request.params["petId"])
        except ValueError:
            return Reply(400, {"code": 400, "message": "Invalid ID supplied"})
        if (pet := self.pets.get(pet_id)) is None:
            return Reply(404, {"code": 1, "type": "error", "message": "Pet not found"})
        return pet

    def get_pet(self, request: Request) -> Reply:
        pet = self._pet(request)
        return pet if isinstance(pet, Reply) else Reply(200, pet)

    def find_by_status(self, request: Request) -> Reply:
        wanted = request.args("status") or ["available"]
        if unknown := [status for status in wanted if status not in STATUSES]:
            return Reply(400, {"code": 400, "message": f"Invalid status value {unknown[0]}"})
        return Reply(200, [pet for pet in self.pets.values() if pet["status"] in wanted])

    def find_by_tags(self, request: Request) -> Reply:
        wanted = set(request.args("tags"))
        return Reply(200, [pet for pet in self.pets.values() if wanted & {t["name"] for t in pet["tags"]}])

    def update_with_form(self, request: Request) -> Reply:
        pet = self._pet(request)
        if isinstance(pet, Reply):
            return pet
        if (status := request.arg("status")) is not None:
            pet["status"] = status
        if (name := request.arg("name")) is not None:
            pet["name"] = name
        return Reply(200, pet)

    def delete_pet(self, request: Request) -> Reply:
        pet = self._pet(request)
        if isinstance(pet, Reply):
            return pet
        del self.pets[pet["id"]]
        return Reply(200)

    def _stored(self, body: Any, new: bool) -> Reply:
        if not isinstance(body, dict) or not body.get("name") or not isinstance(body.get("photoUrls"), list):
            return Reply(422, {"code": 422, "message": "Validation exception: name and photoUrls"})
        if new:
            body = {**body, "id": body.get("id") or max(self.pets, default=FIRST_PET) + 1}
        elif body.get("id") not in self.pets:
            return Reply(404, {"code": 1, "type": "error", "message": "Pet not found"})
        self.pets[body["id"]] = body
        return Reply(200, body)

    def update_pet(self, request: Request) -> Reply:
        return self._stored(request.body, new=False)

    def add_pet(self, request: Request) -> Reply:
        return self._stored(request.body, new=True)

    def inventory(self, request: Request) -> Reply:
        counts: dict[str, int] = {}
        for pet in self.pets.values():
            counts[pet["status"]] = counts.get(pet["status"], 0) + 1
        return Reply(200, counts)

    def _order_id(self, request: Request) -> int | None:
        try:
            return int(request.params["orderId"])
        except ValueError:
            return None

    def get_order(self, request: Request) -> Reply:
        order = self.orders.get(self._order_id(request) or 0)
        return (
            Reply(200, order)
            if order
            else Reply(404, {"code": 1, "type": "error", "message": "Order not found"})
        )

    def delete_order(self, request: Request) -> Reply:
        if self.orders.pop(self._order_id(request) or 0, None) is None:
            return Reply(404, {"code": 1, "type": "error", "message": "Order not found"})
        return Reply(200)
