"""The 2x2: answerable and must-refuse questions by whether the system returned a number or declined, errors and
unmeasured apart. A number in the must-refuse row is the dangerous failure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.core.charts import Bar, stacked_bar
from eval.sql.model.figures import GridRow
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Block, Place, Section, Table, placed

COLUMNS = ("returned a number", "declined", "error (no number)", "unmeasured")


def _bar(grid: GridRow, total: int, must_refuse: bool) -> Bar:
    """A number is what an answerable question wants (right or wrong: the verdicts say which) and what a
    must-refuse one must not give, so the colours follow the arm."""
    parts = [
        ("returned a number", grid.returned_number, "v-answered" if must_refuse else "v-number"),
        ("declined", grid.declined, "v-declined" if must_refuse else "v-refused"),
        ("error", grid.error, "v-error"),
        ("unmeasured", grid.unmeasured, "v-unmeasured"),
    ]
    return stacked_bar(parts, total)


class Grid(Section):
    name = "grid"
    places = placed(markdown=Place.HEADLINE)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        s, grid = run.summary, run.two_by_two
        rows = [
            [f"answerable ({s.answerable})", *(str(n) for n in grid.answerable.cells)],
            [f"must refuse ({s.must_refuse})", *(str(n) for n in grid.must_refuse.cells)],
        ]
        return ["## The 2x2", "", md.table(["", *COLUMNS], rows), ""]

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        grid = run.two_by_two
        rows = tuple(
            (label, *(str(v) for v in row.cells))
            for row, label in ((grid.answerable, "answerable"), (grid.must_refuse, "must refuse"))
        )
        return [Table("The 2x2", ("", *COLUMNS), rows)]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        s, grid = run.summary, run.two_by_two
        return {
            "summary": s,
            "grid": grid,
            "bars": {
                "answerable": _bar(grid.answerable, s.answerable, must_refuse=False),
                "must_refuse": _bar(grid.must_refuse, s.must_refuse, must_refuse=True),
            },
        }
