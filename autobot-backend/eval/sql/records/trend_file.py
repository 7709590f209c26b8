"""The trend file beside an accuracy record: one JSON line per recorded run (``eval.tools.trend`` reads it).

Each line holds the record row's identity and status, the run's figures with their 95% intervals, and
the git commit the run was measured at (``dirty`` when tracked files differed from it).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eval.core.output import write_atomically

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


def trend_line(
    summary: Mapping[str, Any], row: Mapping[str, str], *, commit: str | None, dirty: bool | None
) -> dict[str, Any]:
    """One run as the trend keeps it: the record row's identity and status, the summary's figures."""
    measured = summary["answerable"] - summary["unmeasured"]
    refusals = summary["must_refuse"] - summary["must_refuse_unmeasured"]
    return {
        "date": row["date"],
        "candidate": row["candidate"],
        "model": row["model"],
        "engine": row["engine"],
        "corpus_digest": row["corpus digest"],
        "questions": int(row["questions"]),
        "rotations": row["rotations"],
        "cohort": row.get("cohort"),
        "suite": "off" if "differs in" in row else "on",
        "status": row["status"],
        "pass": summary["pass"],
        "measured": measured,
        "pass_rate": summary["pass_rate"],
        "pass_rate_ci": summary["pass_rate_ci"],
        "correct_refusals": summary["correct_refusals"],
        "must_refuse_measured": refusals,
        "refusal_recall": summary["refusal_recall"],
        "refusal_recall_ci": summary["refusal_recall_ci"],
        "over_refusals": summary["over_refusals"],
        "controls": summary["controls"],
        "commit": commit,
        "dirty": dirty,
        "source": "run",
    }


def append_line(path: Path, line: dict[str, Any]) -> None:
    """Append one run (the file rewritten through a rename: a reader never sees half a line)."""
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    if before and not before.endswith("\n"):
        before += "\n"
    write_atomically(path, before + json.dumps(line, sort_keys=True) + "\n")
