"""``python -m eval.compare A.json B.json C.json``: the model matrix over three or more runs.

Real runs: the small corpus of built-in questions on the real fixtures, graded through the real service
from recorded answers, each answers file naming another model (the model is not a cohort key, so the runs
are one cohort): a perfect model, one with every kind of failure and a missed refusal, one wrong on every
answerable question. Hand-written reports (as ``test_run_compare`` writes them) where a case needs
counts or text no real run gives: hostile question ids, a correction that changes a reading.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from eval.cli.compare import main
from eval.core.stats import holm, mcnemar_exact
from eval.run import main as run_main
from eval.tests import small_run as sr
from eval.tests.tools.test_compare_runs import report

HOSTILE_MODEL = 'bad <script>document.title="pwned"</script> | *m*'


def _run(answers: str, *extra: str) -> None:
    args = ["--suite", "sql", "--corpus", "mine.yaml", "--candidate", "recorded", "--answers", answers]
    assert run_main([*args, "--json", Path(answers).stem + ".json", *extra]) == 0


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """good.json (model "perfect"), bad.json (:data:`HOSTILE_MODEL`), wrong.json ("all-wrong"), builtin.json
    (the built-in generator's answers, recorded as a model); other cohorts: any.json (the perfect answers
    under ``--column-order any``) and embedded.json (the built-in generator's own run)."""
    work = tmp_path_factory.mktemp("matrix")
    cwd = os.getcwd()
    os.chdir(work)
    try:
        sr.write_corpus(work / "mine.yaml")
        sr.write_answers(work / "good.jsonl", perfect=True, model="perfect")
        sr.write_answers(work / "bad.jsonl", model=HOSTILE_MODEL)
        wrong = sr.perfect_answers()
        for q in sr.PICKED:
            if q.expect == "answer":
                wrong[q.id] = {"id": q.id, "sql": "SELECT 424242"}
        lines = [*wrong.values()]
        lines[0] = {**lines[0], "model": "all-wrong"}
        (work / "wrong.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
        for name in ("good", "bad", "wrong"):
            _run(f"{name}.jsonl")
        (work / "any.jsonl").write_text((work / "good.jsonl").read_text())
        _run("any.jsonl", "--column-order", "any")
        assert run_main(["--suite", "sql", "--corpus", "mine.yaml", "--json", "embedded.json"]) == 0
        replay = [
            {"id": q["id"], "sql": q["sql"]} if q["sql"] else {"id": q["id"], "refused": True, "reason": q["detail"]}
            for q in json.loads((work / "embedded.json").read_text())["questions"]
        ]
        replay[0]["model"] = "embedded-v5, recorded"
        (work / "builtin.jsonl").write_text("".join(json.dumps(x) + "\n" for x in replay))
        _run("builtin.jsonl")
    finally:
        os.chdir(cwd)
    return work


@pytest.fixture
def work(runs, monkeypatch):
    monkeypatch.chdir(runs)
    for var in ("EVAL_OUTPUT_DIR", "EVAL_CALLER_DIR"):
        monkeypatch.delenv(var, raising=False)
    return runs


def _matrix(*argv: str) -> dict:
    assert main([*argv, "--json", "m.json"]) == 0
    return json.loads(Path("m.json").read_text())


def test_three_real_runs_give_each_models_rate_and_the_holm_corrected_pairs(work, capsys):
    out = _matrix("good.json", "bad.json", "wrong.json")
    assert out["kind"] == "matrix" and [r["label"] for r in out["runs"]] == ["A", "B", "C"]
    for run, name in zip(out["runs"], ("good", "bad", "wrong")):
        summary = json.loads((work / f"{name}.json").read_text())["summary"]
        assert (run["pass"], run["measured"], run["pass_rate"], run["ci"]) == (
            summary["pass"],
            summary["measured"],
            summary["pass_rate"],
            summary["pass_rate_ci"],
        ), "each model's rate and Wilson interval are its own report's"
        assert (run["refusal"]["recall"], run["refusal"]["ci"]) == (
            summary["refusal_recall"],
            summary["refusal_recall_ci"],
        )
    assert [r["candidate"]["model"] for r in out["runs"]] == ["perfect", HOSTILE_MODEL, "all-wrong"]
    pairs = {(p["x"], p["y"]): p for p in out["pairs"]}
    assert [(p["x_pass_y_not"], p["y_pass_x_not"], p["questions"]) for p in pairs.values()] == [
        (4, 0, 8),
        (8, 0, 8),
        (4, 0, 8),
    ]
    raw = [mcnemar_exact(p["x_pass_y_not"], p["y_pass_x_not"]) for p in pairs.values()]
    assert [p["mcnemar_p"] for p in pairs.values()] == [round(p, 6) for p in raw] == [0.125, 0.007812, 0.125]
    assert [p["holm_p"] for p in pairs.values()] == [round(p, 6) for p in holm(raw)] == [0.25, 0.023438, 0.25]
    assert pairs["A", "C"]["reading"] == "C is worse than A" and pairs["A", "C"]["difference"] == -1.0
    assert pairs["A", "B"]["reading"] == pairs["B", "C"]["reading"] == "not distinguishable from noise on this corpus"
    assert out["correction"]["method"] == "Holm-Bonferroni" and out["correction"]["family"] == 3
    assert out["cohort"]["same"] is True and out["notes"] == []
    text = capsys.readouterr().out
    assert "| A vs C | -100.0 points | 8 | 0 | 0.007812 | 0.02344 | C is worse than A |" in text


def test_four_models_six_pairs_and_the_built_in_generators_answers_as_one_of_them(work):
    """Six pairs: A vs C's p = 2/256 is multiplied by 6, 0.046875, still (just) below 0.05."""
    out = _matrix("good.json", "bad.json", "wrong.json", "builtin.json")
    own = {q["id"]: q["verdict"] for q in json.loads((work / "embedded.json").read_text())["questions"]}
    replayed = {q["id"]: q["cells"][3]["verdict"] for q in out["questions"]}
    assert replayed == own and set(own.values()) == {"pass", "wrong", "refused"}, "a replay gives the run's verdicts"
    pairs = {(p["x"], p["y"]): p for p in out["pairs"]}
    assert out["correction"]["family"] == len(pairs) == 6
    raw = [mcnemar_exact(p["x_pass_y_not"], p["y_pass_x_not"]) for p in pairs.values()]
    assert [p["holm_p"] for p in pairs.values()] == [round(p, 6) for p in holm(raw)]
    assert pairs["A", "C"]["holm_p"] == 0.046875 and pairs["A", "C"]["reading"] == "C is worse than A"
    assert [p["reading"] for k, p in pairs.items() if k != ("A", "C")] == [
        "not distinguishable from noise on this corpus"
    ] * 5


def test_the_built_in_generators_own_run_is_another_cohort(work, capsys):
    assert main(["good.json", "bad.json", "embedded.json"]) == 2
    err = capsys.readouterr().err
    assert "embedded.json (A vs C: candidate: recorded vs embedded; generator: recorded vs embedded-v5" in err


def test_safety_flips_and_regressions_come_first(work, capsys):
    out = _matrix("good.json", "bad.json", "wrong.json")
    assert out["safety_flips"] == [sr.ANSWERED]
    regressed = {q.id for q in sr.PICKED if q.expect == "answer"}  # C fails every one A passes
    assert set(out["regressions"]) == regressed
    flags = [q["flag"] for q in out["questions"]]
    assert flags == ["safety_flip"] + ["regression"] * len(regressed) + [None] * (len(flags) - 1 - len(regressed))
    first = out["questions"][0]
    assert first["flipped"] == ["B"] and [c["verdict"] for c in first["cells"]] == ["refused", "answered", "refused"]
    by_id = {q["id"]: q for q in out["questions"]}
    for name, label in (("good", "A"), ("bad", "B"), ("wrong", "C")):
        verdicts = {q["id"]: q["verdict"] for q in json.loads((work / f"{name}.json").read_text())["questions"]}
        assert {i: next(c["verdict"] for c in q["cells"] if c["run"] == label) for i, q in by_id.items()} == verdicts
    assert by_id[sr.WRONG]["flipped"] == ["B", "C"] and by_id[sr.RIGHT]["flipped"] == ["C"]
    text = capsys.readouterr().out
    order = ["## Safety flips", "## Regressions", "## Each model", "## Pairwise differences", "## Every question"]
    assert [text.index(h) for h in order] == sorted(text.index(h) for h in order)


def test_the_order_of_the_reports_sets_the_reference(work):
    """With the all-wrong run first, nothing regresses against it: the perfect run's gains are disagreements."""
    out = _matrix("wrong.json", "good.json", "bad.json")
    assert out["regressions"] == [] and out["safety_flips"] == [sr.ANSWERED]
    assert {(p["x"], p["y"]): p["reading"] for p in out["pairs"]}["A", "B"] == "B is better than A"


def test_a_model_name_is_escaped_in_the_markdown_and_the_page(work, capsys):
    assert main(["good.json", "bad.json", "wrong.json", "--markdown", "m.md", "--html", "m.html"]) == 0
    text = Path("m.md").read_text()
    assert capsys.readouterr().out.strip() == text.strip()
    assert 'bad \\<script\\>document.title="pwned"\\</script\\> \\| \\*m\\*' in text and "<script>" not in text
    page = Path("m.html").read_text()
    assert "bad &lt;script&gt;document.title=&#34;pwned&#34;&lt;/script&gt; | *m*" in page
    assert "<script>document" not in page
    assert page.count('<tr data-question="') == 11 + 1 + 8  # the matrix, the safety flip, the regressions


def test_runs_of_different_cohorts_are_exit_2_naming_the_file_and_key(work, capsys):
    assert main(["good.json", "bad.json", "any.json", "--json", "refused.json"]) == 2
    err = capsys.readouterr().err
    assert "different cohorts" in err and "any.json (A vs C: column_order: positional vs any)" in err
    assert "bad.json" not in err and "--allow-off-suite" in err
    assert not Path("refused.json").exists()
    out = _matrix("good.json", "bad.json", "any.json", "--allow-off-suite")
    assert out["cohort"]["same"] is False and out["cohort"]["keys"] == ["column_order"]
    assert out["cohort"]["differences"] == {"B": [], "C": ["column_order: positional vs any"]}
    assert out["notes"][0].startswith("DIFFERENT COHORTS") and "column_order: positional vs any" in out["notes"][0]
    assert "DIFFERENT COHORTS" in capsys.readouterr().out


def test_a_third_report_that_does_not_read_is_exit_2_naming_it(work, capsys):
    Path("broken.json").write_text('{"suite": "trajectory"}')
    assert main(["good.json", "bad.json", "broken.json"]) == 2
    err = capsys.readouterr().err
    assert "broken.json" in err and "not a SQL suite report" in err
    assert main(["good.json"] * 27) == 2
    assert "at most 26 reports" in capsys.readouterr().err
    assert main(["good.json"]) == 2
    assert capsys.readouterr().err.rstrip().endswith("the following arguments are required: new")  # not C


# --- hand-written reports: counts and text a real run does not give ----------------------------------------


@pytest.fixture
def written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_CALLER_DIR", raising=False)
    return tmp_path


def test_the_correction_changes_a_reading_that_one_test_alone_would_make(written):
    """A vs B: 6 discordant pairs all one way, exact McNemar p = 2/64 = 0.03125, below 0.05 alone; four runs
    are six pairs, and Holm multiplies the smallest by 6: 0.1875, not distinguishable."""
    base = {f"q{i:02d}": "pass" for i in range(10)}
    worse = {**base, **{f"q{i:02d}": "wrong" for i in range(6)}}
    paths = [report(written / f"{n}.json", v, model=n) for n, v in (("a", base), ("b", worse), ("c", base))]
    paths.append(report(written / "d.json", base, model="d"))
    out = _matrix(*map(str, paths))
    ab = out["pairs"][0]
    assert (ab["x"], ab["y"], ab["x_pass_y_not"], ab["y_pass_x_not"]) == ("A", "B", 6, 0)
    assert ab["mcnemar_p"] == 0.03125 < 0.05 and ab["holm_p"] == 0.1875
    assert ab["reading"] == "not distinguishable from noise on this corpus"
    assert out["correction"]["family"] == 6 and len(out["pairs"]) == 6


def test_hostile_question_ids_are_escaped(written):
    hostile = {"q|<img src=x onerror=alert(1)>": "pass", "q2": "pass", "r*<b>": "refused"}
    paths = [
        report(written / "a.json", hostile, model="a"),
        report(written / "b.json", {**hostile, "q|<img src=x onerror=alert(1)>": "wrong"}, model="b"),
        report(written / "c.json", {**hostile, "r*<b>": "answered"}, model="c"),
    ]
    assert main([*map(str, paths), "--markdown", "m.md", "--html", "m.html"]) == 0
    text = Path("m.md").read_text()
    assert "q\\|\\<img src=x onerror=alert(1)\\>" in text and "r\\*\\<b\\>" in text
    assert re.search(r"(?<!\\)<img", text) is None, "every < of an id escaped"
    page = Path("m.html").read_text()
    assert "<img" not in page and "q|&lt;img src=x onerror=alert(1)&gt;" in page and "r*&lt;b&gt;" in page


def test_different_corpora_are_exit_2_unless_common_only(written, capsys):
    a = report(written / "a.json", {"q1": "pass", "q2": "wrong", "q3": "pass"}, digest="a" * 64)
    b = report(written / "b.json", {"q1": "pass", "q2": "pass", "q3": "pass"}, digest="a" * 64)
    c = report(written / "c.json", {"q1": "wrong", "q2": "pass", "q4": "pass"}, digest="c" * 64)
    assert main([str(a), str(b), str(c)]) == 2
    assert "different corpora" in (err := capsys.readouterr().err) and "--common-only" in err
    assert "c.json cccccccccccccccc" in err  # named as the user gave it, relative to where they stand
    out = _matrix(str(a), str(b), str(c), "--common-only")
    assert out["corpus"]["compared"] == 2 and [q["id"] for q in out["questions"]] == ["q1", "q2"]
    assert any("2 question(s) not in every report left out" in n for n in out["notes"])  # q3, q4
    d = report(written / "d.json", {"q1": "pass", "q2": "pass"}, digest="a" * 64)
    assert main([str(a), str(b), str(d)]) == 2
    assert "share the corpus digest but not the same question ids" in capsys.readouterr().err
