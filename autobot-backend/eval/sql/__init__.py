"""The SQL answer-accuracy suite: grade NL-to-SQL answers on execution, not on SQL text.

The rest of the harness uses these names; the modules behind them each hold one concept:
``fixtures`` (seeded databases), ``corpus`` (questions, loader, stamps), ``composition``,
``compare`` (the disclosed tolerance), ``selfcheck`` (the oracle proves itself first),
``candidate`` (the ``CandidateRunner`` over the NL service), ``grade`` (verdicts),
``baseline`` and ``gate`` (what CI enforces), ``docs`` (the dated record), ``cli``.
"""

from eval.sql.compare import Comparison, compare_results
from eval.sql.corpus import Corpus, CorpusError, Question, load_corpus
from eval.sql.fixtures import FIXTURE_NAMES, FixtureError, build_rotations
from eval.sql.gate import GateCheck, GateResult, evaluate_gate
from eval.sql.selfcheck import OracleDefect, SelfCheckResult, run_self_check

__all__ = [
    "FIXTURE_NAMES", "Comparison", "Corpus", "CorpusError", "FixtureError", "GateCheck", "GateResult",
    "OracleDefect", "Question", "SelfCheckResult", "build_rotations", "compare_results", "evaluate_gate",
    "load_corpus", "run_self_check",
]
