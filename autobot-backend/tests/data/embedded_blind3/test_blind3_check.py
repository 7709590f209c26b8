"""The third blind set: its loader, its set-level checks, its two schemas, and the set itself."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import sqlalchemy as sa

from services.schema_context import inspect_schema
from tests.data.embedded_blind3 import check, schema_hotel, schema_logistics
from tests.data.embedded_blind3.blindset3 import BlindSetError, Question, load_file, load_set

_REFUSE = "questions:\n  - id: x\n    question: q\n    expect: refuse\n    stratum: s\n    why: w\n"


def _q(qid: str, text: str = "?", schema: str = "hotel", split: str = "holdout", stratum: str = "s",
       expect: str = "answer") -> Question:
    return Question(id=qid, question=text, expect=expect, stratum=stratum, schema=schema, split=split,
                    path=Path(f"{schema}_{split}.yaml"), shape="scalar", ordered=False,
                    sql="SELECT 1" if expect == "answer" else None)


@pytest.mark.parametrize("name, text, expected", [
    ("airline_holdout.yaml", "schema: airline\nsplit: holdout\n" + _REFUSE, "schema must be one of"),
    ("hotel_tune.yaml", "schema: hotel\nsplit: holdout\n" + _REFUSE, "must be named hotel_holdout.yaml"),
    ("hotel_holdout.yaml", "schema: hotel\nsplit: holdout\nquestions:\n  - id: x\n    question: q\n"
                           "    expect: answer\n    stratum: s\n    shape: scalar\n    ordered: false\n",
     "missing keys for expect: answer: sql"),
    ("logistics_holdout.yaml", "schema: logistics\nsplit: holdout\nquestions: []\n", "must be a non-empty list"),
    ("hotel_holdout.yaml", "schema: [unclosed\n", "does not parse"),
], ids=["earlier-set-schema", "misnamed-file", "answer-without-sql", "empty", "bad-yaml"])
def test_loading_rejects_a_malformed_file(tmp_path, name, text, expected):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BlindSetError, match=name) as err:
        load_file(path)
    assert expected in str(err.value)


def test_loading_accepts_this_sets_schemas_and_rejects_duplicate_ids(tmp_path):
    (tmp_path / "logistics_holdout.yaml").write_text("schema: logistics\nsplit: holdout\n" + _REFUSE,
                                                     encoding="utf-8")
    assert [(q.schema, q.split, q.id) for q in load_set(tmp_path)] == [("logistics", "holdout", "x")]
    (tmp_path / "hotel_holdout.yaml").write_text("schema: hotel\nsplit: holdout\n" + _REFUSE, encoding="utf-8")
    with pytest.raises(BlindSetError, match="duplicate id"):
        load_set(tmp_path)


def test_sizes_refusals_controls_and_the_holdout_split_are_checked_per_file():
    questions = [_q("a"), _q("b", expect="refuse"), _q("c", schema="logistics", split="tune")]
    problems = check.size_problems(questions)
    assert "logistics_tune.yaml: split is not 'holdout'; this set is a pure holdout" in problems
    assert "hotel: 1 answerable questions, the brief asks for 18" in problems
    assert "retail+retail_24m: 0 answerable questions, the brief asks for 45" in problems
    assert "hotel_holdout.yaml: 1 must-refuse cases, at least 5 wanted" in problems
    assert "hotel_holdout.yaml: 0 control- questions, at least 2 wanted" in problems
    enough = [_q(f"a{i}") for i in range(18)] + [_q(f"r{i}", expect="refuse") for i in range(5)] \
        + [_q(f"c{i}", stratum="control-chitchat") for i in range(2)]
    assert not [p for p in check.size_problems(enough) if p.startswith(("hotel:", "hotel_holdout.yaml"))]


def test_overlap_with_earlier_sets_names_only_this_sets_id():
    mine = [_q("mine-1", "How many stays were cancelled in March?"), _q("mine-2", "Average fee by depot?")]
    theirs = [_q("theirs-1", "how many stays were cancelled in march"), _q("theirs-2", "Revenue by channel")]
    problems = check.overlap_with(mine, theirs)
    assert len(problems) == 1 and problems[0].startswith("hotel_holdout.yaml: mine-1: a near-duplicate")
    assert "theirs" not in problems[0] and "cancelled" not in problems[0]


def test_earlier_sets_cover_both_earlier_blind_sets():
    schemas = {q.schema for q in check.earlier_sets()}
    assert {"library", "clinic", "saas", "airline", "university"} <= schemas


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


_SCHEMAS = [schema_hotel, schema_logistics]
_IDS = ["hotel", "logistics"]


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
    assert all(len({tables[s][i][1] for s in (0, 1, 2)}) == 3 for i in range(len(module.TABLES)))
    assert 1000 <= max(n for n, _ in tables[0]) <= 5000  # a few thousand rows in the biggest table


@pytest.mark.parametrize("module, metric", [
    (schema_hotel, "[metric: hotel_revenue = SUM(charges.amount) WHERE charges.voided = FALSE]"),
    (schema_logistics, "[metric: freight_revenue = SUM(shipments.fee) WHERE shipments.status = 'delivered']"),
], ids=_IDS)
def test_schema_documents_every_column_and_its_metric(databases, module, metric):
    ctx = databases[module, 0][2]
    assert len(ctx.tables) == len(module.TABLES) and all(c.comment for t in ctx.tables for c in t.columns)
    assert metric in " ".join(c.comment for t in ctx.tables for c in t.columns)


# (schema, name, query): the query returns a false value (0 or no row) when the data keeps the promise
# its module docstring makes.
_PROMISES = [
    (schema_hotel, "a-hotel-without-stays", "SELECT COUNT(*) = 0 FROM hotels h WHERE NOT EXISTS "
     "(SELECT 1 FROM rooms r JOIN stays s ON s.room_id = r.room_id WHERE r.hotel_id = h.hotel_id)"),
    (schema_hotel, "rooms-never-booked", "SELECT COUNT(*) = 0 FROM rooms r WHERE NOT EXISTS "
     "(SELECT 1 FROM stays s WHERE s.room_id = r.room_id)"),
    (schema_hotel, "guests-who-never-stayed", "SELECT COUNT(*) = 0 FROM guests g WHERE NOT EXISTS "
     "(SELECT 1 FROM stays s WHERE s.guest_id = g.guest_id)"),
    (schema_hotel, "null-emails-and-birth-years",
     "SELECT COUNT(*) = 0 FROM guests WHERE email IS NULL OR birth_year IS NULL"),
    (schema_hotel, "cancelled-stays-unbilled", "SELECT COUNT(*) FROM charges c JOIN stays s "
     "ON s.stay_id = c.stay_id WHERE s.status = 'cancelled'"),
    (schema_hotel, "no-show-billed-one-room-charge", "SELECT COUNT(*) FROM stays s WHERE s.status = 'no_show' "
     "AND (SELECT COUNT(*) FROM charges c WHERE c.stay_id = s.stay_id AND c.category = 'room') <> 1"),
    (schema_hotel, "check-out-after-check-in", "SELECT COUNT(*) FROM stays WHERE check_out <= check_in"),
    (schema_hotel, "some-charges-voided", "SELECT COUNT(*) = 0 FROM charges WHERE voided = 1"),
    (schema_hotel, "spa-only-where-there-is-one", "SELECT COUNT(*) FROM charges c JOIN stays s "
     "ON s.stay_id = c.stay_id JOIN rooms r ON r.room_id = s.room_id JOIN hotels h ON h.hotel_id = r.hotel_id "
     "WHERE c.category = 'spa' AND h.has_spa = 0"),
    (schema_hotel, "check-ins-on-every-month-boundary", "SELECT COUNT(DISTINCT check_in) <> 24 FROM stays "
     "WHERE check_in = date(check_in, 'start of month') "
     "OR check_in = date(check_in, 'start of month', '+1 month', '-1 day')"),
    (schema_hotel, "amounts-with-cents",
     "SELECT COUNT(*) = 0 FROM charges WHERE CAST(ROUND(amount * 100) AS INTEGER) % 100 <> 0"),
    (schema_logistics, "a-depot-without-shipments", "SELECT COUNT(*) = 0 FROM depots d WHERE NOT EXISTS "
     "(SELECT 1 FROM shipments s WHERE s.depot_id = d.depot_id)"),
    (schema_logistics, "no-pickup-before-the-depot-opened", "SELECT COUNT(*) FROM shipments s JOIN depots d "
     "ON d.depot_id = s.depot_id WHERE s.pickup_date < d.opened_date"),
    (schema_logistics, "drivers-who-never-drove", "SELECT COUNT(*) = 0 FROM drivers d WHERE NOT EXISTS "
     "(SELECT 1 FROM shipments s WHERE s.driver_id = d.driver_id)"),
    (schema_logistics, "clients-who-never-shipped", "SELECT COUNT(*) = 0 FROM clients c WHERE NOT EXISTS "
     "(SELECT 1 FROM shipments s WHERE s.client_id = c.client_id)"),
    (schema_logistics, "retired-vehicles", "SELECT COUNT(*) = 0 FROM vehicles WHERE retired_date IS NOT NULL"),
    (schema_logistics, "prepaying-clients", "SELECT COUNT(*) = 0 FROM clients WHERE credit_limit IS NULL"),
    (schema_logistics, "delivered-date-iff-delivered",
     "SELECT COUNT(*) FROM shipments WHERE (status = 'delivered') <> (delivered_date IS NOT NULL)"),
    (schema_logistics, "delivered-after-pickup", "SELECT COUNT(*) FROM shipments WHERE delivered_date < pickup_date"),
    (schema_logistics, "some-late", "SELECT COUNT(*) = 0 FROM shipments WHERE delivered_date > promised_date"),
    (schema_logistics, "crew-and-fleet-of-the-depot", "SELECT COUNT(*) FROM shipments s "
     "JOIN drivers d ON d.driver_id = s.driver_id JOIN vehicles v ON v.vehicle_id = s.vehicle_id "
     "WHERE d.depot_id <> s.depot_id OR v.depot_id <> s.depot_id"),
    (schema_logistics, "pickups-on-every-month-boundary", "SELECT COUNT(DISTINCT pickup_date) <> 24 FROM shipments "
     "WHERE pickup_date = date(pickup_date, 'start of month') "
     "OR pickup_date = date(pickup_date, 'start of month', '+1 month', '-1 day')"),
    (schema_logistics, "fees-with-cents",
     "SELECT COUNT(*) = 0 FROM shipments WHERE CAST(ROUND(fee * 100) AS INTEGER) % 100 <> 0"),
]


@pytest.mark.parametrize("module, sql", [(m, sql) for m, _, sql in _PROMISES],
                         ids=[f"{m.__name__.rsplit('_', 1)[1]}-{name}" for m, name, _ in _PROMISES])
def test_schema_data_keeps_its_promise(databases, module, sql):
    for seed in (0, 1, 2):
        with databases[module, seed][0].connect() as conn:
            assert not conn.exec_driver_sql(sql).scalar(), f"seed {seed}"


@pytest.mark.parametrize("module, table, count", [(schema_hotel, "hotels", 8), (schema_logistics, "depots", 7)],
                         ids=_IDS)
def test_write_makes_a_sqlite_file(tmp_path, module, table, count):
    url = module.write(tmp_path / "x.sqlite", seed=2)
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql(f"SELECT COUNT(*) FROM {table}").scalar() == count
    finally:
        engine.dispose()


def test_cli_exits_2_naming_the_file_when_a_file_does_not_load(tmp_path, capsys):
    (tmp_path / "hotel_holdout.yaml").write_text("schema: hotel\nsplit: holdout\nquestions: []\n", encoding="utf-8")
    assert check.main(["--dir", str(tmp_path)]) == 2
    assert "hotel_holdout.yaml: questions: must be a non-empty list" in capsys.readouterr().err


def test_every_file_of_the_set_is_a_holdout():
    questions = load_set()
    assert {q.split for q in questions} == {"holdout"}
    assert {q.schema for q in questions} == {"retail", "retail_24m", "hotel", "logistics"}


@pytest.mark.slow
def test_the_third_blind_set_passes_its_checks():
    questions = load_set()
    engines = check.build_engines(check.BUILDERS)
    try:
        assert check.check_set(questions, engines, check.earlier_sets()) == []
    finally:
        for engine in engines.values():
            engine.dispose()
