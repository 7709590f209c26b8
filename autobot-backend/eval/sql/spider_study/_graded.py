"""A shared prediction set graded as a user grades it: the import command, then ``python -m eval.run``, each a
fresh process, into a temporary folder; the JSON report read back."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from eval.core.errors import HarnessError
from eval.core.jsonl import json_file
from eval.sql.spider_study._sets import SpiderDev

BACKEND = Path(__file__).resolve().parents[3]
"""``autobot-backend/``, where the commands run from."""
ID_PREFIX = "spider-"


class GradingFailed(HarnessError):
    """The import or the run of a shared set did not finish."""


@dataclass(frozen=True)
class GradedSet:
    """One prediction set's JSON report, its questions by dev index."""

    name: str
    report: dict[str, Any]

    @property
    def questions(self) -> dict[int, dict[str, Any]]:
        return {dev_index(q["id"]): q for q in self.report["questions"]}


def dev_index(question_id: str) -> int:
    """``spider-0042`` -> 42 (the import's ids are positions in ``dev.json``)."""
    return int(question_id.removeprefix(ID_PREFIX))


def grade_set(
    spider: SpiderDev, name: str, run_flags: Sequence[str] = (), only: Collection[int] | None = None
) -> GradedSet:
    """``name``'s predictions imported (``--skip-missing-databases``: Spider's ``wta_1`` is not shared) and graded
    by the recorded candidate, with ``run_flags`` added to the run's command line; ``only``: grade just these dev
    indexes (the imported corpus cut down to them, so a test can grade a few questions cheaply)."""
    with tempfile.TemporaryDirectory(prefix="spider-study-") as tmp:
        out = Path(tmp)
        env = {**os.environ, "EVAL_OUTPUT_DIR": str(out), "EVAL_CALLER_DIR": str(out)}
        _run(
            [
                "eval.cli.bench_import",
                "spider",
                "--questions",
                str(spider.questions),
                "--gold",
                str(spider.gold),
                "--predictions",
                str(spider.predictions(name)),
                "--model",
                name,
                "--db-dir",
                str(spider.databases),
                "--out",
                str(out / "import"),
                "--skip-missing-databases",
            ],
            env,
            f"importing {name}",
        )
        if only is not None:
            _keep_only(out / "import" / "spider.yaml", {f"{ID_PREFIX}{i:04d}" for i in only})
        report = out / "run.json"
        _run(
            [
                "eval.run",
                "--suite",
                "sql",
                "--corpus",
                str(out / "import" / "spider.yaml"),
                "--db-dir",
                str(spider.databases),
                "--candidate",
                "recorded",
                "--answers",
                str(out / "import" / "spider.answers.jsonl"),
                "--json",
                str(report),
                *run_flags,
            ],
            env,
            f"grading {name}",
            ok=(0, 1),
        )
        return GradedSet(name, json_file(report, GradingFailed, missing="no report written", unreadable="unreadable"))


def _keep_only(corpus: Path, ids: set[str]) -> None:
    """The imported corpus with only the questions ``ids`` names (the ones skipped at import no longer listed)."""
    data = yaml.safe_load(corpus.read_text(encoding="utf-8"))
    data["questions"] = [q for q in data["questions"] if q["id"] in ids]
    data.pop("skipped", None)
    corpus.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _run(args: list[str], env: dict[str, str], what: str, ok: Sequence[int] = (0,)) -> None:
    done = subprocess.run(
        [sys.executable, "-m", *args], cwd=BACKEND, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode not in ok:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise GradingFailed(f"{what} failed (exit {done.returncode}): {tail}")
