"""``python -m eval.run --suite sql`` end to end: inputs, exit codes, baselines, records.

Every run here builds the real fixtures, self-checks the real corpus and grades through the real
service; only the answers are scripted (recorded answers files), so no model is involved.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa
import yaml

from eval.core.markdown import escape
from eval.run import main
from eval.sql.corpus import questions as corpus_mod
from eval.sql.corpus.questions import load_corpus
from eval.sql.records import accuracy_page as record_mod
from eval.sql.records import docs as docs_mod

BUILTIN = load_corpus()
ANSWERABLE = [q for q in BUILTIN.questions if q.expect == "answer"]


@pytest.fixture
def work(tmp_path, monkeypatch):
    """Run inside tmp_path so --json/--markdown land there; baselines go to a temporary folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    for var in ("NL_SQL_LLM_BASE_URL", "NL_SQL_LLM_MODEL", "NL_SQL_LLM_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "baselines").mkdir()
    return tmp_path


def write_answers(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def reference_answers(model: str | None = "scripted-1", skip: set[str] = frozenset()) -> list[dict]:
    """A perfect system's answers file: every answerable question's reference, every must-refuse case declined."""
    lines = [
        {"id": q.id, "sql": q.sql} if q.expect == "answer" else {"id": q.id, "refused": True}
        for q in BUILTIN.questions
        if q.id not in skip
    ]
    if model:
        lines[0]["model"] = model
    return lines


def sql(*args: str) -> int:
    return main(["--suite", "sql", *args])


def recorded(answers: Path, *args: str) -> int:
    return sql("--candidate", "recorded", "--answers", str(answers), "--baseline-dir", "baselines", *args)


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


def test_llm_without_credentials_scores_nothing(work, capsys):
    assert sql("--candidate", "llm") == 2
    captured = capsys.readouterr()
    assert "NL_SQL_LLM_BASE_URL" in captured.err and "Nothing was scored" in captured.err
    assert "# SQL answer-accuracy report" not in captured.out


def test_llm_non_local_endpoint_needs_a_key(work, capsys, monkeypatch):
    monkeypatch.setenv("NL_SQL_LLM_BASE_URL", "https://api.example.com/v1")
    monkeypatch.setenv("NL_SQL_LLM_MODEL", "some-model")
    assert sql("--candidate", "llm") == 2
    assert "NL_SQL_LLM_API_KEY" in capsys.readouterr().err


def _copy_builtin(tmp: Path, drop: str | None = None, break_sql: str | None = None) -> list[Path]:
    out = tmp / "golden-copy"
    out.mkdir()
    for path in corpus_mod.builtin_corpus_files():
        data = yaml.safe_load(path.read_text())
        data["questions"] = [q for q in data["questions"] if q["id"] != drop]
        for q in data["questions"]:
            if q["id"] == break_sql:
                q["sql"] = "SELECT no_such_column FROM orders"
        (out / path.name).write_text(yaml.safe_dump(data, sort_keys=False))
    return sorted(out.glob("*.yaml"))


def test_gated_run_passes_then_fails_when_a_question_is_deleted(work, capsys, monkeypatch):
    answers = write_answers(work / "a.jsonl", reference_answers())
    assert recorded(answers, "--record-baseline") == 0
    assert [p.name for p in (work / "baselines").iterdir()] == ["recorded--scripted-1.json"]
    assert recorded(answers, "--fail-on-regression") == 0
    dropped = ANSWERABLE[5].id
    copies = _copy_builtin(work, drop=dropped)
    monkeypatch.setattr(corpus_mod, "builtin_corpus_files", lambda: copies)
    capsys.readouterr()
    assert recorded(answers, "--fail-on-regression", "--json", "gated.json") == 1
    gate = json.loads((work / "gated.json").read_text())["gate"]
    failed = {c["name"]: c["detail"] for c in gate["checks"] if c["ok"] is False}
    assert gate["status"] == "failed" and dropped in failed["missing_questions"] and "corpus_size" in failed
    assert "gate failed" in capsys.readouterr().err


def test_regression_is_named_and_fails_the_gate(work, capsys):
    answers = write_answers(work / "a.jsonl", reference_answers())
    assert recorded(answers, "--record-baseline") == 0
    broken = ANSWERABLE[:3]
    lines = reference_answers(skip={q.id for q in broken}) + [{"id": q.id, "sql": "SELECT 1"} for q in broken]
    write_answers(answers, lines)
    assert recorded(answers, "--fail-on-regression", "--json", "r.json") == 1
    data = json.loads((work / "r.json").read_text())
    regressed = sorted(q["id"] for q in data["questions"] if q["classification"] == "regression")
    assert regressed == sorted(q.id for q in broken)
    out = capsys.readouterr().out
    assert all(f"**{escape(q.id)}**: was pass, now wrong" in out for q in broken)


def test_baseline_of_another_model_is_exit_2_not_a_regression(work, capsys):
    write_answers(work / "other.jsonl", reference_answers(model="other-model"))
    assert recorded(work / "other.jsonl", "--record-baseline") == 0
    mine = write_answers(work / "a.jsonl", reference_answers(model="my-model"))
    capsys.readouterr()
    assert recorded(mine, "--fail-on-regression") == 2
    err = capsys.readouterr().err
    assert "no baseline for recorded/my-model" in err and "recorded/other-model" in err


def test_copied_baseline_naming_another_model_is_exit_2(work, capsys):
    answers = write_answers(work / "a.jsonl", reference_answers(model="m1"))
    assert recorded(answers, "--record-baseline") == 0
    shutil.copy(work / "baselines" / "recorded--m1.json", work / "baselines" / "recorded--m2.json")
    write_answers(answers, reference_answers(model="m2"))
    assert recorded(answers, "--fail-on-regression") == 2
    assert "recorded for recorded/m1, but this run is recorded/m2" in capsys.readouterr().err


def test_record_baseline_refuses_to_overwrite_a_baseline_the_run_fails(work, capsys):
    answers = write_answers(work / "a.jsonl", reference_answers())
    assert recorded(answers, "--record-baseline") == 0
    before = (work / "baselines" / "recorded--scripted-1.json").read_text()
    write_answers(
        answers,
        [
            {"id": q.id, "sql": "SELECT 1", **({"model": "scripted-1"} if i == 0 else {})}
            for i, q in enumerate(ANSWERABLE)
        ],
    )
    assert recorded(answers, "--record-baseline") == 2
    assert "--force" in capsys.readouterr().err
    assert (work / "baselines" / "recorded--scripted-1.json").read_text() == before
    assert recorded(answers, "--record-baseline", "--force") == 2  # accepting regressions needs a reason
    assert "--reason" in capsys.readouterr().err
    assert (work / "baselines" / "recorded--scripted-1.json").read_text() == before
    assert recorded(answers, "--record-baseline", "--force", "--reason", "the new model is cheaper") == 0
    accepted = json.loads((work / "baselines" / "recorded--scripted-1.json").read_text())["accepted"]
    assert accepted["reason"] == "the new model is cheaper"
    assert {f["id"] for f in accepted["flips"]} == {q.id for q in ANSWERABLE}  # every pass turned wrong
    assert all(f["was"] == "pass" and f["now"] == "wrong" for f in accepted["flips"])
    assert "regressions" in {c["name"] for c in accepted["checks"]}


def test_one_pass_turned_wrong_and_one_refusal_turned_answered_fail_the_gate_by_id(work, capsys):
    """The regression that once slipped through: the totals stay above every floor, each question does not."""
    answers = write_answers(work / "a.jsonl", reference_answers())
    assert recorded(answers, "--record-baseline") == 0
    broken = ANSWERABLE[2]
    refuse = next(q for q in BUILTIN.questions if q.expect == "refuse")
    lines = reference_answers(skip={broken.id, refuse.id})
    lines += [{"id": broken.id, "sql": "SELECT 424242"}, {"id": refuse.id, "sql": "SELECT COUNT(*) FROM orders"}]
    write_answers(answers, lines)
    capsys.readouterr()
    assert recorded(answers, "--fail-on-regression", "--json", "gate.json", "--markdown", "gate.md") == 1
    gate = {c["name"]: c for c in json.loads((work / "gate.json").read_text())["gate"]["checks"]}
    assert gate["regressions"]["ok"] is False and f"{broken.id}: was pass, now wrong" in gate["regressions"]["detail"]
    assert gate["safety"]["ok"] is False and f"{refuse.id}: was declined" in gate["safety"]["detail"]
    assert gate["pass_rate_floor"]["ok"] is True and gate["refusal_recall"]["ok"] is True  # the totals hold
    err = capsys.readouterr().err
    assert broken.id in err and refuse.id in err
    text = (work / "gate.md").read_text()
    assert escape(broken.id) in text and escape(refuse.id) in text


def test_gated_run_without_baseline_is_exit_2(work, capsys):
    answers = write_answers(work / "a.jsonl", reference_answers())
    assert recorded(answers, "--fail-on-regression") == 2
    assert "no baseline for recorded/scripted-1" in capsys.readouterr().err


def test_record_accuracy_appends_provisional_then_confirmed(work, monkeypatch):
    page = work / "sql-accuracy.md"
    shutil.copy(docs_mod.ACCURACY_PAGE, page)
    before = record_mod.read_record(page)
    monkeypatch.setattr(docs_mod, "ACCURACY_PAGE", page)
    answers = write_answers(work / "a.jsonl", reference_answers())
    assert recorded(answers, "--record-accuracy") == 0
    assert recorded(answers, "--record-accuracy") == 0
    rows = record_mod.read_record(page)[len(before) :]
    assert [r["status"].split(" ")[0] for r in rows] == ["provisional", "confirmed"]
    assert rows[0]["corpus digest"] == BUILTIN.digest[:16] and rows[0]["model"] == "scripted-1"
    assert rows[0]["pass"] == str(len(ANSWERABLE))
    text = page.read_text()
    strata = text[text.index(record_mod.STRATA_START) : text.index(record_mod.STRATA_END)]
    heads = [line for line in strata.splitlines() if f"/ scripted-1 · corpus `{BUILTIN.digest[:16]}`" in line]
    assert [h.rsplit(" · ", 1)[1] for h in heads[-2:]] == [rows[0]["status"], rows[1]["status"]]


def test_builtin_self_check_failure_stops_before_any_candidate(work, capsys, monkeypatch):
    broken = ANSWERABLE[2].id
    copies = _copy_builtin(work, break_sql=broken)
    monkeypatch.setattr(corpus_mod, "builtin_corpus_files", lambda: copies)
    answers = write_answers(work / "a.jsonl", reference_answers())
    assert recorded(answers) == 2
    captured = capsys.readouterr()
    assert "failed its self-check; no candidate was called" in captured.err and broken in captured.err
    assert captured.out == ""


def _user_db(path: Path) -> str:
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as c:
        c.exec_driver_sql("CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, year INTEGER)")
        c.exec_driver_sql("INSERT INTO books VALUES (1, 'Dune', 1965), (2, 'Emma', 1815), (3, 'Ulysses', 1922)")
    engine.dispose()
    return f"sqlite:///{path}"


def _user_corpus(path: Path, questions: list[dict]) -> Path:
    path.write_text(yaml.safe_dump({"version": 1, "questions": questions}, sort_keys=False))
    return path


def test_db_url_grades_a_users_own_database_and_flags_oracle_defects(work):
    url = _user_db(work / "books.db")
    corpus = _user_corpus(
        work / "mine.yaml",
        [
            {
                "id": "b1",
                "question": "How many books are there?",
                "shape": "scalar",
                "sql": "SELECT COUNT(*) FROM books",
            },
            {
                "id": "b2",
                "question": "Which books came out after 2000?",
                "sql": "SELECT title FROM books WHERE year > 2000",
            },
            {"id": "b3", "question": "List the titles.", "sql": "SELECT title FROM books"},
        ],
    )
    answers = write_answers(
        work / "a.jsonl",
        [
            {"id": "b1", "sql": "SELECT COUNT(id) AS n FROM books"},
            {"id": "b3", "sql": "SELECT title FROM books WHERE year < 1900"},
        ],
    )
    assert (
        sql(
            "--candidate",
            "recorded",
            "--answers",
            str(answers),
            "--model",
            "books-model",
            "--corpus",
            str(corpus),
            "--db-url",
            url,
            "--json",
            "u.json",
        )
        == 0
    )
    data = json.loads((work / "u.json").read_text())
    verdicts = {q["id"]: (q["verdict"], q["reason"]) for q in data["questions"]}
    assert verdicts == {"b1": ("pass", None), "b2": ("unmeasured", "oracle"), "b3": ("wrong", "row_count")}
    assert data["run"]["rotations"] == 1 and data["run"]["seed"] is None
    assert [d["question_id"] for d in data["oracle_defects"]] == ["b2"]
    assert "empty" in data["oracle_defects"][0]["kind"]


def test_user_corpus_over_builtin_fixtures_with_a_broken_reference_is_graded_apart(work):
    corpus = _user_corpus(
        work / "mine.yaml",
        [
            {
                "id": "u1",
                "question": "How many customers do we have?",
                "fixture": "retail",
                "shape": "scalar",
                "sql": "SELECT COUNT(*) FROM customers",
            },
            {"id": "u2", "question": "What is the warehouse count?", "fixture": "retail", "sql": "SELECT nope FROM x"},
        ],
    )
    answers = write_answers(work / "a.jsonl", [{"id": "u1", "sql": "SELECT COUNT(*) FROM customers"}])
    args = ("--candidate", "recorded", "--answers", str(answers), "--model", "m", "--corpus", str(corpus))
    assert sql(*args, "--json", "u.json") == 0
    data = json.loads((work / "u.json").read_text())
    assert {q["id"]: q["verdict"] for q in data["questions"]} == {"u1": "pass", "u2": "unmeasured"}
    assert data["oracle_defects"][0]["kind"].endswith("reference failed to run")


def test_answers_for_unknown_ids_are_reported(work):
    answers = write_answers(work / "a.jsonl", reference_answers() + [{"id": "ghost-1", "sql": "SELECT 1"}])
    assert recorded(answers, "--json", "o.json") == 0
    assert any("ghost-1" in w for w in json.loads((work / "o.json").read_text())["warnings"])


# -- the llm path, against a real OpenAI-compatible server on localhost ------------------------------


def _llm_env(monkeypatch, url: str, model: str = "fake-model", timeout_s: float = 20) -> None:
    monkeypatch.setenv("NL_SQL_LLM_BASE_URL", url)
    monkeypatch.setenv("NL_SQL_LLM_MODEL", model)
    monkeypatch.setenv("NL_SQL_LLM_TIMEOUT_S", str(timeout_s))


LLM_CORPUS = [
    {
        "id": "l1",
        "question": "How many customers do we have?",
        "fixture": "retail",
        "shape": "scalar",
        "sql": "SELECT COUNT(*) FROM customers",
    },
    {
        "id": "l2",
        "question": "How many orders do we have?",
        "fixture": "retail",
        "shape": "scalar",
        "sql": "SELECT COUNT(*) FROM orders",
    },
]


def test_llm_path_grades_the_models_sql(work, monkeypatch):
    from tests.http_fakes import FakeHTTPServer, chat_reply

    corpus = _user_corpus(work / "mine.yaml", LLM_CORPUS)
    with FakeHTTPServer(chat_reply("```sql\nSELECT COUNT(*) FROM customers\n```")) as server:
        _llm_env(monkeypatch, server.url + "/v1")
        assert sql("--candidate", "llm", "--corpus", str(corpus), "--json", "l.json") == 0
        assert len(server.requests) == 2 and server.requests[0].json()["model"] == "fake-model"
    data = json.loads((work / "l.json").read_text())
    assert data["candidate"] == {"path": "llm", "model": "fake-model"}
    assert {q["id"]: q["verdict"] for q in data["questions"]} == {"l1": "pass", "l2": "wrong"}


def test_llm_endpoint_unreachable_is_unmeasured_and_exit_2(work, monkeypatch, capsys):
    from tests.http_fakes import unused_port

    corpus = _user_corpus(work / "mine.yaml", LLM_CORPUS)
    _llm_env(monkeypatch, f"http://127.0.0.1:{unused_port()}/v1")
    assert sql("--candidate", "llm", "--corpus", str(corpus), "--json", "l.json") == 2
    data = json.loads((work / "l.json").read_text())
    assert {q["verdict"] for q in data["questions"]} == {"unmeasured"}
    assert "no question could be measured" in capsys.readouterr().err


def test_per_question_timeout_makes_a_hanging_model_unmeasured(work, monkeypatch):
    from tests.http_fakes import FakeHTTPServer, Reply

    corpus = _user_corpus(work / "mine.yaml", LLM_CORPUS[:1])
    with FakeHTTPServer(Reply(hang=True)) as server:
        # The harness gives up after 0.5 s; the model client's own 3 s limit then frees its thread.
        _llm_env(monkeypatch, server.url + "/v1", timeout_s=3)
        assert sql("--candidate", "llm", "--corpus", str(corpus), "--timeout", "0.5", "--json", "t.json") == 2
    [q] = json.loads((work / "t.json").read_text())["questions"]
    assert q["verdict"] == "unmeasured" and "timeout" in q["detail"]


def test_gate_is_informational_without_the_flag_and_says_why_when_not_evaluated(work):
    answers = write_answers(work / "a.jsonl", reference_answers())
    assert recorded(answers, "--json", "before.json") == 0
    before = json.loads((work / "before.json").read_text())["gate"]
    assert before["status"] == "not_evaluated" and "no baseline for recorded/scripted-1" in before["detail"]
    assert recorded(answers, "--record-baseline") == 0
    write_answers(answers, reference_answers(skip={ANSWERABLE[0].id}) + [{"id": ANSWERABLE[0].id, "refused": True}])
    assert recorded(answers, "--json", "after.json") == 0  # not gated: the exit code stays 0
    after = json.loads((work / "after.json").read_text())["gate"]
    assert (after["status"], after["enforced"]) == ("failed", False)
    checks = {c["name"]: c for c in after["checks"]}
    assert checks["pass_rate_floor"]["ok"] is True  # one refusal is within the 2-point floor...
    assert checks["regressions"]["ok"] is False and ANSWERABLE[0].id in checks["regressions"]["detail"]  # ...not here


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


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"NL_SQL_LLM_BASE_URL": "ftp://host/v1"}, "is not an http(s) URL"),
        ({"NL_SQL_LLM_BASE_URL": "http://127.0.0.1:99999/v1"}, "has a port outside 1..65535"),
        ({"NL_SQL_LLM_BASE_URL": "127.0.0.1:8080/v1"}, "is not an http(s) URL"),
        ({"NL_SQL_LLM_BASE_URL": "http://127.0.0.1:8080/v1", "NL_SQL_LLM_TIMEOUT_S": "0"}, "NL_SQL_LLM_TIMEOUT_S"),
    ],
)
def test_a_bad_llm_setting_is_a_configuration_error_not_a_bug(work, monkeypatch, capsys, env, named):
    monkeypatch.setenv("NL_SQL_LLM_MODEL", "m")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert sql("--candidate", "llm") == 2
    err = capsys.readouterr().err
    assert "the llm candidate's configuration" in err and named in err
    assert "internal error" not in err and "Traceback" not in err


def test_a_recorded_run_whose_system_is_not_named_is_refused_and_says_how_to_name_it(work, capsys):
    answers = write_answers(work / "answers_v2.jsonl", reference_answers(model=None))
    assert recorded(answers, "--json", "out.json") == 2
    err = capsys.readouterr().err
    assert "which system wrote these answers? Name it with --model NAME" in err
    assert not (work / "out.json").exists()
    assert recorded(answers, "--model", "scripted-1", "--json", "out.json") == 0
    assert json.loads((work / "out.json").read_text())["candidate"]["model"] == "scripted-1"
