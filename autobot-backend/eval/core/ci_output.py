"""CI systems' side channels: GitHub's job summary file, and whether the run is inside Actions.

The summary file is the runner's, shared by every step of the job: it is appended to, never
truncated or replaced, and keeps its mode (an atomic rename would do both). Its path comes from
``GITHUB_STEP_SUMMARY``, so ``--github-summary`` needs no ``EVAL_OUTPUT_DIR``.
"""

from __future__ import annotations

import os
from pathlib import Path

from eval.core.errors import UsageError
from eval.core.untrusted import inert

SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def in_github_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def step_summary_path() -> Path:
    """The job summary file; a usage error (before anything runs) when the variable is unset."""
    raw = os.environ.get(SUMMARY_ENV, "").strip()
    if not raw:
        raise UsageError(
            f"--github-summary appends to the file named by {SUMMARY_ENV}, which is not set; GitHub Actions "
            "sets it in every step (elsewhere, set it to a file, or use --markdown PATH)"
        )
    return Path(raw)


def append_step_summary(text: str) -> Path:
    """Append ``text`` (with a blank line before it when the file has content) to the job summary."""
    path = step_summary_path()
    with path.open("a", encoding="utf-8") as fh:
        if fh.tell():
            fh.write("\n")
        fh.write(inert(text).rstrip("\n") + "\n")
    return path
