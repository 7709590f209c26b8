"""The schema a prompt tells a model has a cap, and says what it left out (issue 38, points 2 and 6).

A 5,000-table schema sent a 942,472-character prompt per question. Past ``NL_SQL_MAX_SCHEMA_CHARS``
(100,000 by default) whole tables are left out from the end, the prompt's last schema line names them
(the model knows it sees part of the schema), the person running is warned once on stderr, and a
sampled value is shown to 200 characters. Under the cap the prompt is exactly as before.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from services.generation.llm import MAX_SCHEMA_CHARS, PROMPT_HASH, OpenAIChatGenerator, build_messages, prompt_schema
from services.schema_context import ColumnInfo, SchemaContext, TableInfo
from services.schema_text import prompt_text
from tests.http_fakes import FakeHTTPServer, chat_reply

BACKEND = Path(__file__).resolve().parents[1]
COLUMNS = (
    ColumnInfo("id", "INTEGER", False, True),
    ColumnInfo("name", "TEXT", True, False, values=("a",), values_complete=True),
    ColumnInfo("amount", "REAL", True, False),
)


def wide(tables: int) -> SchemaContext:
    return SchemaContext("sqlite", tuple(TableInfo(f"t{i:04d}", COLUMNS) for i in range(tables)))


def test_a_5000_table_schema_is_cut_to_the_cap_and_says_what_it_left_out(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another test's logging configuration (import-linter's) may have disabled the loggers created before it.
    monkeypatch.setattr(logging.getLogger("services.generation.llm"), "disabled", False)
    schema = wide(5000)
    assert len(schema.describe()) > 3 * MAX_SCHEMA_CHARS, "the control: uncapped, it is 385,000 characters"
    prompt_schema.cache_clear()
    with caplog.at_level(logging.WARNING):
        for _ in range(3):  # three questions on one database
            user = build_messages("How many rows are in t0000?", schema)[1]["content"]
    text = user.split("\n\n")[1].split("\n", 1)[1]  # after the "Schema (...):" line
    body, note = text.rsplit("\n", 1)
    assert len(body) <= MAX_SCHEMA_CHARS and "TABLE t0000" in body
    kept = body.count("TABLE ")
    assert note == (
        f"-- left out to keep the schema under 100,000 characters: {5000 - kept} of 5000 tables (t{kept:04d}, "
        f"t{kept + 1:04d}, t{kept + 2:04d}, t{kept + 3:04d}, t{kept + 4:04d}, t{kept + 5:04d}, t{kept + 6:04d}, "
        f"t{kept + 7:04d}, t{kept + 8:04d}, t{kept + 9:04d} and {5000 - kept - 10} more)"
    )
    warned = [r for r in caplog.records if "left out to keep the schema under" in r.getMessage()]
    assert len(warned) == 1, "the person running is told once per schema, not per question"


def test_under_the_cap_the_prompt_is_as_it_was() -> None:
    schema = wide(3)
    assert prompt_text(schema, MAX_SCHEMA_CHARS) == schema.describe() and "left out" not in schema.describe()


def test_a_first_table_too_big_alone_keeps_the_lines_that_fit() -> None:
    big = SchemaContext("sqlite", (TableInfo("huge", tuple(ColumnInfo(f"c{i}", "TEXT", True, False) for i in
                                                           range(2000))),))  # fmt: skip
    text = prompt_text(big, 1000)
    body, note = text.rsplit("\n", 1)
    assert len(body) <= 1000 and note.endswith(
        f"of table huge, the last {2001 - body.count(chr(10)) - 1} of its 2001 lines"
    )


def test_a_long_sampled_value_is_shown_to_200_characters() -> None:
    column = ColumnInfo("blob", "TEXT", True, False, values=("x" * 1_000_000,), values_complete=True)
    text = prompt_text(SchemaContext("sqlite", (TableInfo("t", (column,)),)), MAX_SCHEMA_CHARS)
    assert len(text) < 300 and "x" * 199 + "…" in text


def test_another_cap_is_another_prompt() -> None:
    """A cap other than the default tells a big schema otherwise: the run's cohort says so."""
    default = OpenAIChatGenerator("http://127.0.0.1:9/v1", "m")
    other = OpenAIChatGenerator.from_env(
        {"NL_SQL_LLM_BASE_URL": "http://127.0.0.1:9/v1", "NL_SQL_LLM_MODEL": "m", "NL_SQL_MAX_SCHEMA_CHARS": "5000"}
    )
    assert default.prompt_hash == PROMPT_HASH != other.prompt_hash and other.max_schema_chars == 5000


def test_a_run_over_a_wide_database_sends_the_capped_schema(tmp_path: Path) -> None:
    """Through the real command: 300 tables under a cap of 2,000 characters; the endpoint receives the capped
    schema with its note, the run passes its question, and stderr warns once."""
    db = tmp_path / "wide.sqlite"
    with sqlite3.connect(db) as con:
        for i in range(300):
            con.execute(f"CREATE TABLE t{i:03d} (id INTEGER PRIMARY KEY, amount REAL)")
            con.execute(f"INSERT INTO t{i:03d} VALUES (1, 2.5)")
    question = {"id": "w1", "question": "How many rows are in t000?", "stratum": "scalar", "shape": "scalar",
                "sql": "SELECT COUNT(*) FROM t000"}  # fmt: skip
    (tmp_path / "q.json").write_text(json.dumps({"version": 1, "questions": [question]}))
    with FakeHTTPServer(chat_reply("```sql\nSELECT COUNT(*) FROM t000\n```")) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NL_SQL_", "EVAL_"))}
        env |= {"EVAL_OUTPUT_DIR": str(tmp_path), "NL_SQL_LLM_BASE_URL": server.url + "/v1", "NL_SQL_LLM_MODEL": "m"}
        env |= {"NL_SQL_MAX_SCHEMA_CHARS": "2000"}
        proc = subprocess.run(
            [sys.executable, "-m", "eval.run", "--suite", "sql", "--corpus", str(tmp_path / "q.json"), "--db-url",
             f"sqlite:///{db}", "--candidate", "llm", "--json", str(tmp_path / "r.json")],
            cwd=BACKEND, env=env, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        prompts = [r.json()["messages"][-1]["content"] for r in server.requests]
    assert proc.returncode == 0, proc.stderr[-2000:]
    schema = prompts[0].split("\n\n")[1].split("\n", 1)[1]
    assert len(schema.rsplit("\n", 1)[0]) <= 2000 and "tables (t0" in schema.rsplit("\n", 1)[1]
    assert proc.stderr.count("left out to keep the schema under 2,000 characters") == 1
