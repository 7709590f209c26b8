"""The near-miss study: each mistake is made where it can be, equivalences are only claimed where a
rule proves them, every survivor has a reason, and the diagnosis page carries the command's figures."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest

from eval.sql.corpus.questions import load_corpus
from eval.sql.counterexample.budget import Budget
from eval.sql.near_miss import (
    KIND_CATEGORY,
    TARGET,
    Kind,
    agreement,
    agreement_block,
    classify,
    docs_block,
    load_explanations,
    misses,
    mutants,
    run_study,
    tally,
)
from eval.sql.near_miss._counter import STUDY_BUDGET, counter_block, load_rewrites, search_survivors
from eval.sql.near_miss._counter import problems as counter_problems
from eval.sql.near_miss._mutant import Mutant
from eval.sql.near_miss._study import KILLED, SURVIVED, Judged
from eval.sql.records import docs

PERIODS = {"order_date": ("2024-10-01", "2024-12-31"), "signup_date": ("2023-01-01", "2024-12-31")}


def sites(sql: str, kind: Kind, *, ordered: bool = False) -> list[str]:
    return [m.site for m in mutants("q", sql, ordered=ordered, periods=PERIODS) if m.kind is kind]


# --- each mistake, where it can be made -----------------------------------------------------------

MADE = [
    pytest.param(
        "SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2024-11-01' AND '2024-11-30'",
        Kind.BETWEEN_HALF_OPEN,
        [
            "order_date BETWEEN '2024-11-01' AND '2024-11-30' -> "
            "(order_date >= '2024-11-01' AND order_date < '2024-11-30')"
        ],
        id="between-as-half-open-loses-the-last-day",
    ),
    pytest.param(
        "SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2024-11-01' AND '2024-11-30'",
        Kind.INCLUSIVE_END,
        ["order_date BETWEEN '2024-11-01' AND '2024-11-30' -> order_date BETWEEN '2024-11-01' AND '2024-12-01'"],
        id="inclusive-end-takes-the-next-day",
    ),
    pytest.param(
        "SELECT COUNT(*) FROM orders WHERE order_date >= '2024-11-01' AND order_date < '2024-12-01'",
        Kind.INCLUSIVE_END,
        ["order_date < '2024-12-01' -> order_date <= '2024-12-01'"],
        id="half-open-end-made-inclusive",
    ),
    pytest.param(
        "SELECT COUNT(*) FROM orders WHERE '2024-11-01' <= order_date",
        Kind.EXCLUSIVE_START,
        ["'2024-11-01' <= order_date -> order_date > '2024-11-01'"],
        id="a-literal-on-the-left-is-still-a-lower-bound",
    ),
    pytest.param(
        "SELECT month FROM m WHERE month BETWEEN '2024-01' AND '2024-12'",
        Kind.INCLUSIVE_END,
        ["month BETWEEN '2024-01' AND '2024-12' -> month BETWEEN '2024-01' AND '2025-01'"],
        id="months-step-by-a-month",
    ),
    pytest.param(
        "SELECT COUNT(*) FROM customers c LEFT JOIN orders o ON o.customer_id = c.customer_id",
        Kind.INNER_FOR_LEFT,
        ["LEFT JOIN orders AS o ON o.customer_id = c.customer_id -> JOIN orders AS o ON o.customer_id = c.customer_id"],
        id="left-join-as-inner",
    ),
    pytest.param(
        "SELECT COUNT(*) FROM orders WHERE status = 'completed' AND channel = 'web'",
        Kind.DROP_CONJUNCT,
        ["status = 'completed' -> (left out)", "channel = 'web' -> (left out)"],
        id="each-condition-left-out-in-turn",
    ),
    pytest.param(
        "SELECT COUNT(o.shipped_date), COUNT(DISTINCT o.customer_id) FROM orders o",
        Kind.COUNT_SWAP,
        [
            "COUNT(o.shipped_date) -> COUNT(*)",
            "COUNT(o.shipped_date) -> COUNT(DISTINCT o.shipped_date)",
            "COUNT(DISTINCT o.customer_id) -> COUNT(o.customer_id)",
            "COUNT(DISTINCT o.customer_id) -> COUNT(*)",
        ],
        id="count-forms-swapped",
    ),
    pytest.param(
        "SELECT AVG(unit_price) FROM products", Kind.SUM_FOR_AVG, ["AVG(unit_price) -> SUM(unit_price)"], id="sum"
    ),
    pytest.param(
        "SELECT name FROM products ORDER BY unit_price DESC LIMIT 3",
        Kind.ASC_FOR_DESC,
        ["unit_price DESC -> unit_price ASC"],
        id="asc-for-desc",
    ),
    pytest.param(
        "SELECT name FROM products ORDER BY unit_price DESC LIMIT 3",
        Kind.LIMIT_OFF_BY_ONE,
        ["LIMIT 3 -> LIMIT 4", "LIMIT 3 -> LIMIT 2"],
        id="limit-either-side",
    ),
    pytest.param(
        "SELECT p.category, SUM(oi.quantity * oi.unit_price) AS revenue, COUNT(*) FROM order_items oi "
        "JOIN products p ON p.product_id = oi.product_id GROUP BY p.category",
        Kind.MONEY_ROUNDED,
        ["SUM(oi.quantity * oi.unit_price) AS revenue -> ROUND(SUM(oi.quantity * oi.unit_price)) AS revenue"],
        id="money-rounded-but-not-a-count",
    ),
    pytest.param(
        "WITH t AS (SELECT order_id, SUM(quantity * unit_price) AS total FROM order_items GROUP BY order_id) "
        "SELECT AVG(total), 100.0 * SUM(total) / SUM(SUM(total)) OVER () FROM t",
        Kind.MONEY_ROUNDED,
        ["AVG(total) -> ROUND(AVG(total))"],
        id="money-through-a-cte-alias-but-not-a-share",
    ),
    pytest.param(
        "SELECT COUNT(*) FROM orders WHERE status IN ('completed', 'returned')",
        Kind.STATUS_SWAP,
        [
            "status IN ('completed', 'returned'): 'completed' -> 'cancelled'",
            "status IN ('completed', 'returned'): 'returned' -> 'cancelled'",
        ],
        id="status-values-swapped-not-duplicated",
    ),
    pytest.param(
        "SELECT channel, status, COUNT(*) FROM orders GROUP BY channel, status",
        Kind.GROUP_BY_DROPPED,
        ["GROUP BY channel -> (left out)", "GROUP BY status -> (left out)"],
        id="each-group-by-key-left-out",
    ),
]


@pytest.mark.parametrize(("sql", "kind", "expected"), MADE)
def test_each_mistake_is_made_where_it_can_be(sql, kind, expected):
    assert sites(sql, kind) == expected


def test_the_same_text_in_two_places_gets_two_names():
    sql = "SELECT (SELECT COUNT(*) FROM orders) - (SELECT COUNT(*) FROM orders WHERE channel = 'web')"
    assert sites(sql, Kind.COUNT_SWAP) == [
        "COUNT(*) -> COUNT(DISTINCT order_id)",
        "COUNT(*) -> COUNT(DISTINCT order_id) [2]",
    ]


# --- equivalences claimed only where a rule proves them --------------------------------------------

EQUIVALENT = [
    pytest.param("SELECT COUNT(*) FROM orders", Kind.COUNT_SWAP, "over orders alone", id="key-count-over-one-table"),
    pytest.param(
        "SELECT COUNT(o.order_id) FROM orders o JOIN customers c ON c.customer_id = o.customer_id",
        Kind.COUNT_SWAP,
        "orders.order_id is NOT NULL",
        id="not-null-column-without-outer-join",
    ),
    pytest.param(
        "SELECT p.product_id, p.name, SUM(oi.quantity) FROM order_items oi JOIN products p "
        "ON p.product_id = oi.product_id GROUP BY p.product_id, p.name",
        Kind.GROUP_BY_DROPPED,
        "products.name is fixed by products.product_id",
        id="a-column-its-tables-key-fixes",
    ),
    pytest.param("SELECT COUNT(*) FROM orders", Kind.DISTINCT, "one row", id="aggregate-without-group-by"),
    pytest.param(
        "SELECT channel, COUNT(*) FROM orders GROUP BY channel",
        Kind.DISTINCT,
        "already distinct",
        id="group-keys-returned",
    ),
    pytest.param(
        "SELECT channel, COUNT(*) FROM orders GROUP BY channel ORDER BY 2 DESC",
        Kind.ASC_FOR_DESC,
        "compared as a multiset",
        id="outermost-order-of-an-unordered-question",
    ),
]


@pytest.mark.parametrize(("sql", "kind", "reason"), EQUIVALENT)
def test_equivalence_is_claimed_where_a_rule_proves_it(sql, kind, reason):
    claims = [m.equivalent or "" for m in mutants("q", sql, ordered=False) if m.kind is kind]
    assert any(reason in c for c in claims), claims


NOT_EQUIVALENT = [
    # A join can repeat the counted table's rows: COUNT(DISTINCT key) may differ from COUNT(*).
    pytest.param(
        "SELECT COUNT(*) FROM orders o JOIN order_items oi ON oi.order_id = o.order_id", Kind.COUNT_SWAP, id="join"
    ),
    # Through a LEFT JOIN a NOT NULL column can come back NULL.
    pytest.param(
        "SELECT COUNT(o.order_id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.customer_id",
        Kind.COUNT_SWAP,
        id="outer-join",
    ),
    # Names are not keys: GROUP BY name alone merges namesakes.
    pytest.param(
        "SELECT c.name, COUNT(*) FROM customers c GROUP BY c.customer_id, c.name", Kind.GROUP_BY_DROPPED, id="name"
    ),
    # An ordered question's order is its answer.
    pytest.param("SELECT name FROM products ORDER BY unit_price DESC", Kind.ASC_FOR_DESC, id="ordered"),
]


@pytest.mark.parametrize(("sql", "kind"), NOT_EQUIVALENT)
def test_no_equivalence_is_claimed_where_data_can_tell(sql, kind):
    ordered = kind is Kind.ASC_FOR_DESC
    claims = [m.equivalent for m in mutants("q", sql, ordered=ordered) if m.kind is kind]
    if kind is Kind.GROUP_BY_DROPPED:
        claims = claims[:1]  # the customer_id one; c.name is fixed by the key that stays
    assert claims and not any(claims)


# Rules that were unsound (issue 22): each counterexample's DISTINCT mutant is claimed equivalent no more,
# and a real SQLite and DuckDB database tell it from the reference.
COUNTEREXAMPLES = [
    pytest.param(
        "SELECT a FROM t ORDER BY b LIMIT 1",
        "LIMIT 1 returns one row",
        id="limit-1-ordered-by-an-unreturned-column",  # DISTINCT orders a=1 by b=5, not by b=1
    ),
    pytest.param(
        "SELECT (SELECT MAX(b) FROM t) FROM t",
        "an aggregate without GROUP BY",
        id="aggregate-in-a-scalar-subquery-under-an-outer-from",  # one row per row of t
    ),
]


def _rows(engine: str, folder: Path, sql: str) -> list[tuple[object, ...]]:
    data = [(1, 5), (2, 3), (1, 1), (3, 2)]
    if engine == "sqlite":
        with sqlite3.connect(folder / "t.sqlite") as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS t (a INTEGER, b INTEGER)")
            if not conn.execute("SELECT COUNT(*) FROM t").fetchone()[0]:
                conn.executemany("INSERT INTO t VALUES (?, ?)", data)
            return [tuple(r) for r in conn.execute(sql).fetchall()]
    duck = duckdb.connect(str(folder / "t.duckdb"))
    try:
        duck.execute("CREATE TABLE IF NOT EXISTS t (a INTEGER, b INTEGER)")
        if not duck.execute("SELECT COUNT(*) FROM t").fetchone()[0]:  # type: ignore[index]
            duck.executemany("INSERT INTO t VALUES (?, ?)", data)
        return [tuple(r) for r in duck.execute(sql).fetchall()]
    finally:
        duck.close()


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
@pytest.mark.parametrize(("sql", "rule"), COUNTEREXAMPLES)
def test_a_distinct_that_changes_the_rows_is_not_claimed_equivalent(sql, rule, engine, tmp_path):
    (distinct,) = [
        m for m in mutants("q", sql, ordered=False) if m.kind is Kind.DISTINCT and m.sql.startswith("SELECT DISTINCT")
    ]
    assert not (distinct.equivalent and rule in distinct.equivalent), distinct.equivalent
    assert sorted(_rows(engine, tmp_path, sql)) != sorted(_rows(engine, tmp_path, distinct.sql))


def test_the_sound_cases_of_those_rules_still_hold():
    for sql, rule in [
        ("SELECT a FROM t ORDER BY a DESC LIMIT 1", "LIMIT 1 returns one row"),
        ("SELECT COUNT(*), (SELECT MAX(b) FROM t) FROM t", "an aggregate without GROUP BY"),
    ]:
        (distinct,) = [
            m
            for m in mutants("q", sql, ordered=False)
            if m.kind is Kind.DISTINCT and m.sql.startswith("SELECT DISTINCT")
        ]
        assert distinct.equivalent and rule in distinct.equivalent


def test_a_range_ending_where_the_fixture_ends_is_marked_outside():
    sql = "SELECT COUNT(*) FROM orders WHERE order_date BETWEEN '2024-12-01' AND '2024-12-31'"
    (end,) = [m for m in mutants("q", sql, ordered=False, periods=PERIODS) if m.kind is Kind.INCLUSIVE_END]
    assert end.beyond and "2024-12-31, the last the fixture holds" in end.beyond
    (inside,) = [
        m
        for m in mutants("q", sql.replace("2024-12-31", "2024-12-15"), ordered=False, periods=PERIODS)
        if m.kind is Kind.INCLUSIVE_END
    ]
    assert inside.beyond is None


# --- classification --------------------------------------------------------------------------------


def judged(outcome: str, **mutant) -> Judged:
    m = Mutant("q", Kind.COUNT_SWAP, "COUNT(*) -> COUNT(DISTINCT x)", "SELECT 1", **mutant)
    return Judged(m, "scalar", outcome, "")


def test_a_killed_mutant_claimed_equivalent_is_a_problem():
    result = classify([judged(KILLED, equivalent="a rule")], {})
    assert result.problems == ["q count_swap: COUNT(*) -> COUNT(DISTINCT x): said to be equivalent, but killed ()"]


def test_a_survivor_without_a_reason_is_a_problem_and_counts_against_the_rate():
    result = classify([judged(SURVIVED)], {})
    assert result.problems == ["q count_swap: COUNT(*) -> COUNT(DISTINCT x): survives with no explanation"]
    assert result.verdicts[0].cls == "open"


def test_an_explanation_matching_no_survivor_is_a_problem():
    written = {("q", "count_swap", "elsewhere"): ("equivalent", "why")}
    assert "matches no survivor" in classify([judged(KILLED)], written).problems[0]


# --- the study on the built-in corpus, and the diagnosis page ------------------------------------


@pytest.fixture(scope="module")
def study():
    found = run_study(load_corpus())
    return found, classify(found.judged, load_explanations())


def test_every_survivor_of_the_built_in_corpus_has_a_reason(study):
    _, result = study
    assert result.problems == []


def test_the_built_in_corpus_reaches_the_target_with_no_survivor_outside(study):
    _, result = study
    t = tally(result.verdicts)
    assert t.kill_rate is not None and t.kill_rate >= TARGET, t
    assert not [v for v in result.verdicts if v.cls == "outside"]  # the rows just outside the period kill them


def test_the_diagnosis_page_carries_the_studys_figures(study):
    found, result = study
    assert docs.NEAR_MISS.on_page() == docs_block(found, result).strip(), (
        "docs/eval/diagnosis.md has stale near-miss figures: run `python -m eval.sql.near_miss --update-docs` "
        "from autobot-backend/ and commit the page"
    )


OPEN_REFUTED = 14
"""Open survivors the search refutes at the study's budget, as measured (issue 36 asks for 14 of 15); the one it
misses, listed on the diagnosis page, is refutable only where the reference returns nothing."""


QUICK_BUDGET = "10"
"""Neighbours per equivalent survivor and rewrite in the test: every one of them is searched, at a fifth of the
study's budget (the whole study at its budget took 250 s of a 15-minute suite; ``python -m eval.sql.near_miss
--counterexamples --check-docs`` checks the page's figures at the full budget)."""


def _row(block: str, cls: str) -> list[str]:
    [line] = [line for line in block.splitlines() if line.startswith(f"| {cls} |")]
    return [cell.strip() for cell in line.strip("|").split("|")]


@pytest.mark.slow
def test_the_counterexample_search_refutes_open_survivors_as_the_page_says(study):
    """Issue 36 point 5: the open survivors at the study's budget, refuted as measured, and the page's open row and
    list of those missed are what the search prints now."""
    _, result = study
    budget = Budget.parse(STUDY_BUDGET)
    searched = search_survivors(load_corpus(), result, [], budget, classes=("open",))
    assert len(searched) == 15
    assert sum(s.search is not None and s.search.refuted is not None for s in searched) >= OPEN_REFUTED
    now, page = counter_block(searched, budget), docs.NEAR_MISS_COUNTEREXAMPLES.on_page()
    stale = "docs/eval/diagnosis.md has stale counterexample figures: run `python -m eval.sql.near_miss "
    stale += "--counterexamples --update-docs` from autobot-backend/ and commit the page"
    assert _row(page, "open") == _row(now, "open"), stale
    missed = now.split("Open survivors not refuted:")[1].split("Equivalent survivors")[0]
    assert missed in page, stale


@pytest.mark.slow
def test_the_counterexample_search_never_refutes_an_equivalent_survivor_or_rewrite(study):
    """Issue 36 point 5: no equivalent survivor and no hand-written equivalent rewrite refuted (a refutation there
    is a defect of the search), each searched at QUICK_BUDGET; the page's rows count the same survivors, none
    refuted."""
    _, result = study
    rewrites = load_rewrites()
    assert len(rewrites) >= 40
    searched = search_survivors(
        load_corpus(), result, rewrites, Budget.parse(QUICK_BUDGET), classes=("equivalent", "rewrite")
    )
    assert counter_problems(searched) == []
    by_class = {c: [s for s in searched if s.cls == c] for c in ("equivalent", "rewrite")}
    assert len(by_class["equivalent"]) == 182 and len(by_class["rewrite"]) == len(rewrites)
    page = docs.NEAR_MISS_COUNTEREXAMPLES.on_page()
    for cls, found in by_class.items():
        assert _row(page, cls)[1:3] == [str(len(found)), "0"], cls


# --- the diagnosis of every killed mutant against its known mistake (issue 25) ---------------------


def test_every_mistake_kind_has_a_category():
    assert set(KIND_CATEGORY) == set(Kind)


def test_the_diagnosis_names_the_injected_mistake_on_the_targets(study):
    found, _ = study
    overall, per = agreement(found.judged)
    assert overall.killed > 500  # every killed mutant was diagnosed
    missed = [(j.mutant.question_id, j.mutant.site, j.diagnosis) for j in misses(found.judged)]
    assert overall.rate is not None and overall.rate >= 0.90, missed
    assert all(a.rate is not None and a.rate >= 0.80 for a in per.values()), (per, missed)
    # every miss is listed where the figure is shown
    block = agreement_block(found)
    assert all(j.mutant.question_id in block for j in misses(found.judged))


def test_the_diagnosis_page_carries_the_diagnosis_agreement(study):
    found, _ = study
    assert docs.DIAGNOSIS_AGREEMENT.on_page() == agreement_block(found).strip(), (
        "docs/eval/diagnosis.md has a stale diagnosis agreement: run `python -m eval.sql.near_miss "
        "--update-docs` from autobot-backend/ and commit the page"
    )
