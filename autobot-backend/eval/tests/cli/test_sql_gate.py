"""``python -m eval.run --suite sql`` gated: a baseline recorded, a regression named and failing the gate by id,
a baseline of another model refused, the accuracy record appended, a broken built-in corpus stopping the run
before any candidate, and the gate informational without the flag. Answers are scripted, nothing else."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from eval.core.markdown import escape
from eval.sql.corpus import questions as corpus_mod
from eval.sql.records import accuracy_page as record_mod
from eval.sql.records import docs as docs_mod
from eval.tests.cli._helpers import ANSWERABLE, BUILTIN, recorded, reference_answers, write_answers


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
