"""What a run is asked to do (:class:`RunSpec`, validated by the command line before anything is built) and what
follows from it alone: the row cap of a model's answer, the corpus as graded, what exact match needs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.core.errors import HarnessError
from eval.core.runner import Limits
from eval.sql.corpus.answers import RecordedAnswers
from eval.sql.corpus.questions import Corpus
from eval.sql.counterexample.budget import Budget
from eval.sql.fixtures.seeded import Fixture
from eval.sql.grading.asking import OnAnswer
from eval.sql.grading.exact_match import exact_of
from eval.sql.model.defaults import DEFAULT_ENGINE, DEFAULT_SEED
from eval.sql.model.outcome import SQLOutcome
from eval.sql.oracle.selfcheck import OracleDefect
from eval.sql.rows import ColumnOrder
from eval.sql.shards.share import ShardSpec
from services.generation.protocol import SQLGenerator
from services.readonly import limits

STATEMENT_TIMEOUT_S = 10.0


class OracleBroken(HarnessError):
    """The built-in corpus failed its self-check: no candidate was called."""

    def __init__(self, defects: Sequence[OracleDefect]):
        self.defects = list(defects)
        lines = "\n".join(f"  {d.question_id}: {d.kind}: {d.detail}" for d in self.defects)
        super().__init__(f"the built-in corpus failed its self-check; no candidate was called:\n{lines}")


@dataclass(frozen=True)
class RunSpec:
    """Everything a run needs, validated by the command line before anything is built."""

    candidate: str
    """``reference``, ``embedded``, ``llm`` or ``recorded``."""
    generator: SQLGenerator
    """What the service holds (for ``reference``/``recorded`` only a name: answers go by id)."""
    corpus: Corpus
    fixtures: Mapping[str, Fixture]
    """Fixture name -> fixture, for the questions' ``fixture`` names."""
    builtin: bool
    """The built-in corpus on the built-in fixtures: a broken oracle stops the run."""
    db_url: str | None = None
    """A user's own database instead of the fixtures (one database, no rotations)."""
    rotations: int = 3
    seed: int = DEFAULT_SEED
    timeout_s: float = 120.0
    """Per question, for the candidate's answer and its grading."""
    answers: RecordedAnswers | None = None
    concurrency: int = 1
    repeats: int = 1
    limits: Limits = field(default_factory=Limits)
    statement_timeout_s: float = STATEMENT_TIMEOUT_S
    prices: tuple[float, float] | None = None
    db_dir: Path | None = None
    """Where ``database:`` questions find their databases: ``<db_dir>/NAME/NAME.sqlite``."""
    on_answer: OnAnswer | None = None
    """Sees every answer with its grade (the run's captured turns); None: nothing is kept."""
    engine: str = DEFAULT_ENGINE
    """Where the fixtures are built and graded (:data:`eval.sql.engines.ENGINES`); not with ``db_url``."""
    fixture_url: str | None = None
    """PostgreSQL: the database the fixtures are built in (None: a throwaway server)."""
    column_order: ColumnOrder | None = None
    """``--column-order``: every question graded under it, whatever the corpus says (None: each its own).
    Part of the set-up, so part of the cohort."""
    transcripts: bool = True
    """Keep a model candidate's transcript of every ask (``--no-transcripts``: False)."""
    exact_match: str | None = None
    """``--exact-match [MODE]``: every answer also gets Spider's exact-set-match, whatever the corpus says, its
    figures in MODE (``official`` or ``extended``; None: as the corpus asks). Changes no verdict, so not part of
    the cohort."""
    row_cap: int | None = None
    """``--row-cap``: the most rows a model's answer may return where its question sets no ``row_cap``
    (None: ``NL_SQL_ROW_CAP``, else 10,000). A cohort key when not the default; references are bounded by
    the byte budget alone."""
    counterexamples: Budget | None = None
    """``--counterexamples``: search every pass for a database on which it would be wrong, with this budget per
    pass (:mod:`eval.sql.counterexample`); None: no search. A cohort key when set."""
    shard: ShardSpec | None = None
    """``--shard K/N``: grade only this share of the corpus (:mod:`eval.sql.shards.share`); everything else (the
    databases built, the corpus stamps, the cohort) is the whole run's, so the shards merge into it."""


def run_row_cap(spec: RunSpec) -> int:
    """The row cap of a model's answer in this run: ``--row-cap``, else ``NL_SQL_ROW_CAP``, else 10,000."""
    return limits.row_cap() if spec.row_cap is None else spec.row_cap


def graded_corpus(spec: RunSpec) -> Corpus:
    """The corpus as this run grades it: with ``--column-order`` applied to every question."""
    return spec.corpus.with_column_order(spec.column_order) if spec.column_order else spec.corpus


@dataclass(frozen=True)
class ExactSetUp:
    """What EM needs of a run (:mod:`eval.sql.grading.exact_match`): the dialect, each EM question's database
    schema, the run's EM mode, and the recorded SQL of the EM questions that were not asked (an oracle defect)."""

    dialect: str
    schemas: dict[str, Any]
    mode: str
    unasked: dict[str, str | None]

    def giver(self) -> Callable[[SQLOutcome], SQLOutcome]:
        """What gives one outcome its EM in this run: where an answer is graded, and after for the rest."""
        return exact_of(self.schemas.__contains__, self.dialect, self.schemas, self.mode, self.unasked)
