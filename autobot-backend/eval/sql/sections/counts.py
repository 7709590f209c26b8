"""The count columns of the report's tables, and one row of counts as text (JUnit's properties)."""

from __future__ import annotations

from typing import Protocol

from eval.sql.model.outcome import ANSWERABLE_VERDICTS

ANSWERABLE_COLUMNS = tuple(v.value for v in ANSWERABLE_VERDICTS)
"""The count columns of a table of answerable questions (per stratum, database, difficulty), in order."""


class Counted(Protocol):
    """A row of counts: its cases, and a count per column."""

    @property
    def cases(self) -> int: ...
    def count(self, column: str) -> int: ...


def counts(c: Counted, columns: tuple[str, ...]) -> str:
    """``cases 3: pass 1, wrong 2, ...``: one row of a breakdown as text (JUnit's properties)."""
    return f"cases {c.cases}: " + ", ".join(f"{k.replace('_', '-')} {c.count(k)}" for k in columns)
