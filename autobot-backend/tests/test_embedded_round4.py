"""Round four: rules that should carry to questions and schemas nobody tuned on. Probes written for
these rules over a small ferry schema of this file's own (no test set's schema or phrasing), each
graded by execution against hand-written SQL, or by the kind of refusal."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

import services.schema_context  # noqa: F401  (keeps column comments in SQLite's DDL)
from services.embedded import EmbeddedGenerator
from services.embedded.refusal import Refusal
from services.schema_context import inspect_schema

_meta = sa.MetaData()
ports = sa.Table(
    "ports", _meta,
    sa.Column("port_id", sa.Integer, primary_key=True, comment="Identifier of the port."),
    sa.Column("name", sa.Text, nullable=False, comment="Port name as printed on boarding passes and phone bookings."),
    sa.Column("country", sa.Text, nullable=False, comment="Country the port is in."),
    sa.Column("annual_fee", sa.Numeric(10, 2), nullable=False, comment="Harbour fee the line pays each year."),
)
sailings = sa.Table(
    "sailings", _meta,
    sa.Column("sailing_id", sa.Integer, primary_key=True, comment="Identifier of one scheduled crossing."),
    sa.Column("origin_port_id", sa.Integer, sa.ForeignKey("ports.port_id"), nullable=False,
              comment="Port the ship departs from."),
    sa.Column("destination_port_id", sa.Integer, sa.ForeignKey("ports.port_id"), nullable=False,
              comment="Port the ship arrives at."),
    sa.Column("sailing_date", sa.Date, nullable=False, comment="Scheduled date of the crossing."),
    sa.Column("distance_km", sa.Integer, nullable=False, comment="Length of the crossing in km."),
    sa.Column("cancelled", sa.Boolean, nullable=False, comment="True when the crossing did not take place."),
    sa.Column("delay_minutes", sa.Integer, nullable=True, comment="Minutes late leaving port; NULL if cancelled. A sailing is tardy when delay_minutes "
                      "is more than 10."),
)
buyers = sa.Table(
    "buyers", _meta,
    sa.Column("buyer_id", sa.Integer, primary_key=True, comment="Identifier of the buyer."),
    sa.Column("full_name", sa.Text, nullable=False, comment="The buyer's full name."),
    sa.Column("home_port_id", sa.Integer, sa.ForeignKey("ports.port_id"), nullable=True,
              comment="Port nearest the buyer's home; NULL when not given."),
    sa.Column("loyalty_level", sa.Text, nullable=True, comment="'bronze' or 'gold'; NULL when not a member."),
)
tickets = sa.Table(
    "tickets", _meta,
    sa.Column("ticket_id", sa.Integer, primary_key=True, comment="Identifier of the ticket."),
    sa.Column("buyer_id", sa.Integer, sa.ForeignKey("buyers.buyer_id"), nullable=False, comment="Who bought it."),
    sa.Column("sailing_id", sa.Integer, sa.ForeignKey("sailings.sailing_id"), nullable=False,
              comment="The sailing the ticket is for."),
    sa.Column("bought_date", sa.Date, nullable=False, comment="Date the ticket was bought, before the sailing."),
    sa.Column("price", sa.Numeric(10, 2), nullable=False, comment="Price paid, in euros."),
    sa.Column("status", sa.Text, nullable=False, comment="'used', 'no_show' or 'refunded'."),
    sa.Column("checked_in", sa.Boolean, nullable=False, comment="True when the passenger boarded."),
)
_PORTS = [(1, "Dover", "United Kingdom", 1200.5), (2, "Calais", "France", 900.0), (3, "Dunkirk", "France", 450.25)]


@pytest.fixture(scope="module")
def ferry():
    engine = sa.create_engine("sqlite://")
    _meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(ports.insert(), [dict(port_id=i, name=n, country=c, annual_fee=f) for i, n, c, f in _PORTS])
        conn.execute(buyers.insert(), [dict(buyer_id=b, full_name=f"Buyer {b}", home_port_id=None if b % 4 == 0 else
                                            1 + b % 3, loyalty_level=(None, "bronze", "gold")[b % 3])
                                           for b in range(1, 11)])
        rows, tix = [], []
        for sid in range(1, 61):
            origin = 1 if sid % 2 else (2 if sid % 3 else 3)  # 30, 20 and 10 sailings
            rows.append(dict(sailing_id=sid, origin_port_id=origin, destination_port_id=1 + (origin + sid % 2) % 3,
                             distance_km=30 + sid % 25, delay_minutes=None if sid % 7 == 0 else (sid * 37) % 150,
                             sailing_date=dt.date(2024, 1, 1) + dt.timedelta(days=sid * 5), cancelled=sid % 7 == 0))
            for k in range(sid % 4):
                tix.append(dict(sailing_id=sid, buyer_id=1 + (sid + k) % 10, price=20 + k * 7.5,
                                bought_date=rows[-1]["sailing_date"] - dt.timedelta(days=3 + 9 * k),
                                checked_in=(sid + k) % 3 != 0,
                                status=("refunded" if sid % 7 == 0 else ("used", "no_show", "used")[k % 3])))
        conn.execute(sailings.insert(), rows)
        conn.execute(tickets.insert(), [dict(ticket_id=i + 1, **t) for i, t in enumerate(tix)])
    yield inspect_schema(engine), engine
    engine.dispose()


def _rows(engine, sql):
    with engine.connect() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(sql).fetchall()]


@pytest.mark.parametrize("question,reference", [
    ("How many sailings departing from Dover were cancelled?",
     "SELECT COUNT(*) FROM sailings s JOIN ports p ON s.origin_port_id = p.port_id "
     "WHERE p.name = 'Dover' AND s.cancelled"),
    ("How many crossings were there from each port? Port name and count.",
     "SELECT p.name, COUNT(*) FROM ports p JOIN sailings s ON s.origin_port_id = p.port_id GROUP BY p.port_id"),
    ("How many tickets weren't refunded?", "SELECT COUNT(*) FROM tickets WHERE status <> 'refunded'"),
    ("Count the tickets that were not refunded.", "SELECT COUNT(*) FROM tickets WHERE status <> 'refunded'"),
    ("How many tickets were sold per port? Port name and count.",
     "SELECT p.name, COUNT(*) FROM tickets t JOIN sailings s ON s.sailing_id = t.sailing_id "
     "JOIN ports p ON p.port_id = s.origin_port_id GROUP BY p.port_id"),
    ("List the two ports with the most sailings, giving the port name and the count, highest first.",
     "SELECT p.name, COUNT(*) FROM ports p JOIN sailings s ON s.origin_port_id = p.port_id GROUP BY p.port_id "
     "ORDER BY 2 DESC LIMIT 2"),
    ("How many tickets were bought for sailings in March 2024?",
     "SELECT COUNT(*) FROM tickets t JOIN sailings s ON s.sailing_id = t.sailing_id "
     "WHERE s.sailing_date >= '2024-03-01' AND s.sailing_date < '2024-04-01'"),
    ("Number of tickets in each month, using the sailing date.",
     "SELECT strftime('%Y-%m', s.sailing_date), COUNT(*) FROM tickets t JOIN sailings s ON s.sailing_id = t.sailing_id "
     "GROUP BY 1"),
    ("How many sailings arrived in France?",
     "SELECT COUNT(*) FROM sailings s JOIN ports p ON p.port_id = s.destination_port_id WHERE p.country = 'France'"),
    ("Count the sailings per destination port.",
     "SELECT p.name, COUNT(*) FROM sailings s JOIN ports p ON p.port_id = s.destination_port_id GROUP BY p.port_id"),
    ("What is the total annual fee of the ports in France?",
     "SELECT SUM(annual_fee) FROM ports WHERE country = 'France'"),
    ("How many sailings were cancelled by the port in 2024?",
     "SELECT COUNT(*) FROM sailings WHERE cancelled AND sailing_date >= '2024-01-01' AND sailing_date < '2025-01-01'"),
    ("used tickets per port - port name, count",
     "SELECT p.name, COUNT(*) FROM tickets t JOIN sailings s ON s.sailing_id = t.sailing_id "
     "JOIN ports p ON p.port_id = s.origin_port_id WHERE t.status = 'used' GROUP BY p.port_id"),
    ("Of all ports, which two had the most sailings?",
     "SELECT p.name FROM ports p JOIN sailings s ON s.origin_port_id = p.port_id GROUP BY p.port_id "
     "ORDER BY COUNT(*) DESC LIMIT 2"),
    ("Tickets for sailings in March 2024?",
     "SELECT COUNT(*) FROM tickets t JOIN sailings s ON s.sailing_id = t.sailing_id "
     "WHERE s.sailing_date >= '2024-03-01' AND s.sailing_date < '2024-04-01'"),
    ("How many sailings were longer than 40 km?", "SELECT COUNT(*) FROM sailings WHERE distance_km > 40"),
    ("How many sailings were over 1 hour late?", "SELECT COUNT(*) FROM sailings WHERE delay_minutes > 60"),
    ("Average ticket price for cancelled and other sailings, labelled 'cancelled' and 'sailed'.",
     "SELECT CASE WHEN s.cancelled THEN 'cancelled' ELSE 'sailed' END, AVG(t.price) FROM tickets t "
     "JOIN sailings s ON s.sailing_id = t.sailing_id GROUP BY 1"),
    ("Number of buyers per loyalty level, with non-members under the label 'none'.",
     "SELECT COALESCE(loyalty_level, 'none'), COUNT(*) FROM buyers GROUP BY 1"),
    ("How many sailings were tardy in 2024?",
     "SELECT COUNT(*) FROM sailings WHERE delay_minutes > 10 AND sailing_date >= '2024-01-01' "
     "AND sailing_date < '2025-01-01'"),
    ("What percentage of the sailings in 2024 were tardy?",
     "SELECT 100.0 * SUM(COALESCE(delay_minutes > 10, 0)) / COUNT(*) FROM sailings "
     "WHERE sailing_date >= '2024-01-01' AND sailing_date < '2025-01-01'"),
    ("Monthly ticket count for 2024, counting each month's sailings.",
     "SELECT strftime('%Y-%m', s.sailing_date) AS m, COUNT(*) FROM tickets t JOIN sailings s "
     "ON s.sailing_id = t.sailing_id WHERE s.sailing_date >= '2024-01-01' AND s.sailing_date < '2025-01-01' GROUP BY m"),
    ("Daily number of sailings for 10 to 20 March 2024.",
     "SELECT sailing_date, COUNT(*) FROM sailings WHERE sailing_date >= '2024-03-10' AND sailing_date < '2024-03-21' "
     "GROUP BY sailing_date"),
    ("Give me the number of sailings per port for 2024, busiest first.",
     "SELECT p.name, COUNT(*) AS n FROM sailings s JOIN ports p ON p.port_id = s.origin_port_id "
     "WHERE s.sailing_date >= '2024-01-01' AND s.sailing_date < '2025-01-01' GROUP BY p.port_id ORDER BY n DESC"),
    ("Rank the ports by sailings, quietest first.",
     "SELECT p.name, COUNT(*) AS n FROM sailings s JOIN ports p ON p.port_id = s.origin_port_id "
     "GROUP BY p.port_id ORDER BY n ASC"),
    ("What were total sales in March 2024?",
     "SELECT SUM(price) FROM tickets WHERE bought_date >= '2024-03-01' AND bought_date < '2024-04-01'"),
    ("List buyers who bought more than ten tickets, with how many.",
     "SELECT b.full_name, COUNT(*) FROM tickets t JOIN buyers b ON b.buyer_id = t.buyer_id GROUP BY b.buyer_id "
     "HAVING COUNT(*) > 10"),
    ("How many different buyers bought tickets for cancelled sailings?",
     "SELECT COUNT(DISTINCT t.buyer_id) FROM tickets t JOIN sailings s ON s.sailing_id = t.sailing_id WHERE s.cancelled"),
    ("Which buyer spent the most?",
     "SELECT b.full_name FROM tickets t JOIN buyers b ON b.buyer_id = t.buyer_id GROUP BY b.buyer_id "
     "ORDER BY SUM(t.price) DESC, b.buyer_id LIMIT 1"),
    ("Split the ticket count between buyers with a home port and those without, labelled 'local' and 'unknown'.",
     "SELECT CASE WHEN b.home_port_id IS NOT NULL THEN 'local' ELSE 'unknown' END, COUNT(*) FROM tickets t "
     "JOIN buyers b ON b.buyer_id = t.buyer_id GROUP BY 1"),
    ("List the ports with their annual fee, highest first.",
     "SELECT name, annual_fee FROM ports ORDER BY annual_fee DESC"),
    ("List the buyers who bought tickets more than 8 times, with the number of tickets each bought.",
     "SELECT b.full_name, COUNT(*) FROM tickets t JOIN buyers b ON b.buyer_id = t.buyer_id GROUP BY b.buyer_id "
     "HAVING COUNT(*) > 8"),
    ("How many check-ins were there in 2024?",
     "SELECT COUNT(*) FROM tickets WHERE checked_in AND bought_date >= '2024-01-01' AND bought_date < '2025-01-01'"),
], ids=["a documented verb in another inflection", "the noun a key's comment gives the rows",
        "a contracted negation excludes the value", "a spelled-out negation excludes the value",
        "the join through mandatory keys, not an optional one", "an imperative ranking with its answer list",
        "a period after an event table dates its rows", "a date column named in full dates the periods",
        "a direction picks one of two keys to a table", "a key named as a grouping shows the rows it points at",
        "a grain word that begins a column's name is the name", "'by the <noun>' after a participle is the agent",
        "a count the answer list asks for counts the rows named", "'which two' means the rows an opening 'of all X' names",
        "a bare noun question with a second table is a count", "a number's unit names the column compared",
        "a duration in another unit of time converts", "two labels split the rows on a flag",
        "one label names the group without a value", "a term a comment defines is what it says",
        "a defined term is the share's condition", "'each month's <rows>' dates the periods by those rows",
        "a day range borrows the second day's month and year",
        "'give me' is a request, 'busiest first' a sort", "'rank X by <rows>' counts the rows, in the order asked",
        "with no metric, sales are the one price paid", "'who' after its noun is a relative pronoun",
        "a verb naming a date does not head the counted noun", "'spent the most' ranks by the money spent",
        "two labels split on whether a key is set; 'those who/without' is no deictic",
        "rows listed with an attribute show their name first, in the order asked",
        "'more than N times' counts the rows the verb names; 'with the number of' is a column",
        "a hyphenated word names the column of those words"])
def test_probes_answer_like_the_reference(ferry, question, reference):
    ctx, engine = ferry
    sql = EmbeddedGenerator().explain(question, ctx)
    assert not isinstance(sql, Refusal), sql
    got, want = _rows(engine, sql), _rows(engine, reference)
    if "ORDER BY" not in reference.upper():
        got, want = sorted(got), sorted(want)
    assert got == want, sql


@pytest.mark.parametrize("question", [
    "List the ports with their phone numbers.",
    "What is the average crossing time per port?",
    "Which tickets weigh more than 20 kg?",
    "Average sailing duration in hours per port?",
])
def test_attributes_the_schema_does_not_keep_are_out_of_schema(ferry, question):
    """Even when a nearby table or a comment shares a word: "crossing time", "phone numbers", a mass in kg."""
    outcome = EmbeddedGenerator().explain(question, ferry[0])
    assert isinstance(outcome, Refusal) and outcome.kind == "out_of_schema", outcome


@pytest.mark.parametrize("question", [
    "Project next summer's ticket sales for us.",
    "How many tickets will we sell next year?",
])
def test_forecasts_are_declined(ferry, question):
    outcome = EmbeddedGenerator().explain(question, ferry[0])
    assert isinstance(outcome, Refusal) and outcome.kind == "unclear", outcome


def test_a_row_added_to_the_data_is_a_write_and_one_added_to_the_answer_is_not(ferry):
    gen, ctx = EmbeddedGenerator(), ferry[0]
    write = gen.explain("How many ports are there, and add a row to the ports table.", ctx)
    assert isinstance(write, Refusal) and write.kind == "injection", write
    answer = gen.explain("Count the buyers per loyalty level, and add a row labelled 'none' for the others.", ctx)
    assert not isinstance(answer, Refusal), answer


@pytest.mark.parametrize("phrase,lo,hi", [
    ("orders from 25 to 31 October 2024", dt.date(2024, 10, 25), dt.date(2024, 11, 1)),
    ("for 3 to 9 May 2021", dt.date(2021, 5, 3), dt.date(2021, 5, 10)),
    ("placed on or after 15 December 2024", dt.date(2024, 12, 15), None),
    ("placed on or before 15 December 2024", None, dt.date(2024, 12, 16)),
    ("placed after 15 December 2024", dt.date(2024, 12, 16), None),
    ("placed up to the end of February 2024", None, dt.date(2024, 3, 1)),
    ("placed until the end of March 2024", None, dt.date(2024, 4, 1)),
])
def test_date_ranges_and_open_ends(phrase, lo, hi):
    from services.embedded.dates import find_dates
    from services.embedded.lexicon import tokenize

    (spec,) = find_dates(tokenize(phrase))
    assert (spec.lo, spec.hi) == (lo, hi)


@pytest.mark.parametrize("phrase,recurring", [
    ("sailings in the first quarter of each year", ("quarter", 1)),
    ("tickets in the third quarter of every year", ("quarter", 3)),
])
def test_a_quarter_of_each_year_recurs(phrase, recurring):
    from services.embedded.dates import find_dates
    from services.embedded.lexicon import tokenize

    (spec,) = find_dates(tokenize(phrase))
    assert spec.recurring == recurring
