"""How hard the counterexample search looks at one pass: a count of neighbours, or seconds.

A count repeats exactly (the draws are seeded); seconds depend on the machine. Either is recorded in the run's
cohort. Light on purpose: the command line checks a budget without importing the search.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from eval.sql.model.defaults import DEFAULT_COUNTEREXAMPLES as DEFAULT_BUDGET

__all__ = ["DEFAULT_BUDGET", "Budget"]


@dataclass(frozen=True)
class Budget:
    """How hard to look per pass: a count of neighbours, or seconds of searching."""

    neighbours: int | None = None
    seconds: float | None = None

    @property
    def label(self) -> str:
        return f"{self.neighbours} neighbours" if self.neighbours is not None else f"{self.seconds:g}s"

    @classmethod
    def parse(cls, text: str) -> Budget:
        """``200`` (neighbours) or ``2s``/``1.5s`` (seconds per pass); raises ValueError naming the forms."""
        found = re.fullmatch(r"\s*(\d+)\s*|\s*(\d+(?:\.\d+)?)\s*s\s*", text)
        if found and found[1] is not None and int(found[1]) > 0:
            return cls(neighbours=int(found[1]))
        if found and found[2] is not None and float(found[2]) > 0:
            return cls(seconds=float(found[2]))
        raise ValueError(f"{text!r}: give a number of neighbours (e.g. 200) or seconds per pass (e.g. 2s)")

    def spent(self, tried: int, started: float) -> bool:
        if self.neighbours is not None:
            return tried >= self.neighbours
        return time.monotonic() - started >= (self.seconds or 0.0)
