"""Everything a corpus's check finds, from one place: what a run reports and ``python -m eval.sql.check`` lists.

The run (:mod:`eval.sql.pipeline`) and the check (:mod:`eval.sql.authoring.check`) both run the self-check
and then call :func:`corpus_findings` on its result, so they cannot disagree on a lint: the corpus's lints
(:mod:`eval.sql.corpus.lints`: drafts, near-duplicates, unstated orders), the oracle defects and the
suspect references, each in corpus order. A test runs both on corpora that raise every kind and compares.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from eval.sql.corpus.lints import corpus_lints
from eval.sql.corpus.questions import Question
from eval.sql.model.lints import Lint
from eval.sql.oracle.selfcheck import OracleDefect, SelfCheckResult
from eval.sql.oracle.suspect import Suspect


@dataclass(frozen=True)
class Findings:
    lints: list[Lint]
    """The corpus's lints (:data:`eval.sql.model.lints.CORPUS_KINDS`), in corpus order."""
    defects: list[OracleDefect]
    """References that cannot grade their question (the question is ``unmeasured``), as the self-check found them."""
    suspects: list[Suspect]
    """References of a shape that is often a mistake (graded as usual), in corpus order."""


def corpus_findings(
    questions: Sequence[Question], check: SelfCheckResult, *, corpus: Sequence[Question] | None = None
) -> Findings:
    """The lints, oracle defects and suspect references of ``questions``, ``check`` being their self-check.

    ``corpus``: the whole corpus when ``questions`` are a shard's share of it: the lints are then the corpus's
    that fall on ``questions`` (a near-duplicate is found against every question), so the shards' lints pooled
    are the unsharded run's."""
    one_row = {qid for qid, results in check.reference.items() if all(len(r.rows) <= 1 for r in results)}
    suspects = [s for q in questions for s in check.suspects.get(q.id, [])]
    if corpus is None:
        lints = corpus_lints(questions, one_row)
    else:
        mine = {q.id for q in questions}
        lints = [lint for lint in corpus_lints(corpus, one_row) if lint.question_id in mine]
    return Findings(lints, list(check.defects), suspects)
