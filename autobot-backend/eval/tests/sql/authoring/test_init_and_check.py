"""Writing a corpus of one's own: ``eval.sql.init`` over a real database, ``eval.sql.check`` on what it wrote,
and a draft question that a run never counts."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from eval.cli import check, init
from eval.core.exit_codes import EXIT_CANNOT_JUDGE, EXIT_OK
from eval.run import main as run_main
from eval.sql.corpus import json_schema
from eval.sql.corpus.answers import load_answers
from eval.sql.corpus.questions import load_corpus

SHOP = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL);
CREATE TABLE "order lines" (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id),
                            amount NUMERIC(10, 2) NOT NULL);
INSERT INTO customers VALUES (1, 'Ada', 'Leeds'), (2, 'Ben', 'York'), (3, 'Cy', 'Leeds'), (4, 'Di', 'Hull');
INSERT INTO "order lines" VALUES (1, 1, 120.5), (2, 1, 80), (3, 2, 42.25), (4, 3, 310), (5, 4, 99.99);
"""


def build(path: Path, script: str = SHOP) -> Path:
    db = sqlite3.connect(path)
    db.executescript(script)
    db.commit()
    db.close()
    return path


@pytest.fixture
def shop(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVAL_CALLER_DIR", str(tmp_path))
    build(tmp_path / "shop.db")
    return tmp_path


def undraft(path: Path) -> None:
    path.write_text("".join(line for line in path.read_text().splitlines(True) if "draft: true" not in line))


def test_init_writes_one_draft_per_shape_over_the_real_tables_and_a_template(shop, capsys):
    assert init.main(["--db-url", "sqlite:///shop.db", "--out", "q"]) == EXIT_OK
    text = (shop / "q" / "questions.yaml").read_text()
    assert text.startswith("# yaml-language-server: $schema=")
    ref = text.splitlines()[0].split("$schema=", 1)[1]
    assert (shop / "q" / ref).resolve() == json_schema.SCHEMA_PATH  # the modeline finds the schema from the file
    corpus = load_corpus([shop / "q" / "questions.yaml"], fixtures=None)
    by_id = {q.id: q for q in corpus.questions}
    assert all(q.draft for q in corpus.questions)
    assert by_id["shop-scalar-001"].shape == "scalar"
    assert by_id["shop-rows-001"].sql == "SELECT city, COUNT(*) AS n FROM customers GROUP BY city"
    top = by_id["shop-top-001"]
    assert top.ordered and top.sql == 'SELECT id, amount FROM "order lines" ORDER BY amount DESC, id LIMIT 3'
    assert by_id["shop-refuse-001"].expect == "refuse"
    assert Draft202012Validator(json_schema.corpus_schema()).is_valid(yaml.safe_load(text))
    answers = load_answers(shop / "q" / "answers.jsonl")
    assert answers.model == "your-model-name" and set(answers.answers) == set(by_id)
    assert all(a.refused for a in answers.answers.values())  # a template left as it is passes nothing
    assert "python -m eval.sql.check q/questions.yaml --db-url sqlite:///shop.db" in capsys.readouterr().out


def test_init_never_overwrites_and_names_the_file(shop, capsys):
    (shop / "q").mkdir()
    (shop / "q" / "answers.jsonl").write_text("mine\n")
    assert init.main(["--db-url", "sqlite:///shop.db", "--out", "q"]) == EXIT_CANNOT_JUDGE
    err = capsys.readouterr().err
    assert "refusing to overwrite" in err and "answers.jsonl" in err and "choose another --out folder" in err
    assert (shop / "q" / "answers.jsonl").read_text() == "mine\n"
    assert not (shop / "q" / "questions.yaml").exists()


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("sqlite:///missing.db", "never creates a database"),
        ("sqlite:///zero.db", "has no tables"),
        ("sqlite:///empty.db", "no table with rows"),
    ],
)
def test_init_refuses_a_database_it_cannot_ask_about(shop, capsys, url, says):
    build(shop / "empty.db", "CREATE TABLE t (id INTEGER PRIMARY KEY);")
    (shop / "zero.db").write_bytes(b"")
    assert init.main(["--db-url", url, "--out", "q"]) == EXIT_CANNOT_JUDGE
    assert says in capsys.readouterr().err
    assert not (shop / "q" / "questions.yaml").exists()


def test_check_names_every_draft_then_passes_once_edited(shop, capsys):
    init.main(["--db-url", "sqlite:///shop.db", "--out", "q"])
    capsys.readouterr()
    assert check.main(["q/questions.yaml", "--db-url", "sqlite:///shop.db"]) == EXIT_CANNOT_JUDGE
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(
        "q/questions.yaml:12: question 'shop-scalar-001': draft: check and edit it, then remove `draft: true`"
    )
    assert out[-1] == "4 problems; 4 question(s) in 1 file(s); nothing was graded"
    undraft(shop / "q" / "questions.yaml")
    assert check.main(["q/questions.yaml", "--db-url", "sqlite:///shop.db"]) == EXIT_OK
    assert capsys.readouterr().out.startswith("clean: 4 question(s) in 1 file(s)")


def test_check_reports_loader_and_self_check_problems_by_file_line_and_id(shop, capsys):
    (shop / "mine.yaml").write_text(
        "version: 1\nquestions:\n"
        "  - id: a\n    question: How many?\n    shape: scalar\n    sql: SELECT COUNT(*) FROM customers\n"
        "  - id: b\n    question: Names?\n    sql: SELECT nme FROM customers\n"
        "  - id: c\n    question: Nobody?\n    sql: SELECT name FROM customers WHERE city = 'Paris'\n"
    )
    assert check.main(["mine.yaml", "--db-url", "sqlite:///shop.db"]) == EXIT_CANNOT_JUDGE
    out = capsys.readouterr().out
    assert "mine.yaml:7: question 'b': oracle: reference failed to run" in out
    assert "mine.yaml:10: question 'c': oracle: empty result" in out and "question 'a'" not in out
    (shop / "twice.yaml").write_text(
        "version: 1\nquestions:\n"
        "  - id: a\n    question: How many customers are there?\n    sql: SELECT COUNT(*) FROM customers\n"
        "  - id: b\n    question: How many customers are there\n    sql: SELECT COUNT(id) FROM customers\n"
    )
    assert check.main(["twice.yaml", "--db-url", "sqlite:///shop.db"]) == EXIT_CANNOT_JUDGE
    out = capsys.readouterr().out
    assert (
        "twice.yaml:6: question 'b': near-duplicate: nearly the same text as 'a' (twice.yaml:3; similarity 100, "
        "threshold 85)"
    ) in out
    (shop / "bad.yaml").write_text("version: 1\nquestions:\n  - id: a\n    questoin: How many?\n    sql: SELECT 1\n")
    assert check.main(["bad.yaml", "--db-url", "sqlite:///shop.db"]) == EXIT_CANNOT_JUDGE
    out = capsys.readouterr().out
    assert "bad.yaml:4: question 'a': unknown key 'questoin' (did you mean 'question'?)" in out
    assert "the corpus did not load" in out
    (shop / "own.yaml").write_text("version: 1\nquestions:\n  - id: a\n    question: How many?\n    sql: SELECT 1\n")
    assert check.main(["own.yaml"]) == EXIT_CANNOT_JUDGE
    out = capsys.readouterr().out
    assert "own.yaml:3: question 'a': no fixture" in out and out.rstrip().endswith("add --db-url URL")


@pytest.mark.slow
def test_check_without_a_url_runs_on_the_builtin_fixtures_with_their_rotations(shop, capsys):
    (shop / "fx.yaml").write_text(
        "version: 1\nfixture: retail\nquestions:\n"
        "  - id: f1\n    question: How many customers?\n    shape: scalar\n    sql: SELECT COUNT(*) FROM customers\n"
        "  - id: f2\n    question: One.\n    shape: scalar\n    sql: SELECT 1\n"
    )
    assert check.main(["fx.yaml"]) == EXIT_CANNOT_JUDGE
    out = capsys.readouterr().out
    assert "fx.yaml:8: question 'f2': oracle: identical on every rotation" in out and "'f1'" not in out


def test_a_draft_is_never_asked_and_never_measured(shop, capsys):
    init.main(["--db-url", "sqlite:///shop.db", "--out", "q"])
    rights = [
        {"id": "shop-scalar-001", "sql": 'SELECT COUNT(*) FROM "order lines"', "model": "m"},
        {"id": "shop-rows-001", "sql": "SELECT city, COUNT(*) FROM customers GROUP BY city", "model": "m"},
    ]
    (shop / "a.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rights))
    argv = ["--suite", "sql", "--corpus", "q/questions.yaml", "--db-url", "sqlite:///shop.db"]
    argv += ["--candidate", "recorded", "--answers", "a.jsonl", "--json", "out.json"]
    assert run_main(argv) == EXIT_CANNOT_JUDGE  # nothing measured: a corpus of drafts cannot be judged
    outcomes = {q["id"]: q for q in json.loads((shop / "out.json").read_text())["questions"]}
    assert {q["verdict"] for q in outcomes.values()} == {"unmeasured"}
    assert outcomes["shop-scalar-001"]["reason"] == "draft"
    assert outcomes["shop-scalar-001"]["sql"] is None  # never asked, though its answer was right
    undraft(shop / "q" / "questions.yaml")
    run_main(argv)
    outcomes = {q["id"]: q for q in json.loads((shop / "out.json").read_text())["questions"]}
    assert outcomes["shop-scalar-001"]["verdict"] == "pass" and outcomes["shop-rows-001"]["verdict"] == "pass"


def _build_with_sqlalchemy(url: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for statement in SHOP.split(";"):
            if statement.strip():
                conn.exec_driver_sql(statement)
    engine.dispose()


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["duckdb", "postgresql"])
def test_init_and_check_on_other_engines(shop, capsys, request, engine):
    if engine == "duckdb":
        url = read_url = f"duckdb:///{shop / 'shop.duckdb'}"
        _build_with_sqlalchemy(url)
    else:
        database = request.getfixturevalue("postgres").create_database("authoring")
        _build_with_sqlalchemy(database.owner_url)
        url, read_url = database.owner_url, database.reader_url
    assert init.main(["--db-url", read_url, "--out", "q"]) == EXIT_OK
    corpus = load_corpus([shop / "q" / "questions.yaml"], fixtures=None)
    top = next(q for q in corpus.questions if q.id.endswith("-top-001"))
    assert top.sql is not None and top.sql.startswith('SELECT id, amount FROM "order lines" ORDER BY amount DESC')
    undraft(shop / "q" / "questions.yaml")
    capsys.readouterr()
    assert check.main(["q/questions.yaml", "--db-url", url]) == EXIT_OK, capsys.readouterr().out


def test_a_hostile_table_name_stays_inside_its_question(shop, capsys):
    name = 'evil\n  - id: injected\n    question: "x" # '
    quoted = name.replace('"', '""')
    build(
        shop / "hostile.db",
        f'CREATE TABLE "{quoted}" (id INTEGER PRIMARY KEY, v REAL); INSERT INTO "{quoted}" VALUES (1, 2.5), (2, 3.5);',
    )
    assert init.main(["--db-url", "sqlite:///hostile.db", "--out", "q"]) == EXIT_OK
    corpus = load_corpus([shop / "q" / "questions.yaml"], fixtures=None)
    assert "injected" not in {q.id for q in corpus.questions}
    scalar = next(q for q in corpus.questions if q.shape == "scalar")
    assert scalar.sql == f'SELECT COUNT(*) FROM "{quoted}"'
    undraft(shop / "q" / "questions.yaml")
    assert check.main(["q/questions.yaml", "--db-url", "sqlite:///hostile.db"]) == EXIT_OK


def test_init_s_starter_passes_its_own_check_for_long_names(shop, capsys):
    """Issue 38 point 6: a 300-character table name made the starter's questions near-duplicates of each other
    (its own check failed them), and a megabyte one cannot be asked at all. Questions name a long table by
    its first words; a name too long to ask about is left out; the starter, undrafted, is clean."""
    long, huge = "t_" + "x" * 300, "T" + "y" * 1_000_000
    col = "c" * 300
    build(
        shop / "long.db",
        f'CREATE TABLE "{long}" (id INTEGER PRIMARY KEY, "{col}" TEXT, amount REAL);'
        f"INSERT INTO \"{long}\" VALUES (1, 'a', 2.5), (2, 'a', 3.5), (3, 'b', 1.0);"
        f'CREATE TABLE "{huge}" (id INTEGER PRIMARY KEY, v REAL); INSERT INTO "{huge}" VALUES (1, 2.5), (2, 3.5),'
        "(3, 4.5), (4, 5.5);",
    )
    assert init.main(["--db-url", "sqlite:///long.db", "--out", "q"]) == EXIT_OK
    corpus = load_corpus([shop / "q" / "questions.yaml"], fixtures=None)
    assert corpus.questions and all(len(q.question) < 200 for q in corpus.questions)
    assert all(huge not in (q.sql or "") for q in corpus.questions) and any(
        long in (q.sql or "") for q in corpus.questions
    )
    undraft(shop / "q" / "questions.yaml")
    capsys.readouterr()
    assert check.main(["q/questions.yaml", "--db-url", "sqlite:///long.db"]) == EXIT_OK, capsys.readouterr().out


def test_check_quotes_no_name_in_full(shop, capsys):
    """A database's message quoting a 50,000-character name (no such table) is cut in check's output."""
    sql = "SELECT COUNT(*) FROM nosuch_" + "z" * 50_000
    (shop / "mine.yaml").write_text(json.dumps({"version": 1, "questions": [
        {"id": "q1", "question": "How many rows?", "stratum": "scalar", "shape": "scalar", "sql": sql}]}))  # fmt: skip
    assert check.main(["mine.yaml", "--db-url", "sqlite:///shop.db"]) == EXIT_CANNOT_JUDGE
    out = capsys.readouterr().out
    assert "no such table: nosuch_zzz" in out and len(out) < 2_000
