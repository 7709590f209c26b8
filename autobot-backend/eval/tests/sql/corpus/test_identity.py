"""A corpus is its content: the same bytes in another folder are the same corpus, and its gate keeps
working when a team moves the folder that holds the corpus, its database and its baselines."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from eval.run import main as run_main
from eval.sql.corpus.questions import load_corpus

CORPUS = """\
version: 1
database: shop
questions:
  - id: shop-count
    question: How many customers are there?
    sql: SELECT COUNT(*) FROM customers
  - id: shop-names
    question: List the customers' names.
    sql: SELECT name FROM customers
"""


def make_team_folder(root: Path) -> Path:
    (root / "db" / "shop").mkdir(parents=True)
    db = sqlite3.connect(root / "db" / "shop" / "shop.sqlite")
    db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO customers VALUES (1, 'Ada'), (2, 'Grace'), (3, 'Edsger')")
    db.commit()
    db.close()
    (root / "questions.yaml").write_text(CORPUS)
    answers = [
        {"id": "shop-count", "sql": "SELECT COUNT(*) FROM customers"},
        {"id": "shop-names", "sql": "SELECT name FROM customers WHERE id < 3"},
    ]
    (root / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers))
    return root


def grade(root: Path, *extra: str) -> int:
    return run_main(
        [
            "--suite",
            "sql",
            "--corpus",
            str(root / "questions.yaml"),
            "--db-dir",
            str(root / "db"),
            "--candidate",
            "recorded",
            "--answers",
            str(root / "answers.jsonl"),
            "--model",
            "team-model-1",
            "--json",
            "report.json",
            *extra,
        ]
    )


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    return tmp_path


def test_a_byte_identical_copy_in_another_folder_has_the_same_digest(tmp_path):
    a, b = make_team_folder(tmp_path / "a"), tmp_path / "elsewhere" / "deeper"
    b.mkdir(parents=True)
    shutil.copy(a / "questions.yaml", b / "questions.yaml")
    first, second = (load_corpus([p / "questions.yaml"], fixtures=None) for p in (a, b))
    assert first.files[0].path != second.files[0].path  # shown where it is...
    assert first.digest == second.digest  # ...identified by what it is
    (b / "questions.yaml").write_text(CORPUS.replace("How many", "How  many"))
    assert load_corpus([b / "questions.yaml"], fixtures=None).digest != first.digest


def test_moving_a_corpus_with_its_baselines_keeps_its_gate(workdir, capsys):
    team = make_team_folder(workdir / "team")
    assert grade(team, "--record-baseline", "--force") == 0
    assert (team / "baselines").is_dir() and any((team / "baselines").iterdir())
    recorded = json.loads((workdir / "report.json").read_text())

    moved = workdir / "repo" / "eval" / "team"
    moved.parent.mkdir(parents=True)
    shutil.move(str(team), str(moved))
    capsys.readouterr()
    assert grade(moved, "--fail-on-regression") == 0, capsys.readouterr().err
    after = json.loads((workdir / "report.json").read_text())
    assert after["corpus"]["digest"] == recorded["corpus"]["digest"]
    assert after["cohort"]["fingerprint"] == recorded["cohort"]["fingerprint"]
    assert after["gate"]["status"] == "passed" and after["gate"]["enforced"], after["gate"]

    # The gate still sees a change of content after the move: a regressed answer fails it.
    (moved / "answers.jsonl").write_text(
        json.dumps({"id": "shop-count", "sql": "SELECT COUNT(*) + 1 FROM customers"})
        + "\n"
        + json.dumps({"id": "shop-names", "sql": "SELECT name FROM customers WHERE id < 3"})
        + "\n"
    )
    assert grade(moved, "--fail-on-regression") == 1
