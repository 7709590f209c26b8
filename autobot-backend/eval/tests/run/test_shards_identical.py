"""Issue 39 point 3: a run split into N shards, each a separate process run at the same time as the others, and
merged (``python -m eval.merge``) is the unsharded run: the same JSON report apart from the named timing fields,
and the same gate decision (exit code and gate), for the reference, built-in and recorded candidates on SQLite and
DuckDB, N in {2, 3, 4}.

The recorded candidate's answers are made here from the built-in corpus so that every kind of outcome is in the
run: passes, wrong answers, refusals, questions with no recorded answer (unmeasured), missed and correct refusals,
and an answer for an id the corpus does not have (the run's warning). Its baseline is recorded first from an
earlier, better answers file of the same system, so its gate fails on regressions: the merged run must fail it
alike (exit 1), not merely both runs lack a gate.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from eval.sql.corpus.questions import load_corpus

pytestmark = pytest.mark.slow

BACKEND = Path(__file__).resolve().parents[3]
TIMING_KEYS = {"generated_at", "candidate_ms", "reference_ms", "model_ms", "efficiency", "total", "p50", "p95"}
"""JSON keys that hold a time, or figures made of times (``total``, ``p50``, ``p95``: the model's latency)."""
MODEL = "shard-bot"


def timeless(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<timing>" if k in TIMING_KEYS else timeless(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def _answers(path: Path, *, earlier: bool) -> Path:
    """Recorded answers of one system for the built-in corpus: the earlier file answers as the references do; the
    later one is wrong, refuses, leaves out and misses refusals on some questions, and names an unknown id."""
    lines = []
    for i, q in enumerate(load_corpus().questions):
        if q.expect == "refuse":
            item: dict[str, Any] = {"refused": True} if earlier or i % 2 else {"sql": "SELECT 1 AS answer"}
        elif earlier or i % 6 == 0:
            item = {"sql": q.sql}
        elif i % 6 == 1:
            item = {"sql": "SELECT 1 AS x"}
        elif i % 6 == 2:
            item = {"refused": True, "reason": "not sure"}
        elif i % 6 == 3:
            continue  # no recorded answer: unmeasured
        else:
            item = {"sql": q.sql}
        lines.append(json.dumps({"id": q.id, "model": MODEL, **item}))
    if not earlier:
        lines.append(json.dumps({"id": "not-in-the-corpus", "model": MODEL, "sql": "SELECT 1"}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _start(args: list[str], out: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "EVAL_OUTPUT_DIR": str(out), "EVAL_CALLER_DIR": str(out)}
    for var in ("NL_SQL_LLM_BASE_URL", "NL_SQL_LLM_MODEL", "NL_SQL_LLM_API_KEY", "GITHUB_ACTIONS"):
        env.pop(var, None)
    return subprocess.Popen(
        [sys.executable, *args], cwd=BACKEND, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait(proc: subprocess.Popen[str]) -> tuple[int, str]:
    stdout, stderr = proc.communicate(timeout=900)
    return proc.returncode, stderr[-3000:] + stdout[-1500:]


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
@pytest.mark.parametrize("candidate", ["reference", "embedded", "recorded"])
def test_merged_shards_are_the_unsharded_run(candidate: str, engine: str, tmp_path: Path) -> None:
    run = ["-m", "eval.run", "--suite", "sql", "--candidate", candidate, "--engine", engine]
    gate = ["--fail-on-regression"]
    if candidate == "recorded":
        run += ["--answers", str(_answers(tmp_path / "answers.jsonl", earlier=False))]
        gate += ["--baseline-dir", str(tmp_path / "baselines")]
        earlier = [*run[:-1], str(_answers(tmp_path / "earlier.jsonl", earlier=True))]
        code, said = _wait(_start([*earlier, *gate[1:], "--record-baseline"], tmp_path))
        assert code == 0, said

    whole = _start([*run, *gate, "--json", str(tmp_path / "whole.json")], tmp_path)
    shards = {
        (k, n): _start([*run, "--shard", f"{k}/{n}", "--json", str(tmp_path / f"shard-{k}-of-{n}.json")], tmp_path)
        for n in (2, 3, 4)
        for k in range(1, n + 1)
    }  # every process at once: the shards of a CI matrix run side by side
    whole_code, said = _wait(whole)
    assert whole_code in (0, 1, 2), said
    for (k, n), proc in shards.items():
        code, said = _wait(proc)
        assert code == 0, f"shard {k}/{n}: {said}"
    expected = json.loads((tmp_path / "whole.json").read_text(encoding="utf-8"))
    assert "shard" not in expected and "incomplete_merge" not in expected
    if candidate == "recorded":
        assert whole_code == 1 and expected["gate"]["status"] == "failed"  # the gate is really decided
        assert any("not-in-the-corpus" in w for w in expected["warnings"])
    elif candidate == "embedded":
        assert expected["gate"]["status"] == "passed"  # against the committed baseline of the engine

    for n in (2, 3, 4):
        files = [str(tmp_path / f"shard-{k}-of-{n}.json") for k in range(n, 0, -1)]  # any order
        for f in files:
            stamp = json.loads(Path(f).read_text(encoding="utf-8"))["shard"]
            assert stamp["count"] == n and 0 < stamp["questions"] < expected["corpus"]["size"]
        merged_json = tmp_path / f"merged-{n}.json"
        code, said = _wait(_start(["-m", "eval.merge", *files, *gate, "--json", str(merged_json)], tmp_path))
        assert code == whole_code, f"N={n}: the merge exits {code}, the unsharded run {whole_code}: {said}"
        merged = json.loads(merged_json.read_text(encoding="utf-8"))
        assert list(merged) == list(expected)
        assert timeless(merged) == timeless(expected), f"N={n}: the merged report differs from the unsharded run"
        assert merged["gate"] == expected["gate"]
