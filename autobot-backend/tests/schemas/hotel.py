"""The ``hotel`` schema of the third blind set: a small hotel chain's stays of 2024.

Five tables: ``hotels``, ``rooms``, ``guests``, ``stays`` (one booking of one room by one guest)
and ``charges`` (what a stay was billed, line by line). Business terms live in the column
comments: *hotel revenue* is ``SUM(charges.amount)`` over charges that were not voided, a stay's
*nights* are ``check_out - check_in``, and a stay's period is that of its ``check_in`` date.

Rows come from one local ``random.Random(seed)``; hotel popularity, channel mix, the
cancellation rate and how much guests spend on extras are drawn per seed. Built in: a hotel
that has no stays yet (opened in 2025); rooms never booked; guests who never stayed; NULL
emails and birth years; cancelled stays with no charges; voided charges; money with cents;
check-ins on the first and last day of every month.

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

REVENUE_METRIC = "[metric: hotel_revenue = SUM(charges.amount) WHERE charges.voided = FALSE]"
FIRST_DAY, LAST_DAY = date(2024, 1, 1), date(2024, 12, 31)

HOTELS = (  # name, city, country, stars
    ("Alder House", "Edinburgh", "United Kingdom", 4),
    ("Bayside Inn", "Brighton", "United Kingdom", 3),
    ("Corvo Palace", "Porto", "Portugal", 5),
    ("Dunes Lodge", "Lisbon", "Portugal", 3),
    ("Elmwood Suites", "Dublin", "Ireland", 4),
    ("Fjord Point", "Bergen", "Norway", 4),
    ("Granite Court", "Aberdeen", "United Kingdom", 3),
    ("Harbour Crest", "Cork", "Ireland", 5),
)
ROOM_TYPES = {"single": (6500, 11000), "double": (9500, 17000), "suite": (21000, 42000)}  # cents per night
CHANNELS = ("direct", "website", "agency")
CATEGORIES = ("room", "restaurant", "spa", "minibar", "parking")
COUNTRIES = (
    "France",
    "Germany",
    "Ireland",
    "Netherlands",
    "Norway",
    "Portugal",
    "Spain",
    "United Kingdom",
    "United States",
)
FIRST_NAMES = (
    "Agnes",
    "Boris",
    "Celia",
    "Dmitri",
    "Edith",
    "Fabio",
    "Gwen",
    "Henrik",
    "Iris",
    "Jasper",
    "Katja",
    "Lorenzo",
    "Mila",
    "Nikolai",
    "Orla",
    "Piet",
    "Rosalind",
    "Stellan",
    "Tamsin",
    "Umberto",
    "Vivian",
    "Wendel",
    "Yvette",
    "Zoltan",
)
LAST_NAMES = (
    "Abbott",
    "Brennan",
    "Carvalho",
    "Delacroix",
    "Engstrom",
    "Ferreira",
    "Grady",
    "Halvorsen",
    "Ibsen",
    "Jovanovic",
    "Keane",
    "Lindgren",
    "Mulligan",
    "Nyberg",
    "Oliveira",
    "Pereira",
    "Quigley",
    "Rasmussen",
    "Sousa",
    "Thorsen",
    "Underwood",
    "Vieira",
    "Whelan",
)

metadata = sa.MetaData()

hotels = sa.Table(
    "hotels",
    metadata,
    sa.Column(
        "hotel_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the hotel, numbered from 1.",
    ),
    sa.Column("name", sa.Text, nullable=False, unique=True, comment="Name of the hotel; unique, e.g. 'Alder House'."),
    sa.Column("city", sa.Text, nullable=False, comment="City the hotel is in."),
    sa.Column("country", sa.Text, nullable=False, comment="Country the hotel is in."),
    sa.Column("stars", sa.Integer, nullable=False, comment="Official star rating, 3 to 5."),
    sa.Column(
        "opened_date",
        sa.Date,
        nullable=True,
        comment="Date the hotel opened (or, when after 2024, will open) under the chain; NULL when it "
        "has been in the chain since before records began.",
    ),
    sa.Column("has_spa", sa.Boolean, nullable=False, comment="True when the hotel has a spa guests can book."),
    comment="The chain's hotels, whether or not any stay has been booked there yet.",
)

rooms = sa.Table(
    "rooms",
    metadata,
    sa.Column(
        "room_id", sa.Integer, primary_key=True, autoincrement=False, comment="Identifier of the room, numbered from 1."
    ),
    sa.Column(
        "hotel_id", sa.Integer, sa.ForeignKey("hotels.hotel_id"), nullable=False, comment="The hotel the room is in."
    ),
    sa.Column(
        "room_number",
        sa.Text,
        nullable=False,
        comment="Number on the door, e.g. '204'; unique within a hotel, not across hotels.",
    ),
    sa.Column("room_type", sa.Text, nullable=False, comment="Kind of room: 'single', 'double' or 'suite'."),
    sa.Column(
        "nightly_rate", Money, nullable=False, comment="Standard price of one night in the room, in euros with cents."
    ),
    sa.Column("sea_view", sa.Boolean, nullable=False, comment="True when the room looks out on the sea."),
    comment="Every bookable room of every hotel.",
)

guests = sa.Table(
    "guests",
    metadata,
    sa.Column(
        "guest_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the guest, numbered from 1 in order of registration.",
    ),
    sa.Column("name", sa.Text, nullable=False, unique=True, comment="Guest's full name; unique."),
    sa.Column("country", sa.Text, nullable=False, comment="Country the guest lives in."),
    sa.Column("email", sa.Text, nullable=True, comment="Guest's email address; NULL when they did not give one."),
    sa.Column("birth_year", sa.Integer, nullable=True, comment="Year the guest was born; NULL when unknown."),
    sa.Column(
        "is_member", sa.Boolean, nullable=False, comment="True when the guest belongs to the chain's loyalty club."
    ),
    sa.Column("registered_date", sa.Date, nullable=False, comment="Date the guest's profile was created."),
    comment="People with a guest profile at the chain, whether or not they have stayed.",
)

stays = sa.Table(
    "stays",
    metadata,
    sa.Column(
        "stay_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the stay (one booking of one room), numbered from 1 in check-in order.",
    ),
    sa.Column(
        "guest_id",
        sa.Integer,
        sa.ForeignKey("guests.guest_id"),
        nullable=False,
        comment="The guest who booked the stay.",
    ),
    sa.Column("room_id", sa.Integer, sa.ForeignKey("rooms.room_id"), nullable=False, comment="The room booked."),
    sa.Column(
        "check_in",
        sa.Date,
        nullable=False,
        comment="Date of arrival; a stay's month, quarter and year are those of this date.",
    ),
    sa.Column(
        "check_out",
        sa.Date,
        nullable=False,
        comment="Date of departure, after check_in. The stay's number of nights is "
        "julianday(check_out) - julianday(check_in).",
    ),
    sa.Column("adults", sa.Integer, nullable=False, comment="Number of adults in the room, 1 to 4."),
    sa.Column(
        "channel",
        sa.Text,
        nullable=False,
        comment="How the stay was booked: 'direct' (phone or desk), 'website' (the chain's site) or "
        "'agency' (a travel agency).",
    ),
    sa.Column(
        "status",
        sa.Text,
        nullable=False,
        comment="Outcome: 'completed' (the guest stayed), 'cancelled' (called off in advance; nothing "
        "billed) or 'no_show' (did not arrive; billed one night).",
    ),
    comment="One row per room booking, whatever its outcome.",
)

charges = sa.Table(
    "charges",
    metadata,
    sa.Column(
        "charge_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the charge, numbered from 1.",
    ),
    sa.Column(
        "stay_id",
        sa.Integer,
        sa.ForeignKey("stays.stay_id"),
        nullable=False,
        comment="The stay the charge was billed to.",
    ),
    sa.Column("charge_date", sa.Date, nullable=False, comment="Date the charge was posted."),
    sa.Column(
        "category",
        sa.Text,
        nullable=False,
        comment="What was billed: 'room' (the nights), 'restaurant', 'spa', 'minibar' or 'parking'.",
    ),
    sa.Column("amount", Money, nullable=False, comment="Amount billed, in euros with cents. " + REVENUE_METRIC),
    sa.Column(
        "voided",
        sa.Boolean,
        nullable=False,
        comment="True when the charge was reversed after posting; voided charges are not revenue.",
    ),
    comment="Every line billed to a stay: room nights and extras.",
)

TABLES = (hotels, rooms, guests, stays, charges)
"""In insert order (parents before children)."""


def _hotels(rng: random.Random) -> list[dict]:
    rows = []
    for i, (name, city, country, stars) in enumerate(HOTELS, start=1):
        opened = None if rng.random() < 0.5 else date(2012, 1, 1) + timedelta(days=rng.randint(0, 4000))
        rows.append(
            {
                "hotel_id": i,
                "name": name,
                "city": city,
                "country": country,
                "stars": stars,
                "opened_date": opened,
                "has_spa": stars == 5 or rng.random() < 0.4,
            }
        )
    rng.choice(rows)["opened_date"] = date(2025, 3, 1) + timedelta(days=rng.randint(0, 90))
    return rows


def _rooms(rng: random.Random, hotel_rows: list[dict]) -> list[dict]:
    rows = []
    for h in hotel_rows:
        coastal = rng.random() < 0.7
        for floor in range(1, rng.randint(3, 5) + 1):
            for door in range(1, rng.randint(5, 9) + 1):
                kind = rng.choices(tuple(ROOM_TYPES), weights=(3, 6, 1))[0]
                low, high = ROOM_TYPES[kind]
                rate = int(rng.randint(low, high) * (0.8 + 0.1 * h["stars"]) / 100) * 100 + rng.choice((0, 50, 99))
                rows.append(
                    {
                        "room_id": len(rows) + 1,
                        "hotel_id": h["hotel_id"],
                        "room_number": f"{floor}{door:02d}",
                        "room_type": kind,
                        "nightly_rate": rate,
                        "sea_view": coastal and rng.random() < 0.35,
                    }
                )
    return rows


def _guests(rng: random.Random) -> list[dict]:
    n = rng.randint(380, 480)
    names = rng.sample(list(cartesian(FIRST_NAMES, LAST_NAMES)), n)
    weights = [rng.uniform(0.3, 3.0) for _ in COUNTRIES]
    registered = sorted(date(2019, 1, 1) + timedelta(days=rng.randint(0, 2150)) for _ in range(n))
    rows = []
    for gid, ((first, last), day) in enumerate(zip(names, registered), start=1):
        rows.append(
            {
                "guest_id": gid,
                "name": f"{first} {last}",
                "country": rng.choices(COUNTRIES, weights=weights)[0],
                "email": None if rng.random() < 0.2 else f"{first}.{last}{gid}@example.com".lower(),
                "birth_year": None if rng.random() < 0.15 else rng.randint(1940, 2004),
                "is_member": rng.random() < 0.35,
                "registered_date": day,
            }
        )
    return rows


def _stays(rng: random.Random, hotel_rows: list[dict], room_rows: list[dict], guest_rows: list[dict]) -> list[dict]:
    open_ids = {h["hotel_id"] for h in hotel_rows if h["opened_date"] is None or h["opened_date"] < FIRST_DAY}
    pool = [r for r in room_rows if r["hotel_id"] in open_ids]
    pool = rng.sample(pool, int(len(pool) * 0.9))  # the rest are never booked
    hotel_pull = {h: rng.uniform(0.4, 2.5) for h in open_ids}
    room_weight = [hotel_pull[r["hotel_id"]] for r in pool]
    guest_weight = [0.0 if rng.random() < 0.1 else rng.paretovariate(1.5) for _ in guest_rows]
    channel_weight = [rng.uniform(1, 4) for _ in CHANNELS]
    p_cancel, p_no_show = rng.uniform(0.06, 0.14), rng.uniform(0.02, 0.05)
    month_level = {m: rng.uniform(0.6, 1.5) for m in range(1, 13)}
    boundary = set(month_boundaries(FIRST_DAY, LAST_DAY))
    rows = []
    for day in days_between(FIRST_DAY, LAST_DAY):
        n = sum(rng.random() < 0.5 * month_level[day.month] for _ in range(10))
        if day in boundary:
            n = max(n, 1)
        for k in range(n):
            room = rng.choices(pool, weights=room_weight)[0]
            r = rng.random()
            status = "cancelled" if r < p_cancel else ("no_show" if r < p_cancel + p_no_show else "completed")
            if day in boundary and k == 0:
                status = "completed"
            nights = rng.choices((1, 2, 3, 4, 5, 7, 10), weights=(5, 6, 4, 3, 2, 1, 1))[0]
            rows.append(
                {
                    "guest_id": rng.choices(guest_rows, weights=guest_weight)[0]["guest_id"],
                    "room_id": room["room_id"],
                    "check_in": day,
                    "check_out": day + timedelta(days=nights),
                    "adults": rng.choices((1, 2, 3, 4), weights=(4, 6, 1, 1))[0],
                    "channel": rng.choices(CHANNELS, weights=channel_weight)[0],
                    "status": status,
                }
            )
    for sid, row in enumerate(rows, start=1):
        row["stay_id"] = sid
    return rows


def _charges(rng: random.Random, stay_rows: list[dict], room_rows: list[dict], hotel_rows: list[dict]) -> list[dict]:
    rate = {r["room_id"]: r["nightly_rate"] for r in room_rows}
    spa = {r["room_id"]: next(h["has_spa"] for h in hotel_rows if h["hotel_id"] == r["hotel_id"]) for r in room_rows}
    appetite = {c: rng.uniform(0.15, 0.6) for c in CATEGORIES[1:]}
    p_void = rng.uniform(0.02, 0.05)
    rows = []

    def add(stay: dict, day: date, category: str, cents: int) -> None:
        rows.append(
            {
                "charge_id": len(rows) + 1,
                "stay_id": stay["stay_id"],
                "charge_date": day,
                "category": category,
                "amount": cents,
                "voided": rng.random() < p_void,
            }
        )

    for s in stay_rows:
        if s["status"] == "cancelled":
            continue
        nights = (s["check_out"] - s["check_in"]).days
        if s["status"] == "no_show":
            add(s, s["check_in"], "room", rate[s["room_id"]])
            continue
        add(s, s["check_out"], "room", rate[s["room_id"]] * nights - rng.choice((0, 0, 0, 1500, 2250)))
        for category in CATEGORIES[1:]:
            if category == "spa" and not spa[s["room_id"]]:
                continue
            if rng.random() < appetite[category]:
                day = s["check_in"] + timedelta(days=rng.randint(0, nights - 1))
                add(s, day, category, rng.randint(800, 16000) if category != "parking" else 1800 * nights)
    return rows


def generate(seed: int) -> dict[str, list[dict]]:
    """Table name -> rows for ``seed``, parents before children; money in integer cents."""
    rng = random.Random(seed)
    hotel_rows = _hotels(rng)
    room_rows = _rooms(rng, hotel_rows)
    guest_rows = _guests(rng)
    stay_rows = _stays(rng, hotel_rows, room_rows, guest_rows)
    return {
        "hotels": hotel_rows,
        "rooms": room_rows,
        "guests": guest_rows,
        "stays": stay_rows,
        "charges": _charges(rng, stay_rows, room_rows, hotel_rows),
    }


def build(engine: sa.Engine, seed: int = 0) -> None:
    """Create the tables and insert the rows of ``seed`` (the database must not hold them yet)."""
    create_and_fill(engine, metadata, TABLES, generate(seed))


def write(path: Path, seed: int = 0) -> str:
    """Build the schema for ``seed`` into a new SQLite file at ``path`` (replaced if present); its URL."""
    return write_sqlite(path, lambda engine: build(engine, seed))
