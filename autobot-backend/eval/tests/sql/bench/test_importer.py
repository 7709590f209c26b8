"""Standard benchmarks in one command: Spider's and BIRD's files, as those projects write them,
become a multi-database corpus and an answers file, and the suite grades them end to end."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from eval.cli.bench_import import main as import_main
from eval.run import main as run_main
from eval.sql.bench.importer import gold_is_ordered
from eval.sql.corpus.questions import load_corpus

DATABASES = {
    "concert_singer": [
        "CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER)",
        "INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 52), (2, 'Timbaland', 'United States', 32),"
        " (3, 'Justin Brown', 'France', 29), (4, 'Rose White', 'France', 41), (5, 'John Nizinik', 'France', 52)",
    ],
    "pets_1": [
        "CREATE TABLE pets (pet_id INTEGER PRIMARY KEY, pet_type TEXT, weight REAL)",
        "INSERT INTO pets VALUES (1, 'cat', 12.0), (2, 'dog', 13.4), (3, 'dog', 10.0), (4, 'cat', 9.3)",
    ],
}

# (question, database, gold, prediction): each prediction chosen to get one verdict.
SPIDER = [
    ("How many singers do we have?", "concert_singer", "SELECT count(*) FROM singer", "SELECT count(*) FROM singer"),
    # The right columns in another order: `column_order` by default, a pass under the Spider convention.
    (
        "What are the names and ages of singers from France?",
        "concert_singer",
        "SELECT name, age FROM singer WHERE country = 'France'",
        "SELECT age, name FROM singer WHERE country = 'France'",
    ),
    # Two singers tie for the oldest: the prediction keeps the other one, which any tie-break allows.
    (
        "What is the name of the oldest singer?",
        "concert_singer",
        "SELECT name FROM singer ORDER BY age DESC LIMIT 1",
        "SELECT name FROM singer ORDER BY age DESC, name DESC LIMIT 1",
    ),
    (
        "How many pets weigh more than 10?",
        "pets_1",
        "SELECT count(*) FROM pets WHERE weight > 10",
        "SELECT count(*) FROM pets WHERE weight >= 10",
    ),
    # A gold query with an empty result cannot grade anything: unmeasured, and the run goes on.
    ("Which pets weigh over 100?", "pets_1", "SELECT pet_id FROM pets WHERE weight > 100", "SELECT 1"),
]
SPIDER_VERDICTS = {
    "spider-0000": ("pass", None),
    "spider-0001": ("wrong", "column_order"),
    "spider-0002": ("pass", None),
    "spider-0003": ("wrong", "value"),
    "spider-0004": ("unmeasured", "oracle"),
}


def build_databases(root: Path) -> Path:
    for name, statements in DATABASES.items():
        (root / name).mkdir(parents=True)
        db = sqlite3.connect(root / name / f"{name}.sqlite")
        for statement in statements:
            db.execute(statement)
        db.commit()
        db.close()
    return root


def make_spider(tmp_path: Path) -> Path:
    """A Spider folder of its own: database/NAME/NAME.sqlite, dev.json, dev_gold.sql, a predictions file."""
    build_databases(tmp_path / "spider" / "database")
    questions = [{"db_id": db, "question": text, "query": gold} for text, db, gold, _ in SPIDER]
    (tmp_path / "spider" / "dev.json").write_text(json.dumps(questions, indent=2))
    (tmp_path / "spider" / "dev_gold.sql").write_text("".join(f"{gold}\t{db}\n" for _, db, gold, _ in SPIDER))
    # Spider's evaluator skips blank lines in a predictions file: so do we.
    (tmp_path / "pred.sql").write_text(
        "\n".join(p for *_, p in SPIDER[:2]) + "\n\n" + "\n".join(p for *_, p in SPIDER[2:])
    )
    return tmp_path


def in_own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)


@pytest.fixture
def spider(tmp_path, monkeypatch):
    in_own_folder(tmp_path, monkeypatch)
    return make_spider(tmp_path)


def import_spider(*extra: str) -> int:
    return import_main(
        [
            "spider",
            "--questions",
            "spider/dev.json",
            "--gold",
            "spider/dev_gold.sql",
            "--predictions",
            "pred.sql",
            "--model",
            "spider-system-1",
            "--out",
            "out",
            "--db-dir",
            "spider/database",
            *extra,
        ]
    )


def grade(corpus: str, answers: str, db_dir: str, *extra: str) -> tuple[int, dict]:
    code = run_main(
        [
            "--suite",
            "sql",
            "--corpus",
            corpus,
            "--db-dir",
            db_dir,
            "--candidate",
            "recorded",
            "--answers",
            answers,
            "--json",
            "report.json",
            *extra,
        ]
    )
    return code, json.loads(Path("report.json").read_text())


def verdicts(report: dict) -> dict[str, tuple[str, str | None]]:
    return {q["id"]: (q["verdict"], q["reason"]) for q in report["questions"]}


def test_spider_files_become_a_multi_database_corpus_and_answers(spider, capsys):
    assert import_spider() == 0
    corpus = load_corpus([Path("out/spider.yaml")], fixtures=None)
    assert [(q.id, q.database, q.ordered) for q in corpus.questions][:3] == [
        ("spider-0000", "concert_singer", False),
        ("spider-0001", "concert_singer", False),
        ("spider-0002", "concert_singer", True),
    ]
    lines = [json.loads(line) for line in Path("out/spider.answers.jsonl").read_text().splitlines()]
    assert [line["id"] for line in lines] == list(SPIDER_VERDICTS)
    assert "--db-dir" in capsys.readouterr().out


def test_spider_suite_runs_end_to_end_per_database(spider):
    import_spider()
    code, report = grade("out/spider.yaml", "out/spider.answers.jsonl", "spider/database")
    assert code == 0
    assert verdicts(report) == SPIDER_VERDICTS
    assert {k: (v["cases"], v["pass"]) for k, v in report["databases"].items()} == {
        "concert_singer": (3, 2),
        "pets_1": (2, 0),
    }
    assert report["oracle_defects"][0]["kind"] == "oracle: empty result"


def test_ties_at_a_benchmarks_limit_cut_are_graded_not_dropped(spider):
    import_spider()
    _, report = grade("out/spider.yaml", "out/spider.answers.jsonl", "spider/database")
    tie = next(q for q in report["questions"] if q["id"] == "spider-0002")
    assert (tie["verdict"], tie["detail"]) == (
        "pass",
        "matched on 1 rotation(s), by a tie-break the reference's order leaves open",
    )


def test_column_order_any_grades_under_the_spider_convention(spider):
    import_spider()
    _, report = grade("out/spider.yaml", "out/spider.answers.jsonl", "spider/database", "--column-order", "any")
    assert verdicts(report)["spider-0001"] == ("pass", None)
    assert report["run"]["column_order"] == "any"


def test_an_imported_corpus_can_carry_column_order_any(spider):
    import_spider("--column-order", "any")
    _, report = grade("out/spider.yaml", "out/spider.answers.jsonl", "spider/database")
    assert verdicts(report)["spider-0001"] == ("pass", None)


def test_a_missing_database_is_named_before_anything_runs(spider, capsys):
    import_spider()
    (Path("spider/database/pets_1/pets_1.sqlite")).unlink()
    code = run_main(["--suite", "sql", "--corpus", "out/spider.yaml", "--db-dir", "spider/database"])
    assert code == 2
    assert "question 'spider-0003': database 'pets_1' not found at" in capsys.readouterr().err


def test_database_questions_need_db_dir(spider, capsys):
    import_spider()
    code = run_main(["--suite", "sql", "--corpus", "out/spider.yaml", "--candidate", "reference"])
    assert code == 2
    assert (
        "runs on database 'concert_singer' (2 database(s) named in all): pass --db-dir DIR" in capsys.readouterr().err
    )


def test_spider_predictions_must_cover_every_question(spider, capsys):
    Path("pred.sql").write_text("SELECT 1\n")
    assert import_spider() == 2
    assert "pred.sql: 1 prediction(s) (non-blank lines), but there are 5 question(s)" in capsys.readouterr().err


def test_gold_and_questions_must_name_the_same_databases(spider, capsys):
    gold = Path("spider/dev_gold.sql")
    gold.write_text(gold.read_text().replace("\tpets_1\n", "\tconcert_singer\n", 1))
    assert import_spider() == 2
    assert "dev_gold.sql:4: the gold names database 'concert_singer', question 3" in capsys.readouterr().err


# --- BIRD --------------------------------------------------------------------------------------

BIRD = [
    ("simple", "concert_singer", "How many singers are from France?", "country refers to country",
     "SELECT COUNT(*) FROM singer WHERE country = 'France'", "SELECT COUNT(*) FROM singer WHERE country = 'France'"),
    ("moderate", "concert_singer", "What is the average age of singers from France?", "",
     "SELECT AVG(age) FROM singer WHERE country = 'France'", "SELECT SUM(age) FROM singer WHERE country = 'France'"),
    ("simple", "pets_1", "How many dogs are there?", "dog refers to pet_type = 'dog'",
     "SELECT COUNT(*) FROM pets WHERE pet_type = 'dog'", None),
]  # fmt: skip


def make_bird(tmp_path: Path) -> Path:
    """A BIRD folder of its own: dev_databases/NAME/NAME.sqlite, dev.json, dev.sql, predict_dev.json."""
    build_databases(tmp_path / "bird" / "dev_databases")
    questions = [
        {"question_id": i, "db_id": db, "question": q, "evidence": ev, "SQL": gold, "difficulty": level}
        for i, (level, db, q, ev, gold, _) in enumerate(BIRD)
    ]
    (tmp_path / "bird" / "dev.json").write_text(json.dumps(questions, indent=4))
    (tmp_path / "bird" / "dev.sql").write_text("".join(f"{row[4]}\t{row[1]}\n" for row in BIRD))
    predictions = {str(i): f"{row[5]}\t----- bird -----\t{row[1]}" for i, row in enumerate(BIRD) if row[5]}
    predictions["2"] = None  # a generation that failed: BIRD's evaluator counts it wrong
    (tmp_path / "predict_dev.json").write_text(json.dumps(predictions, indent=4))
    return tmp_path


@pytest.fixture
def bird(tmp_path, monkeypatch):
    in_own_folder(tmp_path, monkeypatch)
    return make_bird(tmp_path)


def import_bird(predictions: str = "predict_dev.json") -> int:
    return import_main(
        ["bird", "--questions", "bird/dev.json", "--gold", "bird/dev.sql", "--predictions", predictions]
        + ["--model", "bird-system-1", "--out", "out"]
    )


def test_bird_suite_runs_end_to_end_per_difficulty(bird):
    assert import_bird() == 0
    code, report = grade("out/bird.yaml", "out/bird.answers.jsonl", "bird/dev_databases")
    assert code == 0
    assert verdicts(report) == {
        "bird-0000": ("pass", None),
        "bird-0001": ("wrong", "value"),
        "bird-0002": ("refused", "refused"),
    }
    assert {k: (v["cases"], v["pass"]) for k, v in report["difficulties"].items()} == {
        "simple": (2, 1),
        "moderate": (1, 0),
    }
    assert list(report["difficulties"]) == ["simple", "moderate"]  # the benchmark's order, not the alphabet


def test_bird_evidence_goes_with_the_question(bird):
    import_bird()
    q = load_corpus([Path("out/bird.yaml")], fixtures=None).questions[0]
    assert (q.question, q.difficulty) == (
        "How many singers are from France? (Evidence: country refers to country)",
        "simple",
    )


def test_bird_prediction_without_the_separator_is_named(bird, capsys):
    Path("bad.json").write_text(json.dumps({"0": "SELECT 1"}))
    assert import_bird("bad.json") == 2
    assert "key '0' (question 'bird-0000'): expected 'SQL\\t----- bird -----\\tdb_id'" in capsys.readouterr().err


def test_bird_prediction_keyed_past_the_questions_is_named(bird, capsys):
    Path("bad.json").write_text(json.dumps({"7": "SELECT 1\t----- bird -----\tpets_1"}))
    assert import_bird("bad.json") == 2
    assert "key '7' is not the position of a question (0 to 2)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("sql", "ordered"),
    [
        ("SELECT name FROM singer ORDER BY age", True),
        ("SELECT name FROM (SELECT name FROM singer ORDER BY age LIMIT 3)", False),  # only the outermost query
        ("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", True),
    ],
)
def test_a_gold_is_ordered_by_its_outermost_order_by(sql, ordered):
    assert gold_is_ordered(sql) is ordered


def test_db_dir_without_a_database_question_is_refused(spider, capsys):
    Path("mine.yaml").write_text(
        "version: 1\nfixture: retail\nquestions:\n  - id: a\n    question: x?\n    sql: SELECT 1\n"
    )
    assert run_main(["--suite", "sql", "--corpus", "mine.yaml", "--db-dir", "spider/database"]) == 2
    assert "--db-dir is given, but no question of the corpus names a database" in capsys.readouterr().err


def test_a_run_under_column_order_any_is_never_gated_against_a_positional_baseline(spider, capsys):
    import_spider()
    code, _ = grade("out/spider.yaml", "out/spider.answers.jsonl", "spider/database", "--record-baseline", "--force")
    assert code == 0
    code, _ = grade(
        "out/spider.yaml",
        "out/spider.answers.jsonl",
        "spider/database",
        "--column-order",
        "any",
        "--fail-on-regression",
    )
    assert code == 2
    assert "column_order: positional vs any" in capsys.readouterr().err


def test_the_markdown_report_breaks_results_down_by_database_and_difficulty(bird):
    import_bird()
    grade("out/bird.yaml", "out/bird.answers.jsonl", "bird/dev_databases", "--markdown", "report.md")
    text = Path("report.md").read_text()
    assert "### Answerable questions per database\n" in text
    assert "| concert\\_singer | 2 | 1 | 1 | 0 | 0 | 0 |" in text
    assert "### Answerable questions per difficulty (the benchmark's own label)\n" in text
    assert "2 database(s) of --db-dir dev\\_databases/ (one file each, no rotations)" in text


@pytest.mark.parametrize("how", ["file", "folder"])
def test_a_database_that_leads_out_of_db_dir_is_refused_by_name(spider, capsys, how):
    """A benchmark archive cannot point the harness (and the model it asks) at another file on the machine."""
    import_spider()
    secret = spider / "elsewhere" / "pets_1.sqlite"
    secret.parent.mkdir()
    target = spider / "spider" / "database" / "pets_1"
    (target / "pets_1.sqlite").rename(secret)
    if how == "file":
        (target / "pets_1.sqlite").symlink_to(secret)
    else:
        target.rmdir()
        target.symlink_to(secret.parent, target_is_directory=True)
    code = run_main(["--suite", "sql", "--corpus", "out/spider.yaml", "--db-dir", "spider/database"])
    err = capsys.readouterr().err
    assert code == 2
    assert "leads out of it" in err and "'pets_1'" in err and str(secret) in err
    assert "concert_singer" not in err.split("leads out of it")[1], "only the one that leaves is named"


def test_predictions_without_a_named_system_are_refused_and_nothing_is_written(spider, capsys):
    code = import_main(
        ["spider", "--questions", "spider/dev.json", "--gold", "spider/dev_gold.sql", "--predictions", "pred.sql"]
        + ["--out", "out"]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "pred.sql: name the system that made these predictions with --model NAME" in err
    assert not Path("out").exists()


def test_a_renamed_answers_file_of_the_same_model_is_gated_against_its_baseline(spider, capsys):
    import_spider()
    code, _ = grade("out/spider.yaml", "out/spider.answers.jsonl", "spider/database", "--record-baseline", "--force")
    assert code == 0
    Path("out/spider.answers.jsonl").rename("out/answers_v2.jsonl")
    code, report = grade("out/spider.yaml", "out/answers_v2.jsonl", "spider/database", "--fail-on-regression")
    assert code == 0, capsys.readouterr().err
    assert report["gate"]["status"] == "passed" and report["gate"]["enforced"]
