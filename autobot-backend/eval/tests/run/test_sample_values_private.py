"""Privacy as a setting (issue 37 point 4): with ``--no-sample-values``, the corpus key ``sample_values: false`` or
``NL_SQL_LLM_SAMPLE_VALUES=0``, no value stored in the database reaches the model's endpoint.

The command a user types, ``python -m eval.run --suite sql --candidate llm``, runs in a subprocess against a real
HTTP endpoint on the loopback interface (:class:`tests.http_fakes.FakeHTTPServer`), which keeps every request it
receives; the probe is every stored text value of the database searched for in every byte sent. Without the
setting the same probe finds the patients' names: it sees what it looks for.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.http_fakes import FakeHTTPServer, ReceivedRequest, Reply, chat_reply

BACKEND = Path(__file__).resolve().parents[3]
CORPUS = """version: 1
questions:
  - id: c-patients
    question: How many patients are there?
    shape: scalar
    sql: SELECT COUNT(*) FROM patients
  - id: c-leeds
    question: How many patients live in Leeds?
    shape: scalar
    sql: SELECT COUNT(*) FROM patients WHERE city = 'Leeds'
"""
NAMES = ("Amara Adeyemi", "Bo Chen", "Cara Diaz")


@pytest.fixture
def clinic(tmp_path: Path) -> Path:
    db = sqlite3.connect(tmp_path / "clinic.db")
    db.executescript(
        """
        CREATE TABLE patients (id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, city TEXT NOT NULL,
                               diagnosis TEXT NOT NULL);
        INSERT INTO patients VALUES (1, 'Amara Adeyemi', 'Leeds', 'asthma'), (2, 'Bo Chen', 'York', 'gout'),
                                    (3, 'Cara Diaz', 'Leeds', 'eczema');
        """
    )
    db.commit()
    db.close()
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "q.yaml").write_text(CORPUS)
    return tmp_path


def stored_values(database: Path) -> set[str]:
    """Every text value the database holds, read back from it (not from the test's script)."""
    db = sqlite3.connect(database)
    try:
        found = set()
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            for column in columns:
                found |= {v for (v,) in db.execute(f"SELECT {column} FROM {table}") if isinstance(v, str)}
        return found
    finally:
        db.close()


def endpoint(request: ReceivedRequest) -> Reply:
    return chat_reply("```sql\nSELECT COUNT(*) FROM patients\n```", usage=(100, 10))


def llm_run(folder: Path, server: FakeHTTPServer, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("EVAL_", "GITHUB_", "NL_SQL_"))}
    base |= {"PYTHONPATH": str(BACKEND), "NL_SQL_LLM_BASE_URL": server.url + "/v1", "NL_SQL_LLM_MODEL": "clinic-llm"}
    command = [sys.executable, "-m", "eval.run", "--suite", "sql", "--corpus", "q/q.yaml"]
    command += ["--db-url", "sqlite:///clinic.db", "--candidate", "llm", "--json", "run.json", *args]
    done = subprocess.run(command, cwd=folder, env=base | env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done


def sent(server: FakeHTTPServer) -> str:
    """Everything the endpoint received, bodies decoded (a value escaped in JSON is still found)."""
    assert server.requests, "the model was never asked"
    return "\n".join(json.dumps(r.json(), ensure_ascii=False) for r in server.requests)


def cohort(folder: Path) -> dict[str, object]:
    keys: dict[str, object] = json.loads((folder / "run.json").read_text())["cohort"]["keys"]
    return keys


def test_without_the_setting_the_probe_finds_the_names_the_prompt_samples(clinic):
    with FakeHTTPServer(handler=endpoint) as server:
        llm_run(clinic, server)
        body = sent(server)
    assert all(name in body for name in NAMES)  # full_name [values: 'Amara Adeyemi', ...]: what the issue found
    assert "sample_values" not in cohort(clinic)


@pytest.mark.parametrize(
    "how",
    ["flag", "corpus", "environment"],
)
def test_no_stored_value_reaches_the_endpoint_with_the_setting_on(clinic, how):
    args, env = [], {}
    if how == "flag":
        args = ["--no-sample-values"]
    elif how == "corpus":
        (clinic / "q" / "q.yaml").write_text(CORPUS.replace("version: 1\n", "version: 1\nsample_values: false\n"))
    else:
        env = {"NL_SQL_LLM_SAMPLE_VALUES": "0"}
    values = stored_values(clinic / "clinic.db")
    assert {*NAMES, "asthma", "Leeds"} <= values
    with FakeHTTPServer(handler=endpoint) as server:
        llm_run(clinic, server, *args, **env)
        body = sent(server)
    assert len(server.requests) == 2
    leaked = sorted(v for v in values if v in body and v not in CORPUS)  # 'Leeds' is the question's own word
    assert leaked == []
    assert "full_name TEXT NOT NULL" in body and "How many patients are there?" in body  # the schema and question
    assert cohort(clinic)["sample_values"] is False


def test_the_corpus_cannot_turn_values_back_on_against_the_flag(clinic):
    (clinic / "q" / "q.yaml").write_text(CORPUS.replace("version: 1\n", "version: 1\nsample_values: true\n"))
    with FakeHTTPServer(handler=endpoint) as server:
        llm_run(clinic, server, "--no-sample-values")
        body = sent(server)
    assert not any(name in body for name in NAMES)
