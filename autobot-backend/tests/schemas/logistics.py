"""The ``logistics`` schema of the third blind set: a road-freight firm's shipments of 2024.

Five tables: ``depots``, ``vehicles``, ``drivers``, ``clients`` and ``shipments`` (one load
picked up for one client and driven by one driver in one vehicle). Business terms live in the
column comments: *freight revenue* is ``SUM(shipments.fee)`` over delivered shipments, a
shipment is *late* when it was delivered after its promised date, and a shipment's period is
that of its ``pickup_date``.

Rows come from one local ``random.Random(seed)``; depot size, client volume, punctuality and
the failure rate are drawn per seed. Built in: a depot with no shipments yet (opened in 2025);
drivers who never drove; clients who never shipped; retired vehicles (NULL ``retired_date`` for
the rest); NULL ``delivered_date`` for shipments that were not delivered; NULL credit limits;
fees with cents; pickups on the first and last day of every month.

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

REVENUE_METRIC = "[metric: freight_revenue = SUM(shipments.fee) WHERE shipments.status = 'delivered']"
FIRST_DAY, LAST_DAY = date(2024, 1, 1), date(2024, 12, 31)

DEPOTS = (  # name, city, region
    ("Avonmouth", "Bristol", "South West"),
    ("Daventry", "Northampton", "Midlands"),
    ("Trafford Park", "Manchester", "North West"),
    ("Thurrock", "Grays", "South East"),
    ("Eurocentral", "Motherwell", "Scotland"),
    ("Wakefield", "Wakefield", "Yorkshire"),
    ("Magor", "Newport", "Wales"),
)
VEHICLE_TYPES = {"van": (1200, 3500), "rigid": (7000, 12000), "artic": (24000, 29000)}  # capacity range, kg
LICENCES = ("C1", "C", "CE")
SECTORS = ("food", "pharma", "retail", "industrial", "automotive")
CLIENT_WORDS = (
    (
        "Acorn",
        "Beacon",
        "Cobalt",
        "Delta",
        "Ember",
        "Falcon",
        "Granite",
        "Harbour",
        "Ivory",
        "Juniper",
        "Kestrel",
        "Lumen",
        "Meridian",
        "Northgate",
        "Orchard",
        "Pinnacle",
        "Quarry",
        "Redwood",
        "Summit",
        "Tidewater",
    ),
    ("Foods", "Pharma", "Supplies", "Components", "Traders", "Industries", "Brands", "Motors"),
)
FIRST_NAMES = (
    "Alfie",
    "Bethan",
    "Callum",
    "Dylan",
    "Eilidh",
    "Fraser",
    "Gemma",
    "Harvey",
    "Imogen",
    "Jamal",
    "Keira",
    "Lewis",
    "Megan",
    "Niall",
    "Owain",
    "Priya",
    "Rhys",
    "Shona",
    "Tariq",
    "Zara",
)
LAST_NAMES = (
    "Ahmed",
    "Baxter",
    "Campbell",
    "Davies",
    "Ellis",
    "Fletcher",
    "Griffiths",
    "Hughes",
    "Iqbal",
    "Jenkins",
    "Kerr",
    "Lloyd",
    "McLeod",
    "Nolan",
    "Owens",
    "Pritchard",
    "Reid",
    "Stewart",
)

metadata = sa.MetaData()

depots = sa.Table(
    "depots",
    metadata,
    sa.Column(
        "depot_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the depot, numbered from 1.",
    ),
    sa.Column("name", sa.Text, nullable=False, unique=True, comment="Name of the depot; unique, e.g. 'Daventry'."),
    sa.Column("city", sa.Text, nullable=False, comment="Town or city the depot is in."),
    sa.Column("region", sa.Text, nullable=False, comment="UK region of the depot, e.g. 'Midlands', 'Scotland'."),
    sa.Column(
        "opened_date",
        sa.Date,
        nullable=False,
        comment="Date the depot opened; a depot opened after 2024 has no shipments yet.",
    ),
    comment="The firm's depots, whether or not any shipment has left them yet.",
)

vehicles = sa.Table(
    "vehicles",
    metadata,
    sa.Column(
        "vehicle_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the vehicle, numbered from 1.",
    ),
    sa.Column("registration", sa.Text, nullable=False, unique=True, comment="Number plate; unique."),
    sa.Column(
        "depot_id",
        sa.Integer,
        sa.ForeignKey("depots.depot_id"),
        nullable=False,
        comment="The depot the vehicle is based at.",
    ),
    sa.Column(
        "vehicle_type",
        sa.Text,
        nullable=False,
        comment="Kind of vehicle: 'van', 'rigid' (rigid truck) or 'artic' (articulated lorry).",
    ),
    sa.Column("capacity_kg", sa.Integer, nullable=False, comment="Maximum payload in kilograms."),
    sa.Column("is_electric", sa.Boolean, nullable=False, comment="True for a battery-electric vehicle."),
    sa.Column(
        "retired_date",
        sa.Date,
        nullable=True,
        comment="Date the vehicle was taken out of service; NULL while it is still in service.",
    ),
    comment="The fleet, including vehicles since retired.",
)

drivers = sa.Table(
    "drivers",
    metadata,
    sa.Column(
        "driver_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the driver, numbered from 1 in order of hiring.",
    ),
    sa.Column("name", sa.Text, nullable=False, unique=True, comment="Driver's full name; unique."),
    sa.Column(
        "depot_id",
        sa.Integer,
        sa.ForeignKey("depots.depot_id"),
        nullable=False,
        comment="The depot the driver works from.",
    ),
    sa.Column("hired_date", sa.Date, nullable=False, comment="Date the driver was hired."),
    sa.Column(
        "licence_class",
        sa.Text,
        nullable=False,
        comment="Highest driving licence held: 'C1' (up to 7.5 t), 'C' (rigid trucks) or 'CE' (articulated lorries).",
    ),
    sa.Column("hourly_wage", Money, nullable=False, comment="Pay per hour, in pounds with cents."),
    comment="Everyone employed to drive, whether or not they have driven a shipment.",
)

clients = sa.Table(
    "clients",
    metadata,
    sa.Column(
        "client_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the client, numbered from 1.",
    ),
    sa.Column("name", sa.Text, nullable=False, unique=True, comment="Company name of the client; unique."),
    sa.Column(
        "sector",
        sa.Text,
        nullable=False,
        comment="Client's industry: 'food', 'pharma', 'retail', 'industrial' or 'automotive'.",
    ),
    sa.Column("contract_start", sa.Date, nullable=False, comment="Date the client's contract began."),
    sa.Column(
        "credit_limit",
        Money,
        nullable=True,
        comment="Most the client may owe at once, in pounds; NULL when the client pays in advance.",
    ),
    comment="Companies that have a contract with the firm, whether or not they have shipped.",
)

shipments = sa.Table(
    "shipments",
    metadata,
    sa.Column(
        "shipment_id",
        sa.Integer,
        primary_key=True,
        autoincrement=False,
        comment="Identifier of the shipment, numbered from 1 in pickup order.",
    ),
    sa.Column(
        "client_id",
        sa.Integer,
        sa.ForeignKey("clients.client_id"),
        nullable=False,
        comment="The client the load is carried for.",
    ),
    sa.Column(
        "depot_id",
        sa.Integer,
        sa.ForeignKey("depots.depot_id"),
        nullable=False,
        comment="The depot the shipment was dispatched from.",
    ),
    sa.Column(
        "vehicle_id",
        sa.Integer,
        sa.ForeignKey("vehicles.vehicle_id"),
        nullable=False,
        comment="The vehicle that carried the load.",
    ),
    sa.Column(
        "driver_id", sa.Integer, sa.ForeignKey("drivers.driver_id"), nullable=False, comment="The driver who drove it."
    ),
    sa.Column(
        "pickup_date",
        sa.Date,
        nullable=False,
        comment="Date the load was collected; a shipment's month, quarter and year are those of this date.",
    ),
    sa.Column("promised_date", sa.Date, nullable=False, comment="Date delivery was promised for."),
    sa.Column(
        "delivered_date",
        sa.Date,
        nullable=True,
        comment="Date the load was delivered; NULL when it was not delivered (status 'failed' or "
        "'returned'). A delivered shipment is late when delivered_date > promised_date.",
    ),
    sa.Column(
        "status",
        sa.Text,
        nullable=False,
        comment="Outcome: 'delivered', 'failed' (could not be delivered) or 'returned' (refused by the "
        "recipient and brought back). Only delivered shipments are freight revenue.",
    ),
    sa.Column("weight_kg", sa.Integer, nullable=False, comment="Weight of the load in kilograms."),
    sa.Column("distance_km", sa.Integer, nullable=False, comment="Road distance driven, depot to recipient, in km."),
    sa.Column(
        "is_express", sa.Boolean, nullable=False, comment="True for the express service (next-day promise, higher fee)."
    ),
    sa.Column(
        "fee", Money, nullable=False, comment="Price charged to the client, in pounds with cents. " + REVENUE_METRIC
    ),
    comment="One row per load collected for a client, whatever its outcome.",
)

TABLES = (depots, vehicles, drivers, clients, shipments)
"""In insert order (parents before children)."""


def _depots(rng: random.Random) -> list[dict]:
    rows = [
        {
            "depot_id": i,
            "name": name,
            "city": city,
            "region": region,
            "opened_date": date(2005, 1, 1) + timedelta(days=rng.randint(0, 6000)),
        }
        for i, (name, city, region) in enumerate(DEPOTS, start=1)
    ]
    rng.choice(rows)["opened_date"] = date(2025, 1, 6) + timedelta(days=rng.randint(0, 120))
    return rows


def _vehicles(rng: random.Random, depot_rows: list[dict]) -> list[dict]:
    rows, plates = [], set()
    for d in depot_rows:
        for _ in range(rng.randint(5, 10)):
            kind = rng.choices(tuple(VEHICLE_TYPES), weights=(5, 3, 2))[0]
            plate = f"{rng.choice('ABDKLMNSVY')}{rng.choice('ABCEFGHJ')}{rng.randint(18, 24)} {rng.randint(100, 999)}"
            while plate in plates:
                plate = plate[:-3] + str(rng.randint(100, 999))
            plates.add(plate)
            retired = date(2024, 2, 1) + timedelta(days=rng.randint(0, 300)) if rng.random() < 0.12 else None
            rows.append(
                {
                    "vehicle_id": len(rows) + 1,
                    "registration": plate,
                    "depot_id": d["depot_id"],
                    "vehicle_type": kind,
                    "capacity_kg": rng.randint(*VEHICLE_TYPES[kind]) // 50 * 50,
                    "is_electric": kind == "van" and rng.random() < 0.4,
                    "retired_date": retired,
                }
            )
    return rows


def _drivers(rng: random.Random, depot_rows: list[dict]) -> list[dict]:
    names = rng.sample(list(cartesian(FIRST_NAMES, LAST_NAMES)), rng.randint(70, 90))
    hired = sorted(date(2010, 1, 1) + timedelta(days=rng.randint(0, 5400)) for _ in names)
    return [
        {
            "driver_id": i,
            "name": f"{first} {last}",
            "depot_id": rng.choice(depot_rows)["depot_id"],
            "hired_date": day,
            "licence_class": rng.choices(LICENCES, weights=(3, 4, 3))[0],
            "hourly_wage": rng.randint(1350, 2400),
        }
        for i, ((first, last), day) in enumerate(zip(names, hired), start=1)
    ]


def _clients(rng: random.Random) -> list[dict]:
    names = rng.sample([f"{a} {b}" for a, b in cartesian(*CLIENT_WORDS)], rng.randint(40, 55))
    return [
        {
            "client_id": i,
            "name": name,
            "sector": rng.choice(SECTORS),
            "contract_start": date(2016, 1, 1) + timedelta(days=rng.randint(0, 3100)),
            "credit_limit": None if rng.random() < 0.25 else rng.randint(20, 400) * 50000 + rng.choice((0, 2500)),
        }
        for i, name in enumerate(names, start=1)
    ]


def _shipments(
    rng: random.Random,
    depot_rows: list[dict],
    vehicle_rows: list[dict],
    driver_rows: list[dict],
    client_rows: list[dict],
) -> list[dict]:
    active = [d["depot_id"] for d in depot_rows if d["opened_date"] < FIRST_DAY]
    depot_weight = [rng.uniform(0.5, 3.0) for _ in active]
    idle = set(rng.sample([d["driver_id"] for d in driver_rows], 6))
    crew = {dep: [d for d in driver_rows if d["depot_id"] == dep and d["driver_id"] not in idle] for dep in active}
    fleet = {dep: [v for v in vehicle_rows if v["depot_id"] == dep] for dep in active}
    client_weight = [0.0 if rng.random() < 0.12 else rng.paretovariate(1.3) for _ in client_rows]
    punctuality, p_fail = rng.uniform(0.7, 0.92), rng.uniform(0.02, 0.06)
    p_express = rng.uniform(0.15, 0.35)
    month_level = {m: rng.uniform(0.6, 1.5) for m in range(1, 13)}
    boundary = set(month_boundaries(FIRST_DAY, LAST_DAY))
    rows = []
    for day in days_between(FIRST_DAY, LAST_DAY):
        n = sum(rng.random() < 0.7 * month_level[day.month] for _ in range(10)) if day.weekday() < 6 else 0
        if day in boundary:
            n = max(n, 1)
        for k in range(n):
            dep = rng.choices(active, weights=depot_weight)[0]
            if not crew[dep]:
                continue
            vehicle = rng.choice(
                [v for v in fleet[dep] if v["retired_date"] is None or v["retired_date"] > day] or fleet[dep]
            )
            express = rng.random() < p_express
            promised = day + timedelta(days=1 if express else rng.randint(2, 4))
            r = rng.random()
            status = "failed" if r < p_fail else ("returned" if r < p_fail * 1.8 else "delivered")
            if day in boundary and k == 0:
                status = "delivered"
            delivered = None
            if status == "delivered":
                delivered = (
                    promised - timedelta(days=rng.randint(0, 1))
                    if rng.random() < punctuality
                    else promised + timedelta(days=rng.randint(1, 3))
                )
                delivered = max(delivered, day)
            distance = rng.randint(15, 650)
            weight = rng.randint(50, vehicle["capacity_kg"])
            fee = int((2500 + distance * rng.uniform(90, 160) + weight * 0.4) * (1.45 if express else 1))
            rows.append(
                {
                    "client_id": rng.choices(client_rows, weights=client_weight)[0]["client_id"],
                    "depot_id": dep,
                    "vehicle_id": vehicle["vehicle_id"],
                    "driver_id": rng.choice(crew[dep])["driver_id"],
                    "pickup_date": day,
                    "promised_date": promised,
                    "delivered_date": delivered,
                    "status": status,
                    "weight_kg": weight,
                    "distance_km": distance,
                    "is_express": express,
                    "fee": fee,
                }
            )
    for sid, row in enumerate(rows, start=1):
        row["shipment_id"] = sid
    return rows


def generate(seed: int) -> dict[str, list[dict]]:
    """Table name -> rows for ``seed``, parents before children; money in integer cents."""
    rng = random.Random(seed)
    depot_rows = _depots(rng)
    vehicle_rows = _vehicles(rng, depot_rows)
    driver_rows = _drivers(rng, depot_rows)
    client_rows = _clients(rng)
    return {
        "depots": depot_rows,
        "vehicles": vehicle_rows,
        "drivers": driver_rows,
        "clients": client_rows,
        "shipments": _shipments(rng, depot_rows, vehicle_rows, driver_rows, client_rows),
    }


def build(engine: sa.Engine, seed: int = 0) -> None:
    """Create the tables and insert the rows of ``seed`` (the database must not hold them yet)."""
    create_and_fill(engine, metadata, TABLES, generate(seed))


def write(path: Path, seed: int = 0) -> str:
    """Build the schema for ``seed`` into a new SQLite file at ``path`` (replaced if present); its URL."""
    return write_sqlite(path, lambda engine: build(engine, seed))
