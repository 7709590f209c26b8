"""``python -m eval.run --suite turns`` end to end against a judge server on 127.0.0.1: the shipped example
scored to exact numbers, calibration against labels, re-judging and drift, and the exit codes."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from eval.run import main
from tests.http_fakes import FakeHTTPServer

from ..judge_fakes import ScriptedJudge, point_judge_at, verdict

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "eval" / "examples" / "turns.jsonl"

SCRIPT = {
    "What was our revenue in December 2024?": verdict(9, 9, 9, 10),  # 92
    "Which three countries have the most customers?": verdict(8, 7, 8, None),  # no answer: 76.875
    "Delete all cancelled orders.": verdict(9, 8, 8, 9),  # 85
    "How many orders were returned?": verdict(8, 7, 9, 9),  # 82
    "What is the average delivery time per channel?": verdict(8, 5, 5, None, "partial"),  # 61.25, capped at 40
    "How many customers signed up last week?": verdict(7, 6, 3, 2, "partial"),  # 47.5, capped at 20
    "What do our suppliers charge us per unit?": "I think this turn is fine.",  # never valid: unmeasured
}


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_OUTPUT_DIR", raising=False)
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    shutil.copy(EXAMPLE, tmp_path / "turns.jsonl")
    return tmp_path


def turns(*args: str) -> int:
    return main(["--suite", "turns", *args])


def judged(work, monkeypatch, script=SCRIPT, *args, model="judge-model"):
    judge = ScriptedJudge(script)
    with FakeHTTPServer(handler=judge) as server:
        point_judge_at(monkeypatch, server, model)
        code = turns(*args)
    return code, judge


def test_the_example_is_scored_to_exact_numbers(work, monkeypatch, capsys):
    code, judge = judged(work, monkeypatch, SCRIPT, "--turns", "turns.jsonl", "--json", "r.json", "--markdown", "r.md")
    assert code == 0
    data = json.loads((work / "r.json").read_text())
    assert data["suite"] == "turns" and data["judge"]["model"] == "judge-model"
    assert data["judge"]["rubric_version"] == data["rubric"]["version"] == "turns-rubric-v1"
    by_id = {t["turn_id"]: t for t in data["turns"]}
    assert {k: v["composite"] for k, v in by_id.items()} == {
        "ex-revenue-q4": 92.0,
        "ex-top-countries": 76.875,
        "ex-delete-request": 85.0,
        "ex-recovered-typo": 82.0,
        "ex-all-failed": 40.0,
        "ex-figures-from-nowhere": 20.0,
        "ex-declined-out-of-schema": None,
    }
    s = data["summary"]
    assert (s["turns"], s["scored"], s["unmeasured"]) == (7, 6, 1)
    # sorted: 20, 40, 76.875, 82, 85, 92; quartiles by the inclusive method
    assert s["distribution"] == {"n": 6, "mean": 65.98, "median": 79.44, "p25": 49.22, "p75": 84.25,
                                 "min": 20.0, "max": 92.0}  # fmt: skip
    assert [h["count"] for h in s["histogram"]] == [0, 0, 1, 0, 1, 0, 0, 1, 2, 1]
    assert s["bands"] == {"good": 4, "partial": 0, "poor": 2}
    assert s["judge_bands"] == {"good": 4, "partial": 2, "poor": 0}
    assert s["caps"] == {
        "all_sql_failed": {"limit": 40, "applied": 1, "binding": 1},
        "figures_without_rows": {"limit": 20, "applied": 1, "binding": 1},
    }
    assert [(d["turn_id"], d["judge_band"], d["band"]) for d in data["band_disagreements"]] == [
        ("ex-all-failed", "partial", "poor"),
        ("ex-figures-from-nowhere", "partial", "poor"),
    ]
    failed = by_id["ex-all-failed"]["arithmetic"]
    assert failed["pre_cap"] == 61.25 and failed["caps"][0]["binding"] and failed["composite"] == 40.0
    assert [d["effective_weight"] for d in failed["dimensions"]] == [0.375, 0.3125, 0.3125, 0.0]
    assert data["calibration"]["status"] == "uncalibrated" and data["calibration"]["target_kappa"] == 0.7
    unmeasured = by_id["ex-declined-out-of-schema"]
    assert unmeasured["status"] == "unmeasured" and unmeasured["band"] is None and unmeasured["attempts"] == 2
    assert judge.asked["What do our suppliers charge us per unit?"] == 2  # retried once, then unmeasured
    assert sum(judge.asked.values()) == 8
    text = (work / "r.md").read_text()
    assert "UNCALIBRATED" in text and "turns-rubric-v1" in text and "judge-model" in text
    assert "| all\\_sql\\_failed |" not in text  # harness-made names are not escaped twice
    assert "ex-declined-out-of-schema**: the judge's reply was invalid twice" in text


def test_untrusted_text_is_escaped_in_the_markdown(work, monkeypatch):
    line = json.loads((work / "turns.jsonl").read_text().splitlines()[0])
    line["turn_id"] = "evil|<img src=x>"
    (work / "evil.jsonl").write_text(json.dumps(line) + "\n")
    script = {line["question"]: verdict(9, 9, 9, 9, why="| forged | cell <script>alert(1)</script>")}
    code, _ = judged(work, monkeypatch, script, "--turns", "evil.jsonl", "--markdown", "e.md")
    assert code == 0
    text = (work / "e.md").read_text()
    assert "evil\\|\\<img src=x\\>" in text and "\\| forged \\| cell \\<script\\>" in text
    assert not re.search(r"(?<!\\)[<>]", text.replace("<=", ""))  # no unescaped angle bracket anywhere
    assert not re.search(r"(?<!\\)\| forged", text)  # the forged cell did not become a table cell


LABELS = [
    {"turn_id": "ex-revenue-q4", "score": 95, "band": "good"},
    {"turn_id": "ex-top-countries", "score": 85, "band": "partial"},
    {"turn_id": "ex-delete-request", "score": 90, "band": "good"},
    {"turn_id": "ex-recovered-typo", "score": 80, "band": "good"},
    {"turn_id": "ex-all-failed", "score": 30, "band": "poor"},
    {"turn_id": "ex-figures-from-nowhere", "score": 10, "band": "poor", "labeller": "ana"},
    {"turn_id": "ex-declined-out-of-schema", "score": 60, "band": "partial"},
    {"turn_id": "ghost", "score": 50, "band": "partial"},
]


def write_labels(path: Path, labels=LABELS) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in labels))
    return path


def test_calibration_against_labels_runs_end_to_end(work, monkeypatch, capsys):
    write_labels(work / "labels.jsonl")
    args = ("--turns", "turns.jsonl", "--labels", "labels.jsonl", "--json", "c.json")
    code, _ = judged(work, monkeypatch, SCRIPT, *args)
    assert code == 0
    c = json.loads((work / "c.json").read_text())["calibration"]
    assert c["status"] == "calibrated" and c["pairs"] == 6 and c["labels"] == 8
    # composites 92, 76.875, 85, 82, 40, 20 against 95, 85, 90, 80, 30, 10: one swapped pair of ranks,
    # rho = 1 - 6 * 2 / (6 * 35) = 33/35
    assert c["spearman_rho"] == round(33 / 35, 4)
    # bands good x4, poor x2 against good, partial, good, good, poor, poor: p_o = 5/6, p_e = 4/9, kappa = 0.7
    assert c["kappa"] == 0.7 and c["meets_target"] is True
    # the judge's own bands (good x4, partial x2): p_o = 1/2, p_e = 7/18, kappa = 2/11
    assert c["kappa_judge_band"] == round(2 / 11, 4)
    assert c["not_in_run"] == ["ghost"] and c["not_scored"] == ["ex-declined-out-of-schema"]
    out = capsys.readouterr().out
    assert "## Calibration against" in out and "meets the target" in out and "UNCALIBRATED" not in out


def test_calibration_below_the_target_fails_a_gated_run_with_1(work, monkeypatch):
    labels = [x | {"band": "partial"} if x["turn_id"] == "ex-revenue-q4" else x for x in LABELS]
    write_labels(work / "labels.jsonl", labels)
    args = ("--turns", "turns.jsonl", "--labels", "labels.jsonl")
    code, _ = judged(work, monkeypatch, SCRIPT, *args, "--fail-on-regression", "--json", "g.json")
    assert code == 1
    gate = json.loads((work / "g.json").read_text())["gate"]
    assert gate["status"] == "failed" and gate["enforced"] and gate["checks"][0]["name"] == "calibration"
    assert judged(work, monkeypatch, SCRIPT, *args)[0] == 0  # informational without the flag


def test_a_bad_labels_line_is_exit_2_naming_file_line_and_turn(work, monkeypatch, capsys):
    (work / "labels.jsonl").write_text(json.dumps(LABELS[0]) + "\n" + json.dumps(LABELS[1] | {"score": 120}) + "\n")
    code, judge = judged(work, monkeypatch, SCRIPT, "--turns", "turns.jsonl", "--labels", "labels.jsonl")
    assert code == 2 and not judge.asked  # checked before any turn is judged
    assert "labels.jsonl:2: turn 'ex-top-countries': score must be a number from 0 to 100" in capsys.readouterr().err


def test_rejudge_reports_drift_and_a_gated_run_fails_on_a_turn_that_moved_down(work, monkeypatch, capsys):
    assert judged(work, monkeypatch, SCRIPT, "--turns", "turns.jsonl", "--json", "first.json")[0] == 0
    same, _ = judged(work, monkeypatch, SCRIPT, "--rejudge", "first.json", "--json", "s.json")
    drift = json.loads((work / "s.json").read_text())["drift"]
    assert same == 0 and drift["same_judge"] and drift["compared"] == 6 and drift["max_abs_delta"] == 0
    assert drift["not_compared"] == [{"turn_id": "ex-declined-out-of-schema", "why": "unmeasured in the stored report"}]

    harsher = SCRIPT | {"How many orders were returned?": verdict(5, 5, 5, 5, "partial")}  # 82 -> 50
    code, judge = judged(
        work, monkeypatch, harsher, "--rejudge", "first.json", "--fail-on-regression", "--json", "d.json", model="j2"
    )
    assert code == 1
    data = json.loads((work / "d.json").read_text())
    d = data["drift"]
    assert d["stored_judge"]["model"] == "judge-model" and d["judge"]["model"] == "j2" and not d["same_judge"]
    assert d["moved_down"] == ["ex-recovered-typo"] and d["band_changes"] == 1
    moved = next(r for r in d["turns"] if r["turn_id"] == "ex-recovered-typo")
    assert (moved["stored"], moved["now"], moved["delta"], moved["stored_band"], moved["band"]) == (
        82.0, 50.0, -32.0, "good", "partial")  # fmt: skip
    assert d["mean_delta"] == round(-32 / 6, 4) and d["mean_abs_delta"] == round(32 / 6, 4)
    assert data["source"]["kind"] == "stored report" and data["judge"]["model"] == "j2"
    assert sum(judge.asked.values()) == 8  # every stored turn judged again, the stored report alone as input
    assert "another judge: compared turn by turn, never pooled" in capsys.readouterr().out


def test_a_stored_report_mixing_judges_is_refused(work, monkeypatch, capsys):
    assert judged(work, monkeypatch, SCRIPT, "--turns", "turns.jsonl", "--json", "first.json")[0] == 0
    data = json.loads((work / "first.json").read_text())
    data["turns"][1]["judge"]["model"] = "another-judge"
    (work / "mixed.json").write_text(json.dumps(data))
    code, judge = judged(work, monkeypatch, SCRIPT, "--rejudge", "mixed.json")
    assert code == 2 and not judge.asked
    assert "come from 2 judges" in capsys.readouterr().err


def test_nothing_judged_is_exit_2(work, monkeypatch, capsys):
    code, _ = judged(work, monkeypatch, {q: "{}" for q in SCRIPT}, "--turns", "turns.jsonl")
    assert code == 2 and "no turn could be judged" in capsys.readouterr().err


def test_a_gated_run_with_unmeasured_turns_is_exit_2(work, monkeypatch, capsys):
    write_labels(work / "labels.jsonl")
    code, _ = judged(work, monkeypatch, SCRIPT, "--turns", "turns.jsonl", "--labels", "labels.jsonl",
                     "--fail-on-regression")  # fmt: skip
    assert code == 2 and "unmeasured turns" in capsys.readouterr().err


def test_without_a_configured_judge_nothing_is_judged_and_the_exit_is_2(work, monkeypatch, capsys):
    for var in ("NL_SQL_JUDGE_BASE_URL", "NL_SQL_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    assert turns("--turns", "turns.jsonl") == 2
    assert "not set: NL_SQL_JUDGE_BASE_URL, NL_SQL_JUDGE_MODEL" in capsys.readouterr().err


def test_a_bad_turns_line_is_exit_2_naming_file_line_and_turn(work, monkeypatch, capsys):
    lines = (work / "turns.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace('"status": "blocked"', '"status": "stopped"')
    (work / "turns.jsonl").write_text("\n".join(lines) + "\n")
    code, judge = judged(work, monkeypatch, SCRIPT, "--turns", "turns.jsonl")
    assert code == 2 and not judge.asked
    err = capsys.readouterr().err
    assert "turns.jsonl:3: turn 'ex-delete-request': trajectory[0].status must be one of ok, error, blocked" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "--turns FILE (captured turns) or --rejudge REPORT"),
        (["--turns", "turns.jsonl", "--rejudge", "r.json"], "not both"),
        (["--turns", "turns.jsonl", "--fail-on-regression"], "needs something to regress against"),
        (["--turns", "turns.jsonl", "--corpus", "x.yaml"], "--corpus belongs to the SQL suite (--suite sql)"),
        (["--turns", "turns.jsonl", "--json", "../out.json"], "refusing to write"),
    ],
)
def test_usage_errors_are_exit_2(work, monkeypatch, capsys, args, message):
    code, judge = judged(work, monkeypatch, SCRIPT, *args)
    assert code == 2 and not judge.asked and message in capsys.readouterr().err


@pytest.mark.parametrize(
    "flag", [["--turns", "t.jsonl"], ["--labels", "l.jsonl"], ["--judge"], ["--export-turns", "x"]]
)
def test_turns_flags_do_not_apply_to_the_trajectory_suite(work, capsys, flag):
    assert main(flag) == 2
    assert "belongs to" in capsys.readouterr().err
