"""The shared Spider dev folder: where it is, which prediction sets it holds, and the published results per pair."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.core.errors import UsageError
from eval.core.jsonl import json_lines

SPIDER_ENV = "EVAL_SPIDER_DEV"
"""A folder laid out as ``shared/data/spider-dev`` (its README): overrides where the study looks."""
REPO_ROOT = Path(__file__).resolve().parents[4]
"""The repository's root (this file is ``autobot-backend/eval/sql/spider_study/_sets.py``)."""
DEFAULT = REPO_ROOT.parent / "shared" / "data" / "spider-dev"
"""``../shared/data/spider-dev`` from the repository's root, where the shared material lives."""


@dataclass(frozen=True)
class SpiderDev:
    """One Spider dev folder: ``dev.json``, ``dev_gold.sql``, ``database/``, ``predictions/*.txt`` and the
    published per-pair results."""

    root: Path

    @property
    def questions(self) -> Path:
        return self.root / "dev.json"

    @property
    def gold(self) -> Path:
        return self.root / "dev_gold.sql"

    @property
    def databases(self) -> Path:
        return self.root / "database"

    def prediction_sets(self) -> list[str]:
        """The prediction sets, by file stem (``DAIL-SQL+GPT-4``), sorted."""
        return sorted(p.stem for p in (self.root / "predictions").glob("*.txt"))

    def predictions(self, name: str) -> Path:
        path = self.root / "predictions" / f"{name}.txt"
        if not path.is_file():
            raise UsageError(
                f"{path}: no prediction set {name!r}; the sets here are {', '.join(self.prediction_sets())}"
            )
        return path

    def published(self, file: str) -> dict[tuple[str, int], dict[str, Any]]:
        """(set, dev index) -> one line of a published per-pair file (``official_exact_match.jsonl``,
        ``test_suite_verdicts.jsonl``)."""
        path = self.root / file
        out: dict[tuple[str, int], dict[str, Any]] = {}
        for line in json_lines(path, UsageError, missing="missing from the shared folder", unreadable="unreadable"):
            row = line.value
            if line.error is not None or not isinstance(row, dict) or "set" not in row or "dev_index" not in row:
                raise UsageError(f"{line.where}: not a line of the shared folder's per-pair files")
            out[(str(row["set"]), int(row["dev_index"]))] = row
        return out


def spider_dev(folder: str | os.PathLike[str] | None = None) -> SpiderDev:
    """The shared folder (``folder``, else ``$EVAL_SPIDER_DEV``, else ``../shared/data/spider-dev`` from the
    repository's root); a clear error naming where it looked when it is not there."""
    raw = folder or os.environ.get(SPIDER_ENV) or DEFAULT
    root = Path(raw).resolve()
    missing = [p for p in ("dev.json", "dev_gold.sql", "database", "predictions") if not (root / p).exists()]
    if missing:
        raise UsageError(
            f"{root}: not a Spider dev folder as the shared data lays it out (missing {', '.join(missing)}); "
            f"give --spider DIR or set {SPIDER_ENV}=DIR (see ../shared/data/spider-dev/README.md)"
        )
    return SpiderDev(root)
