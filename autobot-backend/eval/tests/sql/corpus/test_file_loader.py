"""The corpus loader: a valid file loads with its defaults and overrides; stamps pin the bytes.

Every rejection naming file, line and question id, hostile YAML included, is ``test_file_rejections.py``."""

from __future__ import annotations

import hashlib

import pytest

from eval.sql.corpus.questions import (
    CORPUS_DIR,
    Corpus,
    CorpusError,
    Question,
    builtin_corpus_files,
    corpus_digest,
    load_corpus,
)
from eval.tests.sql.corpus._helpers import GOOD, question, write

# -- accepted ---------------------------------------------------------------------------------


def test_a_valid_file_loads_with_defaults_and_overrides(tmp_path):
    path = write(tmp_path, GOOD)
    corpus = load_corpus([path])
    q1, q2, q3 = corpus.questions
    assert q1 == Question(
        id="q-1",
        question="How many customers are there?",
        shape="scalar",
        fixture="retail",
        sql="SELECT COUNT(*) FROM customers",
        source=str(path),
        line=4,
    )
    assert (q1.expect, q1.stratum, q1.ordered, q1.decimals, q1.static) == ("answer", "general", False, 2, False)
    assert q2.question == "Which products sell best?"  # whitespace of a folded YAML scalar normalised
    assert (q2.fixture, q2.ordered, q2.decimals, q2.line) == ("retail_24m", True, 0, 8)
    assert q3.expect == "refuse" and q3.sql is None and q3.why == "answering would change data"


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        ("sqlite", "SELECT name FROM products ORDER BY name"),
        ("postgres", 'SELECT name FROM products ORDER BY name COLLATE "C"'),
        ("postgresql", 'SELECT name FROM products ORDER BY name COLLATE "C"'),
        ("mysql", "SELECT name FROM products ORDER BY BINARY name"),
        ("mariadb", "SELECT name FROM products ORDER BY BINARY name"),
        # no override: transpiled by sqlglot, which keeps SQLite's order of NULLs
        ("duckdb", "SELECT name FROM products ORDER BY name NULLS FIRST"),
    ],
    ids=["sqlite-default", "sqlglot-name", "sqlalchemy-name", "mysql", "mariadb-falls-back-to-mysql", "transpiled"],
)
def test_reference_sql_per_dialect(tmp_path, dialect, expected):
    q2 = load_corpus([write(tmp_path, GOOD)]).questions[1]
    assert q2.reference_sql(dialect) == expected


def test_db_url_mode_needs_no_fixture(tmp_path):
    text = (
        "version: 1\nquestions:\n  - id: a\n    question: How many rows?\n    sql: SELECT 1\n"
        "  - id: b\n    question: And now?\n    fixture: my_own\n    sql: SELECT 2\n"
    )
    corpus = load_corpus([write(tmp_path, text)], fixtures=None)
    assert [q.fixture for q in corpus.questions] == [None, "my_own"]


def test_a_question_may_name_its_database_instead_of_a_fixture(tmp_path):
    text = (
        "version: 1\ndatabase: hr\nquestions:\n  - id: a\n    question: How many?\n    difficulty: simple\n"
        "    sql: SELECT 1\n  - id: b\n    question: And there?\n    database: sales\n    sql: SELECT 2\n"
        "  - id: c\n    question: And on the fixture?\n    fixture: retail\n    sql: SELECT 3\n"
    )
    corpus = load_corpus([write(tmp_path, text)])
    assert [(q.database, q.fixture, q.target) for q in corpus.questions] == [
        ("hr", None, "db:hr"),
        ("sales", None, "db:sales"),
        (None, "retail", "retail"),  # a question's own fixture wins over the file's database
    ]
    assert corpus.questions[0].difficulty == "simple"


def test_column_order_defaults_to_positional_and_the_question_overrides_the_file(tmp_path):
    text = (
        "version: 1\nfixture: retail\ncolumn_order: any\nquestions:\n  - id: a\n    question: x?\n"
        "    sql: SELECT 1\n  - id: b\n    question: y?\n    column_order: positional\n    sql: SELECT 2\n"
    )
    a, b = load_corpus([write(tmp_path, text)]).questions
    assert (a.column_order, b.column_order) == ("any", "positional")
    assert {q.column_order for q in load_corpus().questions} == {"positional"}  # the built-in corpus


def test_the_command_lines_column_order_overrides_every_question(tmp_path):
    corpus = load_corpus([write(tmp_path, GOOD)]).with_column_order("any")
    assert {q.column_order for q in corpus.questions} == {"any"}


def test_builtin_corpus_loads():
    files = builtin_corpus_files()
    assert files == sorted(files) and all(f.suffix == ".yaml" and f.parent == CORPUS_DIR for f in files)
    corpus = load_corpus()
    assert corpus.size == sum(f.questions for f in corpus.files) >= 64
    assert {f.path for f in corpus.files} >= {"eval/golden/sql/retail.yaml", "eval/golden/sql/retail_24m.yaml"}


def test_by_id_finds_and_suggests(tmp_path):
    corpus = load_corpus([write(tmp_path, GOOD)])
    assert corpus.by_id("q-2").stratum == "ranking"
    with pytest.raises(CorpusError, match=r"no question 'q-22'.*did you mean 'q-2'"):
        corpus.by_id("q-22")


# -- stamps -------------------------------------------------------------------------------------


def test_stamps_hash_raw_bytes_and_count_questions(tmp_path):
    path = write(tmp_path, GOOD)
    corpus = load_corpus([path])
    (stamp,) = corpus.files
    assert stamp.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (stamp.path, stamp.questions) == (str(path), 3)
    text = f"{path.name}\0{stamp.sha256}\n"  # the name, not the folder: identity is content
    assert corpus.digest == hashlib.sha256(text.encode()).hexdigest()


def test_builtin_paths_are_stamped_relative_to_the_backend():
    corpus = load_corpus()
    assert all(not f.path.startswith("/") and f.path.startswith("eval/golden/sql/") for f in corpus.files)
    assert corpus.digest == corpus_digest(corpus.files)


def test_digest_changes_when_one_byte_changes(tmp_path):
    path = write(tmp_path, GOOD)
    before = load_corpus([path])
    path.write_text(GOOD.replace("How many customers", "How many customerz"))
    after = load_corpus([path])
    assert after.files[0].sha256 != before.files[0].sha256
    assert after.digest != before.digest
    path.write_text(GOOD + "# a comment changes the bytes, not the questions\n")
    assert load_corpus([path]).digest not in (before.digest, after.digest)


def test_digest_does_not_depend_on_file_order(tmp_path):
    a = write(tmp_path, question("    question: x?\n    sql: SELECT 1\n"), "a.yaml")
    b = write(tmp_path, question("    question: y?\n    sql: SELECT 2\n").replace("q-1", "q-2"), "b.yaml")
    ab, ba = load_corpus([a, b]), load_corpus([b, a])
    assert ab.digest == ba.digest
    assert [q.id for q in ab.questions] == ["q-1", "q-2"] and [q.id for q in ba.questions] == ["q-2", "q-1"]


def test_corpus_size_counts_questions(tmp_path):
    corpus: Corpus = load_corpus([write(tmp_path, GOOD)])
    assert corpus.size == 3 == corpus.files[0].questions
