"""The blind sets' own schemas (:mod:`tests.schemas`): deterministic per seed, different across seeds,
every column documented with its metrics, and the data promises each module's docstring makes."""

from __future__ import annotations

import hashlib

import pytest
import sqlalchemy as sa

from services.schema_context import inspect_schema
from tests.schemas import airline, hotel, logistics, saas, university

_SCHEMAS = [airline, university, hotel, logistics]
_IDS = ["airline", "university", "hotel", "logistics"]


def _digest(module, seed: int) -> tuple:
    """The built engine, each table's (row count, SHA-256 of its rows), and the schema context."""
    engine = sa.create_engine("sqlite://")
    module.build(engine, seed)
    with engine.connect() as conn:
        tables = []
        for t in module.TABLES:
            rows = conn.exec_driver_sql(f"SELECT * FROM {t.name} ORDER BY 1").fetchall()
            tables.append((len(rows), hashlib.sha256(repr(rows).encode()).hexdigest()))
    return engine, tuple(tables), inspect_schema(engine)


@pytest.fixture(scope="module")
def databases():
    """(module, seed) -> :func:`_digest`; seed "again" rebuilds seed 0."""
    made = {(m, seed): _digest(m, 0 if seed == "again" else seed) for m in _SCHEMAS for seed in (0, 1, 2, "again")}
    yield made
    for engine, _, _ in made.values():
        engine.dispose()


@pytest.mark.parametrize("module", _SCHEMAS, ids=_IDS)
def test_schema_is_deterministic_per_seed_and_differs_across_seeds(databases, module):
    tables = {seed: databases[module, seed][1] for seed in (0, 1, 2, "again")}
    assert tables[0] == tables["again"]
    assert all(a[1] != b[1] for a, b in zip(tables[0][-3:], tables[1][-3:]))  # the tables the seed draws
    assert 400 <= max(n for n, _ in tables[0]) <= 5000  # a few thousand rows in the biggest table


@pytest.mark.parametrize("module", [hotel, logistics], ids=["hotel", "logistics"])
def test_every_table_of_blind_set_3s_schemas_differs_on_every_seed(databases, module):
    tables = {seed: databases[module, seed][1] for seed in (0, 1, 2)}
    assert all(len({tables[s][i][1] for s in (0, 1, 2)}) == 3 for i in range(len(module.TABLES)))
    assert 1000 <= max(n for n, _ in tables[0]) <= 5000


@pytest.mark.parametrize(
    "module, metrics",
    [
        (airline, ["[metric: ticket_revenue = SUM(bookings.fare)"]),
        (
            university,
            ["[metric: average_grade = AVG(enrollments.grade)", "[metric: credits_earned = SUM(courses.credits)"],
        ),
        (hotel, ["[metric: hotel_revenue = SUM(charges.amount) WHERE charges.voided = FALSE]"]),
        (logistics, ["[metric: freight_revenue = SUM(shipments.fee) WHERE shipments.status = 'delivered']"]),
    ],
    ids=_IDS,
)
def test_schema_documents_every_column_and_its_metrics(databases, module, metrics):
    ctx = databases[module, 0][2]
    assert len(ctx.tables) == len(module.TABLES) and all(c.comment for t in ctx.tables for c in t.columns)
    documented = " ".join(c.comment for t in ctx.tables for c in t.columns)
    assert all(m in documented for m in metrics)


# (schema, name, query): the query returns a false value (0 or no row) when the data keeps the promise
# its module docstring makes.
_PROMISES_2 = [
    (
        airline,
        "an-unserved-airport",
        "SELECT COUNT(*) = 0 FROM airports a WHERE NOT EXISTS "
        "(SELECT 1 FROM flights f WHERE a.airport_id IN (f.origin_id, f.destination_id))",
    ),
    (airline, "null-delay-iff-cancelled", "SELECT COUNT(*) FROM flights WHERE cancelled = (delay_minutes IS NOT NULL)"),
    (
        airline,
        "cancelled-flights-refunded",
        "SELECT COUNT(*) FROM bookings b JOIN flights f "
        "USING (flight_id) WHERE f.cancelled = 1 AND b.status <> 'refunded'",
    ),
    (
        airline,
        "passengers-who-never-booked",
        "SELECT COUNT(*) = 0 FROM passengers p WHERE NOT EXISTS "
        "(SELECT 1 FROM bookings b WHERE b.passenger_id = p.passenger_id)",
    ),
    (airline, "non-members", "SELECT COUNT(*) = 0 FROM passengers WHERE loyalty_tier IS NULL"),
    (airline, "no-round-trip-to-self", "SELECT COUNT(*) FROM flights WHERE origin_id = destination_id"),
    (
        airline,
        "booked-before-flying",
        "SELECT COUNT(*) FROM bookings b JOIN flights f USING (flight_id) WHERE b.booked_date > f.flight_date",
    ),
    (
        airline,
        "first-and-last-day-of-every-month",
        "SELECT COUNT(DISTINCT flight_date) <> 24 FROM flights "
        "WHERE flight_date = date(flight_date, 'start of month') "
        "OR flight_date = date(flight_date, 'start of month', '+1 month', '-1 day')",
    ),
    (
        airline,
        "fares-with-cents",
        "SELECT COUNT(*) = 0 FROM bookings WHERE CAST(ROUND(fare * 100) AS INTEGER) % 100 <> 0",
    ),
    (university, "undeclared-majors", "SELECT COUNT(*) = 0 FROM students WHERE major_department_id IS NULL"),
    (university, "unassigned-courses", "SELECT COUNT(*) = 0 FROM courses WHERE instructor_id IS NULL"),
    (university, "courses-without-lab", "SELECT COUNT(*) = 0 FROM courses WHERE lab_fee IS NULL"),
    (
        university,
        "idle-instructors",
        "SELECT COUNT(*) = 0 FROM instructors i WHERE NOT EXISTS "
        "(SELECT 1 FROM courses c WHERE c.instructor_id = i.instructor_id)",
    ),
    (
        university,
        "students-never-enrolled",
        "SELECT COUNT(*) = 0 FROM students s WHERE NOT EXISTS "
        "(SELECT 1 FROM enrollments e WHERE e.student_id = s.student_id)",
    ),
    (
        university,
        "grade-iff-completed",
        "SELECT COUNT(*) FROM enrollments WHERE (status = 'completed') <> (grade IS NOT NULL)",
    ),
    (
        university,
        "in-progress-only-2024-fall",
        "SELECT COUNT(*) FROM enrollments WHERE status = 'in_progress' AND term <> '2024-fall'",
    ),
    (university, "grades-0-to-4", "SELECT COUNT(*) FROM enrollments WHERE grade < 0 OR grade > 4"),
    (university, "some-fail", "SELECT COUNT(*) = 0 FROM enrollments WHERE status = 'completed' AND grade < 1.0"),
    (
        university,
        "one-enrollment-per-course-and-term",
        "SELECT COUNT(*) FROM (SELECT student_id, course_id, "
        "term FROM enrollments GROUP BY 1, 2, 3 HAVING COUNT(*) > 1)",
    ),
    (
        university,
        "boundary-registrations",
        "SELECT COUNT(*) = 0 FROM enrollments WHERE registered_date IN ('2024-08-31', '2024-07-01')",
    ),
]

_PROMISES_3 = [
    (
        hotel,
        "a-hotel-without-stays",
        "SELECT COUNT(*) = 0 FROM hotels h WHERE NOT EXISTS "
        "(SELECT 1 FROM rooms r JOIN stays s ON s.room_id = r.room_id WHERE r.hotel_id = h.hotel_id)",
    ),
    (
        hotel,
        "rooms-never-booked",
        "SELECT COUNT(*) = 0 FROM rooms r WHERE NOT EXISTS (SELECT 1 FROM stays s WHERE s.room_id = r.room_id)",
    ),
    (
        hotel,
        "guests-who-never-stayed",
        "SELECT COUNT(*) = 0 FROM guests g WHERE NOT EXISTS (SELECT 1 FROM stays s WHERE s.guest_id = g.guest_id)",
    ),
    (hotel, "null-emails-and-birth-years", "SELECT COUNT(*) = 0 FROM guests WHERE email IS NULL OR birth_year IS NULL"),
    (
        hotel,
        "cancelled-stays-unbilled",
        "SELECT COUNT(*) FROM charges c JOIN stays s ON s.stay_id = c.stay_id WHERE s.status = 'cancelled'",
    ),
    (
        hotel,
        "no-show-billed-one-room-charge",
        "SELECT COUNT(*) FROM stays s WHERE s.status = 'no_show' "
        "AND (SELECT COUNT(*) FROM charges c WHERE c.stay_id = s.stay_id AND c.category = 'room') <> 1",
    ),
    (hotel, "check-out-after-check-in", "SELECT COUNT(*) FROM stays WHERE check_out <= check_in"),
    (hotel, "some-charges-voided", "SELECT COUNT(*) = 0 FROM charges WHERE voided = 1"),
    (
        hotel,
        "spa-only-where-there-is-one",
        "SELECT COUNT(*) FROM charges c JOIN stays s "
        "ON s.stay_id = c.stay_id JOIN rooms r ON r.room_id = s.room_id JOIN hotels h ON h.hotel_id = r.hotel_id "
        "WHERE c.category = 'spa' AND h.has_spa = 0",
    ),
    (
        hotel,
        "check-ins-on-every-month-boundary",
        "SELECT COUNT(DISTINCT check_in) <> 24 FROM stays "
        "WHERE check_in = date(check_in, 'start of month') "
        "OR check_in = date(check_in, 'start of month', '+1 month', '-1 day')",
    ),
    (
        hotel,
        "amounts-with-cents",
        "SELECT COUNT(*) = 0 FROM charges WHERE CAST(ROUND(amount * 100) AS INTEGER) % 100 <> 0",
    ),
    (
        logistics,
        "a-depot-without-shipments",
        "SELECT COUNT(*) = 0 FROM depots d WHERE NOT EXISTS (SELECT 1 FROM shipments s WHERE s.depot_id = d.depot_id)",
    ),
    (
        logistics,
        "no-pickup-before-the-depot-opened",
        "SELECT COUNT(*) FROM shipments s JOIN depots d ON d.depot_id = s.depot_id WHERE s.pickup_date < d.opened_date",
    ),
    (
        logistics,
        "drivers-who-never-drove",
        "SELECT COUNT(*) = 0 FROM drivers d WHERE NOT EXISTS "
        "(SELECT 1 FROM shipments s WHERE s.driver_id = d.driver_id)",
    ),
    (
        logistics,
        "clients-who-never-shipped",
        "SELECT COUNT(*) = 0 FROM clients c WHERE NOT EXISTS "
        "(SELECT 1 FROM shipments s WHERE s.client_id = c.client_id)",
    ),
    (logistics, "retired-vehicles", "SELECT COUNT(*) = 0 FROM vehicles WHERE retired_date IS NOT NULL"),
    (logistics, "prepaying-clients", "SELECT COUNT(*) = 0 FROM clients WHERE credit_limit IS NULL"),
    (
        logistics,
        "delivered-date-iff-delivered",
        "SELECT COUNT(*) FROM shipments WHERE (status = 'delivered') <> (delivered_date IS NOT NULL)",
    ),
    (logistics, "delivered-after-pickup", "SELECT COUNT(*) FROM shipments WHERE delivered_date < pickup_date"),
    (logistics, "some-late", "SELECT COUNT(*) = 0 FROM shipments WHERE delivered_date > promised_date"),
    (
        logistics,
        "crew-and-fleet-of-the-depot",
        "SELECT COUNT(*) FROM shipments s "
        "JOIN drivers d ON d.driver_id = s.driver_id JOIN vehicles v ON v.vehicle_id = s.vehicle_id "
        "WHERE d.depot_id <> s.depot_id OR v.depot_id <> s.depot_id",
    ),
    (
        logistics,
        "pickups-on-every-month-boundary",
        "SELECT COUNT(DISTINCT pickup_date) <> 24 FROM shipments "
        "WHERE pickup_date = date(pickup_date, 'start of month') "
        "OR pickup_date = date(pickup_date, 'start of month', '+1 month', '-1 day')",
    ),
    (
        logistics,
        "fees-with-cents",
        "SELECT COUNT(*) = 0 FROM shipments WHERE CAST(ROUND(fee * 100) AS INTEGER) % 100 <> 0",
    ),
]


@pytest.mark.parametrize(
    "module, sql",
    [(m, sql) for m, _, sql in _PROMISES_2 + _PROMISES_3],
    ids=[f"{m.__name__.rsplit('.', 1)[1]}-{name}" for m, name, _ in _PROMISES_2 + _PROMISES_3],
)
def test_schema_data_keeps_its_promise(databases, module, sql):
    for seed in (0, 1, 2):
        with databases[module, seed][0].connect() as conn:
            assert not conn.exec_driver_sql(sql).scalar(), f"seed {seed}"


@pytest.mark.parametrize(
    "module, table, count",
    [(university, "departments", 7), (hotel, "hotels", 8), (logistics, "depots", 7)],
    ids=["university", "hotel", "logistics"],
)
def test_write_makes_a_sqlite_file(tmp_path, module, table, count):
    url = module.write(tmp_path / "x.sqlite", seed=2)
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql(f"SELECT COUNT(*) FROM {table}").scalar() == count
    finally:
        engine.dispose()


def _saas_digest(seed: int) -> tuple:
    engine = sa.create_engine("sqlite://")
    saas.build(engine, seed)
    with engine.connect() as conn:
        digest = tuple(
            conn.exec_driver_sql(sql).scalar()
            for sql in (
                "SELECT COUNT(*) || ':' || SUM(amount) FROM invoices",
                "SELECT COUNT(*) || ':' || COUNT(churned_date) || ':' || COUNT(employees) FROM accounts",
                "SELECT COUNT(*) || ':' || COUNT(closed_date) || ':' || COUNT(satisfaction) FROM support_tickets",
            )
        )
    ctx = inspect_schema(engine)
    engine.dispose()
    return digest, ctx


def test_saas_is_deterministic_per_seed_and_documents_its_metrics():
    (first, ctx), (again, _), (other, _) = _saas_digest(0), _saas_digest(0), _saas_digest(1)
    assert first == again and first != other
    assert "[metric: collected_revenue = SUM(invoices.amount)" in ctx.table("invoices").column("amount").comment
    assert "[metric: mrr =" in ctx.table("plans").column("seat_price").comment
    assert all(c.comment for t in ctx.tables for c in t.columns)
