"""Round five: no word of a question that restricts the rows is dropped silently. Probes over a small
climbing-gym schema of this file's own (no test set's schema or phrasing): a coded value said in
words, a value named with its table after a hyphen, a value said in the words its comment explains
it with, a negated verb for a 'no_<verb>' value, "no <count kept in a column>", a column "we do not
know", a value joining a year and a word ("winter 2024" for '2024-winter'), each graded by execution
against hand-written SQL; and a restricting word that names nothing, declined with the word named."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

import services.schema_context  # noqa: F401  (keeps column comments in SQLite's DDL)
from services.embedded import EmbeddedGenerator
from services.embedded.refusal import Refusal
from services.schema_context import inspect_schema

_meta = sa.MetaData()
passes = sa.Table(
    "passes", _meta,
    sa.Column("pass_id", sa.Integer, primary_key=True, comment="Identifier of the pass type."),
    sa.Column("name", sa.Text, nullable=False, comment="Pass name, e.g. 'Boulder' or 'Unlimited'."),
    sa.Column("monthly_price", sa.Numeric(8, 2), nullable=False, comment="Price of one month, in euros."),
)
climbers = sa.Table(
    "climbers", _meta,
    sa.Column("climber_id", sa.Integer, primary_key=True, comment="Identifier of the climber."),
    sa.Column("full_name", sa.Text, nullable=False, comment="The climber's full name."),
    sa.Column("pass_id", sa.Integer, sa.ForeignKey("passes.pass_id"), nullable=False, comment="Pass held."),
    sa.Column("injuries", sa.Integer, nullable=False, comment="How many injuries the climber has reported."),
    sa.Column("phone", sa.Text, nullable=True, comment="Mobile number; NULL when not given."),
)
sessions = sa.Table(
    "sessions", _meta,
    sa.Column("session_id", sa.Integer, primary_key=True, comment="Identifier of the booked session."),
    sa.Column("climber_id", sa.Integer, sa.ForeignKey("climbers.climber_id"), nullable=False,
              comment="Who booked it."),
    sa.Column("session_date", sa.Date, nullable=False, comment="Day of the session."),
    sa.Column("block", sa.Text, nullable=False, comment="Training block, e.g. '2024-winter'."),
    sa.Column("duration_minutes", sa.Integer, nullable=False, comment="Length of the session in minutes."),
    sa.Column("outcome", sa.Text, nullable=False, comment="'attended', 'no_show' (the climber stayed away) or 'late_cancel'."),
)


@pytest.fixture(scope="module")
def gym():
    engine = sa.create_engine("sqlite://")
    _meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(passes.insert(), [dict(pass_id=1, name="Boulder", monthly_price=39.0),
                                       dict(pass_id=2, name="Unlimited", monthly_price=59.0)])
        conn.execute(climbers.insert(), [dict(climber_id=c, full_name=f"Climber {c}", pass_id=1 + c % 2,
                                              injuries=c % 3, phone=None if c % 5 == 0 else f"+47 {c:04d}")
                                         for c in range(1, 13)])
        conn.execute(sessions.insert(), [dict(session_id=s, climber_id=1 + s % 12,
                                              session_date=dt.date(2024, 1, 1) + dt.timedelta(days=s * 3),
                                              block=("2023-winter", "2024-winter", "2024-summer")[s % 3],
                                              duration_minutes=45 + (s * 17) % 90,
                                              outcome=("attended", "no_show", "attended", "late_cancel")[s % 4])
                                         for s in range(1, 81)])
    yield inspect_schema(engine), engine
    engine.dispose()


def _rows(engine, sql):
    with engine.connect() as conn:
        return sorted((tuple(r) for r in conn.exec_driver_sql(sql).fetchall()), key=repr)


@pytest.mark.parametrize("question,reference", [
    ("How many sessions were no-shows?", "SELECT COUNT(*) FROM sessions WHERE outcome = 'no_show'"),
    ("Count the no-show sessions in 2024.",
     "SELECT COUNT(*) FROM sessions WHERE outcome = 'no_show' AND session_date >= '2024-01-01'"),
    ("How many late cancels were there?", "SELECT COUNT(*) FROM sessions WHERE outcome = 'late_cancel'"),
    ("How many Unlimited-pass climbers are there?",
     "SELECT COUNT(*) FROM climbers c JOIN passes p ON p.pass_id = c.pass_id WHERE p.name = 'Unlimited'"),
    ("How many sessions are there for Boulder-pass climbers?",
     "SELECT COUNT(*) FROM sessions s JOIN climbers c ON c.climber_id = s.climber_id "
     "JOIN passes p ON p.pass_id = c.pass_id WHERE p.name = 'Boulder'"),
    ("How many sessions in 2024 did climbers stay away from?",
     "SELECT COUNT(*) FROM sessions WHERE outcome = 'no_show' AND session_date >= '2024-01-01'"),
    ("How many climbers have no injuries?", "SELECT COUNT(*) FROM climbers WHERE injuries = 0"),
    ("Count the climbers whose phone we do not know.", "SELECT COUNT(*) FROM climbers WHERE phone IS NULL"),
    ("List the climbers whose phone we know.",
     "SELECT full_name FROM climbers WHERE phone IS NOT NULL"),
    ("How many sessions belong to winter 2024?", "SELECT COUNT(*) FROM sessions WHERE block = '2024-winter'"),
    ("For how many sessions in 2024 did the climber not show up?",
     "SELECT COUNT(*) FROM sessions WHERE outcome = 'no_show' AND session_date >= '2024-01-01'"),
], ids=["coded-value-plural", "coded-value-modifier", "coded-value-two-words", "value-hyphen-table",
        "value-hyphen-table-joined", "value-glossed-in-comment", "none-of-a-count-column", "not-known-is-missing",
        "known-is-present", "value-of-a-year-and-a-word",
        "negated-verb-of-a-no-value"])
def test_a_word_that_names_a_value_restricts_the_rows(gym, question, reference):
    ctx, engine = gym
    sql = EmbeddedGenerator().explain(question, ctx)
    assert isinstance(sql, str), sql
    assert _rows(engine, sql) == _rows(engine, reference), sql


@pytest.mark.parametrize("question,word", [
    ("How many climbers are happy?", "happy"),
    ("How many sessions were wasted?", "wasted"),
    ("How many stolen passes are there?", "stolen"),
    ("Count the sessions that were lost.", "lost"),
    ("How many long sessions were there in 2024?", "long"),
    ("How many climbers are loyal?", "loyal"),
], ids=["adjective-predicate", "participle-predicate", "participle-modifier", "relative-clause-predicate",
        "gradable-modifier", "gradable-predicate"])
def test_a_restricting_word_nothing_places_is_declined_by_name(gym, question, word):
    """Declined with the word named: by the unplaced-condition rule, or earlier as data the schema lacks."""
    outcome = EmbeddedGenerator().explain(question, gym[0])
    assert isinstance(outcome, Refusal), outcome
    assert outcome.kind in ("unclear", "out_of_schema") and repr(word) in outcome.reason, outcome


@pytest.mark.parametrize("question,reference", [
    ("How many sessions were booked in March 2024?",
     "SELECT COUNT(*) FROM sessions WHERE session_date >= '2024-03-01' AND session_date < '2024-04-01'"),
    ("Hi! How many climbers are there, please?", "SELECT COUNT(*) FROM climbers"),
    ("How many sessions were attended?", "SELECT COUNT(*) FROM sessions WHERE outcome = 'attended'"),
    ("Which climbers were the busiest? Names only, highest first, top 3.",
     "SELECT c.full_name FROM climbers c JOIN sessions s ON s.climber_id = c.climber_id "
     "GROUP BY c.climber_id ORDER BY COUNT(*) DESC, c.climber_id LIMIT 3"),
    ("Which pass is the most expensive? Name only.",
     "SELECT name FROM passes ORDER BY monthly_price DESC LIMIT 1"),
], ids=["event-verb", "politeness", "value-predicate", "superlative-and-output-words", "gradable-in-a-superlative"])
def test_words_that_do_not_restrict_are_not_declined(gym, question, reference):
    ctx, engine = gym
    sql = EmbeddedGenerator().explain(question, ctx)
    assert isinstance(sql, str), sql
    assert _rows(engine, sql) == _rows(engine, reference), sql


@pytest.mark.parametrize("question,reference", [
    ("Show each climber's phone.", "SELECT full_name, phone FROM climbers"),
    ("Show each climber's number of sessions.",
     "SELECT c.full_name, COUNT(*) FROM climbers c JOIN sessions s ON s.climber_id = c.climber_id "
     "GROUP BY c.climber_id"),
], ids=["own-attribute-listed", "a-measure-still-grouped"])
def test_each_rows_own_column_is_a_list_not_a_grouping(gym, question, reference):
    ctx, engine = gym
    sql = EmbeddedGenerator().explain(question, ctx)
    assert isinstance(sql, str), sql
    assert _rows(engine, sql) == _rows(engine, reference), sql


@pytest.mark.parametrize("question,reference", [
    ("What is the average session length per climber?",
     "SELECT c.full_name, AVG(s.duration_minutes) FROM sessions s JOIN climbers c ON c.climber_id = s.climber_id "
     "GROUP BY c.climber_id"),
    ("Average session length for each pass, please.",
     "SELECT p.name, AVG(s.duration_minutes) FROM sessions s JOIN climbers c ON c.climber_id = s.climber_id "
     "JOIN passes p ON p.pass_id = c.pass_id GROUP BY p.pass_id"),
], ids=["length-per-entity", "length-for-each-group"])
def test_an_average_length_per_group_averages_the_rows(gym, question, reference):
    ctx, engine = gym
    sql = EmbeddedGenerator().explain(question, ctx)
    assert isinstance(sql, str), sql
    assert _rows(engine, sql) == _rows(engine, reference), sql
