"""What is wrong with the corpus itself (a draft, near-duplicates, an unstated order, a reference that cannot grade
its question): counted by kind in one line after the headline of every output, each one listed in the report
files, with the oracle defects (questions not graded)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Annotation, Place, Section, placed


def line(run: SQLRun) -> str | None:
    """``lints: near-duplicate 2, oracle: empty result 1 (1 question(s) not graded ...); each listed in ...``: the
    corpus's lints and oracle defects counted by kind, the one line every output writes after the headline
    (the report files list each one); None when there are none. A kind read back from a report is untrusted: each
    caller escapes the line in its own format."""
    counted = run.lint_counts
    if not counted:
        return None
    kinds = ", ".join(f"{kind} {n}" for kind, n in counted.items())
    ungraded = len({d.question_id for d in run.oracle_defects})
    defects = (
        f" ({ungraded} question(s) not graded, their reference cannot grade them: fix each reference or remove "
        "the question; --strict makes this exit 2)"
        if ungraded
        else ""
    )
    return f"lints: {kinds}{defects}; each is listed in the JSON, Markdown and HTML reports"


class Lints(Section):
    name = "lints"
    places = placed(markdown=Place.END, html=Place.FINDINGS)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        out: list[str] = []
        if run.lints:
            lints = (
                [md.escape(x.question_id), md.escape(x.where), md.escape(x.kind), md.escape(x.detail, limit=300)]
                for x in run.lints
            )
            table = md.table_lines(["question", "where", "lint", "detail"], lints)  # lines: printed a block at a time
            out += [f"## Lints ({len(run.lints)})", "", *table, ""]
        if run.oracle_defects:
            rows = [
                [md.escape(d.question_id), md.escape(d.kind), md.escape(d.detail, limit=300)]
                for d in run.oracle_defects
            ]
            out += [
                "## Oracle defects (questions not graded)",
                "",
                md.table(["question", "defect", "detail"], rows),
                "",
            ]
        return out

    def annotations(self, run: SQLRun) -> list[Annotation]:
        """One ``::warning`` counting the lints and oracle defects by kind (the report files list each one)."""
        found = line(run)
        return [] if found is None else [Annotation("SQL corpus lints", found, "warning")]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        """Every lint, then every oracle defect (whose place in the files a run does not keep), one row each."""
        found = [{"id": x.question_id, "kind": x.kind, "where": x.where, "detail": x.detail} for x in run.lints]
        found += [{"id": d.question_id, "kind": d.kind, "where": "", "detail": d.detail} for d in run.oracle_defects]
        return {"rows": found}
