"""The ``airline`` schema of the second blind set: a short-haul European carrier's year 2024.

Four tables: ``airports``, ``flights`` (one row per scheduled departure), ``passengers`` and
``bookings`` (one seat bought by one passenger on one flight). The column comments are the only
documentation a generator gets, so every business term is defined there: *ticket revenue* is
``SUM(bookings.fare)`` over bookings that were not refunded, and a flight is *delayed* when it
left more than 15 minutes late.

Rows come from one local ``random.Random(seed)``. The mix (which airports are busy, which cabin
sells, how punctual the airline is) is drawn per seed, so rotations differ in who leads, not
only in noise. Built in: flights on the first and last day of every month; cancelled flights
(NULL delay, their bookings refunded); passengers who never booked; an airport with no flights;
passengers without a loyalty tier; fares with cents.

API::

    build(engine, seed=0) -> None       schema + rows on an empty database
    write(path, seed=0) -> str          a fresh SQLite file; returns its SQLAlchemy URL
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from itertools import product as cartesian
from pathlib import Path

import sqlalchemy as sa

import services.schema_context  # noqa: F401  (keeps column comments in SQLite's DDL)
from eval.sql.fixtures.data import days_between, month_boundaries
from eval.sql.fixtures.schema import Money
from eval.sql.fixtures.seeded import create_and_fill, write_sqlite

REVENUE_METRIC = "[metric: ticket_revenue = SUM(bookings.fare) WHERE bookings.status <> 'refunded']"
FIRST_DAY, LAST_DAY = date(2024, 1, 1), date(2024, 12, 31)

AIRPORTS = (  # code, city, country
    ("LHR", "London", "United Kingdom"),
    ("MAN", "Manchester", "United Kingdom"),
    ("CDG", "Paris", "France"),
    ("NCE", "Nice", "France"),
    ("FRA", "Frankfurt", "Germany"),
    ("MUC", "Munich", "Germany"),
    ("MAD", "Madrid", "Spain"),
    ("BCN", "Barcelona", "Spain"),
    ("FCO", "Rome", "Italy"),
    ("AMS", "Amsterdam", "Netherlands"),
    ("DUB", "Dublin", "Ireland"),
    ("LIS", "Lisbon", "Portugal"),
    ("VIE", "Vienna", "Austria"),
)
AIRCRAFT = {"A220": 130, "A320": 180, "A321": 220, "B737": 189, "E190": 100}
CABINS = ("economy", "premium", "business")
TIERS = ("silver", "gold", "platinum")
NATIONALITIES = ("France", "Germany", "Ireland", "Italy", "Netherlands", "Spain", "United Kingdom", "United States")
FIRST_NAMES = (
    "Aino",
    "Bruno",
    "Carla",
    "Dario",
    "Eva",
    "Finn",
    "Greta",
    "Hector",
    "Ines",
    "Jonas",
    "Kira",
    "Luca",
    "Marta",
    "Nils",
    "Olga",
    "Pablo",
    "Quinn",
    "Rita",
    "Sven",
    "Tess",
    "Ugo",
    "Vera",
    "Willem",
    "Xenia",
    "Yara",
    "Zeno",
)
LAST_NAMES = (
    "Andersen",
    "Bianchi",
    "Costa",
    "Dijkstra",
    "Eriksen",
    "Fontaine",
    "Gallagher",
    "Herrera",
    "Ivanova",
    "Jansen",
    "Kowalski",
    "Lindqvist",
    "Moretti",
    "Nowak",
    "O'Brien",
    "Peeters",
    "Quintana",
    "Rossi",
    "Sauer",
    "Toth",
    "Urban",
    "Varga",
    "Walsh",
    "Zimmer",
)

metadata = sa.MetaData()

airports = sa.Table(
    "airports",
    metadata,
    sa.Column(
        "airport_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the airport, numbered from 1.",
    ),
    sa.Column("code", sa.Text, nullable=False, unique=True, comment="Three-letter IATA code, e.g. 'LHR'."),
    sa.Column("city", sa.Text, nullable=False, comment="City the airport serves."),
    sa.Column("country", sa.Text, nullable=False, comment="Country the airport is in."),
    sa.Column(
        "is_hub", sa.Boolean, nullable=False, comment="True when the airline bases aircraft and crews at this airport."
    ),
    sa.Column(
        "opened_date",
        sa.Date,
        nullable=True,
        comment="Date the airline started (or, when later than the flights, will start) serving the "
        "airport; NULL when it has served it since before its records began.",
    ),
    comment="Airports in the airline's network, whether or not any flight uses them yet.",
)

flights = sa.Table(
    "flights",
    metadata,
    sa.Column(
        "flight_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of one scheduled departure, numbered from 1 in date order.",
    ),
    sa.Column(
        "flight_number",
        sa.Text,
        nullable=False,
        comment="Commercial flight number, e.g. 'EW214'; the same number flies the same route every day.",
    ),
    sa.Column(
        "origin_id",
        sa.Integer,
        sa.ForeignKey("airports.airport_id"),
        nullable=False,
        comment="Airport the flight departs from.",
    ),
    sa.Column(
        "destination_id",
        sa.Integer,
        sa.ForeignKey("airports.airport_id"),
        nullable=False,
        comment="Airport the flight arrives at.",
    ),
    sa.Column(
        "flight_date",
        sa.Date,
        nullable=False,
        comment="Scheduled departure date; a flight's month, quarter and year are those of this date.",
    ),
    sa.Column(
        "aircraft", sa.Text, nullable=False, comment="Aircraft type: one of 'A220', 'A320', 'A321', 'B737', 'E190'."
    ),
    sa.Column("seats", sa.Integer, nullable=False, comment="Number of passenger seats on the aircraft flown."),
    sa.Column("distance_km", sa.Integer, nullable=False, comment="Great-circle distance of the route in km."),
    sa.Column(
        "cancelled",
        sa.Boolean,
        nullable=False,
        comment="True when the flight did not operate; its bookings were refunded.",
    ),
    sa.Column(
        "delay_minutes",
        sa.Integer,
        nullable=True,
        comment="Minutes the flight left after its scheduled time (0 when on time); NULL for a "
        "cancelled flight. A flight is delayed when delay_minutes is more than 15.",
    ),
    comment="One row per scheduled departure in 2024, operated or cancelled.",
)

passengers = sa.Table(
    "passengers",
    metadata,
    sa.Column(
        "passenger_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the passenger, numbered from 1 in order of joining.",
    ),
    sa.Column("name", sa.Text, nullable=False, unique=True, comment="Passenger's full name; unique."),
    sa.Column("nationality", sa.Text, nullable=False, comment="Country of the passenger's passport."),
    sa.Column("birth_year", sa.Integer, nullable=False, comment="Year the passenger was born."),
    sa.Column("joined_date", sa.Date, nullable=False, comment="Date the passenger created their account."),
    sa.Column(
        "loyalty_tier",
        sa.Text,
        nullable=True,
        comment="Frequent-flyer tier: 'silver', 'gold' or 'platinum'; NULL when the passenger is "
        "not in the loyalty programme.",
    ),
    comment="People with an account at the airline, whether or not they have booked.",
)

bookings = sa.Table(
    "bookings",
    metadata,
    sa.Column(
        "booking_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the booking, numbered from 1 in order of booked_date.",
    ),
    sa.Column(
        "passenger_id",
        sa.Integer,
        sa.ForeignKey("passengers.passenger_id"),
        nullable=False,
        comment="The passenger who travels on this booking.",
    ),
    sa.Column(
        "flight_id", sa.Integer, sa.ForeignKey("flights.flight_id"), nullable=False, comment="The flight booked."
    ),
    sa.Column("booked_date", sa.Date, nullable=False, comment="Date the booking was made, before the flight."),
    sa.Column("cabin", sa.Text, nullable=False, comment="Cabin of the seat: 'economy', 'premium' or 'business'."),
    sa.Column("fare", Money, nullable=False, comment="Price paid for the seat, in euros with cents. " + REVENUE_METRIC),
    sa.Column(
        "status",
        sa.Text,
        nullable=False,
        comment="Outcome: 'flown' (the passenger travelled), 'no_show' (paid but did not turn up; "
        "the fare is kept) or 'refunded' (money returned, e.g. the flight was cancelled). "
        "Refunded bookings are not ticket revenue.",
    ),
    sa.Column("checked_bags", sa.Integer, nullable=False, comment="Number of checked bags bought, 0 to 3."),
    comment="One row per seat bought: one passenger on one flight.",
)

TABLES = (airports, flights, passengers, bookings)
"""In insert order (parents before children)."""


def _airports(rng: random.Random) -> list[dict]:
    hubs = set(rng.sample(range(len(AIRPORTS)), 3))
    rows = []
    for i, (code, city, country) in enumerate(AIRPORTS):
        opened = None if rng.random() < 0.6 else date(2015, 1, 1) + timedelta(days=rng.randint(0, 3200))
        rows.append(
            {
                "airport_id": i + 1,
                "code": code,
                "city": city,
                "country": country,
                "is_hub": i in hubs,
                "opened_date": opened,
            }
        )
    unserved = rng.choice([i for i in range(len(AIRPORTS)) if i not in hubs])
    rows[unserved]["opened_date"] = date(2025, 2, 1) + timedelta(days=rng.randint(0, 60))
    return rows


def _routes(rng: random.Random, airport_rows: list[dict]) -> list[dict]:
    """Each route (in both directions) has a flight number per direction, a distance and a daily chance."""
    served = [a for a in airport_rows if a["opened_date"] is None or a["opened_date"] < FIRST_DAY]
    hubs = [a for a in served if a["is_hub"]]
    pairs = {(h["airport_id"], a["airport_id"]) for h in hubs for a in served if a is not h}
    pairs |= {tuple(rng.sample([a["airport_id"] for a in served], 2)) for _ in range(4)}
    undirected = sorted({tuple(sorted(p)) for p in pairs})
    routes, used = [], set()
    for a, b in undirected:
        distance = rng.randint(280, 2400)
        frequency = rng.uniform(0.02, 0.1)
        for origin, dest in ((a, b), (b, a)):
            number = rng.randint(100, 989)
            while number in used:
                number = rng.randint(100, 989)
            used.add(number)
            routes.append(
                {
                    "flight_number": f"EW{number}",
                    "origin_id": origin,
                    "destination_id": dest,
                    "distance_km": distance,
                    "frequency": frequency,
                }
            )
    return routes


def _flights(rng: random.Random, routes: list[dict]) -> list[dict]:
    p_cancel = rng.uniform(0.015, 0.04)
    punctuality = rng.uniform(0.55, 0.8)
    month_level = {m: rng.uniform(0.7, 1.35) for m in range(1, 13)}
    boundary = set(month_boundaries(FIRST_DAY, LAST_DAY))
    fleet = list(AIRCRAFT)
    fleet_weight = [rng.uniform(0.3, 2.5) for _ in fleet]
    rows = []
    for day in days_between(FIRST_DAY, LAST_DAY):
        todays = [r for r in routes if rng.random() < r["frequency"] * month_level[day.month]]
        if day in boundary and not todays:
            todays = [rng.choice(routes)]
        for r in todays:
            aircraft = rng.choices(fleet, weights=fleet_weight)[0]
            cancelled = rng.random() < p_cancel and day not in boundary
            if cancelled:
                delay = None
            elif rng.random() < punctuality:
                delay = rng.choice((0, 0, 0, rng.randint(1, 15)))
            else:
                delay = rng.randint(16, 240) if rng.random() < 0.8 else rng.randint(16, 30)
            rows.append(
                {
                    "flight_number": r["flight_number"],
                    "origin_id": r["origin_id"],
                    "destination_id": r["destination_id"],
                    "flight_date": day,
                    "aircraft": aircraft,
                    "seats": AIRCRAFT[aircraft],
                    "distance_km": r["distance_km"],
                    "cancelled": cancelled,
                    "delay_minutes": delay,
                }
            )
    rng.shuffle(rows)
    rows.sort(key=lambda f: f["flight_date"])
    for fid, row in enumerate(rows, start=1):
        row["flight_id"] = fid
    return rows


def _passengers(rng: random.Random) -> list[dict]:
    n = rng.randint(420, 560)
    names = rng.sample(list(cartesian(FIRST_NAMES, LAST_NAMES)), n)
    nat_weight = [rng.uniform(0.4, 3.0) for _ in NATIONALITIES]
    p_member = rng.uniform(0.35, 0.6)
    joined = sorted(date(2018, 1, 1) + timedelta(days=rng.randint(0, 2050)) for _ in range(n))
    rows = []
    for pid, ((first, last), day) in enumerate(zip(names, joined), start=1):
        tier = rng.choices(TIERS, weights=(6, 3, 1))[0] if rng.random() < p_member else None
        rows.append(
            {
                "passenger_id": pid,
                "name": f"{first} {last}",
                "nationality": rng.choices(NATIONALITIES, weights=nat_weight)[0],
                "birth_year": rng.randint(1945, 2008),
                "joined_date": day,
                "loyalty_tier": tier,
            }
        )
    return rows


def _bookings(rng: random.Random, flight_rows: list[dict], passenger_rows: list[dict]) -> list[dict]:
    popularity = [0.0 if rng.random() < 0.08 else rng.paretovariate(1.4) for _ in passenger_rows]
    popularity[-1] = 0.0
    cabin_weight = (rng.uniform(6, 10), rng.uniform(1, 3), rng.uniform(0.5, 1.5))
    p_no_show = rng.uniform(0.02, 0.06)
    base = {c: rng.uniform(*r) for c, r in zip(CABINS, ((0.05, 0.09), (0.1, 0.16), (0.2, 0.3)))}
    rows = []
    for f in flight_rows:
        for _ in range(rng.randint(1, 4)):
            p = rng.choices(passenger_rows, weights=popularity)[0]
            cabin = rng.choices(CABINS, weights=cabin_weight)[0]
            fare = int(f["distance_km"] * base[cabin] * rng.uniform(0.7, 1.6) * 100) + rng.randint(1, 99)
            booked = f["flight_date"] - timedelta(days=rng.randint(0, 120))
            if f["cancelled"]:
                status = "refunded"
            else:
                r = rng.random()
                status = "no_show" if r < p_no_show else ("refunded" if r < p_no_show + 0.04 else "flown")
            rows.append(
                {
                    "passenger_id": p["passenger_id"],
                    "flight_id": f["flight_id"],
                    "booked_date": booked,
                    "cabin": cabin,
                    "fare": fare,
                    "status": status,
                    "checked_bags": rng.choices((0, 1, 2, 3), weights=(5, 4, 2, 1))[0],
                }
            )
    rng.shuffle(rows)
    rows.sort(key=lambda b: b["booked_date"])
    for bid, row in enumerate(rows, start=1):
        row["booking_id"] = bid
    return rows


def generate(seed: int) -> dict[str, list[dict]]:
    """Table name -> rows for ``seed``, parents before children; money in integer cents."""
    rng = random.Random(seed)
    airport_rows = _airports(rng)
    flight_rows = _flights(rng, _routes(rng, airport_rows))
    passenger_rows = _passengers(rng)
    return {
        "airports": airport_rows,
        "flights": flight_rows,
        "passengers": passenger_rows,
        "bookings": _bookings(rng, flight_rows, passenger_rows),
    }


def build(engine: sa.Engine, seed: int = 0) -> None:
    """Create the tables and insert the rows of ``seed`` (the database must not hold them yet)."""
    create_and_fill(engine, metadata, TABLES, generate(seed))


def write(path: Path, seed: int = 0) -> str:
    """Build the schema for ``seed`` into a new SQLite file at ``path`` (replaced if present); its URL."""
    return write_sqlite(path, lambda engine: build(engine, seed))
