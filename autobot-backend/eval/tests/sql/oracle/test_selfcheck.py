"""The self-check proves the oracle: the built-in corpus passes on every rotation, each kind of broken
reference is caught with its question id, and the reference snapshot is written, checked and read back.
The lints as functions are ``test_lint_functions.py``."""

from __future__ import annotations

import dataclasses
import json
import shutil
from datetime import date, datetime, time
from decimal import Decimal

import pytest

from eval.cli import selfcheck as selfcheck_cli
from eval.sql.corpus.questions import load_corpus
from eval.sql.corpus.snapshot import Answer, SnapshotError, decode_value, dumps, encode_value, load_snapshot
from eval.sql.fixtures.seeded import FIXTURE_NAMES, build_rotations
from eval.sql.oracle import selfcheck
from eval.sql.oracle.selfcheck import (
    EMPTY,
    FAILED,
    IDENTICAL,
    NOT_DETERMINISTIC,
    NOT_SCALAR,
    SNAPSHOT,
    SNAPSHOT_DIR,
    TIES,
    OracleDefect,
    run_self_check,
    update_snapshots,
)
from services.readonly.execute import ReadOnlySQL

BUILTIN = load_corpus()
DB = ReadOnlySQL()  # the path the grader uses: the guard, then the read-only executor


@pytest.fixture(scope="module")
def targets(tmp_path_factory) -> dict[str, list[str]]:
    d = tmp_path_factory.mktemp("rotations")
    return {f: build_rotations(f, d) for f in FIXTURE_NAMES}


@pytest.fixture(scope="module")
def builtin_check(targets):
    return run_self_check(DB, BUILTIN, targets)


def kinds(result) -> set[tuple[str, str]]:
    return {(d.question_id, d.kind) for d in result.defects}


def subset(*ids: str):
    return dataclasses.replace(BUILTIN, questions=tuple(BUILTIN.by_id(i) for i in ids))


# -- the built-in corpus -----------------------------------------------------------------------


def test_builtin_corpus_passes_on_every_rotation_of_both_fixtures(builtin_check):
    assert builtin_check.defects == []
    assert builtin_check.ok


def test_reference_results_are_kept_for_the_grader(builtin_check):
    answerable = {q.id for q in BUILTIN.questions if q.expect == "answer"}
    assert set(builtin_check.reference) == answerable
    assert all(len(results) == 3 and results[0].rows for results in builtin_check.reference.values())


def test_rotations_give_different_answers(builtin_check):
    revenue = builtin_check.reference["rtl-scalar-002"]
    assert len({r.rows[0][0] for r in revenue}) == 3


# -- broken references ---------------------------------------------------------------------------

BROKEN = """\
version: 1
fixture: retail
questions:
  - id: ok-001
    question: How many orders were cancelled?
    shape: scalar
    sql: SELECT COUNT(*) FROM orders WHERE status = 'cancelled'
  - id: bad-fails
    question: What is the favourite colour of each customer?
    sql: SELECT favourite_colour FROM customers
  - id: bad-empty
    question: How many orders were placed in 2030?
    sql: SELECT order_id FROM orders WHERE order_date >= '2030-01-01'
  - id: bad-identical
    question: How many categories are there?
    shape: scalar
    sql: SELECT COUNT(DISTINCT category) FROM products
  - id: tie-within
    question: List five customers by segment.
    ordered: true
    sql: SELECT segment, name FROM customers ORDER BY segment LIMIT 5
  - id: tie-at-cut
    question: Which customer placed the first order?
    sql: SELECT customer_id FROM orders ORDER BY order_date LIMIT 1
  - id: bad-ties
    question: List five customers by segment, after the first three.
    ordered: true
    sql: SELECT segment, name FROM customers ORDER BY segment LIMIT 5 OFFSET 1
  - id: bad-unordered-order
    question: List the statuses in order.
    ordered: true
    sql: SELECT DISTINCT status FROM orders
  - id: bad-rounds-to-zero
    question: What is the average quantity in thousands?
    shape: scalar
    sql: SELECT AVG(quantity) / 1000.0 FROM order_items
  - id: bad-collapses
    question: Average quantity per line, by category, to whole units.
    decimals: 0
    sql: |
      SELECT p.category, AVG(oi.quantity) FROM order_items oi
      JOIN products p ON p.product_id = oi.product_id GROUP BY p.category
  - id: bad-not-scalar
    question: How many orders and customers?
    shape: scalar
    sql: SELECT COUNT(*), COUNT(DISTINCT customer_id) FROM orders
  - id: bad-random
    question: Pick a number.
    shape: scalar
    sql: SELECT ABS(random()) % 1000000
  - id: refused-is-skipped
    question: Drop the orders table.
    expect: refuse
"""

EXPECTED_DEFECTS = [
    ("bad-fails", FAILED, "no such column: favourite_colour"),
    ("bad-empty", EMPTY, "no rows"),
    ("bad-identical", IDENTICAL, "all 3 rotations give the same answer"),
    ("bad-ties", TIES, "with a row before OFFSET 1"),
    ("bad-unordered-order", TIES, "no ORDER BY"),
    ("bad-rounds-to-zero", "oracle: information lost at 2 decimals", "rounds to zero at 2 decimals"),
    ("bad-collapses", "oracle: information lost at 0 decimals", "compare equal at 0 decimals"),
    ("bad-not-scalar", NOT_SCALAR, "1 row(s) of 2 column(s)"),
    ("bad-random", NOT_DETERMINISTIC, "two runs differ"),
]


@pytest.fixture(scope="module")
def broken_check(targets, tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "broken.yaml"
    path.write_text(BROKEN)
    return run_self_check(DB, load_corpus([path]), targets)


@pytest.mark.parametrize(("qid", "kind", "detail"), EXPECTED_DEFECTS, ids=[e[0] for e in EXPECTED_DEFECTS])
def test_broken_reference_is_named_with_its_kind(broken_check, qid, kind, detail):
    found = [d for d in broken_check.defects if d.question_id == qid and d.kind == kind]
    assert found, broken_check.defects
    assert detail in found[0].detail


def test_ties_the_grader_can_resolve_are_learned_not_flagged(broken_check):
    within, cut = broken_check.ties["tie-within"], broken_check.ties["tie-at-cut"]
    assert len(within) == len(cut) == 3  # learned on every rotation
    assert all(t.groups == (5,) and len(t.cut) > 5 for t in within)  # five business customers of many
    assert all(t.groups == (1,) and len(t.cut) >= 2 for t in cut)  # several orders on the first day
    assert "ok-001" not in broken_check.ties


def test_sound_and_refusal_questions_are_not_flagged(broken_check):
    flagged = {d.question_id for d in broken_check.defects}
    assert flagged == {e[0] for e in EXPECTED_DEFECTS}
    assert not broken_check.ok
    assert "ok-001" in broken_check.reference and "bad-fails" not in broken_check.reference
    assert "refused-is-skipped" not in broken_check.reference


def test_static_questions_may_be_identical(targets, tmp_path):
    path = tmp_path / "static.yaml"
    path.write_text(
        BROKEN.split("  - id: bad-fails")[0]
        .replace("ok-001", "s-1")
        .replace(
            "SELECT COUNT(*) FROM orders WHERE status = 'cancelled'", "SELECT COUNT(DISTINCT category) FROM products"
        )
        + "    static: true\n"
    )
    assert run_self_check(DB, load_corpus([path]), targets).ok


def test_missing_database_and_unopenable_database(targets, tmp_path):
    corpus = subset("rtl-scalar-003", "r24-scalar-001")
    only_retail = run_self_check(DB, corpus, {"retail": targets["retail"]}, snapshot_dir=None)
    assert only_retail.defects == [
        OracleDefect("r24-scalar-001", FAILED, "no database for fixture 'retail_24m' in this run")
    ]
    gone = run_self_check(
        DB,
        corpus,
        {"retail": [f"sqlite:///{tmp_path / 'gone.sqlite'}"], "retail_24m": targets["retail_24m"]},
        snapshot_dir=None,
    )
    (defect,) = gone.defects
    assert defect.question_id == "rtl-scalar-003" and "cannot open the database (connect)" in defect.detail
    assert not (tmp_path / "gone.sqlite").exists()


def test_single_database_mode_skips_rotation_lint_and_snapshot(targets, tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "version: 1\nquestions:\n  - id: mine-1\n    question: How many categories?\n"
        "    sql: SELECT COUNT(DISTINCT category) FROM products\n"
    )
    result = run_self_check(DB, load_corpus([path], fixtures=None), {None: targets["retail"][:1]})
    assert result.ok and len(result.reference["mine-1"]) == 1


# -- snapshot ---------------------------------------------------------------------------------------


def test_snapshot_mismatch_names_the_question_and_the_first_differing_row(targets, tmp_path):
    shutil.copytree(SNAPSHOT_DIR, tmp_path, dirs_exist_ok=True)
    data = json.loads((tmp_path / "retail.json").read_text())
    data["answers"]["rtl-group_by-003"]["rows"][1][1] += 1
    (tmp_path / "retail.json").write_text(json.dumps(data))
    result = run_self_check(DB, subset("rtl-group_by-003", "rtl-scalar-003"), targets, snapshot_dir=tmp_path)
    (defect,) = result.defects
    assert (defect.question_id, defect.kind) == ("rtl-group_by-003", SNAPSHOT)
    assert "row 2 col 2" in defect.detail and "--update-snapshot" in defect.detail


def test_question_missing_from_snapshot_says_how_to_record_it(targets, tmp_path):
    shutil.copytree(SNAPSHOT_DIR, tmp_path, dirs_exist_ok=True)
    data = json.loads((tmp_path / "retail_24m.json").read_text())
    del data["answers"]["r24-scalar-001"]
    (tmp_path / "retail_24m.json").write_text(json.dumps(data))
    result = run_self_check(DB, subset("r24-scalar-001"), targets, snapshot_dir=tmp_path)
    assert [(d.question_id, d.kind) for d in result.defects] == [("r24-scalar-001", SNAPSHOT)]
    assert "python -m eval.cli.selfcheck --update-snapshot" in result.defects[0].detail


def test_snapshot_is_not_checked_for_questions_outside_the_builtin_corpus(broken_check):
    assert not any(d.kind == SNAPSHOT for d in broken_check.defects)


def test_update_writes_the_committed_snapshot_byte_for_byte(targets, tmp_path):
    paths = update_snapshots(DB, BUILTIN, targets, tmp_path)
    assert sorted(p.name for p in paths) == ["retail.json", "retail_24m.json"]
    for p in paths:
        assert p.read_bytes() == (SNAPSHOT_DIR / p.name).read_bytes()
    assert run_self_check(DB, subset("rtl-ranking-001"), targets, snapshot_dir=tmp_path).ok


def test_cli_updates_then_checks(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(selfcheck, "SNAPSHOT_DIR", tmp_path)
    assert selfcheck_cli.main(["--update-snapshot", "--rotations", "2"]) == 0
    out = capsys.readouterr().out
    assert f"wrote {tmp_path / 'retail.json'}" in out
    assert out.rstrip().endswith("on 2 rotation(s) of retail, retail_24m: ok")


def test_cli_reports_defects_with_exit_2(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(selfcheck, "SNAPSHOT_DIR", tmp_path)  # empty: every question is missing
    assert selfcheck_cli.main(["--rotations", "2"]) == 2
    out = capsys.readouterr().out
    assert "rtl-scalar-001: oracle: snapshot differs: not in the retail snapshot yet" in out


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        False,
        0,
        -7,
        2**70,
        1.5,
        0.1 + 0.2,
        float("inf"),
        float("-inf"),
        "text",
        "",
        Decimal("12.50"),
        date(2024, 2, 29),
        datetime(2024, 1, 31, 13, 45),
        time(13, 45, 1),
        b"\x00\xff",
    ],
    ids=lambda v: type(v).__name__ + ":" + repr(v)[:20],
)
def test_snapshot_values_round_trip_with_their_type(value):
    back = decode_value(json.loads(json.dumps(encode_value(value))))
    assert back == value and type(back) is type(value)


def test_snapshot_nan_round_trips():
    back = decode_value(json.loads(json.dumps(encode_value(float("nan")))))
    assert back != back


def test_snapshot_file_is_one_row_per_line(tmp_path):
    text = dumps("retail", {"q": Answer(("a", "b"), [(1, date(2024, 1, 1)), (2, None)]), "e": Answer(("x",), [])})
    assert '      [1, {"$date": "2024-01-01"}],\n      [2, null]\n' in text
    (tmp_path / "retail.json").write_text(text)
    assert load_snapshot("retail", tmp_path) == {
        "q": Answer(("a", "b"), [(1, date(2024, 1, 1)), (2, None)]),
        "e": Answer(("x",), []),
    }


def test_unreadable_snapshot_names_the_file_and_the_fix(tmp_path):
    (tmp_path / "retail.json").write_text('{"answers": {"q": {"columns": [], "rows": [[{"$what": 1}]]}}}')
    with pytest.raises(SnapshotError, match=r"retail.json: unreadable snapshot.*--update-snapshot"):
        load_snapshot("retail", tmp_path)
