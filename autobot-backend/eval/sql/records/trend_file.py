"""The trend file beside an accuracy record: one JSON line per recorded run (``eval.tools.trend`` reads it).

Each line holds the record row's identity and status, the run's figures with their 95% intervals, and
the git commit the run was measured at (``dirty`` when tracked files differed from it).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from eval.core.output import write_atomically
from eval.sql.model import codec
from eval.sql.model.codec import key
from eval.sql.model.figures import Summary
from eval.sql.model.outcome import ANSWERABLE_VERDICTS

REPO_ROOT = Path(__file__).resolve().parents[4]
TREND_FILE = REPO_ROOT / "docs" / "eval" / "sql-accuracy.jsonl"


def trend_path(page: Path) -> Path:
    """The JSON Lines file beside an accuracy record page."""
    return page.with_suffix(".jsonl")


def git_commit(cwd: Path = REPO_ROOT) -> tuple[str | None, bool | None]:
    """The commit checked out, and whether tracked files differ from it; (None, None) outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10)
        if head.returncode:
            return None, None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None, None
    return head.stdout.strip(), bool(status.stdout.strip()) if status.returncode == 0 else None


@dataclass(frozen=True)
class TrendPoint:
    """One recorded run as the trend keeps it: the record row's identity and status, and the run's figures."""

    date: str
    candidate: str
    model: str
    pass_rate: float | None
    engine: str | None = None
    corpus_digest: str | None = None
    questions: int | None = None
    rotations: str | int | None = None
    cohort: str | None = None
    """The cohort fingerprint (None: recorded before runs had one)."""
    suite: str = "on"
    """``on`` the record's suite, or ``off`` (kept with ``--allow-off-suite``)."""
    status: str = ""
    passed: int | None = field(default=None, metadata=key("pass"))
    measured: int | None = None
    pass_rate_ci: list[float] | None = None
    correct_refusals: int | None = None
    must_refuse_measured: int | None = None
    refusal_recall: float | None = None
    refusal_recall_ci: list[float] | None = None
    over_refusals: int | None = None
    controls: int | None = None
    verdicts: dict[str, int] | None = field(default=None, metadata=key(omit="none"))
    """The record row's count per verdict (``unmeasured`` with the must-refuse questions not measured); None
    for a line written before the trend kept them."""
    commit: str | None = None
    dirty: bool | None = None
    source: str = "run"
    """``run``, or ``record row`` for a line converted from a record written before the trend existed."""

    REQUIRED: ClassVar[tuple[str, ...]] = ("date", "candidate", "model", "pass_rate")

    @property
    def counts(self) -> str:
        """``pass 64, wrong 37, error 0, refused 7, unmeasured 0``, or ``-`` for a line without them."""
        if not self.verdicts:
            return "-"
        order = [v.value for v in ANSWERABLE_VERDICTS]  # the file's keys are sorted: shown in report order
        shown = sorted(self.verdicts, key=lambda v: order.index(v) if v in order else len(order))
        return ", ".join(f"{v} {self.verdicts[v]}" for v in shown)

    def to_json(self) -> dict[str, Any]:
        return codec.to_json(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TrendPoint:
        """A line of the file; :class:`KeyError` names a required key it lacks, unknown keys are ignored."""
        missing = [k for k in cls.REQUIRED if k not in data]
        if missing:
            raise KeyError(", ".join(missing))
        return codec.from_json(cls, data)


def verdict_counts(row: Mapping[str, str]) -> dict[str, int] | None:
    """The record row's count per answerable verdict, in report order (a verdict the row predates left out)."""
    found = {v.value: row.get(v.value, "-") for v in ANSWERABLE_VERDICTS}
    return {v: int(n) for v, n in found.items() if n.isdigit()} or None


def trend_line(summary: Summary, row: Mapping[str, str], *, commit: str | None, dirty: bool | None) -> TrendPoint:
    """One run as the trend keeps it: the record row's identity and status, the summary's figures."""
    return TrendPoint(
        date=row["date"],
        candidate=row["candidate"],
        model=row["model"],
        engine=row["engine"],
        corpus_digest=row["corpus digest"],
        questions=int(row["questions"]),
        rotations=row["rotations"],
        cohort=row.get("cohort"),
        suite="off" if "differs in" in row else "on",
        status=row["status"],
        passed=summary.passed,
        measured=summary.answerable - summary.unmeasured,
        pass_rate=summary.pass_rate,
        pass_rate_ci=summary.pass_rate_ci,
        correct_refusals=summary.correct_refusals,
        must_refuse_measured=summary.must_refuse - summary.must_refuse_unmeasured,
        refusal_recall=summary.refusal_recall,
        refusal_recall_ci=summary.refusal_recall_ci,
        over_refusals=summary.over_refusals,
        controls=summary.controls,
        verdicts=verdict_counts(row),
        commit=commit,
        dirty=dirty,
    )


def append_line(path: Path, line: TrendPoint) -> None:
    """Append one run (the file rewritten through a rename: a reader never sees half a line)."""
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    if before and not before.endswith("\n"):
        before += "\n"
    write_atomically(path, before + json.dumps(line.to_json(), sort_keys=True) + "\n")
