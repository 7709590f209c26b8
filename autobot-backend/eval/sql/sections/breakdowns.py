"""The answerable questions per stratum, and, when the questions have them, per database and per difficulty label,
as counts per verdict (a stratum may be two cases wide: no rates)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.core.charts import stacked_bar
from eval.sql.model.figures import VerdictCounts
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Block, Place, Property, Section, Table, placed
from eval.sql.sections.counts import ANSWERABLE_COLUMNS, counts

BREAKDOWNS = (
    ("stratum", "stratum", "Answerable questions per stratum", "answer-strata"),
    ("database", "database", "Answerable questions per database", "databases"),
    ("difficulty", "difficulty", "Answerable questions per difficulty (the benchmark's own label)", "difficulties"),
)
"""(key, column name, title, the page's id) of each breakdown, shown when the run has it."""


def breakdowns(run: SQLRun) -> list[tuple[str, str, str, str, dict[str, VerdictCounts]]]:
    """(key, column name, title, id, counts) of each answerable breakdown the run has, in report order."""
    found = {"stratum": run.answerable_strata, "database": run.databases, "difficulty": run.difficulties}
    return [(key, column, title, id_, found[key]) for key, column, title, id_ in BREAKDOWNS if found[key]]


def _row(name: str, c: VerdictCounts) -> dict[str, Any]:
    parts = [(v, c.count(v), f"v-{v}") for v in ANSWERABLE_COLUMNS]
    return {"name": name, "cases": c.cases, "parts": parts, "bar": stacked_bar(parts, c.cases)}


class Breakdowns(Section):
    name = "breakdowns"
    places = placed(markdown=Place.HEADLINE)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        out: list[str] = []
        columns = ANSWERABLE_COLUMNS
        for _, column, title, _, found in breakdowns(run):
            rows = [[md.escape(k), str(c.cases), *(str(c.count(v)) for v in columns)] for k, c in found.items()]
            out += [f"### {title}", "", md.table([column, "cases", *columns], rows), ""]
        return out

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        return [
            Table(
                title,
                (column, "cases", *ANSWERABLE_COLUMNS),
                tuple(
                    (name, str(c.cases), *(str(c.count(v)) for v in ANSWERABLE_COLUMNS)) for name, c in found.items()
                ),
            )
            for _, column, title, _, found in breakdowns(run)
        ]

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        return [
            (f"{key}.{name}", counts(c, ANSWERABLE_COLUMNS))
            for key, _, _, _, found in breakdowns(run)
            for name, c in found.items()
        ]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        return {
            "tables": [
                {
                    "id": id_,
                    "key": key,
                    "column": column,
                    "title": title,
                    "rows": [_row(k, c) for k, c in found.items()],
                }
                for key, column, title, id_, found in breakdowns(run)
            ]
        }
