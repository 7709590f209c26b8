"""How many of an imported benchmark's references are suspect, by kind (:mod:`eval.sql.oracle.suspect`).

The import runs the self-check of every gold query on its database (the checks a run makes before grading,
so the counts are the ones a run's reports will show) and counts the questions with a finding of each kind.
A question with two kinds counts once in each, and once in the total.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eval.sql.corpus.db_dir import database_targets
from eval.sql.corpus.questions import load_corpus
from eval.sql.oracle.selfcheck import run_self_check
from eval.sql.oracle.suspect import Suspect, by_kind
from services.readonly.execute import ReadOnlySQL


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
        kinds = ", ".join(f"{kind} {n}" for kind, n in by_kind(self.suspects).items())
        return f"suspect references: {self.suspect_questions} of {self.questions} question(s) ({kinds})"


def count_suspects(corpus_path: Path, db_dir: Path) -> SuspectCount:
    """The self-check of every reference of the corpus at ``corpus_path`` on its database under ``db_dir``."""
    corpus = load_corpus([corpus_path], fixtures=None)
    with ReadOnlySQL() as database:
        result = run_self_check(
            database, corpus, database_targets(corpus.questions, db_dir), lint_rotations=False, snapshot_dir=None
        )
    found = [s for q in corpus.questions for s in result.suspects.get(q.id, [])]
    return SuspectCount(len(corpus.questions), found)
