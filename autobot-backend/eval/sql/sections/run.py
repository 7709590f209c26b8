"""Who and where: the candidate, the model, the engine and databases, the corpus and cohort, and what every output
says before any figure (the run's warnings, the questions the corpus skipped at import)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eval.core import markdown as md
from eval.sql.corpus.skipped import skipped_line
from eval.sql.model.run import SQLRun
from eval.sql.sections.base import Annotation, Block, Line, Place, Property, Section, placed


def skipped_notice(run: SQLRun) -> str | None:
    """``SKIPPED: 2 question(s) skipped at import (missing databases: wta_1) ...``: the questions the corpus
    lists as left out (``skipped:``), so no figure passes for the whole benchmark."""
    entries = run.corpus.skipped
    line = skipped_line(entries)
    if line is None:
        return None
    ids = ", ".join(e.id for e in entries[:10]) + (" ..." if len(entries) > 10 else "")
    return (
        f"SKIPPED: {line}: {ids}. They are in no figure of this run; put the databases under --db-dir and import "
        "again without --skip-missing-databases to grade them."
    )


def notices(run: SQLRun) -> list[str]:
    """What every output says before any figure: the run's warnings (a partial run first), then the questions
    skipped at import. The corpus's lints and oracle defects come after the headline (:mod:`.lints`)."""
    return [*run.warnings, *(n for n in (skipped_notice(run),) if n)]


class Run(Section):
    name = "run"
    places = placed(markdown=Place.LEAD, terminal=Place.LEAD, junit=Place.LEAD, html=Place.LEAD)

    def markdown(self, run: SQLRun, at: Place) -> list[str]:
        setup = run.run
        where = [f"fixtures {md.escape(', '.join(setup.fixtures) or '-')}"]
        if setup.seed is not None:
            where.append(f"{setup.rotations} rotation(s) from seed {setup.seed}")
        elif not setup.db_dir:
            where.append(f"{setup.rotations} database")
        if setup.db_dir:
            names = [k for k in setup.databases if k.startswith("db:")]
            where.append(
                f"{len(names)} database(s) of --db-dir {md.escape(setup.db_dir)}/ (one file each, no rotations)"
            )
        cohort = (
            []
            if run.cohort is None
            else [f"Cohort `{md.escape(run.cohort.fingerprint)}` (numbers compare only within one cohort)", ""]
        )
        return [
            f"# SQL answer-accuracy report ({md.escape(run.generated_at)})",
            "",
            *[f"> **{md.escape(w)}**\n" for w in notices(run)],
            f"Candidate **{md.escape(run.candidate_path)}**, model **{md.escape(run.model)}** · engine "
            f"{md.escape(setup.engine)} · {' · '.join(where)}  ",
            f"Corpus: {run.corpus.size} questions in {len(run.corpus.files)} file(s), "
            f"digest `{run.corpus.digest[:16]}`",
            "",
            *cohort,
        ]

    def terminal(self, run: SQLRun, view: Any, at: Place) -> list[Block]:
        setup = run.run
        where = f"engine {setup.engine}"
        if setup.fixtures:
            where += f", fixtures {', '.join(setup.fixtures)}, {setup.rotations} rotation(s) from seed {setup.seed}"
        if setup.db_dir:
            where += f", --db-dir {setup.db_dir}/"
        title = Line(
            (
                ("SQL answer accuracy  ", "bold"),
                (run.candidate_path, "bold cyan"),
                (" / ", ""),
                (run.model, "bold cyan"),
                (f"  ·  {where}  ·  corpus {run.corpus.digest[:16]}  ·  {run.generated_at}", ""),
            )
        )
        return [title, *(Line.of(w, "yellow") for w in notices(run))]

    def junit(self, run: SQLRun, at: Place) -> list[Property]:
        return [(f"notice.{i}", notice) for i, notice in enumerate(notices(run), 1)]

    def annotations(self, run: SQLRun) -> list[Annotation]:
        skipped = skipped_notice(run)
        return [] if skipped is None else [Annotation("SQL questions skipped at import", skipped, "warning")]

    def html(self, run: SQLRun, at: Place) -> Mapping[str, Any]:
        return {"report": run, "run": run.run, "notices": notices(run)}
