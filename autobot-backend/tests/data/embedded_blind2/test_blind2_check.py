"""The second blind set: its loader, its set-level checks, its two schemas, and the set itself."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import sqlalchemy as sa

from services.schema_context import inspect_schema
from tests.data.embedded_blind2 import check, schema_airline, schema_university
from tests.data.embedded_blind2.blindset2 import BlindSetError, Question, load_file, load_set, load_split

_REFUSE = "questions:\n  - id: x\n    question: q\n    expect: refuse\n    stratum: s\n    why: w\n"


def _q(qid: str, text: str = "?", schema: str = "airline", split: str = "tune", stratum: str = "s",
       expect: str = "answer") -> Question:
    return Question(id=qid, question=text, expect=expect, stratum=stratum, schema=schema, split=split,
                    path=Path(f"{schema}_{split}.yaml"), shape="scalar", ordered=False,
                    sql="SELECT 1" if expect == "answer" else None)


@pytest.mark.parametrize("name, text, expected", [
    ("library_tune.yaml", "schema: library\nsplit: tune\n" + _REFUSE, "schema must be one of"),
    ("airline_tune.yaml", "schema: airline\nsplit: holdout\n" + _REFUSE, "must be named airline_holdout.yaml"),
    ("airline_tune.yaml", "schema: airline\nsplit: tune\nquestions:\n  - id: x\n    question: q\n"
                          "    expect: answer\n    stratum: s\n    shape: scalar\n    ordered: false\n",
     "missing keys for expect: answer: sql"),
    ("airline_tune.yaml", "schema: airline\nsplit: tune\nquestions: []\n", "must be a non-empty list"),
    ("airline_tune.yaml", "schema: [unclosed\n", "does not parse"),
], ids=["first-set-schema", "misnamed-file", "answer-without-sql", "empty", "bad-yaml"])
def test_loading_rejects_a_malformed_file(tmp_path, name, text, expected):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BlindSetError, match=name) as err:
        load_file(path)
    assert expected in str(err.value)


def test_loading_accepts_this_sets_schemas_and_rejects_duplicate_ids(tmp_path):
    (tmp_path / "university_tune.yaml").write_text("schema: university\nsplit: tune\n" + _REFUSE, encoding="utf-8")
    assert [(q.schema, q.split, q.id) for q in load_set(tmp_path)] == [("university", "tune", "x")]
    (tmp_path / "airline_holdout.yaml").write_text("schema: airline\nsplit: holdout\n" + _REFUSE, encoding="utf-8")
    with pytest.raises(BlindSetError, match="duplicate id"):
        load_set(tmp_path)


def test_load_split_keeps_one_split_and_names_a_wrong_one(tmp_path):
    (tmp_path / "airline_tune.yaml").write_text("schema: airline\nsplit: tune\n" + _REFUSE, encoding="utf-8")
    assert [q.split for q in load_split("tune", tmp_path)] == ["tune"]
    assert load_split("holdout", tmp_path) == []
    with pytest.raises(BlindSetError, match="unknown split 'test'"):
        load_split("test", tmp_path)


def test_sizes_refusals_and_controls_are_counted_per_file():
    questions = [_q("a"), _q("b", expect="refuse")]
    problems = check.size_problems(questions)
    assert "airline tune: 1 answerable questions, the brief asks for 25" in problems
    assert "retail+retail_24m holdout: 0 answerable questions, the brief asks for 40" in problems
    assert "airline_tune.yaml: 1 must-refuse cases, at least 3 wanted" in problems
    assert "airline_tune.yaml: 0 control- questions, at least 1 wanted" in problems
    with_control = questions + [_q("c", stratum="control-chitchat")]
    assert "airline_tune.yaml: 0 control- questions, at least 1 wanted" not in check.size_problems(with_control)


def test_overlap_with_the_first_set_names_only_this_sets_id():
    mine = [_q("mine-1", "How many flights were cancelled in March?"), _q("mine-2", "Average salary by department?")]
    theirs = [_q("theirs-1", "how many flights were cancelled in march"), _q("theirs-2", "Revenue by channel")]
    problems = check.overlap_with(mine, theirs)
    assert len(problems) == 1 and problems[0].startswith("airline_tune.yaml: mine-1: a near-duplicate")
    assert "theirs" not in problems[0] and "cancelled" not in problems[0]


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


_SCHEMAS = [schema_airline, schema_university]
_IDS = ["airline", "university"]


@pytest.fixture(scope="module")
def databases():
    """(module, seed) -> :func:`_digest`; seed "again" rebuilds seed 0."""
    made = {(m, seed): _digest(m, 0 if seed == "again" else seed) for m in _SCHEMAS for seed in (0, 1, "again")}
    yield made
    for engine, _, _ in made.values():
        engine.dispose()


@pytest.mark.parametrize("module", _SCHEMAS, ids=_IDS)
def test_schema_is_deterministic_per_seed_and_differs_across_seeds(databases, module):
    tables = {seed: databases[module, seed][1] for seed in (0, 1, "again")}
    assert tables[0] == tables["again"]
    assert all(a[1] != b[1] for a, b in zip(tables[0][-3:], tables[1][-3:]))  # the tables the seed draws
    assert all(400 <= n <= 5000 for n, _ in tables[0][-2:])  # the two biggest tables


@pytest.mark.parametrize("module, metrics", [
    (schema_airline, ["[metric: ticket_revenue = SUM(bookings.fare)"]),
    (schema_university, ["[metric: average_grade = AVG(enrollments.grade)",
                         "[metric: credits_earned = SUM(courses.credits)"]),
], ids=_IDS)
def test_schema_documents_every_column_and_its_metrics(databases, module, metrics):
    ctx = databases[module, 0][2]
    assert len(ctx.tables) == len(module.TABLES) and all(c.comment for t in ctx.tables for c in t.columns)
    documented = " ".join(c.comment for t in ctx.tables for c in t.columns)
    assert all(m in documented for m in metrics)


# (schema, name, query): the query returns a false value (0 or no row) when the data keeps the promise
# its module docstring makes.
_PROMISES = [
    (schema_airline, "an-unserved-airport", "SELECT COUNT(*) = 0 FROM airports a WHERE NOT EXISTS "
     "(SELECT 1 FROM flights f WHERE a.airport_id IN (f.origin_id, f.destination_id))"),
    (schema_airline, "null-delay-iff-cancelled",
     "SELECT COUNT(*) FROM flights WHERE cancelled = (delay_minutes IS NOT NULL)"),
    (schema_airline, "cancelled-flights-refunded", "SELECT COUNT(*) FROM bookings b JOIN flights f "
     "USING (flight_id) WHERE f.cancelled = 1 AND b.status <> 'refunded'"),
    (schema_airline, "passengers-who-never-booked", "SELECT COUNT(*) = 0 FROM passengers p WHERE NOT EXISTS "
     "(SELECT 1 FROM bookings b WHERE b.passenger_id = p.passenger_id)"),
    (schema_airline, "non-members", "SELECT COUNT(*) = 0 FROM passengers WHERE loyalty_tier IS NULL"),
    (schema_airline, "no-round-trip-to-self", "SELECT COUNT(*) FROM flights WHERE origin_id = destination_id"),
    (schema_airline, "booked-before-flying", "SELECT COUNT(*) FROM bookings b JOIN flights f USING (flight_id) "
     "WHERE b.booked_date > f.flight_date"),
    (schema_airline, "first-and-last-day-of-every-month", "SELECT COUNT(DISTINCT flight_date) <> 24 FROM flights "
     "WHERE flight_date = date(flight_date, 'start of month') "
     "OR flight_date = date(flight_date, 'start of month', '+1 month', '-1 day')"),
    (schema_airline, "fares-with-cents",
     "SELECT COUNT(*) = 0 FROM bookings WHERE CAST(ROUND(fare * 100) AS INTEGER) % 100 <> 0"),
    (schema_university, "undeclared-majors", "SELECT COUNT(*) = 0 FROM students WHERE major_department_id IS NULL"),
    (schema_university, "unassigned-courses", "SELECT COUNT(*) = 0 FROM courses WHERE instructor_id IS NULL"),
    (schema_university, "courses-without-lab", "SELECT COUNT(*) = 0 FROM courses WHERE lab_fee IS NULL"),
    (schema_university, "idle-instructors", "SELECT COUNT(*) = 0 FROM instructors i WHERE NOT EXISTS "
     "(SELECT 1 FROM courses c WHERE c.instructor_id = i.instructor_id)"),
    (schema_university, "students-never-enrolled", "SELECT COUNT(*) = 0 FROM students s WHERE NOT EXISTS "
     "(SELECT 1 FROM enrollments e WHERE e.student_id = s.student_id)"),
    (schema_university, "grade-iff-completed",
     "SELECT COUNT(*) FROM enrollments WHERE (status = 'completed') <> (grade IS NOT NULL)"),
    (schema_university, "in-progress-only-2024-fall",
     "SELECT COUNT(*) FROM enrollments WHERE status = 'in_progress' AND term <> '2024-fall'"),
    (schema_university, "grades-0-to-4", "SELECT COUNT(*) FROM enrollments WHERE grade < 0 OR grade > 4"),
    (schema_university, "some-fail",
     "SELECT COUNT(*) = 0 FROM enrollments WHERE status = 'completed' AND grade < 1.0"),
    (schema_university, "one-enrollment-per-course-and-term", "SELECT COUNT(*) FROM (SELECT student_id, course_id, "
     "term FROM enrollments GROUP BY 1, 2, 3 HAVING COUNT(*) > 1)"),
    (schema_university, "boundary-registrations",
     "SELECT COUNT(*) = 0 FROM enrollments WHERE registered_date IN ('2024-08-31', '2024-07-01')"),
]


@pytest.mark.parametrize("module, sql", [(m, sql) for m, _, sql in _PROMISES],
                         ids=[f"{m.__name__.rsplit('_', 1)[1]}-{name}" for m, name, _ in _PROMISES])
def test_schema_data_keeps_its_promise(databases, module, sql):
    for seed in (0, 1):
        with databases[module, seed][0].connect() as conn:
            assert not conn.exec_driver_sql(sql).scalar(), f"seed {seed}"


def test_write_makes_a_sqlite_file(tmp_path):
    url = schema_university.write(tmp_path / "u.sqlite", seed=2)
    engine = sa.create_engine(url)
    try:
        assert engine.connect().exec_driver_sql("SELECT COUNT(*) FROM departments").scalar() == 7
    finally:
        engine.dispose()


def test_cli_exits_2_naming_the_file_when_a_file_does_not_load(tmp_path, capsys):
    (tmp_path / "airline_tune.yaml").write_text("schema: airline\nsplit: tune\nquestions: []\n", encoding="utf-8")
    assert check.main(["--dir", str(tmp_path)]) == 2
    assert "airline_tune.yaml: questions: must be a non-empty list" in capsys.readouterr().err


@pytest.mark.slow
def test_the_second_blind_set_passes_its_checks():
    from tests.data.embedded_blind import blindset as first_set

    questions = load_set()
    engines = check.build_engines(check.BUILDERS)
    try:
        assert check.check_set(questions, engines, first_set.load_set()) == []
    finally:
        for engine in engines.values():
            engine.dispose()
