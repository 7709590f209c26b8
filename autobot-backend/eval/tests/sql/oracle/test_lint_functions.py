"""The self-check's lints as functions, on rows and SQL given: information lost to rounding, the ordering plan
and the keys it reads, the tie structure of an ordered answer, and the peer probe a whole ordered result of
distinct integers does without. The self-check over corpora is ``test_selfcheck.py``."""

from __future__ import annotations

from decimal import Decimal

import pytest

from eval.sql.corpus.questions import Question
from eval.sql.oracle.information import information_lost
from eval.sql.oracle.lints import ordering_plan, tie_structure
from eval.sql.rows import Ties
from services.readonly.execute import ReadOnlySQL

# -- the lints as functions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "decimals", "expected"),
    [
        ([(12.5,), (13.25,)], 2, None),
        ([(1, "a"), (2, "b")], 0, None),  # integers never collapse
        ([(0.004,)], 2, "column 1: 0.004 is not zero but rounds to zero"),
        ([(0.004,)], 3, None),
        ([(0,)], 2, None),  # zero is zero
        ([("x", 1.001), ("y", 1.004)], 2, "column 2: 1.001 and 1.004 are different values"),
        ([(100.1,), (100.10000000000001,)], 2, None),  # float noise is one value
        ([(1.0,), (1.0,)], 2, None),  # equal values are not a loss
        ([(True,), (False,)], 0, None),  # booleans are not numbers
        ([(Decimal("0.30"),), (Decimal("0.3049"),)], 2, "are different values"),
    ],
    ids=[
        "distinct",
        "ints",
        "rounds-to-zero",
        "enough-decimals",
        "zero",
        "collapse",
        "noise",
        "equal",
        "bools",
        "decimal",
    ],
)
def test_information_lost(rows, decimals, expected):
    found = information_lost(rows, decimals)
    assert (found is None) if expected is None else (expected in found)


@pytest.mark.parametrize(
    ("sql", "keys", "probe", "limit"),
    [
        ("SELECT a, b AS x FROM t ORDER BY x DESC", (1,), None, None),
        ("SELECT a, b FROM t ORDER BY 2, 1", (1, 0), None, None),
        ("SELECT g, SUM(v) FROM t GROUP BY g ORDER BY SUM(v)", (1,), None, None),
        ("SELECT a FROM t ORDER BY b LIMIT 3", (-1,), "SELECT a, b FROM t ORDER BY b", 3),
        ("SELECT a FROM t UNION SELECT b FROM u ORDER BY a", (0,), None, None),
        (
            "SELECT * FROM (SELECT a, b FROM t) ORDER BY b",
            (-1,),
            "SELECT *, b FROM (SELECT a, b FROM t) ORDER BY b",
            None,
        ),
    ],
    ids=["alias", "ordinals", "expression", "unprojected-key-and-limit", "union", "star"],
)
def test_ordering_plan(sql, keys, probe, limit):
    plan = ordering_plan(sql, "sqlite")
    assert (plan.keys, plan.probe_sql, plan.limit) == (keys, probe, limit)


def test_keys_appended_beside_the_output_are_read_after_its_columns():
    plan = ordering_plan("SELECT * FROM t ORDER BY b, 1 LIMIT 2", "sqlite")
    assert plan.width is None and plan.key_columns(3) == (3, 0)
    assert plan.short_probe_sql == "SELECT *, b FROM t ORDER BY b, 1 LIMIT 3"


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("SELECT a FROM t ORDER BY a LIMIT :n", "LIMIT is not a number"),
        ("SELECT a FROM t UNION SELECT b FROM u ORDER BY c", "set operation"),
        ("SELECT a FROM t ORDER BY a LIMIT 2 OFFSET :k", "OFFSET is not a number"),
    ],
    ids=["parameter-limit", "union-unprojected", "parameter-offset"],
)
def test_ordering_plan_says_why_it_cannot_read_a_key(sql, reason):
    assert reason in ordering_plan(sql, "sqlite")


def test_no_order_by_no_plan():
    assert ordering_plan("SELECT a FROM t", "sqlite") is None


@pytest.mark.parametrize(
    ("rows", "limit", "expected"),
    [
        ([(3, "a"), (2, "b"), (1, "c")], None, None),
        ([(3, "a"), (3, "b")], None, Ties((2,))),
        ([(3, "a"), (3, "a")], None, None),  # identical rows: order cannot matter
        ([(3, "a"), (2, "b"), (2, "c")], 2, Ties((1, 1), cut=((2, "b"), (2, "c")))),
        ([(3, "a"), (2, "b"), (1, "c")], 2, None),
        ([(3, "a"), (2, "b")], 2, None),  # nothing past the cut
    ],
    ids=["distinct", "tie", "identical", "tie-at-cut", "clean-cut", "short"],
)
def test_tie_structure_of_an_ordered_answer(rows, limit, expected):
    assert tie_structure(rows, (0,), 2, limit, ordered=True) == expected


def test_ties_inside_the_cut_do_not_matter_when_order_is_not_the_answer():
    assert tie_structure([(3, "a"), (3, "b"), (1, "c")], (0,), 2, 2, ordered=False) is None
    assert tie_structure([(3, "a"), (2, "b"), (2, "c")], (0,), 2, 2, ordered=False) == Ties(
        (1, 1), cut=((2, "b"), (2, "c"))
    )


def test_an_offset_is_applied_and_a_tie_across_it_stays_a_defect():
    rows = [(3, "a"), (2, "b"), (2, "c"), (1, "d")]
    assert tie_structure(rows, (0,), 2, 1, ordered=True, offset=3) is None
    assert tie_structure(rows, (0,), 2, 1, ordered=True, offset=1) == Ties((1,), cut=((2, "b"), (2, "c")))
    assert "before OFFSET 2" in tie_structure(rows, (0,), 2, 1, ordered=True, offset=2)
    plan = ordering_plan("SELECT a FROM t ORDER BY b LIMIT 2 OFFSET 3", "sqlite")
    assert (plan.offset, plan.probe_sql) == (3, "SELECT a, b FROM t ORDER BY b")
    assert plan.short_probe_sql == "SELECT a, b FROM t ORDER BY b LIMIT 6"


def test_a_tie_group_too_big_to_weigh_stays_a_defect():
    rows = [(2, i) for i in range(10_002)]
    assert "too many" in tie_structure(rows, (0,), 2, 1, ordered=False)


def test_a_whole_ordered_result_on_distinct_integers_needs_no_peer_probe(monkeypatch, tmp_path):
    """Issue 40: an ordered reference of 1M rows was fetched again, with a window, to find no tie. Where every key
    is an output column of integers and no neighbours share them (SELECT * read by name too), none is looked for;
    a tie, text, or a LIMIT goes the way it went."""
    import sqlite3

    from eval.sql.oracle import tie_check

    path = tmp_path / "o.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER, name TEXT, n INTEGER)")
        conn.executemany("INSERT INTO t VALUES (?, ?, ?)", [(i, f"x{i % 3}", i % 4) for i in range(40)])
    url = f"sqlite:///{path}"
    database = ReadOnlySQL()
    ran: list[str] = []
    real = database.run_readonly
    monkeypatch.setattr(database, "run_readonly", lambda sql, u, **kw: ran.append(sql) or real(sql, u, **kw))
    q = Question(id="o", question="?", sql="", ordered=True)
    for sql in (
        "SELECT * FROM t ORDER BY id",
        "SELECT id, name FROM t ORDER BY 1 DESC",
        "SELECT n, id FROM t ORDER BY n, id",
    ):
        result = real(sql, url)
        ran.clear()
        assert tie_check.reference_ties(q, sql, database, url, "sqlite", result) is None and ran == [], sql
    tied = real("SELECT n, id FROM t ORDER BY n", url)
    assert isinstance(
        tie_check.reference_ties(q, "SELECT n, id FROM t ORDER BY n", database, url, "sqlite", tied), Ties
    )
    text = real("SELECT name FROM t ORDER BY name", url)
    ran.clear()
    tie_check.reference_ties(q, "SELECT name FROM t ORDER BY name", database, url, "sqlite", text)
    assert ran  # text has a collation: the engine is asked
    database.close()
