"""``python -m eval.sql.check`` and a run agree on every lint: corpora that raise each kind, checked and run.

One corpus over a database of the user's own (``--db-url``) raises every corpus lint (draft, near-duplicate,
unstated order), an oracle defect of each kind a single database can show, and every kind of suspect
reference; one on the built-in fixtures adds the rotation lint. Each is checked with ``eval.sql.check`` and
run with the reference candidate (``--json``): the (question, kind) pairs the check prints are the pairs the
run's report holds, and every kind is among them, so the comparison cannot pass on nothing.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from eval.cli import check
from eval.run import main as run_main
from eval.sql.model.lints import CORPUS_KINDS

SHOP = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL, joined DATE NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, total REAL NOT NULL);
INSERT INTO customers VALUES (1, 'Ada', 'Leeds', '2024-01-05'), (2, 'Ben', 'York', '2024-02-11'),
  (3, 'Cy', 'Leeds', '2024-03-02'), (4, 'Di', 'Hull', '2024-03-15');
INSERT INTO orders VALUES (1, 1, 120.5), (2, 1, 80), (3, 2, 42.25), (4, 3, 310), (5, 4, 80), (6, 4, 0.2);
"""
OWN = """\
version: 1
questions:
  - id: draft-1
    question: How many customers are there?
    sql: SELECT COUNT(*) FROM customers
    draft: true
  - id: dup-a
    question: How many orders did the customers in Leeds place?
    sql: SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.city = 'Leeds'
  - id: dup-b
    question: How many orders did customers in Leeds place?
    sql: SELECT COUNT(o.id) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.city = 'Leeds'
  - id: unstated
    question: When did each customer join? Give each name and date.
    ordered: true
    sql: SELECT name, joined FROM customers ORDER BY joined
  - id: stated
    question: Give each customer's name and the date they joined, in date order.
    ordered: true
    sql: SELECT name, joined FROM customers ORDER BY joined, id
  - id: one-row
    question: Which customer joined last?
    ordered: true
    sql: SELECT name FROM customers ORDER BY joined DESC LIMIT 1
  - id: failed
    question: What is each customer's shoe size?
    sql: SELECT shoe_size FROM customers
  - id: empty
    question: Which orders were over 1000?
    sql: SELECT id FROM orders WHERE total > 1000
  - id: not-scalar
    question: What is the total of each customer's orders?
    shape: scalar
    sql: SELECT customer_id, SUM(total) FROM orders GROUP BY customer_id
  - id: lost
    question: What is the smallest order total, to the nearest whole number?
    decimals: 0
    sql: SELECT MIN(total) FROM orders
  - id: cut
    question: Name two customers.
    sql: SELECT name FROM customers LIMIT 2
  - id: literal
    question: How many customers live in Leeds?
    sql: SELECT COUNT(*) FROM customers WHERE city = 'leeds '
  - id: cross
    question: How many orders and customers are there together?
    sql: SELECT COUNT(*) FROM orders, customers
  - id: ungrouped
    question: For each city, how many customers live there, and one of their names?
    sql: SELECT city, name, COUNT(*) FROM customers GROUP BY city
  - id: top-tie
    question: Which order has the smallest total above 50?
    sql: SELECT id FROM orders WHERE total > 50 ORDER BY total LIMIT 1
"""
ON_FIXTURES = """\
version: 1
fixture: retail
questions:
  - id: fx-constant
    question: What is one plus one?
    shape: scalar
    sql: SELECT 1 + 1
  - id: fx-unstated
    question: How many units of each product category were sold on completed orders?
    ordered: true
    sql: |
      SELECT p.category, SUM(oi.quantity) AS units
      FROM order_items oi
      JOIN orders o ON o.order_id = oi.order_id
      JOIN products p ON p.product_id = oi.product_id
      WHERE o.status = 'completed'
      GROUP BY p.category
      ORDER BY units DESC, p.category
"""
EXPECTED_ORACLE = {
    "oracle: reference failed to run",
    "oracle: empty result",
    "oracle: not a scalar",
    "oracle: information lost at 0 decimals",
    "oracle: ties in ordering key",
}
EXPECTED_SUSPECT = {"unmatched_literal", "join_without_condition", "ungrouped_column", "limit_tie"}
_LINE = re.compile(r"^\S+:\d+: question '([^']+)': ((?:oracle: )?[^:]+?): ")
_SUSPECT = re.compile(r"^\S+:\d+: question '([^']+)': suspect reference \((\w+)\): ")


@pytest.fixture
def shop(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for var in ("EVAL_CALLER_DIR", "EVAL_OUTPUT_DIR"):
        monkeypatch.delenv(var, raising=False)
    db = sqlite3.connect(tmp_path / "shop.db")
    db.executescript(SHOP)
    db.commit()
    db.close()
    (tmp_path / "own.yaml").write_text(OWN)
    (tmp_path / "fixtures.yaml").write_text(ON_FIXTURES)
    return tmp_path


def checked(capsys: pytest.CaptureFixture[str], *args: str) -> set[tuple[str, str]]:
    """(question id, kind) of every line the check prints, a suspect's kind prefixed ``suspect: ``."""
    check.main(list(args))
    found = set()
    for line in capsys.readouterr().out.splitlines():
        if m := _SUSPECT.match(line):
            found.add((m.group(1), f"suspect: {m.group(2)}"))
        elif m := _LINE.match(line):
            found.add((m.group(1), m.group(2)))
    return found


def reported(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[set[tuple[str, str]], dict[str, int]]:
    """(question id, kind) of every lint, oracle defect and suspect reference of the run's JSON report, and its
    count by kind."""
    assert run_main(["--suite", "sql", "--candidate", "reference", "--json", "r.json", *args]) == 0
    capsys.readouterr()
    data = json.loads(Path("r.json").read_text())
    found = {(x["question_id"], x["kind"]) for x in [*data.get("lints", []), *data["oracle_defects"]]}
    found |= {(x["question_id"], f"suspect: {x['kind']}") for x in data.get("suspect_references", [])}
    return found, data.get("lint_counts", {})


def test_check_and_run_agree_on_every_lint_of_a_corpus_over_ones_own_database(shop, capsys):
    where = ["--db-url", "sqlite:///shop.db"]
    by_check = checked(capsys, "own.yaml", *where)
    by_run, counts = reported(capsys, "--corpus", "own.yaml", *where)
    assert by_check == by_run
    kinds = {kind for _, kind in by_run}
    assert set(CORPUS_KINDS) | EXPECTED_ORACLE | {f"suspect: {k}" for k in EXPECTED_SUSPECT} <= kinds
    assert ("unstated", "unstated order") in by_run
    assert not {("stated", "unstated order"), ("one-row", "unstated order")} & by_run  # words, or one row
    assert counts == {
        kind: len({qid for qid, k in by_run if k == kind}) for kind in kinds if not kind.startswith("suspect: ")
    }


def test_check_and_run_agree_on_the_built_in_fixtures_with_their_rotations(shop, capsys):
    by_check = checked(capsys, "fixtures.yaml")
    by_run, _ = reported(capsys, "--corpus", "fixtures.yaml")
    assert (
        by_check
        == by_run
        == {
            ("fx-constant", "oracle: identical on every rotation"),
            ("fx-unstated", "unstated order"),
        }
    )


def test_a_benchmarks_convention_raises_no_unstated_order_on_either(shop, capsys):
    text = OWN.replace("version: 1\n", "version: 1\nordered_from: sql\n")
    (shop / "own.yaml").write_text(text)
    where = ["--db-url", "sqlite:///shop.db"]
    by_check = checked(capsys, "own.yaml", *where)
    by_run, _ = reported(capsys, "--corpus", "own.yaml", *where)
    assert by_check == by_run and "unstated order" not in {kind for _, kind in by_run}
    assert ("dup-b", "near-duplicate") in by_run  # the corpus's other lints still fire
