"""Issue 39 points 1-2: which questions a shard grades, what its report says and records, and every refusal of the
merge, each naming the file (``python -m eval.merge``).

The shards are real runs of the reference candidate on the built-in corpus, three at once, and one run with
another set-up; the cases a run cannot easily produce (a report edited, cut, copied, or another split) are those
reports changed on disk, as a CI artifact could be.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from eval.cli import merge
from eval.core.errors import UsageError
from eval.sql.corpus.questions import load_corpus
from eval.sql.model.shard import ids_digest
from eval.sql.shards.share import ShardSpec, parse_shard, share

BACKEND = Path(__file__).resolve().parents[4]
IDS = [f"q-{i:03d}" for i in range(23)]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7])
def test_the_shards_of_a_split_are_disjoint_and_cover_the_corpus(n: int) -> None:
    shares = [share(IDS, ShardSpec(k, n)) for k in range(1, n + 1)]
    assert sorted(i for s in shares for i in s) == sorted(IDS)  # every question once
    assert max(map(len, shares)) - min(map(len, shares)) <= 1
    assert shares == [share(list(reversed(IDS)), ShardSpec(k, n)) for k in range(1, n + 1)]  # not the run's order
    assert share(IDS, ShardSpec(2, n)) == frozenset(sorted(IDS)[1::n]) if n > 1 else True


def test_a_split_balanced_by_durations_evens_the_time_out() -> None:
    durations = {i: (30.0 if n in (0, 3, 6) else 1.0) for n, i in enumerate(IDS)}  # all three in round-robin's shard 1
    balanced = [share(IDS, ShardSpec(k, 3, durations)) for k in range(1, 4)]
    plain = [share(IDS, ShardSpec(k, 3)) for k in range(1, 4)]
    assert sorted(i for s in balanced for i in s) == sorted(IDS)
    time = [sum(durations[i] for i in s) for s in balanced]
    assert max(time) - min(time) <= 1.0  # one slow question per shard
    assert max(sum(durations[i] for i in s) for s in plain) > max(time)
    assert (
        ShardSpec(1, 3, durations).assignment.startswith("durations ") and ShardSpec(1, 3).assignment == "round-robin"
    )


@pytest.mark.parametrize("text", ["0/3", "4/3", "2", "a/b", "1/0"])
def test_a_shard_is_k_of_n(text: str) -> None:
    with pytest.raises(UsageError, match="--shard"):
        parse_shard(text)


def _run(args: list[str], out: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "EVAL_OUTPUT_DIR": str(out), "EVAL_CALLER_DIR": str(out)}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.Popen(
        [sys.executable, "-m", "eval.run", "--suite", "sql", "--candidate", "reference", *args],
        cwd=BACKEND,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``shard-K.json``: shard K of 3 of the reference candidate; ``other-2.json``: shard 2 run with 2 rotations."""
    out = tmp_path_factory.mktemp("shards")
    procs = [_run(["--shard", f"{k}/3", "--json", str(out / f"shard-{k}.json")], out) for k in (1, 2, 3)]
    procs.append(_run(["--shard", "2/3", "--rotations", "2", "--json", str(out / "other-2.json")], out))
    for proc in procs:
        _, stderr = proc.communicate(timeout=900)
        assert proc.returncode == 0, stderr[-3000:]
    return out


def _edited(shards: Path, name: str, new: str, change: Any) -> Path:
    data = json.loads((shards / name).read_text(encoding="utf-8"))
    change(data)
    path = shards / new
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _merge(
    args: list[Any], shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    monkeypatch.setenv("EVAL_OUTPUT_DIR", str(shards))
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    code = merge.main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.err + captured.out


def test_a_shard_says_so_and_records_nothing(shards: Path) -> None:
    report = json.loads((shards / "shard-2.json").read_text(encoding="utf-8"))
    ids = [q["id"] for q in report["questions"]]
    corpus = load_corpus()
    assert ids == [q.id for q in corpus.questions if q.id in set(sorted(q.id for q in corpus.questions)[1::3])]
    stamp = report["shard"]
    assert (stamp["index"], stamp["count"], stamp["questions"]) == (2, 3, len(ids))
    assert stamp["ids"] == ids_digest(ids) and stamp["assignment"] == "round-robin"
    assert stamp["setup"]["engine_version"] and stamp["setup"]["harness"]
    assert report["corpus"]["size"] == corpus.size  # the whole corpus's stamps and cohort, not the share's
    assert report["gate"]["status"] == "not_evaluated" and "python -m eval.merge" in report["gate"]["detail"]
    assert report["baseline"] is None
    for flag in (["--record-baseline"], ["--record-accuracy"], ["--fail-on-regression"]):
        proc = _run(["--shard", "1/3", *flag], shards)
        _, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 2 and "a shard is one share of a run" in stderr and flag[0] in stderr


def test_merge_refuses_a_missing_shard(shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    code, said = _merge([shards / "shard-1.json", shards / "shard-3.json"], shards, monkeypatch, capsys)
    assert code == 2 and "shard(s) 2/3 missing" in said and "shard-1.json" in said


def test_merge_refuses_a_duplicate(shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    files = [shards / "shard-1.json", shards / "shard-2.json", shards / "shard-2.json", shards / "shard-3.json"]
    code, said = _merge(files, shards, monkeypatch, capsys)
    assert code == 2 and "duplicate" in said and "shard-2.json" in said


def test_merge_refuses_overlapping_shards(shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    twice = _edited(shards, "shard-1.json", "one-as-two.json", lambda d: d["shard"].update(index=2))
    code, said = _merge([shards / "shard-1.json", twice, shards / "shard-3.json"], shards, monkeypatch, capsys)
    assert code == 2 and "overlap" in said and "one-as-two.json" in said and "shard-1.json" in said


def _cut(data: dict[str, Any], *, restamp: bool) -> None:
    data["questions"] = data["questions"][1:]
    if restamp:
        ids = [q["id"] for q in data["questions"]]
        data["shard"].update(questions=len(ids), ids=ids_digest(ids))


def test_merge_refuses_an_incomplete_id_set(shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    short = _edited(shards, "shard-2.json", "short-2.json", lambda d: _cut(d, restamp=True))
    code, said = _merge([shards / "shard-1.json", short, shards / "shard-3.json"], shards, monkeypatch, capsys)
    assert code == 2 and "incomplete: 1 question(s) of the corpus are in no shard" in said


def test_merge_refuses_a_shard_whose_questions_are_not_its_stamps(
    shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    cut = _edited(shards, "shard-2.json", "cut-2.json", lambda d: _cut(d, restamp=False))
    code, said = _merge([shards / "shard-1.json", cut, shards / "shard-3.json"], shards, monkeypatch, capsys)
    assert code == 2 and "cut-2.json" in said and "not the ones its shard stamp names" in said


def test_merge_refuses_a_report_that_is_not_a_shard(shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    plain = _edited(shards, "shard-2.json", "plain.json", lambda d: d.pop("shard"))
    code, said = _merge([shards / "shard-1.json", plain], shards, monkeypatch, capsys)
    assert code == 2 and "plain.json is not a shard's report" in said
    partial = _edited(shards, "shard-2.json", "partial-2.json", lambda d: d.update(partial=True))
    code, said = _merge([shards / "shard-1.json", partial, shards / "shard-3.json"], shards, monkeypatch, capsys)
    assert code == 2 and "partial-2.json" in said and "interrupted" in said


def test_merge_refuses_shards_of_another_split(shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    halves = _edited(shards, "shard-1.json", "half.json", lambda d: d["shard"].update(count=2))
    code, said = _merge([halves, shards / "shard-2.json", shards / "shard-3.json"], shards, monkeypatch, capsys)
    assert code == 2 and "different splits" in said and "half.json" in said


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda d: d["shard"]["setup"].update(harness="0" * 16), "setup.harness"),
        (lambda d: d["shard"]["setup"].update(engine_version="9.9.9"), "setup.engine_version"),
        (lambda d: d["shard"]["setup"].update(statement_timeout_s=1.0), "setup.statement_timeout_s"),
        (lambda d: d["candidate"].update(model="another"), "model"),
        (lambda d: d["cohort"]["keys"].update(engine="duckdb"), "cohort.engine"),
        (lambda d: d["shard"].update(assignment="durations 0123456789abcdef"), "assignment"),
    ],
)
def test_merge_refuses_a_shard_run_otherwise(
    change: Any, named: str, shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    other = _edited(shards, "shard-3.json", "other-3.json", change)
    code, said = _merge([shards / "shard-1.json", shards / "shard-2.json", other], shards, monkeypatch, capsys)
    assert code == 2 and "other-3.json" in said and f"{named}:" in said and "was not run like" in said


def test_merge_refuses_a_shard_of_another_cohort(shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """A real run with another set-up (two rotations), not an edited file."""
    files = [shards / "shard-1.json", shards / "other-2.json", shards / "shard-3.json"]
    code, said = _merge(files, shards, monkeypatch, capsys)
    assert code == 2 and "other-2.json" in said and "cohort.rotations: 3 vs 2" in said


def test_merge_refuses_another_corpus(shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    one_file = load_corpus().files[0].path
    files = [shards / f"shard-{k}.json" for k in (1, 2, 3)]
    code, said = _merge([*files, "--corpus", BACKEND / one_file], shards, monkeypatch, capsys)
    assert code == 2 and "is not the one" in said and "shard-1.json" in said


def test_a_retried_shard_replaces_its_earlier_attempt(
    shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    first = json.loads((shards / "shard-2.json").read_text(encoding="utf-8"))
    passed = next(q for q in first["questions"] if q["verdict"] == "pass")

    def retried(d: dict[str, Any]) -> None:
        d["generated_at"] = "2999-01-01T00:00:00Z"
        for q in d["questions"]:
            if q["id"] == passed["id"]:
                q.update(verdict="wrong", reason="value", detail="the retry's answer")

    retry = _edited(shards, "shard-2.json", "retry-2.json", retried)
    out = shards / "retried.json"
    files = [shards / "shard-1.json", shards / "shard-2.json", retry, shards / "shard-3.json"]
    code, said = _merge([*files, "--json", out], shards, monkeypatch, capsys)
    assert code == 0, said
    assert "is replaced by the newer attempt retry-2.json" in said.replace(str(shards) + "/", "")
    merged = json.loads(out.read_text(encoding="utf-8"))
    assert len(merged["questions"]) == load_corpus().size  # replaced, not added
    assert next(q for q in merged["questions"] if q["id"] == passed["id"])["verdict"] == "wrong"
    whole = sum(json.loads((shards / f"shard-{k}.json").read_text())["summary"]["pass"] for k in (1, 2, 3))
    assert merged["summary"]["pass"] == whole - 1


def test_an_incomplete_merge_says_so_everywhere(shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    outs = {kind: shards / f"incomplete.{kind}" for kind in ("json", "md", "xml", "html")}
    files = [shards / "shard-1.json", shards / "shard-3.json"]
    flags = ["--json", outs["json"], "--markdown", outs["md"], "--junit", outs["xml"], "--html", outs["html"]]
    code, said = _merge([*files, "--allow-incomplete", *flags], shards, monkeypatch, capsys)
    assert code == 0, said
    merged = json.loads(outs["json"].read_text(encoding="utf-8"))
    missing = json.loads((shards / "shard-2.json").read_text(encoding="utf-8"))["shard"]["questions"]
    assert merged["incomplete_merge"] == {"count": 3, "merged": [1, 3], "missing": [2], "unmeasured": missing}
    unmeasured = [q for q in merged["questions"] if q["reason"] == "shard"]
    assert len(unmeasured) == missing and all(q["verdict"] == "unmeasured" for q in unmeasured)
    for kind in ("md", "xml", "html"):
        assert "INCOMPLETE MERGE (--allow-incomplete): 2 of 3 shards merged (missing: 2/3)" in outs[kind].read_text()
    code, said = _merge([*files, "--allow-incomplete", "--record-accuracy", "rec.md"], shards, monkeypatch, capsys)
    assert code == 2 and "is not one to record" in said


def test_the_merge_command_runs_as_a_module(shards: Path) -> None:
    """``python -m eval.merge``, a fresh process: refusing exits 2 naming the file."""
    env = {**os.environ, "EVAL_OUTPUT_DIR": str(shards)}
    proc = subprocess.run(
        [sys.executable, "-m", "eval.merge", str(shards / "shard-1.json")],
        cwd=BACKEND,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2 and "shard(s) 2/3, 3/3 missing" in proc.stderr and "shard-1.json" in proc.stderr


def test_shards_named_after_corpus_files_are_said_to_be_taken_by_it(
    shards: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """``--corpus`` takes every file after it: shards named there are its files, and the refusal says so, with the
    order that works; with no such file the message is argparse's own."""
    files = [str(shards / f"shard-{k}.json") for k in (1, 2, 3)]
    code, said = _merge(["--corpus", "my.yaml", *files], shards, monkeypatch, capsys)
    assert code == 2
    assert "--corpus took" in said and "shard-3.json" in said and "name the shards before --corpus" in said
    code, said = _merge(["--corpus", "my.yaml"], shards, monkeypatch, capsys)
    assert code == 2 and "the following arguments are required: SHARD.json" in said and "--corpus took" not in said
