"""Heavy libraries are imported where they are used (issue 27 point 4): a command's ``--help`` loads no
database toolkit, SQL parser, HTTP client, template engine, terminal or charting library, an offline SQL run
loads no HTTP client, template engine or terminal library, and an import that checks nothing loads no database
toolkit and no event loop.

Structural, not timed: each command runs in a fresh interpreter (``runpy``, as ``python -m`` does) that
then lists the heavy top-level packages in ``sys.modules``. The ``--html`` run is the positive control:
the same probe sees Jinja2 there, so the absences are not the probe's blindness.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

BACKEND = Path(__file__).resolve().parents[3]

HELP_HEAVY = ("sqlalchemy", "sqlglot", "httpx", "jinja2", "rich", "duckdb", "psycopg", "matplotlib", "numpy")
"""Not one of these for ``--help``: the parsers are built from light modules."""
RUN_HEAVY = ("httpx", "jinja2", "rich")
"""Not one of these in an offline run (embedded or recorded answers, no ``--html``, stdout not a terminal)."""

_PROBE = """
import json, runpy, sys
module, out, *argv = sys.argv[1:]
sys.argv = [module, *argv]
code = 0
try:
    runpy.run_module(module, run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
loaded = sorted({name.split(".")[0] for name in sys.modules})
with open(out, "w") as f:
    json.dump({"code": code, "loaded": loaded, "modules": sorted(sys.modules)}, f)
"""


def _loaded(cwd: Path, module: str, *argv: str) -> tuple[int, set[str]]:
    """The exit code of ``python -m module argv`` and the top-level packages it imported."""
    result = _probe(cwd, module, *argv)
    return result["code"], set(result["loaded"])


def _probe(cwd: Path, module: str, *argv: str) -> dict:
    """What the probe wrote of ``python -m module argv``: its exit code, top-level packages and every module."""
    out = cwd / "probe.json"
    env = {**os.environ, "PYTHONPATH": str(BACKEND)}
    for var in ("EVAL_OUTPUT_DIR", "NL_SQL_LLM_BASE_URL", "NL_SQL_LLM_MODEL", "NL_SQL_LLM_API_KEY"):
        env.pop(var, None)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, module, str(out), *argv],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.exists(), f"the probe of {module} {' '.join(argv)} did not finish: {done.stderr[-2000:]}"
    found: dict = json.loads(out.read_text())
    return found


@pytest.mark.parametrize(
    "command",
    [
        ("eval.run", "--help"),
        ("eval.run", "--suite", "sql", "--help"),
        ("eval.run", "--suite", "trajectory", "--help"),
        ("eval.run", "--suite", "turns", "--help"),
        ("eval.compare", "--help"),
        ("eval.merge", "--help"),
        ("eval.trend", "--help"),
    ],
    ids=" ".join,
)
def test_help_imports_no_heavy_library(tmp_path, command):
    code, loaded = _loaded(tmp_path, *command)
    assert code == 0
    assert "argparse" in loaded  # the probe sees what the command imported
    assert loaded.isdisjoint(HELP_HEAVY), sorted(loaded & set(HELP_HEAVY))


@pytest.fixture
def tiny_run(tmp_path: Path) -> tuple[Path, list[str]]:
    """A user corpus of two questions over a SQLite file, and recorded answers for them."""
    db = tmp_path / "books.sqlite"
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, year INTEGER)")
        c.execute("INSERT INTO books VALUES (1, 'Dune', 1965), (2, 'Emma', 1815), (3, 'Ulysses', 1922)")
    c.close()
    questions = [
        {"id": "b1", "question": "How many books are there?", "shape": "scalar", "sql": "SELECT COUNT(*) FROM books"},
        {"id": "b2", "question": "List the titles.", "sql": "SELECT title FROM books"},
    ]
    corpus = tmp_path / "mine.yaml"
    corpus.write_text(json.dumps({"version": 1, "questions": questions}))  # JSON is YAML
    answers = tmp_path / "a.jsonl"
    answers.write_text(
        json.dumps({"id": "b1", "sql": "SELECT COUNT(id) FROM books"})
        + "\n"
        + json.dumps({"id": "b2", "sql": "SELECT title FROM books WHERE year < 1900"})
        + "\n"
    )
    (tmp_path / "baselines").mkdir()
    argv = [
        "--suite",
        "sql",
        "--candidate",
        "recorded",
        "--answers",
        str(answers),
        "--model",
        "m",
        "--corpus",
        str(corpus),
        "--db-url",
        f"sqlite:///{db}",
        "--baseline-dir",
        str(tmp_path / "baselines"),
        "--json",
        "run.json",
    ]
    return tmp_path, argv


def test_an_offline_run_imports_no_http_client_template_engine_or_terminal_library(tiny_run):
    cwd, argv = tiny_run
    code, loaded = _loaded(cwd, "eval.run", *argv)
    assert code == 0
    verdicts = {q["id"]: q["verdict"] for q in json.loads((cwd / "run.json").read_text())["questions"]}
    assert verdicts == {"b1": "pass", "b2": "wrong"}  # the run graded, so the imports were those of a run
    assert "sqlalchemy" in loaded
    assert "asyncio" in loaded  # asked in one process, through the event loop (the import's control)
    assert loaded.isdisjoint(RUN_HEAVY), sorted(loaded & set(RUN_HEAVY))


SEARCH = "eval.sql.counterexample.search"


def test_a_run_loads_the_counterexample_search_only_when_it_searches(tiny_run):
    """Without ``--counterexamples`` a run never builds a searcher, so it starts without the search's modules; with
    it (the control) the same probe sees them."""
    cwd, argv = tiny_run
    plain = _probe(cwd, "eval.run", *argv)
    assert plain["code"] == 0 and "eval.sql.grading.refuting" in plain["modules"]  # the run's own modules are seen
    assert SEARCH not in plain["modules"]
    assert "services.generation.llm" not in plain["modules"]  # nor the model client: it asks no model
    searched = _probe(cwd, "eval.run", *argv, "--counterexamples", "1")
    assert searched["code"] == 0
    assert SEARCH in searched["modules"]
    assert any(q.get("search") for q in json.loads((cwd / "run.json").read_text())["questions"])


def test_html_does_import_the_template_engine(tiny_run):
    """The positive control: the probe sees a library a run does use."""
    cwd, argv = tiny_run
    code, loaded = _loaded(cwd, "eval.run", *argv, "--html", "run.html")
    assert code == 0
    assert "<html" in (cwd / "run.html").read_text().lower()
    assert "jinja2" in loaded
    assert loaded.isdisjoint({"httpx", "rich"})


@pytest.fixture
def spider_files(tmp_path: Path) -> tuple[Path, list[str]]:
    """A Spider-layout benchmark of two questions (one database) and a prediction for each."""
    (tmp_path / "db" / "books").mkdir(parents=True)
    with sqlite3.connect(tmp_path / "db" / "books" / "books.sqlite") as c:
        c.execute("CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, year INTEGER)")
        c.execute("INSERT INTO books VALUES (1, 'Dune', 1965), (2, 'Emma', 1815)")
    c.close()
    questions = [
        {"db_id": "books", "question": "How many books are there?", "query": "SELECT count(*) FROM books"},
        {"db_id": "books", "question": "List the titles.", "query": "SELECT title FROM books"},
    ]
    (tmp_path / "dev.json").write_text(json.dumps(questions))
    (tmp_path / "gold.sql").write_text("SELECT count(*) FROM books\tbooks\nSELECT title FROM books\tbooks\n")
    (tmp_path / "pred.sql").write_text("SELECT count(id) FROM books\nSELECT title FROM books\n")
    argv = ["spider", "--questions", "dev.json", "--gold", "gold.sql", "--predictions", "pred.sql"]
    return tmp_path, [*argv, "--model", "m", "--db-dir", "db", "--out", "imported"]


def test_an_import_that_checks_nothing_loads_no_database_toolkit(spider_files):
    """The import writes a corpus and answers; only ``--check-references`` opens the databases."""
    cwd, argv = spider_files
    code, loaded = _loaded(cwd, "eval.cli.bench_import", *argv)
    assert code == 0 and (cwd / "imported" / "spider.yaml").is_file()
    assert "sqlglot" in loaded  # it parsed the golds (Spider's hardness)
    # nor an event loop: it asks nothing
    no_toolkit = {"sqlalchemy", "duckdb", "psycopg", "asyncio", *RUN_HEAVY}
    assert loaded.isdisjoint(no_toolkit), sorted(loaded & no_toolkit)
    code, loaded = _loaded(cwd, "eval.cli.bench_import", *argv, "--check-references")
    assert code == 0 and "sqlalchemy" in loaded  # the positive control: checking opens them


_CLIENT_PROBE = """
import json, sys
from services.nl_database_service import default_generator
before = "services.generation.llm" in sys.modules
offline = type(default_generator({})).__name__
after_offline = "services.generation.llm" in sys.modules
asked = type(default_generator({"NL_SQL_LLM_BASE_URL": "http://127.0.0.1:9/v1", "NL_SQL_LLM_MODEL": "m"})).__name__
print(json.dumps([before, offline, after_offline, asked, "services.generation.llm" in sys.modules]))
"""


def test_the_service_loads_the_model_client_only_when_the_environment_asks_for_a_model(tmp_path):
    """The service reads which generator the environment asks for from a light module; the client, its prompt and
    its chat policy load only for a model (the control, in the same interpreter)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NL_SQL_LLM_")}
    done = subprocess.run(
        [sys.executable, "-c", _CLIENT_PROBE], cwd=BACKEND, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    before, offline, after_offline, asked, after_asked = json.loads(done.stdout)
    assert (before, after_offline) == (False, False)
    assert offline == "EmbeddedGenerator"
    assert asked == "OpenAIChatGenerator" and after_asked
