"""Benchmarks import as they are published: Spider's text files read as Spider's evaluator reads them (a TAB
inside a prediction included), DIN-SQL's CSV, BIRD's file with repeated question ids, a missing database
skipped and counted in every output, Spider's hardness, a refusal that writes nothing, and a 'grade it
with' command that runs as printed. Each on a small folder the test builds in the benchmark's own layout."""

from __future__ import annotations

import csv
import json
import os
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from eval.cli.bench_import import main as import_main
from eval.run import main as run_main
from eval.sql.corpus.questions import CorpusError, load_corpus
from eval.tests.sql.bench.test_importer import (
    BIRD,
    SPIDER,
    SPIDER_VERDICTS,
    grade,
    import_spider,
    in_own_folder,
    make_bird,
    make_spider,
    verdicts,
)


@pytest.fixture
def spider(tmp_path, monkeypatch):
    in_own_folder(tmp_path, monkeypatch)
    return make_spider(tmp_path)


@pytest.fixture
def bird(tmp_path, monkeypatch):
    in_own_folder(tmp_path, monkeypatch)
    return make_bird(tmp_path)


def printed_command(out: str) -> list[str]:
    """The 'grade it with' command, split as a shell splits it, without ``python -m eval.run``."""
    line = out.split("grade it with (from autobot-backend/):\n", 1)[1].strip().splitlines()[0]
    words = shlex.split(line)
    assert words[:3] == ["python", "-m", "eval.run"], line
    return words[3:]


def answers(path: str = "out/spider.answers.jsonl") -> dict[str, dict]:
    return {a["id"]: a for a in map(json.loads, Path(path).read_text().split("\n")[:-1])}


# --- Spider's text files, as its evaluator reads them ------------------------------------------


def test_a_tab_inside_a_prediction_is_read_as_spiders_evaluator_reads_it(spider, capsys):
    """C3's file: the evaluator grades field 0 of ``l.strip().split('\\t')``; the rest is never a database."""
    lines = [p for *_, p in SPIDER]
    lines[1] = lines[1].replace("FROM singer", "FROM\tsinger")  # a TAB inside the SQL
    lines[3] = lines[3] + "\tpets_1"  # SQL<TAB>db_id naming the question's own database: the usual form
    Path("pred.sql").write_text("\r\n".join(lines) + "\r\n")  # CRLF, as a file written on Windows
    assert import_spider() == 0
    got = answers()
    assert got["spider-0001"]["sql"] == "SELECT age, name FROM"
    assert got["spider-0003"]["sql"] == SPIDER[3][3]
    out = capsys.readouterr().out
    assert "pred.sql: 1 line(s) hold a TAB followed by something other than the question's database (line 2)" in out
    assert "the text before the first TAB, as Spider's evaluator takes it" in out


def test_line_breaks_are_the_evaluators_not_every_unicode_separator(spider):
    """``readlines`` ends a line at \\n, \\r\\n or \\r only: a form feed or U+2028 inside a SQL stays in it (a
    reader that split on them would count six predictions and refuse the file)."""
    lines = [p for *_, p in SPIDER]
    lines[0] = lines[0].replace(" FROM", "\x0cFROM")
    lines[2] = lines[2].replace(" FROM", "\u2028FROM")
    Path("pred.sql").write_text("\n".join(lines) + "\n   \n", encoding="utf-8")
    assert import_spider() == 0
    assert answers()["spider-0002"]["sql"] == lines[2]


def test_a_gold_line_with_a_third_field_is_refused_by_line_and_nothing_is_written(spider, capsys):
    gold = Path("spider/dev_gold.sql")
    rows = gold.read_text().splitlines()
    rows[2] = rows[2].replace(" FROM", "\tFROM", 1)
    gold.write_text("\n".join(rows) + "\n")
    assert import_spider() == 2
    err = capsys.readouterr().err
    assert "dev_gold.sql:3: expected 'SQL<TAB>db_id' (two fields split on TAB), found 3 field(s)" in err
    assert not Path("out").exists()


# --- CSV predictions (DIN-SQL) ------------------------------------------------------------------


def write_din_sql_csv(path: str, header: bool = True) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        if header:
            w.writerow(["NLQ", "PREDICTED SQL", "GOLD SQL", "DATABASE"])
        for text, db, gold, pred in SPIDER:
            w.writerow([text, pred.replace(" FROM", "\nFROM"), gold, db])  # a quoted cell spanning lines


def test_a_din_sql_csv_grades_by_its_named_column(spider):
    write_din_sql_csv("predicted_sql.csv")
    assert import_spider("--predictions", "predicted_sql.csv", "--predictions-column", "PREDICTED SQL") == 0
    code, report = grade("out/spider.yaml", "out/spider.answers.jsonl", "spider/database")
    assert code == 0
    assert verdicts(report) == SPIDER_VERDICTS


@pytest.mark.parametrize("column", [None, "PREDICTED SQL"])
def test_a_csv_without_a_header_or_the_column_is_refused_naming_its_columns(spider, capsys, column):
    write_din_sql_csv("predicted_sql.csv", header=False)
    extra = ["--predictions-column", column] if column else []
    assert import_spider("--predictions", "predicted_sql.csv", *extra) == 2
    err = capsys.readouterr().err
    assert "predicted_sql.csv: " in err and "'How many singers do we have?'" in err  # the first row, as columns
    assert "--predictions-column" in err
    assert not Path("out").exists()


# --- BIRD's mini-dev: repeated question ids -----------------------------------------------------


def test_bird_questions_with_a_repeated_id_are_paired_by_position_and_told_apart(bird, capsys):
    questions = json.loads(Path("bird/dev.json").read_text())
    questions[2]["question_id"] = 1  # as mini-dev repeats 137 and 138
    Path("bird/dev.json").write_text(json.dumps(questions))
    code = import_main(
        ["bird", "--questions", "bird/dev.json", "--gold", "bird/dev.sql", "--predictions", "predict_dev.json"]
        + ["--model", "bird-system-1", "--out", "out"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "bird/dev.json: 1 question_id(s) appear more than once: 1 (2 times)" in out
    assert "paired by position, as BIRD's evaluator pairs them" in out and "bird-0001-2" in out
    _, report = grade("out/bird.yaml", "out/bird.answers.jsonl", "bird/dev_databases")
    assert verdicts(report) == {
        "bird-0000": ("pass", None),
        "bird-0001": ("wrong", "value"),
        "bird-0001-2": ("refused", "refused"),  # the third prediction (null), by position
    }
    assert report["questions"][2]["database"] == BIRD[2][1]


def test_bird_ids_stay_the_question_ids_without_repeats(bird):
    import_main(
        ["bird", "--questions", "bird/dev.json", "--gold", "bird/dev.sql", "--out", "out"],
    )
    assert [q.id for q in load_corpus([Path("out/bird.yaml")], fixtures=None).questions] == [
        "bird-0000",
        "bird-0001",
        "bird-0002",
    ]


# --- a missing database ---------------------------------------------------------------------------


def test_a_missing_database_is_refused_by_name_suggesting_the_flag_and_nothing_is_written(spider, capsys):
    shutil.rmtree("spider/database/pets_1")
    assert import_spider() == 2
    err = capsys.readouterr().err
    assert "no database file for pets_1" in err and "2 question(s) need them" in err
    assert "--skip-missing-databases" in err and "Nothing was written" in err
    assert not Path("out").exists()


def test_skipped_databases_keep_every_id_and_every_output_counts_them(spider, capsys, monkeypatch):
    shutil.rmtree("spider/database/pets_1")
    assert import_spider("--skip-missing-databases") == 0
    assert "2 question(s) skipped at import (missing databases: pets_1): spider-0003, spider-0004" in (
        capsys.readouterr().out
    )
    corpus = load_corpus([Path("out/spider.yaml")], fixtures=None)
    assert [q.id for q in corpus.questions] == ["spider-0000", "spider-0001", "spider-0002"]
    assert [(s.id, s.database) for s in corpus.skipped] == [("spider-0003", "pets_1"), ("spider-0004", "pets_1")]
    assert list(answers()) == ["spider-0000", "spider-0001", "spider-0002"]

    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(spider / "summary.md"))
    outputs = ["--markdown", "r.md", "--html", "r.html", "--junit", "r.xml", "--github-summary"]
    code, report = grade("out/spider.yaml", "out/spider.answers.jsonl", "spider/database", *outputs)
    assert code == 0
    said = "2 question(s) skipped at import (missing databases: pets_1)"
    assert [s["id"] for s in report["corpus"]["skipped"]] == ["spider-0003", "spider-0004"]
    std = capsys.readouterr()
    assert said in std.out and said in std.err  # the report on stdout, the warning on stderr
    assert "::warning title=SQL questions skipped at import::" in std.out
    for text in (Path("r.md").read_text(), (spider / "summary.md").read_text()):
        escaped = said.replace("_", "\\_")  # Markdown's escape of the database's name
        assert escaped in text and text.index(escaped) < text.index("Candidate **")
        assert "(2/3; 95% Wilson CI" in text and "2 skipped at import" in text
    html = Path("r.html").read_text()
    assert html.index(said) < html.index('id="pass-rate"')
    props = {p.get("name"): p.get("value") for p in ET.parse("r.xml").getroot().iter("property")}
    assert any(said in v for k, v in props.items() if k.startswith("notice.")) and "2 skipped" in props["pass_rate"]


def test_a_corpus_without_skipped_questions_says_nothing_of_them(spider, capsys):
    import_spider()
    _, report = grade("out/spider.yaml", "out/spider.answers.jsonl", "spider/database")
    assert "skipped" not in report["corpus"] and "skipped at import" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("- id: spider-0000\n    reason: missing database", "skipped question 'spider-0000' is a question at"),
        ("- id: x y\n    reason: missing database", "'id' must be a non-empty string without spaces"),
        ("- id: x\n    why: gone", "unknown key(s) why"),
        ("- id: x\n    reason: r\n  - id: x\n    reason: r", "skipped question 'x' is listed twice"),
    ],
)
def test_a_skipped_list_the_loader_cannot_trust_is_refused(tmp_path, entry, problem):
    path = tmp_path / "c.yaml"
    path.write_text(
        f"version: 1\nskipped:\n  {entry}\nquestions:\n  - id: spider-0000\n    question: q?\n"
        "    database: d\n    sql: SELECT 1\n"
    )
    with pytest.raises(CorpusError) as err:
        load_corpus([path], fixtures=None)
    assert problem in str(err.value)


# --- Spider's hardness ----------------------------------------------------------------------------


def test_spider_is_broken_down_by_its_hardness_computed_at_import(spider, capsys):
    assert import_spider() == 0
    assert "hardness computed from each gold query by the rules of Spider's evaluator: easy 3, medium 2" in (
        capsys.readouterr().out
    )
    _, report = grade("out/spider.yaml", "out/spider.answers.jsonl", "spider/database", "--markdown", "r.md")
    assert {k: (v["cases"], v["pass"], v["wrong"]) for k, v in report["difficulties"].items()} == {
        "easy": (3, 1, 1),
        "medium": (2, 1, 1),
    }
    assert "### Answerable questions per difficulty (the benchmark's own label)" in Path("r.md").read_text()


# --- a refusal writes nothing; the printed command runs -------------------------------------------


@pytest.mark.parametrize(
    "break_it",
    [
        lambda: Path("pred.sql").write_text("SELECT 1\n"),  # too few predictions: read after the questions
        lambda: Path("spider/dev.json").write_text("[]"),
        lambda: Path("pred.sql").write_text("\n".join(p for *_, p in SPIDER) + "\nSELECT 2\n"),
    ],
)
def test_a_rejected_import_leaves_no_file_behind(spider, break_it):
    Path("out").mkdir()
    (Path("out") / "keep.txt").write_text("mine")
    break_it()
    assert import_spider() == 2
    assert sorted(p.name for p in Path("out").iterdir()) == ["keep.txt"]


def test_the_printed_command_runs_as_printed_with_the_databases_found_beside_the_questions(spider, capsys):
    Path("spider").rename("my spider")  # a space: the command quotes its paths
    code = import_main(
        ["spider", "--questions", "my spider/dev.json", "--gold", "my spider/dev_gold.sql"]
        + ["--predictions", "pred.sql", "--model", "spider-system-1", "--out", "run out"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "--db-dir DIR" not in out
    args = printed_command(out)
    assert args[args.index("--db-dir") + 1] == str(spider / "my spider" / "database")
    assert run_main([*args, "--json", "r.json"]) == 0
    assert verdicts(json.loads(Path("r.json").read_text())) == SPIDER_VERDICTS


def test_the_import_runs_as_a_module_in_its_own_process(spider):
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVAL_")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[4])
    done = subprocess.run(
        [sys.executable, "-m", "eval.cli.bench_import", "spider", "--questions", "spider/dev.json"]
        + ["--gold", "spider/dev_gold.sql", "--out", "out"],
        cwd=spider,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "grade it with" in done.stdout and Path("out/spider.yaml").is_file()


def test_without_db_dir_or_the_benchmarks_own_folder_the_import_is_refused_up_front(spider, capsys):
    Path("spider/database").rename("elsewhere")
    code = import_main(["spider", "--questions", "spider/dev.json", "--gold", "spider/dev_gold.sql", "--out", "out"])
    assert code == 2
    assert "--db-dir not given, and no database/ or test_database/ beside" in capsys.readouterr().err
    assert not Path("out").exists()
