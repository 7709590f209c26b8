"""The corpus stamps: the SHA-256 of every corpus file and one digest (numbers compare only on the same digest),
the questions skipped at import, and each database's schema and file digest per rotation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Place, Section, placed


def database_stamps(run: SQLRun) -> list[tuple[str, int, str, str]]:
    """(fixture or database, rotation, schema digest, file digest) of every database the run graded on."""
    return [
        (name or "(--db-url)", i, s.schema[:16], (s.sha256 or "")[:16])
        for name, stamps in run.run.databases.items()
        for i, s in enumerate(stamps, 1)
    ]


class Stamps(Section):
    name = "stamps"
    places = placed(markdown=Place.END, html=Place.END)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        return [
            "## Corpus stamps",
            "",
            md.table(
                ["file", "sha256", "questions"],
                [[md.escape(f.path), f"`{f.sha256}`", str(f.questions)] for f in run.corpus.files],
            ),
            "",
            f"Corpus digest `{run.corpus.digest}`, {run.corpus.size} questions.",
            "",
        ]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        return {"corpus": run.corpus, "cohort": run.cohort, "databases": database_stamps(run)}
