"""Reproducible bytes (issue 34 point 5): the same inputs graded in three fresh processes under three
``PYTHONHASHSEED`` values give byte-identical JSON, Markdown, JUnit and HTML reports, apart from the named
timing fields below (when the run was made, how long each statement took, and the efficiency figures made of
those times). Graded on a real prediction set of the shared Spider folder: 200-odd wrong answers, each with a
diagnosis, exact match and suspect references, which is where an order that follows the hash seed would show.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from eval.tests import needs_spider

pytestmark = [needs_spider.mark, pytest.mark.slow]

BACKEND = Path(__file__).resolve().parents[3]
SEEDS = ("0", "1", "4242")
TIMING_KEYS = {"generated_at", "candidate_ms", "reference_ms", "model_ms", "efficiency"}
"""JSON keys that hold a time, or figures made of times: the named timing fields."""
TIMING_TEXT = [
    re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"),  # when the run was made (heading, testsuite timestamp)
    re.compile(r"(SQL|reference) [0-9.]+ ms"),  # each statement's time (HTML)
    re.compile(r"median [0-9.]+, p25 [0-9.]+, p75 [0-9.]+"),  # the efficiency line (Markdown, JUnit, HTML)
    re.compile(r'data-cell="(min|p25|median|p75|max)">[0-9.]+<'),  # the efficiency table (HTML)
]


def _without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<timing>" if k in TIMING_KEYS else _without_timing(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


def _text_without_timing(text: str) -> str:
    for pattern in TIMING_TEXT:
        text = pattern.sub("<timing>", text)
    return text


SETS = needs_spider.SPIDER.prediction_sets() if needs_spider.SPIDER is not None else []


@pytest.fixture(params=SETS)
def imported(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """One shared prediction set imported (each set's wrong answers differ: the order a hash seed changes shows
    on some and not others)."""
    assert needs_spider.SPIDER is not None
    spider = needs_spider.SPIDER
    out = tmp_path
    env = {**os.environ, "EVAL_OUTPUT_DIR": str(out), "EVAL_CALLER_DIR": str(out)}
    name = str(request.param)
    subprocess.run(
        [
            sys.executable, "-m", "eval.cli.bench_import", "spider",
            "--questions", str(spider.questions), "--gold", str(spider.gold),
            "--predictions", str(spider.predictions(name)), "--model", name,
            "--db-dir", str(spider.databases), "--out", str(out / "import"), "--skip-missing-databases",
        ],
        cwd=BACKEND, env=env, check=True, capture_output=True,
    )  # fmt: skip
    return out, env


def test_three_hash_seeds_give_the_same_bytes_but_for_the_timing_fields(imported):
    out, env = imported
    assert needs_spider.SPIDER is not None
    seen: dict[str, set[str]] = {}
    for seed in SEEDS:
        report = out / f"seed-{seed}"
        done = subprocess.run(
            [
                sys.executable, "-m", "eval.run", "--suite", "sql",
                "--corpus", str(out / "import" / "spider.yaml"), "--db-dir", str(needs_spider.SPIDER.databases),
                "--candidate", "recorded", "--answers", str(out / "import" / "spider.answers.jsonl"),
                "--json", f"{report}.json", "--markdown", f"{report}.md", "--junit", f"{report}.xml",
                "--html", f"{report}.html",
            ],
            cwd=BACKEND, env={**env, "PYTHONHASHSEED": seed}, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        data = json.loads(Path(f"{report}.json").read_text(encoding="utf-8"))
        assert any(q.get("diagnosis") for q in data["questions"]), "the run must diagnose wrong answers"
        seen.setdefault("json", set()).add(json.dumps(_without_timing(data), sort_keys=False))
        for kind in ("md", "xml", "html"):
            seen.setdefault(kind, set()).add(_text_without_timing(Path(f"{report}.{kind}").read_text(encoding="utf-8")))
        seen.setdefault("stdout", set()).add(_text_without_timing(done.stdout))
    differing = [kind for kind, texts in seen.items() if len(texts) != 1]
    assert not differing, f"these outputs change with the hash seed: {differing}"
