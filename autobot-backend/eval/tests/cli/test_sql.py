"""``python -m eval.run --suite sql`` end to end: recorded answers graded, malformed input and exit codes.

Every run here builds the real fixtures, self-checks the real corpus and grades through the real
service; only the answers are scripted (recorded answers files), so no model is involved. The gate and
baselines are ``test_sql_gate.py``, a user's own database and corpus ``test_sql_own_database.py``, the llm
path ``test_sql_llm.py``.
"""

from __future__ import annotations

import json

import pytest

from eval.core.markdown import escape
from eval.tests.cli._helpers import ANSWERABLE, BUILTIN, recorded, reference_answers, sql, write_answers


def test_recorded_answers_graded_and_json_written(work, capsys):
    wrong = ANSWERABLE[0]
    lines = reference_answers(skip={wrong.id})
    lines.append({"id": wrong.id, "sql": "SELECT 424242"})
    answers = write_answers(work / "a.jsonl", lines)
    assert recorded(answers, "--json", "out.json", "--markdown", "out.md") == 0
    data = json.loads((work / "out.json").read_text())
    assert data["suite"] == "sql" and data["candidate"] == {"path": "recorded", "model": "scripted-1"}
    assert data["corpus"]["digest"] == BUILTIN.digest and data["corpus"]["size"] == BUILTIN.size
    databases = data["run"].pop("databases")
    assert data["run"] == {
        "engine": "sqlite",
        "rotations": 3,
        "seed": 0,
        "fixtures": ["retail", "retail_24m"],
        "db_url": None,
        "concurrency": 1,
        "repeats": 1,
    }
    assert sorted(databases) == ["retail", "retail_24m"] and all(len(v) == 3 for v in databases.values())
    assert all(len(f["schema"]) == len(f["sha256"]) == 64 for v in databases.values() for f in v)
    s = data["summary"]
    assert (s["answerable"], s["pass"], s["wrong"]) == (len(ANSWERABLE), len(ANSWERABLE) - 1, 1)
    [q] = [q for q in data["questions"] if q["id"] == wrong.id]
    assert q["verdict"] == "wrong" and q["sql"] == "SELECT 424242" and q["reason"]
    text = (work / "out.md").read_text()
    assert f"### {escape(wrong.id)}: wrong" in text and "SELECT 424242" in text
    assert capsys.readouterr().out.startswith("# SQL answer-accuracy report")


def test_a_question_without_an_answer_line_is_unmeasured_on_both_arms(work):
    q, r = ANSWERABLE[0], next(x for x in BUILTIN.questions if x.expect == "refuse")
    answers = write_answers(work / "a.jsonl", reference_answers(skip={q.id, r.id}))
    assert recorded(answers, "--json", "out.json") == 0
    data = json.loads((work / "out.json").read_text())
    got = {x["id"]: x for x in data["questions"]}
    for missing in (q.id, r.id):  # a missing line is neither a pass nor a correct refusal
        assert (got[missing]["verdict"], got[missing]["reason"]) == ("unmeasured", "no answer recorded")
    s = data["summary"]
    assert (s["unmeasured"], s["must_refuse_unmeasured"]) == (1, 1)
    assert s["correct_refusals"] == s["must_refuse"] - 1


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"id": "x", "sql": "SELECT 1"}\nnot json\n', "a.jsonl:2: not valid JSON"),
        ('{"sql": "SELECT 1"}\n', 'a.jsonl:1: missing or empty "id"'),
        ('{"id": "x", "sql": "SELECT 1", "refused": true}\n', "either"),
        ('{"id": "x"}\n', 'needs a non-empty "sql"'),
        ('{"id": "x", "sql": "SELECT 1", "confidence": 1}\n', "unknown key(s) confidence"),
        ('{"id": "x", "sql": "SELECT 1"}\n{"id": "x", "sql": "SELECT 2"}\n', "second answer for the same id"),
    ],
)
def test_malformed_answers_exit_2_naming_file_and_line(work, capsys, content, message):
    (work / "a.jsonl").write_text(content)
    assert recorded(work / "a.jsonl") == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--candidate", "nope"], "unknown SQL candidate 'nope'"),
        (["--candidate", "recorded"], "needs --answers"),
        (["--candidate", "recorded", "--answers", "missing.jsonl"], "answers file not found"),
        (["--candidate", "embedded", "--answers", "a.jsonl"], "only read by --candidate recorded"),
        (["--rotations", "0"], "--rotations must be between 1 and 20"),
        (["--db-url", "sqlite:///nowhere/missing.db"], "cannot reach database"),
        (["--db-url", "sqlite:///x.db", "--rotations", "2"], "--rotations, --seed and --fixtures do not apply"),
        (["--fixtures", "no.such.module"], "--fixtures no.such.module: cannot import it"),
        (
            ["--fixtures", "eval.sql.fixtures.seeded"],
            "--fixtures eval.sql.fixtures.seeded: 'retail' is a built-in fixture's name",
        ),
        (["--corpus", "a.yaml", "--corpus", "sub/b.yaml", "--fail-on-regression"], "--baseline-dir"),
        (["--force"], "--force only applies"),
        (["--corpus", "missing.yaml"], "missing.yaml"),
        (["--json", "../outside.json"], "outside"),
    ],
)
def test_bad_input_is_a_clear_message_and_exit_2(work, capsys, args, message):
    assert sql(*args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "no such file; give the --json report of an earlier run"),
        ("not json", "cannot read it as a JSON report"),
        ("[" * 5000 + "]" * 5000, "cannot read it as a JSON report"),  # nests past the bounded reader's depth
        ('{"suite": "trajectory"}', "not a SQL suite report"),
    ],
    ids=["missing", "not JSON", "too deep", "another suite's"],
)
def test_shard_durations_that_cannot_be_read_exit_2_naming_the_flag_and_file(work, capsys, content, message):
    """The report ``--shard-durations`` names is read as every JSON file a user names is: bounded, and refused with
    the flag, the file and what is wrong with it."""
    path = work / "earlier.json"
    if content is not None:
        path.write_text(content)
    assert sql("--shard", "1/2", "--shard-durations", str(path)) == 2
    err = capsys.readouterr().err
    assert f"--shard-durations {path}: {message}" in err and "Traceback" not in err


def test_answers_for_unknown_ids_are_reported(work):
    answers = write_answers(work / "a.jsonl", reference_answers() + [{"id": "ghost-1", "sql": "SELECT 1"}])
    assert recorded(answers, "--json", "o.json") == 0
    assert any("ghost-1" in w for w in json.loads((work / "o.json").read_text())["warnings"])


def test_sql_that_fails_on_the_fixture_or_is_blocked_by_the_guard_is_an_error_verdict(work):
    """The error verdict end to end: real SQL, the real guard, the real fixtures (spec 6)."""
    broken, blocked = ANSWERABLE[0], ANSWERABLE[1]
    refuse = next(q for q in BUILTIN.questions if q.expect == "refuse")
    lines = reference_answers(skip={broken.id, blocked.id, refuse.id})
    lines += [
        {"id": broken.id, "sql": "SELECT favourite_colour FROM customers"},
        {"id": blocked.id, "sql": "DELETE FROM orders"},
        {"id": refuse.id, "sql": "SELECT SUM(delivery_minutes) FROM orders"},
    ]
    answers = write_answers(work / "a.jsonl", lines)
    assert recorded(answers, "--json", "out.json", "--markdown", "out.md") == 0
    data = json.loads((work / "out.json").read_text())
    got = {q["id"]: q for q in data["questions"]}
    assert (got[broken.id]["verdict"], got[broken.id]["reason"]) == ("error", "database")
    assert "no such column" in got[broken.id]["detail"]
    assert (got[blocked.id]["verdict"], got[blocked.id]["reason"]) == ("error", "guard_blocked")
    assert (got[refuse.id]["verdict"], got[refuse.id]["declined_by"]) == ("error", None)
    assert refuse.id in data["missed_refusals"]
    assert data["summary"]["error"] == 2 and data["summary"]["pass"] == len(ANSWERABLE) - 2
    assert data["two_by_two"]["answerable"]["error"] == 2 and data["two_by_two"]["must_refuse"]["error"] == 1
    text = (work / "out.md").read_text()
    assert f"### {escape(broken.id)}: error (database)" in text
    assert f"### {escape(blocked.id)}: error (guard\\_blocked)" in text


def test_a_recorded_run_whose_system_is_not_named_is_refused_and_says_how_to_name_it(work, capsys):
    answers = write_answers(work / "answers_v2.jsonl", reference_answers(model=None))
    assert recorded(answers, "--json", "out.json") == 2
    err = capsys.readouterr().err
    assert "which system wrote these answers? Name it with --model NAME" in err
    assert not (work / "out.json").exists()
    assert recorded(answers, "--model", "scripted-1", "--json", "out.json") == 0
    assert json.loads((work / "out.json").read_text())["candidate"]["model"] == "scripted-1"
