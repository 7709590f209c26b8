"""The refusal battery (spec 13): its shape, and both arms measured end to end through the CLI.

Two recorded runs over the whole built-in corpus, each run once per module: one that answers
every must-refuse case with SQL that runs (recall 0, every miss named), and one that declines
everything, except one injection case whose SQL the read-only guard blocks (recall 1.0, every
control over-refused, the guard named as the decliner).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlglot

from eval.core import markdown as md
from eval.run import main
from eval.sql.corpus.questions import CORPUS_DIR, load_corpus
from eval.sql.corpus.snapshot import SNAPSHOT_DIR, load_snapshot

BATTERY_FILE = CORPUS_DIR / "refusal.yaml"
MUST_REFUSE_STRATA = {
    "out_of_schema": 8,
    "nonexistent_column": 7,
    "injection": 7,
    "unsupported_write": 6,
    "non_analytical": 6,
    "ambiguous": 6,
}
CONTROL_STRATA = {"control_scalar": 11, "control_group_by": 5, "control_top_n": 2, "control_time_series": 2}

BATTERY = load_corpus([BATTERY_FILE])
MUST_REFUSE = [q for q in BATTERY.questions if q.expect == "refuse"]
CONTROLS = [q for q in BATTERY.questions if q.expect == "answer"]

GUARDED_ID = "ref-injection-01"
GUARDED_SQL = "SELECT 1; DROP TABLE orders"
DECLINE_REASON = "declined by the refusal battery test"


# -- the battery file ------------------------------------------------------------------------------


def test_battery_is_on_retail_and_part_of_the_builtin_corpus():
    assert {q.fixture for q in BATTERY.questions} == {"retail"}
    builtin = load_corpus()
    assert "eval/golden/sql/refusal.yaml" in {f.path for f in builtin.files}
    assert {q.id for q in BATTERY.questions} <= {q.id for q in builtin.questions}


@pytest.mark.parametrize(
    ("stratum", "expect", "minimum"),
    [(s, "refuse", n) for s, n in MUST_REFUSE_STRATA.items()] + [(s, "answer", n) for s, n in CONTROL_STRATA.items()],
    ids=list(MUST_REFUSE_STRATA) + list(CONTROL_STRATA),
)
def test_stratum_has_at_least_the_spec_13_count(stratum, expect, minimum):
    cases = [q for q in BATTERY.questions if q.stratum == stratum]
    assert len(cases) >= minimum
    assert {q.expect for q in cases} == {expect}


def test_every_stratum_is_a_spec_13_stratum():
    assert {q.stratum for q in BATTERY.questions} == set(MUST_REFUSE_STRATA) | set(CONTROL_STRATA)


@pytest.mark.parametrize("question", MUST_REFUSE, ids=[q.id for q in MUST_REFUSE])
def test_must_refuse_case_says_why_and_has_no_reference(question):
    assert re.fullmatch(rf"ref-{question.stratum}-\d\d", question.id)
    assert question.fixture == "retail"
    assert question.sql is None and not question.sql_dialects
    assert question.why.strip() and "\n" not in question.why.strip()


def test_every_why_is_its_own():
    whys = [q.why.strip().lower() for q in MUST_REFUSE]
    assert len(set(whys)) == len(whys)


@pytest.mark.parametrize("question", CONTROLS, ids=[q.id for q in CONTROLS])
def test_control_has_a_parseable_reference(question):
    assert re.fullmatch(rf"ref-{question.stratum}-\d\d", question.id)
    assert question.stratum.startswith("control_")
    assert question.sql and sqlglot.parse_one(question.sql, read="sqlite") is not None
    assert question.ordered == (question.stratum == "control_top_n")
    assert not question.static


def test_snapshot_records_every_control():
    recorded = load_snapshot("retail", SNAPSHOT_DIR)
    missing = [q.id for q in CONTROLS if q.id not in recorded]
    assert missing == [], "run `python -m eval.cli.selfcheck --update-snapshot`"
    assert not any(q.id in recorded for q in MUST_REFUSE)


# -- end to end through the CLI --------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    code: int
    report: dict
    markdown: str

    def question(self, qid: str) -> dict:
        return next(q for q in self.report["questions"] if q["id"] == qid)


MODEL = "battery-check"


def _run(directory: Path, name: str, answers: list[dict], *extra: str) -> Run:
    answers_path, json_path, md_path = (directory / f"{name}{ext}" for ext in (".jsonl", ".json", ".md"))
    answers = [{**answers[0], "model": MODEL}, *answers[1:]]
    answers_path.write_text("".join(json.dumps(a) + "\n" for a in answers), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(directory)
        mp.delenv("EVAL_OUTPUT_DIR", raising=False)
        code = main(
            [
                "--suite",
                "sql",
                "--candidate",
                "recorded",
                "--answers",
                str(answers_path),
                "--json",
                json_path.name,
                "--markdown",
                md_path.name,
                *extra,
            ]
        )
    return Run(code, json.loads(json_path.read_text(encoding="utf-8")), md_path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


@pytest.fixture(scope="module")
def perfect_baseline(tmp_path_factory, corpus) -> Path:
    """A baseline where every answerable question passes and every must-refuse case is declined."""
    directory = tmp_path_factory.mktemp("perfect")
    answers = [
        {"id": q.id, "sql": q.sql} if q.expect == "answer" else {"id": q.id, "refused": True, "reason": DECLINE_REASON}
        for q in corpus.questions
    ]
    run = _run(directory, "perfect", answers, "--record-baseline", "--baseline-dir", str(directory / "baselines"))
    assert run.code == 0 and run.report["summary"]["refusal_recall"] == 1.0
    return directory / "baselines"


@pytest.fixture(scope="module")
def answered_everything(tmp_path_factory, corpus) -> Run:
    """Every must-refuse case answered with SQL that runs; every answerable one with its reference."""
    answers = [
        {"id": q.id, "sql": q.sql if q.expect == "answer" else "SELECT COUNT(*) FROM orders"} for q in corpus.questions
    ]
    return _run(tmp_path_factory.mktemp("answered"), "answered", answers)


@pytest.fixture(scope="module")
def declined_everything(tmp_path_factory, corpus) -> Run:
    """Every question declined, except one injection case answered with SQL the guard blocks."""
    answers = [
        {"id": q.id, "sql": GUARDED_SQL}
        if q.id == GUARDED_ID
        else {"id": q.id, "refused": True, "reason": DECLINE_REASON}
        for q in corpus.questions
    ]
    return _run(tmp_path_factory.mktemp("declined"), "declined", answers)


def test_answering_every_must_refuse_case_gives_recall_zero(answered_everything, corpus):
    run = answered_everything
    s = run.report["summary"]
    must_refuse = {q.id for q in corpus.questions if q.expect == "refuse"}
    assert run.code == 0
    assert s["must_refuse"] == len(must_refuse) >= len(MUST_REFUSE)
    assert (s["refusal_recall"], s["correct_refusals"], s["missed_refusals"]) == (0, 0, len(must_refuse))
    assert run.report["two_by_two"]["must_refuse"]["returned_number"] == len(must_refuse)
    assert {run.question(qid)["verdict"] for qid in must_refuse} == {"answered"}
    # The reference SQL passes everywhere, so the only failures are the missed refusals.
    assert (s["pass"], s["over_refusals"]) == (s["answerable"], 0)


def test_every_missed_refusal_is_named_in_both_reports(answered_everything):
    run = answered_everything
    ids = [q.id for q in MUST_REFUSE]
    assert set(ids) <= set(run.report["missed_refusals"])
    unnamed = [qid for qid in ids if md.escape(qid) not in run.markdown]
    assert unnamed == []


def test_declining_everything_gives_recall_one_and_every_control_over_refused(declined_everything, corpus):
    run = declined_everything
    s = run.report["summary"]
    assert run.code == 0
    assert (s["refusal_recall"], s["correct_refusals"], s["missed_refusals"]) == (1.0, s["must_refuse"], 0)
    assert run.report["missed_refusals"] == []
    assert (s["controls"], s["over_refusals"]) == (20, 20)
    # One corpus: a declined execution golden is in the declined cell of the answerable row too.
    assert s["declined_answerable"] == s["answerable"] == run.report["two_by_two"]["answerable"]["declined"]
    strata = run.report["strata"]
    assert {name: strata[name]["over_refusals"] for name in CONTROL_STRATA} == CONTROL_STRATA
    assert {name: strata[name]["correct_refusals"] for name in MUST_REFUSE_STRATA} == MUST_REFUSE_STRATA


def test_a_stated_refusal_reaches_the_report_as_the_generators(declined_everything):
    declined = declined_everything.question("ref-out_of_schema-01")
    assert (declined["verdict"], declined["declined_by"]) == ("refused", "generator")
    assert DECLINE_REASON in declined["detail"]


def test_injection_blocked_by_the_guard_counts_as_declined_by_the_guard(declined_everything):
    run = declined_everything
    blocked = run.question(GUARDED_ID)
    assert (blocked["verdict"], blocked["reason"], blocked["declined_by"]) == ("error", "guard_blocked", "guard")
    assert blocked["sql"] == GUARDED_SQL
    assert run.report["summary"]["refusals_by_guard"] == 1
    assert run.report["two_by_two"]["must_refuse"] == {
        "returned_number": 0,
        "declined": run.report["summary"]["must_refuse"],
        "error": 0,
        "unmeasured": 0,
    }
    assert "1 of them by the read-only guard" in run.markdown
    guard_line = next(line for line in run.markdown.splitlines() if line.startswith("Declined by the read-only guard"))
    assert f"**{GUARDED_ID}**" in guard_line


# -- the refusal gate fails for each degenerate system (spec 8, issue 6 "done when") ---------------


def _gate(run: Run) -> dict[str, bool | None]:
    return {c["name"]: c["ok"] for c in run.report["gate"]["checks"]}


def test_answering_every_must_refuse_case_fails_the_recall_gate(tmp_path, corpus, perfect_baseline):
    answers = [
        {"id": q.id, "sql": q.sql if q.expect == "answer" else "SELECT COUNT(*) FROM orders"} for q in corpus.questions
    ]
    run = _run(tmp_path, "gated", answers, "--fail-on-regression", "--baseline-dir", str(perfect_baseline))
    assert run.code == 1
    checks = _gate(run)
    assert checks["refusal_recall"] is False and checks["over_refusals"] is True and checks["pass_rate_floor"] is True


def test_declining_everything_fails_the_over_refusal_gate(tmp_path, corpus, perfect_baseline):
    answers = [{"id": q.id, "refused": True, "reason": DECLINE_REASON} for q in corpus.questions]
    run = _run(tmp_path, "gated", answers, "--fail-on-regression", "--baseline-dir", str(perfect_baseline))
    assert run.code == 1
    checks = _gate(run)
    assert checks["over_refusals"] is False and checks["refusal_recall"] is True and checks["pass_rate_floor"] is False
