"""A pass is not refuted by the engine's choice inside the answer's own tie: where the answer's order leaves a tie
at its LIMIT and one way of breaking it gives the reference's rows, the neighbour is set aside (found on Spider,
where a shrunk counterexample left "the shop with the most employees" tied between two shops).

Real SQLite: a board of players; the reference breaks a tie for the top score by name (descending), the answer
leaves it to the engine, which takes the first row it reads. Before the rule the search refuted the answer on a
neighbour with a copied top score; an answer wrong in general (a fixed threshold for "the two best") is still
refuted.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from eval.run import main
from eval.sql.counterexample.judging import ANSWER_ARBITRARY

CORPUS = """\
version: 1
questions:
  - id: top-scorer
    question: Who scored the most? One name.
    stratum: top
    sql: SELECT name FROM player ORDER BY score DESC, name DESC LIMIT 1
  - id: top-two
    question: Which two players scored the most?
    stratum: top
    sql: SELECT name FROM player ORDER BY score DESC LIMIT 2
"""
ANSWERS = [
    {"id": "top-scorer", "sql": "SELECT name FROM player ORDER BY score DESC LIMIT 1"},
    {"id": "top-two", "sql": "SELECT name FROM player WHERE score >= 82"},
]


def _board(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.executescript(
            """
            CREATE TABLE team (team_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE player (player_id INTEGER PRIMARY KEY, name TEXT NOT NULL,
                                 team_id INTEGER REFERENCES team(team_id), score INTEGER NOT NULL);
            INSERT INTO team VALUES (1, 'Reds'), (2, 'Blues');
            INSERT INTO player VALUES (1, 'Ann', 1, 90), (2, 'Bob', 1, 75), (3, 'Cy', 2, 60), (4, 'Di', 2, 82),
                                      (5, 'Ed', 1, 71);
            """
        )
    conn.close()


def test_a_tie_the_answer_leaves_to_the_engine_does_not_refute_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _board(tmp_path / "board.db")
    (tmp_path / "mine.yaml").write_text(CORPUS, encoding="utf-8")
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in ANSWERS), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVAL_OUTPUT_DIR", str(tmp_path))
    code = main(
        [
            "--suite",
            "sql",
            "--corpus",
            "mine.yaml",
            "--db-url",
            f"sqlite:///{tmp_path / 'board.db'}",
            "--candidate",
            "recorded",
            "--model",
            "scripted",
            "--answers",
            "answers.jsonl",
            "--json",
            "out.json",
            "--counterexamples",
            "40",
        ]
    )
    assert code == 0
    q = {x["id"]: x for x in json.loads((tmp_path / "out.json").read_text())["questions"]}
    top, two = q["top-scorer"], q["top-two"]
    assert (top["verdict"], two["verdict"]) == ("pass", "pass")
    assert top["search"]["refuted"] is None, top["search"]["refuted"]
    assert top["search"]["discarded"].get(ANSWER_ARBITRARY, 0) >= 1  # the tie was met, and set aside
    assert two["search"]["refuted"] is not None  # a threshold for "the two best" is wrong on other scores
