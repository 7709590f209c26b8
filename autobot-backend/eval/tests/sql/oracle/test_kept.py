"""The self-check's findings kept by content (:mod:`eval.sql.oracle.kept`), on a real SQLite file.

What an import keeps, a later import reads without asking the database anything, and a run reads its suspect
findings from, still running every reference; the same findings either way. A changed database, a changed
reference or a file that does not read is checked again; ``off`` keeps nothing.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from eval.sql.corpus.questions import Corpus, Question, load_corpus
from eval.sql.oracle.kept import CACHE_ENV, KeptChecks, cache_dir, question_key
from eval.sql.oracle.selfcheck import SelfCheckResult, run_self_check
from eval.sql.oracle.suspect import UNMATCHED_LITERAL
from services.readonly.execute import ReadOnlySQL

WORLD = """
CREATE TABLE country (id INTEGER PRIMARY KEY, name TEXT NOT NULL, continent TEXT NOT NULL, people INTEGER);
INSERT INTO country VALUES (1, 'Canada', 'North America', 38), (2, 'France', 'Europe', 68),
  (3, 'Peru', 'South America', 34);
"""
CORPUS = """\
version: 1
database: world
questions:
  - id: north
    question: Which countries are in Europe or North America?
    sql: SELECT name FROM country WHERE continent IN ('Europe', 'north america')
  - id: north-again
    question: Name the countries of Europe and North America.
    sql: SELECT name FROM country WHERE continent IN ('Europe', 'north america')
  - id: empty
    question: Which countries have over a billion people?
    sql: SELECT name FROM country WHERE people > 1000
  - id: fine
    question: How many countries are there?
    sql: SELECT COUNT(*) FROM country
"""


class Counted:
    """The real database, each statement it is asked to run counted."""

    def __init__(self, database: ReadOnlySQL) -> None:
        self.database, self.asked = database, 0

    def run_readonly(self, sql: str, db_url: str, **kw: Any) -> Any:
        self.asked += 1
        return self.database.run_readonly(sql, db_url, **kw)

    def dialect(self, db_url: str) -> str:
        return self.database.dialect(db_url)

    def structure(self, db_url: str) -> Any:
        return self.database.structure(db_url)


@pytest.fixture
def world(tmp_path: Path) -> tuple[Corpus, dict[str | None, list[str]], Path]:
    (tmp_path / "db" / "world").mkdir(parents=True)
    db = sqlite3.connect(tmp_path / "db" / "world" / "world.sqlite")
    db.executescript(WORLD)
    db.commit()
    db.close()
    (tmp_path / "world.yaml").write_text(CORPUS)
    corpus = load_corpus([tmp_path / "world.yaml"], fixtures=None)
    return corpus, {"db:world": [f"sqlite:///{tmp_path / 'db' / 'world' / 'world.sqlite'}"]}, tmp_path / "kept"


def check(corpus: Corpus, targets: Any, kept: Path | None, *, need_rows: bool = True) -> tuple[SelfCheckResult, int]:
    with ReadOnlySQL() as database:
        counted = Counted(database)
        result = run_self_check(
            counted,
            corpus,
            targets,
            lint_rotations=False,
            snapshot_dir=None,
            kept=None if kept is None else KeptChecks(kept),
            need_rows=need_rows,
        )
    return result, counted.asked


def findings(result: SelfCheckResult) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    defects = [(d.question_id, d.kind, d.detail) for d in result.defects]
    suspects = [(s.question_id, s.kind, s.detail) for found in result.suspects.values() for s in found]
    return defects, suspects


def test_an_import_after_a_check_asks_the_database_nothing_and_finds_the_same(world):
    corpus, targets, kept = world
    first, asked = check(corpus, targets, kept, need_rows=False)
    assert asked > len(corpus.questions) and list(kept.glob("checks-*.json"))
    defects, suspects = findings(first)
    assert [d[:2] for d in defects] == [("empty", "oracle: empty result")]
    assert {(s[0], s[1]) for s in suspects} == {("north", UNMATCHED_LITERAL), ("north-again", UNMATCHED_LITERAL)}
    again, asked = check(corpus, targets, kept, need_rows=False)
    assert asked == 0 and findings(again) == findings(first)
    assert findings(check(corpus, targets, None)[0]) == findings(first)  # as a check that keeps nothing finds


def test_a_run_after_an_import_runs_every_reference_but_looks_for_no_suspect_again(world):
    corpus, targets, kept = world
    plain, plain_asked = check(corpus, targets, None)
    check(corpus, targets, kept, need_rows=False)
    run, asked = check(corpus, targets, kept)
    assert findings(run) == findings(plain)
    assert set(run.reference) == set(plain.reference) == {"north", "north-again", "empty", "fine"}
    assert [r.rows for r in run.reference["fine"]] == [[(3,)]]
    assert len(corpus.questions) <= asked < plain_asked  # each reference run (once: on SQLite a second run of these
    # could not differ, eval.sql.oracle.determinism); no literal probed


def test_a_changed_database_or_reference_is_checked_again(world, tmp_path):
    corpus, targets, kept = world
    check(corpus, targets, kept, need_rows=False)
    db = sqlite3.connect(tmp_path / "db" / "world" / "world.sqlite")
    db.execute("INSERT INTO country VALUES (4, 'China', 'Asia', 1400)")
    db.commit()
    db.close()
    changed, asked = check(corpus, targets, kept, need_rows=False)
    assert asked > 0 and findings(changed)[0] == []  # the big country is there now: no empty result
    reworded = dataclasses.replace(corpus, questions=(dataclasses.replace(corpus.questions[3], sql="SELECT 1"),))
    _, asked = check(reworded, targets, kept, need_rows=False)
    assert asked > 0


def test_the_key_is_what_the_checks_read(world):
    corpus, _, _ = world
    north, again, empty = corpus.questions[:3]
    renamed = dataclasses.replace(north, id="other", stratum="s", difficulty="hard", source="x.yaml", line=9)
    assert question_key(north, ["d"], "sqlite", False) == question_key(renamed, ["d"], "sqlite", False)
    # the words are read (a suspect check compares the reference with its question): a paraphrase is its own
    assert question_key(north, ["d"], "sqlite", False) != question_key(again, ["d"], "sqlite", False)
    assert question_key(north, ["d"], "sqlite", False) != question_key(empty, ["d"], "sqlite", False)
    assert question_key(north, ["d"], "sqlite", False) != question_key(north, ["e"], "sqlite", False)
    decimals = dataclasses.replace(north, decimals=4)
    assert question_key(north, ["d"], "sqlite", False) != question_key(decimals, ["d"], "sqlite", False)
    assert question_key(north, ["d"], "sqlite", False) != question_key(north, ["d"], "duckdb", False)


def test_a_file_that_does_not_read_is_ignored_and_written_again(world):
    corpus, targets, kept = world
    first, _ = check(corpus, targets, kept, need_rows=False)
    for path in kept.glob("checks-*.json"):
        path.write_text("{not json")
    again, asked = check(corpus, targets, kept, need_rows=False)
    assert asked > 0 and findings(again) == findings(first)
    _, asked = check(corpus, targets, kept, need_rows=False)
    assert asked == 0


def test_off_keeps_nothing(world, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, "off")
    assert cache_dir() is None
    corpus, targets, kept = world
    with ReadOnlySQL() as database:
        checks = KeptChecks()
        assert checks.places(list(corpus.questions), lambda q: targets["db:world"], database.dialect, False) == {}
    monkeypatch.setenv(CACHE_ENV, str(kept))
    assert cache_dir() == kept


def test_a_server_database_is_never_kept(world):
    corpus, _, kept = world
    checks = KeptChecks(kept)
    url = "postgresql://user@localhost/db"
    assert checks.places(list(corpus.questions), lambda q: [url], lambda u: "postgresql", False) == {}
    question: Question = corpus.questions[0]
    assert checks.places([question], lambda q: [], lambda u: "sqlite", False) == {}
