"""The labelled sample's draw: real wrong and error answers of the shared prediction sets, a seeded random
sample stratified by the grader's reason (``row_count``, ``value``, ``column_order``, ... and each error kind),
each stratum given its share of the sample by largest remainder, every stratum at least one item."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.core.errors import UsageError
from eval.core.jsonl import json_lines
from eval.sql.spider_study._graded import GradedSet

SEED = 34
"""The draw's seed (the issue that asked for it)."""
SIZE = 200
"""Items drawn: at least 150 are wanted once unsure labels and gold defects are set aside."""
DRAWN = ("wrong", "error")


@dataclass(frozen=True)
class Item:
    """One drawn answer: which set, which question, and the stratum it was drawn from."""

    set: str
    dev_index: int
    database: str
    verdict: str
    reason: str

    @property
    def key(self) -> str:
        return f"{self.set}/{self.dev_index:04d}"

    def to_json(self) -> dict[str, Any]:
        return {
            "item": self.key,
            "set": self.set,
            "dev_index": self.dev_index,
            "database": self.database,
            "verdict": self.verdict,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Item:
        return cls(
            str(row["set"]), int(row["dev_index"]), str(row["database"]), str(row["verdict"]), str(row["reason"])
        )


def population(graded: Iterable[GradedSet]) -> list[Item]:
    """Every answerable question graded wrong or error, in (set, dev index) order."""
    out = [
        Item(g.name, i, str(q.get("database")), q["verdict"], str(q.get("reason")))
        for g in graded
        for i, q in sorted(g.questions.items())
        if q["expect"] == "answer" and q["verdict"] in DRAWN
    ]
    return sorted(out, key=lambda it: (it.set, it.dev_index))


def draw(items: list[Item], size: int = SIZE, seed: int = SEED, exclude: Iterable[str] = ()) -> list[Item]:
    """``size`` items (all of them when there are fewer), stratified by reason, in (set, dev index) order;
    items whose key is in ``exclude`` (an earlier draw's) are left out first."""
    left_out = set(exclude)
    items = [it for it in items if it.key not in left_out]
    strata: dict[str, list[Item]] = defaultdict(list)
    for it in items:
        strata[it.reason].append(it)
    if size >= len(items):
        return list(items)
    shares = {r: len(v) * size / len(items) for r, v in strata.items()}
    quota = {r: max(1, int(s)) for r, s in shares.items()}
    by_remainder = sorted(strata, key=lambda r: (-(shares[r] - int(shares[r])), r))
    for r in by_remainder:
        if sum(quota.values()) >= size:
            break
        if quota[r] < len(strata[r]):
            quota[r] += 1
    rng = random.Random(seed)
    chosen = [it for r in sorted(strata) for it in rng.sample(strata[r], min(quota[r], len(strata[r])))]
    return sorted(chosen, key=lambda it: (it.set, it.dev_index))


def read_draw(path: Path) -> list[Item]:
    """A draw as :func:`draw` writes it (one JSON object a line)."""
    out = []
    for line in json_lines(path, UsageError, missing="no such draw", unreadable="unreadable"):
        if line.error is not None or not isinstance(line.value, dict):
            raise UsageError(f"{line.where}: not a line of a draw (one JSON object a line, as the draw command writes)")
        try:
            out.append(Item.from_json(line.value))
        except (KeyError, TypeError, ValueError) as exc:
            raise UsageError(
                f"{line.where}: not an item of a draw ({exc}); write draws with the draw command"
            ) from None
    return out
