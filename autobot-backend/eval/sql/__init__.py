"""The SQL answer-accuracy suite: grade NL-to-SQL answers on execution, not on SQL text.

The rest of the harness uses these names; the modules behind them each hold one concept:
``fixtures`` (seeded databases), ``corpus`` (questions, loader, stamps), ``composition``,
``compare`` (the disclosed tolerance), ``selfcheck`` (the oracle proves itself first),
``candidate`` (the ``CandidateRunner`` over the NL service), ``grade`` (verdicts),
``baseline`` and ``gate`` (what CI enforces), ``docs`` (the dated record), ``engines``
(SQLite, PostgreSQL or DuckDB under the fixtures), ``dialects`` (a reference in each engine's
dialect) and ``crossengine`` (the oracle agreeing with itself across engines). The command lines
are :mod:`eval.cli`'s (``python -m eval.run --suite sql``, ``python -m eval.cli.selfcheck``, ...).
``selfcheck`` and ``docs`` are imported from their own modules, not re-exported here.
"""

from eval.sql.compare import Comparison, compare_results
from eval.sql.corpus import Corpus, CorpusError, Question, load_corpus
from eval.sql.fixtures import FIXTURE_NAMES, FixtureError, build_rotations
from eval.sql.gate import GateCheck, GateResult, evaluate_gate

__all__ = [
    "FIXTURE_NAMES",
    "Comparison",
    "Corpus",
    "CorpusError",
    "FixtureError",
    "GateCheck",
    "GateResult",
    "Question",
    "build_rotations",
    "compare_results",
    "evaluate_gate",
    "load_corpus",
]
