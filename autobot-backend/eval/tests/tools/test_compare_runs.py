"""``python -m eval.compare``: flips, transitions, intervals and the exact McNemar test on two reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.cli.compare import main
from eval.core.stats import mcnemar_exact


def report(path: Path, verdicts: dict[str, str], digest: str = "d" * 64, model: str = "m") -> Path:
    questions = [
        {
            "id": qid,
            "verdict": v,
            "stratum": "refuse_x" if qid.startswith("r") else "scalar",
            "expect": "refuse" if qid.startswith("r") else "answer",
            "reason": None,
        }
        for qid, v in verdicts.items()
    ]
    path.write_text(
        json.dumps(
            {
                "suite": "sql",
                "candidate": {"path": "recorded", "model": model},
                "corpus": {"digest": digest},
                "questions": questions,
            }
        )
    )
    return path


@pytest.fixture
def two(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    # 40 answerable questions: 20 pass in both; A alone passes 2, B alone passes 9; 9 fail in both
    a, b = {}, {}
    for i in range(40):
        qid = f"q{i:02d}"
        if i < 20:
            a[qid] = b[qid] = "pass"
        elif i < 22:
            a[qid], b[qid] = "pass", "wrong"
        elif i < 31:
            a[qid], b[qid] = "refused", "pass"
        else:
            a[qid] = b[qid] = "wrong"
    a["r1"], b["r1"] = "refused", "answered"
    return report(tmp_path / "a.json", a, model="model-a"), report(tmp_path / "b.json", b, model="model-b")


def test_flips_transitions_and_the_exact_mcnemar_p_value(two, capsys):
    a, b = two
    assert main([str(a), str(b), "--json", "cmp.json", "--markdown", "cmp.md"]) == 0
    out = json.loads(Path("cmp.json").read_text())
    assert out["mcnemar_p"] == round(mcnemar_exact(2, 9), 6) == 0.06543
    assert out["paired"] == {"questions": 40, "a_pass_b_not": 2, "b_pass_a_not": 9}
    assert {f["id"] for f in out["flips"]} == {"q20", "q21", *(f"q{i}" for i in range(22, 31)), "r1"}
    assert out["transitions"] == {
        "pass->pass": 20,
        "pass->wrong": 2,
        "refused->pass": 9,
        "wrong->wrong": 9,
        "declined->answered": 1,
    }
    assert out["transitions_per_stratum"]["refuse_x"] == {"declined->answered": 1}
    assert (out["a"]["pass"], out["a"]["measured"], out["b"]["pass"]) == (22, 40, 29)
    assert out["difference"]["value"] == round(7 / 40, 4)
    low, high = out["difference"]["ci"]
    assert low < 7 / 40 < high
    assert out["difference"]["seed"] == 20261201 and out["reading"] in (
        "B is better",
        "not distinguishable from noise on this corpus",
    )
    assert (out["reading"] == "B is better") == (low > 0)
    text = capsys.readouterr().out
    assert "## Flips (12)" in text and "model-a" in text and "model-b" in text


def test_identical_runs_are_not_distinguishable_from_noise(two):
    a, _ = two
    assert main([str(a), str(a), "--json", "same.json"]) == 0
    out = json.loads(Path("same.json").read_text())
    assert out["flips"] == [] and out["mcnemar_p"] == 1.0
    assert out["reading"] == "not distinguishable from noise on this corpus"


def test_different_corpora_are_exit_2_unless_common_only(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    a = report(tmp_path / "a.json", {"q1": "pass", "q2": "wrong", "q3": "pass"}, digest="a" * 64)
    b = report(tmp_path / "b.json", {"q1": "pass", "q2": "pass", "q4": "pass"}, digest="b" * 64)
    assert main([str(a), str(b)]) == 2
    assert "--common-only" in capsys.readouterr().err
    assert main([str(a), str(b), "--common-only", "--json", "c.json"]) == 0
    out = json.loads(Path("c.json").read_text())
    assert out["corpus"]["compared"] == 2 and [f["id"] for f in out["flips"]] == ["q2"]
    assert any("1 question(s) only in A and 1 only in B" in n for n in out["notes"])


@pytest.mark.parametrize(
    "content, message",
    [
        ("not json", "not a readable JSON report"),
        ('{"suite": "trajectory"}', "not a SQL suite report"),
    ],
)
def test_a_report_that_does_not_read_is_exit_2_naming_the_file(tmp_path, monkeypatch, capsys, content, message):
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    ok = report(tmp_path / "ok.json", {"q1": "pass"})
    assert main([str(bad), str(ok)]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and message in err
