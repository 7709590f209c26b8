"""``--evaluator judge``: the trajectory suite's quality score from the model judge, under the existing rules
(a score compared with the baseline under epsilon; no score is unmeasured, never a regression)."""

from __future__ import annotations

import json

from eval.run import main
from tests.http_fakes import FakeHTTPServer

from ..conftest import recording_json
from ..judge_fakes import ScriptedJudge, evidence, point_judge_at, verdict


def run(golden_dir, recorded_dir, *args):
    return main(["--golden-dir", str(golden_dir), "--recorded-dir", str(recorded_dir), "--evaluator", "judge", *args])


def test_the_judge_scores_each_answer_as_composite_over_100(golden_dir, recorded_dir, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    judge = ScriptedJudge(
        {
            "prompt for a-1": verdict(8, 8, 8, 8),  # 80 -> 0.80: baseline 0.8, unchanged
            "prompt for b-2": verdict(5, 5, 5, 5, "partial"),  # 50 -> 0.50: a drop of 0.30, a regression
            "prompt for c-3": verdict(10, 10, 10, 9),  # 98 -> 0.98: an improvement
        }
    )
    with FakeHTTPServer(handler=judge) as server:
        point_judge_at(monkeypatch, server, "judge-7b")
        assert run(golden_dir, recorded_dir, "--json", "t.json") == 0
        assert run(golden_dir, recorded_dir, "--fail-on-regression") == 1
        shown = evidence(server.requests[0])
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["evaluator"]["name"] == "judge:judge-7b:turns-rubric-v1"
    assert "model judge judge-7b" in data["evaluator"]["label"]
    assert {t["trajectory_id"]: (t["score"], t["classification"]) for t in data["trajectories"]} == {
        "a-1": (0.8, "unchanged"),
        "b-2": (0.5, "regression"),
        "c-3": (0.98, "improvement"),
    }
    assert any("baseline scores were not recorded by this judge" in w for w in data["warnings"])
    # the judge saw the agent's prompt, its tools and its answer
    assert shown["question"] == "prompt for a-1" and shown["tools"] == ["search", "answer"]
    assert shown["answer"] == "the answer is forty two" and shown["trajectory"] == []


def test_an_invalid_judge_reply_is_unmeasured_never_a_regression(golden_dir, recorded_dir, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    judge = ScriptedJudge({"prompt for b-2": json.dumps({"intent": 99})})
    with FakeHTTPServer(handler=judge) as server:
        point_judge_at(monkeypatch, server)
        assert run(golden_dir, recorded_dir, "--json", "t.json") == 0
        assert run(golden_dir, recorded_dir, "--fail-on-regression") == 2  # the gate cannot vouch for b-2
    assert judge.asked["prompt for b-2"] == 4  # two runs, each: one reply and one retry
    b2 = next(t for t in json.loads((tmp_path / "t.json").read_text())["trajectories"] if t["trajectory_id"] == "b-2")
    assert b2["classification"] == "unmeasured" and b2["score"] is None
    assert any("the judge's reply was invalid twice" in r for r in b2["reasons"])


def test_an_empty_answer_is_not_sent_to_the_judge(golden_dir, recorded_dir, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (recorded_dir / "c-3.json").write_text(json.dumps(recording_json(text="")))
    judge = ScriptedJudge()
    with FakeHTTPServer(handler=judge) as server:
        point_judge_at(monkeypatch, server)
        assert run(golden_dir, recorded_dir, "--json", "t.json") == 0
    assert "prompt for c-3" not in judge.asked and sum(judge.asked.values()) == 2
    c3 = next(t for t in json.loads((tmp_path / "t.json").read_text())["trajectories"] if t["trajectory_id"] == "c-3")
    assert c3["classification"] == "unmeasured"


def test_without_a_configured_judge_the_run_is_exit_2_before_replaying(golden_dir, recorded_dir, monkeypatch, capsys):
    for var in ("NL_SQL_JUDGE_BASE_URL", "NL_SQL_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    assert run(golden_dir, recorded_dir) == 2
    assert "the judge is not configured" in capsys.readouterr().err
