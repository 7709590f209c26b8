"""Ordered means asked (issue 22, point 5): the built-in corpus says the order of every ordered
question, a user's ordered question that does not is a warning, and an answer without an outermost
ORDER BY gets the same verdict on SQLite, whose GROUP BY happens to sort, and on DuckDB."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest

from eval.core.runner import Replay
from eval.sql.corpus.lints import corpus_lints
from eval.sql.corpus.order_words import states_order
from eval.sql.corpus.questions import Question, load_corpus
from eval.sql.grading.grade import Grader
from eval.sql.grading.stated_order import orders_its_rows
from eval.sql.model.lints import UNSTATED_ORDER
from eval.sql.model.outcome import Verdict
from services.generation.protocol import Generation
from services.generation.recorded import RecordedGenerator
from services.nl_database_service import NLDatabaseService

ROWS = [("2024-03", 5), ("2024-01", 7), ("2024-02", 1), ("2024-01", 2), ("2024-03", 4), ("2024-02", 20)]
MONTHLY = Question(
    id="monthly",
    question="What was revenue in each month, in date order?",
    sql="SELECT month, SUM(amount) FROM sales GROUP BY month ORDER BY month",
    ordered=True,
)


def build(engine: str, folder: Path) -> str:
    ddl, insert = "CREATE TABLE sales (month TEXT, amount INTEGER)", "INSERT INTO sales VALUES (?, ?)"
    if engine == "sqlite":
        with sqlite3.connect(folder / "s.sqlite") as conn:
            conn.execute(ddl)
            conn.executemany(insert, ROWS)
        return f"sqlite:///{folder / 's.sqlite'}"
    conn = duckdb.connect(str(folder / "s.duckdb"))
    conn.execute(ddl)
    conn.executemany(insert, ROWS)
    conn.close()
    return f"duckdb:///{folder / 's.duckdb'}"


def grade(url: str, q: Question, sql: str):
    with NLDatabaseService(RecordedGenerator({}), timeout_s=5) as service:
        reference = [service.run_readonly(q.sql or "", url)]
        answer = service.answer(q.question, url, generation=Generation(sql=sql))
        return Grader(service, {None: [url]}, {q.id: reference}).grade(q, Replay(q, answer))


@pytest.fixture(params=["sqlite", "duckdb"])
def url(request, tmp_path) -> str:
    return build(request.param, tmp_path)


def test_an_answer_without_order_by_is_wrong_for_order_on_every_engine(url):
    outcome = grade(url, MONTHLY, "SELECT month, SUM(amount) FROM sales GROUP BY month")
    assert (outcome.verdict, outcome.reason, outcome.rotations_matched) == (Verdict.WRONG, "order", 0)
    assert outcome.detail.startswith("the rows are right, but the SQL has no outermost ORDER BY")


def test_the_same_answer_with_order_by_passes_on_every_engine(url):
    outcome = grade(url, MONTHLY, "SELECT month, SUM(amount) AS revenue FROM sales GROUP BY month ORDER BY 1")
    assert outcome.verdict is Verdict.PASS, outcome.detail


def test_wrong_rows_without_order_by_keep_the_rows_verdict_and_say_both(url):
    outcome = grade(url, MONTHLY, "SELECT month, MAX(amount) FROM sales GROUP BY month")
    assert (outcome.verdict, outcome.reason) == (Verdict.WRONG, "value")
    assert "; and the SQL has no outermost ORDER BY" in outcome.detail


def test_a_one_row_answer_has_no_order_to_state(url):
    q = Question(
        id="best",
        question="Which month had the most revenue, best first?",
        sql="SELECT month FROM sales GROUP BY month ORDER BY SUM(amount) DESC LIMIT 1",
        ordered=True,
    )
    assert grade(url, q, "SELECT '2024-02'").verdict is Verdict.PASS


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT a FROM t ORDER BY a", True),
        ("WITH c AS (SELECT a FROM t ORDER BY a) SELECT a FROM c", False),
        ("SELECT a FROM (SELECT a FROM t ORDER BY a) AS s", False),
        ("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", True),
        ("(SELECT a FROM t ORDER BY a)", True),
        ("SELECT a, ROW_NUMBER() OVER (ORDER BY a) FROM t", False),
        ("SELECT FROM WHERE (", None),
    ],
)
def test_only_the_outermost_order_by_counts(sql, expected):
    assert orders_its_rows(sql, "sqlite") is expected


def test_every_ordered_question_of_the_builtin_corpus_states_its_order():
    corpus = load_corpus()
    assert sum(q.ordered for q in corpus.questions) == 20
    assert [x for x in corpus_lints(corpus.questions) if x.kind == UNSTATED_ORDER] == []


def test_an_ordered_question_that_states_no_order_is_a_lint_naming_it(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "version: 1\nquestions:\n"
        "  - id: mine-1\n    question: What was revenue in each month of 2024?\n    ordered: true\n"
        "    sql: SELECT 1 ORDER BY 1\n"
        "  - id: mine-2\n    question: Revenue by month, oldest month first.\n    ordered: true\n"
        "    sql: SELECT 1 ORDER BY 1\n"
        "  - id: mine-3\n    question: How many customers ordered twice?\n    sql: SELECT 1\n"
    )
    (lint,) = corpus_lints(load_corpus([path], fixtures=None).questions)
    assert (
        "mine.yaml:3: question 'mine-1': unstated order: ordered: true, but the question does not say in what order"
    ) in lint.line()


@pytest.mark.parametrize(
    ("text", "states"),
    [
        ("Show the number of orders in each month of the quarter, in date order.", True),
        ("List the sales channels with their average order value, from highest to lowest.", True),
        ("Name the five customers who spent the most, biggest first.", True),
        ("Show quarterly revenue, oldest quarter first.", True),
        ("Rank the product categories by units sold.", True),
        ("What was revenue in each month of 2024?", False),
        ("How many customers ordered in each year?", False),  # "ordered" alone is buying
        ("How many items were in each order?", False),
    ],
)
def test_order_words(text, states):
    assert states_order(text) is states
