"""A fake of the Train Travel API (the corpus' train-travel-v31.yaml, OAS 3.1) for the code-mode
benchmark: 40 stations, about 20 trips a day on any route (made up from the route and the day, the
same on every call), 60 bookings on trips of a few routes, payments. Answers as the spec says: the
collections wrapped in `data` and `links`, a booking with `links.self`, a payment with its card
number masked and `links.booking`, errors as application/problem+json."""

from __future__ import annotations

import copy
import hashlib
import random
import uuid
from datetime import date, datetime, timedelta
from typing import Any

from .code_fake_http import FakeService, Handler, Reply, Request

NAMESPACE = uuid.UUID("6f1c1d36-8f0e-4b7e-9a4e-3c2d1b0a9f8e")
STATIONS = [  # name, address, country code, time zone
    ("Berlin Hauptbahnhof", "Invalidenstraße 10557 Berlin, Germany", "DE", "Europe/Berlin"),
    ("München Hauptbahnhof", "Bayerstraße 10a 80335 München, Germany", "DE", "Europe/Berlin"),
    ("Hamburg Hauptbahnhof", "Hachmannplatz 16 20099 Hamburg, Germany", "DE", "Europe/Berlin"),
    ("Frankfurt (Main) Hauptbahnhof", "Am Hauptbahnhof 60329 Frankfurt, Germany", "DE", "Europe/Berlin"),
    ("Köln Hauptbahnhof", "Trankgasse 11 50667 Köln, Germany", "DE", "Europe/Berlin"),
    ("Stuttgart Hauptbahnhof", "Arnulf-Klett-Platz 2 70173 Stuttgart, Germany", "DE", "Europe/Berlin"),
    ("Leipzig Hauptbahnhof", "Willy-Brandt-Platz 5 04109 Leipzig, Germany", "DE", "Europe/Berlin"),
    ("Dresden Hauptbahnhof", "Wiener Platz 4 01069 Dresden, Germany", "DE", "Europe/Berlin"),
    ("Paris Gare du Nord", "18 Rue de Dunkerque 75010 Paris, France", "FR", "Europe/Paris"),
    ("Paris Gare de Lyon", "Place Louis-Armand 75012 Paris, France", "FR", "Europe/Paris"),
    ("Lyon Part-Dieu", "5 Place Charles Béraudier 69003 Lyon, France", "FR", "Europe/Paris"),
    ("Marseille Saint-Charles", "Square Narvik 13001 Marseille, France", "FR", "Europe/Paris"),
    ("Strasbourg", "20 Place de la Gare 67000 Strasbourg, France", "FR", "Europe/Paris"),
    ("Lille Europe", "Avenue Le Corbusier 59000 Lille, France", "FR", "Europe/Paris"),
    ("London St Pancras International", "Euston Road London N1C 4QP, United Kingdom", "GB", "Europe/London"),
    ("Bruxelles-Midi", "Avenue Fonsny 47B 1060 Bruxelles, Belgium", "BE", "Europe/Brussels"),
    ("Antwerpen-Centraal", "Koningin Astridplein 27 2018 Antwerpen, Belgium", "BE", "Europe/Brussels"),
    ("Amsterdam Centraal", "Stationsplein 1012 AB Amsterdam, Netherlands", "NL", "Europe/Amsterdam"),
    ("Rotterdam Centraal", "Stationsplein 1 3013 AJ Rotterdam, Netherlands", "NL", "Europe/Amsterdam"),
    ("Utrecht Centraal", "Stationshal 12 3511 CE Utrecht, Netherlands", "NL", "Europe/Amsterdam"),
    ("Wien Hauptbahnhof", "Am Hauptbahnhof 1 1100 Wien, Austria", "AT", "Europe/Vienna"),
    ("Salzburg Hauptbahnhof", "Südtiroler Platz 1 5020 Salzburg, Austria", "AT", "Europe/Vienna"),
    ("Innsbruck Hauptbahnhof", "Südtiroler Platz 7 6020 Innsbruck, Austria", "AT", "Europe/Vienna"),
    ("Zürich HB", "Bahnhofplatz 8001 Zürich, Switzerland", "CH", "Europe/Zurich"),
    ("Basel SBB", "Centralbahnstrasse 10 4051 Basel, Switzerland", "CH", "Europe/Zurich"),
    ("Genève Cornavin", "Place de Cornavin 7 1201 Genève, Switzerland", "CH", "Europe/Zurich"),
    ("Milano Centrale", "Piazza Duca d'Aosta 1 20124 Milano, Italy", "IT", "Europe/Rome"),
    ("Roma Termini", "Piazza dei Cinquecento 00185 Roma, Italy", "IT", "Europe/Rome"),
    ("Venezia Santa Lucia", "Fondamenta Santa Lucia 30121 Venezia, Italy", "IT", "Europe/Rome"),
    ("Firenze Santa Maria Novella", "Piazza della Stazione 50123 Firenze, Italy", "IT", "Europe/Rome"),
    ("Barcelona Sants", "Plaça dels Països Catalans 08014 Barcelona, Spain", "ES", "Europe/Madrid"),
    ("Madrid Puerta de Atocha", "Plaza del Emperador Carlos V 28045 Madrid, Spain", "ES", "Europe/Madrid"),
    ("Praha hlavní nádraží", "Wilsonova 300/8 120 00 Praha, Czechia", "CZ", "Europe/Prague"),
    ("Warszawa Centralna", "Aleje Jerozolimskie 54 00-024 Warszawa, Poland", "PL", "Europe/Warsaw"),
    ("Kraków Główny", "Plac Jana Nowaka-Jeziorańskiego 31-154 Kraków, Poland", "PL", "Europe/Warsaw"),
    ("Budapest-Keleti", "Kerepesi út 2-6 1087 Budapest, Hungary", "HU", "Europe/Budapest"),
    ("København H", "Bernstorffsgade 16 1577 København, Denmark", "DK", "Europe/Copenhagen"),
    ("Stockholm Centralstation", "Centralplan 15 111 20 Stockholm, Sweden", "SE", "Europe/Stockholm"),
    ("Oslo S", "Jernbanetorget 1 0154 Oslo, Norway", "NO", "Europe/Oslo"),
    ("Ljubljana", "Trg Osvobodilne fronte 6 1000 Ljubljana, Slovenia", "SI", "Europe/Ljubljana"),
]
OPERATORS = {
    "DE": "Deutsche Bahn",
    "FR": "SNCF",
    "GB": "Eurostar",
    "BE": "SNCB",
    "NL": "NS International",
    "AT": "ÖBB",
    "CH": "SBB",
    "IT": "Trenitalia",
    "ES": "Renfe",
    "CZ": "České dráhy",
    "PL": "PKP Intercity",
    "HU": "MÁV",
    "DK": "DSB",
    "SE": "SJ",
    "NO": "Vy",
    "SI": "Slovenske železnice",
}
BOOKED_DAY = date(2024, 3, 1)
BOOKED_FROM = "Berlin Hauptbahnhof"  # the bookings' trips: from here to these, on BOOKED_DAY
BOOKED_TO = ("Hamburg Hauptbahnhof", "München Hauptbahnhof", "Frankfurt (Main) Hauptbahnhof")
PASSENGERS = (
    "Anna Schmidt", "Lukas Müller", "Sophie Weber", "Jonas Fischer", "Marie Wagner", "Paul Becker",
    "Emma Hoffmann", "Leon Schulz", "Mia Koch", "Felix Richter", "Hannah Klein", "Noah Wolf",
    "Lea Schröder", "Elias Neumann", "Clara Schwarz",
)  # fmt: skip


def station_id(name: str) -> str:
    return str(uuid.uuid5(NAMESPACE, name))


def _seed(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


def trips_of(origin: dict[str, Any], destination: dict[str, Any], day: date) -> list[dict[str, Any]]:
    """About 20 trips a day on the route, between 05:00 and 22:00 (UTC), the same for every call."""
    rng = random.Random(_seed(origin["id"], destination["id"], day.isoformat()))
    hours = 2 + rng.randrange(0, 9)  # the route's duration
    trips: list[dict[str, Any]] = []
    minute = 5 * 60 + rng.randrange(0, 40)
    while minute < 22 * 60 and len(trips) < 24:
        departure = datetime(day.year, day.month, day.day) + timedelta(minutes=minute)
        arrival = departure + timedelta(hours=hours, minutes=rng.randrange(0, 50))
        trips.append(
            {
                "id": str(uuid.uuid5(NAMESPACE, f"{origin['id']}/{destination['id']}/{departure}")),
                "origin": origin["id"],
                "destination": destination["id"],
                "departure_time": departure.isoformat() + "Z",
                "arrival_time": arrival.isoformat() + "Z",
                "price": round(19.9 + hours * rng.uniform(6, 24), 2),
                "operator": OPERATORS[rng.choice((origin, destination))["country_code"]],
                "bicycles_allowed": rng.random() < 0.4,
                "dogs_allowed": rng.random() < 0.6,
            }
        )
        minute += 35 + rng.randrange(0, 30)
    return trips


def _problem(status: int, title: str, detail: str) -> Reply:
    slug = title.lower().replace(" ", "-")
    body = {"type": f"https://example.com/errors/{slug}", "title": title, "status": status, "detail": detail}
    return Reply(status, body, "application/problem+json")


class TrainTravel(FakeService):
    def routes(self) -> list[tuple[str, str, Handler]]:
        return [
            ("GET", "/stations", self.get_stations),
            ("GET", "/trips", self.get_trips),
            ("GET", "/bookings", self.get_bookings),
            ("POST", "/bookings", self.create_booking),
            ("GET", "/bookings/{bookingId}", self.get_booking),
            ("DELETE", "/bookings/{bookingId}", self.delete_booking),
            ("POST", "/bookings/{bookingId}/payment", self.pay),
        ]

    def reset(self) -> None:
        self.stations = [
            {"id": station_id(name), "name": name, "address": address, "country_code": code, "timezone": zone}
            for name, address, code, zone in STATIONS
        ]
        self.by_id = {station["id"]: station for station in self.stations}
        rng = random.Random(31)
        origin = self.by_id[station_id(BOOKED_FROM)]
        trips = [
            trip for to in BOOKED_TO for trip in trips_of(origin, self.by_id[station_id(to)], BOOKED_DAY)
        ]
        self.bookings: dict[str, dict[str, Any]] = {}
        for number in range(60):
            booking_id = str(uuid.uuid5(NAMESPACE, f"booking {number}"))
            self.bookings[booking_id] = {
                "id": booking_id,
                "trip_id": rng.choice(trips)["id"],
                "passenger_name": rng.choice(PASSENGERS),
                "has_bicycle": rng.random() < 0.3,
                "has_dog": rng.random() < 0.3,
            }
        self.payments: dict[str, dict[str, Any]] = {}

    def snapshot(self) -> Any:
        payments = {key: {k: v for k, v in paid.items() if k != "id"} for key, paid in self.payments.items()}
        return copy.deepcopy({"bookings": self.bookings, "payments": payments})

    def _link(self, path: str) -> str:
        return self.origin + path

    def get_stations(self, request: Request) -> Reply:
        return Reply(200, {"data": self.stations, "links": {"self": self._link("/stations")}})

    def get_trips(self, request: Request) -> Reply:
        origin = self.by_id.get(request.arg("origin") or "")
        destination = self.by_id.get(request.arg("destination") or "")
        if origin is None or destination is None:
            return _problem(404, "Not Found", "The origin or destination station does not exist.")
        try:
            day = datetime.fromisoformat((request.arg("date") or "").replace("Z", "+00:00")).date()
        except ValueError:
            return _problem(400, "Bad Request", "date must be an ISO 8601 date-time.")
        trips = trips_of(origin, destination, day)
        if request.arg("bicycles") == "true":
            trips = [trip for trip in trips if trip["bicycles_allowed"]]
        if request.arg("dogs") == "true":
            trips = [trip for trip in trips if trip["dogs_allowed"]]
        query = f"/trips?origin={origin['id']}&destination={destination['id']}&date={day.isoformat()}"
        return Reply(200, {"data": trips, "links": {"self": self._link(query)}})

    def get_bookings(self, request: Request) -> Reply:
        return Reply(200, {"data": list(self.bookings.values()), "links": {"self": self._link("/bookings")}})

    def create_booking(self, request: Request) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if not body.get("trip_id") or not body.get("passenger_name"):
            return _problem(400, "Bad Request", "trip_id and passenger_name are required.")
        booking_id = str(uuid.uuid5(NAMESPACE, f"booking {len(self.bookings)} {body['trip_id']}"))
        fields = ("trip_id", "passenger_name", "has_bicycle", "has_dog")
        booking = {"id": booking_id, **{key: body.get(key, False) for key in fields}}
        self.bookings[booking_id] = booking
        return Reply(201, {**booking, "links": {"self": self._link(f"/bookings/{booking_id}")}})

    def get_booking(self, request: Request) -> Reply:
        booking_id = request.params["bookingId"]
        if (booking := self.bookings.get(booking_id)) is None:
            return _problem(404, "Not Found", "The requested resource was not found.")
        return Reply(200, {**booking, "links": {"self": self._link(f"/bookings/{booking_id}")}})

    def delete_booking(self, request: Request) -> Reply:
        if self.bookings.pop(request.params["bookingId"], None) is None:
            return _problem(404, "Not Found", "The requested resource was not found.")
        return Reply(204)

    def pay(self, request: Request) -> Reply:
        booking_id = request.params["bookingId"]
        body = request.body if isinstance(request.body, dict) else {}
        if booking_id not in self.bookings:
            return _problem(404, "Not Found", "The requested resource was not found.")
        if booking_id in self.payments:
            return _problem(409, "Conflict", "This booking is already paid.")
        source = {k: v for k, v in (body.get("source") or {}).items() if k not in ("cvc", "address_line1")}
        if isinstance(source.get("number"), str):
            source["number"] = "*" * (len(source["number"]) - 4) + source["number"][-4:]
        payment = {
            "id": str(uuid.uuid5(NAMESPACE, f"payment {booking_id}")),
            "amount": body.get("amount"),
            "currency": body.get("currency"),
            "source": source,
            "status": "succeeded",
        }
        self.payments[booking_id] = payment
        return Reply(200, {**payment, "links": {"booking": self._link(f"/bookings/{booking_id}")}})
