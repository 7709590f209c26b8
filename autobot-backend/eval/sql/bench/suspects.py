"""How many of an imported benchmark's references are suspect, by kind (:mod:`eval.sql.oracle.suspect`).

The import runs the self-check of every gold query on its database (the checks a run makes before grading,
so the counts are the ones a run's reports will show) and counts the questions with a finding of each kind.
A question with two kinds counts once in each, and once in the total. The findings are kept by content
(:mod:`eval.sql.oracle.kept`): a gold query already checked on the same database by the same code, by an
earlier import of the benchmark (another model's predictions) or a run of it, is not checked again, and a run
after the import takes its suspect findings from what the import kept. Like a run's, the check is spread over
forked processes (:mod:`eval.core.forked`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from eval.core import forked
from eval.core.forked import Spread
from eval.sql.corpus.questions import Corpus

if TYPE_CHECKING:
    from eval.sql.oracle.suspect import Suspect


@dataclass(frozen=True)
class SuspectCount:
    questions: int
    """Questions whose reference was checked (every question of the corpus)."""
    suspects: list[Suspect]
    """Every finding, in corpus order."""

    @property
    def suspect_questions(self) -> int:
        return len({s.question_id for s in self.suspects})

    def line(self) -> str:
        from eval.sql.oracle.suspect import by_kind

        kinds = ", ".join(f"{kind} {n}" for kind, n in by_kind(self.suspects).items())
        return f"suspect references: {self.suspect_questions} of {self.questions} question(s) ({kinds})"


def count_suspects(corpus: Corpus, db_dir: Path) -> SuspectCount:
    """The self-check of every reference of ``corpus`` on its database under ``db_dir``."""
    # Imported here: an import that checks nothing (the default) never loads the database layer (SQLAlchemy, the
    # executor, the self-check), some 0.2 s of the 0.9 s a Spider set's import takes.
    from eval.sql.corpus.db_dir import database_targets
    from eval.sql.oracle.kept import KeptChecks
    from eval.sql.oracle.selfcheck import run_self_check
    from services.readonly.execute import ReadOnlySQL

    with ReadOnlySQL() as database:
        result = run_self_check(
            database,
            corpus,
            database_targets(corpus.questions, db_dir),
            lint_rotations=False,
            snapshot_dir=None,
            spread=Spread(forked.processes(len(corpus.questions)), database.after_fork),
            kept=KeptChecks(),
            need_rows=False,
        )
    found = [s for q in corpus.questions for s in result.suspects.get(q.id, [])]
    return SuspectCount(len(corpus.questions), found)
