"""The blind set's checker catches what it claims to, on tiny fake databases; and the set passes it."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from services.schema_context import inspect_schema
from tests.data.embedded_blind import check, schema_saas
from tests.data.embedded_blind.blindset import BlindSetError, Question, load_file, load_set

# Per seed: (name, score, grp). Seed 0 has a tie on score 5 between 'c' and 'd'.
_ROWS = {
    0: [("a", 9, "x"), ("b", 7, "x"), ("c", 5, "y"), ("d", 5, "y"), ("e", 1, "y")],
    1: [("a", 8, "x"), ("b", 6, "x"), ("c", 4, "y"), ("d", 3, "y"), ("e", 2, "y")],
    2: [("a", 10, "x"), ("b", 3, "x"), ("c", 6, "y"), ("d", 2, "y"), ("e", 1, "y")],
}


@pytest.fixture(scope="module")
def engines():
    made = {}
    for seed, rows in _ROWS.items():
        engine = sa.create_engine("sqlite://")
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE t (name TEXT, score INTEGER, grp TEXT)")
            conn.exec_driver_sql("INSERT INTO t VALUES " + ", ".join(f"('{n}', {s}, '{g}')" for n, s, g in rows))
        made["fake", seed] = engine
    yield made
    for engine in made.values():
        engine.dispose()


def _q(sql: str, shape: str = "rows", ordered: bool = False, qid: str = "q1") -> Question:
    return Question(id=qid, question="?", expect="answer", stratum="s", schema="fake", split="tune",
                    path=Path("fake_tune.yaml"), shape=shape, ordered=ordered, sql=sql)


@pytest.mark.parametrize("sql, shape, ordered, expected", [
    ("SELECT name, score FROM t ORDER BY score DESC", "rows", True, "ties in its ORDER BY key"),
    ("SELECT name FROM t ORDER BY score DESC LIMIT 3", "rows", False, "cut-off falls inside a tie"),
    ("SELECT name FROM t ORDER BY 2 - score LIMIT 1 OFFSET 2", "rows", False, "cut-off falls inside a tie"),
    ("WITH top AS (SELECT name FROM t ORDER BY score DESC LIMIT 3) SELECT COUNT(*) FROM top", "scalar", False,
     "cut-off falls inside a tie"),
    ("SELECT name, LAG(name) OVER (PARTITION BY grp ORDER BY score) FROM t", "rows", False, "has ties"),
    ("SELECT name, score FROM t", "rows", True, "no ORDER BY"),
    ("SELECT name FROM t WHERE score > 100", "rows", False, "returns no rows"),
    ("SELECT name, score FROM t", "scalar", False, "shape is scalar"),
    ("SELECT score / 10000.0 FROM t WHERE name = 'e'", "scalar", False, "rounds to zero"),
    ("SELECT COUNT(*) FROM t", "scalar", False, "all give the same answer"),
    ("SELECT COUNT(*) FROM t WHERE score > 9", "scalar", False, "the scalar answer is 0"),
    ("SELECT nope FROM t", "rows", False, "the reference fails"),
], ids=["ordered-tie", "limit-cutoff-tie", "offset-cutoff-tie", "nested-limit-tie", "window-tie",
        "ordered-without-order-by", "empty", "scalar-shape", "rounds-to-zero", "same-on-every-seed", "zero-scalar",
        "fails"])
def test_flags_a_bad_reference(engines, sql, shape, ordered, expected):
    problems = check.check_question(_q(sql, shape, ordered), engines)
    assert any(expected in p for p in problems), problems


@pytest.mark.parametrize("sql, shape, ordered", [
    ("SELECT name, score FROM t WHERE name <> 'd' ORDER BY score DESC", "rows", True),
    ("SELECT name FROM t ORDER BY score DESC LIMIT 2", "rows", False),
    ("SELECT name AS n, score AS s FROM t ORDER BY s DESC LIMIT 1", "rows", False),
    ("SELECT SUM(score) FROM t", "scalar", False),
    ("SELECT name, SUM(score) OVER (ORDER BY name) FROM t ORDER BY name", "rows", True),
], ids=["ordered-unique", "limit-clear-cutoff", "alias-order-key", "scalar", "running-total"])
def test_passes_a_sound_reference(engines, sql, shape, ordered):
    assert check.check_question(_q(sql, shape, ordered), engines) == []


def test_near_duplicates_are_found_and_distinct_questions_pass():
    def ask(qid: str, text: str) -> Question:
        return Question(**{**_q("SELECT 1").__dict__, "id": qid, "question": text})

    close = [ask("a", "How many orders were placed in October?"), ask("b", "how many orders were placed in october")]
    apart = [ask("a", "How many orders were placed in October?"), ask("b", "Which channel had the most revenue?")]
    assert check.near_duplicates(close) == ["a and b are near-duplicates (token_sort_ratio 100)"]
    assert check.near_duplicates(apart) == []


def test_sizes_below_the_brief_are_reported():
    problems = check.size_problems([_q("SELECT 1")])
    assert any("retail+retail_24m tune: 0 answerable" in p for p in problems)
    assert any("fake_tune.yaml: 0 must-refuse" in p for p in problems)


@pytest.mark.parametrize("text, expected", [
    ("schema: retail\nsplit: tune\nquestions:\n  - id: x\n    question: q\n    expect: answer\n"
     "    stratum: s\n    shape: scalar\n    ordered: false\n", "missing keys for expect: answer: sql"),
    ("schema: retail\nsplit: tune\nquestions:\n  - id: x\n    question: q\n    expect: refuse\n"
     "    stratum: s\n    why: w\n    shape: scalar\n", "keys not allowed for expect: refuse: shape"),
    ("schema: retail\nsplit: tune\nquestions:\n  - id: x\n    question: q\n    expect: maybe\n", "expect must be"),
    ("schema: retail\nsplit: holdout\nquestions:\n  - id: x\n    question: q\n    expect: refuse\n"
     "    stratum: s\n    why: w\n", "must be named retail_holdout.yaml"),
    ("schema: [unclosed\n", "does not parse"),
], ids=["answer-without-sql", "refuse-with-shape", "bad-expect", "misnamed-file", "bad-yaml"])
def test_loading_rejects_a_malformed_file(tmp_path, text, expected):
    path = tmp_path / "retail_tune.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BlindSetError, match="retail_tune.yaml") as err:
        load_file(path)
    assert expected in str(err.value)


def test_duplicate_ids_across_files_are_rejected(tmp_path):
    body = "questions:\n  - id: same\n    question: q\n    expect: refuse\n    stratum: s\n    why: w\n"
    (tmp_path / "retail_tune.yaml").write_text("schema: retail\nsplit: tune\n" + body, encoding="utf-8")
    (tmp_path / "clinic_tune.yaml").write_text("schema: clinic\nsplit: tune\n" + body, encoding="utf-8")
    with pytest.raises(BlindSetError, match="duplicate id"):
        load_set(tmp_path)


@pytest.mark.slow
def test_the_blind_set_passes_its_checks():
    questions = load_set()
    engines = check.build_engines(check.SCHEMAS)
    try:
        assert check.check_set(questions, engines) == []
    finally:
        for engine in engines.values():
            engine.dispose()


def _saas_digest(seed: int) -> tuple:
    engine = sa.create_engine("sqlite://")
    schema_saas.build(engine, seed)
    with engine.connect() as conn:
        digest = tuple(conn.exec_driver_sql(sql).scalar() for sql in (
            "SELECT COUNT(*) || ':' || SUM(amount) FROM invoices",
            "SELECT COUNT(*) || ':' || COUNT(churned_date) || ':' || COUNT(employees) FROM accounts",
            "SELECT COUNT(*) || ':' || COUNT(closed_date) || ':' || COUNT(satisfaction) FROM support_tickets"))
    ctx = inspect_schema(engine)
    engine.dispose()
    return digest, ctx


def test_saas_is_deterministic_per_seed_and_documents_its_metrics():
    (first, ctx), (again, _), (other, _) = _saas_digest(0), _saas_digest(0), _saas_digest(1)
    assert first == again and first != other
    assert "[metric: collected_revenue = SUM(invoices.amount)" in ctx.table("invoices").column("amount").comment
    assert "[metric: mrr =" in ctx.table("plans").column("seat_price").comment
    assert all(c.comment for t in ctx.tables for c in t.columns)


def test_cli_exits_2_naming_the_file_when_a_file_does_not_load(tmp_path, capsys):
    (tmp_path / "clinic_tune.yaml").write_text("schema: clinic\nsplit: tune\nquestions: []\n", encoding="utf-8")
    assert check.main(["--dir", str(tmp_path)]) == 2
    assert "clinic_tune.yaml: questions: must be a non-empty list" in capsys.readouterr().err
