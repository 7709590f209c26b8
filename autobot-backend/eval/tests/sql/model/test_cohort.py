"""The cohort covers every setting that changes a verdict, and one function says where two set-ups differ.

Real runs: a corpus of built-in questions on the real fixtures, graded through the real service from a
recorded answers file whose grouped answers have their columns swapped, so the column-order policy
decides the verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from eval.cli.compare import main as compare_main
from eval.core.errors import UsageError
from eval.run import main as run_main
from eval.sql.corpus.questions import load_corpus
from eval.sql.model.cohort import ABSENT, UNKNOWN, Difference, cohort_differences, cohort_keys
from eval.sql.model.outcome import SQLOutcome, Verdict
from eval.sql.model.run import SQLRun
from eval.sql.model.setup import Cohort, CorpusStamps, RunSetup
from eval.sql.records import accuracy_page as record

BUILTIN = load_corpus()
PICKED = ("rtl-group_by-001", "rtl-group_by-003", "rtl-group_by-004")
SWAPPED = {
    "rtl-group_by-001": "SELECT COUNT(*), country FROM customers GROUP BY country",
    "rtl-group_by-003": "SELECT COUNT(*), status FROM orders GROUP BY status",
}


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A small corpus of built-in questions and answers with two results' columns swapped."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    questions = []
    for qid in PICKED:
        q = BUILTIN.by_id(qid)
        questions.append({"id": q.id, "question": q.question, "stratum": q.stratum, "fixture": q.fixture, "sql": q.sql})
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump({"version": 1, "questions": questions}, sort_keys=False))
    lines = [{"id": qid, "sql": SWAPPED.get(qid, BUILTIN.by_id(qid).sql)} for qid in PICKED]
    lines[0]["model"] = "swapper"
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (tmp_path / "baselines").mkdir()
    return tmp_path


def run(*args: str) -> int:
    return run_main(
        ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--answers", "a.jsonl"]
        + ["--baseline-dir", "baselines", *args]
    )


def verdicts(path: Path) -> dict[str, str]:
    return {q["id"]: q["verdict"] for q in json.loads(path.read_text())["questions"]}


@pytest.fixture
def two_runs(work):
    assert run("--json", "positional.json") == 0
    assert run("--column-order", "any", "--json", "any.json") == 0
    return work / "positional.json", work / "any.json"


def test_a_column_order_any_run_is_another_cohort_than_a_positional_one(two_runs):
    positional, anyorder = (json.loads(p.read_text()) for p in two_runs)
    assert verdicts(two_runs[0]) == {
        "rtl-group_by-001": "wrong",
        "rtl-group_by-003": "wrong",
        "rtl-group_by-004": "pass",
    }
    assert set(verdicts(two_runs[1]).values()) == {"pass"}  # the policy alone turned two answers into passes
    assert positional["cohort"]["fingerprint"] != anyorder["cohort"]["fingerprint"]
    assert (positional["cohort"]["keys"]["column_order"], anyorder["cohort"]["keys"]["column_order"]) == (
        "positional",
        "any",
    )
    differences = cohort_differences(positional["cohort"]["keys"], anyorder["cohort"]["keys"])
    assert [str(d) for d in differences] == ["column_order: positional vs any"]  # nothing else differs


def test_compare_refuses_runs_of_different_cohorts_naming_the_key(two_runs, capsys):
    assert compare_main([str(p) for p in two_runs] + ["--json", "refused.json"]) == 2
    err = capsys.readouterr().err
    assert "different cohorts" in err and "column_order: positional vs any" in err and "--allow-off-suite" in err
    assert not Path("refused.json").exists()


def test_compare_with_allow_off_suite_compares_and_says_which_keys_differ(two_runs, capsys):
    assert compare_main([str(p) for p in two_runs] + ["--allow-off-suite", "--json", "c.json"]) == 0
    out = json.loads(Path("c.json").read_text())
    assert out["cohort"]["same"] is False
    assert out["cohort"]["differences"] == ["column_order: positional vs any"]
    assert out["cohort"]["keys"] == ["column_order"]
    assert any(n.startswith("DIFFERENT COHORTS") and "column_order: positional vs any" in n for n in out["notes"])
    assert {f["id"] for f in out["flips"]} == set(SWAPPED)  # compared all the same
    text = capsys.readouterr().out
    assert "DIFFERENT COHORTS" in text and "column\\_order: positional vs any" in text


def test_compare_of_one_cohort_says_it_is_the_same(two_runs):
    assert compare_main([str(two_runs[0]), str(two_runs[0]), "--json", "same.json"]) == 0
    out = json.loads(Path("same.json").read_text())
    assert out["cohort"]["same"] is True and out["cohort"]["differences"] == [] and out["notes"] == []


@pytest.mark.parametrize(
    "recorded_with, named",
    [
        (("--rotations", "2"), "rotations: 2 vs 3"),
        (("--seed", "7"), "seed: 7 vs 0"),
        (("--column-order", "any"), "column_order: any vs positional"),
    ],
)
def test_the_gate_refuses_a_baseline_of_another_cohort_naming_the_key(work, capsys, recorded_with, named):
    assert run(*recorded_with, "--record-baseline", "--force") == 0
    assert run(*recorded_with, "--fail-on-regression") == 0  # its own set-up is judged, and holds
    capsys.readouterr()
    assert run("--fail-on-regression", "--json", "gated.json") == 2
    err = capsys.readouterr().err
    assert "cannot gate" in err and "another cohort than its baseline" in err and named in err
    gate = json.loads(Path("gated.json").read_text())["gate"]
    assert gate["status"] == "not_evaluated" and named in gate["detail"]


def test_with_allow_off_suite_the_gate_judges_against_another_cohort_and_says_so(work, capsys):
    assert run("--rotations", "2", "--record-baseline", "--force") == 0
    capsys.readouterr()
    assert run("--fail-on-regression", "--allow-off-suite", "--json", "gated.json", "--markdown", "gated.md") == 0
    report = json.loads(Path("gated.json").read_text())
    assert report["gate"]["status"] == "passed" and report["gate"]["enforced"] is True
    [warning] = [w for w in report["warnings"] if "DIFFERENT COHORTS" in w]
    assert "rotations: 2 vs 3" in warning
    assert "DIFFERENT COHORTS (--allow-off-suite)" in Path("gated.md").read_text()


def test_a_baseline_from_before_the_cohort_is_named_unknown_not_a_crash(work, capsys):
    assert run("--record-baseline", "--force") == 0
    path = work / "baselines" / "recorded--swapper.json"
    data = json.loads(path.read_text())
    del data["cohort"]
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert run("--fail-on-regression") == 2
    err = capsys.readouterr().err
    assert "column_order: unknown vs positional" in err and "re-record it deliberately" in err
    assert "rotations" not in err  # kept in the old baseline's run: known, and equal


def test_the_gate_judges_across_changed_fixtures_and_says_so(work, capsys):
    assert run("--record-baseline", "--force") == 0
    path = work / "baselines" / "recorded--swapper.json"
    data = json.loads(path.read_text())
    data["cohort"]["keys"]["fixtures"]["retail"]["generator"] = "0" * 16
    path.write_text(json.dumps(data))
    assert run("--fail-on-regression", "--json", "gated.json") == 0
    report = json.loads(Path("gated.json").read_text())
    assert report["gate"]["status"] == "passed"
    assert any(
        "fixtures changed" in w and "fixtures.retail.generator: 0000000000000000 vs" in w for w in report["warnings"]
    )


def test_cohort_differences_flattens_nested_fixture_keys():
    a = {"fixtures": {"retail": {"generator": "g1", "schema": "s"}}, "seed": 0}
    b = {"fixtures": {"retail": {"generator": "g2", "schema": "s"}, "retail_24m": {"generator": "g2", "schema": "t"}}}
    differences = cohort_differences(a, b)
    assert [str(d) for d in differences] == [
        "fixtures.retail.generator: g1 vs g2",
        "fixtures.retail_24m.generator: absent vs g2",
        "fixtures.retail_24m.schema: absent vs t",
        "seed: 0 vs unknown",
    ]
    assert differences[1] == Difference("fixtures.retail_24m.generator", ABSENT, "g2")
    assert differences[-1].b is UNKNOWN and differences[-1].unknown and not differences[0].unknown
    assert [d.key for d in cohort_differences(a, b, only=("seed",))] == ["seed"]
    assert cohort_differences(a, b, skip=("fixtures", "seed")) == []
    assert cohort_differences(a, dict(a)) == []


def test_cohort_keys_of_an_old_report_come_from_what_it_kept():
    old = {"corpus": {"digest": "d"}, "candidate": {"path": "recorded"}, "run": {"rotations": 3, "column_order": "any"}}
    assert cohort_keys(old) == {"rotations": 3, "column_order": "any", "corpus": "d", "candidate": "recorded"}
    new = {**old, "cohort": {"keys": {"column_order": "positional", "corpus": "d"}}}
    assert cohort_keys(new)["column_order"] == "positional"  # the cohort's own key wins


def _report(column_order: str) -> SQLRun:
    keys = {"corpus": "ab" * 32, "fixtures": {}, "seed": 0, "rotations": 3, "column_order": column_order}
    return SQLRun(
        outcomes=[SQLOutcome("a", "answer", "s", Verdict.PASS)],
        candidate_path="recorded",
        model="m",
        corpus=CorpusStamps("ab" * 32, 1),
        run=RunSetup(engine="sqlite", rotations=3, seed=0),
        cohort=Cohort(column_order, keys, "m", None),
    )


def test_the_accuracy_record_keeps_another_column_order_off_suite(tmp_path):
    page = tmp_path / "own.md"
    record.ensure_page(page)
    record.append_record(_report("positional"), page)
    with pytest.raises(
        UsageError, match=r"differs in column_order: record vs this run: column_order: positional vs any"
    ):
        record.append_record(_report("any"), page)
    row = record.append_record(_report("any"), page, allow_off_suite=True)
    assert row["differs in"] == "column_order" and len(record.read_record(page)) == 1
