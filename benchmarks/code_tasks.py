"""The tasks of the code-mode benchmark over the two corpus specs' fakes (code_fake_train.py,
code_fake_petstore.py); Jupyter's are in code_tasks_jupyter.py. Each task is written twice, making
the same API calls: `dynamic`, the script of an agent in dynamic mode (call_tool after call_tool,
reading each result), and `program`, what an agent in code mode sends run_code. Both end with the
task's answer, which must be the same."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .code_agent import Agent

Script = Callable[[Agent], Awaitable[Any]]


@dataclass(frozen=True)
class Task:
    name: str
    service: str  # "train", "petstore" or "jupyter"
    ask: str  # what the agent is asked
    queries: tuple[str, ...]  # its search_tools queries
    tools: tuple[str, ...]  # the tools it describes (and calls)
    dynamic: Script
    program: str
    folder: str = ""  # Jupyter: the folder the task works in (put back before each run)


DAY = "2024-03-01T00:00:00Z"
BERLIN = "Berlin Hauptbahnhof"
CAPITALS = ("Paris Gare du Nord", "Amsterdam Centraal", "Wien Hauptbahnhof", "Praha hlavní nádraží",
            "København H", "Bruxelles-Midi")  # fmt: skip
BOOKED_TO = ("Hamburg Hauptbahnhof", "München Hauptbahnhof", "Frankfurt (Main) Hauptbahnhof")
CARD = {
    "object": "card",
    "name": "Reisebüro Nord GmbH",
    "number": "4242424242424242",
    "cvc": 123,
    "exp_month": 12,
    "exp_year": 2027,
    "address_country": "de",
    "address_post_code": "10115",
}


async def _station_ids(agent: Agent) -> dict[str, str]:
    return {station["name"]: station["id"] for station in (await agent.call_tool("get-stations", {}))["data"]}


async def _trips(agent: Agent, origin: str, destination: str, **filters: bool) -> list[dict[str, Any]]:
    arguments = {"origin": origin, "destination": destination, "date": DAY, **filters}
    trips: list[dict[str, Any]] = (await agent.call_tool("get-trips", arguments))["data"]
    return trips


async def cheapest_bike_trips(agent: Agent) -> Any:
    ids = await _station_ids(agent)
    answer = {}
    for name in CAPITALS:
        trips = await _trips(agent, ids[BERLIN], ids[name], bicycles=True)
        best = min(trips, key=lambda trip: trip["price"])
        answer[name] = [best["departure_time"], best["price"]]
    return answer


CHEAPEST_BIKE_TRIPS = """import api
ids = {s["name"]: s["id"] for s in api.get_stations()["data"]}
answer = {}
for name in ["Paris Gare du Nord", "Amsterdam Centraal", "Wien Hauptbahnhof", "Praha hlavní nádraží",
             "København H", "Bruxelles-Midi"]:
    trips = api.get_trips(origin=ids["Berlin Hauptbahnhof"], destination=ids[name],
                          date="2024-03-01T00:00:00Z", bicycles=True)["data"]
    best = min(trips, key=lambda trip: trip["price"])
    answer[name] = [best["departure_time"], best["price"]]
answer
"""


async def bookings_on_route(agent: Agent) -> Any:
    bookings = (await agent.call_tool("get-bookings", {}))["data"]
    ids = await _station_ids(agent)
    trips = {trip["id"]: trip for trip in await _trips(agent, ids[BERLIN], ids["München Hauptbahnhof"])}
    return sorted(
        [trips[b["trip_id"]]["departure_time"], b["passenger_name"]]
        for b in bookings
        if b["trip_id"] in trips
    )


BOOKINGS_ON_ROUTE = """import api
bookings = api.get_bookings()["data"]
ids = {s["name"]: s["id"] for s in api.get_stations()["data"]}
trips = api.get_trips(origin=ids["Berlin Hauptbahnhof"], destination=ids["München Hauptbahnhof"],
                      date="2024-03-01T00:00:00Z")["data"]
departures = {t["id"]: t["departure_time"] for t in trips}
sorted([departures[b["trip_id"]], b["passenger_name"]] for b in bookings if b["trip_id"] in departures)
"""


async def cancel_dog_conflicts(agent: Agent) -> Any:
    bookings = (await agent.call_tool("get-bookings", {}))["data"]
    ids = await _station_ids(agent)
    no_dogs = set()
    for name in BOOKED_TO:
        no_dogs |= {
            trip["id"] for trip in await _trips(agent, ids[BERLIN], ids[name]) if not trip["dogs_allowed"]
        }
    cancelled = []
    for booking in bookings:
        if booking["has_dog"] and booking["trip_id"] in no_dogs:
            await agent.call_tool("delete-booking", {"bookingId": booking["id"]})
            cancelled.append(booking["passenger_name"])
    return sorted(cancelled)


CANCEL_DOG_CONFLICTS = """import api
bookings = api.get_bookings()["data"]
ids = {s["name"]: s["id"] for s in api.get_stations()["data"]}
no_dogs = set()
for name in ["Hamburg Hauptbahnhof", "München Hauptbahnhof", "Frankfurt (Main) Hauptbahnhof"]:
    for trip in api.get_trips(origin=ids["Berlin Hauptbahnhof"], destination=ids[name],
                              date="2024-03-01T00:00:00Z")["data"]:
        if not trip["dogs_allowed"]:
            no_dogs.add(trip["id"])
cancelled = []
for booking in bookings:
    if booking["has_dog"] and booking["trip_id"] in no_dogs:
        api.delete_booking(bookingId=booking["id"])
        cancelled.append(booking["passenger_name"])
sorted(cancelled)
"""


async def pay_hamburg_bookings(agent: Agent) -> Any:
    bookings = (await agent.call_tool("get-bookings", {}))["data"]
    ids = await _station_ids(agent)
    prices = {trip["id"]: trip["price"] for trip in await _trips(agent, ids[BERLIN], ids[BOOKED_TO[0]])}
    paid = []
    for booking in bookings:
        if booking["trip_id"] in prices:
            arguments = {"bookingId": booking["id"], "amount": prices[booking["trip_id"]], "currency": "eur"}
            payment = await agent.call_tool("create-booking-payment", {**arguments, "source": CARD})
            paid.append(payment["amount"])
    return [len(paid), round(sum(paid), 2)]


PAY_HAMBURG_BOOKINGS = """import api
bookings = api.get_bookings()["data"]
ids = {s["name"]: s["id"] for s in api.get_stations()["data"]}
trips = api.get_trips(origin=ids["Berlin Hauptbahnhof"], destination=ids["Hamburg Hauptbahnhof"],
                      date="2024-03-01T00:00:00Z")["data"]
prices = {t["id"]: t["price"] for t in trips}
paid = []
for booking in bookings:
    if booking["trip_id"] in prices:
        payment = api.create_booking_payment(
            bookingId=booking["id"], amount=prices[booking["trip_id"]], currency="eur",
            source={"object": "card", "name": "Reisebüro Nord GmbH", "number": "4242424242424242",
                    "cvc": 123, "exp_month": 12, "exp_year": 2027, "address_country": "de",
                    "address_post_code": "10115"})
        paid.append(payment["amount"])
[len(paid), round(sum(paid), 2)]
"""


async def pets_by_category(agent: Agent) -> Any:
    counts: dict[str, dict[str, int]] = {}
    for status in ("available", "pending", "sold"):
        by_category = counts[status] = {}
        for pet in (await agent.call_tool("findPetsByStatus", {"status": status}))["result"]:
            category = pet["category"]["name"]
            by_category[category] = by_category.get(category, 0) + 1
    return counts


PETS_BY_CATEGORY = """import api
counts = {}
for status in ["available", "pending", "sold"]:
    by_category = {}
    for pet in api.findPetsByStatus(status=status):
        category = pet["category"]["name"]
        by_category[category] = by_category.get(category, 0) + 1
    counts[status] = by_category
counts
"""


async def release_special_needs(agent: Agent) -> Any:
    pending = (await agent.call_tool("findPetsByStatus", {"status": "pending"}))["result"]
    released = []
    for pet in pending:
        if "special-needs" in [tag["name"] for tag in pet["tags"]]:
            await agent.call_tool("updatePetWithForm", {"petId": pet["id"], "status": "available"})
            released.append(pet["id"])
    return released


RELEASE_SPECIAL_NEEDS = """import api
released = []
for pet in api.findPetsByStatus(status="pending"):
    if "special-needs" in [tag["name"] for tag in pet["tags"]]:
        api.updatePetWithForm(petId=pet["id"], status="available")
        released.append(pet["id"])
released
"""


async def remove_sold_seniors(agent: Agent) -> Any:
    seniors = (await agent.call_tool("findPetsByTags", {"tags": ["senior"]}))["result"]
    removed = []
    for pet in seniors:
        if pet["status"] == "sold":
            await agent.call_tool("deletePet", {"petId": pet["id"]})
            removed.append(pet["name"])
    return removed


REMOVE_SOLD_SENIORS = """import api
removed = []
for pet in api.findPetsByTags(tags=["senior"]):
    if pet["status"] == "sold":
        api.deletePet(petId=pet["id"])
        removed.append(pet["name"])
removed
"""


async def open_orders_of_sold_pets(agent: Agent) -> Any:
    sold = {pet["id"] for pet in (await agent.call_tool("findPetsByStatus", {"status": "sold"}))["result"]}
    found = []
    for order_id in range(1, 31):
        order = await agent.call_tool("getOrderById", {"orderId": order_id})
        if not order["complete"] and order["petId"] in sold:
            found.append([order_id, order["status"]])
    return found


OPEN_ORDERS_OF_SOLD_PETS = """import api
sold = {pet["id"] for pet in api.findPetsByStatus(status="sold")}
found = []
for order_id in range(1, 31):
    order = api.getOrderById(orderId=order_id)
    if not order["complete"] and order["petId"] in sold:
        found.append([order_id, order["status"]])
found
"""

TRAIN_TASKS = [
    Task("train: cheapest bike trip to 6 capitals", "train",
         "From Berlin Hbf on 1 March 2024, the cheapest trip taking bicycles to each of 6 capitals",
         ("find train trips between two stations",), ("get-stations", "get-trips"),
         cheapest_bike_trips, CHEAPEST_BIKE_TRIPS),
    Task("train: my bookings on Berlin → München", "train",
         "My bookings on Berlin Hbf → München Hbf trips on 1 March 2024: departure and passenger",
         ("list my bookings", "find train trips between two stations"),
         ("get-bookings", "get-stations", "get-trips"), bookings_on_route, BOOKINGS_ON_ROUTE),
    Task("train: cancel dogs on trips without dogs", "train",
         "Cancel every booking with a dog on a trip (Berlin to Hamburg, München, Frankfurt) that takes none",
         ("list my bookings", "find train trips between two stations", "cancel a booking"),
         ("get-bookings", "get-stations", "get-trips", "delete-booking"),
         cancel_dog_conflicts, CANCEL_DOG_CONFLICTS),
    Task("train: pay the Hamburg bookings", "train",
         "Pay each booking on a Berlin → Hamburg trip of 1 March at its trip's price, with the company card",
         ("list my bookings", "find train trips between two stations", "pay for a booking"),
         ("get-bookings", "get-stations", "get-trips", "create-booking-payment"),
         pay_hamburg_bookings, PAY_HAMBURG_BOOKINGS),
]  # fmt: skip
PETSTORE_TASKS = [
    Task("petstore: pets by status and category", "petstore",
         "How many pets of each category are available, pending, sold?",
         ("find pets by status",), ("findPetsByStatus",), pets_by_category, PETS_BY_CATEGORY),
    Task("petstore: release pending special-needs pets", "petstore",
         "Make every pending pet tagged special-needs available again",
         ("find pets by status", "update a pet with form data"), ("findPetsByStatus", "updatePetWithForm"),
         release_special_needs, RELEASE_SPECIAL_NEEDS),
    Task("petstore: delete the sold seniors", "petstore",
         "Delete every sold pet tagged senior",
         ("find pets by tags", "delete a pet"), ("findPetsByTags", "deletePet"),
         remove_sold_seniors, REMOVE_SOLD_SENIORS),
    Task("petstore: open orders of sold pets", "petstore",
         "Which of orders 1-30 are not complete though their pet is sold?",
         ("find pets by status", "find purchase order by id"), ("findPetsByStatus", "getOrderById"),
         open_orders_of_sold_pets, OPEN_ORDERS_OF_SOLD_PETS),
]  # fmt: skip
