"""Two small schemas of the suite's own, a ferry line and a climbing gym, for probes graded by execution
against hand-written SQL. No test set uses them or their phrasing, so a rule is checked away from the
questions it was written for.

Each ``*_db`` yields ``(schema context, engine)`` over an in-memory SQLite database; a test module
wraps it in a fixture. :func:`assert_answers_like` and :func:`assert_same_rows` compare the
generator's rows with the reference's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import sqlalchemy as sa

import services.schema_context  # noqa: F401  (keeps column comments in SQLite's DDL)
from services.embedded import EmbeddedGenerator
from services.embedded.refusal import Refusal
from services.schema_context import SchemaContext, inspect_schema

_FERRY = sa.MetaData()
ports = sa.Table(
    "ports",
    _FERRY,
    sa.Column("port_id", sa.Integer, primary_key=True, comment="Identifier of the port."),
    sa.Column("name", sa.Text, nullable=False, comment="Port name as printed on boarding passes and phone bookings."),
    sa.Column("country", sa.Text, nullable=False, comment="Country the port is in."),
    sa.Column("annual_fee", sa.Numeric(10, 2), nullable=False, comment="Harbour fee the line pays each year."),
)
sailings = sa.Table(
    "sailings",
    _FERRY,
    sa.Column("sailing_id", sa.Integer, primary_key=True, comment="Identifier of one scheduled crossing."),
    sa.Column(
        "origin_port_id",
        sa.Integer,
        sa.ForeignKey("ports.port_id"),
        nullable=False,
        comment="Port the ship departs from.",
    ),
    sa.Column(
        "destination_port_id",
        sa.Integer,
        sa.ForeignKey("ports.port_id"),
        nullable=False,
        comment="Port the ship arrives at.",
    ),
    sa.Column("sailing_date", sa.Date, nullable=False, comment="Scheduled date of the crossing."),
    sa.Column("distance_km", sa.Integer, nullable=False, comment="Length of the crossing in km."),
    sa.Column("cancelled", sa.Boolean, nullable=False, comment="True when the crossing did not take place."),
    sa.Column(
        "delay_minutes",
        sa.Integer,
        nullable=True,
        comment="Minutes late leaving port; NULL if cancelled. A sailing is tardy when delay_minutes is more than 10.",
    ),
)
buyers = sa.Table(
    "buyers",
    _FERRY,
    sa.Column("buyer_id", sa.Integer, primary_key=True, comment="Identifier of the buyer."),
    sa.Column("full_name", sa.Text, nullable=False, comment="The buyer's full name."),
    sa.Column(
        "home_port_id",
        sa.Integer,
        sa.ForeignKey("ports.port_id"),
        nullable=True,
        comment="Port nearest the buyer's home; NULL when not given.",
    ),
    sa.Column("loyalty_level", sa.Text, nullable=True, comment="'bronze' or 'gold'; NULL when not a member."),
)
tickets = sa.Table(
    "tickets",
    _FERRY,
    sa.Column("ticket_id", sa.Integer, primary_key=True, comment="Identifier of the ticket."),
    sa.Column("buyer_id", sa.Integer, sa.ForeignKey("buyers.buyer_id"), nullable=False, comment="Who bought it."),
    sa.Column(
        "sailing_id",
        sa.Integer,
        sa.ForeignKey("sailings.sailing_id"),
        nullable=False,
        comment="The sailing the ticket is for.",
    ),
    sa.Column("bought_date", sa.Date, nullable=False, comment="Date the ticket was bought, before the sailing."),
    sa.Column("price", sa.Numeric(10, 2), nullable=False, comment="Price paid, in euros."),
    sa.Column("status", sa.Text, nullable=False, comment="'used', 'no_show' or 'refunded'."),
    sa.Column("checked_in", sa.Boolean, nullable=False, comment="True when the passenger boarded."),
)
_PORTS = [(1, "Dover", "United Kingdom", 1200.5), (2, "Calais", "France", 900.0), (3, "Dunkirk", "France", 450.25)]


def ferry_db() -> Iterator[tuple[SchemaContext, sa.Engine]]:
    """A ferry line: ports, sailings between them (two keys to the ports), buyers and their tickets."""
    engine = sa.create_engine("sqlite://")
    _FERRY.create_all(engine)
    with engine.begin() as conn:
        conn.execute(ports.insert(), [dict(port_id=i, name=n, country=c, annual_fee=f) for i, n, c, f in _PORTS])
        conn.execute(
            buyers.insert(),
            [
                dict(
                    buyer_id=b,
                    full_name=f"Buyer {b}",
                    home_port_id=None if b % 4 == 0 else 1 + b % 3,
                    loyalty_level=(None, "bronze", "gold")[b % 3],
                )
                for b in range(1, 11)
            ],
        )
        rows, tix = [], []
        for sid in range(1, 61):
            origin = 1 if sid % 2 else (2 if sid % 3 else 3)  # 30, 20 and 10 sailings
            rows.append(
                dict(
                    sailing_id=sid,
                    origin_port_id=origin,
                    destination_port_id=1 + (origin + sid % 2) % 3,
                    distance_km=30 + sid % 25,
                    delay_minutes=None if sid % 7 == 0 else (sid * 37) % 150,
                    sailing_date=dt.date(2024, 1, 1) + dt.timedelta(days=sid * 5),
                    cancelled=sid % 7 == 0,
                )
            )
            for k in range(sid % 4):
                tix.append(
                    dict(
                        sailing_id=sid,
                        buyer_id=1 + (sid + k) % 10,
                        price=20 + k * 7.5,
                        bought_date=rows[-1]["sailing_date"] - dt.timedelta(days=3 + 9 * k),
                        checked_in=(sid + k) % 3 != 0,
                        status=("refunded" if sid % 7 == 0 else ("used", "no_show", "used")[k % 3]),
                    )
                )
        conn.execute(sailings.insert(), rows)
        conn.execute(tickets.insert(), [dict(ticket_id=i + 1, **t) for i, t in enumerate(tix)])
    yield inspect_schema(engine), engine
    engine.dispose()


_GYM = sa.MetaData()
passes = sa.Table(
    "passes",
    _GYM,
    sa.Column("pass_id", sa.Integer, primary_key=True, comment="Identifier of the pass type."),
    sa.Column("name", sa.Text, nullable=False, comment="Pass name, e.g. 'Boulder' or 'Unlimited'."),
    sa.Column("monthly_price", sa.Numeric(8, 2), nullable=False, comment="Price of one month, in euros."),
)
climbers = sa.Table(
    "climbers",
    _GYM,
    sa.Column("climber_id", sa.Integer, primary_key=True, comment="Identifier of the climber."),
    sa.Column("full_name", sa.Text, nullable=False, comment="The climber's full name."),
    sa.Column("pass_id", sa.Integer, sa.ForeignKey("passes.pass_id"), nullable=False, comment="Pass held."),
    sa.Column("injuries", sa.Integer, nullable=False, comment="How many injuries the climber has reported."),
    sa.Column("phone", sa.Text, nullable=True, comment="Mobile number; NULL when not given."),
)
sessions = sa.Table(
    "sessions",
    _GYM,
    sa.Column("session_id", sa.Integer, primary_key=True, comment="Identifier of the booked session."),
    sa.Column("climber_id", sa.Integer, sa.ForeignKey("climbers.climber_id"), nullable=False, comment="Who booked it."),
    sa.Column("session_date", sa.Date, nullable=False, comment="Day of the session."),
    sa.Column("block", sa.Text, nullable=False, comment="Training block, e.g. '2024-winter'."),
    sa.Column("duration_minutes", sa.Integer, nullable=False, comment="Length of the session in minutes."),
    sa.Column(
        "outcome", sa.Text, nullable=False, comment="'attended', 'no_show' (the climber stayed away) or 'late_cancel'."
    ),
)


def gym_db() -> Iterator[tuple[SchemaContext, sa.Engine]]:
    """A climbing gym: passes, climbers and their booked sessions, with coded outcomes and a '2024-winter' block."""
    engine = sa.create_engine("sqlite://")
    _GYM.create_all(engine)
    with engine.begin() as conn:
        conn.execute(
            passes.insert(),
            [
                dict(pass_id=1, name="Boulder", monthly_price=39.0),
                dict(pass_id=2, name="Unlimited", monthly_price=59.0),
            ],
        )
        conn.execute(
            climbers.insert(),
            [
                dict(
                    climber_id=c,
                    full_name=f"Climber {c}",
                    pass_id=1 + c % 2,
                    injuries=c % 3,
                    phone=None if c % 5 == 0 else f"+47 {c:04d}",
                )
                for c in range(1, 13)
            ],
        )
        conn.execute(
            sessions.insert(),
            [
                dict(
                    session_id=s,
                    climber_id=1 + s % 12,
                    session_date=dt.date(2024, 1, 1) + dt.timedelta(days=s * 3),
                    block=("2023-winter", "2024-winter", "2024-summer")[s % 3],
                    duration_minutes=45 + (s * 17) % 90,
                    outcome=("attended", "no_show", "attended", "late_cancel")[s % 4],
                )
                for s in range(1, 81)
            ],
        )
    yield inspect_schema(engine), engine
    engine.dispose()


def rows(engine: sa.Engine, sql: str) -> list[tuple]:
    with engine.connect() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(sql).fetchall()]


def assert_answers_like(db: tuple[SchemaContext, sa.Engine], question: str, reference: str) -> None:
    """The generated query returns the reference's rows (in the reference's order when it has an ORDER BY)."""
    ctx, engine = db
    sql = EmbeddedGenerator().explain(question, ctx)
    assert not isinstance(sql, Refusal), sql
    got, want = rows(engine, sql), rows(engine, reference)
    if "ORDER BY" not in reference.upper():
        got, want = sorted(got), sorted(want)
    assert got == want, sql


def assert_same_rows(db: tuple[SchemaContext, sa.Engine], question: str, reference: str) -> None:
    """The generated query returns the reference's rows, in any order."""
    ctx, engine = db
    sql = EmbeddedGenerator().explain(question, ctx)
    assert isinstance(sql, str), sql
    assert sorted(rows(engine, sql), key=repr) == sorted(rows(engine, reference), key=repr), sql
