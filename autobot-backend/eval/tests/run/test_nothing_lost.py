"""Nothing lost (issue 40 point 6): every verdict, reason, detail and diagnosis of the built-in run, of 1,000
generated questions and of both shared Spider prediction sets is the one the run gave before its work was cut.

Each question's outcome (verdict, reason, detail, diagnosis, excerpt, EM) and the run's findings (oracle defects,
suspect references, lints, warnings; file paths reduced to their names) are kept as digests in
``data/nothing_lost.json``, recorded from the run before issue 40 (``cae482a``): a question whose outcome changed is
named, with what it says now. A change made on purpose re-records the file (``EVAL_UPDATE_SNAPSHOTS=1``) in the
commit that makes it, and that commit says what changed and why.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks.bench_offline import generated_corpus
from eval.sql.spider_study._graded import grade_set
from eval.tests import needs_spider

BACKEND = Path(__file__).resolve().parents[3]
RECORD = Path(__file__).parents[1] / "data" / "nothing_lost.json"
UPDATE = os.environ.get("EVAL_UPDATE_SNAPSHOTS") == "1"
QUESTION_KEYS = ("verdict", "reason", "detail", "diagnosis", "excerpt", "exact")
RUN_KEYS = ("oracle_defects", "suspect_references", "lints", "warnings")
_PATH = re.compile(r"(?:/[^\s:'\"()]+)+/(?=[^/\s:'\"()]+)")


def digest(value: Any) -> str:
    text = _PATH.sub("", json.dumps(value, sort_keys=True))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def outcomes(report: dict[str, Any]) -> dict[str, Any]:
    """What must not change of one run's JSON report, as digests (paths reduced to their file names)."""
    return {
        "run": {key: digest(report.get(key)) for key in RUN_KEYS},
        "questions": {q["id"]: digest({k: q.get(k) for k in QUESTION_KEYS}) for q in report["questions"]},
    }


def _run(out: Path, *args: str) -> dict[str, Any]:
    report = out / "run.json"
    env = {**os.environ, "EVAL_OUTPUT_DIR": str(out)}
    for var in ("NL_SQL_LLM_BASE_URL", "NL_SQL_LLM_MODEL", "NL_SQL_LLM_API_KEY", "GITHUB_ACTIONS"):
        env.pop(var, None)
    done = subprocess.run(
        [sys.executable, "-m", "eval.run", "--suite", "sql", *args, "--json", str(report)],
        cwd=BACKEND,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stderr[-2000:]
    data: dict[str, Any] = json.loads(report.read_text())
    return data


def compare(name: str, report: dict[str, Any]) -> None:
    now = outcomes(report)
    recorded = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    if UPDATE:
        recorded[name] = now
        RECORD.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    assert name in recorded, f"{RECORD} has no {name!r}: record it with EVAL_UPDATE_SNAPSHOTS=1"
    before = recorded[name]
    assert now["run"] == before["run"], f"{name}: the run's findings changed: {report_keys(report, now, before)}"
    changed = sorted(q for q in before["questions"].keys() | now["questions"].keys()
                     if before["questions"].get(q) != now["questions"].get(q))  # fmt: skip
    by_id = {q["id"]: q for q in report["questions"]}
    shown = [f"{q}: {json.dumps({k: by_id.get(q, {}).get(k) for k in QUESTION_KEYS[:4]})[:400]}" for q in changed[:5]]
    assert not changed, f"{name}: {len(changed)} question(s) changed, e.g.\n" + "\n".join(shown)


def report_keys(report: dict[str, Any], now: dict[str, Any], before: dict[str, Any]) -> str:
    return ", ".join(f"{k}: {json.dumps(report.get(k))[:300]}" for k in RUN_KEYS if now["run"][k] != before["run"][k])


@pytest.mark.slow
def test_the_builtin_run_is_as_before(tmp_path: Path) -> None:
    compare("builtin", _run(tmp_path))


@pytest.mark.slow
def test_a_thousand_generated_questions_are_as_before(tmp_path: Path) -> None:
    corpus = generated_corpus(1000, tmp_path / "gen")
    compare("generated-1000", _run(tmp_path, "--corpus", *map(str, sorted(corpus.glob("*.yaml")))))


@pytest.mark.slow
@needs_spider.mark
@pytest.mark.parametrize("name", ["C3+GPT-3.5", "DAIL-SQL+GPT-4"])
def test_each_shared_spider_set_is_graded_as_before(name: str) -> None:
    assert needs_spider.SPIDER is not None
    compare(f"spider {name}", grade_set(needs_spider.SPIDER, name).report)


def test_a_changed_outcome_changes_its_digest_and_a_path_does_not() -> None:
    """The record could not miss a change: any word of a detail or a diagnosis is in the digest; where the run's
    temporary folder was is not."""
    q = {"id": "q", "verdict": "wrong", "reason": "value", "detail": "row 1 col 1: expected 1, got 2"}
    base = outcomes({"questions": [q], "lints": ["/tmp/a1/import/spider.yaml:3: near-duplicate"]})
    moved = outcomes({"questions": [q], "lints": ["/tmp/b2/import/spider.yaml:3: near-duplicate"]})
    assert base == moved
    other = outcomes({"questions": [{**q, "detail": "row 1 col 1: expected 1, got 3"}], "lints": []})
    assert other["questions"]["q"] != base["questions"]["q"]
